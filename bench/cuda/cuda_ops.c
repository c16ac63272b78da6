/* cuda_ops.c - ctensor_cuda.h on a GPU, beside PyTorch's CUDA backend (twin:
   bench/torch/cuda_ops.py). The cases of issue 15:
     gemm_4096_{f32,tf32,bf16,f16}   C = A @ B, 4096 x 4096 (cuBLAS on both sides);
                                     f32 with TF32 off, tf32 with it on (allow_tf32)
     copy_100M_f32                   clone: the device's copy bandwidth, the
                                     reference for the memory-bound cases below
     add/mul/gelu_100M_f32           elementwise on 100M float32 elements
     softmax_100M_f32                softmax over the last dim of [100000, 1000]
     small_add_4x4_f32               one add of two 4x4 tensors: launch + allocation
                                     overhead per op
     small_chain10_1k_f32            ten elementwise ops on 1000 elements (per op)
     alloc_loop_64                   64 tensors of 4 KiB .. 1 MiB made and released
                                     (per tensor): the caching allocator
     cnn_train_step_b64              one training step of examples/fashion_mnist.c's
                                     CNN (conv-bn-relu-pool x2, linear x2), batch 64,
                                     SGD with momentum
   and of issue 16 (ctensor_linalg.h on cuSOLVER), float32:
     cholesky_4096_f32               linalg.cholesky of a 4096 x 4096 SPD matrix (potrf)
     cholesky_b10000_32_f32          a batch of 10000 SPD 32 x 32 (potrfBatched)
     solve_4096_f32                  linalg.solve, A 4096 x 4096, B 4096 x 128 (getrf+getrs)
     solve_b10000_32_f32             a batch of 10000 32 x 32 systems, one right-hand side
     eigh_1024_f32                   linalg.eigh of a 1024 x 1024 symmetric matrix (syevd)
     svd_b1000_32_f32                linalg.svd(full_matrices=False) of 1000 32 x 32 (gesvd)
     qr_b10000_32_f32                linalg.qr (reduced) of 10000 32 x 32 (geqrfBatched)
     solve_triangular_b10000_32_f32  linalg.solve_triangular (upper) of 10000 32 x 32
                                     triangles, one right-hand side (trsmBatched)
   the BERT-base encoder layer (d_model 768, 12 heads, feed-forward 3072, relu,
   post-norm) at batch 64, sequence 512, float32, inference:
     encoder_layer_regular_b64_s512_f32  the layer module with the fastpath off
                                     (ct_set_transformer_fastpath(0); PyTorch: the
                                     layer in training mode with dropout 0): the
                                     unfused ops, a [B, H, S, S] score matrix
     encoder_layer_b64_s512_f32      the fused op (the fastpath), no mask
     encoder_layer_pad_b64_s512_f32  the fused op with a key padding mask (sequences
                                     of 512 - 4 b tokens: the tiles skip padded keys)
     encoder_layer_nested_b64_s512_f32  the same padded batch as nested rows: packed
                                     (ct_nested_from_mask: lengths on the host, a
                                     gather on the device), the fused op on the
                                     24,640 real tokens, unpadded (ct_nested_to_padded:
                                     a scatter on the device), all per call (PyTorch:
                                     TransformerEncoder(enable_nested_tensor) of the
                                     layer with the mask: the same three steps)
   and the int8 Linear 4096 x 4096 (ctensor_quant.h on cuBLASLt; per-tensor qint8
   weights, bias), batch 1 and 256:
     q_linear_dynamic_4096_b{1,256}  quantized::linear_dynamic: the float32 input's
                                     range, its codes, the int8 GEMM and the float32
                                     output with the bias (reduce_range off)
     q_linear_4096_b{1,256}          quantized::linear: quint8 in, quint8 out
   PyTorch has no quantized Linear on CUDA: its twin composes the same steps from
   its CUDA ops (aminmax, round/clamp, torch._int_mm for the int8 GEMM, the
   dequantisation), skipped when torch._int_mm is missing; _int_mm needs more
   than 16 rows, so its batch 1 pads the input to 32 rows (said in its params).
   Every batch of repetitions ends with a device synchronize inside the timing
   (bench_opts.sync / ctbench.run(sync=...)): kernels are asynchronous. Results
   are fresh tensors per op (a CT_SCOPE per op), as `c = a + b` in PyTorch.

   Build and run (a machine with a GPU and PyTorch with CUDA): make bench-cuda
   (nvcc -O2 -x cu -DCTENSOR_CUDA -I. -Ibench bench/cuda/cuda_ops.c -lcusolver -lcublas
   -lcublasLt -llapacke -lopenblas).
   Without a GPU it prints a comment line and exits 0. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_linalg.h"
#include "ctensor_quant.h"
#include "ctensor_cuda.h"

static ct_device GPU;
static ct_tensor *volatile sink;
static void sync_gpu(void) { (void)ct_cuda_synchronize(); }

typedef struct job {
    int op;
    ct_tensor *a, *b;
} job;
enum { OP_MM, OP_CLONE, OP_ADD, OP_MUL, OP_GELU, OP_SOFTMAX, OP_CHAIN10, OP_CHOL, OP_SOLVE, OP_EIGH, OP_SVD, OP_QR, OP_TRSM };

static void run_op(void *u) {
    const job *j = (const job *)u;
    CT_SCOPE {
        switch (j->op) {
        case OP_MM: sink = ct_mm(j->a, j->b); break;
        case OP_CLONE: sink = ct_clone(j->a); break;
        case OP_ADD: sink = ct_add(j->a, j->b); break;
        case OP_MUL: sink = ct_mul(j->a, j->b); break;
        case OP_GELU: sink = ct_gelu(j->a, "none"); break;
        case OP_SOFTMAX: sink = ct_softmax(j->a, -1); break;
        case OP_CHOL: sink = ct_linalg_cholesky(j->a); break;
        case OP_SOLVE: sink = ct_linalg_solve(j->a, j->b); break;
        case OP_EIGH: sink = ct_linalg_eigh(j->a, "L").eigenvectors; break;
        case OP_SVD: sink = ct_linalg_svd(j->a, 0).U; break;
        case OP_QR: sink = ct_linalg_qr(j->a, "reduced").Q; break;
        case OP_TRSM: sink = ct_linalg_solve_triangular(j->a, j->b, 1, 1, 0); break;
        case OP_CHAIN10: {
            ct_tensor *x = j->a;
            x = ct_mul_scalar(x, 0.5);
            x = ct_add(x, j->b);
            x = ct_relu(x);
            x = ct_exp(ct_neg(x));
            x = ct_sub(x, j->b);
            x = ct_mul(x, x);
            x = ct_add_scalar(x, 1.0);
            x = ct_sqrt(x);
            sink = ct_tanh(x);
            break;
        }
        }
    }
}

/* a tensor made on the CPU (randn, seeded) and copied to the device */
static ct_tensor *on_gpu(ct_dtype dt, int64_t rows, int64_t cols) {
    ct_tensor *r = NULL;
    CT_SCOPE { r = ct_retain(ct_to_device(ct_to(ct_randn(CT_FLOAT32, rows, cols), dt), GPU)); }
    if (!r) { fprintf(stderr, "cuda_ops: setup failed: %s\n", ct_last_error()); exit(1); }
    return r;
}
/* batch x n x n on the device: symmetric positive-definite (X X^T + n I) when spd,
   else randn + n I (well conditioned) */
static ct_tensor *mats_gpu(int64_t batch, int64_t n, int spd) {
    ct_tensor *r = NULL;
    CT_SCOPE {
        ct_tensor *x = ct_randn_on(GPU, CT_FLOAT32, batch, n, n), *eye = ct_mul_scalar(ct_eye_on(GPU, n, n, CT_FLOAT32), (double)n);
        ct_tensor *t = spd ? ct_add(ct_matmul(x, ct_mT(x)), eye) : ct_add(x, eye);
        r = t ? ct_retain(batch == 1 ? ct_contiguous(ct_select(t, 0, 0)) : t) : NULL;
    }
    if (!r) { fprintf(stderr, "cuda_ops: setup failed: %s\n", ct_last_error()); exit(1); }
    return r;
}
/* runs the case once and checks that it worked before timing it */
static void checked(const char *name, const char *params, job *j, const bench_opts *o) {
    if (!bench_selected(name)) return;
    sink = NULL;
    run_op(j);
    if (!sink || ct_cuda_synchronize() != CT_OK) { printf("# %s: failed: %s\n", name, ct_last_error()); return; }
    bench_run_opts(name, params, run_op, j, o);
}

static void alloc_loop(void *u) {
    (void)u;
    static const int64_t sizes[8] = {1024, 4096, 16384, 65536, 262144, 2048, 8192, 32768};   /* float32 elements: 4 KiB .. 1 MiB */
    CT_SCOPE {
        for (int i = 0; i < 64; i++) sink = ct_empty_on(GPU, CT_FLOAT32, sizes[i % 8]);
    }
}

/* the fused encoder layer op (ct::transformer_encoder_layer_fwd) on device operands */
typedef struct layer_job { int op, nin; ct_tensor *in[14]; ct_attrs a; } layer_job;
static void layer_step(void *u) {
    layer_job *l = (layer_job *)u;
    ct_tensor *out[1] = {NULL};
    CT_SCOPE {
        sink = ct_dispatch(l->op, l->nin, l->in, &l->a, NULL, 0, out, 1) == 1 ? out[0] : NULL;
    }
}

/* the same layer on nested rows: ct_nested_from_mask (the mask's lengths read on
   the host, as PyTorch's nested_tensor_from_mask; the rows gathered on the
   device), the fused op in nested mode (offsets on the device), unpadded by
   ct_nested_to_padded (a scatter on the device); in[0] the padded batch, in[13]
   the mask */
static void nested_step(void *u) {
    layer_job *l = (layer_job *)u;
    CT_SCOPE {
        ct_nested nt;
        ct_tensor *in[14], *out[1] = {NULL};
        sink = NULL;
        if (ct_nested_from_mask(l->in[0], l->in[13], &nt) == CT_OK) {
            ct_tensor *parts[2] = {ct_zeros(CT_INT64, 1), ct_cumsum(nt.lengths, 0)};
            ct_tensor *off = parts[1] ? ct_to_device(ct_cat(2, parts, 0), GPU) : NULL;
            memcpy(in, l->in, sizeof in);
            in[0] = nt.values;
            in[13] = off;
            if (off && ct_dispatch(l->op, 14, in, &l->a, NULL, 0, out, 1) == 1) {
                nt.values = out[0];
                sink = ct_nested_to_padded(&nt, 0.0);
            }
        }
    }
}
/* the layer module on the regular path (the fastpath off) */
typedef struct module_job { ct_module *m; ct_tensor *x; } module_job;
static void module_step(void *u) {
    module_job *j = (module_job *)u;
    CT_SCOPE { sink = ct_transformer_encoder_forward(j->m, j->x, NULL, NULL); }
}
/* the int8 Linears: x float32 (dynamic) or quint8 (static) on the device */
typedef struct qlin_job { int dynamic; ct_tensor *x; ct_q_linear_packed *w; } qlin_job;
static void qlin_step(void *u) {
    qlin_job *j = (qlin_job *)u;
    CT_SCOPE { sink = j->dynamic ? ct_q_linear_dynamic(j->x, j->w, 0) : ct_q_linear(j->x, j->w, 0.5, 128); }
}

typedef struct train_job { ct_module *model; ct_optimizer *opt; ct_tensor *x, *y; } train_job;
static void train_step(void *u) {
    train_job *t = (train_job *)u;
    CT_SCOPE {
        ct_tensor *loss = ct_cross_entropy(ct_forward(t->model, t->x), t->y, NULL);
        ct_zero_grad(t->opt);
        if (ct_backward(loss) != CT_OK || ct_step(t->opt) != CT_OK) sink = NULL;
        else sink = loss;
    }
}

int main(void) {
    bench_begin("cuda_ops");
    if (ct_cuda_device_count() < 1) {
        printf("# cuda_ops: no CUDA device: skipped\n");
        return 0;
    }
    char name[256];
    printf("# device: %s\n", ct_cuda_device_name(0, name, sizeof name));
    GPU = ct_cuda(0);
    ct_manual_seed(0);
    bench_opts o;
    memset(&o, 0, sizeof o);
    o.sync = sync_gpu;

    /* GEMM 4096 */
    const int64_t n = 4096;
    o.flops = 2.0 * (double)n * n * n;
    static const ct_dtype gdt[4] = {CT_FLOAT32, CT_FLOAT32, CT_BFLOAT16, CT_FLOAT16};
    static const char *const gname[4] = {"gemm_4096_f32", "gemm_4096_tf32", "gemm_4096_bf16", "gemm_4096_f16"};
    for (int k = 0; k < 4; k++) {
        if (!bench_selected(gname[k])) continue;
        job j = {OP_MM, on_gpu(gdt[k], n, n), on_gpu(gdt[k], n, n)};
        ct_cuda_set_allow_tf32(k == 1);
        checked(gname[k], k == 1 ? "4096x4096 @ 4096x4096, allow_tf32" : "4096x4096 @ 4096x4096", &j, &o);
        ct_release(j.a);
        ct_release(j.b);
    }
    ct_cuda_set_allow_tf32(0);
    o.flops = 0;

    /* memory-bound ops on 100M float32 elements */
    {
        const int64_t rows = 100000, cols = 1000;
        job j = {OP_CLONE, on_gpu(CT_FLOAT32, rows, cols), on_gpu(CT_FLOAT32, rows, cols)};
        const double e = (double)rows * cols;
        o.bytes = 8 * e;
        checked("copy_100M_f32", "clone of [100000, 1000]", &j, &o);
        o.bytes = 12 * e;
        j.op = OP_ADD;
        checked("add_100M_f32", "a + b, [100000, 1000]", &j, &o);
        j.op = OP_MUL;
        checked("mul_100M_f32", "a * b, [100000, 1000]", &j, &o);
        o.bytes = 8 * e;
        j.op = OP_GELU;
        checked("gelu_100M_f32", "gelu (erf), [100000, 1000]", &j, &o);
        j.op = OP_SOFTMAX;
        checked("softmax_100M_f32", "softmax(dim=-1), [100000, 1000]", &j, &o);
        ct_release(j.a);
        ct_release(j.b);
        o.bytes = 0;
    }

    /* small tensors: launch and allocation overhead */
    {
        job j = {OP_ADD, on_gpu(CT_FLOAT32, 4, 4), on_gpu(CT_FLOAT32, 4, 4)};
        checked("small_add_4x4_f32", "a + b, 4x4", &j, &o);
        ct_release(j.a);
        ct_release(j.b);
        job c = {OP_CHAIN10, on_gpu(CT_FLOAT32, 1, 1000), on_gpu(CT_FLOAT32, 1, 1000)};
        o.ops_per_call = 10;
        checked("small_chain10_1k_f32", "10 elementwise ops on 1000 elements (per op)", &c, &o);
        ct_release(c.a);
        ct_release(c.b);
        o.ops_per_call = 64;
        bench_run_opts("alloc_loop_64", "64 tensors, 4 KiB - 1 MiB (per tensor)", alloc_loop, NULL, &o);
        o.ops_per_call = 0;
    }

    /* linear algebra (issue 16): cuSOLVER */
    {
        job j = {OP_CHOL, NULL, NULL};
        if (bench_selected("cholesky_4096_f32")) {
            j.a = mats_gpu(1, 4096, 1);
            o.flops = 4096.0 * 4096.0 * 4096.0 / 3.0;
            checked("cholesky_4096_f32", "linalg.cholesky, 4096 x 4096", &j, &o);
            j.op = OP_SOLVE;
            j.b = on_gpu(CT_FLOAT32, 4096, 128);
            o.flops = 2.0 * 4096.0 * 4096.0 * 4096.0 / 3.0 + 2.0 * 4096.0 * 4096.0 * 128.0;
            checked("solve_4096_f32", "linalg.solve, A 4096 x 4096, B 4096 x 128", &j, &o);
            ct_release(j.a);
            ct_release(j.b);
        }
        o.flops = 0;
        j.op = OP_CHOL;
        j.a = mats_gpu(10000, 32, 1);
        checked("cholesky_b10000_32_f32", "linalg.cholesky, 10000 x 32 x 32", &j, &o);
        j.op = OP_SOLVE;
        CT_SCOPE { j.b = ct_retain(ct_randn_on(GPU, CT_FLOAT32, 10000, 32, 1)); }
        checked("solve_b10000_32_f32", "linalg.solve, 10000 x 32 x 32, B 10000 x 32 x 1", &j, &o);
        ct_release(j.a);
        ct_release(j.b);
        j.op = OP_EIGH;
        j.a = mats_gpu(1, 1024, 1);
        j.b = NULL;
        checked("eigh_1024_f32", "linalg.eigh, 1024 x 1024", &j, &o);
        ct_release(j.a);
        j.op = OP_SVD;
        j.a = mats_gpu(1000, 32, 0);
        checked("svd_b1000_32_f32", "linalg.svd(full_matrices=False), 1000 x 32 x 32", &j, &o);
        ct_release(j.a);
        j.op = OP_QR;
        j.a = mats_gpu(10000, 32, 0);
        checked("qr_b10000_32_f32", "linalg.qr, 10000 x 32 x 32", &j, &o);
        j.op = OP_TRSM;
        CT_SCOPE { j.b = ct_retain(ct_randn_on(GPU, CT_FLOAT32, 10000, 32, 1)); }
        checked("solve_triangular_b10000_32_f32", "linalg.solve_triangular(upper), 10000 x 32 x 32, B 10000 x 32 x 1", &j, &o);
        ct_release(j.a);
        ct_release(j.b);
    }

    /* a BERT-base encoder layer (d_model 768, 12 heads, feed-forward 3072, relu,
       post-norm) at batch 64, sequence 512, float32, inference: the fused op
       with cuBLAS GEMMs and the fused attention kernel; with a key padding mask
       (sequences of 512 - 4 b tokens: the tiles skip the padded keys); on nested
       rows (the real tokens only) */
    if (bench_selected("encoder_layer_b64_s512_f32") || bench_selected("encoder_layer_pad_b64_s512_f32") ||
        bench_selected("encoder_layer_nested_b64_s512_f32")) {
        const int64_t B = 64, S = 512, E = 768, F = 3072;
        layer_job l;
        memset(&l, 0, sizeof l);
        l.op = ct_op_find("ct::transformer_encoder_layer_fwd");
        l.a.i[0] = 12;
        l.a.s[0] = l.a.s[1] = 1e-5;
        const int64_t shp[13][2] = {{B * S, E}, {3 * E, E}, {3 * E, 1}, {E, E}, {E, 1}, {E, 1}, {E, 1}, {E, 1}, {E, 1}, {F, E}, {F, 1}, {E, F}, {E, 1}};
        CT_SCOPE {
            for (int i = 0; i < 13; i++) {
                ct_tensor *t = ct_mul_scalar(ct_randn_on(GPU, CT_FLOAT32, shp[i][0], shp[i][1]), i == 0 ? 1.0 : 0.03);
                l.in[i] = ct_retain(i == 0 ? ct_reshape(t, B, S, E) : shp[i][1] == 1 ? ct_reshape(t, shp[i][0]) : t);
            }
            ct_tensor *pos = ct_arange_on(GPU, 0, (double)S, 1, CT_INT64), *len = ct_rsub_scalar((double)S, ct_mul_scalar(ct_arange_on(GPU, 0, (double)B, 1, CT_INT64), 4.0));
            l.in[13] = ct_retain(ct_ge(ct_unsqueeze(pos, 0), ct_unsqueeze(len, 1)));   /* true: a padding key */
        }
        o.flops = 2.0 * (double)B * S * (4.0 * E * E + 2.0 * E * F) + 4.0 * (double)B * S * S * E;
        for (int pad = 0; pad < 2; pad++) {
            const char *nm = pad ? "encoder_layer_pad_b64_s512_f32" : "encoder_layer_b64_s512_f32";
            if (!bench_selected(nm)) continue;
            l.a.mode = pad;
            l.nin = 13 + pad;
            sink = NULL;
            layer_step(&l);
            if (!sink || ct_cuda_synchronize() != CT_OK) { printf("# %s: failed: %s\n", nm, ct_last_error()); continue; }
            bench_run_opts(nm, pad ? "fused encoder layer, BERT-base, [64, 512, 768], key padding (lengths 512 - 4b)"
                                   : "fused encoder layer, BERT-base, [64, 512, 768]", layer_step, &l, &o);
        }
        if (bench_selected("encoder_layer_nested_b64_s512_f32")) {
            l.a.mode = 2;   /* nested */
            sink = NULL;
            nested_step(&l);
            if (!sink || ct_cuda_synchronize() != CT_OK) printf("# encoder_layer_nested_b64_s512_f32: failed: %s\n", ct_last_error());
            else bench_run_opts("encoder_layer_nested_b64_s512_f32",
                                "fused encoder layer, BERT-base, [64, 512, 768] as nested rows (lengths 512 - 4b): pack, layer, unpad", nested_step, &l, &o);
        }
        o.flops = 0;
        for (int i = 0; i < 14; i++) ct_release(l.in[i]);
    }
    /* the same layer as a module on the regular path (fastpath off): the unfused ops */
    if (bench_selected("encoder_layer_regular_b64_s512_f32")) {
        const int64_t B = 64, S = 512, E = 768;
        ct_transformer_layer_options lo;
        memset(&lo, 0, sizeof lo);
        lo.dim_feedforward = 3072;
        lo.dropout = CT_ZERO;
        lo.batch_first = 1;
        module_job mj;
        mj.m = ct_module_eval(ct_nn_transformer_encoder_layer(E, 12, &lo));
        if (!mj.m || !ct_module_to(mj.m, GPU)) { printf("# encoder_layer_regular_b64_s512_f32: failed: %s\n", ct_last_error()); return 0; }
        CT_SCOPE { mj.x = ct_retain(ct_randn_on(GPU, CT_FLOAT32, B, S, E)); }
        int g = ct_set_grad_enabled(0);
        ct_set_transformer_fastpath(0);
        o.flops = 2.0 * (double)B * S * (4.0 * E * E + 2.0 * E * 3072) + 4.0 * (double)B * S * S * E;
        sink = NULL;
        module_step(&mj);
        if (!sink || ct_cuda_synchronize() != CT_OK) printf("# encoder_layer_regular_b64_s512_f32: failed: %s\n", ct_last_error());
        else bench_run_opts("encoder_layer_regular_b64_s512_f32", "encoder layer module, fastpath off, BERT-base, [64, 512, 768]", module_step, &mj, &o);
        o.flops = 0;
        ct_set_transformer_fastpath(1);
        ct_set_grad_enabled(g);
        ct_release(mj.x);
        ct_module_free(mj.m);
    }

    /* the int8 Linear 4096 x 4096 on cuBLASLt, batch 1 and 256 */
    {
        const int64_t K = 4096, N = 4096;
        ct_q_linear_packed *w = NULL, *wd = NULL;
        CT_SCOPE {
            ct_tensor *wq = ct_quantize_per_tensor(ct_mul_scalar(ct_randn(CT_FLOAT32, N, K), 0.02), 0.0005, 0, CT_QINT8);
            w = wq ? ct_q_linear_prepack(wq, ct_randn(CT_FLOAT32, N)) : NULL;
            wd = w ? ct_cuda_q_linear_packed_to(w, GPU) : NULL;
        }
        static const int64_t qb[2] = {1, 256};
        for (int k = 0; k < 4 && wd; k++) {
            char nm[64], prm[128];
            int dyn = k < 2;
            int64_t M = qb[k % 2];
            snprintf(nm, sizeof nm, "%s_4096_b%lld", dyn ? "q_linear_dynamic" : "q_linear", (long long)M);
            if (!bench_selected(nm)) continue;
            snprintf(prm, sizeof prm, "%s, [%lld, 4096] x 4096 x 4096 int8, per-tensor weight, bias", dyn ? "float32 in and out" : "quint8 in and out",
                     (long long)M);
            qlin_job j = {dyn, NULL, wd};
            CT_SCOPE {
                ct_tensor *x = ct_randn_on(GPU, CT_FLOAT32, M, K);
                j.x = ct_retain(dyn ? x : ct_to_device(ct_quantize_per_tensor(ct_to_device(x, ct_cpu()), 0.03, 128, CT_QUINT8), GPU));
            }
            o.flops = 2.0 * (double)M * N * K;
            sink = NULL;
            qlin_step(&j);
            if (!sink || ct_cuda_synchronize() != CT_OK) printf("# %s: failed: %s\n", nm, ct_last_error());
            else bench_run_opts(nm, prm, qlin_step, &j, &o);
            o.flops = 0;
            ct_release(j.x);
        }
        if (!wd) printf("# q_linear: setup failed: %s\n", ct_last_error());
        ct_q_linear_packed_free(w);
        ct_q_linear_packed_free(wd);
    }

    /* the Fashion-MNIST CNN's training step */
    if (bench_selected("cnn_train_step_b64")) {
        train_job t;
        t.model = ct_nn_sequential(ct_nn_conv2d(1, 32, 3, 1, 1), ct_nn_batch_norm2d(32), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                                   ct_nn_conv2d(32, 64, 3, 1, 1), ct_nn_batch_norm2d(64), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                                   ct_nn_flatten(), ct_nn_linear(3136, 128), ct_nn_relu(), ct_nn_linear(128, 10));
        if (!t.model || !ct_module_to(t.model, GPU)) { printf("# cnn_train_step_b64: failed: %s\n", ct_last_error()); return 0; }
        ct_sgd_options so;
        memset(&so, 0, sizeof so);
        so.lr = 0.01;
        so.momentum = 0.9;
        t.opt = ct_optim_sgd(t.model, &so);
        CT_SCOPE {
            t.x = ct_retain(ct_to_device(ct_randn(CT_FLOAT32, 64, 1, 28, 28), GPU));
            t.y = ct_retain(ct_to_device(ct_randint(0, 10, CT_INT64, 64), GPU));
        }
        sink = NULL;
        train_step(&t);
        if (!sink || ct_cuda_synchronize() != CT_OK) printf("# cnn_train_step_b64: failed: %s\n", ct_last_error());
        else bench_run_opts("cnn_train_step_b64", "Fashion-MNIST CNN, batch 64, SGD momentum", train_step, &t, &o);
        ct_release(t.x);
        ct_release(t.y);
        ct_optim_free(t.opt);
        ct_module_free(t.model);
    }
    return 0;
}
