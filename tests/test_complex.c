/* test_complex.c - complex64/complex128 in ctensor.h: creation, conversion,
   printing, views (view_as_real, view_as_complex, real, imag), complex(), polar(),
   conj, elementwise arithmetic and math, sum/mean, .npy and safetensors I/O, and
   autograd with PyTorch's conjugate Wirtinger convention. Values and gradients are
   PyTorch 1.13's (tests/fixtures/complex/complex.safetensors, written by
   gen_complex.py there); special values (inf, nan, signed zeros on the branch
   cuts) may match either PyTorch or C99 Annex G (numpy's result), because PyTorch's
   vectorized kernels do not follow Annex G on inf/nan inputs. */
#define _POSIX_C_SOURCE 200809L   /* mkdtemp */
#include <unistd.h>               /* rmdir */
#ifndef CT_TEST_SHARED_IMPL
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include "../examples/signal_fit.h"
#include <stdint.h>

static ct_safetensors *fx;

/* a fixture; complex ones are stored as their view_as_real */
static ct_tensor *fix(const char *name) {
    ct_tensor *t = ct_safetensors_get(fx, name);
    if (!t) CT_T_REPORT(0, "fixture %s missing: %s", name, ct_last_error());
    return t;
}
static ct_tensor *fixc(const char *name) {
    ct_tensor *t = fix(name);
    return t ? ct_view_as_complex(t) : NULL;
}

/* one value against PyTorch's: NaN with NaN, inf with the same inf, else within
   tol of the element's magnitude (scale: the larger part, at least 1e-300) */
static int near(double g, double w, double tol, double scale) {
    if (isnan(w) || isnan(g)) return isnan(w) && isnan(g);
    if (isinf(w) || isinf(g)) return g == w;
    return fabs(g - w) <= tol * (scale > 1e-300 ? scale : 1e-300);
}
/* got (complex or real) against want/alt (real views of the expected values, alt
   may be NULL): element i passes when it is near want's or alt's; returns the
   number of mismatches (the first few are printed) */
static int compare(const char *what, const ct_tensor *got, const ct_tensor *want, const ct_tensor *alt, double tol) {
    if (!got || !want) { CT_T_REPORT(0, "%s: %s", what, got ? "no expected values" : ct_last_error()); return 1; }
    ct_tensor *g = ct_dtype_is_complex(ct_get_dtype(got)) ? ct_view_as_real(got) : (ct_tensor *)got;
    g = ct_contiguous(ct_to(g, CT_FLOAT64));
    ct_tensor *w = ct_contiguous(ct_to(want, CT_FLOAT64)), *a = alt ? ct_contiguous(ct_to(alt, CT_FLOAT64)) : NULL;
    int cx = ct_dtype_is_complex(ct_get_dtype(got)), bad = 0;
    if (ct_numel(g) != ct_numel(w)) {
        CT_T_REPORT(0, "%s: %lld values, expected %lld", what, (long long)ct_numel(g), (long long)ct_numel(w));
        return 1;
    }
    const double *pg = (const double *)ct_data_ptr(g), *pw = (const double *)ct_data_ptr(w), *pa = a ? (const double *)ct_data_ptr(a) : NULL;
    int64_t n = ct_numel(g), step = cx ? 2 : 1;
    for (int64_t i = 0; i < n; i += step) {
        int ok = 1, ok2 = pa != NULL;
        double sw = fabs(pw[i]), sa = pa ? fabs(pa[i]) : 0;
        if (cx && fabs(pw[i + 1]) > sw) sw = fabs(pw[i + 1]);
        if (cx && pa && fabs(pa[i + 1]) > sa) sa = fabs(pa[i + 1]);
        for (int k = 0; k < step; k++) {
            ok &= near(pg[i + k], pw[i + k], tol, sw);
            if (pa) ok2 &= near(pg[i + k], pa[i + k], tol, sa);
        }
        if (!ok && !ok2) {
            if (bad++ < 4)
                CT_T_REPORT(0, "%s: element %lld got (%.17g, %.17g) expected (%.17g, %.17g)%s", what, (long long)(i / step),
                            pg[i], cx ? pg[i + 1] : 0.0, pw[i], cx ? pw[i + 1] : 0.0, pa ? " or numpy's" : "");
        }
    }
    CT_T_REPORT(bad == 0 || bad > 4, "%s: %d mismatches", what, bad);
    return bad;
}

/* torch.equal, 1 only when it says equal (-1, an error, is not) */
static int eq1(const ct_tensor *a, const ct_tensor *b) { return ct_equal(a, b) == 1; }

typedef ct_tensor *(*un_fn)(const ct_tensor *);
typedef ct_tensor *(*bin_fn)(const ct_tensor *, const ct_tensor *);
static const struct { const char *name; un_fn f; } UN[] = {
    {"exp", ct_exp}, {"log", ct_log}, {"log2", ct_log2}, {"log10", ct_log10}, {"sqrt", ct_sqrt},
    {"rsqrt", ct_rsqrt}, {"sin", ct_sin}, {"cos", ct_cos}, {"tan", ct_tan}, {"asin", ct_asin},
    {"acos", ct_acos}, {"atan", ct_atan}, {"sinh", ct_sinh}, {"cosh", ct_cosh}, {"tanh", ct_tanh},
    {"sigmoid", ct_sigmoid}, {"square", ct_square}, {"abs", ct_abs}, {"angle", ct_angle}, {"sgn", ct_sgn},
    {"reciprocal", ct_reciprocal}, {"neg", ct_neg}, {"conj_physical", ct_conj_physical},
    {"asinh", ct_asinh}, {"acosh", ct_acosh}, {"atanh", ct_atanh},
};
#define NUN ((int)(sizeof UN / sizeof UN[0]))
static const struct { const char *name; bin_fn f; } BIN[] = {{"add", ct_add}, {"sub", ct_sub}, {"mul", ct_mul}, {"div", ct_div}};

TEST(test_unary_fixtures) {
    const char *tags[2] = {"c64", "c128"};
    for (int t = 0; t < 2; t++) {
        char nm[96];
        snprintf(nm, sizeof nm, "un.x.%s", tags[t]);
        ct_tensor *x = fixc(nm);
        for (int k = 0; k < NUN; k++) {
            char wn[96], an[96], what[96];
            snprintf(wn, sizeof wn, "un.%s.%s.out", UN[k].name, tags[t]);
            snprintf(an, sizeof an, "un.%s.%s.c99", UN[k].name, tags[t]);
            snprintf(what, sizeof what, "%s %s", UN[k].name, tags[t]);
            ct_tensor *got = x ? UN[k].f(x) : NULL;
            ct_tensor *want = fix(wn), *alt = ct_safetensors_get(fx, an);
            ct_clear_error();
            /* the expected dtype: complex unless abs/angle (real parts) */
            int real_out = !strcmp(UN[k].name, "abs") || !strcmp(UN[k].name, "angle");
            ct_dtype edt = real_out ? (t ? CT_FLOAT64 : CT_FLOAT32) : (t ? CT_COMPLEX128 : CT_COMPLEX64);
            CT_T_REPORT(got && ct_get_dtype(got) == edt, "%s: dtype %s", what, got ? ct_dtype_name(ct_get_dtype(got)) : ct_last_error());
            compare(what, got, want, alt, t ? 1e-13 : 4e-6);
        }
    }
}

/* binary cases: which inputs were complex (the others are real, stored as they are) */
static const struct { const char *name; int xc, yc; } BCASES[] = {
    {"same_c128", 1, 1}, {"same_c64", 1, 1}, {"bcast_c128", 1, 1}, {"c64_f64", 1, 0}, {"c64_f32", 1, 0},
    {"f32_c128", 0, 1}, {"c64_c128", 1, 1}, {"i64_c64", 0, 1}, {"specials", 1, 1},
};
TEST(test_binary_fixtures) {
    for (int c = 0; c < (int)(sizeof BCASES / sizeof BCASES[0]); c++) {
        for (int o = 0; o < 4; o++) {
            char nm[96], what[96];
            snprintf(nm, sizeof nm, "bin.%s.%s.x", BIN[o].name, BCASES[c].name);
            ct_tensor *x = BCASES[c].xc ? fixc(nm) : fix(nm);
            snprintf(nm, sizeof nm, "bin.%s.%s.y", BIN[o].name, BCASES[c].name);
            ct_tensor *y = BCASES[c].yc ? fixc(nm) : fix(nm);
            snprintf(nm, sizeof nm, "bin.%s.%s.out", BIN[o].name, BCASES[c].name);
            ct_tensor *want = fix(nm), *got = x && y ? BIN[o].f(x, y) : NULL;
            snprintf(what, sizeof what, "%s %s", BIN[o].name, BCASES[c].name);
            ct_dtype edt = want && ct_get_dtype(want) == CT_FLOAT32 ? CT_COMPLEX64 : CT_COMPLEX128;
            CT_T_REPORT(got && ct_get_dtype(got) == edt && ct_ndim(got) == ct_ndim(want) - 1, "%s: dtype %s (want %s)", what,
                        got ? ct_dtype_name(ct_get_dtype(got)) : ct_last_error(), ct_dtype_name(edt));
            /* (1e300+1e300i)^2: PyTorch's re is 1e600 - 1e600 = nan; where the compiler fuses
               the product into an FMA (gcc's vectorized complex multiply does), -inf */
            ct_tensor *alt = NULL;
            if (!strcmp(BCASES[c].name, "specials") && !strcmp(BIN[o].name, "mul") && want) {
                alt = ct_clone(want);
                ct_fill_(ct_select(ct_select(alt, 0, 2), 0, 0), -INFINITY);
            }
            compare(what, got, want, alt, edt == CT_COMPLEX64 ? 2e-6 : 1e-14);
        }
    }
    /* in place: x += y, x *= y on complex x */
    ct_tensor *x = ct_clone(fixc("bin.mul.same_c128.x")), *y = fixc("bin.mul.same_c128.y");
    CHECK(ct_mul_(x, y) == x);
    compare("mul_", x, fix("bin.mul.same_c128.out"), NULL, 1e-14);
    ct_tensor *x2 = ct_clone(fixc("bin.add.same_c128.x"));
    CHECK(ct_add_(x2, fixc("bin.add.same_c128.y")) == x2);
    compare("add_", x2, fix("bin.add.same_c128.out"), NULL, 1e-14);
    /* a complex result cannot be written into a real tensor (PyTorch's can't-cast rule) */
    ct_tensor *r = ct_randn(CT_FLOAT64, 3, 4);
    CHECK_ERR(ct_add_(r, fixc("bin.add.same_c128.y")), CT_ERR_DTYPE, "can't be cast");
}

TEST(test_scalars_and_reductions) {
    ct_tensor *x = fixc("scal.x");
    int64_t d0 = 0;
    compare("add alpha", ct_add_alpha(x, ct_flip(x, 1, &d0), 2.5), fix("scal.add_alpha"), NULL, 1e-14);
    compare("mul_scalar", ct_mul_scalar(x, 2.5), fix("scal.mul_2_5"), NULL, 1e-14);
    compare("add_scalar", ct_add_scalar(x, 1.5), fix("scal.add_1_5"), NULL, 1e-14);
    compare("div by a 0-d tensor", ct_div(x, ct_scalar_tensor(3, CT_FLOAT64)), fix("scal.div_3"), NULL, 1e-14);
    compare("rsub_scalar", ct_rsub_scalar(2, x), fix("scal.rsub_2"), NULL, 1e-14);
    compare("rdiv_scalar", ct_rdiv_scalar(2, x), fix("scal.rdiv_2"), NULL, 1e-14);
    ct_tensor *r = fixc("red.x");
    int64_t d1 = 1, d02[2] = {0, 2}, d2 = 2;
    compare("sum all", ct_sum(r), fix("red.sum_all"), NULL, 1e-13);
    compare("sum 1", ct_sum_dim(r, 1, 0), fix("red.sum_1"), NULL, 1e-13);
    ct_tensor *s02 = ct_sum_dims(r, 2, d02, 1);
    CHECK(s02 && ct_ndim(s02) == 3 && ct_size(s02, 0) == 1 && ct_size(s02, 1) == 4);
    compare("sum 0,2 keepdim", s02, fix("red.sum_02_keep"), NULL, 1e-13);
    compare("mean all", ct_mean(r), fix("red.mean_all"), NULL, 1e-13);
    compare("mean 2", ct_mean_dim(r, 2, 0), fix("red.mean_2"), NULL, 1e-13);
    (void)d1; (void)d2;
    ct_tensor *r64 = fixc("red.x64"), *s = ct_sum_dim(r64, 0, 0);
    CHECK(s && ct_get_dtype(s) == CT_COMPLEX64);
    compare("sum c64", s, fix("red.sum_x64_0"), NULL, 1e-6);
    /* a strided input: the sum of a transposed view */
    compare("sum of a transpose", ct_sum_dim(ct_t(r64), 1, 0), fix("red.sum_x64_0"), NULL, 1e-6);
    /* complex has no order: PyTorch's message */
    CHECK_ERR(ct_amax(r, 0, NULL, 0), CT_ERR_DTYPE, "not implemented for 'ComplexDouble'");
    /* the whole-tensor complex64 sum's blocked path (2048 per block, float lanes) and its
       tail, against the sum in double of the same float values */
    for (int n = 2047; n <= 6200; n += 4153 - 2047) {
        float *v = (float *)malloc(sizeof(float) * 2 * (size_t)n);
        double re = 0, im = 0;
        for (int k = 0; k < 2 * n; k++) v[k] = (float)((k * 7919 % 1000) / 997.0 - 0.3 * (k & 1));
        for (int k = 0; k < n; k++) { re += v[2 * k]; im += v[2 * k + 1]; }
        ct_tensor *z = ct_view_as_complex(ct_from_data(v, CT_FLOAT32, n, 2));
        double e[2] = {re, im};
        CHECK_VALUES(ct_view_as_real(ct_sum(z)), e, 2, 1e-6);
        double em[2] = {re / n, im / n};
        CHECK_VALUES(ct_view_as_real(ct_mean(z)), em, 2, 1e-6);
        free(v);
    }
}

/* d/dx sum(view_as_real(f(x)) * w), x complex128 (through a real parameter) */
static ct_tensor *grad_of(un_fn f, const ct_tensor *x, const ct_tensor *w, int real_out) {
    ct_tensor *p = ct_requires_grad(ct_clone(ct_view_as_real(x)));
    ct_tensor *y = f(ct_view_as_complex(p));
    ct_tensor *L = ct_sum(ct_mul(real_out ? y : ct_view_as_real(y), w));
    if (!L || ct_backward(L)) return NULL;
    return ct_view_as_complex(ct_grad(p));
}
TEST(test_gradients) {
    for (int k = 0; k < NUN; k++) {
        char nm[96];
        int real_out = !strcmp(UN[k].name, "abs") || !strcmp(UN[k].name, "angle");
        snprintf(nm, sizeof nm, "grad.%s.x", UN[k].name);
        ct_tensor *x = fixc(nm);
        snprintf(nm, sizeof nm, "grad.%s.w", UN[k].name);
        ct_tensor *w = fix(nm);
        snprintf(nm, sizeof nm, "grad.%s.gx", UN[k].name);
        ct_tensor *want = fix(nm), *got = x && w ? grad_of(UN[k].f, x, w, real_out) : NULL;
        char what[96];
        snprintf(what, sizeof what, "grad %s", UN[k].name);
        compare(what, got, want, NULL, 1e-11);
    }
    for (int o = 0; o < 4; o++) {
        char nm[96], what[96];
        snprintf(nm, sizeof nm, "grad2.%s.x", BIN[o].name);
        ct_tensor *px = ct_requires_grad(ct_clone(fix(nm)));
        snprintf(nm, sizeof nm, "grad2.%s.y", BIN[o].name);
        ct_tensor *py = ct_requires_grad(ct_clone(fix(nm)));
        snprintf(nm, sizeof nm, "grad2.%s.w", BIN[o].name);
        ct_tensor *w = fix(nm);
        ct_tensor *L = ct_sum(ct_mul(ct_view_as_real(BIN[o].f(ct_view_as_complex(px), ct_view_as_complex(py))), w));
        CT_T_REPORT(L && ct_backward(L) == 0, "backward %s: %s", BIN[o].name, ct_last_error());
        snprintf(nm, sizeof nm, "grad2.%s.gx", BIN[o].name);
        snprintf(what, sizeof what, "grad x %s", BIN[o].name);
        compare(what, ct_grad(px), fix(nm), NULL, 1e-11);
        snprintf(nm, sizeof nm, "grad2.%s.gy", BIN[o].name);
        snprintf(what, sizeof what, "grad y %s", BIN[o].name);
        compare(what, ct_grad(py), fix(nm), NULL, 1e-11);
    }
    const char *mk[2] = {"complex", "polar"};
    for (int o = 0; o < 2; o++) {
        char nm[96], what[96];
        snprintf(nm, sizeof nm, "mk.%s.x", mk[o]);
        ct_tensor *x = ct_requires_grad(ct_clone(fix(nm)));
        snprintf(nm, sizeof nm, "mk.%s.y", mk[o]);
        ct_tensor *y = ct_requires_grad(ct_clone(fix(nm)));
        ct_tensor *r = o ? ct_polar(x, y) : ct_complex(x, y);
        snprintf(nm, sizeof nm, "mk.%s.out", mk[o]);
        snprintf(what, sizeof what, "%s values", mk[o]);
        compare(what, r, fix(nm), NULL, 1e-14);
        snprintf(nm, sizeof nm, "mk.%s.w", mk[o]);
        ct_tensor *L = ct_sum(ct_mul(ct_view_as_real(r), fix(nm)));
        CT_T_REPORT(L && ct_backward(L) == 0, "backward %s: %s", mk[o], ct_last_error());
        snprintf(nm, sizeof nm, "mk.%s.gx", mk[o]);
        snprintf(what, sizeof what, "%s grad 0", mk[o]);
        compare(what, ct_grad(x), fix(nm), NULL, 1e-12);
        snprintf(nm, sizeof nm, "mk.%s.gy", mk[o]);
        snprintf(what, sizeof what, "%s grad 1", mk[o]);
        compare(what, ct_grad(y), fix(nm), NULL, 1e-12);
    }
    /* real * complex: the real input's gradient is real (the real part) */
    ct_tensor *xr = ct_requires_grad(ct_clone(fix("mixed.x"))), *py = ct_requires_grad(ct_clone(fix("mixed.y")));
    ct_tensor *L = ct_sum(ct_mul(ct_view_as_real(ct_mul(xr, ct_view_as_complex(py))), fix("mixed.w")));
    CT_T_REPORT(L && ct_backward(L) == 0, "backward mixed: %s", ct_last_error());
    CHECK(ct_grad(xr) && ct_get_dtype(ct_grad(xr)) == CT_FLOAT64);
    compare("mixed grad real", ct_grad(xr), fix("mixed.gx"), NULL, 1e-12);
    compare("mixed grad complex", ct_grad(py), fix("mixed.gy"), NULL, 1e-12);
    /* sum and mean: broadcast gradients */
    ct_tensor *px = ct_requires_grad(ct_clone(fix("redgrad.x")));
    ct_tensor *z = ct_view_as_complex(px);
    ct_tensor *L2 = ct_sum(ct_mul(ct_view_as_real(ct_add(ct_sum_dim(z, 0, 0), ct_sum(ct_mean_dim(z, 1, 0)))), fix("redgrad.w")));
    CT_T_REPORT(L2 && ct_backward(L2) == 0, "backward sum/mean: %s", ct_last_error());
    compare("sum/mean grad", ct_view_as_complex(ct_grad(px)), fix("redgrad.gx"), NULL, 1e-12);
}

/* matmul (mm, mv, vm, dot, batched, bmm): values and gradients */
TEST(test_matmul) {
    const char *cases[7] = {"mm_c128", "mm_c64", "mv", "vm", "dot", "batched", "bmm"};
    for (int c = 0; c < 7; c++) {
        char nm[96], what[96];
        snprintf(nm, sizeof nm, "mm.%s.a", cases[c]);
        ct_tensor *pa = ct_requires_grad(ct_clone(fix(nm)));
        snprintf(nm, sizeof nm, "mm.%s.b", cases[c]);
        ct_tensor *pb = ct_requires_grad(ct_clone(fix(nm)));
        ct_tensor *r = pa && pb ? ct_matmul(ct_view_as_complex(pa), ct_view_as_complex(pb)) : NULL;
        snprintf(nm, sizeof nm, "mm.%s.out", cases[c]);
        snprintf(what, sizeof what, "matmul %s", cases[c]);
        compare(what, r, fix(nm), NULL, c == 1 ? 1e-5 : 1e-13);
        if (c == 1) continue;   /* gradients: complex128 cases */
        snprintf(nm, sizeof nm, "mm.%s.w", cases[c]);
        ct_tensor *L = r ? ct_sum(ct_mul(ct_view_as_real(r), fix(nm))) : NULL;
        CT_T_REPORT(L && ct_backward(L) == 0, "backward %s: %s", what, ct_last_error());
        snprintf(nm, sizeof nm, "mm.%s.ga", cases[c]);
        snprintf(what, sizeof what, "matmul %s grad a", cases[c]);
        compare(what, ct_view_as_complex(ct_grad(pa)), fix(nm), NULL, 1e-12);
        snprintf(nm, sizeof nm, "mm.%s.gb", cases[c]);
        snprintf(what, sizeof what, "matmul %s grad b", cases[c]);
        compare(what, ct_view_as_complex(ct_grad(pb)), fix(nm), NULL, 1e-12);
    }
    /* a transposed operand is read in place */
    ct_tensor *a = fixc("mm.mm_c128.a"), *b = fixc("mm.mm_c128.b");
    compare("mm of transposed operands", ct_t(ct_mm(ct_t(b), ct_t(a))), fix("mm.mm_c128.out"), NULL, 1e-13);
    CHECK_ERR(ct_mm(a, ct_real(b)), CT_ERR_DTYPE, "mm: expected scalar type ComplexDouble but found Double");
}

/* examples/signal.c's fit: the loss at every step and the final taps equal
   PyTorch's (Adam on complex parameters steps each part on its own) */
TEST(test_signal_fit) {
    double losses[300];
    ct_tensor *h = signal_fit(300, losses);
    CT_T_REPORT(h != NULL, "signal_fit: %s", ct_last_error());
    ct_tensor *want = fix("signal.losses");
    if (h && want) {
        compare("signal losses", ct_from_data(losses, CT_FLOAT64, 300), want, NULL, 1e-9);
        compare("signal taps", h, fix("signal.taps"), NULL, 1e-8);
    }
    /* SGD and RMSprop step complex parameters too (through their real views) */
    ct_tensor *E, *T;
    signal_problem(&E, &T);
    ct_tensor *p = ct_retain(ct_requires_grad(ct_zeros(CT_COMPLEX128, SIGNAL_TAPS)));
    ct_optimizer *o = ct_optim_sgd_params(1, &p, &(ct_sgd_options){.lr = 0.1, .momentum = 0.5});
    double l0 = 0, l1 = 0;
    for (int s = 0; o && s < 20; s++) {
        ct_zero_grad(o);
        ct_tensor *L = signal_loss(E, T, p);
        if (!L || ct_backward(L) || ct_step(o)) break;
        if (s == 0) l0 = ct_item(L);
        l1 = ct_item(L);
    }
    CT_T_REPORT(o && l1 < 0.5 * l0, "sgd on complex taps: loss %g -> %g (%s)", l0, l1, ct_last_error());
    ct_optim_free(o);
    ct_release(p);
}

/* gradcheck through a real parameterization (PyTorch's gradcheck perturbs the
   real and the imaginary part of a complex input: the same thing) */
static int gc_which;
static ct_tensor *gc_fn(ct_tensor *const *in, void *user) {
    (void)user;
    ct_tensor *z = ct_view_as_complex(in[0]), *w = ct_view_as_complex(in[1]);
    switch (gc_which) {
    case 0: return ct_view_as_real(ct_div(ct_mul(ct_exp(z), ct_log(w)), ct_add_scalar(z, 3.0)));
    case 1: return ct_add(ct_abs(ct_mul(z, w)), ct_angle(ct_sub(z, w)));
    case 2: return ct_view_as_real(ct_mul(ct_sgn(z), ct_sqrt(ct_mul(w, w))));
    case 3: return ct_view_as_real(ct_tanh(ct_mean_dim(ct_mul(z, ct_conj(w)), 0, 1)));
    default: return ct_view_as_real(ct_polar(ct_abs(z), ct_real(w)));
    }
}
/* ct_gradcheck with complex inputs and outputs directly */
static ct_tensor *gc_direct(ct_tensor *const *in, void *user) {
    (void)user;
    switch (gc_which) {
    case 0: return ct_mul(ct_exp(in[0]), ct_conj(in[1]));          /* complex -> complex */
    case 1: return ct_abs(ct_div(in[0], ct_add_scalar(in[1], 2)));  /* complex -> real */
    default: return ct_polar(in[0], in[1]);                           /* real -> complex */
    }
}
static ct_tensor *gc_ops(ct_tensor *const *in, void *user) {
    (void)user;
    int64_t ix[4] = {2, 0, 1, 2}, d1 = 1;
    ct_tensor *idx = ct_from_data_n(ix, CT_INT64, 1, &(int64_t){4}), *m = ct_gt_scalar(ct_real(in[1]), 1.0);
    switch (gc_which) {
    case 0: return ct_prod_dim(in[0], 1, 0);
    case 1: return ct_cumprod(in[0], 1);
    case 2: return ct_var_dims(in[0], 1, &d1, 1.0, 0);
    case 3: return ct_where(m, in[0], in[1]);
    case 4: return ct_gather(in[0], 1, ct_expand(ct_narrow(idx, 0, 0, 3), 3, 3));
    case 5: return ct_index_put(in[0], 1, &idx, ct_narrow(ct_cat(2, in, 0), 0, 0, 4), 1);
    case 6: return ct_lerp(in[0], in[1], ct_mul_scalar(in[1], 0.3));
    case 7: return ct_addcdiv(in[0], in[1], ct_add_scalar(in[0], 1.0), 0.5);
    case 9: return ct_silu(ct_mul(in[0], in[1]));   /* PyTorch 1.13 refuses its complex gradient */
    case 10: return ct_lerp_scalar_(ct_mul_scalar(in[0], 2.0), in[1], 0.6);
    case 11: return ct_add(ct_asinh(in[0]), ct_mul(ct_acosh(in[1]), ct_atanh(ct_mul_scalar(in[0], 0.3))));
    default: return ct_norm(ct_masked_select(in[0], m), 2.0, 0, NULL, 0);
    }
}
TEST(test_gradcheck_complex_inputs) {
    ct_manual_seed(9);
    for (gc_which = 0; gc_which < 3; gc_which++) {
        ct_tensor *in[2];
        for (int i = 0; i < 2; i++) {
            ct_tensor *r = ct_add_scalar(ct_rand(CT_FLOAT64, 4), 0.5);
            in[i] = ct_requires_grad(gc_which == 2 ? r : ct_complex(r, ct_rand(CT_FLOAT64, 4)));
        }
        CT_T_REPORT(ct_gradcheck(gc_direct, NULL, 2, in, NULL) == 1, "gradcheck complex %d: %s", gc_which, ct_last_error());
        CT_T_REPORT(ct_gradgradcheck(gc_direct, NULL, 2, in, NULL) == 1, "gradgradcheck complex %d: %s", gc_which, ct_last_error());
    }
    /* the indexing, reduction, scan and ternary ops on complex inputs */
    ct_tensor *in2[2];
    in2[0] = ct_requires_grad(ct_complex(ct_add_scalar(ct_rand(CT_FLOAT64, 3, 4), 0.5), ct_rand(CT_FLOAT64, 3, 4)));
    in2[1] = ct_requires_grad(ct_complex(ct_add_scalar(ct_rand(CT_FLOAT64, 3, 4), 0.5), ct_rand(CT_FLOAT64, 3, 4)));
    for (gc_which = 0; gc_which < 12; gc_which++) {
        CT_T_REPORT(ct_gradcheck(gc_ops, NULL, 2, in2, NULL) == 1, "gradcheck op %d: %s", gc_which, ct_last_error());
        CT_T_REPORT(ct_gradgradcheck(gc_ops, NULL, 2, in2, NULL) == 1, "gradgradcheck op %d: %s", gc_which, ct_last_error());
    }
    /* complex64 inputs: not precise enough for finite differences, as in PyTorch */
    ct_tensor *z = ct_requires_grad(ct_complex(ct_rand(CT_FLOAT64, 3), ct_rand(CT_FLOAT64, 3)));
    ct_tensor *z64[2];
    z64[0] = ct_requires_grad(ct_to(z, CT_COMPLEX64));
    z64[1] = z64[0];
    CHECK_ERR(ct_gradcheck(gc_direct, NULL, 2, z64, NULL) ? (ct_tensor *)z : NULL, CT_ERR_DTYPE, "gradcheck: input 0 requires grad but is complex64; gradcheck needs float64 or complex128 inputs");
}

TEST(test_gradcheck) {
    ct_manual_seed(5);
    for (gc_which = 0; gc_which < 5; gc_which++) {
        ct_tensor *in[2];
        in[0] = ct_requires_grad(ct_add_scalar(ct_rand(CT_FLOAT64, 3, 2), 0.2));
        in[1] = ct_requires_grad(ct_add_scalar(ct_rand(CT_FLOAT64, 3, 2), 0.3));
        CT_T_REPORT(ct_gradcheck(gc_fn, NULL, 2, in, NULL) == 1, "gradcheck %d: %s", gc_which, ct_last_error());
        CT_T_REPORT(gc_which == 1 || ct_gradgradcheck(gc_fn, NULL, 2, in, NULL) == 1, "gradgradcheck %d: %s", gc_which, ct_last_error());
    }
}

TEST(test_views_and_creation) {
    static const double d[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    ct_tensor *r = ct_clone(ct_from_data(d, CT_FLOAT64, 2, 2, 2));
    ct_tensor *z = ct_view_as_complex(r);
    CHECK(z && ct_get_dtype(z) == CT_COMPLEX128 && ct_ndim(z) == 2 && ct_size(z, 1) == 2);
    CHECK(ct_data_ptr(z) == ct_data_ptr(r));
    /* writes through: imag(z) = 0 changes r */
    ct_tensor *im = ct_imag(z), *re = ct_real(z);
    CHECK(im && ct_get_dtype(im) == CT_FLOAT64 && ct_stride(im, 1) == 2);
    CHECK(ct_fill_(im, 0.0) != NULL);
    CHECK_CLOSE(ct_item(ct_sum(r)), 1 + 3 + 5 + 7, 0);
    CHECK_CLOSE(ct_item(ct_sum(re)), 16, 0);
    /* the imaginary parts of a slice: offset 2 * 1 + 1 */
    ct_tensor *row = ct_select(z, 0, 1);
    CHECK((char *)ct_data_ptr(ct_imag(row)) - (char *)ct_data_ptr(r) == 5 * 8);
    ct_tensor *back = ct_view_as_real(row);
    CHECK(back && ct_ndim(back) == 2 && ct_size(back, 1) == 2 && (char *)ct_data_ptr(back) - (char *)ct_data_ptr(r) == 4 * 8);
    /* real() of a real tensor is itself (a view); conj() of a real tensor too */
    CHECK(ct_data_ptr(ct_real(r)) == ct_data_ptr(r));
    CHECK(ct_data_ptr(ct_conj(r)) == ct_data_ptr(r));
    /* creation */
    ct_tensor *o = ct_ones(CT_COMPLEX64, 2, 3), *e = ct_eye(3, 3, CT_COMPLEX128), *f = ct_full_complex(CT_COMPLEX64, 1.5, -2, 4);
    CHECK_REPR(o, "tensor([[1.+0.j, 1.+0.j, 1.+0.j],\n        [1.+0.j, 1.+0.j, 1.+0.j]])");
    CHECK(e && ct_get_dtype(e) == CT_COMPLEX128);
    CHECK_CLOSE(ct_item(ct_real(ct_sum(e))), 3, 0);
    CHECK_REPR(f, "tensor([1.5000-2.j, 1.5000-2.j, 1.5000-2.j, 1.5000-2.j])");
    /* conversions: int/bool/half to complex, complex to real keeps the real part,
       complex64 <-> complex128 */
    ct_tensor *i = ct_to(ct_arange(0, 3, 1, CT_INT64), CT_COMPLEX64);
    CHECK_REPR(i, "tensor([0.+0.j, 1.+0.j, 2.+0.j])");
    CHECK_REPR(ct_to(ct_ones(CT_BOOL, 2), CT_COMPLEX128), "tensor([1.+0.j, 1.+0.j], dtype=torch.complex128)");
    CHECK_REPR(ct_to(ct_full_complex(CT_COMPLEX128, 2.5, 7, 2), CT_FLOAT32), "tensor([2.5000, 2.5000])");
    CHECK_REPR(ct_to(ct_full_complex(CT_COMPLEX128, 2.5, 7, 1), CT_INT64), "tensor([2])");
    ct_tensor *c64 = ct_to(ct_full_complex(CT_COMPLEX128, 1.0 / 3, -1e-3, 2), CT_COMPLEX64);
    CHECK(c64 && ct_get_dtype(c64) == CT_COMPLEX64);
    CHECK_CLOSE(ct_item(ct_imag(ct_select(c64, 0, 1))), (float)-1e-3, 0);
    CHECK_REPR(ct_to(ct_ones(CT_FLOAT16, 1), CT_COMPLEX64), "tensor([1.+0.j])");
    /* clone/contiguous of a strided complex view */
    ct_tensor *big = ct_complex(ct_arange(0, 12, 1, CT_FLOAT32), ct_neg(ct_arange(0, 12, 1, CT_FLOAT32)));
    ct_tensor *tv = ct_contiguous(ct_t(ct_reshape(big, 3, 4)));
    CHECK(tv && ct_is_contiguous(tv));
    CHECK_CLOSE(ct_item(ct_imag(ct_select(ct_select(tv, 0, 0), 0, 1))), -4, 0);
}

/* the data-movement ops on complex tensors equal the same ops on the parts */
TEST(test_data_movement) {
    ct_manual_seed(11);
    ct_tensor *a = ct_randn(CT_FLOAT64, 3, 4), *b = ct_randn(CT_FLOAT64, 3, 4), *z = ct_complex(a, b);
    int64_t d1 = -1, sh = 2, d0 = 0, reps[3] = {2, 1, 2};
    ct_tensor *idx = ct_arange(0, 3, 2, CT_INT64);
    CHECK(eq1(ct_flip(z, 1, &d1), ct_complex(ct_flip(a, 1, &d1), ct_flip(b, 1, &d1))));
    CHECK(eq1(ct_roll(z, 1, &sh, 1, &d0), ct_complex(ct_roll(a, 1, &sh, 1, &d0), ct_roll(b, 1, &sh, 1, &d0))));
    CHECK(eq1(ct_index_select(z, 0, idx), ct_complex(ct_index_select(a, 0, idx), ct_index_select(b, 0, idx))));
    CHECK(eq1(ct_repeat(z, 3, reps), ct_complex(ct_repeat(a, 3, reps), ct_repeat(b, 3, reps))));
    ct_tensor *zs[2], *as[2], *bs[2];
    zs[0] = z; zs[1] = ct_to(a, CT_COMPLEX64);   /* complex128 with complex64: complex128 */
    as[0] = a; as[1] = ct_to(ct_to(a, CT_FLOAT32), CT_FLOAT64);
    bs[0] = b; bs[1] = ct_zeros_like(b);
    ct_tensor *c = ct_cat(2, zs, -1), *st = ct_stack(2, zs, 1);
    CHECK(c && ct_get_dtype(c) == CT_COMPLEX128 && eq1(c, ct_complex(ct_cat(2, as, -1), ct_cat(2, bs, -1))));
    CHECK(st && ct_ndim(st) == 3 && eq1(st, ct_complex(ct_stack(2, as, 1), ct_stack(2, bs, 1))));
    /* gradients flow back through them */
    ct_tensor *p = ct_requires_grad(ct_clone(ct_view_as_real(z)));
    ct_tensor *L = ct_sum(ct_view_as_real(ct_mul(ct_flip(ct_view_as_complex(p), 1, &d1), ct_view_as_complex(p))));
    CHECK(L && ct_backward(L) == 0 && ct_grad(p));
    CHECK_ERR(ct_flip(z, 1, (int64_t[]){2}), CT_ERR_INDEX, "flip");
}

/* eq, ne, isnan, isinf, isfinite: PyTorch's rules (both parts equal; either part
   nan / inf; both finite); lt and friends are not defined for complex */
TEST(test_predicates) {
    static const double d[12] = {1, 2, 1, 2, NAN, 0, 0, INFINITY, 3, -1, 3, 1};
    ct_tensor *z = ct_view_as_complex(ct_from_data(d, CT_FLOAT64, 6, 2));
    ct_tensor *w = ct_view_as_complex(ct_from_data(d + 2, CT_FLOAT64, 5, 2));
    ct_tensor *z5 = ct_narrow(z, 0, 0, 5);
    CHECK_REPR(ct_eq(z5, w), "tensor([ True, False, False, False, False])");
    CHECK_REPR(ct_ne(z5, w), "tensor([False,  True,  True,  True,  True])");
    CHECK_REPR(ct_isnan(z), "tensor([False, False,  True, False, False, False])");
    CHECK_REPR(ct_isinf(z), "tensor([False, False, False,  True, False, False])");
    CHECK_REPR(ct_isfinite(z), "tensor([ True,  True, False, False,  True,  True])");
    CHECK_REPR(ct_eq(ct_to(z, CT_COMPLEX64), ct_to(z, CT_COMPLEX128)), "tensor([ True,  True, False,  True,  True,  True])");
    CHECK_ERR(ct_lt(z, z), CT_ERR_DTYPE, "lt: not implemented for 'ComplexDouble'");
}

/* ---- indexing, masks, reductions, scans and ternaries (op2.* fixtures) ---- */
typedef ct_tensor *(*op2_fn)(ct_tensor **in);
static ct_tensor *B(ct_tensor *t) { return ct_to(t, CT_BOOL); }
static ct_tensor *o_where(ct_tensor **in) { return ct_where(B(in[0]), in[1], in[2]); }
static ct_tensor *o_masked_fill(ct_tensor **in) { return ct_masked_fill(in[0], B(in[1]), 2.5); }
static ct_tensor *o_gather(ct_tensor **in) { return ct_gather(in[0], 1, in[1]); }
static ct_tensor *o_scatter(ct_tensor **in) { return ct_scatter(in[0], 1, in[1], in[2]); }
static ct_tensor *o_scatter_add(ct_tensor **in) { return ct_scatter_add(in[0], 1, in[1], in[2]); }
static ct_tensor *o_index_add(ct_tensor **in) { return ct_index_add(in[0], 0, in[1], in[2], 2.0); }
static ct_tensor *o_index_copy(ct_tensor **in) { return ct_index_copy(in[0], 0, in[1], in[2]); }
static ct_tensor *o_index_fill(ct_tensor **in) { return ct_index_fill(in[0], 1, in[1], -1.5); }
static ct_tensor *o_take(ct_tensor **in) { return ct_take(in[0], in[1]); }
static ct_tensor *o_masked_select(ct_tensor **in) { return ct_masked_select(in[0], B(in[1])); }
static ct_tensor *o_index(ct_tensor **in) { return ct_index(in[0], 1, in + 1); }
static ct_tensor *o_index_put(ct_tensor **in) { return ct_index_put(in[0], 1, in + 1, in[2], 0); }
static ct_tensor *o_index_put_acc(ct_tensor **in) { return ct_index_put(in[0], 1, in + 1, in[2], 1); }
static ct_tensor *o_nonzero(ct_tensor **in) { return ct_nonzero(in[0]); }
static ct_tensor *o_count_nonzero(ct_tensor **in) { int64_t d = 1; return ct_count_nonzero(in[0], 1, &d); }
static ct_tensor *o_prod(ct_tensor **in) { return ct_prod(in[0]); }
static ct_tensor *o_prod_dim(ct_tensor **in) { return ct_prod_dim(in[0], 1, 1); }
static ct_tensor *o_prod_zero(ct_tensor **in) { return ct_prod_dim(in[0], 1, 0); }
static ct_tensor *o_prod0(ct_tensor **in) { return ct_prod_dim(in[0], 0, 0); }
static ct_tensor *o_cumsum(ct_tensor **in) { return ct_cumsum(in[0], 1); }
static ct_tensor *o_cumprod(ct_tensor **in) { return ct_cumprod(in[0], 1); }
static ct_tensor *o_cumprod0(ct_tensor **in) { return ct_cumprod(in[0], 0); }
static ct_tensor *o_var(ct_tensor **in) { return ct_var(in[0]); }
static ct_tensor *o_var_dim(ct_tensor **in) { int64_t d = 0; return ct_var_dims(in[0], 1, &d, 0.0, 0); }
static ct_tensor *o_std_dim(ct_tensor **in) { int64_t d = 1; return ct_std_dims(in[0], 1, &d, 1.0, 1); }
static ct_tensor *o_norm2(ct_tensor **in) { return ct_norm(in[0], 2.0, 0, NULL, 0); }
static ct_tensor *o_norm1_dim(ct_tensor **in) { int64_t d = 1; return ct_norm(in[0], 1.0, 1, &d, 0); }
static ct_tensor *o_norminf_dim(ct_tensor **in) { int64_t d = 0; return ct_norm(in[0], INFINITY, 1, &d, 0); }
static ct_tensor *o_dot(ct_tensor **in) { return ct_dot(in[0], in[1]); }
static ct_tensor *o_vdot(ct_tensor **in) { return ct_vdot(in[0], in[1]); }
static ct_tensor *o_lerp(ct_tensor **in) { return ct_lerp(in[0], in[1], in[2]); }
static ct_tensor *o_addcmul(ct_tensor **in) { return ct_addcmul(in[0], in[1], in[2], -0.5); }
static ct_tensor *o_addcdiv(ct_tensor **in) { return ct_addcdiv(in[0], in[1], in[2], 2.0); }
static ct_tensor *o_isclose(ct_tensor **in) { return ct_isclose(in[0], in[1], 1e-3, 1e-5, 0); }
static ct_tensor *o_tril(ct_tensor **in) { return ct_tril(in[0], 0); }
static ct_tensor *o_triu1(ct_tensor **in) { return ct_triu(in[0], 1); }
static ct_tensor *o_diag(ct_tensor **in) { return ct_diag(in[0], 1); }
static ct_tensor *o_diag_embed(ct_tensor **in) { return ct_diag_embed(in[0], 0, -2, -1); }
static ct_tensor *o_pad(ct_tensor **in) { int64_t p[2] = {1, 2}; return ct_pad(in[0], 2, p, "constant", 1.5); }
static ct_tensor *o_pow(ct_tensor **in) { return ct_pow(in[0], in[1]); }
static ct_tensor *o_logical_not(ct_tensor **in) { return ct_logical_not(in[0]); }
static ct_tensor *o_logical_xor(ct_tensor **in) { return ct_logical_xor(in[0], in[1]); }
static ct_tensor *o_any_dim(ct_tensor **in) { return ct_any_dim(in[0], 1, 0); }
static ct_tensor *o_all(ct_tensor **in) { return ct_all(in[0]); }
static ct_tensor *o_addmm(ct_tensor **in) { return ct_addmm(in[0], in[1], in[2], 0.5, 2.0); }
static ct_tensor *o_mv(ct_tensor **in) { return ct_mv(in[0], in[1]); }
static ct_tensor *o_baddbmm(ct_tensor **in) { return ct_baddbmm(in[0], in[1], in[2], 0.0, -1.0); }
static ct_tensor *o_silu(ct_tensor **in) { return ct_silu(in[0]); }
static ct_tensor *o_rpow(ct_tensor **in) { return ct_rpow_scalar(2.5, in[0]); }
static ct_tensor *o_lerp_s(ct_tensor **in) { return ct_lerp_scalar(in[0], in[1], 0.3); }
static ct_tensor *o_lerp_s_hi(ct_tensor **in) { return ct_lerp_scalar(in[0], in[1], 0.7); }
static ct_tensor *o_lerp_s_(ct_tensor **in) { return ct_lerp_scalar_(ct_clone(in[0]), in[1], 0.3); }
static ct_tensor *o_addcmul_(ct_tensor **in) { return ct_addcmul_(ct_clone(in[0]), in[1], in[2], -0.5); }
static ct_tensor *o_addcdiv_(ct_tensor **in) { return ct_addcdiv_(ct_clone(in[0]), in[1], in[2], 2.0); }
static ct_tensor *o_sum_c128(ct_tensor **in) { int64_t d = 1; return ct_sum_dtype(in[0], 1, &d, 0, CT_COMPLEX128); }
static ct_tensor *o_mean_c128(ct_tensor **in) { int64_t d = 0; return ct_mean_dtype(in[0], 1, &d, 0, CT_COMPLEX128); }
static ct_tensor *o_pad_reflect(ct_tensor **in) { int64_t p[2] = {2, 1}; return ct_pad(in[0], 2, p, "reflect", 0.0); }
static ct_tensor *o_pad_replicate(ct_tensor **in) { int64_t p[4] = {1, 2, 2, 0}; return ct_pad(in[0], 4, p, "replicate", 0.0); }
/* name, function, inputs, which inputs are complex (bit i) */
static const struct { const char *name; op2_fn f; int nin; unsigned cx; } OP2[] = {
    {"where", o_where, 3, 6}, {"where_mixed", o_where, 3, 2}, {"masked_fill", o_masked_fill, 2, 1}, {"gather", o_gather, 2, 1},
    {"scatter", o_scatter, 3, 5}, {"scatter_add", o_scatter_add, 3, 5}, {"index_add", o_index_add, 3, 5},
    {"index_copy", o_index_copy, 3, 5}, {"index_fill", o_index_fill, 2, 1}, {"take", o_take, 2, 1},
    {"masked_select", o_masked_select, 2, 1}, {"index", o_index, 2, 1}, {"index_put", o_index_put, 3, 5},
    {"index_put_acc", o_index_put_acc, 3, 5}, {"nonzero", o_nonzero, 1, 1}, {"count_nonzero", o_count_nonzero, 1, 1},
    {"prod", o_prod, 1, 1}, {"prod_dim", o_prod_dim, 1, 1}, {"prod_zero", o_prod_zero, 1, 1}, {"cumsum", o_cumsum, 1, 1},
    {"cumprod", o_cumprod, 1, 1}, {"cumprod0", o_cumprod0, 1, 1}, {"var", o_var, 1, 1}, {"var_dim", o_var_dim, 1, 1},
    {"std_dim", o_std_dim, 1, 1}, {"norm2", o_norm2, 1, 1}, {"norm1_dim", o_norm1_dim, 1, 1}, {"norminf_dim", o_norminf_dim, 1, 1},
    {"dot", o_dot, 2, 3}, {"vdot", o_vdot, 2, 3}, {"lerp", o_lerp, 3, 7}, {"addcmul", o_addcmul, 3, 7}, {"addcdiv", o_addcdiv, 3, 7},
    {"isclose", o_isclose, 2, 3}, {"tril", o_tril, 1, 1}, {"triu1", o_triu1, 1, 1}, {"diag", o_diag, 1, 1},
    {"diag_embed", o_diag_embed, 1, 1}, {"pad", o_pad, 1, 1}, {"where_c64", o_where, 3, 6}, {"gather_c64", o_gather, 2, 1},
    {"prod_c64", o_prod0, 1, 1}, {"index_put_acc_c64", o_index_put_acc, 3, 5}, {"pow", o_pow, 2, 3}, {"pow_zero", o_pow, 2, 3},
    {"logical_not", o_logical_not, 1, 1}, {"logical_xor", o_logical_xor, 2, 3}, {"any_dim", o_any_dim, 1, 1}, {"all", o_all, 1, 1},
    {"addmm", o_addmm, 3, 7}, {"mv", o_mv, 2, 3}, {"baddbmm", o_baddbmm, 3, 7},
    {"silu", o_silu, 1, 1}, {"silu_c64", o_silu, 1, 1}, {"rpow", o_rpow, 1, 1}, {"lerp_scalar", o_lerp_s, 2, 3},
    {"lerp_scalar_hi", o_lerp_s_hi, 2, 3}, {"lerp_scalar_", o_lerp_s_, 2, 3}, {"addcmul_", o_addcmul_, 3, 7},
    {"addcdiv_", o_addcdiv_, 3, 7}, {"sum_c64_to_c128", o_sum_c128, 1, 1}, {"mean_real_to_c128", o_mean_c128, 1, 0},
    {"pad_reflect", o_pad_reflect, 1, 1}, {"pad_replicate2d", o_pad_replicate, 1, 1},
};
TEST(test_ops_fixtures) {
    for (size_t k = 0; k < sizeof OP2 / sizeof OP2[0]; k++) {
        char nm[96];
        ct_tensor *in[3] = {NULL, NULL, NULL};
        int diff[3] = {0, 0, 0}, ok = 1;
        for (int i = 0; i < OP2[k].nin; i++) {
            snprintf(nm, sizeof nm, "op2.%s.in%d", OP2[k].name, i);
            in[i] = (OP2[k].cx >> i) & 1u ? fixc(nm) : fix(nm);
            ok &= in[i] != NULL;
            snprintf(nm, sizeof nm, "op2.%s.g%d", OP2[k].name, i);
            diff[i] = ct_safetensors_get(fx, nm) != NULL;
            if (in[i] && diff[i]) in[i] = ct_requires_grad(ct_clone(in[i]));
        }
        ct_clear_error();
        if (!ok) continue;
        snprintf(nm, sizeof nm, "op2.%s.out", OP2[k].name);
        ct_tensor *want = fix(nm), *got = OP2[k].f(in);
        CT_T_REPORT(got != NULL, "%s: %s", OP2[k].name, ct_last_error());
        if (!got || !want) continue;
        int c64 = strstr(OP2[k].name, "c64") != NULL;
        if (ct_get_dtype(want) == CT_INT64) {
            CT_T_REPORT(eq1(ct_to(got, CT_INT64), want), "%s: values differ from PyTorch's", OP2[k].name);
            continue;
        }
        CHECK(ct_dtype_is_complex(ct_get_dtype(got)) == (ct_ndim(want) > 0 && ct_numel(want) == 2 * ct_numel(got)));
        compare(OP2[k].name, got, want, NULL, c64 ? 2e-6 : 1e-12);
        snprintf(nm, sizeof nm, "op2.%s.w", OP2[k].name);
        ct_tensor *w = ct_safetensors_get(fx, nm);
        if (!w) { ct_clear_error(); continue; }
        ct_tensor *L = ct_sum(ct_mul(ct_dtype_is_complex(ct_get_dtype(got)) ? ct_view_as_real(got) : got, w));
        CT_T_REPORT(L && ct_backward(L) == 0, "%s backward: %s", OP2[k].name, ct_last_error());
        for (int i = 0; i < OP2[k].nin; i++) {
            if (!diff[i]) continue;
            char what[96];
            snprintf(nm, sizeof nm, "op2.%s.g%d", OP2[k].name, i);
            snprintf(what, sizeof what, "%s grad %d", OP2[k].name, i);
            ct_tensor *gw = fix(nm), *gg = ct_grad(in[i]);
            CHECK(gg && ct_get_dtype(gg) == ct_get_dtype(in[i]));
            compare(what, gg, gw, NULL, 1e-11);
        }
    }
    /* errors keep PyTorch's messages */
    ct_tensor *z = fixc("op2.gather.in0"), *ix = fix("op2.gather.in1");
    CHECK_ERR(ct_gather(z, 1, ct_add_scalar(ix, 4)), CT_ERR_INDEX, "gather: index 4 is out of bounds for dimension 1 with size 4");
    CHECK_ERR(ct_gather(z, 1, ct_unsqueeze(ix, 0)), CT_ERR_SHAPE, "gather: Index tensor must have the same number of dimensions");
    CHECK_ERR(ct_scatter_reduce(z, 1, ix, z, "amax", 1), CT_ERR_DTYPE, "scatter_reduce");
    CHECK_ERR(ct_where(ct_ones(CT_FLOAT32, 3, 4), z, z), CT_ERR_DTYPE, "where: expected condition to be a boolean tensor");
    CHECK_ERR(ct_dot(z, z), CT_ERR_SHAPE, "dot");
    CHECK_ERR(ct_vdot(ct_select(z, 0, 0), ct_select(ct_to(z, CT_COMPLEX64), 0, 0)), CT_ERR_DTYPE, "vdot");
    CHECK_ERR(ct_cumprod(z, 2), CT_ERR_INDEX, "cumprod: Dimension out of range");
    int64_t d22[2] = {1, 1};
    CHECK_ERR(ct_prod_dtype(z, 2, d22, 0, CT_COMPLEX128), CT_ERR_ARG, "dim 1 appears multiple times");
    CHECK_ERR(ct_take(z, ct_full(CT_INT64, 12.0, 1)), CT_ERR_INDEX, "take");
    /* nan_to_num on each part (PyTorch 2's; 1.13 refuses complex) */
    double sp[8] = {NAN, INFINITY, -INFINITY, 1, 2, 0, 1, NAN}, ex[8] = {0.5, 9, -9, 1, 2, 0, 1, 0.5};
    CHECK(eq1(ct_nan_to_num(ct_view_as_complex(ct_from_data(sp, CT_FLOAT64, 4, 2)), 0.5, 9.0, -9.0), ct_view_as_complex(ct_from_data(ex, CT_FLOAT64, 4, 2))));
    /* torch.randn / torch.rand of complex dtypes: PyTorch's numbers for a seed */
    ct_manual_seed(3);
    ct_tensor *rn = ct_randn(CT_COMPLEX64, 2, 3), *ru = ct_rand(CT_COMPLEX128, 2, 3);
    CHECK(rn && ct_get_dtype(rn) == CT_COMPLEX64 && ru && ct_get_dtype(ru) == CT_COMPLEX128);
    compare("randn complex64", rn, fix("rnd.randn_c64"), NULL, 1e-6);
    compare("rand complex128", ru, fix("rnd.rand_c128"), NULL, 1e-15);
    /* linspace of a complex dtype (real ends): the real linspace's values, imaginary parts 0 */
    CHECK(eq1(ct_linspace(-1.0, 2.0, 7, CT_COMPLEX64), ct_to(ct_linspace(-1.0, 2.0, 7, CT_FLOAT32), CT_COMPLEX64)));
    /* in place into a leaf that requires grad: PyTorch's refusal */
    ct_tensor *leaf = ct_requires_grad(ct_clone(z));
    CHECK_ERR(ct_addcmul_(leaf, z, z, 1.0), CT_ERR_AUTOGRAD, "a leaf Variable that requires grad");
    CHECK_ERR(ct_lerp_scalar(z, ct_ones(CT_FLOAT64, 5), 0.5), CT_ERR_SHAPE, "lerp");
    /* complex64 keeps its dtype through every one */
    ct_tensor *z64 = ct_to(z, CT_COMPLEX64);
    CHECK(ct_get_dtype(ct_prod(z64)) == CT_COMPLEX64 && ct_get_dtype(ct_cumsum(z64, 0)) == CT_COMPLEX64);
    CHECK(ct_get_dtype(ct_var(z64)) == CT_FLOAT32 && ct_get_dtype(ct_norm(z64, 2.0, 0, NULL, 0)) == CT_FLOAT32);
}

/* for gradcheck: in-place ops into a conjugate view of an intermediate, then a view
   of the base read after them */
static ct_tensor *conj_inplace_fn(ct_tensor *const *in, void *user) {
    (void)user;
    ct_tensor *y = ct_mul_scalar(in[0], 1.0), *v = ct_conj(y);
    if (!ct_mul_(ct_select(v, 0, 1), ct_select(in[1], 0, 0)) || !ct_sub_(v, ct_exp(in[0]))) return NULL;
    return ct_add(ct_mul(y, in[1]), ct_select(v, 0, 1));
}

/* ct_conj: PyTorch's lazy conjugate (a view with the conjugate bit) */
TEST(test_lazy_conj) {
    double re[6] = {1, 2, 3, 4, 5, 6}, im[6] = {-1, 0.5, 2, 0, 1, -3};
    ct_tensor *a = ct_complex(ct_from_data(re, CT_FLOAT64, 2, 3), ct_from_data(im, CT_FLOAT64, 2, 3));
    ct_tensor *c = ct_conj(a), *want = ct_conj_physical(a);
    CHECK(ct_is_conj(c) == 1 && ct_is_conj(a) == 0 && ct_is_conj(want) == 0);
    CHECK(ct_data_ptr(c) == ct_data_ptr(a));                  /* a view: no copy */
    CHECK(eq1(c, want) && eq1(ct_resolve_conj(c), want) && !ct_is_conj(ct_resolve_conj(c)));
    CHECK(ct_is_conj(ct_conj(c)) == 0 && eq1(ct_conj(c), a));  /* conj of conj: the memory again */
    ct_tensor *tc = ct_t(c);                                   /* views keep the bit */
    CHECK(ct_is_conj(tc) == 1 && eq1(tc, ct_t(want)) && ct_is_conj(ct_select(c, 0, 1)) == 1);
    CHECK(eq1(ct_real(c), ct_real(a)) && eq1(ct_imag(c), ct_neg(ct_imag(a))));
    ct_tensor *h = ct_mH(a);                                   /* the conjugate transpose: a lazy view */
    CHECK(h && ct_is_conj(h) && ct_data_ptr(h) == ct_data_ptr(a) && eq1(h, ct_t(want)) && eq1(ct_adjoint(a), h));
    CHECK(ct_mH(ct_randn(CT_FLOAT64, 2, 3)) && !ct_is_conj(ct_mH(ct_randn(CT_FLOAT64, 2, 3))));
    CHECK_ERR(ct_mH(ct_randn(CT_FLOAT64, 3)), CT_ERR_ARG, "tensor.mH is only supported on matrices or batches of matrices. Got 1-D tensor.");
    CHECK_ERR(ct_adjoint(a ? ct_select(a, 0, 0) : NULL), CT_ERR_ARG, "adjoint() is only supported on matrices");
    CHECK(eq1(ct_mul(c, a), ct_mul(want, a)) && eq1(ct_matmul(c, ct_t(a)), ct_matmul(want, ct_t(a))));
    int64_t one = 1;
    CHECK(eq1(ct_flip(c, 1, &one), ct_flip(want, 1, &one)) && eq1(ct_cat(2, (ct_tensor *[]){c, a}, 0), ct_cat(2, (ct_tensor *[]){want, a}, 0)));
    CHECK(ct_item(ct_imag(ct_select(ct_select(c, 0, 0), 0, 0))) == 1.0);
    CHECK(ct_equal(ct_detach(c), want) == 1 && ct_is_conj(ct_detach(c)));
    char buf[512];
    ct_repr(c, buf, sizeof buf);
    CHECK(strstr(buf, "[1.+1.0000j, 2.-0.5000j, 3.-2.0000j]") != NULL);
    ct_tensor *r = ct_randn(CT_FLOAT32, 3);
    CHECK(ct_is_conj(ct_conj(r)) == 0 && ct_data_ptr(ct_conj(r)) == ct_data_ptr(r));   /* real: a plain view */
    /* PyTorch's refusals: view_as_real, DLPack */
    CHECK_ERR(ct_view_as_real(c), CT_ERR_ARG, "view_as_real doesn't work on unresolved conjugated tensors");
    CHECK_ERR(ct_to_dlpack(c) ? c : NULL, CT_ERR_ARG, "conjugate bit");
    /* in place into a conjugate view writes conj(result) into the memory, as PyTorch */
    ct_tensor *b = ct_clone(a), *cb = ct_conj(b);
    CHECK(ct_add_(cb, a) == cb && ct_is_conj(cb));
    CHECK(eq1(cb, ct_add(want, a)) && eq1(b, ct_conj_physical(ct_add(want, a))));
    CHECK(ct_fill_(cb, 2.0) == cb && eq1(b, ct_full_complex(CT_COMPLEX128, 2.0, -0.0, 2, 3)));
    ct_tensor *g = ct_requires_grad(ct_clone(a)), *cg = ct_conj(g);
    CHECK_ERR(ct_mul_(cg, a), CT_ERR_AUTOGRAD, "mul: a view of a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK(eq1(g, a));   /* nothing written */
    /* with autograd (PyTorch's): y = x * 1; v = y.conj(); v.mul_(w); v.add_(1) leaves
       y = x conj(w) + 1 and v its conjugate; both histories lead back to x and w */
    ct_tensor *xin[2] = {ct_requires_grad(ct_clone(a)), ct_requires_grad(ct_full_complex(CT_COMPLEX128, 0.5, -1.5, 2, 3))};
    ct_tensor *y = ct_mul_scalar(xin[0], 1.0), *v = ct_conj(y);
    CHECK(ct_mul_(v, xin[1]) == v && ct_add_scalar_(v, 1.0) == v && ct_is_conj(v));
    ct_tensor *ywant = ct_add_scalar(ct_mul(xin[0], ct_conj_physical(xin[1])), 1.0);
    CHECK(eq1(y, ywant) && eq1(v, ct_conj_physical(ywant)));
    ct_tensor *u = ct_full_complex(CT_COMPLEX128, 2.0, 0.25, 2, 3);
    ct_tensor *Ly = ct_sum(ct_real(ct_mul(ct_add(y, ct_mul_scalar(v, 3.0)), u)));
    CHECK(Ly && ct_backward(Ly) == 0);
    /* the same function written without the lazy conjugate */
    ct_tensor *x2[2] = {ct_requires_grad(ct_clone(a)), ct_requires_grad(ct_full_complex(CT_COMPLEX128, 0.5, -1.5, 2, 3))};
    ct_tensor *y2 = ct_add_scalar(ct_mul(x2[0], ct_conj_physical(x2[1])), 1.0);
    ct_tensor *L2 = ct_sum(ct_real(ct_mul(ct_add(y2, ct_mul_scalar(ct_conj_physical(y2), 3.0)), u)));
    CHECK(L2 && ct_backward(L2) == 0);
    CHECK(ct_grad(xin[0]) && eq1(ct_grad(xin[0]), ct_grad(x2[0])) && ct_grad(xin[1]) && eq1(ct_grad(xin[1]), ct_grad(x2[1])));
    CHECK(ct_gradcheck(conj_inplace_fn, NULL, 2, xin, NULL) == 1);
    /* autograd: d/dx sum(re(conj(x) * w)) = conj(conj(w)) = w, as PyTorch */
    ct_tensor *w = ct_full_complex(CT_COMPLEX128, 1.0, 2.0, 2, 3);
    ct_tensor *L = ct_sum(ct_real(ct_mul(ct_conj(g), w)));
    CHECK(L && ct_backward(L) == 0 && ct_grad(g) && !ct_is_conj(ct_grad(g)) && eq1(ct_grad(g), w));
    /* saving a conjugate view saves its values */
    void *mem = NULL;
    size_t len = 0;
    CHECK(ct_save_npy_mem(c, &mem, &len) == CT_OK);
    ct_tensor *back = mem ? ct_load_npy_mem(mem, len, "mem") : NULL;
    CHECK(back && eq1(back, want));
    ct_free(mem);
}

TEST(test_printing) {
    for (int i = 0; i < 9; i++) {
        char key[32];
        snprintf(key, sizeof key, "repr.%d", i);
        const char *want = ct_safetensors_metadata(fx, key);
        ct_tensor *t = fix(key);
        if (t && ct_ndim(t) > 0 && ct_size(t, ct_ndim(t) - 1) == 2) t = ct_view_as_complex(ct_contiguous(t));
        else if (t && ct_numel(t) == 0) t = ct_empty(CT_COMPLEX64, 0);
        else if (t && ct_ndim(t) == 1) t = ct_view_as_complex(t);
        CT_T_REPORT(want != NULL, "metadata %s missing", key);
        if (want && t) CHECK_REPR(t, want);
    }
}

TEST(test_io) {
    char dir[] = "/tmp/ct_complex_XXXXXX", path[256];
    CT_T_REPORT(mkdtemp(dir) != NULL, "mkdtemp");
    ct_tensor *z = fixc("grad.exp.x"), *z64 = ct_to(z, CT_COMPLEX64);
    snprintf(path, sizeof path, "%s/z.npy", dir);
    CHECK(ct_save_npy(path, z) == CT_OK);
    ct_tensor *b = ct_load_npy(path);
    CHECK(b && ct_get_dtype(b) == CT_COMPLEX128 && eq1(b, z));
    void *mem = NULL;
    size_t len = 0;
    CHECK(ct_save_npy_mem(z64, &mem, &len) == CT_OK && mem && strstr((const char *)mem + 10, "'<c8'"));
    ct_tensor *b64 = mem ? ct_load_npy_mem(mem, len, "mem") : NULL;
    CHECK(b64 && ct_get_dtype(b64) == CT_COMPLEX64 && eq1(b64, z64));
    ct_free(mem);
    remove(path);
    /* safetensors: complex64 as C64, complex128 as C128 (ctensor's; F64 pairs) */
    const char *names[2] = {"z", "z64"};
    const ct_tensor *ts[2] = {z, z64};
    snprintf(path, sizeof path, "%s/z.safetensors", dir);
    CHECK(ct_save_safetensors_n(path, 2, names, ts, 0, NULL, NULL) == CT_OK);
    ct_safetensors *st = ct_safetensors_load(path);
    CHECK(st != NULL);
    if (st) {
        ct_tensor *a = ct_safetensors_get(st, "z"), *a64 = ct_safetensors_get(st, "z64");
        CHECK(a && ct_get_dtype(a) == CT_COMPLEX128 && eq1(a, z));
        CHECK(a64 && ct_get_dtype(a64) == CT_COMPLEX64 && eq1(a64, z64));
        ct_safetensors_free(st);
    }
    /* the header names them C128 and C64 */
    FILE *fp = fopen(path, "rb");
    char head[512] = {0};
    if (fp) { CHECK(fread(head, 1, sizeof head - 1, fp) > 8); fclose(fp); }
    CHECK(strstr(head + 8, "\"dtype\":\"C128\"") && strstr(head + 8, "\"dtype\":\"C64\""));
    remove(path);
    rmdir(dir);
}

TEST(test_bad_input) {
    ct_tensor *f = ct_randn(CT_FLOAT32, 4), *d = ct_randn(CT_FLOAT64, 4), *z = ct_to(f, CT_COMPLEX64);
    CHECK_ERR(ct_view_as_real(f), CT_ERR_DTYPE, "view_as_real: view_as_real is only supported for complex tensors (got Float)");
    CHECK_ERR(ct_view_as_real(NULL), CT_ERR_NULL, "view_as_real");
    CHECK_ERR(ct_view_as_complex(ct_randn(CT_FLOAT32, 4, 3)), CT_ERR_SHAPE, "view_as_complex: Tensor must have a last dimension of size 2 (got shape [4, 3])");
    CHECK_ERR(ct_view_as_complex(ct_t(ct_randn(CT_FLOAT32, 2, 2))), CT_ERR_SHAPE, "view_as_complex: Tensor must have a last dimension with stride 1");
    int64_t sh[2] = {3, 2}, st[2] = {2, 1};
    CHECK_ERR(ct_view_as_complex(ct_as_strided(ct_randn(CT_FLOAT32, 8), 2, sh, st, 1)), CT_ERR_SHAPE, "storage_offset divisible by 2");
    CHECK_ERR(ct_view_as_complex(ct_ones(CT_INT64, 2)), CT_ERR_DTYPE, "only supported for float and double tensors, but got a tensor of scalar type: Long");
    CHECK_ERR(ct_imag(f), CT_ERR_DTYPE, "imag: imag is not implemented for tensors with non-complex dtypes.");
    CHECK_ERR(ct_real(NULL), CT_ERR_NULL, "real");
    CHECK_ERR(ct_complex(f, d), CT_ERR_DTYPE, "complex: Expected object of scalar type Float but got scalar type Double for second argument");
    CHECK_ERR(ct_complex(ct_ones(CT_INT64, 2), ct_ones(CT_INT64, 2)), CT_ERR_DTYPE, "complex: Expected both inputs to be Float or Double tensors but got Long and Long");
    CHECK_ERR(ct_complex(f, ct_randn(CT_FLOAT32, 3)), CT_ERR_SHAPE, "complex");
    CHECK_ERR(ct_polar(f, ct_randn(CT_FLOAT32, 3)), CT_ERR_SHAPE, "polar");
    CHECK_ERR(ct_polar(z, z), CT_ERR_DTYPE, "polar: Expected both inputs to be Float or Double tensors but got ComplexFloat");
    CHECK_ERR(ct_conj(NULL), CT_ERR_NULL, "conj");
    CHECK_ERR(ct_conj_physical(NULL), CT_ERR_NULL, "conj");
    CHECK_ERR(ct_resolve_conj(NULL), CT_ERR_NULL, "resolve_conj");
    CHECK_ERR(ct_mH(NULL), CT_ERR_NULL, "transpose");
    CHECK(ct_is_conj(NULL) == 0);
    CHECK_ERR(ct_full_complex(CT_FLOAT32, 1, 2, 3), CT_ERR_DTYPE, "full_complex: dtype must be complex64 or complex128 (got float32)");
    CHECK_ERR(ct_full_complex(CT_COMPLEX64, 1, 2, -3), CT_ERR_ARG, "full");
    CHECK_ERR(ct_relu(z), CT_ERR_DTYPE, "relu: not implemented for 'ComplexFloat'");
    CHECK_ERR(ct_arange(0, 3, 1, CT_COMPLEX64), CT_ERR_DTYPE, "arange: not implemented for 'ComplexFloat'");
    CHECK_ERR(ct_sgn(NULL), CT_ERR_NULL, "sgn");
    CHECK_ERR(ct_angle(NULL), CT_ERR_NULL, "angle");
    CHECK_ERR(ct_sign(z), CT_ERR_DTYPE, "sign: not implemented for 'ComplexFloat'");
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "tests/fixtures/complex/complex.safetensors";
    ct_t_init();
    fx = ct_safetensors_load(path);
    CT_T_REPORT(fx != NULL, "cannot load %s: %s", path, ct_last_error());
    if (fx) {
        RUN(test_unary_fixtures);
        RUN(test_binary_fixtures);
        RUN(test_scalars_and_reductions);
        RUN(test_gradients);
        RUN(test_printing);
        RUN(test_predicates);
        RUN(test_data_movement);
        RUN(test_matmul);
        RUN(test_ops_fixtures);
        RUN(test_signal_fit);
        RUN(test_io);
    }
    RUN(test_gradcheck);
    RUN(test_gradcheck_complex_inputs);
    RUN(test_views_and_creation);
    RUN(test_lazy_conj);
    RUN(test_bad_input);
    ct_safetensors_free(fx);
    return ct_t_summary();
}
