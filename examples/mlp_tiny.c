/* A small-footprint inference program: a 784-128-10 MLP (Linear, ReLU, Linear) on
   four 28x28 inputs, built with ctensor's selective build (CTENSOR_SELECTED_OPS),
   so that only the ops it uses are linked. `make footprint` builds it static,
   size-optimized and stripped and prints its size:
     cc -std=c11 -Os -ffunction-sections -fdata-sections -I. examples/mlp_tiny.c \
        -o mlp_tiny -static -Wl,--gc-sections -s -lm && ./mlp_tiny
   The weights come from a fixed integer hash (the same every run and everywhere);
   the program checks the logits against a plain C double-precision forward pass. */
#define CTENSOR_IMPLEMENTATION
/* the selective build: the ops this program runs, by their names in the op table
   (ctensor.h, "Op lists"), each as CTENSOR_OP_<NAME> 1; any other op fails with
   "op X was not selected in this build (CTENSOR_SELECTED_OPS)" */
#define CTENSOR_SELECTED_OPS 1
#define CTENSOR_OP_ADDMM 1     /* linear: bias + x @ W^T */
#define CTENSOR_OP_PERMUTE 1   /* W^T (a view) */
#define CTENSOR_OP_RELU 1
#define CTENSOR_OP_ARGMAX 1
#define CTENSOR_OP_SELECT 1    /* one row of the logits (a view) */
/* subsystems this program never uses */
#define CTENSOR_NO_AUTOGRAD 1
#define CTENSOR_NO_THREADS 1
#include "ctensor.h"
#include <stdio.h>
#include <math.h>

enum { BATCH = 4, IN = 784, HID = 128, OUT = 10 };

/* a value in [-scale, scale) from a 32-bit integer hash of (seed, i) */
static float hashval(uint32_t seed, uint32_t i, float scale) {
    uint32_t h = seed * 0x9E3779B9u ^ (i + 0x7F4A7C15u);
    h ^= h >> 16; h *= 0x85EBCA6Bu; h ^= h >> 13; h *= 0xC2B2AE35u; h ^= h >> 16;
    return scale * ((float)(h >> 8) / 8388608.0f - 1.0f);
}
static void fill(float *p, int n, uint32_t seed, float scale) {
    for (int i = 0; i < n; i++) p[i] = hashval(seed, (uint32_t)i, scale);
}

static float x_d[BATCH * IN], w1_d[HID * IN], b1_d[HID], w2_d[OUT * HID], b2_d[OUT];

int main(void) {
    fill(x_d, BATCH * IN, 1, 1.0f);
    fill(w1_d, HID * IN, 2, 0.0357f);   /* PyTorch's Linear init bound: 1/sqrt(784) */
    fill(b1_d, HID, 3, 0.0357f);
    fill(w2_d, OUT * HID, 4, 0.0884f);  /* 1/sqrt(128) */
    fill(b2_d, OUT, 5, 0.0884f);

    /* the reference: the same forward pass in double precision */
    double ref[BATCH][OUT];
    for (int b = 0; b < BATCH; b++) {
        double h[HID];
        for (int j = 0; j < HID; j++) {
            double s = b1_d[j];
            for (int k = 0; k < IN; k++) s += (double)x_d[b * IN + k] * w1_d[j * IN + k];
            h[j] = s > 0 ? s : 0;
        }
        for (int j = 0; j < OUT; j++) {
            double s = b2_d[j];
            for (int k = 0; k < HID; k++) s += h[k] * w2_d[j * HID + k];
            ref[b][j] = s;
        }
    }

    int bad = 0;
    CT_SCOPE {
        ct_tensor *x = ct_from_blob(x_d, CT_FLOAT32, 2, (int64_t[]){BATCH, IN}, NULL, NULL, NULL);
        ct_tensor *w1 = ct_from_blob(w1_d, CT_FLOAT32, 2, (int64_t[]){HID, IN}, NULL, NULL, NULL);
        ct_tensor *b1 = ct_from_blob(b1_d, CT_FLOAT32, 1, (int64_t[]){HID}, NULL, NULL, NULL);
        ct_tensor *w2 = ct_from_blob(w2_d, CT_FLOAT32, 2, (int64_t[]){OUT, HID}, NULL, NULL, NULL);
        ct_tensor *b2 = ct_from_blob(b2_d, CT_FLOAT32, 1, (int64_t[]){OUT}, NULL, NULL, NULL);
        ct_tensor *logits = ct_linear(ct_relu(ct_linear(x, w1, b1)), w2, b2);
        if (!logits) {
            printf("mlp_tiny: %s\n", ct_last_error());
            bad = 1;
        } else {
            const float *y = (const float *)ct_data_ptr(logits);
            double maxerr = 0;
            for (int b = 0; b < BATCH; b++) {
                int best = 0;
                printf("logits[%d]:", b);
                for (int j = 0; j < OUT; j++) {
                    printf(" %8.4f", y[b * OUT + j]);
                    double e = fabs(y[b * OUT + j] - ref[b][j]);
                    if (e > maxerr) maxerr = e;
                    if (ref[b][j] > ref[b][best]) best = j;
                }
                ct_tensor *am = ct_argmax(ct_select(logits, 0, b));
                int64_t got = am ? (int64_t)ct_item(am) : -1;
                printf("  argmax %lld\n", (long long)got);
                if (got != best) bad = 1;
            }
            printf("max |error| vs the double-precision reference: %.2e\n", maxerr);
            if (maxerr > 1e-4) bad = 1;
        }
    }
    printf("mlp_tiny: %s\n", bad ? "FAILED" : "ok");
    return bad;
}
