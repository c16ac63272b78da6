/* jit_lite.c - the lite interpreter (ctensor_jit.h with CTENSOR_JIT_LITE, PyTorch
   Mobile's lite interpreter): loads a saved graph file and runs it, in a program
   that links only the interpreter and the kernels that graph runs.

   The full program that made the model also wrote its op list (torch.jit.export_opnames):
       ct_graph *g = ct_trace_module(model, 1, &x);
       ct_jit_optimize(g);
       ct_graph_save(g, "mlp.ctjit");
       ct_jit_export_selected_ops(g, "mlp_ops.h");   // CTENSOR_SELECTED_OPS + CTENSOR_OP_* lines
   This file is then compiled with that list (JIT_LITE_OPS names it), no autograd,
   no threads, size-optimized, unused sections dropped, stripped:
       cc -std=c11 -Os -ffunction-sections -fdata-sections -I. -DJIT_LITE_OPS='"mlp_ops.h"' \
          examples/jit_lite.c -o jit_lite -static -Wl,--gc-sections -s -lm
   (tests/jit_lite/export.c makes the 784-512-256-10 MLP's files; make footprint
   builds both and prints the size.) Without JIT_LITE_OPS every kernel of ctensor.h
   is linked (the binary is large; add -DCTENSOR_JIT_USES_NN for ctensor_nn.h's ops).

       ./jit_lite model.ctjit input.npy [expected.npy]
   runs the graph on the input (float32 .npy) and prints the output's shape and
   row maxima; with expected.npy (the full interpreter's output) it checks every
   element within 1e-5 (relative to max(1, |expected|)) and reports how many are
   bit-identical. Exit status 0 when the run (and the check) succeed. */
#ifdef JIT_LITE_OPS
#include JIT_LITE_OPS        /* CTENSOR_SELECTED_OPS, CTENSOR_OP_<NAME> 1, CTENSOR_JIT_USES_<HEADER> */
#define CTENSOR_NO_AUTOGRAD 1
#endif
#define CTENSOR_IMPLEMENTATION
#define CTENSOR_NO_THREADS 1
#define CTENSOR_JIT_LITE 1
#include "ctensor.h"
#ifdef CTENSOR_JIT_USES_NN
#include "ctensor_nn.h"      /* conv2d, batch norm, pooling... */
#endif
#include "ctensor_jit.h"
#include <stdio.h>
#include <string.h>
#include <math.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s model.ctjit input.npy [expected.npy]\n", argv[0]);
        return 2;
    }
    int status = 0;
    CT_SCOPE {
        ct_graph *g = ct_graph_load(argv[1]);
        ct_tensor *x = ct_load_npy(argv[2]), *y = NULL;
        if (!g || !x || ct_graph_run(g, 1, &x, &y, 1) != 1) {
            printf("jit_lite: %s\n", ct_last_error());
            ct_graph_free(g);
            status = 1;
            break;
        }
        ct_graph_free(g);
        int64_t n = ct_numel(y), rows = ct_ndim(y) > 1 ? ct_size(y, 0) : 1, cols = rows ? n / rows : 0;
        if (ct_get_dtype(y) != CT_FLOAT32 || !ct_is_contiguous(y)) {
            printf("jit_lite: the output is not a contiguous float32 tensor\n");
            status = 1;
            break;
        }
        const float *p = (const float *)ct_data_ptr(y);
        printf("output: %lld x %lld\n", (long long)rows, (long long)cols);
        for (int64_t r = 0; r < rows && r < 4; r++) {
            int64_t best = 0;
            for (int64_t c = 1; c < cols; c++) if (p[r * cols + c] > p[r * cols + best]) best = c;
            printf("  row %lld: max %.6f at %lld\n", (long long)r, p[r * cols + best], (long long)best);
        }
        if (argc > 3) {
            ct_tensor *e = ct_load_npy(argv[3]);
            if (!e || ct_numel(e) != n || ct_get_dtype(e) != CT_FLOAT32) {
                printf("jit_lite: %s: not %lld float32 values\n", argv[3], (long long)n);
                status = 1;
                break;
            }
            const float *q = (const float *)ct_data_ptr(e);
            double worst = 0;
            int64_t same = 0;
            for (int64_t i = 0; i < n; i++) {
                double d = fabs((double)p[i] - q[i]) / (fabs(q[i]) > 1 ? fabs(q[i]) : 1);
                if (d > worst || d != d) worst = d;
                same += memcmp(&p[i], &q[i], sizeof(float)) == 0;
            }
            int ok = worst <= 1e-5;
            printf("vs the full interpreter: max relative difference %.3g, %lld of %lld bit-identical: %s\n", worst, (long long)same,
                   (long long)n, ok ? "ok" : "FAILED");
            printf("%d passed, %d failed\n", ok, !ok);
            status = !ok;
        }
    }
    return status;
}
