/* export.c - the full side of the lite-interpreter check (tests/jit_lite/run.sh,
   make footprint): traces the 784-512-256-10 MLP (Linear, ReLU, Linear, ReLU,
   Linear; seed 0) at batch 8, optimizes the graph, and writes to DIR:
     mlp.ctjit    the graph file (ct_graph_save)
     mlp_ops.h    its selective build (ct_jit_export_selected_ops)
     x.npy        an input
     y.npy        the full interpreter's output for it (ct_graph_run of the loaded file)
   examples/jit_lite.c, compiled with mlp_ops.h, must reproduce y.npy.
       export DIR */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_jit.h"
#include <stdio.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s DIR\n", argv[0]); return 2; }
    char path[4][600];
    const char *names[4] = {"mlp.ctjit", "mlp_ops.h", "x.npy", "y.npy"};
    for (int i = 0; i < 4; i++) snprintf(path[i], sizeof path[i], "%s/%s", argv[1], names[i]);
    int status = 1;
    ct_set_grad_enabled(0);
    CT_SCOPE {
        ct_manual_seed(0);
        ct_module *m = ct_module_eval(ct_nn_sequential(ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_linear(512, 256), ct_nn_relu(),
                                                       ct_nn_linear(256, 10)));
        ct_tensor *x = ct_randn(CT_FLOAT32, 8, 784), *y = NULL;
        ct_graph *g = ct_trace_module(m, 1, &x), *loaded = NULL;
        if (g && !ct_jit_optimize(g) && !ct_graph_save(g, path[0]) && !ct_jit_export_selected_ops(g, path[1]) &&
            (loaded = ct_graph_load(path[0])) && ct_graph_run(loaded, 1, &x, &y, 1) == 1 && !ct_save_npy(path[2], x) &&
            !ct_save_npy(path[3], y))
            status = 0;
        if (status) fprintf(stderr, "jit_lite export: %s\n", ct_last_error());
        else printf("wrote %s, %s, %s, %s\n", path[0], path[1], path[2], path[3]);
        ct_graph_free(g);
        ct_graph_free(loaded);
        ct_module_free(m);
    }
    return status;
}
