/* test_dist.c - ctensor_dist.h in one process: the single-process group (every
   collective against its exact result for a world of one, async handles), bad input
   with its messages, DDP and ZeRO-1 over the single group against plain training
   (bit for bit: averaging over one rank divides by 1), no_sync accumulation, the
   bucket layout. The multi-process tests are tests/dist/ (mpirun). */
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include "ctensor_dist.h"

static ct_tensor *seq(ct_dtype dt, int64_t n, double start) { return ct_arange(start, start + (double)n, 1.0, dt); }

TEST(test_not_initialized) {
    CHECK(!ct_dist_is_initialized());
    ct_tensor *t = seq(CT_FLOAT32, 4, 0);
    CHECK_ERR(ct_dist_all_reduce(t, CT_REDUCE_SUM, NULL, NULL) == CT_OK, CT_ERR_STATE,
              "all_reduce: the default process group has not been initialized (call ct_dist_init_process_group first)");
    CHECK_ERR(ct_dist_get_rank(NULL) >= 0, CT_ERR_STATE, "get_rank: the default process group has not been initialized");
    CHECK_ERR(ct_dist_get_world_size(NULL) >= 0, CT_ERR_STATE, "get_world_size:");
    CHECK_ERR(ct_dist_get_backend(NULL), CT_ERR_STATE, "get_backend:");
    CHECK_ERR(ct_dist_destroy_process_group(NULL) == CT_OK, CT_ERR_STATE, "destroy_process_group: the default process group");
    CHECK_ERR(ct_dist_init_process_group("gloo", NULL), CT_ERR_ARG, "init_process_group: unknown backend 'gloo'");
#ifndef CTENSOR_MPI
    CHECK_ERR(ct_dist_init_process_group("mpi", NULL), CT_ERR_UNSUPPORTED,
              "init_process_group: the mpi backend is not built in: compile the implementation with -DCTENSOR_MPI");
#endif
    ct_dist_options bad = {-1.0};
    CHECK_ERR(ct_dist_init_process_group("single", &bad), CT_ERR_ARG,
              "init_process_group: timeout must be a non-negative number of seconds (got -1)");
    CHECK_ERR(ct_dist_register_backend(NULL) == CT_OK, CT_ERR_ARG, "register_backend: the backend");
    CHECK(!ct_dist_is_initialized());
}

TEST(test_collectives) {
    CHECK_STR(ct_dist_get_backend(NULL), "single");
    CHECK_EQ_INT(ct_dist_get_rank(NULL), 0);
    CHECK_EQ_INT(ct_dist_get_world_size(NULL), 1);
    static const double v6[6] = {0, 1, 2, 3, 4, 5};
    const ct_dtype dts[6] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64, CT_INT32};
    for (int k = 0; k < 6; k++)
        for (int op = 0; op < CT_REDUCE_NUM_OPS; op++) {
            if (op == CT_REDUCE_AVG && !ct_dtype_is_floating(dts[k])) continue;
            ct_tensor *t = ct_reshape(seq(dts[k], 6, 0), 2, 3);
            uint32_t v0 = ct_version(t);
            CHECK_EQ_INT(ct_dist_all_reduce(t, (ct_reduce_op)op, NULL, NULL), CT_OK);
            CHECK_VALUES(t, v6, 6, 0);
            CHECK(ct_version(t) > v0);   /* an in-place op */
        }
    ct_tensor *b = ct_tensor_f64(((double[]){1, 0, 1}), 3);
    ct_tensor *bb = ct_to(b, CT_BOOL);
    CHECK_EQ_INT(ct_dist_all_reduce(bb, CT_REDUCE_SUM, NULL, NULL), CT_OK);
    CHECK_VALUES(bb, ((double[]){1, 0, 1}), 3, 0);

    ct_tensor *t = seq(CT_INT64, 6, 0);
    CHECK_EQ_INT(ct_dist_broadcast(t, 0, NULL, NULL), CT_OK);
    CHECK_VALUES(t, v6, 6, 0);

    ct_tensor *in = seq(CT_FLOAT32, 6, 0), *out = ct_zeros(CT_FLOAT32, 2, 3);
    ct_tensor *outs[1] = {out};
    CHECK_EQ_INT(ct_dist_all_gather(1, outs, in, NULL, NULL), CT_OK);
    CHECK_VALUES(out, v6, 6, 0);
    ct_tensor *o2 = ct_zeros(CT_FLOAT32, 1, 6);
    CHECK_EQ_INT(ct_dist_all_gather_into_tensor(o2, in, NULL, NULL), CT_OK);
    CHECK_VALUES(o2, v6, 6, 0);
    ct_tensor *rs = ct_zeros(CT_FLOAT64, 6);
    ct_tensor *ins[1] = {ct_reshape(seq(CT_FLOAT64, 6, 0), 3, 2)};
    CHECK_EQ_INT(ct_dist_reduce_scatter(rs, 1, ins, CT_REDUCE_SUM, NULL, NULL), CT_OK);
    CHECK_VALUES(rs, v6, 6, 0);
    ct_tensor *rs16 = ct_zeros(CT_FLOAT16, 6);
    CHECK_EQ_INT(ct_dist_reduce_scatter_tensor(rs16, seq(CT_FLOAT16, 6, 0), CT_REDUCE_AVG, NULL, NULL), CT_OK);
    CHECK_VALUES(rs16, v6, 6, 0);
    CHECK_EQ_INT(ct_dist_barrier(NULL, NULL), CT_OK);

    /* async: a handle that is complete at once; wait frees it */
    ct_work *w = NULL;
    ct_tensor *a = seq(CT_FLOAT32, 6, 0);
    CHECK_EQ_INT(ct_dist_all_reduce(a, CT_REDUCE_AVG, NULL, &w), CT_OK);
    CHECK(w != NULL);
    CHECK_EQ_INT(ct_work_test(w), 1);
    CHECK_EQ_INT(ct_work_wait(w), CT_OK);
    CHECK_VALUES(a, v6, 6, 0);
    CHECK_EQ_INT(ct_dist_barrier(NULL, &w), CT_OK);
    CHECK_EQ_INT(ct_work_wait_timeout(w, 1.0), CT_OK);
}

TEST(test_bad_input) {
    ct_tensor *t = seq(CT_FLOAT32, 6, 0), *nc = ct_t(ct_reshape(seq(CT_FLOAT32, 6, 0), 2, 3));
    CHECK_ERR(ct_dist_all_reduce(nc, CT_REDUCE_SUM, NULL, NULL) == CT_OK, CT_ERR_ARG,
              "all_reduce: the tensor must be contiguous (got shape [3, 2] with strides [1, 3])");
    CHECK_ERR(ct_dist_all_reduce(seq(CT_INT64, 3, 0), CT_REDUCE_AVG, NULL, NULL) == CT_OK, CT_ERR_DTYPE,
              "all_reduce: ReduceOp.AVG needs a floating point tensor (got int64)");
    CHECK_ERR(ct_dist_all_reduce(t, (ct_reduce_op)7, NULL, NULL) == CT_OK, CT_ERR_ARG, "all_reduce: invalid reduce op 7");
    CHECK_ERR(ct_dist_all_reduce(NULL, CT_REDUCE_SUM, NULL, NULL) == CT_OK, CT_ERR_NULL, "all_reduce: the tensor is NULL");
    CHECK_ERR(ct_dist_broadcast(t, 1, NULL, NULL) == CT_OK, CT_ERR_ARG, "broadcast: invalid src rank 1 (the group's ranks are 0..0)");
    CHECK_ERR(ct_dist_send(t, 0, NULL, 0, NULL) == CT_OK, CT_ERR_ARG, "send: invalid destination rank 0: it is the rank of this process");
    CHECK_ERR(ct_dist_recv(t, 2, NULL, 0, NULL) == CT_OK, CT_ERR_ARG, "recv: invalid source rank 2");
    ct_tensor *outs2[2] = {ct_zeros(CT_FLOAT32, 6), ct_zeros(CT_FLOAT32, 6)};
    CHECK_ERR(ct_dist_all_gather(2, outs2, t, NULL, NULL) == CT_OK, CT_ERR_ARG,
              "all_gather: tensor_list must have world_size (1) tensors, got 2");
    ct_tensor *o64[1] = {ct_zeros(CT_FLOAT64, 6)};
    CHECK_ERR(ct_dist_all_gather(1, o64, t, NULL, NULL) == CT_OK, CT_ERR_DTYPE,
              "all_gather: tensor_list[0] has dtype float64, but the input has float32");
    ct_tensor *o5[1] = {ct_zeros(CT_FLOAT32, 5)};
    CHECK_ERR(ct_dist_all_gather(1, o5, t, NULL, NULL) == CT_OK, CT_ERR_SHAPE,
              "all_gather: tensor_list[0] has shape [5], but the input has shape [6]");
    CHECK_ERR(ct_dist_all_gather_into_tensor(ct_zeros(CT_FLOAT32, 5), t, NULL, NULL) == CT_OK, CT_ERR_SHAPE,
              "all_gather_into_tensor: output tensor size must be equal to world_size times input tensor size (output 5 "
              "elements, input 6, world_size 1)");
    CHECK_ERR(ct_dist_all_gather_into_tensor(ct_zeros(CT_FLOAT64, 6), t, NULL, NULL) == CT_OK, CT_ERR_DTYPE,
              "all_gather_into_tensor: output tensor must have the same type as input tensor (output float64, input float32)");
    CHECK_ERR(ct_dist_reduce_scatter_tensor(ct_zeros(CT_FLOAT32, 4), t, CT_REDUCE_SUM, NULL, NULL) == CT_OK, CT_ERR_SHAPE,
              "reduce_scatter_tensor: input tensor size must be equal to world_size times output tensor size (input 6 "
              "elements, output 4, world_size 1)");
    CHECK_ERR(ct_dist_reduce_scatter_tensor(ct_zeros(CT_INT32, 6), seq(CT_INT32, 6, 0), CT_REDUCE_AVG, NULL, NULL) == CT_OK,
              CT_ERR_DTYPE, "reduce_scatter_tensor: ReduceOp.AVG needs a floating point tensor (got int32)");
    CHECK_ERR(ct_dist_reduce_scatter(t, 1, o64, CT_REDUCE_SUM, NULL, NULL) == CT_OK, CT_ERR_DTYPE,
              "reduce_scatter: input_list[0] has dtype float64, but the output has float32");
    CHECK_ERR(ct_dist_send(t, 0, NULL, -1, NULL) == CT_OK, CT_ERR_ARG, "send: invalid destination rank 0");
    CHECK_ERR(ct_work_wait(NULL) == CT_OK, CT_ERR_NULL, "wait: the work handle is NULL");
    CHECK_ERR(ct_work_test(NULL) >= 0, CT_ERR_NULL, "is_completed: the work handle is NULL");
    ct_work *w = NULL;
    CHECK_EQ_INT(ct_dist_barrier(NULL, &w), CT_OK);
    CHECK_ERR(ct_work_wait_timeout(w, -1.0) == CT_OK, CT_ERR_ARG, "wait: timeout must be a non-negative number of seconds (got -1)");
    CHECK_EQ_INT(ct_work_wait(w), CT_OK);
    CHECK_ERR(ct_ddp_new(NULL, NULL, NULL), CT_ERR_NULL, "DistributedDataParallel: the module is NULL");
    ct_ddp_options bo = {-1.0, 0};
    ct_module *m = ct_nn_linear(2, 2);
    CHECK_ERR(ct_ddp_new(m, NULL, &bo), CT_ERR_ARG, "DistributedDataParallel: bucket_cap_mb must be positive (got -1)");
    ct_module_free(m);
    CHECK_ERR(ct_ddp_forward(NULL, t), CT_ERR_NULL, "DistributedDataParallel forward: the DDP is NULL");
    CHECK_ERR(ct_ddp_finish_gradients(NULL) == CT_OK, CT_ERR_NULL, "DistributedDataParallel: the DDP is NULL");
    CHECK_ERR(ct_ddp_backward(NULL, t) == CT_OK, CT_ERR_NULL, "DistributedDataParallel backward: the DDP is NULL");
    CHECK_ERR(ct_ddp_bucket_params(NULL, 0, NULL, 0) >= 0, CT_ERR_INDEX, "DistributedDataParallel: bucket 0 out of range");
    CHECK_ERR(ct_zero_redundancy_optimizer(NULL, NULL), CT_ERR_NULL, "ZeroRedundancyOptimizer: the optimizer is NULL");
    CHECK_ERR(ct_zero_step(NULL) == CT_OK, CT_ERR_NULL, "ZeroRedundancyOptimizer.step: the optimizer is NULL");
    CHECK_ERR(ct_zero_param_rank(NULL, 0, 0) >= 0, CT_ERR_INDEX, "ZeroRedundancyOptimizer: parameter 0 of group 0 out of range");
}

/* a float64 MLP, the same weights for every seed */
static ct_module *mlp(uint64_t seed) {
    ct_manual_seed(seed);
    return ct_module_to_dtype(ct_nn_sequential(ct_nn_linear(5, 8), ct_nn_relu(), ct_nn_linear(8, 3)), CT_FLOAT64);
}
static int same_params(ct_module *a, ct_module *b) {
    ct_tensor *pa[8], *pb[8];
    int n = ct_module_parameters(a, pa, 8);
    if (n != ct_module_parameters(b, pb, 8)) return 0;
    for (int i = 0; i < n; i++)
        if (ct_equal(pa[i], pb[i]) != 1) return 0;
    return 1;
}

/* DDP over one rank = plain training, bit for bit; no_sync accumulation too */
TEST(test_ddp_single) {
    ct_module *ref = mlp(7), *net = mlp(7);
    ct_ddp_options o = {0.0001, 0};   /* ~100 bytes: one bucket per parameter or two */
    ct_ddp *ddp = ct_ddp_new(net, NULL, &o);
    CHECK(ddp != NULL);
    CHECK(ct_ddp_module(ddp) == net);
    int nb = ct_ddp_num_buckets(ddp);
    CHECK(nb >= 3);
    int idx[8];
    CHECK_EQ_INT(ct_ddp_bucket_params(ddp, 0, idx, 8), 1);
    CHECK_EQ_INT(idx[0], 3);             /* the last parameter first (reverse order) */
    ct_optimizer *o1 = ct_optim_sgd(ref, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9});
    ct_optimizer *o2 = ct_optim_sgd(net, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9});
    ct_manual_seed(3);
    for (int step = 0; step < 4; step++) CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT64, 6, 5), *y = ct_randn(CT_FLOAT64, 6, 3);
        ct_zero_grad(o1);
        ct_backward(ct_mse_loss(ct_forward(ref, x), y, NULL));
        ct_step(o1);
        ct_zero_grad(o2);
        CHECK_EQ_INT(ct_ddp_backward(ddp, ct_mse_loss(ct_ddp_forward(ddp, x), y, NULL)), CT_OK);
        ct_step(o2);
    }
    CHECK(same_params(ref, net));
    /* gradient accumulation: two micro-batches under no_sync, the third synchronized */
    CT_SCOPE {
        ct_zero_grad(o1);
        ct_zero_grad(o2);
        for (int micro = 0; micro < 3; micro++) {
            ct_tensor *x = ct_randn(CT_FLOAT64, 4, 5), *y = ct_randn(CT_FLOAT64, 4, 3);
            ct_backward(ct_mse_loss(ct_forward(ref, x), y, NULL));
            if (micro < 2) {
                CT_DDP_NO_SYNC(ddp) {
                    CHECK_EQ_INT(ct_ddp_backward(ddp, ct_mse_loss(ct_ddp_forward(ddp, x), y, NULL)), CT_OK);
                }
            } else
                CHECK_EQ_INT(ct_ddp_backward(ddp, ct_mse_loss(ct_ddp_forward(ddp, x), y, NULL)), CT_OK);
        }
        ct_step(o1);
        ct_step(o2);
    }
    CHECK(same_params(ref, net));
    CHECK_EQ_INT(ct_ddp_set_require_sync(ddp, 1), 1);
    /* ct_backward without the finishing call: the next forward says so */
    CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT64, 2, 5);
        ct_backward(ct_sum(ct_ddp_forward(ddp, x)));
        CHECK_ERR(ct_ddp_forward(ddp, x), CT_ERR_STATE,
                  "DistributedDataParallel forward: the previous backward's gradients were not synchronized: call "
                  "ct_ddp_finish_gradients after ct_backward");
        CHECK_EQ_INT(ct_ddp_finish_gradients(ddp), CT_OK);
        CHECK(ct_ddp_forward(ddp, x) != NULL);
        CHECK_EQ_INT(ct_ddp_finish_gradients(ddp), CT_OK);   /* no backward ran: nothing to reduce but zeros */
    }
    ct_optim_free(o1);
    ct_optim_free(o2);
    ct_ddp_free(ddp);
    ct_module_free(ref);
    ct_module_free(net);
}

/* ZeRO-1 over one rank = the wrapped optimizer alone, bit for bit */
TEST(test_zero_single) {
    ct_module *ref = mlp(11), *net = mlp(11);
    ct_optimizer *o1 = ct_optim_adam(ref, &(ct_adam_options){.lr = 0.01});
    ct_optimizer *o2 = ct_optim_adam(net, &(ct_adam_options){.lr = 0.01});
    ct_zero_optimizer *z = ct_zero_redundancy_optimizer(o2, NULL);
    CHECK(z != NULL);
    CHECK_EQ_INT(ct_zero_param_rank(z, 0, 3), 0);
    CHECK_ERR(ct_zero_param_rank(z, 0, 4) >= 0, CT_ERR_INDEX, "ZeroRedundancyOptimizer: parameter 4 of group 0 out of range");
    ct_manual_seed(5);
    for (int step = 0; step < 3; step++) CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT64, 6, 5), *y = ct_randn(CT_FLOAT64, 6, 3);
        ct_zero_grad(o1);
        ct_backward(ct_mse_loss(ct_forward(ref, x), y, NULL));
        ct_step(o1);
        ct_zero_grad(o2);
        ct_backward(ct_mse_loss(ct_forward(net, x), y, NULL));
        CHECK_EQ_INT(ct_zero_step(z), CT_OK);
    }
    CHECK(same_params(ref, net));
    ct_zero_free(z);
    ct_optim_free(o1);
    ct_optim_free(o2);
    ct_module_free(ref);
    ct_module_free(net);
}

/* FSDP over one rank, each strategy, per-Linear units or the root alone: plain
   training bit for bit (the optimizer steps the flat shards) */
TEST(test_fsdp_single) {
    /* k: 0 per-Linear units (backward prefetch, PyTorch's default), 1 the root alone, 2 per-Linear
       without prefetch, 3 per-Linear with forward prefetch only */
    const int64_t mins[4] = {20, -1, 20, 20};
    for (int strat = 0; strat < 3; strat++)
        for (int k = 0; k < 4; k++) {
            ct_module *ref = mlp(13), *net = mlp(13);
            ct_fsdp_options fo = {.sharding_strategy = (ct_fsdp_strategy)strat, .min_num_params = mins[k],
                                  .backward_prefetch = k >= 2 ? CT_FSDP_BACKWARD_NONE : CT_FSDP_BACKWARD_PRE,
                                  .forward_prefetch = k == 3};
            ct_fsdp *f = ct_fsdp_new(net, NULL, &fo);
            CHECK(f != NULL);
            if (!f) { ct_module_free(ref); ct_module_free(net); continue; }
            CHECK_EQ_INT(ct_fsdp_num_units(f), k == 1 ? 1 : 2);
            ct_tensor *shards[4];
            int ns = ct_fsdp_parameters(f, shards, 4);
            ct_optimizer *o1 = ct_optim_sgd(ref, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9});
            ct_optimizer *o2 = ct_optim_sgd_params(ns, shards, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9});
            ct_manual_seed(9);
            for (int step = 0; step < 3; step++) CT_SCOPE {
                ct_tensor *x = ct_randn(CT_FLOAT64, 6, 5), *y = ct_randn(CT_FLOAT64, 6, 3);
                ct_zero_grad(o1);
                ct_backward(ct_mse_loss(ct_forward(ref, x), y, NULL));
                ct_step(o1);
                ct_zero_grad(o2);
                CHECK_EQ_INT(ct_fsdp_backward(f, ct_mse_loss(ct_fsdp_forward(f, x), y, NULL)), CT_OK);
                ct_step(o2);
            }
            if (k != 1) {   /* units of 48 and 27 float64 parameters */
                ct_fsdp_memory_stats ms;
                CHECK_EQ_INT(ct_fsdp_memory(f, &ms), CT_OK);
                CHECK_EQ_INT(ms.shard_param_bytes, strat == CT_FSDP_NO_SHARD ? 0 : 75 * 8);
                /* FULL_SHARD without prefetch: one unit gathered at a time; with prefetch the
                   next one too; the others keep both */
                CHECK_EQ_INT(ms.peak_full_param_bytes, strat == CT_FSDP_FULL_SHARD && k == 2 ? 48 * 8 : 75 * 8);
                CHECK(ms.peak_grad_bytes >= 48 * 8 && ms.peak_live_bytes > 0);
                ct_fsdp_reset_peak_memory(f);
                CHECK_EQ_INT(ct_fsdp_memory(f, &ms), CT_OK);
                CHECK_EQ_INT(ms.peak_full_param_bytes, strat == CT_FSDP_NO_SHARD ? 75 * 8 : 0);
            }
            CHECK_EQ_INT(ct_fsdp_summon_full_params(f), CT_OK);
            CHECK(same_params(ref, net));
            ct_optim_free(o1);
            ct_optim_free(o2);
            ct_fsdp_free(f);
            CHECK(same_params(ref, net));   /* the module's own tensors back, with the trained values */
            ct_module_free(ref);
            ct_module_free(net);
        }
    ct_module *m = mlp(1);
    ct_fsdp_options bad = {.sharding_strategy = (ct_fsdp_strategy)5};
    CHECK_ERR(ct_fsdp_new(m, NULL, &bad), CT_ERR_ARG, "FullyShardedDataParallel: invalid sharding strategy 5");
    CHECK_ERR(ct_fsdp_new(m, NULL, &(ct_fsdp_options){.backward_prefetch = (ct_fsdp_backward_prefetch)3}), CT_ERR_ARG,
              "FullyShardedDataParallel: invalid backward_prefetch 3");
    CHECK_ERR(ct_fsdp_new(m, NULL, &(ct_fsdp_options){.num_wrap_modules = 1}), CT_ERR_ARG,
              "FullyShardedDataParallel: wrap_modules is NULL with num_wrap_modules 1");
    ct_module *other = mlp(2);
    ct_module *wm[2] = {ct_module_child(m, "2"), other};
    CHECK_ERR(ct_fsdp_new(m, NULL, &(ct_fsdp_options){.wrap_modules = wm, .num_wrap_modules = 2}), CT_ERR_ARG,
              "FullyShardedDataParallel: wrap_modules[1] is not a submodule of the module");
    wm[1] = m;
    CHECK_ERR(ct_fsdp_new(m, NULL, &(ct_fsdp_options){.wrap_modules = wm, .num_wrap_modules = 2}), CT_ERR_ARG,
              "FullyShardedDataParallel: wrap_modules[1] is the root module itself");
    ct_module_free(other);
    /* manual wrap: the last Linear a unit, the rest the root's (no auto-wrap) */
    ct_fsdp *mw = ct_fsdp_new(m, NULL, &(ct_fsdp_options){.min_num_params = -1, .wrap_modules = wm, .num_wrap_modules = 1});
    CHECK(mw != NULL);
    CHECK_EQ_INT(ct_fsdp_num_units(mw), 2);
    CT_SCOPE {
        ct_tensor *shards[2];
        CHECK_EQ_INT(ct_fsdp_parameters(mw, shards, 2), 2);
        CHECK_EQ_INT(ct_numel(shards[0]) * 10 + ct_numel(shards[1]), 27 * 10 + 48);   /* the Linear's, then the root's */
    }
    ct_fsdp_free(mw);
    CHECK_ERR(ct_fsdp_new(NULL, NULL, NULL), CT_ERR_NULL, "FullyShardedDataParallel: the module is NULL");
    ct_fsdp *f = ct_fsdp_new(m, NULL, NULL);
    CHECK(f != NULL);
    CHECK_ERR(ct_fsdp_new(m, NULL, NULL), CT_ERR_STATE, "FullyShardedDataParallel: the module is already wrapped by an FSDP");
    CHECK_ERR(ct_fsdp_forward(NULL, NULL), CT_ERR_NULL, "FullyShardedDataParallel forward: the FSDP is NULL");
    CHECK_ERR(ct_fsdp_finish_gradients(NULL) == CT_OK, CT_ERR_NULL, "FullyShardedDataParallel: the FSDP is NULL");
    CHECK_ERR(ct_fsdp_backward(NULL, NULL) == CT_OK, CT_ERR_NULL, "FullyShardedDataParallel backward: the FSDP is NULL");
    CHECK_ERR(ct_fsdp_summon_full_params(NULL) == CT_OK, CT_ERR_NULL, "summon_full_params: the FSDP is NULL");
    CHECK_ERR(ct_fsdp_memory(f, NULL) == CT_OK, CT_ERR_NULL, "FSDP memory: the FSDP or the output is NULL");
    CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT64, 2, 5);
        ct_backward(ct_sum(ct_fsdp_forward(f, x)));
        CHECK_ERR(ct_fsdp_forward(f, x), CT_ERR_STATE,
                  "FullyShardedDataParallel forward: the previous backward's gradients were not reduced");
        CHECK_EQ_INT(ct_fsdp_finish_gradients(f), CT_OK);
    }
    ct_fsdp_free(f);
    ct_module_free(m);
}

/* ---- FSDP mixed precision: bfloat16 parameters and gradient reduction, float32
   master shards; against the same emulated by hand on a bfloat16 copy of a float32
   model (bit for bit over one rank); CPU offload changes nothing on the CPU ---- */
static ct_module *mlp32(uint64_t seed) {
    ct_manual_seed(seed);
    return ct_nn_sequential(ct_nn_linear(5, 8), ct_nn_relu(), ct_nn_linear(8, 3));
}
TEST(test_fsdp_mixed_precision_single) {
    ct_fsdp_mixed_precision mp = {CT_BFLOAT16, CT_BFLOAT16};
    for (int c = 0; c < 6; c++) {   /* each strategy, without and with offload_params */
        int strat = c % 3;
        ct_module *ref = mlp32(13), *low = ct_module_to_dtype(mlp32(13), CT_BFLOAT16), *net = mlp32(13);
        ct_fsdp *f = ct_fsdp_new(net, NULL, &(ct_fsdp_options){.sharding_strategy = (ct_fsdp_strategy)strat, .min_num_params = 20,
                                                               .mixed_precision = &mp, .offload_params = c >= 3});
        CHECK(f != NULL);
        if (!f) { ct_module_free(ref); ct_module_free(low); ct_module_free(net); continue; }
        ct_tensor *shards[4], *rp[4], *lp[4];
        int ns = ct_fsdp_parameters(f, shards, 4), np = ct_module_parameters(ref, rp, 4);
        ct_module_parameters(low, lp, 4);
        CHECK(shards[0]->dtype == CT_FLOAT32);   /* the master shards */
        ct_optimizer *o1 = ct_optim_sgd(ref, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9});
        ct_optimizer *o2 = ct_optim_sgd_params(ns, shards, &(ct_sgd_options){.lr = 0.1, .momentum = 0.9});
        ct_manual_seed(9);
        for (int step = 0; step < 3; step++) CT_SCOPE {
            ct_tensor *x = ct_randn(CT_FLOAT32, 6, 5), *y = ct_randn(CT_FLOAT32, 6, 3);
            /* by hand: the bfloat16 copy computes, its gradients step the float32 model */
            ct_set_grad_enabled(0);
            for (int i = 0; i < np; i++) ct_copy_(lp[i], rp[i]);
            ct_set_grad_enabled(1);
            for (int i = 0; i < np; i++) ct_set_grad(lp[i], NULL);
            ct_backward(ct_mse_loss(ct_to(ct_forward(low, ct_to(x, CT_BFLOAT16)), CT_FLOAT32), y, NULL));
            ct_zero_grad(o1);
            for (int i = 0; i < np; i++) ct_set_grad(rp[i], ct_to(ct_grad(lp[i]), CT_FLOAT32));
            ct_step(o1);
            ct_zero_grad(o2);
            ct_tensor *out = ct_fsdp_forward(f, x);
            CHECK(out && out->dtype == CT_BFLOAT16);
            CHECK_EQ_INT(ct_fsdp_backward(f, ct_mse_loss(ct_to(out, CT_FLOAT32), y, NULL)), CT_OK);
            CHECK(shards[0]->grad && shards[0]->grad->dtype == CT_FLOAT32);
            ct_step(o2);
        }
        ct_fsdp_memory_stats ms;
        CHECK_EQ_INT(ct_fsdp_memory(f, &ms), CT_OK);
        CHECK_EQ_INT(ms.shard_param_bytes, 75 * 4);      /* float32 shards (NO_SHARD: the whole) ... */
        CHECK_EQ_INT(ms.peak_full_param_bytes, 75 * 2);  /* ... bfloat16 gathered */
        CT_SCOPE {   /* the FULL state dict in float32 */
            ct_state_dict sd;
            CHECK_EQ_INT(ct_fsdp_state_dict(f, CT_FSDP_FULL_STATE_DICT, &sd), CT_OK);
            CHECK(sd.n == 4 && sd.items[0].tensor->dtype == CT_FLOAT32 && ct_equal(sd.items[0].tensor, rp[0]) == 1);
            ct_state_dict_free(&sd);
        }
        ct_optim_free(o1);
        ct_optim_free(o2);
        ct_fsdp_free(f);
        CHECK(same_params(ref, net));   /* float32 again, with the master values */
        ct_module_free(ref);
        ct_module_free(low);
        ct_module_free(net);
    }
    ct_module *m = mlp32(1);
    ct_fsdp_mixed_precision bad = {CT_INT64, CT_BFLOAT16};
    CHECK_ERR(ct_fsdp_new(m, NULL, &(ct_fsdp_options){.mixed_precision = &bad}), CT_ERR_DTYPE,
              "FullyShardedDataParallel: mixed precision needs floating point dtypes (got int64)");
    ct_module_free(m);
}

/* ---- FSDP checkpoints: save, "kill" (free everything), resume ---- */
/* a state dict as a safetensors file in memory (free with ct_free) */
static void *sd_save(const ct_state_dict *sd, size_t *len) {
    const char *names[32];
    const ct_tensor *ts[32];
    for (int i = 0; i < sd->n && i < 32; i++) {
        names[i] = sd->items[i].name;
        ts[i] = sd->items[i].tensor;
    }
    void *data = NULL;
    if (ct_save_safetensors_mem(sd->n, names, ts, 0, NULL, NULL, &data, len)) return NULL;
    return data;
}
/* the file's tensors as a state dict (in the current scope; names borrowed from st) */
static ct_state_dict sd_read(ct_safetensors *st) {
    ct_state_dict sd = {ct_safetensors_count(st), NULL};
    sd.items = (ct_named_tensor *)calloc((size_t)(sd.n > 0 ? sd.n : 1), sizeof *sd.items);
    for (int i = 0; i < sd.n; i++) {
        sd.items[i].name = (char *)ct_safetensors_name(st, i);
        sd.items[i].tensor = ct_safetensors_get(st, sd.items[i].name);
        sd.items[i].persistent = 1;
    }
    return sd;
}
/* one training step on step-seeded data; the loss before the update */
static double ckpt_step(ct_fsdp *f, ct_optimizer *o, int step) {
    double l = 0;
    CT_SCOPE {
        ct_manual_seed(500 + (uint64_t)step);
        ct_tensor *x = ct_randn(CT_FLOAT64, 6, 5), *y = ct_randn(CT_FLOAT64, 6, 3);
        ct_zero_grad(o);
        ct_tensor *loss = ct_mse_loss(ct_fsdp_forward(f, x), y, NULL);
        l = ct_item(loss);
        if (ct_fsdp_backward(f, loss) || ct_step(o)) l = -1;
    }
    return l;
}
typedef struct ckpt_run { ct_module *m; ct_fsdp *f; ct_optimizer *o; } ckpt_run;
static ckpt_run ckpt_start(uint64_t seed, int strat) {
    ckpt_run r;
    r.m = mlp(seed);
    r.f = ct_fsdp_new(r.m, NULL, &(ct_fsdp_options){.sharding_strategy = (ct_fsdp_strategy)strat, .min_num_params = 20});
    ct_tensor *shards[4];
    int ns = ct_fsdp_parameters(r.f, shards, 4);
    r.o = ct_optim_adam_params(ns, shards, &(ct_adam_options){.lr = 0.01});
    return r;
}
static void ckpt_end(ckpt_run *r) {
    ct_optim_free(r->o);
    ct_fsdp_free(r->f);
    ct_module_free(r->m);
}
/* resume from the files: the losses of steps 3..5 equal the uninterrupted run's bit for bit */
static int ckpt_resume(int strat, int full, const void *model, size_t mlen, const void *optim, size_t olen, const double *want) {
    int ok = 1;
    ckpt_run r = ckpt_start(77, strat);   /* other initial values: the checkpoint must set them */
    CT_SCOPE {
        ct_safetensors *ms = ct_safetensors_load_mem(model, mlen, "model"), *os = ct_safetensors_load_mem(optim, olen, "optim");
        ct_state_dict msd = sd_read(ms), osd = sd_read(os);
        ok = ct_fsdp_load_state_dict(r.f, full ? CT_FSDP_FULL_STATE_DICT : CT_FSDP_SHARDED_STATE_DICT, &msd) == CT_OK &&
             ct_optim_load_state_dict(r.o, &osd) == CT_OK;
        free(msd.items);
        free(osd.items);
        ct_safetensors_free(ms);
        ct_safetensors_free(os);
    }
    for (int step = 3; ok && step < 6; step++) ok = ckpt_step(r.f, r.o, step) == want[step];
    ckpt_end(&r);
    return ok;
}
TEST(test_fsdp_checkpoint_single) {
    for (int strat = 0; strat < 3; strat++) {
        double want[6];
        void *shard = NULL, *full = NULL, *optim = NULL;
        size_t slen = 0, flen = 0, olen = 0;
        ckpt_run r = ckpt_start(31, strat);
        CHECK_EQ_INT(ct_fsdp_num_units(r.f), 2);
        for (int step = 0; step < 6; step++) {
            if (step == 3) CT_SCOPE {
                ct_state_dict sd;
                CHECK_EQ_INT(ct_fsdp_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, &sd), CT_OK);
                CHECK_EQ_INT(sd.n, 2);   /* the units' flat shards: the two Linears (the root has none) */
                CHECK_STR(sd.items[0].name, "0.flat_param");
                CHECK_STR(sd.items[1].name, "2.flat_param");
                CHECK_EQ_INT(ct_numel(sd.items[0].tensor), 48);
                shard = sd_save(&sd, &slen);
                ct_state_dict_free(&sd);
                CHECK_EQ_INT(ct_fsdp_state_dict(r.f, CT_FSDP_FULL_STATE_DICT, &sd), CT_OK);
                CHECK_EQ_INT(sd.n, 4);   /* PyTorch's names */
                CHECK_STR(sd.items[0].name, "0.weight");
                CHECK_STR(sd.items[3].name, "2.bias");
                CHECK_EQ_INT(sd.items[0].tensor->shape[0], 8);
                full = sd_save(&sd, &flen);
                ct_state_dict_free(&sd);
                CHECK_EQ_INT(ct_optim_state_dict(r.o, &sd), CT_OK);
                optim = sd_save(&sd, &olen);
                ct_state_dict_free(&sd);
            }
            want[step] = ckpt_step(r.f, r.o, step);
        }
        ckpt_end(&r);
        CHECK(shard && full && optim);
        if (!shard || !full || !optim) continue;
        CHECK(ckpt_resume(strat, 0, shard, slen, optim, olen, want));
        CHECK(ckpt_resume(strat, 1, full, flen, optim, olen, want));
        /* the full checkpoint in a model that is not distributed: the loss at step 3 */
        ct_module *plain = mlp(78);
        CHECK_EQ_INT(ct_module_load_safetensors_mem(plain, full, flen, 1), CT_OK);
        CT_SCOPE {
            ct_manual_seed(503);
            ct_tensor *x = ct_randn(CT_FLOAT64, 6, 5), *y = ct_randn(CT_FLOAT64, 6, 3);
            CHECK(ct_item(ct_mse_loss(ct_forward(plain, x), y, NULL)) == want[3]);
        }
        ct_module_free(plain);
        ct_free(shard);
        ct_free(full);
        ct_free(optim);
    }
    /* bad input */
    ckpt_run r = ckpt_start(5, CT_FSDP_FULL_SHARD);
    ct_state_dict sd, empty = {0, NULL};
    CHECK_ERR(ct_fsdp_state_dict(NULL, CT_FSDP_FULL_STATE_DICT, &sd) == CT_OK, CT_ERR_NULL, "FSDP state_dict: the FSDP is NULL");
    CHECK_ERR(ct_fsdp_state_dict(r.f, CT_FSDP_FULL_STATE_DICT, NULL) == CT_OK, CT_ERR_NULL, "FSDP state_dict: the output is NULL");
    CHECK_ERR(ct_fsdp_state_dict(r.f, (ct_fsdp_state_dict_type)7, &sd) == CT_OK, CT_ERR_ARG,
              "FSDP state_dict: invalid state dict type 7");
    CHECK_ERR(ct_fsdp_load_state_dict(NULL, CT_FSDP_FULL_STATE_DICT, &empty) == CT_OK, CT_ERR_NULL,
              "FSDP load_state_dict: the FSDP is NULL");
    CHECK_ERR(ct_fsdp_load_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, NULL) == CT_OK, CT_ERR_NULL,
              "FSDP load_state_dict: the state dict is NULL");
    CHECK_ERR(ct_fsdp_load_state_dict(r.f, CT_FSDP_FULL_STATE_DICT, NULL) == CT_OK, CT_ERR_NULL,
              "FSDP load_state_dict: the state dict is NULL on rank 0");
    CHECK_ERR(ct_fsdp_load_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, &empty) == CT_OK, CT_ERR_ARG,
              "FSDP load_state_dict (SHARDED_STATE_DICT): missing key '0.flat_param'");
    CHECK_ERR(ct_fsdp_load_state_dict(r.f, CT_FSDP_FULL_STATE_DICT, &empty) == CT_OK, CT_ERR_ARG,
              "Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: \"0.weight\"");
    CT_SCOPE {
        CHECK_EQ_INT(ct_fsdp_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, &sd), CT_OK);
        ct_tensor *keep = sd.items[1].tensor;
        sd.items[1].tensor = ct_zeros(CT_FLOAT64, 5);
        CHECK_ERR(ct_fsdp_load_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, &sd) == CT_OK, CT_ERR_SHAPE,
                  "FSDP load_state_dict (SHARDED_STATE_DICT): '2.flat_param' has 5 elements in the state dict and 27 here");
        sd.items[1].tensor = keep;
        char *name = sd.items[0].name;
        sd.items[0].name = (char *)"0.flat_parm";
        CHECK_ERR(ct_fsdp_load_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, &sd) == CT_OK, CT_ERR_ARG,
                  "FSDP load_state_dict (SHARDED_STATE_DICT): missing key '0.flat_param'");
        sd.items[0].name = name;
        ct_named_tensor more[3] = {sd.items[0], sd.items[1], {(char *)"junk", keep, 1}};
        ct_state_dict extra = {3, more};
        CHECK_ERR(ct_fsdp_load_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, &extra) == CT_OK, CT_ERR_ARG,
                  "FSDP load_state_dict (SHARDED_STATE_DICT): unexpected key 'junk'");
        ct_state_dict_free(&sd);
        ct_backward(ct_sum(ct_fsdp_forward(r.f, ct_randn(CT_FLOAT64, 2, 5))));
        CHECK_ERR(ct_fsdp_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, &sd) == CT_OK, CT_ERR_STATE,
                  "FSDP state_dict: a backward's gradients are still being reduced: call ct_fsdp_finish_gradients first");
        CHECK_EQ_INT(ct_fsdp_finish_gradients(r.f), CT_OK);
    }
    ckpt_end(&r);
}

/* activation checkpointing of a unit whose forward takes more than 4 inputs (7: six
   that depend on the input x, one constant that needs no gradient), with dropout in
   the unit: x's gradient and the parameters after two SGD steps are bit for bit those
   of the run without checkpointing, in each strategy */
#define MIX_NIN 7
static int mix_calls;
static ct_tensor *mix_forward(ct_module *m, int nin, ct_tensor *const *in) {
    ct_tensor *acc = NULL;
    mix_calls++;
    for (int i = 0; i < nin; i++) {
        ct_tensor *t = ct_mul(ct_forward(m->children[0].module, in[i]), ct_scalar_tensor((double)(i + 1), in[i]->dtype));
        acc = acc ? ct_add(acc, t) : t;
    }
    return ct_forward(m->children[1].module, ct_tanh(acc));
}
static const ct_module_type mix_type = {"Mix", mix_forward, NULL, NULL};
static ct_tensor *fan_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    ct_tensor *xs[MIX_NIN];
    for (int i = 0; i < MIX_NIN - 1; i++) xs[i] = ct_mul(in[0], ct_scalar_tensor(0.5 + i, in[0]->dtype));
    xs[MIX_NIN - 1] = ct_ones(in[0]->dtype, in[0]->shape[0], in[0]->shape[1]);
    return ct_forward(m->children[1].module, ct_forward_n(m->children[0].module, MIX_NIN, xs));
}
static const ct_module_type fan_type = {"Fan", fan_forward, NULL, NULL};
TEST(test_fsdp_ckpt_many_inputs_single) {
    for (int strat = 0; strat < 3; strat++) {
        ct_tensor *want[2][2] = {{NULL, NULL}, {NULL, NULL}};
        for (int ck = 0; ck < 2; ck++) CT_SCOPE {
            ct_manual_seed(71);
            ct_module *mix = ct_module_new(&mix_type, NULL), *fan = ct_module_new(&fan_type, NULL);
            ct_module_add_module(mix, "lin", ct_nn_linear(6, 6));
            ct_module_add_module(mix, "drop", ct_nn_dropout(0.25));
            ct_module_add_module(fan, "mix", mix);
            ct_module_add_module(fan, "head", ct_nn_linear(6, 3));
            ct_module_to_dtype(fan, CT_FLOAT64);
            ct_module *wm[1] = {mix};
            ct_fsdp *f = ct_fsdp_new(fan, NULL, &(ct_fsdp_options){.sharding_strategy = (ct_fsdp_strategy)strat, .min_num_params = -1,
                                                                   .wrap_modules = wm, .num_wrap_modules = 1,
                                                                   .activation_checkpointing = ck});
            CHECK(f != NULL);
            if (!f) { ct_module_free(fan); continue; }
            ct_tensor *shards[2];
            int ns = ct_fsdp_parameters(f, shards, 2);
            ct_optimizer *o = ct_optim_sgd_params(ns, shards, &(ct_sgd_options){.lr = 0.1});
            ct_manual_seed(72);
            ct_tensor *x = NULL;
            mix_calls = 0;
            for (int step = 0; step < 2; step++) {
                x = ct_set_requires_grad(ct_randn(CT_FLOAT64, 4, 6), 1);
                ct_zero_grad(o);
                CHECK_EQ_INT(ct_fsdp_backward(f, ct_sum(ct_fsdp_forward(f, x))), CT_OK);
                ct_step(o);
            }
            CHECK(x && x->grad != NULL);
            CHECK_EQ_INT(mix_calls, ck ? 4 : 2);   /* checkpointed: the forward again in each backward */
            want[ck][0] = x && x->grad ? ct_retain(ct_clone(x->grad)) : NULL;
            CHECK_EQ_INT(ct_fsdp_summon_full_params(f), CT_OK);
            ct_tensor *ps[4], *flat[4];
            int np = ct_module_parameters(fan, ps, 4);
            CHECK_EQ_INT(np, 4);
            for (int i = 0; i < np && i < 4; i++) flat[i] = ct_flatten(ps[i], 0, -1);
            want[ck][1] = ct_retain(ct_cat(np < 4 ? np : 4, flat, 0));
            ct_optim_free(o);
            ct_fsdp_free(f);
            ct_module_free(fan);
        }
        for (int k = 0; k < 2; k++) {
            CHECK(want[0][k] && want[1][k] && ct_equal(want[0][k], want[1][k]) == 1);
            if (want[0][k]) ct_release(want[0][k]);
            if (want[1][k]) ct_release(want[1][k]);
        }
    }
}

int main(void) {
    ct_t_init();
    int64_t live0 = ct_live_tensors();
    RUN(test_not_initialized);
    ct_process_group *pg = ct_dist_init_process_group("single", NULL);
    CHECK(pg != NULL && ct_dist_is_initialized());
    RUN(test_collectives);
    RUN(test_bad_input);
    RUN(test_ddp_single);
    RUN(test_zero_single);
    RUN(test_fsdp_single);
    RUN(test_fsdp_checkpoint_single);
    RUN(test_fsdp_mixed_precision_single);
    RUN(test_fsdp_ckpt_many_inputs_single);
    CHECK_EQ_INT(ct_dist_destroy_process_group(pg), CT_OK);
    CHECK(!ct_dist_is_initialized());
    CHECK_EQ_INT(ct_live_tensors(), live0);
    return ct_t_summary();
}
