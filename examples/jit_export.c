/* jit_export.c - ctensor_jit.h end to end: trace a small CNN (conv, batch norm,
   ReLU, pooling, linear), freeze and optimize it (conv-bn folding, fusion), print
   the graph, save it to one file and load it back, run it, and export it as a
   standalone C file that compiles with any C compiler and needs no ctensor.
       ./jit_export [prefix]      writes <prefix>.ctjit and <prefix>.c (default: jit_model) */
#define CTENSOR_IMPLEMENTATION
#include <stdio.h>
#include <string.h>
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_jit.h"

int main(int argc, char **argv) {
    const char *prefix = argc > 1 ? argv[1] : "jit_model";
    char file[512], csrc[512];
    snprintf(file, sizeof file, "%s.ctjit", prefix);
    snprintf(csrc, sizeof csrc, "%s.c", prefix);
    int status = 0;
    CT_SCOPE {
        ct_manual_seed(0);
        ct_module *model = ct_module_eval(ct_nn_sequential(
            ct_nn_conv2d(1, 8, 3, 1, 1), ct_nn_batch_norm2d(8), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
            ct_nn_flatten(), ct_nn_linear(8 * 14 * 14, 10)));
        ct_tensor *x = ct_randn(CT_FLOAT32, 1, 1, 28, 28);

        ct_graph *g = ct_trace_module(model, 1, &x);        /* torch.jit.trace */
        if (!g || ct_jit_optimize(g)) { fprintf(stderr, "%s\n", ct_last_error()); status = 1; break; }
        ct_graph_print(g);                                   /* batch norm folded into the conv */

        ct_tensor *eager = ct_forward(model, x), *y = NULL;
        ct_graph_run(g, 1, &x, &y, 1);
        printf("graph vs eager: max |diff| = %.2g\n", ct_item(ct_amax(ct_abs(ct_sub(y, eager)), 0, NULL, 0)));

        ct_graph *loaded = NULL;
        if (ct_graph_save(g, file) || !(loaded = ct_graph_load(file))) { fprintf(stderr, "%s\n", ct_last_error()); status = 1; }
        else {
            ct_tensor *y2 = NULL;
            ct_graph_run(loaded, 1, &x, &y2, 1);
            printf("saved to %s and loaded back: max |diff| = %.2g\n", file, ct_item(ct_amax(ct_abs(ct_sub(y2, y)), 0, NULL, 0)));
        }
        if (ct_jit_export_c(g, csrc, "model_forward")) { fprintf(stderr, "%s\n", ct_last_error()); status = 1; }
        else printf("exported %s: void model_forward(const float *in0, float *out0); cc -std=c99 -c %s\n", csrc, csrc);
        ct_graph_free(loaded);
        ct_graph_free(g);
        ct_module_free(model);
    }
    return status;
}
