/* ctensor_named.h - named tensors for ctensor (PyTorch's named tensors): optional
   names per dimension that ops carry through and check.          v0.1 (2026-12-06)

   HOW TO USE
     #define CTENSOR_IMPLEMENTATION          (in exactly one file)
     #include "ctensor.h"
     #include "ctensor_named.h"              (after ctensor.h)
     link with -lm

     The implementation uses ctensor.h's internals (the dispatcher's names step),
     so it is compiled in the translation unit that defines CTENSOR_IMPLEMENTATION;
     there CTENSOR_NAMED_IMPLEMENTATION is turned on automatically.

   THE FEEL (torch.Tensor.refine_names, align_as, sum('C'))
       static const char *const NCHW[] = {"N", "C", "H", "W"};
       ct_tensor *img = ct_refine_names(ct_randn(CT_FLOAT32, 32, 3, 56, 56), 4, NCHW);
       ct_tensor *s = ct_sum_dim(img, ct_dim_of(img, "C"), 0);         // names N, H, W
       ct_tensor *m = ct_align_as(mean_c, img);                        // [C] -> [1, C, 1, 1]
       ct_tensor *y = ct_div(ct_sub(img, m), ct_align_as(std_c, img)); // any layout
       ct_print(y);                                                     // ..., names=('N', 'C', 'H', 'W'))

   TABLE OF CONTENTS
     1. Declarations: naming and renaming, looking names up, aligning, flattening
     2. Implementation: interning, the propagation rules (the dispatcher calls them
        for every op whose inputs have names), the composite functions, the API

   THE RULES (as PyTorch's name inference; docs: "Named Tensors operator coverage")
     - A name is a C identifier (letters, digits, underscore; not starting with a
       digit). A tensor's names are unique; NULL is an unnamed dimension. Names are
       interned: compare them with ==.
     - Unary ops, clone, to, detach, contiguous, in-place fills and random fills
       keep the names.
     - Binary and ternary elementwise ops (add, mul, where, lerp, masked_fill, ...)
       unify the names from the right: an unnamed dim takes the other's name; two
       different names at the same position are an error (no accidental
       broadcasting), and so is a name found at another position of the other
       operand (no accidental alignment). In-place ops give the input the unified
       names. cat unifies its inputs' names the same way.
     - Reductions (sum, mean, prod, var, std, amax, amin, max/min along a dim,
       logsumexp, norm, all, any, argmax, median, mode, kthvalue) drop the reduced
       dims' names; with keepdim every name stays. Full reductions are unnamed.
     - softmax, log_softmax, cumsum, cumprod, cummax, sort, topk, flip, roll, tril,
       triu, pad and the index/scatter ops that keep the input's shape keep names.
     - mm, bmm, mv, dot, matmul, addmm, baddbmm, addmv, linear contract: the
       result takes the row names of the first operand and the column names of
       the second; batch dims unify (bmm requires equal batch names).
     - Views carry names: permute and transpose reorder them, select drops one,
       slice and narrow keep them, expand's new leading dims and unsqueeze's new
       dim are unnamed, squeeze drops the squeezed dims', flatten names the merged
       dim only through ct_flatten_names (otherwise unnamed), split/chunk/unbind
       pieces keep them.
     - Everything else refuses named inputs as PyTorch does ("aten::view is not yet
       supported with named tensors. ..."): drop the names with ct_rename(t, 0,
       NULL), run the op, and name the result.
     - Gradients are unnamed (autograd ignores names, as PyTorch's does).
     PyTorch refuses a few ops that have an obvious rule (permute, unsqueeze,
     where, index_select, sort, flip, stack, argmax): ctensor applies the rule.

   Errors name the op and the names, in PyTorch's words, and come back as NULL
   (or -1 / CT_DIM_NOT_FOUND) with ct_last_error() set; nothing is modified.
*/
#ifndef CTENSOR_NAMED_H_INCLUDED
#define CTENSOR_NAMED_H_INCLUDED
#include "ctensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   1. Declarations
   ========================================================================== */
/* Tensor.refine_names(*names): a view whose unnamed dims take the given names;
   named dims must match. One entry may be "..." (the dims it covers keep theirs). */
CTENSOR_API ct_tensor *ct_refine_names(const ct_tensor *t, int n, const char *const *names);
/* Tensor.rename(*names): a view with these names (n == ndim; NULL entries unnamed).
   n == 0: all names dropped (rename(None)). One entry may be "...". */
CTENSOR_API ct_tensor *ct_rename(const ct_tensor *t, int n, const char *const *names);
/* Tensor.rename(N='batch', C='channels'): from[k] becomes to[k] (to[k] NULL: unnamed) */
CTENSOR_API ct_tensor *ct_rename_map(const ct_tensor *t, int n, const char *const *from, const char *const *to);
/* Tensor.rename_(...): in place (the names of t change; its data does not) */
CTENSOR_API ct_tensor *ct_rename_(ct_tensor *t, int n, const char *const *names);
/* Tensor.names[dim]: NULL for an unnamed dim (or a bad dim, with the error set) */
CTENSOR_API const char *ct_dim_name(const ct_tensor *t, int dim);
/* Tensor.has_names() */
CTENSOR_API int ct_has_names(const ct_tensor *t);
/* The index of the dim called `name`, for any function taking a dim:
   ct_sum_dim(x, ct_dim_of(x, "C"), 0). A missing name gives CT_DIM_NOT_FOUND with
   the error set, and the op it is passed to then fails keeping that message. */
CTENSOR_API int ct_dim_of(const ct_tensor *t, const char *name);
/* Tensor.align_to(*names): a view permuted to this order, with new size-1 dims for
   names t lacks. One entry may be "..." (t's other dims, in their order). Every dim
   of t must be named (unless "..." covers it) and appear once. */
CTENSOR_API ct_tensor *ct_align_to(const ct_tensor *t, int n, const char *const *names);
/* Tensor.align_as(other): align_to(other.names) */
CTENSOR_API ct_tensor *ct_align_as(const ct_tensor *t, const ct_tensor *other);
/* Tensor.transpose('N', 'H') */
CTENSOR_API ct_tensor *ct_transpose_names(const ct_tensor *t, const char *dim0, const char *dim1);
/* Tensor.flatten(dims, out_dim): the named dims, consecutive and in order, become
   one dim called out_name */
CTENSOR_API ct_tensor *ct_flatten_names(const ct_tensor *t, int n, const char *const *dims, const char *out_name);
/* Tensor.unflatten('F', (('N', 2), ('C', 3))): dim `dim` (a name) becomes n dims
   with these sizes (one may be -1) and names */
CTENSOR_API ct_tensor *ct_unflatten_names(const ct_tensor *t, const char *dim, int n, const int64_t *sizes,
                                          const char *const *names);
/* Writes "['N', None, 'C']" (PyTorch's list form) into buf; returns the length it needs. */
CTENSOR_API size_t ct_names_repr(const ct_tensor *t, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* CTENSOR_NAMED_H_INCLUDED */

/* ############################################################################
   2. IMPLEMENTATION
   ############################################################################ */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_NAMED_NO_IMPLEMENTATION) && !defined(CTENSOR_NAMED_IMPLEMENTATION)
#define CTENSOR_NAMED_IMPLEMENTATION
#endif
#ifdef CTENSOR_NAMED_IMPLEMENTATION
#ifndef CTENSOR_NAMED_IMPLEMENTATION_DONE
#define CTENSOR_NAMED_IMPLEMENTATION_DONE
#ifndef CTENSOR_IMPLEMENTATION_DONE
#error "ctensor_named.h: the implementation needs ctensor.h's implementation in the same translation unit (define CTENSOR_IMPLEMENTATION before including ctensor.h)"
#endif

/* ---- interning: one copy of each name, kept for the life of the process ---- */
typedef struct ct__nm_entry { struct ct__nm_entry *next; char s[1]; } ct__nm_entry;
#define CT__NM_BUCKETS 256
static ct__nm_entry *ct__nm_table[CT__NM_BUCKETS];
static int ct__nm_lock;
static int ct__nm_valid(const char *s) {
    if (!s || !*s || (*s >= '0' && *s <= '9')) return 0;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
    return 1;
}
/* the interned copy of s (NULL with the error set when s is not an identifier) */
static const char *ct__nm_intern(const char *api, const char *s) {
    if (!ct__nm_valid(s)) {
        ct_set_error(CT_ERR_ARG, "%s: Invalid name: a valid identifier contains only digits, alphabetical characters, "
                     "and/or underscore and starts with a non-digit. got: '%s'.", api, s ? s : "(null)");
        return NULL;
    }
    uint32_t h = 2166136261u;
    for (const char *p = s; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    ct__nm_entry **b = &ct__nm_table[h % CT__NM_BUCKETS];
    ct__spin_lock(&ct__nm_lock);
    ct__nm_entry *e = *b;
    while (e && strcmp(e->s, s)) e = e->next;
    if (!e) {
        size_t n = strlen(s);
        e = (ct__nm_entry *)CT_MALLOC(sizeof(ct__nm_entry) + n);
        if (e) {
            memcpy(e->s, s, n + 1);
            e->next = *b;
            *b = e;
        }
    }
    ct__spin_unlock(&ct__nm_lock);
    if (!e) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory (a dim name)", api); return NULL; }
    return e->s;
}

#define CT__NM(x, d) ((x)->names ? (x)->names[d] : (const char *)NULL)
/* PyTorch's list form of n names: ['N', None] */
typedef struct { char s[160]; } ct__nm_str;
static ct__nm_str ct__nm_list(int n, const char *const *nm) {
    ct__nm_str r;
    size_t o = 0;
    r.s[0] = 0;
    o += (size_t)snprintf(r.s, sizeof r.s, "[");
    for (int d = 0; d < n && o < sizeof r.s; d++)
        o += (size_t)snprintf(r.s + o, sizeof r.s - o, nm && nm[d] ? "%s'%s'" : "%sNone%s", d ? ", " : "", nm && nm[d] ? nm[d] : "");
    if (o < sizeof r.s) snprintf(r.s + o, sizeof r.s - o, "]");
    return r;
}
static ct__nm_str ct__nm_of(const ct_tensor *x) {
    const char *nm[CT_MAX_DIMS] = {0};
    for (int d = 0; d < x->ndim; d++) nm[d] = CT__NM(x, d);
    return ct__nm_list(x->ndim, nm);
}
/* duplicates are an error (a tensor's names are unique) */
static int ct__nm_check_unique(const char *api, int n, const char *const *nm) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; nm[i] && j < n; j++)
            if (nm[i] == nm[j])
                return ct__failed(CT_ERR_ARG, "%s: Cannot construct a tensor with duplicate names. Got names: %s.", api,
                                  ct__nm_list(n, nm).s);
    return 0;
}
/* a new view of x (an alias: gradients flow back to x) with names nm (NULL: unnamed) */
static ct_tensor *ct__nm_view(const ct_tensor *x, const char *const *nm) {
    ct__tls *t = ct__tls_get();
    t->names_off++;
    ct_tensor *v = ct_alias(x);
    t->names_off--;
    if (!v || ct__names_set(v, nm)) return NULL;
    return v;
}
static void ct__names_turn_on(void);

/* ---- the propagation rules -----------------------------------------------
   Called by the dispatcher (ctensor.h, ct__dispatch_run) for a top-level op with
   at least one named input, after its meta and before anything is allocated:
   writes each output's names into on[j], returns the mask of named outputs, or
   -1 with the error set. */
static int ct__nm_unsupported(const ct__opdef *d) {
    return ct__failed(CT_ERR_UNSUPPORTED, "%s is not yet supported with named tensors. Please drop names via "
                      "ct_rename(tensor, 0, NULL), call the op with an unnamed tensor, and set names on the result of the "
                      "operation.", d->sname);
}
/* unify_from_right(a, b) into r (length max(na, nb)) */
static int ct__nm_unify(const char *op, const char *what, int na, const char *const *a, int nb, const char *const *b,
                        const char **r) {
    int n = na > nb ? na : nb;
    for (int k = 1; k <= n; k++) {
        const char *x = k <= na ? a[na - k] : NULL, *y = k <= nb ? b[nb - k] : NULL;
        if (x && y && x != y)
            return ct__failed(CT_ERR_ARG, "%s: Error when attempting to %s dims %s and dims %s: dim '%s' and dim '%s' are at the "
                              "same position from the right but do not match.", op, what, ct__nm_list(na, a).s,
                              ct__nm_list(nb, b).s, x, y);
        const char *z = x ? x : y;
        /* the name must not sit at another position of the other list */
        if (z && (!x || !y)) {
            int other_n = x ? nb : na;
            const char *const *other = x ? b : a;
            for (int q = 0; q < other_n; q++)
                if (other[q] == z)
                    return ct__failed(CT_ERR_ARG, "%s: Misaligned dims when attempting to %s dims %s and dims %s: dim '%s' "
                                      "appears in a different position from the right across both lists.", op, what,
                                      ct__nm_list(na, a).s, ct__nm_list(nb, b).s, z);
        }
        r[n - k] = z;
    }
    return 0;
}
static void ct__nm_get(const ct_tensor *x, const char **nm) {
    for (int d = 0; d < x->ndim; d++) nm[d] = CT__NM(x, d);
}
/* unify every input's names (broadcast); r gets max ndim entries; returns its length */
static int ct__nm_unify_all(const char *op, const char *what, int n, ct_tensor *const *in, const char **r) {
    int nr = 0;
    for (int i = 0; i < n; i++) {
        const char *cur[CT_MAX_DIMS], *x[CT_MAX_DIMS];
        for (int d = 0; d < nr; d++) cur[d] = r[d];
        ct__nm_get(in[i], x);
        if (ct__nm_unify(op, what, nr, cur, in[i]->ndim, x, r)) return -1;
        if (in[i]->ndim > nr) nr = in[i]->ndim;
    }
    return nr;
}
/* reductions: which dims an op reduces (bit mask; -1: an op that is not a reduction) and keepdim */
static int ct__nm_reduced(const ct__call *c, int ndim, int *keepdim) {
    const ct__attrs *a = c->a;
    int op = c->op, all = 0, mask = 0;
    *keepdim = 0;
    switch (op) {
    case CT__OP_SUM: case CT__OP_MEAN: case CT__OP_NANSUM: case CT__OP_PROD: case CT__OP_VAR: case CT__OP_STD:
    case CT__OP_VAR_MEAN: case CT__OP_STD_MEAN: case CT__OP_AMAX: case CT__OP_AMIN: case CT__OP_LOGSUMEXP:
    case CT__OP_NORM: case CT__OP_COUNT_NONZERO:
        *keepdim = op != CT__OP_COUNT_NONZERO && (a->flags & 1u);
        if (a->nv == 0) all = 1;
        for (int k = 0; k < a->nv; k++) {
            int d = (int)(a->v[k] < 0 ? a->v[k] + ndim : a->v[k]);
            if (d >= 0 && d < ndim) mask |= 1 << d;
        }
        break;
    case CT__OP_ALL: case CT__OP_ANY: case CT__OP_ARGMAX: case CT__OP_ARGMIN:
    case CT__OP_MAX_DIM: case CT__OP_MIN_DIM: case CT__OP_MEDIAN_DIM: case CT__OP_MODE: case CT__OP_KTHVALUE: {
        /* one dim, i0; for all/any/argmax/argmin only when given (flag bit 4), else all */
        int optional = op == CT__OP_ALL || op == CT__OP_ANY || op == CT__OP_ARGMAX || op == CT__OP_ARGMIN;
        *keepdim = (a->flags & 1u) != 0;
        if ((optional && !(a->flags & 16u)) || ndim == 0) { all = 1; *keepdim = optional ? 0 : *keepdim; break; }
        int d = (int)(a->i[0] < 0 ? a->i[0] + ndim : a->i[0]);
        if (d >= 0 && d < ndim) mask |= 1 << d;
        break;
    }
    case CT__OP_MAX: case CT__OP_MIN: case CT__OP_MEDIAN: all = 1; break;
    default: return -1;
    }
    return all ? (1 << ndim) - 1 : mask;
}
/* a product's result names must be unique (PyTorch's message) */
static int ct__nm_product_dups(const char *op, int da, const char *const *na, int db, const char *const *nb, int n,
                               const char *const *r) {
    for (int i = 0; i < n; i++)
        for (int j = i + 1; r[i] && j < n; j++)
            if (r[i] == r[j])
                return ct__failed(CT_ERR_ARG, "%s: Matrix multiplying Tensor%s with Tensor%s would produce output tensor with "
                                  "duplicate names %s. Please rename the input tensors with ct_rename to prevent this.", op,
                                  ct__nm_list(da, na).s, ct__nm_list(db, nb).s, ct__nm_list(n, r).s);
    return 0;
}
/* the rank of output j (an in-place output is its input) */
static int ct__nm_ondim(const ct__call *c, int j) {
    return c->oi[j].kind == CT__OUT_INPLACE ? c->in[c->oi[j].src]->ndim : (int)c->oi[j].ndim;
}
static int ct__nm_rule(ct__call *c, const char *on[CT__MAX_OUT][CT_MAX_DIMS]) {
    const ct__opdef *d = ct__opdef_get(c->op);
    ct_tensor *x = c->in[0];
    int nout = c->nout < CT__MAX_OUT ? c->nout : CT__MAX_OUT, all = (1 << nout) - 1, op = c->op;
    const char *r[CT_MAX_DIMS];
    for (int j = 0; j < nout; j++)
        if (c->oi[j].kind == CT__OUT_DEFERRED) return ct__nm_unsupported(d);
    int keep = 0, kd, red = op < CT__NUM_OPS ? ct__nm_reduced(c, x->ndim, &kd) : -1;
    if (red >= 0) {
        int n = 0;
        for (int q = 0; q < x->ndim; q++)
            if (kd || !((red >> q) & 1)) r[n++] = CT__NM(x, q);
        for (int j = 0; j < nout; j++) {
            if (ct__nm_ondim(c, j) != n) return ct__nm_unsupported(d);   /* a shape the rule does not know */
            for (int q = 0; q < n; q++) on[j][q] = r[q];
        }
        return all;
    }
    if (d->meta == ct__meta_unary) keep = 1;
    else if (d->meta == ct__meta_binary || d->meta == ct__meta_ternary || op == CT__OP_WHERE || op == CT__OP_MASKED_FILL ||
             op == CT__OP_COPY || op == CT__OP_CAT) {
        int n = ct__nm_unify_all(d->name, op == CT__OP_CAT ? "cat" : "broadcast", c->nin, c->in, r);
        if (n < 0) return -1;
        if (ct__nm_ondim(c, 0) != n) return ct__nm_unsupported(d);   /* e.g. cat's legacy empty 1-D inputs */
        for (int q = 0; q < n; q++) on[0][q] = r[q];
        return 1;
    } else {
        switch (op) {
        case CT__OP_FILL: case CT__OP_TO: case CT__OP_CLONE: case CT__OP_ALIAS: case CT__OP_SLICE:
        case CT__OP_UNIFORM_: case CT__OP_NORMAL_: case CT__OP_RANDOM_: case CT__OP_BERNOULLI_: case CT__OP_BERNOULLI_TENSOR_:
        case CT__OP_EXPONENTIAL_: case CT__OP_SOFTMAX: case CT__OP_LOG_SOFTMAX: case CT__OP_CUMSUM: case CT__OP_CUMPROD:
        case CT__OP_CUMMAX: case CT__OP_CUMMIN: case CT__OP_SORT: case CT__OP_TOPK: case CT__OP_FLIP: case CT__OP_ROLL:
        case CT__OP_TRIL: case CT__OP_TRIU: case CT__OP_CONSTANT_PAD: case CT__OP_REFLECTION_PAD: case CT__OP_REPLICATION_PAD:
        case CT__OP_CIRCULAR_PAD: case CT__OP_INDEX_SELECT: case CT__OP_INDEX_ADD: case CT__OP_INDEX_COPY:
        case CT__OP_INDEX_FILL: case CT__OP_SCATTER: case CT__OP_SCATTER_VALUE: case CT__OP_SCATTER_ADD:
        case CT__OP_SCATTER_REDUCE: case CT__OP_MASKED_SCATTER:
            keep = 1;
            break;
        case CT__OP_PERMUTE:
            for (int q = 0; q < x->ndim && q < c->a->nv; q++) {
                int64_t s = c->a->v[q] < 0 ? c->a->v[q] + x->ndim : c->a->v[q];
                on[0][q] = CT__NM(x, (int)s);
            }
            return 1;
        case CT__OP_SELECT: case CT__OP_DIAGONAL: case CT__OP_EXPAND: case CT__OP_REPEAT: case CT__OP_STACK: {
            int n = 0, o = ct__nm_ondim(c, 0);
            if (op == CT__OP_SELECT || op == CT__OP_DIAGONAL) {
                int d1 = (int)(c->a->i[op == CT__OP_SELECT ? 0 : 1]), d2 = (int)c->a->i[2];
                if (d1 < 0) d1 += x->ndim;
                if (d2 < 0) d2 += x->ndim;
                for (int q = 0; q < x->ndim; q++)
                    if (q != d1 && (op == CT__OP_SELECT || q != d2)) on[0][n++] = CT__NM(x, q);
                if (op == CT__OP_DIAGONAL) on[0][n++] = NULL;   /* the diagonal: unnamed, as PyTorch's default */
            } else if (op == CT__OP_STACK) {
                int m = ct__nm_unify_all(d->name, "stack", c->nin, c->in, r);
                if (m < 0) return -1;
                int at = (int)(c->a->i[0] < 0 ? c->a->i[0] + m + 1 : c->a->i[0]);
                for (int q = 0; q <= m; q++) on[0][n++] = q == at ? NULL : r[q < at ? q : q - 1];
            } else {   /* expand, repeat: new leading dims unnamed */
                for (int q = 0; q < o - x->ndim; q++) on[0][n++] = NULL;
                for (int q = 0; q < x->ndim; q++) on[0][n++] = CT__NM(x, q);
            }
            if (n != o) return ct__nm_unsupported(d);
            return 1;
        }
        case CT__OP_MM: case CT__OP_BMM: case CT__OP_MV: case CT__OP_DOT: case CT__OP_VDOT: case CT__OP_ADDMM:
        case CT__OP_BADDBMM: case CT__OP_ADDMV: {
            int base = (op == CT__OP_ADDMM || op == CT__OP_BADDBMM || op == CT__OP_ADDMV);
            const ct_tensor *a = c->in[base], *b = c->in[base + 1];
            int n = 0;
            if (op == CT__OP_BMM || op == CT__OP_BADDBMM) {
                const char *na = CT__NM(a, 0), *nb = CT__NM(b, 0);
                if (na && nb && na != nb)
                    return ct__failed(CT_ERR_ARG, "%s: Expected '%s' (index 0 of %s) to match '%s' (index 0 of %s) but they "
                                      "do not match.", d->name, na, ct__nm_of(a).s, nb, ct__nm_of(b).s);
                r[n++] = na ? na : nb;
            }
            if (op != CT__OP_DOT && op != CT__OP_VDOT) r[n++] = CT__NM(a, a->ndim - 2);   /* the rows */
            if (op != CT__OP_DOT && op != CT__OP_VDOT && op != CT__OP_MV && op != CT__OP_ADDMV) r[n++] = CT__NM(b, b->ndim - 1);
            const char *na[CT_MAX_DIMS] = {0}, *nb[CT_MAX_DIMS] = {0};
            ct__nm_get(a, na);
            ct__nm_get(b, nb);
            if (ct__nm_product_dups(d->name, a->ndim, na, b->ndim, nb, n, r)) return -1;
            if (base) {   /* beta * input + ...: the input broadcasts to the product */
                const char *in_nm[CT_MAX_DIMS], *u[CT_MAX_DIMS];
                ct__nm_get(c->in[0], in_nm);
                if (ct__nm_unify(d->name, "broadcast", n, r, c->in[0]->ndim, in_nm, u)) return -1;
                for (int q = 0; q < n; q++) r[q] = u[q];
            }
            if (ct__nm_ondim(c, 0) != n) return ct__nm_unsupported(d);
            for (int q = 0; q < n; q++) on[0][q] = r[q];
            return n ? 1 : 0;
        }
        default:
            return ct__nm_unsupported(d);
        }
    }
    if (keep) {
        for (int j = 0; j < nout; j++) {
            if (ct__nm_ondim(c, j) != x->ndim) return ct__nm_unsupported(d);
            for (int q = 0; q < x->ndim; q++) on[j][q] = CT__NM(x, q);
        }
        return all;
    }
    return ct__nm_unsupported(d);
}

/* ---- public functions that are several ops (ctensor.h calls these for named
   inputs): names from the whole function's rule, the parts run unnamed ---- */
/* matmul's result names from its operands' names (na: da entries, nb: db) */
static int ct__nm_matmul_names(int da, const char *const *na, int db, const char *const *nb, const char **r) {
    int n = 0;
    if (da == 0 || db == 0) return 0;   /* the function itself reports it */
    if (da == 1 && db == 1) return 0;
    if (db == 1) {
        for (int q = 0; q < da - 1; q++) r[n++] = na[q];
    } else if (da == 1) {
        for (int q = 0; q < db - 2; q++) r[n++] = nb[q];
        r[n++] = nb[db - 1];
    } else {
        /* batch dims: equal names where both are named (PyTorch's TensorNames rule) */
        n = (da > db ? da : db) - 2;
        for (int k = 1; k <= n; k++) {
            int ia = da - 2 - k, ib = db - 2 - k;
            const char *x = ia >= 0 ? na[ia] : NULL, *y = ib >= 0 ? nb[ib] : NULL;
            if (x && y && x != y)
                return ct__failed(CT_ERR_ARG, "matmul: Expected '%s' (index %d of %s) to match '%s' (index %d of %s) but they do "
                                  "not match.", x, ia, ct__nm_list(da, na).s, y, ib, ct__nm_list(db, nb).s);
            r[n - k] = x ? x : y;
        }
        r[n++] = na[da - 2];
        r[n++] = nb[db - 1];
    }
    return ct__nm_product_dups("matmul", da, na, db, nb, n, r) ? -1 : n;
}
static ct_tensor *ct__nm_comp(int kind, const ct_tensor *a, const ct_tensor *b, const ct_tensor *bias, int64_t i0, int64_t i1) {
    const char *r[CT_MAX_DIMS] = {0};
    int n = 0;
    switch (kind) {
    case CT__NC_SQUEEZE:
        for (int q = 0; q < a->ndim; q++)
            if (a->shape[q] != 1) r[n++] = CT__NM(a, q);
        break;
    case CT__NC_SQUEEZE_DIM: case CT__NC_UNSQUEEZE: case CT__NC_FLATTEN: {
        int u = kind == CT__NC_UNSQUEEZE;
        int s = ct__dim(kind == CT__NC_FLATTEN ? "flatten" : u ? "unsqueeze" : "squeeze", i0, a->ndim + u), e = s;
        if (s < 0) return NULL;
        if (kind == CT__NC_FLATTEN && (e = ct__dim("flatten", i1, a->ndim)) < 0) return NULL;
        for (int q = 0; q <= a->ndim; q++) {
            if (u && q == s) r[n++] = NULL;
            if (q == a->ndim) break;
            if (kind == CT__NC_SQUEEZE_DIM && q == s && a->shape[q] == 1) continue;
            if (kind == CT__NC_FLATTEN && q > s && q <= e) continue;
            r[n++] = kind == CT__NC_FLATTEN && q == s && e > s ? NULL : CT__NM(a, q);
        }
        if (kind == CT__NC_FLATTEN && a->ndim == 0) r[n++] = NULL;
        break;
    }
    case CT__NC_MATMUL: case CT__NC_LINEAR: {
        const char *na[CT_MAX_DIMS] = {0}, *nb[CT_MAX_DIMS] = {0};
        ct__nm_get(a, na);
        ct__nm_get(b, nb);
        if (kind == CT__NC_LINEAR && b->ndim == 2) {   /* x @ weight.t() */
            const char *w0 = nb[0];
            nb[0] = nb[1];
            nb[1] = w0;
        }
        n = ct__nm_matmul_names(a->ndim, na, b->ndim, nb, r);
        if (n < 0) return NULL;
        if (bias && bias->ndim) {
            const char *nbias[CT_MAX_DIMS], *u[CT_MAX_DIMS];
            ct__nm_get(bias, nbias);
            if (ct__nm_unify("linear", "broadcast", n, r, bias->ndim, nbias, u)) return NULL;
            n = n > bias->ndim ? n : bias->ndim;
            for (int q = 0; q < n; q++) r[q] = u[q];
        }
        break;
    }
    default:
        return ct__fail(CT_ERR_ARG, "named tensors: unknown composite %d", kind);
    }
    ct__tls *t = ct__tls_get();
    t->names_off++;
    ct_tensor *out = NULL;
    switch (kind) {
    case CT__NC_SQUEEZE: out = ct_squeeze(a); break;
    case CT__NC_SQUEEZE_DIM: out = ct_squeeze_dim(a, (int)i0); break;
    case CT__NC_UNSQUEEZE: out = ct_unsqueeze(a, (int)i0); break;
    case CT__NC_FLATTEN: out = ct_flatten(a, (int)i0, (int)i1); break;
    case CT__NC_MATMUL: out = ct_matmul(a, b); break;
    default: out = ct_linear(a, b, bias); break;
    }
    if (out && (out == a || out == b)) out = ct_alias(out);   /* never rename an input */
    t->names_off--;
    if (!out) return NULL;
    if (out->ndim != n) return out;   /* a shape the rule does not know: unnamed */
    if (ct__names_set(out, r)) return NULL;
    return out;
}

/* Once, under the lock: the rules are set before the flag that publishes them
   (the dispatcher reads the flag with acquire). */
static void ct__names_turn_on(void) {
    if (CT__LOAD_ACQUIRE(&ct__names_used)) return;
    ct__spin_lock(&ct__nm_lock);
    if (!CT__LOAD_ACQUIRE(&ct__names_used)) {
        ct__names_rule = ct__nm_rule;
        ct__names_comp = ct__nm_comp;
        CT__STORE_RELEASE(&ct__names_used, 1);
    }
    ct__spin_unlock(&ct__nm_lock);
}

/* ---- the API ------------------------------------------------------------- */
/* expands a names list with at most one "..." to t's rank: out[d] for each dim;
   ell_keep: the dims "..." covers take t's names */
static int ct__nm_expand(const char *api, const ct_tensor *t, int n, const char *const *names, const char **out) {
    int ell = -1;
    if (n < 0 || (n > 0 && !names)) return ct__failed(CT_ERR_ARG, "%s: a names list of %d entries is NULL", api, n);
    for (int k = 0; k < n; k++)
        if (names[k] && !strcmp(names[k], "...")) {
            if (ell >= 0) return ct__failed(CT_ERR_ARG, "%s: More than one Ellipsis ('...') found in names (%d entries). This function supports up to one Ellipsis.", api, n);
            ell = k;
        }
    int fixed = ell >= 0 ? n - 1 : n;
    if ((ell < 0 && n != t->ndim) || (ell >= 0 && fixed > t->ndim)) {
        const char *tmp[CT_MAX_DIMS];
        int m = n < CT_MAX_DIMS ? n : CT_MAX_DIMS;
        for (int k = 0; k < m; k++) tmp[k] = names[k];
        return ct__failed(CT_ERR_ARG, "%s: Number of names (%d) and number of dimensions in tensor (%d) do not match. "
                          "Attempted to create a tensor with names %s", api, fixed, t->ndim, ct__nm_list(m, tmp).s);
    }
    int o = 0;
    for (int k = 0; k < n; k++) {
        if (k == ell) {
            for (int q = 0; q < t->ndim - fixed; q++, o++) out[o] = CT__NM(t, o);
            continue;
        }
        if (!names[k]) { out[o++] = NULL; continue; }
        const char *s = ct__nm_intern(api, names[k]);
        if (!s) return -1;
        out[o++] = s;
    }
    return ct__nm_check_unique(api, t->ndim, out);
}
CTENSOR_API ct_tensor *ct_refine_names(const ct_tensor *t, int n, const char *const *names) {
    if (!t) { ct__null_arg("refine_names", 0); return NULL; }
    const char *nm[CT_MAX_DIMS];
    int ell = 0;
    for (int k = 0; k < n && names; k++) ell |= names[k] && !strcmp(names[k], "...");
    if (!ell && n != t->ndim && n >= 0 && n <= CT_MAX_DIMS && names) {
        const char *tmp[CT_MAX_DIMS];
        for (int k = 0; k < n; k++) tmp[k] = names[k];
        return ct__fail(CT_ERR_ARG, "refine_names: cannot coerce Tensor%s to Tensor%s because they have a different number of "
                        "dims (%d and %d respectively).", ct__nm_of(t).s, ct__nm_list(n, tmp).s, t->ndim, n);
    }
    if (ct__nm_expand("refine_names", t, n, names, nm)) return NULL;
    for (int d = 0; d < t->ndim; d++) {
        const char *old = CT__NM(t, d);
        if (old && nm[d] != old)
            return ct__fail(CT_ERR_ARG, "refine_names: cannot coerce Tensor%s to Tensor%s because '%s' is different from %s%s%s at index %d",
                            ct__nm_of(t).s, ct__nm_list(t->ndim, nm).s, old, nm[d] ? "'" : "", nm[d] ? nm[d] : "None",
                            nm[d] ? "'" : "", d);
    }
    ct__names_turn_on();
    return ct__nm_view(t, nm);
}
CTENSOR_API ct_tensor *ct_rename(const ct_tensor *t, int n, const char *const *names) {
    if (!t) { ct__null_arg("rename", 0); return NULL; }
    const char *nm[CT_MAX_DIMS];
    if (n == 0 && t->ndim != 0) return ct__nm_view(t, NULL);
    if (ct__nm_expand("rename", t, n, names, nm)) return NULL;
    ct__names_turn_on();
    return ct__nm_view(t, nm);
}
CTENSOR_API ct_tensor *ct_rename_(ct_tensor *t, int n, const char *const *names) {
    if (!t) { ct__null_arg("rename_", 0); return NULL; }
    const char *nm[CT_MAX_DIMS];
    if (n == 0) return ct__names_set(t, NULL) ? NULL : t;
    if (ct__nm_expand("rename_", t, n, names, nm)) return NULL;
    ct__names_turn_on();
    return ct__names_set(t, nm) ? NULL : t;
}
CTENSOR_API ct_tensor *ct_rename_map(const ct_tensor *t, int n, const char *const *from, const char *const *to) {
    if (!t) { ct__null_arg("rename", 0); return NULL; }
    if (n < 0 || (n > 0 && (!from || !to))) return ct__fail(CT_ERR_ARG, "rename: a from/to list of %d entries is NULL", n);
    const char *nm[CT_MAX_DIMS];
    ct__nm_get(t, nm);
    for (int k = 0; k < n; k++) {
        int d = ct_dim_of(t, from[k]);
        if (d < 0) {
            ct_set_error(CT_ERR_ARG, "rename: Tried to rename dim '%s' to dim %s in Tensor%s but dim '%s' does not exist",
                         from[k] ? from[k] : "(null)", to[k] ? to[k] : "None", ct__nm_of(t).s, from[k] ? from[k] : "(null)");
            return NULL;
        }
        nm[d] = to[k] ? ct__nm_intern("rename", to[k]) : NULL;
        if (to[k] && !nm[d]) return NULL;
    }
    if (ct__nm_check_unique("rename", t->ndim, nm)) return NULL;
    ct__names_turn_on();
    return ct__nm_view(t, nm);
}
CTENSOR_API const char *ct_dim_name(const ct_tensor *t, int dim) {
    if (!t) { ct__null_arg("names", 0); return NULL; }
    int d = ct__dim("names", dim, t->ndim);
    return d < 0 || !t->ndim ? NULL : CT__NM(t, d);
}
CTENSOR_API int ct_has_names(const ct_tensor *t) { return t && t->names != NULL; }
CTENSOR_API int ct_dim_of(const ct_tensor *t, const char *name) {
    if (!t) { ct__null_arg("dim_of", 0); return CT_DIM_NOT_FOUND; }
    for (int d = 0; name && d < t->ndim; d++) {
        const char *s = CT__NM(t, d);
        if (s && !strcmp(s, name)) return d;
    }
    ct_set_error(CT_ERR_ARG, "Name '%s' not found in Tensor%s.", name ? name : "(null)", ct__nm_of(t).s);
    return CT_DIM_NOT_FOUND;
}
CTENSOR_API ct_tensor *ct_align_to(const ct_tensor *t, int n, const char *const *names) {
    if (!t) { ct__null_arg("align_to", 0); return NULL; }
    if (n < 0 || n > CT_MAX_DIMS + 1 || (n > 0 && !names)) return ct__fail(CT_ERR_ARG, "align_to: a names list of %d entries", n);
    int ell = -1;
    for (int k = 0; k < n; k++)
        if (names[k] && !strcmp(names[k], "...")) {
            if (ell >= 0) return ct__fail(CT_ERR_ARG, "align_to: More than one Ellipsis ('...') found in names. This function supports up to one Ellipsis.");
            ell = k;
        }
    const char *want[CT_MAX_DIMS + 1];
    for (int k = 0; k < n; k++) {
        if (k == ell) continue;
        if (!names[k]) return ct__fail(CT_ERR_ARG, "align_to: names must be names, not None (entry %d)", k);
        if (!(want[k] = ct__nm_intern("align_to", names[k]))) return NULL;
        for (int q = 0; q < k; q++)
            if (q != ell && want[q] == want[k])
                return ct__fail(CT_ERR_ARG, "align_to: Cannot construct a tensor with duplicate names. Got names: '%s' twice.", want[k]);
    }
    /* t's dims: each must be named and listed, unless the ellipsis takes it */
    int used[CT_MAX_DIMS] = {0}, src[CT_MAX_DIMS + CT_MAX_DIMS];
    const char *onm[CT_MAX_DIMS + CT_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        const char *s = CT__NM(t, d);
        int found = 0;
        for (int k = 0; k < n && s; k++) found |= k != ell && want[k] == s;
        if (!found && ell < 0) {
            if (!s)
                return ct__fail(CT_ERR_ARG, "align_to: All input dims must be named. Found unnamed dim at index %d of Tensor%s", d, ct__nm_of(t).s);
            return ct__fail(CT_ERR_ARG, "align_to: Cannot find dim '%s' from Tensor%s in desired alignment %s.", s,
                            ct__nm_of(t).s, ct__nm_list(n, want).s);
        }
        used[d] = found;
    }
    int o = 0;
    for (int k = 0; k < n; k++) {
        if (k == ell) {
            for (int d = 0; d < t->ndim; d++)
                if (!used[d]) { src[o] = d; onm[o++] = CT__NM(t, d); }
            continue;
        }
        int d = -1;
        for (int q = 0; q < t->ndim; q++)
            if (CT__NM(t, q) == want[k]) d = q;
        src[o] = d;
        onm[o++] = want[k];
    }
    if (o > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "align_to: the result would have %d dimensions (the maximum is %d)", o, CT_MAX_DIMS);
    /* a view: permute the present dims, size-1 dims (stride 0) for the new ones */
    int64_t shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    for (int k = 0; k < o; k++) {
        shape[k] = src[k] >= 0 ? t->shape[src[k]] : 1;
        strides[k] = src[k] >= 0 ? t->strides[src[k]] : 0;
    }
    ct__tls *tl = ct__tls_get();
    tl->names_off++;
    ct_tensor *r = ct_as_strided(t, o, shape, strides, t->offset);
    tl->names_off--;
    if (!r) return NULL;
    ct__names_turn_on();
    return ct__names_set(r, onm) ? NULL : r;
}
CTENSOR_API ct_tensor *ct_align_as(const ct_tensor *t, const ct_tensor *other) {
    if (!t || !other) { ct__null_arg("align_as", t ? 1 : 0); return NULL; }
    const char *nm[CT_MAX_DIMS];
    for (int d = 0; d < other->ndim; d++) {
        nm[d] = CT__NM(other, d);
        if (!nm[d])
            return ct__fail(CT_ERR_ARG, "align_as: All input dims must be named. Found unnamed dim at index %d of Tensor%s", d, ct__nm_of(other).s);
    }
    return ct_align_to(t, other->ndim, nm);
}
CTENSOR_API ct_tensor *ct_transpose_names(const ct_tensor *t, const char *dim0, const char *dim1) {
    int a = ct_dim_of(t, dim0);
    if (a < 0) return NULL;
    int b = ct_dim_of(t, dim1);
    if (b < 0) return NULL;
    return ct_transpose(t, a, b);
}
CTENSOR_API ct_tensor *ct_flatten_names(const ct_tensor *t, int n, const char *const *dims, const char *out_name) {
    if (!t) { ct__null_arg("flatten", 0); return NULL; }
    if (n <= 0 || !dims) return ct__fail(CT_ERR_ARG, "flatten: dims must be a non-empty list of names (got %d)", n);
    int first = -1;
    for (int k = 0; k < n; k++) {
        int d = ct_dim_of(t, dims[k]);
        if (d < 0) return NULL;
        if (k == 0) first = d;
        else if (d != first + k) {
            const char *tmp[CT_MAX_DIMS];
            int m = n < CT_MAX_DIMS ? n : CT_MAX_DIMS;
            for (int q = 0; q < m; q++) tmp[q] = dims[q];
            return ct__fail(CT_ERR_ARG, "flatten(tensor, dims, out_dim): dims %s must be consecutive in Tensor%s",
                            ct__nm_list(m, tmp).s, ct__nm_of(t).s);
        }
    }
    const char *on = ct__nm_intern("flatten", out_name);
    if (!on) return NULL;
    const char *nm[CT_MAX_DIMS];
    int m = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d > first && d < first + n) continue;
        nm[m++] = d == first ? on : CT__NM(t, d);
    }
    if (ct__nm_check_unique("flatten", m, nm)) return NULL;
    ct__tls *tl = ct__tls_get();
    tl->names_off++;
    ct_tensor *r = ct_flatten(t, first, first + n - 1);
    if (r && r == t) r = ct_alias(r);
    tl->names_off--;
    if (!r) return NULL;
    return ct__names_set(r, nm) ? NULL : r;
}
CTENSOR_API ct_tensor *ct_unflatten_names(const ct_tensor *t, const char *dim, int n, const int64_t *sizes,
                                          const char *const *names) {
    if (!t) { ct__null_arg("unflatten", 0); return NULL; }
    int d = ct_dim_of(t, dim);
    if (d < 0) return NULL;
    if (n <= 0 || !sizes || !names) return ct__fail(CT_ERR_ARG, "unflatten: sizes and names must be non-empty lists (got %d)", n);
    if (t->ndim - 1 + n > CT_MAX_DIMS) return ct__fail(CT_ERR_ARG, "unflatten: the result would have more than %d dimensions", CT_MAX_DIMS);
    const char *nm[CT_MAX_DIMS];
    int m = 0;
    for (int q = 0; q < t->ndim; q++) {
        if (q != d) { nm[m++] = CT__NM(t, q); continue; }
        for (int k = 0; k < n; k++) {
            if (!names[k]) { nm[m++] = NULL; continue; }
            if (!(nm[m++] = ct__nm_intern("unflatten", names[k]))) return NULL;
        }
    }
    if (ct__nm_check_unique("unflatten", m, nm)) return NULL;
    ct__tls *tl = ct__tls_get();
    tl->names_off++;
    ct_tensor *r = ct_unflatten_n(t, d, n, sizes);
    if (r && r == t) r = ct_alias(r);
    tl->names_off--;
    if (!r) return NULL;
    return ct__names_set(r, nm) ? NULL : r;
}
CTENSOR_API size_t ct_names_repr(const ct_tensor *t, char *buf, size_t cap) {
    if (!t) { ct__null_arg("names", 0); return 0; }
    ct__nm_str s = ct__nm_of(t);
    size_t n = strlen(s.s);
    if (buf && cap) snprintf(buf, cap, "%s", s.s);
    return n;
}

#endif /* CTENSOR_NAMED_IMPLEMENTATION_DONE */
#endif /* CTENSOR_NAMED_IMPLEMENTATION */
