/* test_named.c - named tensors (ctensor_named.h) against PyTorch 1.13.
   tests/fixtures/named/cases.txt (written by gen_named.py with PyTorch) holds, per
   case, the names PyTorch gives the result or the first line of its error; each
   case below runs the same call here and compares: names exactly; errors by the
   message's first 40 characters (an "op: " prefix dropped on both sides), or for
   ops refused with names, the "is not yet supported with named tensors" phrase.
   Results must also equal the unnamed computation bit for bit (names never change
   values). Then: the two pitfalls of PyTorch's named-tensor talk (accidental
   broadcasting, accidental alignment) caught; one normalize function for NCHW and
   NHWC by align_as, checked against exact per-layout math; gradients (unnamed, as
   PyTorch's, and gradcheck through align_to / refine_names); printing; bad input;
   and no cost to unnamed tensors (names stay NULL, no leaks). */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include "ctensor_named.h"

/* "N,C,-" -> names (- is unnamed) */
static ct_tensor *nm(ct_tensor *t, const char *spec) {
    static char buf[8][16];
    const char *names[8];
    int n = 0;
    const char *p = spec;
    while (*p && n < 8) {
        int k = 0;
        while (*p && *p != ',' && k < 15) buf[n][k++] = *p++;
        buf[n][k] = 0;
        names[n] = strcmp(buf[n], "-") ? buf[n] : NULL;
        n++;
        if (*p == ',') p++;
    }
    return ct_refine_names(t, n, names);
}
static ct_tensor *R2(int64_t a, int64_t b, const char *s) { return nm(ct_randn(CT_FLOAT32, a, b), s); }
static ct_tensor *R1(int64_t a, const char *s) { return nm(ct_randn(CT_FLOAT32, a), s); }
static ct_tensor *R3(int64_t a, int64_t b, int64_t c, const char *s) { return nm(ct_randn(CT_FLOAT32, a, b, c), s); }

/* ---- the fixture cases ---- */
typedef struct { char id[48]; char kind[8]; char text[400]; } fx_case;
static fx_case fx[160];
static int nfx;
static void load_cases(void) {
    FILE *f = fopen("tests/fixtures/named/cases.txt", "r");
    CHECK(f != NULL);
    if (!f) return;
    char line[600];
    while (nfx < 160 && fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        char *rest = tab + 1, *sp = strchr(rest, ' ');
        if (!sp) continue;
        *sp = 0;
        size_t l = strlen(sp + 1);
        while (l && (sp[1 + l - 1] == '\n' || sp[1 + l - 1] == '\r')) sp[1 + --l] = 0;
        snprintf(fx[nfx].id, sizeof fx[nfx].id, "%.47s", line);
        snprintf(fx[nfx].kind, sizeof fx[nfx].kind, "%.7s", rest);
        snprintf(fx[nfx].text, sizeof fx[nfx].text, "%.399s", sp + 1);
        nfx++;
    }
    fclose(f);
}
static const fx_case *find_case(const char *id) {
    for (int i = 0; i < nfx; i++)
        if (!strcmp(fx[i].id, id)) return &fx[i];
    return NULL;
}
/* "op: message" -> "message" when the prefix is one word */
static const char *strip_prefix(const char *m) {
    const char *c = strstr(m, ": ");
    if (!c) return m;
    for (const char *p = m; p < c; p++)
        if (*p == ' ') return m;
    return c + 2;
}
static int ncases_run;
static void expect(const char *id, ct_tensor *r) {
    const fx_case *c = find_case(id);
    ncases_run++;
    if (!c) { CT_T_REPORT(0, "case %s missing from cases.txt", id); ct_clear_error(); return; }
    if (!strcmp(c->kind, "names")) {
        char got[200] = "";
        if (r) ct_names_repr(r, got, sizeof got);
        CT_T_REPORT(r && !strcmp(got, c->text), "%s: names %s, PyTorch %s%s%s", id, r ? got : "(failed)", c->text,
                    r ? "" : ": ", r ? "" : ct_last_error());
    } else {
        const char *ours = ct_last_error(), *want = c->text;
        int ok = r == NULL && ct_last_error_code() != CT_OK;
        if (ok) {
            const char *phrase = "is not yet supported with named tensors";
            if (strstr(want, phrase)) ok = strstr(ours, phrase) != NULL;
            else {
                const char *a = strip_prefix(ours), *b = strip_prefix(want);
                /* up to 40 characters, and not past the first name list (PyTorch's
                   align_to prints the wanted names where the tensor's belong) */
                const char *br = strchr(b, '[');
                size_t n = strlen(b) < 40 ? strlen(b) : 40;
                if (br && (size_t)(br - b) < n) n = (size_t)(br - b);
                ok = strncmp(a, b, n) == 0;
            }
        }
        CT_T_REPORT(ok, "%s: expected the error \"%s\", got %s \"%s\"", id, want, r ? "a result" : "the error",
                    r ? "" : ours);
    }
    ct_clear_error();
}
/* the named result equals the same op on unnamed inputs */
static void same_values(const char *id, const ct_tensor *named, const ct_tensor *plain) {
    CT_T_REPORT(named && plain && ct_equal(named, plain) == 1, "%s: values differ from the unnamed op", id);
}

TEST(test_cases) {
    load_cases();
    CHECK(nfx >= 90);
    ct_manual_seed(0);
    ct_tensor *x = R2(2, 3, "N,C"), *x4 = nm(ct_randn(CT_FLOAT32, 2, 3, 4, 5), "N,C,H,W");
    ct_tensor *xu = ct_rename(x, 0, NULL), *x4u = ct_rename(x4, 0, NULL);
    CHECK(!ct_has_names(xu) && ct_has_names(x));
    ct_tensor *r;
    expect("unary_exp", r = ct_exp(x));
    same_values("unary_exp", r, ct_exp(xu));
    expect("unary_relu", ct_relu(x));
    expect("unary_clamp", ct_clamp(x, -0.5, 0.5));
    ct_tensor *y = R2(2, 3, "N,C");
    expect("binary_same", r = ct_add(x, y));
    same_values("binary_same", r, ct_add(xu, ct_rename(y, 0, NULL)));
    expect("binary_bcast_named", ct_add(x, R1(3, "C")));
    expect("binary_bcast_unnamed", ct_mul(x, ct_randn(CT_FLOAT32, 3)));
    expect("binary_fill_none", ct_add(R2(2, 3, "N,-"), R1(3, "C")));
    expect("binary_mismatch", ct_add(x, R2(2, 3, "N,H")));
    expect("binary_misaligned", ct_add(x, R2(2, 1, "C,-")));
    expect("binary_scalar", ct_mul_scalar(x, 2));
    expect("compare_gt", ct_gt_scalar(x, 0));
    ct_tensor *self = ct_randn(CT_FLOAT32, 3);
    expect("inplace_unnamed_self", ct_add_(self, R1(3, "N")));
    ct_tensor *m = R1(3, "M"), *m_before = ct_clone(m);
    expect("inplace_mismatch", ct_add_(m, R1(3, "N")));
    CHECK(ct_equal(m, m_before) == 1 && ct_dim_name(m, 0) && !strcmp(ct_dim_name(m, 0), "M"));   /* untouched */
    expect("sum_dim", r = ct_sum_dim(x, 1, 0));
    same_values("sum_dim", r, ct_sum_dim(xu, 1, 0));
    expect("sum_keepdim", ct_sum_dim(x, 1, 1));
    expect("sum_all", ct_sum(x));
    expect("sum_two", ct_sum_dims(x4, CT_DIMS(1, 3), 0));
    expect("mean_dim", ct_mean_dim(x4, 2, 0));
    ct_tensor *idx = NULL;
    expect("max_dim", ct_max_dim(x, 1, 0, &idx));
    expect("max_dim_indices", idx);
    expect("std_dim", ct_std_dims(x, CT_DIMS(0), 1.0, 0));
    expect("logsumexp", ct_logsumexp(x, CT_DIMS(1), 0));
    expect("softmax", ct_softmax(x, 1));
    expect("cumsum", ct_cumsum(x, 0));
    expect("transpose", r = ct_transpose(x4, 0, 2));
    same_values("transpose", r, ct_transpose(x4u, 0, 2));
    expect("t", ct_t(x));
    expect("select", ct_select(x4, 1, 0));
    expect("narrow", ct_narrow(x4, 2, 1, 2));
    expect("slice", ct_slice(x4, 1, 1, 3, 1));
    expect("expand", ct_expand(x, 4, 2, 3));
    ct_tensor *k = R3(2, 1, 3, "N,K,C");
    expect("squeeze_all", ct_squeeze(k));
    expect("squeeze_dim", r = ct_squeeze_dim(k, 1));
    same_values("squeeze_dim", r, ct_squeeze_dim(ct_rename(k, 0, NULL), 1));
    ct_tensor *pieces[3];
    CHECK_EQ_INT(ct_unbind(x, 0, pieces, 3), 2);
    expect("unbind", pieces[0]);
    CHECK_EQ_INT(ct_split(x, 1, 1, pieces, 3), 3);
    expect("split", pieces[1]);
    ct_tensor *two[2] = {x, x};
    expect("cat", ct_cat(2, two, 0));
    two[1] = ct_randn(CT_FLOAT32, 2, 3);
    expect("cat_unnamed", ct_cat(2, two, 1));
    two[1] = R2(2, 3, "N,D");
    expect("cat_mismatch", ct_cat(2, two, 0));
    ct_tensor *w = R2(3, 4, "C,D");
    expect("mm", r = ct_mm(x, w));
    same_values("mm", r, ct_mm(xu, ct_rename(w, 0, NULL)));
    expect("mm_dup", ct_mm(x, R2(3, 2, "C,N")));
    expect("mv", ct_mv(x, R1(3, "C")));
    expect("dot", ct_dot(R1(3, "C"), R1(3, "C")));
    expect("bmm_mismatch", ct_bmm(R3(5, 2, 3, "B,N,C"), R3(5, 3, 4, "B2,C,D")));
    expect("matmul_2d", ct_matmul(x, w));
    expect("matmul_nd_1d", ct_matmul(R3(4, 2, 3, "B,N,C"), R1(3, "C")));
    expect("matmul_1d_nd", ct_matmul(R1(3, "C"), R3(4, 3, 5, "B,C,D")));
    ct_tensor *bnc = R3(5, 2, 3, "B,N,C");
    expect("matmul_batch", r = ct_matmul(bnc, w));
    same_values("matmul_batch", r, ct_matmul(ct_rename(bnc, 0, NULL), ct_rename(w, 0, NULL)));
    expect("matmul_batch_mismatch", ct_matmul(R3(4, 2, 3, "B,N,C"), R3(5, 3, 4, "X,C,D")));
    expect("matmul_dup", ct_matmul(x, ct_t(x)));
    expect("addmm", ct_addmm(R1(4, "D"), x, w, 1, 1));
    ct_tensor *W = ct_randn(CT_FLOAT32, 4, 3), *bias = R1(4, "D");
    expect("linear", r = ct_linear(x, W, NULL));
    same_values("linear", r, ct_linear(xu, W, NULL));
    expect("linear_bias", ct_linear(x, W, bias));
    expect("masked_fill", ct_masked_fill(x, ct_gt_scalar(x, 0), 1.0));
    expect("clone", ct_clone(x));
    expect("to_double", ct_to(x, CT_FLOAT64));
    expect("detach", ct_detach(x));
    expect("contiguous_t", ct_contiguous(ct_t(x)));
    expect("refine_partial", nm(R2(2, 3, "N,-"), "N,D"));
    {
        const char *ell[2] = {"N", "..."};
        expect("refine_ellipsis", ct_refine_names(ct_randn(CT_FLOAT32, 2, 3, 4), 2, ell));
    }
    expect("refine_conflict", nm(x, "N,D"));
    expect("refine_count", nm(x, "N,C,D"));
    expect("refine_dup", nm(ct_randn(CT_FLOAT32, 2, 3), "N,N"));
    expect("refine_invalid", nm(ct_randn(CT_FLOAT32, 2), "1a"));
    {
        const char *ab[2] = {"A", "B"}, *from[1] = {"N"}, *to[1] = {"B"}, *fx_[1] = {"X"};
        r = ct_rename(x, 0, NULL);
        CHECK(r && !ct_has_names(r));
        /* PyTorch prints rename(None)'s names as (None, None) */
        expect("rename_none", r ? ct_rename(r, 2, (const char *const[]){NULL, NULL}) : NULL);
        expect("rename_pos", ct_rename(x, 2, ab));
        expect("rename_map", ct_rename_map(x, 1, from, to));
        expect("rename_map_missing", ct_rename_map(x, 1, fx_, to));
        expect("rename_count", ct_rename(x, 1, ab));
    }
    {
        const char *cn[2] = {"C", "N"}, *cnw[3] = {"C", "N", "W"}, *hf[2] = {"H", "..."}, *bn[2] = {"...", "N"}, *n1[1] = {"N"},
                   *c1[1] = {"C"};
        ct_tensor *nch = R3(2, 3, 4, "N,C,H");
        expect("align_to", r = ct_align_to(x, 2, cn));
        same_values("align_to", r, ct_t(xu));
        expect("align_to_new", r = ct_align_to(x, 3, cnw));
        CHECK(r && ct_size(r, 2) == 1 && ct_size(r, 0) == 3);
        expect("align_to_ellipsis_front", r = ct_align_to(nch, 2, hf));
        same_values("align_to_ellipsis_front", r, ct_permute(ct_rename(nch, 0, NULL), 2, 0, 1));
        expect("align_to_ellipsis_back", ct_align_to(nch, 2, bn));
        expect("align_to_unnamed", ct_align_to(R2(2, 3, "N,-"), 1, n1));
        expect("align_to_missing", ct_align_to(x, 1, c1));
        ct_tensor *c = R1(3, "C");
        expect("align_as", r = ct_align_as(c, x4));
        CHECK(r && ct_ndim(r) == 4 && ct_size(r, 1) == 3 && ct_size(r, 0) == 1);
    }
    {
        const char *ch[2] = {"C", "H"}, *nh[2] = {"N", "H"}, *names2[2] = {"C", "H"};
        int64_t sizes[2] = {3, 4};
        expect("flatten_names", r = ct_flatten_names(x4, 2, ch, "F"));
        same_values("flatten_names", r, ct_flatten(x4u, 1, 2));
        expect("flatten_names_gap", ct_flatten_names(x4, 2, nh, "F"));
        expect("unflatten_names", r = ct_unflatten_names(r, "F", 2, sizes, names2));
        same_values("unflatten_names", r, x4u);
        expect("unflatten_noname", ct_unflatten(x, 1, 1, 3));
    }
    expect("view", ct_view(x, 6));
    expect("reshape", ct_reshape(x, 6));
    expect("conv2d", ct_conv2d(x4, ct_randn(CT_FLOAT32, 2, 3, 1, 1), NULL, NULL));
    expect("layer_norm", ct_layer_norm(x, CT_DIMS(3), NULL, NULL, 1e-5));
    {
        ct_tensor *ind[1] = {ct_zeros(CT_INT64, 1)};
        expect("index_put", ct_index_put_(ct_clone(x), 1, ind, ct_scalar_tensor(1.0, CT_FLOAT32), 0));
    }
    expect("sum_name_missing", ct_sum_dim(x, ct_dim_of(x, "X"), 0));
    expect("transpose_names", ct_transpose_names(x4, "N", "H"));
    expect("dim_lookup", ct_sum_dim(x4, ct_dim_of(x4, "H"), 0));
    /* PyTorch refuses these with names; ctensor applies the rule (gen_named.py: EXT) */
    expect("EXT_permute", r = ct_permute(x4, 3, 0, 1, 2));
    same_values("EXT_permute", r, ct_permute(x4u, 3, 0, 1, 2));
    expect("EXT_unsqueeze", ct_unsqueeze(x, 1));
    expect("EXT_where", ct_where(ct_gt_scalar(x, 0), x, R1(3, "C")));
    expect("EXT_index_select", ct_index_select(x, 1, ct_arange(0, 2, 1, CT_INT64)));
    expect("EXT_sort", ct_sort(x, 1, 0, NULL));
    expect("EXT_argmax", ct_argmax_dim(x, 1, 0));
    two[1] = x;
    expect("EXT_stack", ct_stack(2, two, 0));
    expect("EXT_flatten_index", ct_flatten(x4, 0, 2));
    CHECK_EQ_INT(ncases_run, nfx);   /* every PyTorch case has its C twin */
}

/* Pitfall 1 (accidental broadcasting): per-channel scale meant for [N, C] given as
   [C, 1]: broadcasting by position silently makes [C, C]-ish results; names catch it. */
TEST(test_pitfall_broadcasting) {
    ct_tensor *imgs = R2(3, 3, "N,C");
    ct_tensor *scale = R2(3, 1, "C,-");   /* the mistake: a column instead of a row */
    ct_tensor *plain = ct_mul(ct_rename(imgs, 0, NULL), ct_rename(scale, 0, NULL));
    CHECK(plain != NULL);   /* unnamed: runs, wrong */
    CHECK_ERR(ct_mul(imgs, scale), CT_ERR_ARG, "Misaligned dims when attempting to broadcast dims ['N', 'C'] and dims ['C', None]");
    CHECK(ct_mul(imgs, ct_align_as(ct_squeeze_dim(scale, 1), imgs)) != NULL);   /* the fix */
}

/* Pitfall 2 (accidental alignment) and one normalize for every layout: mean and std
   per channel, aligned by name, so NCHW and NHWC both work and a layout mix-up of
   equal sizes is caught instead of normalizing the wrong axis. */
static ct_tensor *normalize(const ct_tensor *img, const ct_tensor *mean_c, const ct_tensor *std_c) {
    return ct_div(ct_sub(img, ct_align_as(mean_c, img)), ct_align_as(std_c, img));
}
TEST(test_normalize_any_layout) {
    ct_manual_seed(3);
    ct_tensor *nchw_u = ct_randn(CT_FLOAT64, 2, 3, 4, 4);
    ct_tensor *mean = nm(ct_from_data_n((const double[]){0.5, -1.0, 2.0}, CT_FLOAT64, 1, (const int64_t[]){3}), "C");
    ct_tensor *stdv = nm(ct_from_data_n((const double[]){2.0, 0.25, 4.0}, CT_FLOAT64, 1, (const int64_t[]){3}), "C");
    ct_tensor *nchw = nm(nchw_u, "N,C,H,W");
    ct_tensor *nhwc = nm(ct_contiguous(ct_permute(nchw_u, 0, 2, 3, 1)), "N,H,W,C");
    ct_tensor *a = normalize(nchw, mean, stdv), *b = normalize(nhwc, mean, stdv);
    CHECK(a && b);
    if (!a || !b) return;
    /* exact math per element: (x - mean[c]) / std[c] */
    const double mv[3] = {0.5, -1.0, 2.0}, sv[3] = {2.0, 0.25, 4.0};
    ct_tensor *ac = ct_contiguous(a), *bc = ct_contiguous(b), *xc = ct_contiguous(nchw_u);
    const double *pa = (const double *)ct_data_ptr(ac), *pb = (const double *)ct_data_ptr(bc), *px = (const double *)ct_data_ptr(xc);
    int ok = 1;
    for (int n = 0; n < 2; n++)
        for (int c = 0; c < 3; c++)
            for (int h = 0; h < 4; h++)
                for (int w = 0; w < 4; w++) {
                    double want = (px[((n * 3 + c) * 4 + h) * 4 + w] - mv[c]) / sv[c];
                    ok &= pa[((n * 3 + c) * 4 + h) * 4 + w] == want && pb[((n * 4 + h) * 4 + w) * 3 + c] == want;
                }
    CHECK(ok);
    char buf[64];
    ct_names_repr(b, buf, sizeof buf);
    CHECK_STR(buf, "['N', 'H', 'W', 'C']");
    /* accidental alignment: an unnamed [C, 1, 1] mean on NHWC data of H == C == 3
       broadcasts by position over the wrong axes; by name the mix-up is an error */
    ct_tensor *sq = nm(ct_randn(CT_FLOAT64, 1, 3, 3, 3), "N,H,W,C");
    ct_tensor *mean_c11 = nm(ct_randn(CT_FLOAT64, 3, 1, 1), "C,-,-");
    CHECK(ct_sub(ct_rename(sq, 0, NULL), ct_rename(mean_c11, 0, NULL)) != NULL);   /* runs, wrong axis */
    CHECK_ERR(ct_sub(sq, mean_c11), CT_ERR_ARG, "sub: Misaligned dims");
    CHECK(normalize(sq, mean, stdv) != NULL);
}

/* gradients are unnamed (as PyTorch's) and flow through the names API's views */
static ct_tensor *f_align(ct_tensor *const *in, void *u) {
    (void)u;
    static const char *const cn[3] = {"C", "N", "W"};
    ct_tensor *x = nm(in[0], "N,C");
    return ct_rename(ct_mul(ct_align_to(x, 3, cn), ct_exp(ct_align_to(x, 3, cn))), 0, NULL);
}
static ct_tensor *f_reduce(ct_tensor *const *in, void *u) {
    (void)u;
    ct_tensor *x = nm(in[0], "N,C"), *w = nm(in[1], "C");
    return ct_sum_dim(ct_mul(x, w), ct_dim_of(x, "C"), 0);
}
TEST(test_autograd) {
    ct_manual_seed(5);
    ct_tensor *x = ct_requires_grad(ct_randn(CT_FLOAT64, 2, 3)), *w = ct_requires_grad(ct_randn(CT_FLOAT64, 3));
    ct_tensor *in[2] = {x, w};
    CHECK(ct_gradcheck(f_align, NULL, 1, in, NULL) == 1);
    CHECK(ct_gradcheck(f_reduce, NULL, 2, in, NULL) == 1);
    ct_tensor *y = f_reduce(in, NULL);
    char buf[64];
    ct_names_repr(y, buf, sizeof buf);
    CHECK_STR(buf, "['N']");
    CHECK(ct_backward(ct_sum(y)) == CT_OK);
    ct_tensor *g = ct_grad(x);
    CHECK(g && !ct_has_names(g));   /* PyTorch: x.grad.names == (None, None) */
    CHECK(ct_has_names(y));
}

TEST(test_print_and_api) {
    ct_tensor *x = nm(ct_from_data_n((const double[]){1, 2}, CT_FLOAT64, 2, (const int64_t[]){1, 2}), "N,C");
    CHECK_REPR(ct_to(x, CT_FLOAT32), "tensor([[1., 2.]], names=('N', 'C'))");
    CHECK_REPR(nm(ct_from_data_n((const double[]){1, 2}, CT_FLOAT64, 1, (const int64_t[]){2}), "N"),
               "tensor([1., 2.], dtype=torch.float64, names=('N',))");
    CHECK_STR(ct_dim_name(x, 1), "C");
    CHECK_STR(ct_dim_name(x, -2), "N");
    CHECK(ct_dim_name(x, 0) == ct_dim_name(nm(ct_randn(CT_FLOAT32, 3), "N"), 0));   /* interned */
    CHECK_EQ_INT(ct_dim_of(x, "C"), 1);
    /* rename_ in place; names survive ct_contiguous and ops keep them per rule */
    ct_tensor *y = ct_clone(x);
    static const char *const ab[2] = {"A", "B"};
    CHECK(ct_rename_(y, 2, ab) == y);
    CHECK_STR(ct_dim_name(y, 0), "A");
    CHECK(ct_rename_(y, 0, NULL) == y && !ct_has_names(y));
    /* unnamed tensors never get names */
    ct_tensor *u = ct_add(ct_randn(CT_FLOAT32, 4), ct_randn(CT_FLOAT32, 4));
    CHECK(!ct_has_names(u) && ct_dim_name(u, 0) == NULL);
}

TEST(test_bad_input) {
    ct_tensor *x = R2(2, 3, "N,C");
    CHECK_ERR(ct_refine_names(NULL, 0, NULL), CT_ERR_NULL, "refine_names");
    CHECK_ERR(ct_rename(x, 2, NULL), CT_ERR_ARG, "rename: a names list of 2 entries is NULL");
    {
        const char *e2[2] = {"...", "..."};
        CHECK_ERR(ct_refine_names(x, 2, e2), CT_ERR_ARG, "More than one Ellipsis");
        CHECK_ERR(ct_align_to(x, 2, e2), CT_ERR_ARG, "More than one Ellipsis");
    }
    {
        const char *bad[2] = {"N", "a-b"};
        CHECK_ERR(ct_rename(x, 2, bad), CT_ERR_ARG, "Invalid name");
    }
    CHECK(ct_dim_of(x, "Q") == CT_DIM_NOT_FOUND);
    CHECK_ERR(ct_softmax(x, ct_dim_of(x, "Q")), CT_ERR_ARG, "Name 'Q' not found in Tensor['N', 'C']");
    CHECK(ct_dim_name(x, 5) == NULL && ct_last_error_code() == CT_ERR_INDEX);
    ct_clear_error();
    CHECK_ERR(ct_transpose_names(x, "N", "Z"), CT_ERR_ARG, "Name 'Z' not found");
    CHECK_ERR(ct_flatten_names(x, 0, NULL, "F"), CT_ERR_ARG, "flatten: dims must be a non-empty list");
    {
        const char *nc[2] = {"N", "C"};
        CHECK_ERR(ct_flatten_names(x, 2, nc, "1bad"), CT_ERR_ARG, "Invalid name");
        int64_t sz[2] = {4, 4};
        const char *ab[2] = {"A", "B"};
        CHECK_ERR(ct_unflatten_names(x, "C", 2, sz, ab), CT_ERR_SHAPE, "unflatten");
        CHECK_ERR(ct_unflatten_names(x, "C", 0, sz, nc), CT_ERR_ARG, "unflatten: sizes and names must be non-empty");
    }
    {
        const char *from[1] = {"N"}, *to[1] = {"C"};
        CHECK_ERR(ct_rename_map(x, 1, from, to), CT_ERR_ARG, "duplicate names");
    }
    CHECK_ERR(ct_align_as(x, ct_randn(CT_FLOAT32, 3)), CT_ERR_ARG, "All input dims must be named");
    CHECK_ERR(ct_align_as(NULL, x), CT_ERR_NULL, "align_as");
    CHECK_EQ_INT(ct_names_repr(NULL, NULL, 0), 0);
    ct_clear_error();
}

int main(void) {
    ct_t_init();
    int64_t live0 = ct_live_tensors();
    RUN(test_cases);
    RUN(test_pitfall_broadcasting);
    RUN(test_normalize_any_layout);
    RUN(test_autograd);
    RUN(test_print_and_api);
    RUN(test_bad_input);
    CHECK_EQ_INT(ct_live_tensors(), live0);
    return ct_t_summary();
}
