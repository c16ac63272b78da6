/* A small GPT generating greedily, with and without a KV cache, checked token
   by token against PyTorch. The model (examples/torch_interop/export_gpt.py):
   token embedding + learned position embedding, 2 pre-norm
   nn.TransformerEncoderLayer blocks (d_model 64, 4 heads, FFN 256, gelu) under a
   causal mask, a final LayerNorm and a linear LM head; vocabulary 100, context 32.
     without the cache: each step runs the whole sequence through the blocks
                        (a full causal forward) and keeps the last position
     with the cache:    the prompt goes through once, then one token per step;
                        each layer's keys and values stay in the cache

   Build and run:   make gpt      (exports the weights into build/gpt first)
   By hand:
     /usr/bin/python3 examples/torch_interop/export_gpt.py build/gpt
     cc -std=c11 -O2 -march=native -fopenmp -DCTENSOR_OPENMP -I. examples/gpt_generate.c -o gpt_generate -lm -lpthread
     ./gpt_generate build/gpt */
#define _POSIX_C_SOURCE 200809L
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { VOCAB = 100, D_MODEL = 64, NHEAD = 4, LAYERS = 2, CONTEXT = 32, PROMPT = 8, NEW_TOKENS = 20 };
#define TOLERANCE 1e-4   /* max |ctensor - PyTorch| of the logits */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The children's names give PyTorch's state-dict keys (tok.weight,
   blocks.layers.0.self_attn.in_proj_weight, ...); the forward is gpt_forward. */
static ct_module *gpt_new(void) {
    ct_transformer_layer_options block = {.dim_feedforward = 4 * D_MODEL, .dropout = CT_ZERO, .activation = "gelu",
                                          .batch_first = 1, .norm_first = 1};
    int64_t d = D_MODEL;
    return ct_nn_sequential_dict(
        {"tok", ct_nn_embedding(VOCAB, D_MODEL)},
        {"pos", ct_nn_embedding(CONTEXT, D_MODEL)},
        {"blocks", ct_nn_transformer_encoder(ct_nn_transformer_encoder_layer(D_MODEL, NHEAD, &block), LAYERS, NULL)},
        {"ln_f", ct_nn_layer_norm(1, &d)},
        {"head", ct_nn_linear(D_MODEL, VOCAB)});
}

/* logits [1, T, VOCAB] of the tokens idx [1, T] at positions start .. start + T - 1.
   cache NULL: a full causal forward (start is 0); otherwise the positions before
   start are in the cache and these are appended to it. */
static ct_tensor *gpt_forward(ct_module *gpt, ct_tensor *idx, int64_t start, ct_kv_cache *cache) {
    int64_t T = ct_size(idx, 1);
    ct_tensor *x = ct_add(ct_forward(ct_module_child(gpt, "tok"), idx),
                          ct_forward(ct_module_child(gpt, "pos"), ct_arange((double)start, (double)(start + T), 1, CT_INT64)));
    ct_module *blocks = ct_module_child(gpt, "blocks");
    ct_tensor *h = cache ? ct_transformer_decode(blocks, x, cache)
                         : ct_transformer_encoder_forward(blocks, x, ct_nn_transformer_square_subsequent_mask(T), NULL);
    return ct_forward(ct_module_child(gpt, "head"), ct_forward(ct_module_child(gpt, "ln_f"), h));
}

/* Greedy generation of NEW_TOKENS tokens after the prompt, into tokens; the
   logits of each step into logits [NEW_TOKENS][VOCAB] unless NULL. Returns 0, or -1 on error. */
static int generate(ct_module *gpt, ct_kv_cache *cache, const int64_t *prompt, int64_t *tokens, float *logits) {
    int64_t seq[CONTEXT];
    int64_t n = PROMPT;
    int ok = 1;
    memcpy(seq, prompt, sizeof(int64_t) * PROMPT);
    if (cache) ct_kv_cache_reset(cache);
    for (int step = 0; step < NEW_TOKENS && ok; step++) CT_SCOPE {
        int64_t start = cache ? ct_kv_cache_len(cache) : 0;   /* with the cache: the prompt, then one token a step */
        ct_tensor *out = gpt_forward(gpt, ct_tensor_i64(seq + start, 1, n - start), start, cache);
        ct_tensor *last = ct_contiguous(ct_select(ct_select(out, 0, 0), 0, n - start - 1));
        ok = last != NULL;
        if (ok) {
            seq[n++] = ct_item_int(ct_argmax(last));
            tokens[step] = seq[n - 1];
            if (logits) memcpy(logits + step * VOCAB, ct_data_ptr(last), sizeof(float) * VOCAB);
        }
    }
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "build/gpt";
    char weights[1024], io_path[1024];
    snprintf(weights, sizeof weights, "%s/gpt.safetensors", dir);
    snprintf(io_path, sizeof io_path, "%s/io.safetensors", dir);
    FILE *f = fopen(io_path, "rb");
    if (!f) {
        fprintf(stderr, "gpt_generate: %s not found; make the weights and PyTorch's generation with\n"
                        "  /usr/bin/python3 examples/torch_interop/export_gpt.py %s\n(make gpt does it too)\n", io_path, dir);
        return 1;
    }
    fclose(f);
    ct_set_num_threads(1);

    ct_module *gpt = gpt_new();
    ct_safetensors *io = ct_safetensors_load(io_path);
    if (!gpt || !io || ct_module_load_safetensors(gpt, weights, 1) != CT_OK) {
        fprintf(stderr, "gpt_generate: %s\n", ct_last_error());
        return 1;
    }
    ct_module_eval(gpt);
    ct_kv_cache *cache = ct_kv_cache_new(ct_module_child(gpt, "blocks"), 1, CONTEXT);

    int failed = !cache;
    CT_INFERENCE_MODE CT_SCOPE {
        const int64_t *prompt = (const int64_t *)ct_data_ptr(ct_safetensors_get(io, "prompt"));
        const int64_t *want = (const int64_t *)ct_data_ptr(ct_safetensors_get(io, "tokens"));
        const float *want_logits = (const float *)ct_data_ptr(ct_safetensors_get(io, "logits"));
        const char *torch_rate = ct_safetensors_metadata(io, "tokens_per_s");
        int64_t got[NEW_TOKENS] = {0};
        for (int with_cache = 0; with_cache < 2 && !failed; with_cache++) {
            ct_kv_cache *c = with_cache ? cache : NULL;
            int64_t tokens[NEW_TOKENS];
            static float logits[NEW_TOKENS * VOCAB];
            if (generate(gpt, c, prompt, tokens, logits)) {
                fprintf(stderr, "gpt_generate: %s\n", ct_last_error());
                failed = 1;
                break;
            }
            memcpy(got, tokens, sizeof got);
            int same = 0;
            while (same < NEW_TOKENS && tokens[same] == want[same]) same++;
            double err = 0;
            for (int i = 0; i < NEW_TOKENS * VOCAB; i++) {
                double e = fabs((double)logits[i] - want_logits[i]);
                if (!(e <= err)) err = e;                /* NaN included */
            }
            int runs = 0;
            double t0 = now(), t = 0;
            while (t < 0.5) {                            /* generate again for half a second */
                generate(gpt, c, prompt, tokens, NULL);
                runs++;
                t = now() - t0;
            }
            printf("%s %7.0f tokens/s   %2d/%d tokens as PyTorch's, logits max |error| %.2e  %s\n",
                   with_cache ? "KV cache:     " : "no cache:     ", runs * NEW_TOKENS / t, same, NEW_TOKENS, err,
                   same == NEW_TOKENS && err <= TOLERANCE ? "ok" : "FAILED");
            failed |= !(same == NEW_TOKENS && err <= TOLERANCE);
        }
        printf("PyTorch:       %7.0f tokens/s   (no cache, measured by the export)\nprompt:", torch_rate ? atof(torch_rate) : NAN);
        for (int i = 0; i < PROMPT; i++) printf(" %lld", (long long)prompt[i]);
        printf("\ngenerated:");
        for (int i = 0; i < NEW_TOKENS; i++) printf(" %lld", (long long)got[i]);
        printf("\n");
    }
    ct_kv_cache_free(cache);
    ct_safetensors_free(io);
    ct_module_free(gpt);
    return failed;
}
