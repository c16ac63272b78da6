#define _POSIX_C_SOURCE 200809L
/* runner.c - executes conformance case folders (../shared/CONFORMANCE.md):
     conformance [-v] DIR...   runs every case folder found under each DIR
                               (-v also prints a line for each passed case)
     conformance --list        prints the ops that have a handler, one a line
   Prints one line per failure or skip ("FAIL dir [op]: why", "SKIP dir [op]:
   why"), then "N passed, N failed, N skipped" as its last line; exits
   non-zero when anything failed. A skipped case never counts as passed.
   With CT_TEST_REPLAY=1 in the environment every op call is also replayed
   from its declared attributes (tests/ct_replay.h): a mismatch fails the case.

   What the runner reads of a case (CONFORMANCE.md), and what it does:
   - op: looked up in the handler tables; "Tensor.x" falls back to "torch.x"
     and back, "F." / "nn.functional." mean "torch.nn.functional.", "torch.nn.X"
     means "nn.X". An op without a handler is skipped with its name; an op
     that begins with "composite:" is skipped as not a single PyTorch call.
   - inputs / outputs / grads: the listed entries, or when a list is absent
     the files in0.npy in1.npy ..., out0.npy ... (with goutK.npy beside outK),
     grad_inK.npy. Tensor arguments are inputs in signature order; an optional
     tensor written as "name": null in args takes no input (conf_tensors).
   - strided_inputs: {"inK": {"base": FILE, view...}}: inK is a view of the
     base array, passed as that view (not a copy), built by the view keys in
     the order written: "permute": dims, "transpose": [d0, d1], "expand":
     sizes, "slice": [dim, start, end, step] (or a list of them), "narrow":
     [dim, start, length], "select": [dim, index], "unsqueeze": dim, "view":
     shape, "diagonal": [offset, dim1, dim2], "stride" with "size" (or "shape") and
     "storage_offset" (as_strided on the base's storage), "as_strided":
     {size, stride, storage_offset}, "unfold": [dim, size, step] (Tensor.unfold).
     The view must hold inK.npy's values. Any
     other key skips the case with its name.
   - comparison: |got - expected| <= atol + rtol * |expected| (the modulus
     for complex values), exact for integer and bool outputs; +-inf match
     exactly and NaN matches NaN (per part for complex values). The dtype must
     match (a float32 array also accepts a bfloat16 result, see below).
   - gradients: grad_inK of L = sum over J of sum(outJ * goutJ), through
     ct_autograd_grad; an input requires grad when its entry says so, or
     (no requires_grad key) when a grads entry names it; an input that does
     not reach the loss gets zeros, as PyTorch's expected files hold.
   - expect_error: passes when the call fails with a message that carries
     half of PyTorch's key words (4+ letters) or contains it whole.
   - complex: a case with a complex input or output runs like any other; when
     its op refuses the complex dtype (CT_ERR_DTYPE, CT_ERR_UNSUPPORTED), it is skipped with the
     op's message as the reason.
     complex_grad is PyTorch's convention (the only one CONFORMANCE.md
     defines); normalization is honoured by the linalg handlers of qr, eigh,
     svd, eig and eigvals, and skips the case for any other op.
   - named results (conf_result): a handler may expose tensors under a name,
     compared with <name>.npy when the case folder has one (F.batch_norm's
     running_mean / running_var after the call, F.embedding's weight_renormed
     with max_norm).

   Extensions the repo's own fixtures use (tests/reference/conformance_writer.py):
   - inputs[i].permute: the file holds a contiguous base, the input is
     base.permute(p); inputs[i].step: every step-th element along the last dim.
   - inputs[i].dtype "bfloat16": the file holds float32 values to convert;
     outputs stored as float32 then accept a bfloat16 result.
   - grad_rtol / grad_atol: gradient tolerances when they differ from rtol/atol.
   - outputs[j].strides / grads[k].strides: PyTorch's strides of that output or
     input gradient, compared exactly (memory formats: tests/fixtures/memory_format);
     outputs[j].gout_strides: the gout is passed with those (dense) strides.
   - optimizers (torch.optim.*) with several parameters, recognised by "steps"
     or "param_groups" in args: in<i> is parameter i's initial value, the named
     array grad_step<s>_p<i>.npy its .grad before step s+1 (absent: None),
     "param_groups": [{"params": [i, ...], overrides...}], "steps": S; out<i>
     stacks parameter i after each step [S, *shape]. Without those keys an
     optimizer case is CONFORMANCE.md's one-parameter layout (ops_optim.c).
   - losses: weight / pos_weight that no input gives may be named arrays
     weight.npy / pos_weight.npy (ops_nn_loss.c).
   - F.batch_norm with "affine" / "running" flags and all five inputs, clamp
     with "min_is_tensor" / "max_is_tensor", embedding_bag's "has_offsets" /
     "has_psw", linalg's "_outputs" / "compose", random ops' "manual_seed" /
     "generator_seed", nn.LSTM / nn.GRU's "seed" and "weight_grads", the
     attention and transformer modules' "eval", "no_grad", "self_attention" and
     "weight_grads": described in the handler files. */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#define CTENSOR_IMPLEMENTATION   /* this file holds the library implementation */
#include "conf.h"
#include "ctensor_linalg.h"      /* its implementation too (it needs this translation unit) */
#include "ctensor_composite.h"   /* the same */
#include "ctensor_special.h"     /* the same */

/* CT_TEST_REPLAY=1: every op call a case makes is replayed from its attributes
   (tests/ct_replay.h); a mismatch prints a FAIL line and fails the case. */
static const char *replay_dir = "";
#define CT_REPLAY_FAIL(...) (printf("FAIL %s [replay]: ", replay_dir), printf(__VA_ARGS__), printf("\n"))
#include "ct_replay.h"
/* CT_TEST_HUGE=1: the first calls of each op are tried again with huge sizes
   (tests/ct_huge.h); a failure prints a FAIL line and fails the case. */
#define CT_HUGE_FAIL(...) (printf("FAIL %s [huge]: ", replay_dir), printf(__VA_ARGS__), printf("\n"))
#include "ct_huge.h"

static const conf_op *const conf_families[] = {
    conf_ops_elementwise, conf_ops_creation, conf_ops_reduce, conf_ops_index, conf_ops_blas,
    conf_ops_nn, conf_ops_optim, conf_ops_linalg,
    conf_ops_nn_conv,
    conf_ops_nn_norm,
    conf_ops_nn_loss,
    conf_ops_complex,
    conf_ops_composite,
    conf_ops_nn_resample,
    conf_ops_nn_transformer,
    conf_ops_special,   /* last: torch.* names handled elsewhere stay there */
};

static int n_pass, n_fail, n_skip, verbose;

/* ---- op lookup ---- */
static const conf_op *find_exact(const char *name, int *complex_ok) {
    for (size_t f = 0; f < sizeof conf_families / sizeof conf_families[0]; f++)
        for (const conf_op *o = conf_families[f]; o->name; o++)
            if (!strcmp(o->name, name)) {
                *complex_ok = conf_families[f] == conf_ops_complex;
                return o;
            }
    return NULL;
}
static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }
/* the spellings of one op that PyTorch users write (see the header comment) */
static const conf_op *find_op(const char *name, int *complex_ok) {
    char buf[512];
    const conf_op *o;
    if (strlen(name) > 400) return NULL;
    if (starts(name, "torch.Tensor.")) { snprintf(buf, sizeof buf, "Tensor.%s", name + 13); return find_op(buf, complex_ok); }
    if (starts(name, "F.")) { snprintf(buf, sizeof buf, "torch.nn.functional.%s", name + 2); return find_op(buf, complex_ok); }
    if (starts(name, "nn.functional.")) { snprintf(buf, sizeof buf, "torch.%s", name); return find_op(buf, complex_ok); }
    if (starts(name, "torch.nn.") && !starts(name, "torch.nn.functional.") && !starts(name, "torch.nn.utils.")) {
        snprintf(buf, sizeof buf, "nn.%s", name + 9);
        return find_op(buf, complex_ok);
    }
    if ((o = find_exact(name, complex_ok))) return o;
    if (starts(name, "Tensor.")) {   /* a method that mirrors torch.<name>(self, ...) */
        snprintf(buf, sizeof buf, "torch.%s", name + 7);
        return find_exact(buf, complex_ok);
    }
    if (starts(name, "torch.") && !strchr(name + 6, '.')) {
        snprintf(buf, sizeof buf, "Tensor.%s", name + 6);
        return find_exact(buf, complex_ok);
    }
    return NULL;
}

/* ---- args ---- */
static json_value *arg(const conf_case *c, const char *key) { return json_get(c->args, key); }
int conf_has(const conf_case *c, const char *key) { return arg(c, key) != NULL; }
int conf_is_null(const conf_case *c, const char *key) { json_value *v = arg(c, key); return v && v->type == JSON_NULL; }
int conf_given(const conf_case *c, const char *key) { json_value *v = arg(c, key); return v && v->type != JSON_NULL; }
static double json_num(const json_value *v, double def) {
    if (!v) return def;
    if (v->type == JSON_NUMBER || v->type == JSON_BOOL) return v->number;
    if (v->type == JSON_STRING) {
        if (!strcmp(v->string, "inf")) return INFINITY;
        if (!strcmp(v->string, "-inf")) return -INFINITY;
        if (!strcmp(v->string, "nan")) return NAN;
    }
    return def;
}
double conf_double(const conf_case *c, const char *key, double def) { return json_num(arg(c, key), def); }
/* a JSON number as int64 (a value outside int64's range, or NaN, reads as 0: no undefined conversion) */
static int64_t to_int64(double x) { return fabs(x) < 9.2e18 ? (int64_t)x : 0; }
int64_t conf_json_int(const json_value *v, int64_t def) {
    return v && (v->type == JSON_NUMBER || v->type == JSON_BOOL) ? to_int64(v->number) : def;
}
int64_t conf_int(const conf_case *c, const char *key, int64_t def) { return conf_json_int(arg(c, key), def); }
int conf_bool(const conf_case *c, const char *key, int def) {
    json_value *v = arg(c, key);
    return v && (v->type == JSON_BOOL || v->type == JSON_NUMBER) ? v->number != 0 : def;
}
const char *conf_str(const conf_case *c, const char *key, const char *def) {
    json_value *v = arg(c, key);
    return v && v->type == JSON_STRING ? v->string : def;
}
static int json_ints(const json_value *v, int64_t *out, int max) {
    if (!v || v->type == JSON_NULL) return -1;
    if (v->type == JSON_NUMBER) { if (max > 0) out[0] = to_int64(v->number); return 1; }
    if (v->type != JSON_ARRAY) return -1;
    int n = 0;
    for (int i = 0; i < v->count && n < max; i++) out[n++] = to_int64(json_num(v->items[i], 0));
    return n;
}
int conf_ints(const conf_case *c, const char *key, int64_t *out, int max) { return json_ints(arg(c, key), out, max); }
ct_dtype conf_dtype_from_name(const char *s) {
    static const struct { const char *name; ct_dtype dt; } map[] = {
        {"torch.float32", CT_FLOAT32}, {"torch.float", CT_FLOAT32}, {"torch.float64", CT_FLOAT64}, {"torch.double", CT_FLOAT64},
        {"torch.float16", CT_FLOAT16}, {"torch.half", CT_FLOAT16}, {"torch.bfloat16", CT_BFLOAT16},
        {"torch.int64", CT_INT64}, {"torch.long", CT_INT64}, {"torch.int32", CT_INT32}, {"torch.int", CT_INT32},
        {"torch.int16", CT_INT16}, {"torch.int8", CT_INT8}, {"torch.uint8", CT_UINT8}, {"torch.bool", CT_BOOL},
        {"torch.qint8", CT_QINT8}, {"torch.quint8", CT_QUINT8}, {"torch.qint32", CT_QINT32},
        {"torch.complex64", CT_COMPLEX64}, {"torch.complex128", CT_COMPLEX128},
        {"float32", CT_FLOAT32}, {"float64", CT_FLOAT64}, {"float16", CT_FLOAT16}, {"bfloat16", CT_BFLOAT16},
        {"int64", CT_INT64}, {"int32", CT_INT32}, {"int16", CT_INT16}, {"int8", CT_INT8}, {"uint8", CT_UINT8}, {"bool", CT_BOOL}};
    if (!s) return CT_NUM_DTYPES;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i].name, s)) return map[i].dt;
    return CT_NUM_DTYPES;
}
ct_dtype conf_dtype(const conf_case *c, const char *key) { return conf_dtype_from_name(conf_str(c, key, NULL)); }
static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
/* a file name from a case: plain names only (no directories), so a case reads its own folder */
static int safe_name(const char *name) { return name && *name && !strchr(name, '/') && strcmp(name, "..") != 0; }
ct_tensor *conf_named(conf_case *c, const char *name) {
    char path[2048];
    if (!safe_name(name)) return NULL;
    snprintf(path, sizeof path, "%s/%s.npy", c->dir, name);
    if (!file_exists(path)) return NULL;
    return ct_load_npy(path);
}
int conf_skip(conf_case *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->skip_reason, sizeof c->skip_reason, fmt, ap);
    va_end(ap);
    return CONF_SKIP;
}
int conf_tensors(conf_case *c, int n, const char *const *names, int required, ct_tensor **t) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        t[i] = NULL;
        if (conf_is_null(c, names[i])) continue;
        if (k < c->nin) t[i] = c->in[k++];
        else if (i < required) {
            ct_set_error(CT_ERR_ARG, "%s: the case gives no input for the tensor argument '%s' (in%d)", c->op, names[i], k);
            return -1;
        }
    }
    if (k < c->nin) {
        ct_set_error(CT_ERR_ARG, "%s: the case gives %d tensor inputs, the op takes %d here (optional tensors left as None are \"name\": null in args)",
                     c->op, c->nin, k);
        return -1;
    }
    return 0;
}
int conf_result(conf_case *c, const char *name, ct_tensor *t) {
    if (!t || c->nresults >= CONF_MAX_RESULTS) return -1;
    c->result_name[c->nresults] = name;
    c->result[c->nresults++] = t;
    return 0;
}

/* ---- loading ---- */
static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    if (n < 0 || n > (1 << 24)) { fclose(f); return NULL; }
    char *b = (char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    if (b) b[n] = 0;
    return b;
}
static ct_tensor *load_file(const char *dir, const char *file, char *why, size_t cap) {
    char path[2048];
    if (!safe_name(file)) { snprintf(why, cap, "bad file name \"%s\"", file ? file : ""); return NULL; }
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ct_tensor *t = ct_load_npy(path);
    if (!t) snprintf(why, cap, "%s: %s", file, ct_last_error());
    return t;
}
/* input entry -> tensor: file, optional stored dtype conversion, optional permute (non-contiguous views) */
static ct_tensor *load_entry(const char *dir, const json_value *e, char *why, size_t cap) {
    json_value *file = json_get(e, "file");
    if (!file || file->type != JSON_STRING) { snprintf(why, cap, "entry without \"file\""); return NULL; }
    ct_tensor *t = load_file(dir, file->string, why, cap);
    if (!t) return NULL;
    json_value *dt = json_get(e, "dtype");
    if (dt && dt->type == JSON_STRING && !strcmp(dt->string, "bfloat16")) t = ct_to(t, CT_BFLOAT16);
    json_value *perm = json_get(e, "permute");
    if (t && perm && perm->type == JSON_ARRAY) {
        int64_t p[CT_MAX_DIMS];
        int n = json_ints(perm, p, CT_MAX_DIMS);
        t = ct_permute_n(t, n, p);
    }
    json_value *sl = json_get(e, "step");   /* every step-th element along the last dim (the file holds the base) */
    if (t && sl && sl->type == JSON_NUMBER && t->ndim > 0) t = ct_slice(t, -1, 0, INT64_MAX, to_int64(sl->number));
    if (!t) snprintf(why, cap, "%s", ct_last_error());
    return t;
}
/* entries of a case: the listed ones, or (no list) entries made for the files
   <prefix>0.npy, <prefix>1.npy, ... that exist; returns a list to free with json_free */
static json_value *entries_or_files(const char *dir, const char *prefix, int max) {
    json_value *list = (json_value *)calloc(1, sizeof(json_value));
    if (!list) return NULL;
    list->type = JSON_ARRAY;
    list->items = (json_value **)calloc((size_t)max, sizeof(json_value *));
    if (!list->items) { free(list); return NULL; }
    for (int i = 0; i < max; i++) {
        char path[2048], json[256], err[64];
        snprintf(path, sizeof path, "%s/%s%d.npy", dir, prefix, i);
        if (!file_exists(path)) break;
        int n = snprintf(json, sizeof json, "{\"file\": \"%s%d.npy\"", prefix, i);
        if (!strcmp(prefix, "out")) {   /* outK's upstream gradient, when there is one */
            snprintf(path, sizeof path, "%s/gout%d.npy", dir, i);
            if (file_exists(path)) n += snprintf(json + n, sizeof json - (size_t)n, ", \"gout\": \"gout%d.npy\"", i);
        }
        if (!strcmp(prefix, "grad_in")) n += snprintf(json + n, sizeof json - (size_t)n, ", \"wrt\": \"in%d\"", i);
        snprintf(json + n, sizeof json - (size_t)n, "}");
        json_value *e = json_parse(json, err, sizeof err);
        if (!e) break;
        list->items[list->count++] = e;
    }
    return list;
}
/* grads without a list: grad_in<K>.npy for every input K that has one */
static json_value *grad_files(const char *dir, int nin) {
    json_value *list = (json_value *)calloc(1, sizeof(json_value));
    if (!list) return NULL;
    list->type = JSON_ARRAY;
    list->items = (json_value **)calloc((size_t)(nin > 0 ? nin : 1), sizeof(json_value *));
    if (!list->items) { free(list); return NULL; }
    for (int i = 0; i < nin; i++) {
        char path[2048], json[128], err[64];
        snprintf(path, sizeof path, "%s/grad_in%d.npy", dir, i);
        if (!file_exists(path)) continue;
        snprintf(json, sizeof json, "{\"file\": \"grad_in%d.npy\", \"wrt\": \"in%d\"}", i, i);
        json_value *e = json_parse(json, err, sizeof err);
        if (e) list->items[list->count++] = e;
    }
    return list;
}
static int input_index(const char *s) {
    if (!s || strncmp(s, "in", 2) || !isdigit((unsigned char)s[2])) return -1;
    char *end;
    long k = strtol(s + 2, &end, 10);
    return *end || k >= CONF_MAX_IN ? -1 : (int)k;
}

/* ---- comparison ---- */
static void shape_str(const ct_tensor *t, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && n < cap; d++) n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld", (long long)t->shape[d]);
    if (n < cap) snprintf(buf + n, cap - n, "]");
}
static int same_special(double a, double b) { return isnan(b) ? isnan(a) : a == b; }
/* one element of a complex tensor, by flat C-order index (strides in elements) */
static void complex_at(const ct_tensor *t, int64_t i, double *re, double *im) {
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        int64_t n = t->shape[d];
        off += (i % n) * t->strides[d];
        i /= n;
    }
    if (t->dtype == CT_COMPLEX64) {
        const float *p = (const float *)ct_data_ptr(t) + 2 * off;
        *re = p[0];
        *im = p[1];
    } else {
        const double *p = (const double *)ct_data_ptr(t) + 2 * off;
        *re = p[0];
        *im = p[1];
    }
}
static int compare_complex(const ct_tensor *g, const ct_tensor *e, double rtol, double atol, char *why, size_t cap) {
    int64_t n = ct_numel(e);
    if (ct_is_conj(g)) g = ct_resolve_conj(g);   /* a lazy conjugate (ct_conj): its values, not its memory */
    for (int64_t i = 0; i < n; i++) {
        double ar, ai, br, bi;
        complex_at(g, i, &ar, &ai);
        complex_at(e, i, &br, &bi);
        int ok;
        if (!isfinite(br) || !isfinite(bi) || !isfinite(ar) || !isfinite(ai))
            ok = isfinite(br) && isfinite(ar) ? fabs(ar - br) <= atol + rtol * fabs(br) && same_special(ai, bi)
               : isfinite(bi) && isfinite(ai) ? same_special(ar, br) && fabs(ai - bi) <= atol + rtol * fabs(bi)
               : same_special(ar, br) && same_special(ai, bi);
        else
            ok = hypot(ar - br, ai - bi) <= atol + rtol * hypot(br, bi);
        if (!ok) {
            snprintf(why, cap, "element %lld: got %.9g%+.9gj, expected %.9g%+.9gj (rtol %g, atol %g)", (long long)i, ar, ai, br, bi,
                     rtol, atol);
            return 0;
        }
    }
    return 1;
}
static int compare(const ct_tensor *got, const ct_tensor *exp, double rtol, double atol, char *why, size_t cap) {
    if (!got) { snprintf(why, cap, "no output (%s)", *ct_last_error() ? ct_last_error() : "NULL"); return 0; }
    if (!ct_same_shape(got, exp)) {
        char a[256], b[256];
        shape_str(got, a, sizeof a);
        shape_str(exp, b, sizeof b);
        snprintf(why, cap, "shape %s != expected %s", a, b);
        return 0;
    }
    ct_dtype ge = got->dtype, ee = exp->dtype;
    if (ge != ee && !(ee == CT_FLOAT32 && ge == CT_BFLOAT16)) {
        snprintf(why, cap, "dtype %s != expected %s", ct_dtype_name(ge), ct_dtype_name(ee));
        return 0;
    }
    if (ct_dtype_is_complex(ee)) return compare_complex(got, exp, rtol, atol, why, cap);
    if (!ct_dtype_is_floating(ee)) {   /* integers and bools: exact, compared as int64 (no rounding through double) */
        ct_tensor *g = ct_contiguous(ct_to(got, CT_INT64)), *e = ct_contiguous(ct_to(exp, CT_INT64));
        if (!g || !e) { snprintf(why, cap, "%s", ct_last_error()); return 0; }
        const int64_t *gp = (const int64_t *)ct_data_ptr(g), *ep = (const int64_t *)ct_data_ptr(e);
        for (int64_t i = 0, n = ct_numel(g); i < n; i++)
            if (gp[i] != ep[i]) {
                snprintf(why, cap, "element %lld: got %lld, expected %lld (exact)", (long long)i, (long long)gp[i], (long long)ep[i]);
                return 0;
            }
        return 1;
    }
    ct_tensor *g = ct_contiguous(ct_to(got, CT_FLOAT64)), *e = ct_contiguous(ct_to(exp, CT_FLOAT64));
    if (!g || !e) { snprintf(why, cap, "%s", ct_last_error()); return 0; }
    const double *gp = (const double *)ct_data_ptr(g), *ep = (const double *)ct_data_ptr(e);
    int64_t n = ct_numel(g);
    for (int64_t i = 0; i < n; i++) {
        double a = gp[i], b = ep[i];
        int ok = isfinite(b) ? fabs(a - b) <= atol + rtol * fabs(b) : same_special(a, b);
        if (!ok) {
            snprintf(why, cap, "element %lld: got %.9g, expected %.9g (rtol %g, atol %g)", (long long)i, a, b, rtol, atol);
            return 0;
        }
    }
    return 1;
}
/* does our message carry the meaning of PyTorch's? key words (4+ letters) */
static int similar_message(const char *ours, const char *theirs) {
    if (!theirs || !*theirs) return 1;
    if (strstr(ours, theirs)) return 1;
    int words = 0, found = 0;
    const char *p = theirs;
    char w[64];
    while (*p) {
        while (*p && !isalnum((unsigned char)*p)) p++;
        int n = 0;
        while (*p && (isalnum((unsigned char)*p) || *p == '_') && n < 63) w[n++] = (char)tolower((unsigned char)*p++);
        w[n] = 0;
        while (*p && (isalnum((unsigned char)*p) || *p == '_')) p++;
        if (n < 4) continue;
        words++;
        /* case-insensitive search */
        const char *q = ours;
        int hit = 0;
        for (; *q && !hit; q++) {
            int k = 0;
            while (k < n && q[k] && tolower((unsigned char)q[k]) == w[k]) k++;
            hit = k == n;
        }
        found += hit;
    }
    return words == 0 || found * 2 >= words;
}

static void report(const char *kind, const char *dir, const char *op, const char *msg) {
    printf("%s %s [%s]: %s\n", kind, dir, op ? op : "?", msg);
}

/* 1 when t's strides are the entry's "strides" (or it has none); else 0 with why */
static int same_strides(const ct_tensor *t, const json_value *entry, char *why, size_t cap) {
    int64_t st[CT_MAX_DIMS];
    const json_value *v = json_get(entry, "strides");
    if (!v) return 1;
    int n = json_ints(v, st, CT_MAX_DIMS), ok = n == ct_ndim(t);
    for (int d = 0; ok && d < n; d++) ok = ct_stride(t, d) == st[d];
    if (ok) return 1;
    int k = snprintf(why, cap, "strides (");
    for (int d = 0; d < ct_ndim(t) && k < (int)cap; d++) k += snprintf(why + k, cap - k, "%s%lld", d ? ", " : "", (long long)ct_stride(t, d));
    if (k < (int)cap) k += snprintf(why + k, cap - k, "), PyTorch's (");
    for (int d = 0; d < n && k < (int)cap; d++) k += snprintf(why + k, cap - k, "%s%lld", d ? ", " : "", (long long)st[d]);
    if (k < (int)cap) snprintf(why + k, cap - k, ")");
    return 0;
}

/* ---- strided inputs ---- */
/* builds the view that strided_inputs describes for one input; NULL with why set
   (*skip = 1 when the description uses a view ctensor's runner does not know) */
static ct_tensor *strided_view(const char *dir, const json_value *d, int *skip, char *why, size_t cap) {
    json_value *bf = json_get(d, "base");
    if (!bf || bf->type != JSON_STRING) { snprintf(why, cap, "no \"base\" file"); return NULL; }
    ct_tensor *t = load_file(dir, bf->string, why, cap);
    json_value *shape = NULL;
    for (int k = 0; t && k < d->count; k++) {
        const char *key = d->keys[k];
        json_value *v = d->items[k];
        int64_t a[CT_MAX_DIMS], b[CT_MAX_DIMS];
        int n = json_ints(v, a, CT_MAX_DIMS);
        if (!strcmp(key, "base") || !strcmp(key, "dtype") || !strcmp(key, "size") || !strcmp(key, "storage_offset") || !strcmp(key, "note"))
            continue;
        if (!strcmp(key, "shape")) { shape = v; continue; }
        if (!strcmp(key, "permute")) t = ct_permute_n(t, n < 0 ? 0 : n, a);
        else if (!strcmp(key, "transpose") && n == 2) t = ct_transpose(t, (int)a[0], (int)a[1]);
        else if (!strcmp(key, "expand")) t = ct_expand_n(t, n < 0 ? 0 : n, a);
        else if (!strcmp(key, "diagonal") && n == 3) t = ct_diagonal(t, a[0], (int)a[1], (int)a[2]);
        else if (!strcmp(key, "narrow") && n == 3) t = ct_narrow(t, (int)a[0], a[1], a[2]);
        else if (!strcmp(key, "select") && n == 2) t = ct_select(t, (int)a[0], a[1]);
        else if (!strcmp(key, "unsqueeze") && n == 1) t = ct_unsqueeze(t, (int)a[0]);
        else if (!strcmp(key, "view")) t = ct_view_n(t, n < 0 ? 0 : n, a);
        else if (!strcmp(key, "unfold") && n == 3) t = ct_unfold(t, (int)a[0], a[1], a[2]);   /* [dim, size, step] */
        else if (!strcmp(key, "slice") && v->type == JSON_ARRAY) {
            /* [dim, start, end, step] or a list of them; end null = to the end */
            int many = v->count > 0 && v->items[0]->type == JSON_ARRAY;
            for (int s = 0; t && s < (many ? v->count : 1); s++) {
                json_value *one = many ? v->items[s] : v;
                json_value *ev = json_at(one, 2);
                if (json_ints(one, a, 4) < 2) { snprintf(why, cap, "slice needs [dim, start, end, step]"); return NULL; }
                int64_t end = !ev || ev->type == JSON_NULL ? INT64_MAX : to_int64(json_num(ev, 0));
                json_value *sv = json_at(one, 3);
                t = ct_slice(t, (int)a[0], a[1], end, sv ? to_int64(json_num(sv, 1)) : 1);
            }
        } else if (!strcmp(key, "stride") || !strcmp(key, "as_strided")) {
            const json_value *o = !strcmp(key, "as_strided") ? v : d;
            json_value *sz = json_get(o, "size") ? json_get(o, "size") : json_get(o, "shape");
            int ns = json_ints(sz, a, CT_MAX_DIMS), nt = json_ints(json_get(o, "stride"), b, CT_MAX_DIMS);
            if (ns < 0 || ns != nt) { snprintf(why, cap, "as_strided view needs \"size\" and \"stride\" of one length"); return NULL; }
            /* offsets and strides count from the start of the base's storage, as PyTorch's as_strided */
            t = ct_as_strided(t, ns, a, b, to_int64(json_num(json_get(o, "storage_offset"), 0)));
        } else {
            *skip = 1;
            snprintf(why, cap, "unsupported view \"%s\"", key);
            return NULL;
        }
    }
    if (!t) { snprintf(why, cap, "%s", ct_last_error()); return NULL; }
    if (shape) {
        int64_t s[CT_MAX_DIMS];
        int ns = json_ints(shape, s, CT_MAX_DIMS);
        int ok = ns == t->ndim;
        for (int d2 = 0; ok && d2 < ns; d2++) ok = s[d2] == t->shape[d2];
        if (!ok) { snprintf(why, cap, "the view's shape differs from its \"shape\""); return NULL; }
    }
    return t;
}
/* replaces inputs with the views strided_inputs asks for; 0, -1 (fail) or CONF_SKIP */
static int apply_strided(conf_case *c, const json_value *si, char *why, size_t cap) {
    for (int k = 0; k < si->count; k++) {
        int idx = input_index(si->keys[k]), skip = 0;
        char w[512];
        if (idx < 0 || idx >= c->nin) { snprintf(why, cap, "strided_inputs: \"%s\" is not an input", si->keys[k]); return -1; }
        ct_tensor *v = strided_view(c->dir, si->items[k], &skip, w, sizeof w);
        if (!v) {
            snprintf(why, cap, "strided_inputs %s: %s", si->keys[k], w);
            return skip ? CONF_SKIP : -1;
        }
        /* the view must hold the values the case also stores in inK.npy */
        if (!compare(v, c->in[idx], 0.0, 0.0, w, sizeof w)) {
            snprintf(why, cap, "strided_inputs %s: the view differs from the input's file: %s", si->keys[k], w);
            return -1;
        }
        c->in[idx] = v;
    }
    return 0;
}

/* ---- one case ---- */
typedef struct run_state {
    conf_case c;
    char why[1024];
    json_value *own_ins, *own_outs, *own_grads;   /* entry lists made from files (freed at the end) */
} run_state;

static int fail(run_state *r, const char *msg) {
    n_fail++;
    report("FAIL", r->c.dir, r->c.op, msg);
    return 0;
}
static int skip(run_state *r, const char *msg) {
    n_skip++;
    report("SKIP", r->c.dir, r->c.op, msg);
    return 0;
}
static int is_complex_entry(const ct_tensor *t) { return t && ct_dtype_is_complex(t->dtype); }
/* linalg ops whose handlers apply CONFORMANCE.md's normalisation of factors */
static int normalizing_op(const char *op) {
    static const char *const ops[] = {"torch.linalg.qr", "torch.linalg.eigh", "torch.linalg.svd", "torch.linalg.eig", "torch.linalg.eigvals"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(op, ops[i])) return 1;
    return 0;
}

static int run_loaded(run_state *r, const conf_op *op, int complex_ok) {
    conf_case *c = &r->c;
    json_value *j = c->json;
    char *why = r->why;
    size_t cap = sizeof r->why;
    double rtol = json_num(json_get(j, "rtol"), 1e-5), atol = json_num(json_get(j, "atol"), 1e-6);

    /* inputs */
    json_value *ins = json_get(j, "inputs");
    if (ins && ins->type != JSON_ARRAY) return fail(r, "\"inputs\" is not a list");
    if (!ins) ins = r->own_ins = entries_or_files(c->dir, "in", CONF_MAX_IN + 1);
    if (!ins) return fail(r, "out of memory");
    if (ins->count > CONF_MAX_IN) {
        snprintf(why, cap, "%d tensor inputs: the runner takes at most %d", ins->count, CONF_MAX_IN);
        return skip(r, why);
    }
    for (int i = 0; i < ins->count; i++) {
        c->in[i] = load_entry(c->dir, ins->items[i], why, cap);
        if (!c->in[i]) return fail(r, why);
        c->nin = i + 1;
    }
    json_value *si = json_get(j, "strided_inputs");
    if (si && si->type == JSON_OBJECT) {
        int rc = apply_strided(c, si, why, cap);
        if (rc == CONF_SKIP) return skip(r, why);
        if (rc) return fail(r, why);
    }

    /* expected outputs and gradients (loaded first: their dtypes decide complex skips) */
    json_value *ee = json_get(j, "expect_error");
    json_value *outs = json_get(j, "outputs"), *grads = json_get(j, "grads");
    if (!outs && !ee) outs = r->own_outs = entries_or_files(c->dir, "out", CONF_MAX_OUT + 1);
    int nexp = outs ? outs->count : 0;
    if (nexp > CONF_MAX_OUT) {
        snprintf(why, cap, "%d outputs: the runner compares at most %d", nexp, CONF_MAX_OUT);
        return skip(r, why);
    }
    ct_tensor *expd[CONF_MAX_OUT] = {0};
    for (int k = 0; k < nexp; k++)
        if (!(expd[k] = load_entry(c->dir, outs->items[k], why, cap))) return fail(r, why);
    if (!grads && !ee) grads = r->own_grads = grad_files(c->dir, c->nin);

    /* a complex case of an op outside conf_ops_complex runs too; when the op then
       refuses the complex dtype, the case is skipped with the op's message */
    int cx_case = 0;
    if (!complex_ok) {
        for (int i = 0; i < c->nin; i++) cx_case |= is_complex_entry(c->in[i]);
        for (int k = 0; k < nexp; k++) cx_case |= is_complex_entry(expd[k]);
        cx_case |= json_get(j, "complex_grad") != NULL;
    }
    if (json_get(j, "normalization") && !normalizing_op(c->op)) {
        snprintf(why, cap, "normalization: the runner knows no normal form of %s's outputs", c->op);
        return skip(r, why);
    }

    /* which inputs require grad: as their entries say, else those a grads entry names */
    int wants[CONF_MAX_IN] = {0};
    for (int k = 0; grads && k < grads->count; k++) {
        json_value *w = json_get(grads->items[k], "wrt");
        int idx = input_index(w && w->type == JSON_STRING ? w->string : NULL);
        if (idx < 0 || idx >= c->nin) return fail(r, "bad \"wrt\" in grads");
        wants[idx] = 1;
    }
    for (int i = 0; i < c->nin; i++) {
        json_value *rg = json_get(ins->items[i], "requires_grad");
        int req = rg && rg->type != JSON_NULL ? rg->number != 0 : wants[i];
        if (req && (ct_dtype_is_floating(c->in[i]->dtype) || ct_dtype_is_complex(c->in[i]->dtype))) {
            /* a view that is not a leaf is detached (same strides, same storage), then requires grad */
            c->in[i] = ct_requires_grad(ct_is_leaf(c->in[i]) ? c->in[i] : ct_detach(c->in[i]));
            if (!c->in[i]) return fail(r, ct_last_error());
        }
    }

    /* the call */
    ct_tensor *out[CONF_MAX_OUT] = {0};
    ct_clear_error();
    int nout = op->fn(c, out);
    if (nout == CONF_SKIP) return skip(r, c->skip_reason[0] ? c->skip_reason : "the handler skipped the case");
    if (ee) {
        json_value *m = json_get(ee, "message");
        const char *theirs = m && m->type == JSON_STRING ? m->string : NULL;
        if (nout >= 0) return fail(r, "expected an error, the op succeeded");
        if (!similar_message(ct_last_error(), theirs)) {
            snprintf(why, cap, "error message differs:\n    ours:    %s\n    PyTorch: %s", ct_last_error(), theirs ? theirs : "");
            return fail(r, why);
        }
        return 1;
    }
    if (nout < 0 && cx_case && (ct_last_error_code() == CT_ERR_DTYPE || ct_last_error_code() == CT_ERR_UNSUPPORTED)) {
        snprintf(why, cap, "complex: %s", ct_last_error());
        return skip(r, why);
    }
    if (nout < 0) { snprintf(why, cap, "op failed: %s", ct_last_error()); return fail(r, why); }
    if (nout < nexp) { snprintf(why, cap, "op returned %d outputs, expected %d", nout, nexp); return fail(r, why); }

    /* outputs */
    ct_tensor *gouts[CONF_MAX_OUT] = {0}, *roots[CONF_MAX_OUT];
    int nroots = 0, dead = -1;
    for (int k = 0; k < nexp; k++) {
        char w[896];
        ct_tensor *got = op->normalize ? op->normalize(c, k, out[k]) : out[k];
        if (!compare(got, expd[k], rtol, atol, w, sizeof w)) {
            snprintf(why, cap, "output %d: %s", k, w);
            return fail(r, why);
        }
        if (!same_strides(out[k], outs->items[k], w, sizeof w)) {
            snprintf(why, cap, "output %d: %s", k, w);
            return fail(r, why);
        }
        json_value *gf = json_get(outs->items[k], "gout");
        if (gf && gf->type == JSON_STRING) {
            ct_tensor *g = load_file(c->dir, gf->string, why, cap);
            if (!g) return fail(r, why);
            if (!ct_get_requires_grad(out[k])) { dead = k; continue; }   /* no graph: contributes nothing */
            if (out[k]->dtype != g->dtype) g = ct_to(g, out[k]->dtype);
            int64_t gst[CT_MAX_DIMS];
            json_value *gs = json_get(outs->items[k], "gout_strides");
            if (gs && json_ints(gs, gst, CT_MAX_DIMS) == ct_ndim(g)) {   /* a dense layout of g's shape */
                ct_tensor *t = ct_as_strided(ct_zeros(g->dtype, ct_numel(g)), ct_ndim(g), g->shape, gst, 0);
                if (!t || !ct_copy_(t, g)) return fail(r, ct_last_error());
                g = ct_detach(t);
            }
            gouts[nroots] = g;
            roots[nroots++] = out[k];
        }
    }
    for (int k = 0; k < c->nresults; k++) {
        char w[896];
        ct_tensor *e = conf_named(c, c->result_name[k]);
        if (!e) continue;
        if (!compare(c->result[k], e, rtol, atol, w, sizeof w)) {
            snprintf(why, cap, "%s (after the call): %s", c->result_name[k], w);
            return fail(r, why);
        }
    }

    /* gradients */
    if (grads && grads->count > 0) {
        ct_tensor *wrt[CONF_MAX_IN], *res[CONF_MAX_IN], *expg[CONF_MAX_IN];
        const json_value *gentry[CONF_MAX_IN];
        int nw = 0;
        for (int k = 0; k < grads->count && nw < CONF_MAX_IN; k++) {
            int idx = input_index(json_get(grads->items[k], "wrt")->string);
            if (!ct_get_requires_grad(c->in[idx])) {
                snprintf(why, cap, "grads entry for in%d, an input that takes no gradient (integer, or requires_grad false)", idx);
                return fail(r, why);
            }
            expg[nw] = load_entry(c->dir, grads->items[k], why, cap);
            if (!expg[nw]) return fail(r, why);
            gentry[nw] = grads->items[k];
            wrt[nw++] = c->in[idx];
        }
        if (nroots > 0) {
            ct_grad_options go;
            memset(&go, 0, sizeof go);
            go.allow_unused = 1;
            go.materialize_grads = 1;
            if (ct_autograd_grad(nroots, roots, gouts, nw, wrt, res, &go) != CT_OK) {
                snprintf(why, cap, "backward failed: %s", ct_last_error());
                return fail(r, why);
            }
        } else {   /* nothing reaches the loss: every gradient is zero */
            for (int k = 0; k < nw; k++) res[k] = ct_zeros_like(wrt[k]);
        }
        double grtol = json_num(json_get(j, "grad_rtol"), rtol), gatol = json_num(json_get(j, "grad_atol"), atol);
        for (int k = 0; k < nw; k++) {
            char w[896];
            if (!compare(res[k], expg[k], grtol, gatol, w, sizeof w)) {
                if (dead >= 0)
                    snprintf(why, cap, "gradient %d: %s (output %d has a gout but ctensor recorded no graph for it)", k, w, dead);
                else
                    snprintf(why, cap, "gradient %d: %s", k, w);
                return fail(r, why);
            }
            if (!same_strides(res[k], gentry[k], w, sizeof w)) {
                snprintf(why, cap, "gradient %d: %s", k, w);
                return fail(r, why);
            }
        }
    }
    return 1;
}

static void run_case(const char *dir) {
    char path[2048], err[256];
    snprintf(path, sizeof path, "%s/case.json", dir);
    char *text = slurp(path);
    if (!text) { n_fail++; report("FAIL", dir, NULL, "cannot read case.json"); return; }
    json_value *j = json_parse(text, err, sizeof err);
    free(text);
    if (!j) { n_fail++; report("FAIL", dir, NULL, err); return; }
    run_state *r = (run_state *)calloc(1, sizeof *r);
    if (!r) { json_free(j); n_fail++; report("FAIL", dir, NULL, "out of memory"); return; }
    conf_case *c = &r->c;
    c->dir = dir;
    c->json = j;
    json_value *opv = json_get(j, "op");
    c->op = opv && opv->type == JSON_STRING ? opv->string : NULL;
    c->args = json_get(j, "args");
    if (c->args && c->args->type != JSON_OBJECT) c->args = NULL;
    int s = ct_scope_begin();
    int complex_ok = 0, replay_before = ct_replay_failures + ct_huge_failures;
    replay_dir = dir;
    const conf_op *op = c->op ? find_op(c->op, &complex_ok) : NULL;
    if (!c->op) {
        fail(r, "case.json has no \"op\"");
    } else if (starts(c->op, "composite:")) {
        skip(r, "composite op (not a single PyTorch call): the runner has no handler for it");
    } else if (!op) {
        skip(r, "no handler for this op");
    } else if (run_loaded(r, op, complex_ok)) {
        if (ct_replay_failures + ct_huge_failures != replay_before) n_fail++;
        else {
            n_pass++;
            if (verbose) report("ok  ", dir, c->op, "");
        }
    }
    ct_scope_end(s);
    ct_clear_error();
    json_free(r->own_ins);
    json_free(r->own_outs);
    json_free(r->own_grads);
    free(r);
    json_free(j);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }
static void walk(const char *dir, int depth) {
    char path[2048];
    struct stat st;
    snprintf(path, sizeof path, "%s/case.json", dir);
    if (stat(path, &st) == 0) { run_case(dir); return; }
    if (depth > 16) return;
    DIR *d = opendir(dir);
    if (!d) return;
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            int nc = cap ? 2 * cap : 64;
            char **nn = (char **)realloc(names, sizeof(char *) * (size_t)nc);
            if (!nn) break;
            names = nn;
            cap = nc;
        }
        if (!(names[n] = strdup(e->d_name))) break;
        n++;
    }
    closedir(d);
    if (n > 1) qsort(names, (size_t)n, sizeof(char *), cmp_str);
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) walk(path, depth + 1);
        free(names[i]);
    }
    free(names);
}

static void quiet(ct_status code, const char *msg, void *user) { (void)code; (void)msg; (void)user; }

int main(int argc, char **argv) {
    int ndirs = 0;
    setvbuf(stdout, NULL, _IOLBF, 0);   /* a case that crashes the runner still has the lines before it printed */
    ct_set_logger(quiet, NULL);
    ct_replay_install();
    ct_huge_install();
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (size_t f = 0; f < sizeof conf_families / sizeof conf_families[0]; f++)
            for (const conf_op *o = conf_families[f]; o->name; o++) printf("%s\n", o->name);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) { verbose = 1; continue; }
        struct stat st;
        if (stat(argv[i], &st) != 0) { printf("FAIL %s: no such directory\n", argv[i]); n_fail++; continue; }
        walk(argv[i], 0);
        ndirs++;
    }
    if (!ndirs && argc < 2) { fprintf(stderr, "usage: conformance [-v] DIR... | conformance --list\n"); return 2; }
    if (ct_replay_calls) fprintf(stderr, "(%d op calls replayed from their attributes)\n", ct_replay_calls);
    ct_huge_summary();
    printf("%d passed, %d failed, %d skipped\n", n_pass, n_fail, n_skip);
    return n_fail ? 1 : 0;
}
