/* Transformer encoder benchmarks (issue 11), each line timed like its twin
   bench/torch/transformer.py.

   A BERT-base encoder layer: ct_nn_transformer_encoder_layer(768, 12, dim_feedforward
   3072, batch_first), eval mode; input [8, 128, 768] float32 with a key padding mask
   (bool [8, 128], true at padding, left-aligned sequences).

   Padding levels 0 %, 50 % and 75 %. The lengths (the rule the twin uses too): mean
   m = 128 * (1 - padding), spread w = min(m / 2, 128 - m), and sequence i of 8 has
       len_i = m - w + floor(2 * w * i / 7 + 0.5)
   so 0 %: all 128; 50 %: 32 41 50 59 69 78 87 96 (mean 64); 75 %: 16 21 25 30 34 39 43
   48 (mean 32). Every case passes the mask, even at 0 % padding (all false).

   Cases, for relu and gelu, 1 and 2 threads (bench_set_threads), times per layer forward:
     layer_<act>_pad<P>_t<T>_regular   the composed path: ct_transformer_encoder_forward
           on the layer with ct_set_transformer_fastpath(0), under no grad
     layer_<act>_pad<P>_t<T>_fastpath  ct_transformer_encoder_forward on the layer with
           the mask, in inference mode: the fused kernels on the padded batch
     layer_<act>_pad<P>_t<T>_nested    ct_transformer_encoder_forward on a
           TransformerEncoder of that one layer with the mask, in inference mode: packs
           the real tokens, runs the fused layer on them, pads the result with zeros
     gemm_bound_pad<P>_t<T>            the layer's four GEMMs alone on the real tokens
           only (T = sum of lengths): ct_linear (one addmm each) for [T,768]x[768,2304],
           [T,768]x[768,768], [T,768]x[768,3072], [T,3072]x[3072,768]: the issue's
           "GEMM-bound limit" (the same for relu and gelu)
   bench/run.sh checks the targets: at each padding level (and activation, threads)
   the fastest of ctensor's three paths >= 1.2x faster than the fastest of PyTorch's,
   and gemm_bound / that fastest >= 0.9.

   Before timing, "# check:" lines compare the paths: the fastpath and the nested
   path against the regular path on the real tokens, zeros at the padded positions
   of the nested result, and ct_transformer_fastpath_why_not() after each fused call. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include <math.h>

enum { B = 8, S = 128, D = 768, H = 12, FF = 3072 };
static const int PADDINGS[] = {0, 50, 75};
static const char *const ACTS[] = {"relu", "gelu"};

static void lengths_for(int padding, int64_t *len) {
    double m = S * (100 - padding) / 100.0, w = m / 2 < S - m ? m / 2 : S - m;
    for (int i = 0; i < B; i++) len[i] = (int64_t)(m - w + floor(2 * w * i / (B - 1) + 0.5));
}

typedef struct {
    ct_module *layer, *enc;   /* enc: TransformerEncoder of one layer; layer: its layers.0 */
    ct_tensor *x, *mask;
    ct_tensor *gx, *gh, *w[4], *b[4];   /* gemm_bound: inputs on the real tokens, the layer's weights */
} job;

static void run_regular(void *u) {
    job *j = (job *)u;
    ct_set_transformer_fastpath(0);
    CT_SCOPE CT_NO_GRAD { ct_transformer_encoder_forward(j->layer, j->x, NULL, j->mask); }
    ct_set_transformer_fastpath(1);
}
/* The fused cases run in inference mode and, inside it, no grad: PyTorch's inference_mode
   turns grad mode off (torch.is_grad_enabled() is False there), ctensor's CT_INFERENCE_MODE
   leaves ct_is_grad_enabled() as it was, and the fastpath asks that (its condition "grad
   is enabled and ... requires_grad", with the layer's parameters requiring grad). */
static void run_fastpath(void *u) {
    job *j = (job *)u;
    CT_SCOPE CT_NO_GRAD CT_INFERENCE_MODE { ct_transformer_encoder_forward(j->layer, j->x, NULL, j->mask); }
}
static void run_nested(void *u) {
    job *j = (job *)u;
    CT_SCOPE CT_NO_GRAD CT_INFERENCE_MODE { ct_transformer_encoder_forward(j->enc, j->x, NULL, j->mask); }
}
static void run_gemms(void *u) {
    job *j = (job *)u;
    CT_SCOPE CT_INFERENCE_MODE {
        ct_linear(j->gx, j->w[0], j->b[0]);
        ct_linear(j->gx, j->w[1], j->b[1]);
        ct_linear(j->gx, j->w[2], j->b[2]);
        ct_linear(j->gh, j->w[3], j->b[3]);
    }
}

/* max |a - b| over the real tokens of [B, S, D] results (NAN when either is missing) */
static double max_diff(const ct_tensor *a, const ct_tensor *b, const int64_t *len) {
    if (!a || !b) return NAN;
    const float *p = (const float *)ct_data_ptr(a), *q = (const float *)ct_data_ptr(b);
    double e = 0;
    for (int i = 0; i < B; i++)
        for (int64_t k = 0; k < len[i] * D; k++) {
            double d = fabs((double)p[i * S * D + k] - q[i * S * D + k]);
            if (!(d <= e)) e = d;   /* NaN propagates */
        }
    return e;
}
/* max |a| over the padded positions */
static double max_at_padding(const ct_tensor *a, const int64_t *len) {
    if (!a) return NAN;
    const float *p = (const float *)ct_data_ptr(a);
    double e = 0;
    for (int i = 0; i < B; i++)
        for (int64_t k = len[i] * D; k < S * D; k++) {
            double d = fabs((double)p[i * S * D + k]);
            if (!(d <= e)) e = d;
        }
    return e;
}

/* Runs the three paths once and prints a "# check:" line; returns 1 when all agree. */
static int check(job *j, const char *act, int padding, const int64_t *len) {
    int ok = 1;
    CT_SCOPE {
        ct_tensor *reg = NULL, *fast = NULL, *nest = NULL;
        char why_reg[256], why_fast[256], why_nest[256];
        ct_set_transformer_fastpath(0);
        CT_NO_GRAD { reg = ct_contiguous(ct_transformer_encoder_forward(j->layer, j->x, NULL, j->mask)); }
        snprintf(why_reg, sizeof why_reg, "%s", ct_transformer_fastpath_why_not());
        ct_set_transformer_fastpath(1);
        CT_NO_GRAD CT_INFERENCE_MODE { fast = ct_contiguous(ct_transformer_encoder_forward(j->layer, j->x, NULL, j->mask)); }
        snprintf(why_fast, sizeof why_fast, "%s", ct_transformer_fastpath_why_not());
        CT_NO_GRAD CT_INFERENCE_MODE { nest = ct_contiguous(ct_transformer_encoder_forward(j->enc, j->x, NULL, j->mask)); }
        snprintf(why_nest, sizeof why_nest, "%s", ct_transformer_fastpath_why_not());
        if (!reg || !fast || !nest) printf("# check: %s pad %d%%: a path failed: %s\n", act, padding, ct_last_error());
        int shapes = nest && ct_numel(nest) == (int64_t)B * S * D && fast && ct_numel(fast) == (int64_t)B * S * D;
        double e_fast = shapes ? max_diff(fast, reg, len) : NAN, e_nest = shapes ? max_diff(nest, reg, len) : NAN;
        double pad0 = shapes ? max_at_padding(nest, len) : NAN;
        ok = reg && shapes && e_fast < 1e-4 && e_nest < 1e-4 && pad0 == 0 && !why_fast[0] && !why_nest[0] && why_reg[0];
        printf("# check: %s pad %d%% lengths", act, padding);
        for (int i = 0; i < B; i++) printf(" %lld", (long long)len[i]);
        printf(": fastpath - regular %.1e, nested - regular %.1e, nested at padding %g; why not fused: regular \"%s\","
               " fastpath \"%s\", nested \"%s\": %s\n", e_fast, e_nest, pad0, why_reg, why_fast, why_nest, ok ? "ok" : "WRONG");
    }
    return ok;
}

int main(void) {
    bench_begin("transformer");
    bench_set_threads(1);
    ct_manual_seed(0);
    int root = ct_scope_begin(), status = 0;
    job jobs[2];
    ct_tensor *x = ct_randn(CT_FLOAT32, B, S, D);
    for (int a = 0; a < 2; a++) {
        ct_transformer_layer_options lo = {.dim_feedforward = FF, .activation = ACTS[a], .batch_first = 1};
        ct_module *enc = ct_nn_transformer_encoder(ct_nn_transformer_encoder_layer(D, H, &lo), 1, NULL);
        jobs[a] = (job){.enc = enc, .layer = enc ? ct_module_child(enc, "layers.0") : NULL, .x = x};
        if (!jobs[a].layer) {
            printf("# transformer: FAILED to build the %s layer: %s\n", ACTS[a], ct_last_error());
            return 1;
        }
        ct_module_eval(enc);
        static const char *const wn[4][2] = {{"self_attn.in_proj_weight", "self_attn.in_proj_bias"},
                                             {"self_attn.out_proj.weight", "self_attn.out_proj.bias"},
                                             {"linear1.weight", "linear1.bias"},
                                             {"linear2.weight", "linear2.bias"}};
        for (int k = 0; k < 4; k++) {
            jobs[a].w[k] = ct_module_get(jobs[a].layer, wn[k][0]);
            jobs[a].b[k] = ct_module_get(jobs[a].layer, wn[k][1]);
        }
    }
    ct_tensor *masks[3];
    int64_t lens[3][B], tokens[3];
    for (int p = 0; p < 3; p++) {
        lengths_for(PADDINGS[p], lens[p]);
        static unsigned char m[B * S];
        tokens[p] = 0;
        for (int i = 0; i < B; i++) {
            tokens[p] += lens[p][i];
            for (int s = 0; s < S; s++) m[i * S + s] = s >= lens[p][i];
        }
        masks[p] = ct_from_data(m, CT_BOOL, B, S);
        for (int a = 0; a < 2; a++) {
            jobs[a].mask = masks[p];
            if (!check(&jobs[a], ACTS[a], PADDINGS[p], lens[p])) status = 1;
        }
    }
    fflush(stdout);
    static const int threads[] = {1, 2};
    for (int ti = 0; ti < 2; ti++) {
        bench_set_threads(threads[ti]);
        for (int p = 0; p < 3; p++) {
            char name[96], params[96];
            for (int a = 0; a < 2; a++) {
                job *j = &jobs[a];
                j->mask = masks[p];
                snprintf(params, sizeof params, "%s, %lld tokens of %d, composed", ACTS[a], (long long)tokens[p], B * S);
                snprintf(name, sizeof name, "layer_%s_pad%d_t%d_regular", ACTS[a], PADDINGS[p], threads[ti]);
                bench_run(name, params, run_regular, j);
                snprintf(params, sizeof params, "%s, %lld tokens of %d, fused padded", ACTS[a], (long long)tokens[p], B * S);
                snprintf(name, sizeof name, "layer_%s_pad%d_t%d_fastpath", ACTS[a], PADDINGS[p], threads[ti]);
                bench_run(name, params, run_fastpath, j);
                snprintf(params, sizeof params, "%s, %lld tokens of %d, fused nested", ACTS[a], (long long)tokens[p], B * S);
                snprintf(name, sizeof name, "layer_%s_pad%d_t%d_nested", ACTS[a], PADDINGS[p], threads[ti]);
                bench_run(name, params, run_nested, j);
            }
            job *g = &jobs[0];
            CT_SCOPE {
                g->gx = ct_retain(ct_randn(CT_FLOAT32, tokens[p], D));
                g->gh = ct_retain(ct_randn(CT_FLOAT32, tokens[p], FF));
            }
            snprintf(name, sizeof name, "gemm_bound_pad%d_t%d", PADDINGS[p], threads[ti]);
            snprintf(params, sizeof params, "4 addmm on %lld tokens", (long long)tokens[p]);
            bench_opts o = {0, 0, 2.0 * (double)tokens[p] * ((double)D * 3 * D + (double)D * D + 2.0 * D * FF), NULL};
            bench_run_opts(name, params, run_gemms, g, &o);
            ct_release(g->gx);
            ct_release(g->gh);
        }
    }
    for (int a = 0; a < 2; a++) ct_module_free(jobs[a].enc);
    ct_scope_end(root);
    return status;
}
