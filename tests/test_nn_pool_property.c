/* test_nn_pool_property.c - every pooling path against a plain reference.
   Random configurations (fixed seed): max_pool2d (values, indices), avg_pool2d
   (count_include_pad, divisor_override), adaptive_avg_pool2d, max_pool1d and
   avg_pool1d over random shapes, kernel sizes, strides, padding, dilation and
   ceil_mode; contiguous, channels-last and strided (transposed) inputs, batched
   and unbatched; float32 and float64; ties, NaN and -inf among the values;
   forward and backward. A third of the configurations are the 2x2 stride-2 max
   pool that has its own fast path. The reference below follows PyTorch's
   definitions (aten/src/ATen/native/Pool.h pooling_output_shape,
   cpu/MaxPoolKernel.cpp, cpu/AvgPoolKernel.cpp, AdaptivePooling.h) one output
   element at a time, in double. */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int64_t ri(int64_t lo, int64_t hi) { return lo + (int64_t)(rng() % (uint64_t)(hi - lo + 1)); }
static double rn(void) {   /* roughly normal */
    double s = 0;
    for (int i = 0; i < 4; i++) s += (double)(rng() >> 11) / 9007199254740992.0;
    return (s - 2.0) * 1.7;
}

enum { P_MAX2D, P_AVG2D, P_ADAPTIVE, P_MAX1D, P_AVG1D, P_NUM };
static const char *const op_names[P_NUM] = {"max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "max_pool1d", "avg_pool1d"};
enum { L_CONTIG, L_CL, L_TRANSPOSED };
typedef struct pcfg {
    int op, batched, ceil, include_pad, layout, values;
    ct_dtype dt;
    int64_t N, C, H, W;            /* 1-d ops: H = 1 */
    int64_t k[2], s[2], p[2], d[2], div, oh, ow;
} pcfg;

static void describe(const pcfg *c, char *buf, size_t cap) {
    snprintf(buf, cap, "%s %s N=%lld C=%lld H=%lld W=%lld batched=%d layout=%d k=(%lld,%lld) s=(%lld,%lld) p=(%lld,%lld) d=(%lld,%lld) "
             "ceil=%d include_pad=%d div=%lld out=(%lld,%lld) values=%d",
             op_names[c->op], ct_dtype_name(c->dt), (long long)c->N, (long long)c->C, (long long)c->H, (long long)c->W, c->batched,
             c->layout, (long long)c->k[0], (long long)c->k[1], (long long)c->s[0], (long long)c->s[1], (long long)c->p[0],
             (long long)c->p[1], (long long)c->d[0], (long long)c->d[1], c->ceil, c->include_pad, (long long)c->div, (long long)c->oh,
             (long long)c->ow, c->values);
}

/* ---- the reference ---- */
/* PyTorch's pooling_output_shape */
static int64_t ref_out_size(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, int ceil) {
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t q = num >= 0 ? num / s : -((-num + s - 1) / s);
    int64_t out = q + 1;
    if (ceil && (out - 1) * s >= in + p) out--;
    return out;
}
/* one plane: x [H][W] -> y [OH][OW] (and the max index), dx [H][W] += the gradient of sum(y * gy) */
static void ref_plane(const pcfg *c, const double *x, const double *gy, double *y, int64_t *ind, double *dx) {
    int64_t H = c->H, W = c->W;
    for (int64_t oh = 0; oh < c->oh; oh++)
        for (int64_t ow = 0; ow < c->ow; ow++) {
            double *yo = &y[oh * c->ow + ow], g = gy[oh * c->ow + ow];
            if (c->op == P_MAX2D || c->op == P_MAX1D) {
                /* the window's elements in order; the first index is the window's first
                   position at or after 0 in each dim (PyTorch's, also for an empty window) */
                int64_t hs = oh * c->s[0] - c->p[0], ws = ow * c->s[1] - c->p[1], h0 = hs, w0 = ws;
                while (h0 < 0) h0 += c->d[0];
                while (w0 < 0) w0 += c->d[1];
                double m = -INFINITY;
                int64_t mi = h0 * W + w0;
                for (int64_t a = 0; a < c->k[0]; a++)
                    for (int64_t b = 0; b < c->k[1]; b++) {
                        int64_t ih = hs + a * c->d[0], iw = ws + b * c->d[1];
                        if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                        double v = x[ih * W + iw];
                        if (v > m || isnan(v)) { m = v; mi = ih * W + iw; }
                    }
                *yo = m;
                ind[oh * c->ow + ow] = mi;
                if (mi >= 0 && mi < H * W) dx[mi] += g;
            } else {
                int64_t h0, h1, w0, w1, div;
                if (c->op == P_ADAPTIVE) {
                    h0 = oh * H / c->oh; h1 = ((oh + 1) * H + c->oh - 1) / c->oh;
                    w0 = ow * W / c->ow; w1 = ((ow + 1) * W + c->ow - 1) / c->ow;
                    div = (h1 - h0) * (w1 - w0);
                } else {
                    h0 = oh * c->s[0] - c->p[0]; w0 = ow * c->s[1] - c->p[1];
                    h1 = h0 + c->k[0]; w1 = w0 + c->k[1];
                    if (h1 > H + c->p[0]) h1 = H + c->p[0];
                    if (w1 > W + c->p[1]) w1 = W + c->p[1];
                    int64_t padded = (h1 - h0) * (w1 - w0);
                    if (h0 < 0) h0 = 0;
                    if (w0 < 0) w0 = 0;
                    if (h1 > H) h1 = H;
                    if (w1 > W) w1 = W;
                    div = c->div ? c->div : c->include_pad ? padded : (h1 - h0) * (w1 - w0);
                }
                double s = 0;
                for (int64_t ih = h0; ih < h1; ih++)
                    for (int64_t iw = w0; iw < w1; iw++) {
                        s += x[ih * W + iw];
                        dx[ih * W + iw] += g / (double)div;
                    }
                *yo = h0 < h1 && w0 < w1 ? s / (double)div : 0.0;
            }
        }
}

/* ---- the library ---- */
static ct_tensor *make_input(const pcfg *c, const double *v) {
    int nd = (c->op == P_MAX1D || c->op == P_AVG1D) ? 3 : 4;
    int64_t shape[4] = {c->N, c->C, c->H, c->W};
    if (nd == 3) shape[2] = c->W;
    ct_tensor *x;
    if (c->layout == L_TRANSPOSED) {   /* the last two dims swapped in memory */
        int64_t bs[4], R = shape[nd - 2], S = shape[nd - 1], outer = c->N * c->C * c->H * c->W / (R * S);
        for (int d = 0; d < nd; d++) bs[d] = shape[d];
        bs[nd - 2] = S;
        bs[nd - 1] = R;
        double *t = (double *)malloc(sizeof(double) * (size_t)(outer * R * S));
        for (int64_t pl = 0; pl < outer; pl++)
            for (int64_t r = 0; r < R; r++)
                for (int64_t q = 0; q < S; q++) t[(pl * S + q) * R + r] = v[(pl * R + r) * S + q];
        x = ct_transpose(ct_to(ct_from_data_n(t, CT_FLOAT64, nd, bs), c->dt), nd - 2, nd - 1);
        free(t);
    } else {
        x = ct_to(ct_from_data_n(v, CT_FLOAT64, nd, shape), c->dt);
        if (c->layout == L_CL) x = ct_to_channels_last(x);
    }
    if (!c->batched) x = ct_select(x, 0, 0);
    return x;
}
static ct_tensor *call_op(const pcfg *c, ct_tensor *x, ct_tensor **ind) {
    ct_pool_options o;
    memset(&o, 0, sizeof o);
    o.ceil_mode = c->ceil;
    o.count_exclude_pad = !c->include_pad;
    o.divisor_override = c->div;
    switch (c->op) {
    case P_MAX2D: case P_AVG2D:
        for (int q = 0; q < 2; q++) {
            o.kernel_size_hw[q] = c->k[q];
            o.stride_hw[q] = c->s[q];
            o.padding_hw[q] = c->p[q];
            o.dilation_hw[q] = c->d[q];
        }
        return c->op == P_MAX2D ? ct_max_pool2d_with_indices(x, 0, &o, ind) : ct_avg_pool2d(x, 0, &o);
    case P_ADAPTIVE: return ct_adaptive_avg_pool2d(x, c->oh, c->ow);
    default:
        o.stride = c->s[1];
        o.padding = c->p[1];
        o.dilation = c->d[1];
        return c->op == P_MAX1D ? ct_max_pool1d(x, c->k[1], &o) : ct_avg_pool1d(x, c->k[1], &o);
    }
}
/* t's values (any dtype, any strides) in logical order, as doubles */
static double *values_of(const ct_tensor *t) {
    ct_tensor *d = ct_contiguous(ct_to(t, CT_FLOAT64));
    if (!d) return NULL;
    size_t n = (size_t)ct_numel(d);
    double *v = (double *)malloc(sizeof(double) * (n ? n : 1));
    memcpy(v, ct_data_ptr(d), sizeof(double) * n);
    return v;
}
static int close_to(double got, double want, double tol) {
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got)) return got == want;
    return fabs(got - want) <= tol * (1.0 + fabs(want));
}

static int n_errors;   /* configurations whose output size is < 1 (an error, as in PyTorch) */
/* runs one configuration; returns 1 when everything matched */
static int run_case(const pcfg *c0) {
    pcfg cfg = *c0, *c = &cfg;
    char what[512];
    int ok = 1;
    int64_t P = c->N * c->C, HW = c->H * c->W;
    if (c->op != P_ADAPTIVE) {
        c->oh = ref_out_size(c->H, c->k[0], c->p[0], c->s[0], c->d[0], c->ceil);
        c->ow = ref_out_size(c->W, c->k[1], c->p[1], c->s[1], c->d[1], c->ceil);
    }
    describe(c, what, sizeof what);
    double *v = (double *)malloc(sizeof(double) * (size_t)(P * HW));
    for (int64_t i = 0; i < P * HW; i++) {
        v[i] = c->values == 1 ? (double)ri(-2, 2) : rn();   /* 1: ties */
        if (c->values == 2 && ri(0, 9) == 0) v[i] = ri(0, 1) ? NAN : -INFINITY;
    }
    int scope = ct_scope_begin();
    ct_tensor *x = ct_requires_grad(ct_detach(make_input(c, v))), *ind = NULL;
    ct_clear_error();
    ct_tensor *y = call_op(c, x, c->op == P_MAX2D ? &ind : NULL);
    if (c->oh < 1 || c->ow < 1) {   /* PyTorch: "Output size is too small" */
        ok = !y && ct_last_error_code() == CT_ERR_SHAPE;
        n_errors++;
        if (!ok) printf("expected an error for %s\n", what);
        goto done;
    }
    if (!y) {
        printf("failed: %s: %s\n", what, ct_last_error());
        ok = 0;
        goto done;
    }
    {
        /* the reference, with x's values as the dtype holds them */
        double *xv = values_of(x);
        int64_t OL = c->oh * c->ow;
        double *gy = (double *)malloc(sizeof(double) * (size_t)(P * OL)), *yr = (double *)malloc(sizeof(double) * (size_t)(P * OL));
        double *dxr = (double *)calloc((size_t)(P * HW), sizeof(double));
        int64_t *ir = (int64_t *)malloc(sizeof(int64_t) * (size_t)(P * OL));
        for (int64_t i = 0; i < P * OL; i++) gy[i] = rn();
        int64_t gshape[4] = {c->N, c->C, c->oh, c->ow};
        int is1d = c->op == P_MAX1D || c->op == P_AVG1D, nd = is1d ? 3 : 4, off = c->batched ? 0 : 1;
        if (is1d) gshape[2] = c->ow;
        ct_tensor *gyt = ct_to(ct_from_data_n(gy, CT_FLOAT64, nd - off, gshape + off), c->dt);
        double *gyv = values_of(gyt);
        for (int64_t pl = 0; pl < P; pl++) ref_plane(c, xv + pl * HW, gyv + pl * OL, yr + pl * OL, ir + pl * OL, dxr + pl * HW);
        /* shape and memory format */
        int shape_ok = ct_ndim(y) == nd - off && ct_numel(y) == P * OL && ct_size(y, -1) == c->ow && (is1d || ct_size(y, -2) == c->oh);
        if (c->layout == L_CL && c->batched && c->C > 1 && c->H * c->W > 1) shape_ok &= ct_is_channels_last(y) && !ct_is_contiguous(y);
        if (!shape_ok) { printf("shape/format: %s\n", what); ok = 0; }
        /* values: max pools exactly, averages within the dtype's rounding */
        double tol = c->dt == CT_FLOAT32 ? 2e-6 : 1e-13;
        double *yv = shape_ok ? values_of(y) : NULL;
        for (int64_t i = 0; yv && i < P * OL; i++)
            if (!close_to(yv[i], yr[i], (c->op == P_MAX2D || c->op == P_MAX1D) ? 0.0 : tol)) {
                printf("value %lld: got %.17g, expected %.17g: %s\n", (long long)i, yv[i], yr[i], what);
                ok = 0;
                break;
            }
        if (ind && shape_ok) {
            ct_tensor *ic = ct_contiguous(ind);
            const int64_t *iv = (const int64_t *)ct_data_ptr(ic);
            int ind_ok = ct_get_dtype(ind) == CT_INT64 && ct_numel(ind) == P * OL;
            for (int64_t i = 0; ind_ok && i < P * OL; i++)
                if (iv[i] != ir[i]) {
                    printf("index %lld: got %lld, expected %lld: %s\n", (long long)i, (long long)iv[i], (long long)ir[i], what);
                    ind_ok = 0;
                }
            ok &= ind_ok;
        }
        /* backward of sum(y * gy) */
        if (shape_ok && ct_backward(ct_sum(ct_mul(y, gyt))) == CT_OK && ct_grad(x)) {
            double *dxv = values_of(ct_grad(x));
            for (int64_t i = 0; i < P * HW; i++)
                if (!close_to(dxv[i], dxr[i], 4 * tol)) {
                    printf("grad %lld: got %.17g, expected %.17g: %s\n", (long long)i, dxv[i], dxr[i], what);
                    ok = 0;
                    break;
                }
            free(dxv);
        } else if (shape_ok) {
            printf("backward failed: %s: %s\n", what, ct_last_error());
            ok = 0;
        }
        free(xv); free(gy); free(yr); free(dxr); free(ir); free(gyv); free(yv);
    }
done:
    ct_scope_end(scope);
    free(v);
    return ok;
}

static pcfg random_cfg(int t) {
    pcfg c;
    memset(&c, 0, sizeof c);
    c.op = (int)ri(0, P_NUM - 1);
    c.dt = ri(0, 1) ? CT_FLOAT32 : CT_FLOAT64;
    c.values = ri(0, 9) < 6 ? 0 : ri(0, 1) ? 1 : 2;
    c.batched = ri(0, 4) != 0;
    c.N = c.batched ? ri(1, 3) : 1;
    c.C = ri(1, 3);
    int is1d = c.op == P_MAX1D || c.op == P_AVG1D, ismax = c.op == P_MAX2D || c.op == P_MAX1D;
    for (int q = is1d ? 1 : 0; q < 2; q++) {
        c.k[q] = ri(1, 4);
        c.s[q] = ri(1, 3);
        c.p[q] = ri(0, c.k[q] / 2);
        c.d[q] = ismax ? ri(1, 3) : 1;
    }
    if (is1d) { c.k[0] = c.s[0] = c.d[0] = 1; c.p[0] = 0; }
    if (c.op == P_MAX2D && t % 3 == 0) {   /* the 2x2 stride-2 fast path */
        c.k[0] = c.k[1] = c.s[0] = c.s[1] = 2;
        c.p[0] = c.p[1] = 0;
        c.d[0] = c.d[1] = 1;
    }
    c.H = is1d ? 1 : ri(1, 12);
    c.W = ri(1, 13);
    c.ceil = (int)ri(0, 1);
    c.include_pad = (int)ri(0, 1);
    if (c.op == P_AVG2D && ri(0, 4) == 0) c.div = ri(1, 7);
    if (c.op == P_ADAPTIVE) { c.oh = ri(1, c.H + 2); c.ow = ri(1, c.W + 2); }
    c.layout = (int)ri(0, 2);
    if (c.layout == L_CL && (is1d || !c.batched)) c.layout = L_CONTIG;
    return c;
}

TEST(test_pool_property) {
    int nok = 0, n = 0;
    for (int t = 0; t < 600; t++) {
        pcfg c = random_cfg(t);
        int ok = run_case(&c);
        n++;
        nok += ok;
        CHECK(ok);
    }
    printf("pool property: %d of %d configurations match the reference (%d of them errors)\n", nok, n, n_errors);
}
/* planes large enough to run threaded in the optimized build */
TEST(test_pool_property_large) {
    for (int op = 0; op < 3; op++)
        for (int layout = 0; layout < 2; layout++) {
            pcfg c;
            memset(&c, 0, sizeof c);
            c.op = op;
            c.dt = layout ? CT_FLOAT64 : CT_FLOAT32;
            c.batched = 1;
            c.layout = layout;
            c.N = 2; c.C = 8; c.H = 63; c.W = 70;
            c.k[0] = c.k[1] = c.s[0] = c.s[1] = 2;
            c.d[0] = c.d[1] = 1;
            c.ceil = 1;
            c.include_pad = 1;
            c.oh = 9; c.ow = 11;
            CHECK(run_case(&c));
        }
}

int main(void) {
    ct_t_init();
    RUN(test_pool_property);
    RUN(test_pool_property_large);
    return ct_t_summary();
}
