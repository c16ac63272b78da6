/* torch.linalg benchmarks (issue 4), each line timed like its twin bench/torch/linalg.py.
   Single-threaded on both sides (OpenBLAS with one thread, torch.set_num_threads(1)),
   float64, no autograd (inputs do not require grad):
     announcement_*_4x4         the torch.linalg announcement: sqrt(det(sigma)) vs
                                prod(diag(cholesky(sigma))) on a 4x4 SPD matrix
     <op>_n64 / _n256 / _n1024  cholesky, inv, solve (B: n x n), qr (reduced),
                                svd (full_matrices=False), eigh, lstsq (B: n x 1, gelsy), det
     batched_1000x8x8_<op>      cholesky, inv, solve (B: 8 x 8), eigh, svd on 1000 matrices
     complex128_<op>_n256       eig (eigenvalues and vectors, zgeev) and svd (full_matrices=False,
                                zgesdd) of a 256 x 256 complex128 matrix (real and imaginary parts randn)
   Targets: the announcement's Cholesky path >= 10x PyTorch's; sizes 64..1024 >= 0.95x;
   the batched 8x8 cases >= 2x. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_linalg.h"

void openblas_set_num_threads(int num_threads);   /* OpenBLAS (linked for LAPACKE in every build) */

static ct_tensor *SIGMA, *SPD[3], *WELL[3], *RND[3], *SYM[3], *BM[3], *BV[3];
static ct_tensor *SPD8, *WELL8, *B8, *SYM8, *RND8, *CRND;
static int cur;

static ct_tensor *prod_all(const ct_tensor *d) {   /* torch.prod of a 4-vector */
    return ct_mul(ct_mul(ct_select(d, 0, 0), ct_select(d, 0, 1)), ct_mul(ct_select(d, 0, 2), ct_select(d, 0, 3)));
}
static void b_sqrt_det(void *u) { (void)u; CT_SCOPE { ct_sqrt(ct_linalg_det(SIGMA)); } }
static void b_prod_diag_chol(void *u) { (void)u; CT_SCOPE { prod_all(ct_diagonal(ct_linalg_cholesky(SIGMA), 0, 0, 1)); } }
static void b_cholesky(void *u) { (void)u; CT_SCOPE { ct_linalg_cholesky(SPD[cur]); } }
static void b_inv(void *u) { (void)u; CT_SCOPE { ct_linalg_inv(WELL[cur]); } }
static void b_solve(void *u) { (void)u; CT_SCOPE { ct_linalg_solve(WELL[cur], BM[cur]); } }
static void b_qr(void *u) { (void)u; CT_SCOPE { ct_linalg_qr(RND[cur], "reduced"); } }
static void b_svd(void *u) { (void)u; CT_SCOPE { ct_linalg_svd(RND[cur], 0); } }
static void b_eigh(void *u) { (void)u; CT_SCOPE { ct_linalg_eigh(SYM[cur], "L"); } }
static void b_lstsq(void *u) { (void)u; CT_SCOPE { ct_linalg_lstsq(WELL[cur], BV[cur], NAN, NULL); } }
static void b_det(void *u) { (void)u; CT_SCOPE { ct_linalg_det(WELL[cur]); } }
static void b8_cholesky(void *u) { (void)u; CT_SCOPE { ct_linalg_cholesky(SPD8); } }
static void b8_inv(void *u) { (void)u; CT_SCOPE { ct_linalg_inv(WELL8); } }
static void b8_solve(void *u) { (void)u; CT_SCOPE { ct_linalg_solve(WELL8, B8); } }
static void b8_eigh(void *u) { (void)u; CT_SCOPE { ct_linalg_eigh(SYM8, "L"); } }
static void b8_svd(void *u) { (void)u; CT_SCOPE { ct_linalg_svd(RND8, 0); } }
static void bc_eig(void *u) { (void)u; CT_SCOPE { ct_linalg_eig(CRND); } }
static void bc_svd(void *u) { (void)u; CT_SCOPE { ct_linalg_svd(CRND, 0); } }

static ct_tensor *keep_spd(int64_t b, int64_t n) {
    ct_tensor *x = b ? ct_randn(CT_FLOAT64, b, n, n) : ct_randn(CT_FLOAT64, n, n);
    return ct_keep(ct_add(ct_matmul(x, ct_mT(x)), ct_mul_scalar(ct_eye(n, n, CT_FLOAT64), (double)n)));
}
static ct_tensor *keep_well(int64_t b, int64_t n) {
    ct_tensor *x = b ? ct_randn(CT_FLOAT64, b, n, n) : ct_randn(CT_FLOAT64, n, n);
    return ct_keep(ct_div_scalar(ct_add(x, ct_mul_scalar(ct_eye(n, n, CT_FLOAT64), 2.0 * sqrt((double)n))), 2.0 * sqrt((double)n)));
}
static ct_tensor *keep_sym(int64_t b, int64_t n) {
    ct_tensor *x = b ? ct_randn(CT_FLOAT64, b, n, n) : ct_randn(CT_FLOAT64, n, n);
    return ct_keep(ct_contiguous(ct_mul_scalar(ct_add(x, ct_mT(x)), 0.5)));
}

int main(void) {
    bench_begin("linalg");
    bench_set_threads(1);
    openblas_set_num_threads(1);
    static const double L_data[16] = {0.4236547993389047, 0.6458941130666561, 0.4375872112626925, 0.8917730007820798,
                                      0.9636627605010293, 0.3834415188257777, 0.7917250380826646, 0.5288949197529045,
                                      0.5680445610939323, 0.925596638292661, 0.07103605819788694, 0.08712929970154071,
                                      0.02021839744032572, 0.832619845547938, 0.7781567509498505, 0.8700121482468192};
    static const int64_t ns[3] = {64, 256, 1024};
    CT_SCOPE {
        ct_manual_seed(0);
        ct_tensor *L = ct_tensor_f64(L_data, 4, 4);
        SIGMA = ct_keep(ct_contiguous(ct_add(ct_matmul(L, ct_t(L)), ct_eye(4, 4, CT_FLOAT64))));
        for (int k = 0; k < 3; k++) {
            int64_t n = ns[k];
            SPD[k] = keep_spd(0, n);
            WELL[k] = keep_well(0, n);
            RND[k] = ct_keep(ct_randn(CT_FLOAT64, n, n));
            SYM[k] = keep_sym(0, n);
            BM[k] = ct_keep(ct_randn(CT_FLOAT64, n, n));
            BV[k] = ct_keep(ct_randn(CT_FLOAT64, n, 1));
        }
        SPD8 = keep_spd(1000, 8);
        WELL8 = keep_well(1000, 8);
        SYM8 = keep_sym(1000, 8);
        RND8 = ct_keep(ct_randn(CT_FLOAT64, 1000, 8, 8));
        B8 = ct_keep(ct_randn(CT_FLOAT64, 1000, 8, 8));
        CRND = ct_keep(ct_complex(ct_randn(CT_FLOAT64, 256, 256), ct_randn(CT_FLOAT64, 256, 256)));
    }
    CT_NO_GRAD {
        bench_run("announcement_sqrt_det_4x4", "torch.sqrt(torch.linalg.det(sigma)) f64", b_sqrt_det, NULL);
        bench_run("announcement_prod_diag_cholesky_4x4", "torch.prod(torch.diag(torch.linalg.cholesky(sigma))) f64", b_prod_diag_chol, NULL);
        static const struct { const char *name; bench_fn fn; } ops[8] = {
            {"cholesky", b_cholesky}, {"inv", b_inv}, {"solve", b_solve}, {"qr", b_qr},
            {"svd", b_svd}, {"eigh", b_eigh}, {"lstsq", b_lstsq}, {"det", b_det}};
        for (int o = 0; o < 8; o++)
            for (cur = 0; cur < 3; cur++) {
                char name[64], params[64];
                snprintf(name, sizeof name, "%s_n%lld", ops[o].name, (long long)ns[cur]);
                snprintf(params, sizeof params, "%lldx%lld f64, 1 thread", (long long)ns[cur], (long long)ns[cur]);
                bench_run(name, params, ops[o].fn, NULL);
            }
        bench_run("batched_1000x8x8_cholesky", "1000x8x8 f64, 1 thread", b8_cholesky, NULL);
        bench_run("batched_1000x8x8_inv", "1000x8x8 f64, 1 thread", b8_inv, NULL);
        bench_run("batched_1000x8x8_solve", "1000x8x8 f64, B 1000x8x8, 1 thread", b8_solve, NULL);
        bench_run("batched_1000x8x8_eigh", "1000x8x8 f64, 1 thread", b8_eigh, NULL);
        bench_run("batched_1000x8x8_svd", "1000x8x8 f64, 1 thread", b8_svd, NULL);
        bench_run("complex128_eig_n256", "256x256 complex128, 1 thread", bc_eig, NULL);
        bench_run("complex128_svd_n256", "256x256 complex128, 1 thread", bc_svd, NULL);
    }
    return 0;
}
