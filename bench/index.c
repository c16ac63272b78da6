/* bench/index.c - indexing and joining ops; twin: bench/torch/index.py.
   gcc -std=c11 -O2 -march=native -fopenmp -DCTENSOR_OPENMP -I. bench/index.c -o build/bench/index -lm */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_composite.h"

static ct_tensor *SEQ, *SEQROWS, *A[4], *X, *IDX0, *IDX1, *G0, *G1, *SRC, *M, *IMG, *VOL, *SQ;
static int64_t pads4[4] = {1, 1, 1, 1}, pads4b[4] = {2, 2, 2, 2}, pads6[6] = {1, 1, 1, 1, 1, 1}, rep22[2] = {2, 2}, dim1[1] = {1};
static int64_t shifts[2] = {5, 7}, dims01[2] = {0, 1};

#define CASE(fname, expr)                        \
    static void fname(void *u) {                 \
        (void)u;                                 \
        CT_SCOPE { (void)(expr); }               \
    }
static int split_pieces(void) {
    ct_tensor *o[16];
    return ct_split(X, 256, 0, o, 16);
}
static ct_tensor *index_put_acc(void) {
    ct_tensor *l[1];
    l[0] = IDX0;
    return ct_index_put(X, 1, l, SRC, 1);
}
CASE(b_cat0, ct_cat(4, A, 0))
CASE(b_cat1, ct_cat(4, A, 1))
CASE(b_stack0, ct_stack(4, A, 0))
CASE(b_index_select0, ct_index_select(X, 0, IDX0))
CASE(b_index_select1, ct_index_select(X, 1, IDX1))
CASE(b_gather1, ct_gather(X, 1, G1))
CASE(b_gather0, ct_gather(X, 0, G0))
CASE(b_scatter_add1, ct_scatter_add(X, 1, G1, SRC))
CASE(b_index_add0, ct_index_add(X, 0, IDX0, SRC, 1.0))
CASE(b_index_put_acc, index_put_acc())
CASE(b_masked_select, ct_masked_select(X, M))
CASE(b_nonzero, ct_nonzero(M))
CASE(b_take, ct_take(X, G1))
CASE(b_flip1, ct_flip(X, 1, dim1))
CASE(b_roll, ct_roll(X, 2, shifts, 2, dims01))
CASE(b_repeat, ct_repeat(A[0], 2, rep22))
CASE(b_tril, ct_tril(SQ, 0))
CASE(b_pad_const, ct_pad(IMG, 4, pads4, "constant", 0))
CASE(b_pad_reflect, ct_pad(IMG, 4, pads4b, "reflect", 0))
CASE(b_pad_replicate3d, ct_pad(VOL, 6, pads6, "replicate", 0))
CASE(b_split, split_pieces())

static uint64_t rng = 88172645463325252ull;
static int64_t rnd(int64_t n) {
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}
static ct_tensor *rand_index(int64_t n, int64_t hi, int ndim, const int64_t *shape) {
    ct_tensor *t = ct_keep(ct_empty_n(CT_INT64, ndim, shape));
    int64_t *p = (int64_t *)ct_data_ptr(t);
    for (int64_t i = 0; i < n; i++) p[i] = rnd(hi);
    return t;
}

CASE(b_searchsorted_1d, ct_searchsorted(SEQ, X, 0, 0, NULL, NULL))
CASE(b_searchsorted_rows, ct_searchsorted(SEQROWS, X, 0, 1, NULL, NULL))
CASE(b_bucketize, ct_bucketize(X, SEQ, 0, 0))
CASE(b_lcse_dim1, ct_logcumsumexp(X, 1))
CASE(b_lcse_dim0, ct_logcumsumexp(X, 0))

int main(void) {
    ct_manual_seed(0);
    int s = ct_scope_begin();
    for (int i = 0; i < 4; i++) A[i] = ct_randn(CT_FLOAT32, 256, 1024);
    X = ct_randn(CT_FLOAT32, 4096, 512);
    SRC = ct_randn(CT_FLOAT32, 4096, 512);
    int64_t s1[1] = {4096}, s2[1] = {512}, s3[2] = {4096, 512};
    IDX0 = rand_index(4096, 4096, 1, s1);
    IDX1 = rand_index(512, 512, 1, s2);
    G1 = rand_index(4096 * 512, 512, 2, s3);
    G0 = rand_index(4096 * 512, 4096, 2, s3);
    M = ct_gt_scalar(X, 0.0);
    IMG = ct_randn(CT_FLOAT32, 8, 64, 64, 64);
    VOL = ct_randn(CT_FLOAT32, 2, 16, 32, 32, 32);
    SQ = ct_randn(CT_FLOAT32, 2048, 2048);
    SEQ = ct_sort(ct_randn(CT_FLOAT32, 4096), 0, 0, NULL);
    SEQROWS = ct_sort(ct_randn(CT_FLOAT32, 4096, 64), 1, 0, NULL);
    bench_run("cat_dim0", "4x[256,1024] f32", b_cat0, NULL);
    bench_run("cat_dim1", "4x[256,1024] f32", b_cat1, NULL);
    bench_run("stack_dim0", "4x[256,1024] f32", b_stack0, NULL);
    bench_run("index_select_dim0", "[4096,512] f32, 4096 idx", b_index_select0, NULL);
    bench_run("index_select_dim1", "[4096,512] f32, 512 idx", b_index_select1, NULL);
    bench_run("gather_dim1", "[4096,512] f32", b_gather1, NULL);
    bench_run("gather_dim0", "[4096,512] f32", b_gather0, NULL);
    bench_run("scatter_add_dim1", "[4096,512] f32", b_scatter_add1, NULL);
    bench_run("index_add_dim0", "[4096,512] f32, 4096 idx", b_index_add0, NULL);
    bench_run("index_put_acc", "[4096,512] f32, 4096 rows", b_index_put_acc, NULL);
    bench_run("masked_select", "[4096,512] f32", b_masked_select, NULL);
    bench_run("nonzero", "[4096,512] bool", b_nonzero, NULL);
    bench_run("take", "[4096,512] f32, 2M idx", b_take, NULL);
    bench_run("flip_dim1", "[4096,512] f32", b_flip1, NULL);
    bench_run("roll_2d", "[4096,512] f32", b_roll, NULL);
    bench_run("repeat_2x2", "[256,1024] f32", b_repeat, NULL);
    bench_run("tril", "[2048,2048] f32", b_tril, NULL);
    bench_run("pad_constant", "[8,64,64,64] f32 (1,1,1,1)", b_pad_const, NULL);
    bench_run("pad_reflect2d", "[8,64,64,64] f32 (2,2,2,2)", b_pad_reflect, NULL);
    bench_run("pad_replicate3d", "[2,16,32,32,32] f32 (1,)*6", b_pad_replicate3d, NULL);
    bench_run("split_views", "[4096,512] f32 by 256", b_split, NULL);
    bench_run("searchsorted_1d", "4096 sorted f32, [4096,512] values", b_searchsorted_1d, NULL);
    bench_run("searchsorted_rows", "[4096,64] sorted rows, [4096,512] values, right", b_searchsorted_rows, NULL);
    bench_run("bucketize", "[4096,512] f32, 4096 boundaries", b_bucketize, NULL);
    bench_run("logcumsumexp_dim1", "[4096,512] f32, along rows", b_lcse_dim1, NULL);
    bench_run("logcumsumexp_dim0", "[4096,512] f32, down columns", b_lcse_dim0, NULL);
    ct_scope_end(s);
    return 0;
}
