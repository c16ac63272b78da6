/* A BERT-base-sized encoder (nn.TransformerEncoder: 12 layers, d_model 768,
   12 heads, FFN 3072, gelu, a final LayerNorm) with weights exported from
   PyTorch, run three ways on a padded batch of 4 sequences (64, 40, 17 and 5
   tokens), each checked against PyTorch's output of the same path:
     regular   the composed, differentiable path (fastpath switched off)
     fastpath  the fused layer, layer by layer on the padded batch
     nested    the encoder packing the real tokens first (PyTorch's nested tensors):
               projections and feed-forward layers skip the padding
   Padded positions are checked too: the regular and fastpath outputs hold
   values there, the nested output holds the final norm's bias (zeros, normed).

   Build and run:   make bert     (the first run exports the weights: ~340 MB in build/bert)
   By hand:
     /usr/bin/python3 examples/torch_interop/export_encoder.py build/bert
     cc -std=c11 -O2 -march=native -fopenmp -DCTENSOR_OPENMP -I. examples/bert_encoder.c -o bert_encoder -lm -lpthread
     ./bert_encoder build/bert [threads]      (default 1 thread, as the export timed PyTorch) */
#define _POSIX_C_SOURCE 200809L
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LAYERS 12
#define TOLERANCE 1e-4   /* max |ctensor - PyTorch| */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The three paths. src [B, S, 768], mask [B, S] bool, true at padding. */
static ct_tensor *regular(ct_module *enc, const ct_tensor *src, const ct_tensor *mask) {
    ct_set_transformer_fastpath(0);
    ct_tensor *y = ct_transformer_encoder_forward(enc, src, NULL, mask);
    ct_set_transformer_fastpath(1);
    return y;
}
static ct_tensor *fastpath(ct_module *enc, const ct_tensor *src, const ct_tensor *mask) {
    ct_tensor *x = (ct_tensor *)src;
    for (int i = 0; i < LAYERS; i++) {
        char name[16];
        snprintf(name, sizeof name, "layers.%d", i);
        x = ct_transformer_encoder_forward(ct_module_child(enc, name), x, NULL, mask);
    }
    return ct_forward(ct_module_child(enc, "norm"), x);
}
static ct_tensor *nested(ct_module *enc, const ct_tensor *src, const ct_tensor *mask) {
    return ct_transformer_encoder_forward(enc, src, NULL, mask);
}

/* max |out - ref| over the real tokens (padding 0) or the padded positions (padding 1) */
static double max_error(const ct_tensor *out, const ct_tensor *ref, const ct_tensor *mask, int padding) {
    ct_tensor *skip = padding ? ct_logical_not(mask) : (ct_tensor *)mask;
    return ct_item(ct_max(ct_masked_fill(ct_abs(ct_sub(out, ref)), ct_unsqueeze(skip, -1), 0.0)));
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "build/bert";
    ct_set_num_threads(argc > 2 ? atoi(argv[2]) : 1);
    char weights[1024], io_path[1024];
    snprintf(weights, sizeof weights, "%s/encoder.safetensors", dir);
    snprintf(io_path, sizeof io_path, "%s/io.safetensors", dir);
    FILE *f = fopen(io_path, "rb");
    if (!f) {
        fprintf(stderr, "bert_encoder: %s not found; make the weights and PyTorch's outputs with\n"
                        "  /usr/bin/python3 examples/torch_interop/export_encoder.py %s\n(make bert does it too)\n", io_path, dir);
        return 1;
    }
    fclose(f);

    /* encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu",
                                       batch_first=True), 12, norm=nn.LayerNorm(768)) */
    ct_transformer_layer_options lo = {.dim_feedforward = 3072, .activation = "gelu", .batch_first = 1};
    int64_t d_model = 768;
    ct_module *enc = NULL;
    CT_SKIP_INIT {                          /* no random init: the weights are loaded next */
        enc = ct_nn_transformer_encoder(ct_nn_transformer_encoder_layer(d_model, 12, &lo), LAYERS,
                                        ct_nn_layer_norm(1, &d_model));
    }
    ct_safetensors *io = ct_safetensors_load(io_path);
    if (!enc || !io || ct_module_load_safetensors(enc, weights, 1) != CT_OK) {
        fprintf(stderr, "bert_encoder: %s\n", ct_last_error());
        return 1;
    }
    ct_module_eval(enc);

    static const struct { const char *name; ct_tensor *(*run)(ct_module *, const ct_tensor *, const ct_tensor *); } paths[] = {
        {"regular", regular}, {"fastpath", fastpath}, {"nested", nested}};
    int failed = 0;
    CT_INFERENCE_MODE CT_SCOPE {   /* torch.inference_mode(): the fastpath needs no gradient */
        ct_tensor *src = ct_safetensors_get(io, "src"), *mask = ct_safetensors_get(io, "mask");
        double real_tokens = ct_item(ct_sum(ct_safetensors_get(io, "lengths")));
        printf("BERT-base encoder, batch %lld x %lld tokens (%.0f real), %d thread(s)\n", (long long)ct_size(src, 0),
               (long long)ct_size(src, 1), real_tokens, ct_get_num_threads());
        for (int p = 0; p < 3; p++) CT_SCOPE {
            ct_tensor *out = paths[p].run(enc, src, mask);
            if (!out) fprintf(stderr, "%s: %s\n", paths[p].name, ct_last_error());
            ct_tensor *ref = ct_safetensors_get(io, paths[p].name);
            double valid = max_error(out, ref, mask, 0), padded = max_error(out, ref, mask, 1);
            double best = 1e30;
            for (int rep = 0; rep < 3 && out; rep++) CT_SCOPE {
                double t0 = now();
                paths[p].run(enc, src, mask);
                double t = now() - t0;
                if (t < best) best = t;
            }
            char key[64];
            snprintf(key, sizeof key, "%s_tokens_per_s", paths[p].name);
            const char *torch_rate = ct_safetensors_metadata(io, key);
            const char *why_not = p > 0 ? ct_transformer_fastpath_why_not() : "";
            int ok = out && valid <= TOLERANCE && padded <= TOLERANCE && !why_not[0];   /* false for NaN too */
            printf("%-9s %8.1f real tokens/s (PyTorch %s)   max |error| %.2e (real tokens), %.2e (padding)  %s\n",
                   paths[p].name, real_tokens / best, torch_rate ? torch_rate : "?", valid, padded,
                   ok ? "ok" : "FAILED");
            if (why_not[0]) printf("  the fastpath was not taken: %s\n", why_not);
            failed |= !ok;
        }
    }
    ct_safetensors_free(io);
    ct_module_free(enc);
    return failed;
}
