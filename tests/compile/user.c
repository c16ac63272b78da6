/* Compile test: a user file with the implementation, built as C11 (gcc, clang),
   C++17 (g++ -x c++) and under nvcc. It must call a function of every header
   (a typo in an _IMPLEMENTATION macro would otherwise go unnoticed). */
#define CTENSOR_IMPLEMENTATION
#include <math.h>
#include "ctensor.h"
#include "ctensor_linalg.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"
#include "ctensor_named.h"
#include "ctensor_jit.h"
#include "ctensor_dist.h"
#include "ctensor_special.h"
#include "ctensor_fft.h"
#include "ctensor_composite.h"

int main(void) {
    int bad = 0;
    CT_SCOPE {
        ct_tensor *a = ct_ones(CT_FLOAT32, 2, 3);
        ct_tensor *b = ct_mul_scalar(ct_add(a, a), 0.5);
        bad |= !b || ct_item(ct_sum(b)) != 6.0;
        CT_NO_GRAD { bad |= ct_is_grad_enabled(); }
        ct_tensor *s = ct_add(ct_eye(3, -1, CT_FLOAT64), ct_ones(CT_FLOAT64, 3, 3));   /* ctensor_linalg.h */
        bad |= !s || fabs(ct_item(ct_linalg_det(s)) - 4.0) > 1e-12;
        ct_tensor *l = ct_mse_loss(a, ct_zeros(CT_FLOAT32, 2, 3), NULL);                  /* ctensor_nn.h */
        bad |= !l || ct_item(l) != 1.0;
        ct_tensor *q = ct_quantize_per_tensor(a, 0.5, 3, CT_QUINT8);                       /* ctensor_quant.h */
        bad |= !q || ct_item(ct_sum(ct_dequantize(q))) != 6.0;
        static const char *const nc[2] = {"N", "C"};                                       /* ctensor_named.h */
        ct_tensor *n = ct_sum_dim(ct_refine_names(a, 2, nc), 1, 0);
        bad |= !n || !ct_dim_name(n, 0) || ct_dim_name(n, 0)[0] != 'N';
        ct_trace_begin(1, &a);                                                              /* ctensor_jit.h */
        ct_tensor *tr = ct_relu(ct_neg(a));
        ct_graph *g = ct_trace_end(1, &tr);
        ct_tensor *gy = NULL;
        bad |= !g || ct_jit_fuse_elementwise(g) != CT_OK || ct_graph_run(g, 1, &a, &gy, 1) != 1 || ct_item(ct_sum(gy)) != 0.0;
        ct_graph_free(g);
        ct_process_group *pg = ct_dist_init_process_group("single", NULL);                /* ctensor_dist.h */
        ct_tensor *d = ct_ones(CT_FLOAT32, 3);
        bad |= !pg || ct_dist_all_reduce(d, CT_REDUCE_AVG, pg, NULL) != CT_OK || ct_item(ct_sum(d)) != 3.0;
        bad |= ct_dist_destroy_process_group(pg) != CT_OK;
        ct_tensor *e = ct_special_i0e(ct_zeros(CT_FLOAT64, 2));                           /* ctensor_special.h */
        bad |= !e || ct_item(ct_sum(e)) != 2.0;
        ct_tensor *f = ct_fft_irfft(ct_fft_rfft(ct_ones(CT_FLOAT64, 8), -1, -1, NULL), 8, -1, NULL); /* ctensor_fft.h */
        bad |= !f || fabs(ct_item(ct_sum(f)) - 8.0) > 1e-12;
        ct_tensor *k = ct_kron(ct_ones(CT_FLOAT64, 2), ct_ones(CT_FLOAT64, 3));            /* ctensor_composite.h */
        bad |= !k || ct_numel(k) != 6 || ct_item(ct_quantile(k, 0.5, CT_DIM_NONE, 0, NULL)) != 1.0;
    }
    bad |= ct_live_tensors() != 0;
    return bad;
}
