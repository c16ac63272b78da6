/* resample.c - interpolation and grid sampling, 1 thread. Twin: bench/torch/resample.py.

   The U-Net decoder's upsampling on x [8, 64, 56, 56] float32 (-> 112 x 112):
     bilinear2x_{nchw,cl}_*   F.interpolate(x, scale_factor=2, mode="bilinear"), x contiguous
                              or channels-last (the output keeps the format)
     nearest2x_{nchw,cl}_*    mode="nearest"
     bicubic2x_nchw_*         mode="bicubic" (x [8, 16, 56, 56])
     grid_sample_*            F.grid_sample(x, grid) bilinear, zeros padding, x [8, 64, 56, 56],
                              grid [8, 56, 56, 2] from a rotation (affine_grid)
   _fwd: the forward alone (no graph); _fwd_bwd: x (and the grid) requiring grad,
   backward of sum(y * g) with a fixed g in y's layout; grads cleared each time.
   GB/s counts the bytes of x and y (forward; x3 with backward). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"

typedef struct job {
    int bwd, grid;   /* grid: grid_sample instead of interpolate */
    ct_interpolate_options o;
    ct_tensor *x, *gr, *g;
} job;
static ct_tensor *volatile sink;

static void run_case(void *u) {
    const job *j = (const job *)u;
    CT_SCOPE {
        int pg = ct_set_grad_enabled(j->bwd);
        ct_tensor *y = j->grid ? ct_grid_sample(j->x, j->gr, &(ct_grid_sample_options){.align_corners = 0}) : ct_interpolate(j->x, &j->o);
        if (j->bwd) {
            ct_backward(ct_sum(ct_mul(y, j->g)));
            ct_set_grad(j->x, NULL);
            if (j->gr && ct_get_requires_grad(j->gr)) ct_set_grad(j->gr, NULL);
        }
        ct_set_grad_enabled(pg);
        sink = y;
    }
}
static int works(const char *name, const job *j) {
    ct_clear_error();
    run_case((void *)j);
    if (ct_last_error_code() != CT_OK) { printf("# %s: FAILED: %s\n", name, ct_last_error()); return 0; }
    return 1;
}
static void pair(const char *name, const char *params, job j, double bytes) {
    char nm[96];
    bench_opts o = {1, bytes, 0, NULL};
    snprintf(nm, sizeof nm, "%s_fwd", name);
    j.bwd = 0;
    if (works(nm, &j)) bench_run_opts(nm, params, run_case, &j, &o);
    snprintf(nm, sizeof nm, "%s_fwd_bwd", name);
    j.bwd = 1;
    j.x = ct_requires_grad(ct_detach(j.x));
    if (j.gr) j.gr = ct_requires_grad(ct_detach(j.gr));
    o.bytes = 3 * bytes;
    if (works(nm, &j)) bench_run_opts(nm, params, run_case, &j, &o);
}

int main(void) {
    bench_begin("resample");
    bench_set_threads(1);
    ct_manual_seed(0);
    int root = ct_scope_begin();
    for (int cl = 0; cl < 2; cl++) {
        ct_tensor *x = ct_randn(CT_FLOAT32, 8, 64, 56, 56), *g = ct_randn(CT_FLOAT32, 8, 64, 112, 112);
        if (cl) { x = ct_to_channels_last(x); g = ct_to_channels_last(g); }
        double bytes = 4.0 * 8 * 64 * (56 * 56 + 112 * 112);
        char name[64], params[96];
        snprintf(params, sizeof params, "x[8,64,56,56]%s scale 2", cl ? " channels_last" : "");
        job j;
        memset(&j, 0, sizeof j);
        j.x = x;
        j.g = g;
        j.o.scale_factor[0] = 2;
        j.o.mode = "bilinear";
        snprintf(name, sizeof name, "bilinear2x_%s", cl ? "cl" : "nchw");
        pair(name, params, j, bytes);
        j.o.mode = "nearest";
        snprintf(name, sizeof name, "nearest2x_%s", cl ? "cl" : "nchw");
        pair(name, params, j, bytes);
    }
    {
        ct_tensor *x = ct_randn(CT_FLOAT32, 8, 16, 56, 56), *g = ct_randn(CT_FLOAT32, 8, 16, 112, 112);
        job j;
        memset(&j, 0, sizeof j);
        j.x = x;
        j.g = g;
        j.o.scale_factor[0] = 2;
        j.o.mode = "bicubic";
        pair("bicubic2x_nchw", "x[8,16,56,56] scale 2", j, 4.0 * 8 * 16 * (56 * 56 + 112 * 112));
    }
    {
        ct_tensor *x = ct_randn(CT_FLOAT32, 8, 64, 56, 56), *g = ct_randn(CT_FLOAT32, 8, 64, 56, 56);
        float th[8 * 6];
        for (int n = 0; n < 8; n++) {
            double a = 0.1 + 0.2 * n;
            th[6 * n + 0] = (float)cos(a); th[6 * n + 1] = (float)-sin(a); th[6 * n + 2] = 0.05f;
            th[6 * n + 3] = (float)sin(a); th[6 * n + 4] = (float)cos(a); th[6 * n + 5] = -0.05f;
        }
        ct_tensor *theta = ct_reshape(ct_tensor_f32(th, 48), 8, 2, 3);
        job j;
        memset(&j, 0, sizeof j);
        j.grid = 1;
        j.x = x;
        j.g = g;
        j.gr = ct_affine_grid(theta, 4, (int64_t[]){8, 64, 56, 56}, 0);
        pair("grid_sample_bilinear", "x[8,64,56,56] grid[8,56,56,2] rotation", j, 4.0 * 8 * 64 * 56 * 56 * 2);
    }
    sink = NULL;
    ct_scope_end(root);
    return 0;
}
