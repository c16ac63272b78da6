/* test_dist_nccl.h - ctensor_dist.h's "nccl" backend, included by tests/cuda/test_cuda.c
   when the emulator build has Open MPI (CT_TEST_NCCL: the Makefile adds mpicc's flags,
   -DCTENSOR_NCCL and tests/dist/emu, whose nccl.h is NCCL emulated over MPI on the
   emulated device memory). `mpirun -np 2 test_cuda_emu --nccl` runs it (tests/dist/run.sh
   does); a GPU build would run the same against the real NCCL (not done yet: no GPU
   here). Every collective on CUDA tensors against the result computed on the host from
   every rank's input; async handles; send/recv; the errors (a CPU tensor, a dtype NCCL
   cannot reduce); DDP on CUDA parameters against one process training the same float64
   model on the whole global batch on the CPU (within 1e-12); FSDP on CUDA parameters
   (flat parameters, shards, gradients and collectives in device memory) in each
   strategy, with offload_params, forward prefetch and activation checkpointing,
   against the same (within 1e-12), its FULL state dict and full optimizer state dict
   (host tensors on rank 0) and loading them back, a SHARDED round trip; NO_SHARD in
   float32 bit for bit on exact (dyadic) data; bfloat16 mixed precision in each
   strategy, with and without offload, against the same by hand on the device; FSDP's
   device errors (host parameters for "nccl", parameters on two devices, CUDA ones for
   "single", a SHARDED dict of another shape; with two emulated devices, parameters
   and tensors on another GPU than the group's, for FSDP, DDP and all_reduce);
   examples/fsdp_train.c's CUDA mode (--cuda: minGPT on the device), tiny, its loss falls.
   Rank 0 prints the sum of every rank's "N passed, N failed". */
#ifndef CT_TEST_DIST_NCCL_H
#define CT_TEST_DIST_NCCL_H

#define FSDP_TRAIN_NO_MAIN   /* examples/fsdp_train.c's model and loop: its CUDA mode on the "nccl" group */
#include "../../examples/fsdp_train.c"

static int NR, NW;   /* rank, world size */
static ct_device NDEV;

static double nv(int op, int r, int i) {
    if (op == CT_REDUCE_PRODUCT) return (double)((r + i) % 3 + 1);
    if (op < 0) return (double)((r + i) % 2);   /* bool */
    return (double)(r * 3 + i % 7 - 3);
}
static double nvd(ct_dtype dt, int op, int r, int i) {   /* (uint8: no negative values) */
    double v = nv(dt == CT_BOOL ? -1 : op, r, i);
    return dt == CT_UINT8 && v < 0 ? -v : v;
}
/* rank r's input, made on the host and copied to the device */
static ct_tensor *n_input(ct_dtype dt, int op, int r, int64_t n) {
    ct_tensor *t = ct_zeros(CT_FLOAT64, n);
    double *p = (double *)ct_data_ptr(t);
    for (int64_t i = 0; i < n; i++) p[i] = nvd(dt, op, r, (int)i);
    return ct_to_device(ct_to(t, dt), NDEV);
}
static ct_tensor *n_ref(ct_dtype dt, int op, int64_t n) {
    ct_tensor *t = ct_zeros(CT_FLOAT64, n);
    double *p = (double *)ct_data_ptr(t);
    for (int64_t i = 0; i < n; i++) {
        double acc = 0;
        for (int r = 0; r < NW; r++) {
            double v = nvd(dt, op, r, (int)i);
            if (r == 0) acc = v;
            else if (dt == CT_BOOL) acc = (op == CT_REDUCE_SUM || op == CT_REDUCE_MAX) ? (acc || v) : (acc && v);
            else if (op == CT_REDUCE_SUM || op == CT_REDUCE_AVG) acc += v;
            else if (op == CT_REDUCE_PRODUCT) acc *= v;
            else if (op == CT_REDUCE_MAX) acc = v > acc ? v : acc;
            else acc = v < acc ? v : acc;
        }
        p[i] = op == CT_REDUCE_AVG ? acc / NW : acc;
    }
    return ct_to(t, dt);
}
/* a device result equals the host reference */
static int n_same(const ct_tensor *dev, const ct_tensor *ref) {
    if (!dev || !ref || dev->device.type != CT_CUDA) return 0;
    ct_tensor *h = ct_to_device(dev, ct_cpu());
    return h && ct_equal(ct_to(h, CT_FLOAT64), ct_to(ref, CT_FLOAT64)) == 1;
}

TEST(test_nccl_collectives) {
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_BFLOAT16, CT_INT64, CT_INT32, CT_INT8, CT_UINT8, CT_BOOL};
    enum { N = 6 };
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        ct_dtype dt = dts[k];
        for (int op = 0; op < CT_REDUCE_NUM_OPS; op++) {
            if (op == CT_REDUCE_AVG && !ct_dtype_is_floating(dt)) continue;
            if (dt == CT_UINT8 && op != CT_REDUCE_MAX && op != CT_REDUCE_MIN) continue;   /* (sums past 255) */
            ct_tensor *t = n_input(dt, op, NR, N);
            CHECK_EQ_INT(ct_dist_all_reduce(t, (ct_reduce_op)op, NULL, NULL), CT_OK);
            CT_T_REPORT(n_same(t, n_ref(dt, op, N)), "all_reduce of %s, op %d", ct_dtype_name(dt), op);
            /* reduce_scatter_tensor: rank r's output is the reduction of chunk r */
            if (dt != CT_UINT8) {
                ct_tensor *in = n_input(dt, op, NR, (int64_t)NW * N), *out = ct_empty_on(NDEV, dt, N);
                CHECK_EQ_INT(ct_dist_reduce_scatter_tensor(out, in, (ct_reduce_op)op, NULL, NULL), CT_OK);
                ct_tensor *full = n_ref(dt, op, (int64_t)NW * N);
                CHECK(n_same(out, ct_narrow(full, 0, (int64_t)NR * N, N)));
            }
        }
        /* broadcast from the last rank, all_gather_into_tensor, all_gather (list) */
        ct_tensor *b = n_input(dt, CT_REDUCE_SUM, NR, N);
        CHECK_EQ_INT(ct_dist_broadcast(b, NW - 1, NULL, NULL), CT_OK);
        CHECK(n_same(b, ct_to_device(n_input(dt, CT_REDUCE_SUM, NW - 1, N), ct_cpu())));
        ct_tensor *g = ct_empty_on(NDEV, dt, NW, N);
        CHECK_EQ_INT(ct_dist_all_gather_into_tensor(g, n_input(dt, CT_REDUCE_SUM, NR, N), NULL, NULL), CT_OK);
        ct_tensor *outs[8];
        for (int r = 0; r < NW && r < 8; r++) outs[r] = ct_empty_on(NDEV, dt, N);
        CHECK_EQ_INT(ct_dist_all_gather(NW, outs, n_input(dt, CT_REDUCE_SUM, NR, N), NULL, NULL), CT_OK);
        for (int r = 0; r < NW && r < 8; r++) {
            ct_tensor *want = ct_to_device(n_input(dt, CT_REDUCE_SUM, r, N), ct_cpu());
            CHECK(n_same(ct_select(g, 0, r), want) && n_same(outs[r], want));
        }
    }
    /* reduce_scatter (list form), average, float32 */
    ct_tensor *ins[8];
    for (int r = 0; r < NW && r < 8; r++) ins[r] = n_input(CT_FLOAT32, CT_REDUCE_SUM, NR + r, 4);
    ct_tensor *o = ct_empty_on(NDEV, CT_FLOAT32, 4);
    CHECK_EQ_INT(ct_dist_reduce_scatter(o, NW, ins, CT_REDUCE_AVG, NULL, NULL), CT_OK);
    ct_tensor *acc = ct_zeros(CT_FLOAT64, 4);
    for (int r = 0; r < NW; r++) acc = ct_add(acc, ct_to(ct_to_device(n_input(CT_FLOAT32, CT_REDUCE_SUM, r + NR, 4), ct_cpu()), CT_FLOAT64));
    CHECK(n_same(o, ct_div_scalar(acc, NW)));
    /* int16 moves (as bytes) but does not reduce */
    ct_tensor *s16 = n_input(CT_INT16, CT_REDUCE_SUM, NR, N);
    CHECK_EQ_INT(ct_dist_broadcast(s16, 0, NULL, NULL), CT_OK);
    CHECK(n_same(s16, ct_to_device(n_input(CT_INT16, CT_REDUCE_SUM, 0, N), ct_cpu())));
    CHECK_ERR(ct_dist_all_reduce(s16, CT_REDUCE_SUM, NULL, NULL) == CT_OK, CT_ERR_DTYPE, "all_reduce: NCCL cannot reduce int16 tensors");
    /* a CPU tensor for the NCCL group */
    CHECK_ERR(ct_dist_all_reduce(ct_ones(CT_FLOAT32, 3), CT_REDUCE_SUM, NULL, NULL) == CT_OK, CT_ERR_DEVICE,
              "all_reduce: the tensor must be a CUDA tensor for the nccl backend (got one on cpu)");
    CHECK_EQ_INT(ct_dist_barrier(NULL, NULL), CT_OK);
}

TEST(test_nccl_async_p2p) {
    /* several collectives in flight, then waited for in another order */
    ct_tensor *a = n_input(CT_FLOAT32, CT_REDUCE_SUM, NR, 1000), *b = n_input(CT_FLOAT64, CT_REDUCE_MAX, NR, 7);
    ct_work *wa = NULL, *wb = NULL, *wc = NULL;
    CHECK_EQ_INT(ct_dist_all_reduce(a, CT_REDUCE_SUM, NULL, &wa), CT_OK);
    CHECK_EQ_INT(ct_dist_all_reduce(b, CT_REDUCE_MAX, NULL, &wb), CT_OK);
    CHECK_EQ_INT(ct_dist_barrier(NULL, &wc), CT_OK);
    CHECK(wa && wb && wc);
    int t = wb ? ct_work_test(wb) : -1;
    CHECK(t == 0 || t == 1);
    CHECK_EQ_INT(ct_work_wait(wb), CT_OK);
    CHECK_EQ_INT(ct_work_wait(wc), CT_OK);
    CHECK_EQ_INT(ct_work_wait(wa), CT_OK);
    CHECK(n_same(a, n_ref(CT_FLOAT32, CT_REDUCE_SUM, 1000)));
    CHECK(n_same(b, n_ref(CT_FLOAT64, CT_REDUCE_MAX, 7)));
    /* send/recv around a ring: rank r sends to r+1 (even ranks first, so no rank waits on itself) */
    if (NW > 1) {
        ct_tensor *mine = n_input(CT_INT64, CT_REDUCE_SUM, NR, 5), *got = ct_zeros_on(NDEV, CT_INT64, 5);
        int to = (NR + 1) % NW, from = (NR + NW - 1) % NW;
        if (NR % 2 == 0) {
            CHECK_EQ_INT(ct_dist_send(mine, to, NULL, 3, NULL), CT_OK);
            CHECK_EQ_INT(ct_dist_recv(got, from, NULL, 3, NULL), CT_OK);
        } else {
            CHECK_EQ_INT(ct_dist_recv(got, from, NULL, 3, NULL), CT_OK);
            CHECK_EQ_INT(ct_dist_send(mine, to, NULL, 3, NULL), CT_OK);
        }
        CHECK(n_same(got, ct_to_device(n_input(CT_INT64, CT_REDUCE_SUM, from, 5), ct_cpu())));
    }
}

/* DDP with its parameters on the device against one process on the host */
static ct_module *n_mlp(uint64_t seed) {
    ct_manual_seed(seed);
    return ct_module_to_dtype(ct_nn_sequential(ct_nn_linear(10, 32), ct_nn_tanh(), ct_nn_linear(32, 4)), CT_FLOAT64);
}
TEST(test_nccl_ddp) {
    enum { B = 5, STEPS = 3 };
    ct_module *ref = n_mlp(42), *net = ct_module_to(n_mlp(42 + (uint64_t)NR), NDEV);   /* DDP broadcasts rank 0's */
    ct_ddp_options o = {0.001, 0};   /* ~1 KB buckets: several, reduced during backward */
    ct_ddp *ddp = ct_ddp_new(net, NULL, &o);
    CHECK(ddp != NULL);
    if (!ddp) { ct_module_free(ref); ct_module_free(net); return; }
    CHECK(ct_ddp_num_buckets(ddp) >= 2);
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.05;
    so.momentum = 0.9;
    ct_optimizer *o1 = ct_optim_sgd(ref, &so), *o2 = ct_optim_sgd(net, &so);
    ct_manual_seed(1000);
    for (int step = 0; step < STEPS; step++) CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)NW * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)NW * B, 4);
        ct_zero_grad(o1);
        ct_backward(ct_mse_loss(ct_forward(ref, x), y, NULL));
        ct_step(o1);
        ct_zero_grad(o2);
        ct_tensor *xl = ct_to_device(ct_narrow(x, 0, (int64_t)NR * B, B), NDEV), *yl = ct_to_device(ct_narrow(y, 0, (int64_t)NR * B, B), NDEV);
        CHECK_EQ_INT(ct_ddp_backward(ddp, ct_mse_loss(ct_ddp_forward(ddp, xl), yl, NULL)), CT_OK);
        ct_step(o2);
    }
    ct_tensor *pa[8], *pb[8];
    int n = ct_module_parameters(ref, pa, 8);
    CHECK_EQ_INT(ct_module_parameters(net, pb, 8), n);
    for (int i = 0; i < n && i < 8; i++) {
        CHECK(pb[i]->device.type == CT_CUDA);
        CHECK(ct_allclose(pa[i], ct_to_device(pb[i], ct_cpu()), 1e-12, 1e-14) == 1);
    }
    ct_optim_free(o1);
    ct_optim_free(o2);
    ct_ddp_free(ddp);
    ct_module_free(ref);
    ct_module_free(net);
}

#define NOK(expr) CT_T_REPORT((expr) == CT_OK, "%s: %s", #expr, ct_last_error())
/* ---- FSDP on CUDA parameters through the NCCL group ---- */
static ct_module *n_mlp3(uint64_t seed) {   /* three units at min_num_params 100: two Linears and the root */
    ct_manual_seed(seed);
    return ct_module_to_dtype(ct_nn_sequential(ct_nn_linear(10, 32), ct_nn_tanh(), ct_nn_linear(32, 16), ct_nn_relu(),
                                               ct_nn_linear(16, 4)),
                              CT_FLOAT64);
}
/* module a's parameters (host) against b's (any device) */
static int n_close(ct_module *a, ct_module *b, double rtol, double atol, int exact) {
    ct_tensor *pa[16], *pb[16];
    int n = ct_module_parameters(a, pa, 16), ok = n == ct_module_parameters(b, pb, 16);
    for (int i = 0; ok && i < n; i++) {
        ct_tensor *h = ct_to_device(pb[i], ct_cpu());
        ok = h && (exact ? ct_equal(pa[i], h) == 1 : ct_allclose(pa[i], h, rtol, atol) == 1);
    }
    return ok;
}
/* FSDP of a float64 MLP on the device in every strategy (3..5: offload_params, the shards
   in host memory; 6: FULL_SHARD with forward prefetch; 7: FULL_SHARD with activation
   checkpointing), Adam on the shards, against one process training the same model on
   the whole global batch on the CPU (within 1e-12); then the FULL state dict (host
   tensors on rank 0), loaded back, and the full optimizer state dict */
TEST(test_nccl_fsdp) {
    enum { B = 6, STEPS = 4 };
    for (int c = 0; c < 8; c++) {
        int strat = c < 6 ? c % 3 : (int)CT_FSDP_FULL_SHARD, off = c >= 3 && c < 6;
        ct_module *ref = n_mlp3(21), *net = ct_module_to(n_mlp3(21 + (uint64_t)NR), NDEV);
        ct_fsdp_options fo;
        memset(&fo, 0, sizeof fo);
        fo.sharding_strategy = (ct_fsdp_strategy)strat;
        fo.min_num_params = 100;
        fo.forward_prefetch = c == 6;
        fo.activation_checkpointing = c == 7;
        fo.offload_params = off;
        ct_fsdp *f = ct_fsdp_new(net, NULL, &fo);
        CT_T_REPORT(f != NULL, "ct_fsdp_new, case %d: %s", c, ct_last_error());
        if (!f) { ct_module_free(ref); ct_module_free(net); continue; }
        CHECK_EQ_INT(ct_fsdp_num_units(f), 3);
        ct_tensor *shards[8];
        int ns = ct_fsdp_parameters(f, shards, 8);
        for (int i = 0; i < ns; i++) CHECK(shards[i]->device.type == (off ? CT_CPU : CT_CUDA));
        ct_adam_options ao;
        memset(&ao, 0, sizeof ao);
        ao.lr = 0.01;
        ct_optimizer *o1 = ct_optim_adam(ref, &ao), *o2 = ct_optim_adam_params(ns, shards, &ao);
        ct_manual_seed(3000);
        for (int step = 0; step < STEPS; step++) CT_SCOPE {
            ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)NW * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)NW * B, 4);
            ct_zero_grad(o1);
            ct_backward(ct_mse_loss(ct_forward(ref, x), y, NULL));
            ct_step(o1);
            ct_zero_grad(o2);
            /* (step 1 gives the input on the host: FSDP moves it to the device, as PyTorch's) */
            ct_tensor *xl = ct_narrow(x, 0, (int64_t)NR * B, B), *yl = ct_to_device(ct_narrow(y, 0, (int64_t)NR * B, B), NDEV);
            if (step != 1) xl = ct_to_device(xl, NDEV);
            ct_tensor *out = ct_fsdp_forward(f, xl);
            CHECK(out && out->device.type == CT_CUDA);
            CT_T_REPORT(ct_fsdp_backward(f, ct_mse_loss(out, yl, NULL)) == CT_OK, "backward, case %d: %s", c, ct_last_error());
            ct_step(o2);
        }
        NOK(ct_fsdp_summon_full_params(f));
        CT_T_REPORT(n_close(ref, net, 1e-12, 1e-14, 0), "FSDP case %d against one process", c);
        /* FULL state dict: rank 0 gets host tensors under the module's names */
        ct_state_dict sd;
        NOK(ct_fsdp_state_dict(f, CT_FSDP_FULL_STATE_DICT, &sd));
        if (NR == 0) {
            ct_tensor *w = NULL;
            for (int i = 0; i < sd.n; i++)
                if (!strcmp(sd.items[i].name, "2.weight")) w = sd.items[i].tensor;
            CHECK_EQ_INT(sd.n, 6);
            CHECK(w && w->device.type == CT_CPU && ct_allclose(w, ct_module_get(ref, "2.weight"), 1e-12, 1e-14) == 1);
        } else CHECK_EQ_INT(sd.n, 0);
        NOK(ct_fsdp_load_state_dict(f, CT_FSDP_FULL_STATE_DICT, &sd));
        ct_state_dict_free(&sd);
        /* the full optimizer state dict: host tensors keyed by the module's parameters */
        ct_state_dict osd;
        NOK(ct_fsdp_full_optim_state_dict(f, o2, &osd));
        if (NR == 0) {
            ct_state_dict rsd;
            NOK(ct_optim_state_dict(o1, &rsd));
            int found = 0;
            for (int i = 0; i < osd.n; i++)
                if (!strcmp(osd.items[i].name, "state.2.exp_avg")) {
                    found = 1;
                    CHECK(osd.items[i].tensor->device.type == CT_CPU);
                    for (int k = 0; k < rsd.n; k++)
                        if (!strcmp(rsd.items[k].name, "state.2.exp_avg"))
                            CHECK(ct_allclose(osd.items[i].tensor, rsd.items[k].tensor, 1e-10, 1e-14) == 1);
                }
            CHECK(found);
            ct_state_dict_free(&rsd);
        }
        NOK(ct_fsdp_load_full_optim_state_dict(f, o2, &osd));
        ct_state_dict_free(&osd);
        /* a SHARDED state dict round trip (this rank's shards, on their device) */
        ct_state_dict ssd;
        NOK(ct_fsdp_state_dict(f, CT_FSDP_SHARDED_STATE_DICT, &ssd));
        NOK(ct_fsdp_load_state_dict(f, CT_FSDP_SHARDED_STATE_DICT, &ssd));
        ct_state_dict_free(&ssd);
        /* one more step of each after the loads: still the same */
        CT_SCOPE {
            ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)NW * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)NW * B, 4);
            ct_zero_grad(o1);
            ct_backward(ct_mse_loss(ct_forward(ref, x), y, NULL));
            ct_step(o1);
            ct_zero_grad(o2);
            ct_tensor *xl = ct_to_device(ct_narrow(x, 0, (int64_t)NR * B, B), NDEV), *yl = ct_to_device(ct_narrow(y, 0, (int64_t)NR * B, B), NDEV);
            NOK(ct_fsdp_backward(f, ct_mse_loss(ct_fsdp_forward(f, xl), yl, NULL)));
            ct_step(o2);
        }
        ct_optim_free(o1);
        ct_optim_free(o2);
        ct_fsdp_free(f);   /* the module gets its own parameters again, on the device */
        ct_tensor *pb[16];
        int n = ct_module_parameters(net, pb, 16);
        for (int i = 0; i < n; i++) CHECK(pb[i]->device.type == CT_CUDA);
        CT_T_REPORT(n_close(ref, net, 1e-12, 1e-14, 0), "FSDP case %d after free", c);
        ct_module_free(ref);
        ct_module_free(net);
    }
}

/* NO_SHARD in float32, bit for bit: a linear model on dyadic values (small integers and
   eighths, batch and lr powers of two), where every product and sum is exact in float32
   whatever the order, so the averaged half-batch gradients equal the global batch's */
static ct_module *n_lin(void) {
    ct_module *m = ct_nn_linear(4, 2);
    ct_tensor *w = ct_module_get(m, "weight"), *b = ct_module_get(m, "bias");
    float *pw = (float *)ct_data_ptr(w), *pbias = (float *)ct_data_ptr(b);
    for (int i = 0; i < 8; i++) pw[i] = (float)((i * 3) % 7 - 3) / 8.0f;
    pbias[0] = 0.25f;
    pbias[1] = -0.5f;
    return m;
}
static ct_tensor *n_dyadic(int64_t rows, int64_t cols, int salt) {
    ct_tensor *t = ct_zeros(CT_FLOAT32, rows, cols);
    float *p = (float *)ct_data_ptr(t);
    for (int64_t i = 0; i < rows * cols; i++) p[i] = (float)((i * 5 + salt) % 9 - 4);
    return t;
}
TEST(test_nccl_fsdp_no_shard_exact) {
    enum { B = 4, STEPS = 3 };
    ct_module *ref = n_lin(), *net = ct_module_to(n_lin(), NDEV);
    ct_fsdp_options fo;
    memset(&fo, 0, sizeof fo);
    fo.sharding_strategy = CT_FSDP_NO_SHARD;
    ct_fsdp *f = ct_fsdp_new(net, NULL, &fo);
    CHECK(f != NULL);
    if (!f) { ct_module_free(ref); ct_module_free(net); return; }
    ct_tensor *shards[2];
    int ns = ct_fsdp_parameters(f, shards, 2);
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 1.0 / 64;
    ct_optimizer *o1 = ct_optim_sgd(ref, &so), *o2 = ct_optim_sgd_params(ns, shards, &so);
    for (int step = 0; step < STEPS; step++) CT_SCOPE {
        ct_tensor *x = n_dyadic((int64_t)NW * B, 4, step), *y = n_dyadic((int64_t)NW * B, 2, step + 3);
        ct_zero_grad(o1);
        ct_backward(ct_mse_loss(ct_forward(ref, x), y, NULL));
        ct_step(o1);
        ct_zero_grad(o2);
        ct_tensor *xl = ct_to_device(ct_narrow(x, 0, (int64_t)NR * B, B), NDEV), *yl = ct_to_device(ct_narrow(y, 0, (int64_t)NR * B, B), NDEV);
        NOK(ct_fsdp_backward(f, ct_mse_loss(ct_fsdp_forward(f, xl), yl, NULL)));
        ct_step(o2);
    }
    NOK(ct_fsdp_summon_full_params(f));
    CHECK(n_close(ref, net, 0, 0, 1));
    ct_optim_free(o1);
    ct_optim_free(o2);
    ct_fsdp_free(f);
    CHECK(n_close(ref, net, 0, 0, 1));
    ct_module_free(ref);
    ct_module_free(net);
}

/* bfloat16 mixed precision (float32 master shards) in each strategy, with and without
   offload_params, against the same by hand on the device in one process: each rank's half
   batch through a bfloat16 copy of the float32 model, the gradients averaged as the
   bfloat16 reduce-scatter does (in float32, rounded once), the float32 model stepped */
TEST(test_nccl_fsdp_mixed) {
    enum { B = 6, STEPS = 3 };
    ct_fsdp_mixed_precision mp = {CT_BFLOAT16, CT_BFLOAT16};
    for (int c = 0; c < 6; c++) {
        int strat = c % 3;
        ct_module *ref = ct_module_to(ct_module_to_dtype(n_mlp3(23), CT_FLOAT32), NDEV);
        ct_module *low = ct_module_to(ct_module_to_dtype(n_mlp3(23), CT_BFLOAT16), NDEV);
        ct_module *net = ct_module_to(ct_module_to_dtype(n_mlp3(23), CT_FLOAT32), NDEV);
        ct_fsdp_options fo;
        memset(&fo, 0, sizeof fo);
        fo.sharding_strategy = (ct_fsdp_strategy)strat;
        fo.min_num_params = 100;
        fo.mixed_precision = &mp;
        fo.offload_params = c >= 3;
        ct_fsdp *f = ct_fsdp_new(net, NULL, &fo);
        CT_T_REPORT(f != NULL, "ct_fsdp_new, mixed case %d: %s", c, ct_last_error());
        if (!f) { ct_module_free(ref); ct_module_free(low); ct_module_free(net); continue; }
        ct_tensor *shards[8], *rp[16], *lp[16];
        int ns = ct_fsdp_parameters(f, shards, 8), np = ct_module_parameters(ref, rp, 16);
        ct_module_parameters(low, lp, 16);
        for (int i = 0; i < ns; i++) CHECK(shards[i]->dtype == CT_FLOAT32 && shards[i]->device.type == (c >= 3 ? CT_CPU : CT_CUDA));
        ct_sgd_options so;
        memset(&so, 0, sizeof so);
        so.lr = 0.05;
        so.momentum = 0.9;
        ct_optimizer *o1 = ct_optim_sgd(ref, &so), *o2 = ct_optim_sgd_params(ns, shards, &so);
        ct_manual_seed(4000);
        for (int step = 0; step < STEPS; step++) CT_SCOPE {
            ct_tensor *x = ct_to_device(ct_randn(CT_FLOAT32, (int64_t)NW * B, 10), NDEV);
            ct_tensor *y = ct_to_device(ct_randn(CT_FLOAT32, (int64_t)NW * B, 4), NDEV);
            ct_set_grad_enabled(0);
            for (int i = 0; i < np; i++) ct_copy_(lp[i], rp[i]);
            ct_set_grad_enabled(1);
            ct_tensor *sum[16] = {0};
            for (int r = 0; r < NW; r++) {
                for (int i = 0; i < np; i++) ct_set_grad(lp[i], NULL);
                ct_tensor *xr = ct_to(ct_narrow(x, 0, (int64_t)r * B, B), CT_BFLOAT16);
                ct_backward(ct_mse_loss(ct_to(ct_forward(low, xr), CT_FLOAT32), ct_narrow(y, 0, (int64_t)r * B, B), NULL));
                for (int i = 0; i < np; i++) {
                    ct_tensor *g = ct_to(ct_grad(lp[i]), CT_FLOAT32);
                    sum[i] = r ? ct_add(sum[i], g) : g;
                }
            }
            ct_zero_grad(o1);
            for (int i = 0; i < np; i++) ct_set_grad(rp[i], ct_to(ct_to(ct_div_scalar(sum[i], NW), CT_BFLOAT16), CT_FLOAT32));
            ct_step(o1);
            ct_zero_grad(o2);
            ct_tensor *out = ct_fsdp_forward(f, ct_narrow(x, 0, (int64_t)NR * B, B));
            CHECK(out && out->dtype == CT_BFLOAT16 && out->device.type == CT_CUDA);
            NOK(ct_fsdp_backward(f, ct_mse_loss(ct_to(out, CT_FLOAT32), ct_narrow(y, 0, (int64_t)NR * B, B), NULL)));
            ct_step(o2);
        }
        ct_optim_free(o1);
        ct_optim_free(o2);
        ct_fsdp_free(f);   /* float32 parameters with the master values, on the device */
        ct_module *href = ct_module_to(ref, ct_cpu());
        CT_T_REPORT(n_close(href, net, 1e-6, 1e-7, 0), "FSDP mixed case %d against the same by hand", c);
        ct_module_free(ref);
        ct_module_free(low);
        ct_module_free(net);
    }
}

/* the bad inputs of FSDP on the NCCL group */
TEST(test_nccl_fsdp_errors) {
    ct_module *host = n_mlp3(1);
    CHECK_ERR(ct_fsdp_new(host, NULL, NULL), CT_ERR_DEVICE,
              "FullyShardedDataParallel: the nccl backend needs the parameters on a CUDA device (got them on cpu)");
    ct_module *two = ct_nn_sequential(ct_module_to(ct_nn_linear(3, 4), NDEV), ct_nn_linear(4, 2));
    char want[256];
    char dn[24];
    snprintf(want, sizeof want, "FullyShardedDataParallel: the parameters must all be on one device (got %s and cpu)",
             ct_device_str(NDEV, dn, sizeof dn));
    CHECK_ERR(ct_fsdp_new(two, NULL, NULL), CT_ERR_DEVICE, want);
    /* the modules are untouched by the refusals */
    CHECK(ct_module_get(two, "0.weight")->device.type == CT_CUDA && ct_module_get(two, "1.weight")->device.type == CT_CPU);
    /* CUDA parameters on another GPU than the group's (tests/dist/run_nccl.sh emulates
       two devices: rank r's group is on cuda:r) */
    if (ct_cuda_device_count() > 1) {
        char on[24];
        ct_device other = ct_cuda((NDEV.index + 1) % ct_cuda_device_count());
        ct_device_str(other, on, sizeof on);
        ct_module *elsewhere = ct_module_to(n_mlp3(3), other);
        snprintf(want, sizeof want,
                 "FullyShardedDataParallel: the parameters are on %s, but this rank's nccl group uses %s (move the module "
                 "there first, as PyTorch's device_id)", on, dn);
        CHECK_ERR(ct_fsdp_new(elsewhere, NULL, NULL), CT_ERR_DEVICE, want);
        CHECK(ct_module_get(elsewhere, "0.weight")->device.index == other.index);
        snprintf(want, sizeof want, "DistributedDataParallel: a parameter is on %s, but this rank's nccl group uses %s", on, dn);
        CHECK_ERR(ct_ddp_new(elsewhere, NULL, NULL), CT_ERR_DEVICE, want);
        ct_tensor *t = ct_ones_on(other, CT_FLOAT32, 4);
        snprintf(want, sizeof want, "all_reduce: the tensor is on %s, but this rank's nccl group uses %s", on, dn);
        CHECK_ERR(ct_dist_all_reduce(t, CT_REDUCE_SUM, NULL, NULL) == CT_OK, CT_ERR_DEVICE, want);
        ct_module_free(elsewhere);
    } else
        printf("note: one emulated device: the other-GPU errors are not tested (CT_EMU_DEVICES=2)\n");
    /* a CUDA model with a group that moves host tensors */
    ct_process_group *single = ct_dist_init_process_group("single", NULL);
    CHECK(single != NULL);
    ct_module *dev = ct_module_to(n_mlp3(2), NDEV);
    snprintf(want, sizeof want, "FullyShardedDataParallel: the single backend needs the parameters in host memory (got them on %s)", dn);
    CHECK_ERR(ct_fsdp_new(dev, single, NULL), CT_ERR_DEVICE, want);
    if (single) NOK(ct_dist_destroy_process_group(single));
    /* a SHARDED state dict of another world size or wrapping: its shapes are checked */
    ct_fsdp_options fo;
    memset(&fo, 0, sizeof fo);
    fo.min_num_params = 100;
    ct_fsdp *f = ct_fsdp_new(dev, NULL, &fo);
    CHECK(f != NULL);
    if (f) {
        ct_state_dict sd;
        NOK(ct_fsdp_state_dict(f, CT_FSDP_SHARDED_STATE_DICT, &sd));
        CHECK(sd.n == 3 && sd.items[0].tensor->device.type == CT_CUDA);
        ct_tensor *keep = sd.items[0].tensor;
        sd.items[0].tensor = ct_zeros_on(NDEV, CT_FLOAT64, 3);
        CHECK_ERR(ct_fsdp_load_state_dict(f, CT_FSDP_SHARDED_STATE_DICT, &sd) == CT_OK, CT_ERR_SHAPE,
                  "has 3 elements in the state dict and 176 here (saved by another wrapping or world size?)");
        sd.items[0].tensor = keep;
        ct_state_dict_free(&sd);
        ct_fsdp_free(f);
    }
    ct_module_free(host);
    ct_module_free(two);
    ct_module_free(dev);
}

/* examples/fsdp_train.c (minGPT under FSDP) in a tiny configuration on the "nccl"
   group: the model and batches on this rank's device; its loss falls */
TEST(test_nccl_gpt_example) {
    char *args[] = {(char *)"fsdp_train", (char *)"3", (char *)"--cuda", (char *)"--layers", (char *)"1", (char *)"--embd", (char *)"16"};
    fsdp_train_result res = {0, 0, 0, 0};
    CHECK_EQ_INT(fsdp_train_run(7, args, NULL, 1, &res), 0);
    CHECK_EQ_INT(res.steps, 3);
    CHECK(res.first_loss > 3.0 && res.first_loss < 6.0);   /* about log(96) at the start */
    CHECK(res.last_loss < res.first_loss - 0.05);
    if (NR == 0) printf("# gpt on the device: loss %.4f -> %.4f\n", res.first_loss, res.last_loss);
}

static int nccl_main(void) {
    ct_t_init();
    int64_t live0 = ct_live_tensors();
    ct_process_group *pg = ct_dist_init_process_group("nccl", NULL);
    if (!pg) { printf("FAIL init_process_group(\"nccl\"): %s\n0 passed, 1 failed\n", ct_last_error()); return 1; }
    NR = ct_dist_get_rank(pg);
    NW = ct_dist_get_world_size(pg);
    NDEV = ct_cuda(ct_cuda_current_device());
    CHECK_STR(ct_dist_get_backend(pg), "nccl");
    CHECK(NW >= 1 && NR >= 0 && NR < NW);
    RUN(test_nccl_collectives);
    RUN(test_nccl_async_p2p);
    RUN(test_nccl_ddp);
    RUN(test_nccl_fsdp);
    RUN(test_nccl_fsdp_no_shard_exact);
    RUN(test_nccl_fsdp_mixed);
    RUN(test_nccl_fsdp_errors);
    RUN(test_nccl_gpt_example);
    CHECK_EQ_INT(ct_live_tensors(), live0);
    int64_t counts[2] = {ct_t_pass, ct_t_fail};
    int rc = MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) counts[1]++;
    NOK(ct_dist_destroy_process_group(pg));   /* (MPI_Finalize: the group started MPI) */
    if (NR == 0) printf("%lld passed, %lld failed\n", (long long)counts[0], (long long)counts[1]);
    return counts[1] ? 1 : 0;
}
#endif
