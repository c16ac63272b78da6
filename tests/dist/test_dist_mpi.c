/* test_dist_mpi.c - ctensor_dist.h on Open MPI, run by tests/dist/run.sh under
   mpirun --oversubscribe on loopback:
     collectives  (-np 2 and -np 4) every collective, dtype and reduce op against the
                  result computed here from every rank's input (integer-valued data:
                  exact), async handles overlapping compute, all_reduce's point-to-point
                  paths (direct exchange and ring, several in flight; random floats;
                  the same bytes on every rank), send/recv in a ring
     train        (-np 2) DDP (SGD with momentum; several buckets; no_sync
                  accumulation) and DDP + ZeRO-1 (Adam) against one process training
                  the same float64 model on the whole global batch: equal within
                  1e-12 relative (not bit for bit: the global batch's mean is summed
                  in another order); the ranks' parameters equal bit for bit; ZeRO's
                  state exists only for a rank's own parameters
     exit         (-np 2) rank 1 leaves early (destroys its group and returns): rank 0's
                  all_reduce fails with the timeout error within the timeout, later
                  calls fail at once
                  FSDP in each strategy (FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, and FULL_SHARD with
                  forward prefetch; backward prefetch is on by default; three
                  units; Adam on the flat shards) against the same, within 1e-12;
                  FSDP with bfloat16 mixed precision against the same by hand; every
                  strategy with and without offload_params; activation checkpointing of
                  units against the same without it (same parameters bit for bit, a
                  lower activation peak)
     ckpt_save DIR, ckpt_resume DIR  (-np 2, two mpiruns) FSDP checkpoints in each strategy:
                  the first run trains, saving SHARDED, FULL and the optimizer's state at
                  step 3, and records its losses; the second, a new job, resumes from the
                  files four ways (sharded; FULL loaded by FSDP; FULL loaded by a plain
                  model; FULL model and full optimizer state dicts loaded by FSDP) and must
                  see the same losses bit for bit; a plain model and optimizer that load the
                  FULL model and full optimizer state dicts see the ranks' mean loss
   gpt          (-np 2; also run by ckpt_save) examples/fsdp_train.c (minGPT under FSDP)
                  in a tiny configuration, as it is and with bfloat16 mixed precision and
                  activation checkpointing: its loss falls
   crash        (-np 2, mpirun --enable-recovery) rank 1 dies without MPI_Finalize:
                  the same on rank 0
   Rank 0 prints the sum of all ranks' "N passed, N failed" (exit, crash: its own).
   Built with mpicc flags and linked to tests/ct_impl.c's object (no MPI there): this
   file brings the MPI backend (CTENSOR_DIST_MPI_IMPLEMENTATION). */
#define _POSIX_C_SOURCE 200809L   /* (clock_gettime in examples/fsdp_train.c) */
#define CTENSOR_DIST_MPI_IMPLEMENTATION
#include "ct_test.h"
#include "ctensor_nn.h"
#include "ctensor_dist.h"
#include <unistd.h>
#define FSDP_TRAIN_NO_MAIN   /* examples/fsdp_train.c's model and training loop, for the gpt mode */
#include "../../examples/fsdp_train.c"

static int R, W;   /* rank, world size */

/* rank r's input: small integers (exact in every dtype and every reduction) */
static double val(int op, int r, int i) {
    if (op == CT_REDUCE_PRODUCT) return (double)((r + i) % 3 + 1);
    if (op < 0) return (double)((r + i) % 2);       /* bool */
    return (double)(r * 3 + i % 7 - 3);
}
static ct_tensor *input_of(ct_dtype dt, int op, int r, int64_t n) {
    ct_tensor *t = ct_zeros(CT_FLOAT64, n);
    double *p = (double *)ct_data_ptr(t);
    for (int64_t i = 0; i < n; i++) p[i] = val(dt == CT_BOOL ? -1 : op, r, (int)i);
    if (dt == CT_UINT8)
        for (int64_t i = 0; i < n; i++) p[i] = p[i] < 0 ? -p[i] : p[i];
    return ct_to(t, dt);
}
static double reduce_ref(ct_dtype dt, int op, int i) {
    double acc = 0;
    for (int r = 0; r < W; r++) {
        double v = val(dt == CT_BOOL ? -1 : op, r, i);
        if (dt == CT_UINT8 && v < 0) v = -v;
        if (r == 0) { acc = v; continue; }
        if (dt == CT_BOOL) acc = (op == CT_REDUCE_SUM || op == CT_REDUCE_MAX) ? (acc || v) : (acc && v);
        else if (op == CT_REDUCE_SUM || op == CT_REDUCE_AVG) acc += v;
        else if (op == CT_REDUCE_PRODUCT) acc *= v;
        else if (op == CT_REDUCE_MAX) acc = v > acc ? v : acc;
        else acc = v < acc ? v : acc;
    }
    return op == CT_REDUCE_AVG ? acc / W : acc;
}

TEST(test_collectives) {
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_FLOAT16, CT_BFLOAT16, CT_INT64, CT_INT32, CT_INT16, CT_INT8, CT_UINT8, CT_BOOL};
    const int ndt = (int)(sizeof dts / sizeof dts[0]);
    enum { N = 6 };
    double ref[64];
    for (int k = 0; k < ndt; k++) {
        ct_dtype dt = dts[k];
        for (int op = 0; op < CT_REDUCE_NUM_OPS; op++) {
            if (op == CT_REDUCE_AVG && !ct_dtype_is_floating(dt)) continue;
            if (dt == CT_UINT8 && op == CT_REDUCE_PRODUCT) continue;
            for (int i = 0; i < N; i++) ref[i] = reduce_ref(dt, op, i);
            /* all_reduce */
            ct_tensor *t = input_of(dt, op, R, N);
            CHECK_EQ_INT(ct_dist_all_reduce(t, (ct_reduce_op)op, NULL, NULL), CT_OK);
            CHECK_VALUES(t, ref, N, 1e-6);
            /* reduce_scatter_tensor: input [W*N], the chunk of rank r is rank r's view */
            ct_tensor *in = input_of(dt, op, R, (int64_t)W * N), *out = ct_zeros(dt, N);
            CHECK_EQ_INT(ct_dist_reduce_scatter_tensor(out, in, (ct_reduce_op)op, NULL, NULL), CT_OK);
            for (int i = 0; i < N; i++) ref[i] = reduce_ref(dt, op, R * N + i);
            CHECK_VALUES(out, ref, N, 1e-6);
            /* reduce_scatter (list) */
            ct_tensor *lst[8];
            for (int r = 0; r < W; r++) lst[r] = ct_narrow(in, 0, (int64_t)r * N, N);
            ct_tensor *out2 = ct_zeros(dt, N);
            CHECK_EQ_INT(ct_dist_reduce_scatter(out2, W, lst, (ct_reduce_op)op, NULL, NULL), CT_OK);
            CHECK_VALUES(out2, ref, N, 1e-6);
        }
        /* broadcast from every rank */
        for (int src = 0; src < W; src++) {
            ct_tensor *t = input_of(dt, CT_REDUCE_SUM, R, N);
            for (int i = 0; i < N; i++) ref[i] = ct_item(ct_select(input_of(dt, CT_REDUCE_SUM, src, N), 0, i));
            CHECK_EQ_INT(ct_dist_broadcast(t, src, NULL, NULL), CT_OK);
            CHECK_VALUES(t, ref, N, 0);
        }
        /* all_gather into one tensor [W, N] and into a list */
        ct_tensor *in = input_of(dt, CT_REDUCE_SUM, R, N), *out = ct_zeros(dt, W, N), *lst[8];
        CHECK_EQ_INT(ct_dist_all_gather_into_tensor(out, in, NULL, NULL), CT_OK);
        for (int r = 0; r < W; r++) lst[r] = ct_zeros(dt, 2, 3);
        CHECK_EQ_INT(ct_dist_all_gather(W, lst, in, NULL, NULL), CT_OK);
        for (int r = 0; r < W; r++) {
            ct_tensor *e = input_of(dt, CT_REDUCE_SUM, r, N);
            CHECK(ct_equal(ct_select(out, 0, r), e) == 1);
            CHECK(ct_equal(ct_reshape(lst[r], -1), e) == 1);
        }
    }
    CHECK_EQ_INT(ct_dist_barrier(NULL, NULL), CT_OK);
}

/* async: a large all_reduce started, compute meanwhile, then wait */
TEST(test_async_overlap) {
    int64_t n = 1 << 20;
    ct_tensor *big = ct_full(CT_FLOAT32, (double)(R + 1), n);
    ct_work *w = NULL;
    CHECK_EQ_INT(ct_dist_all_reduce(big, CT_REDUCE_SUM, NULL, &w), CT_OK);
    ct_tensor *a = ct_randn(CT_FLOAT32, 128, 128);
    int polls = 0;
    for (int i = 0; i < 4; i++) {
        a = ct_tanh(ct_matmul(a, a));
        polls += ct_work_test(w) == 0;
    }
    CHECK(a != NULL);
    CHECK_EQ_INT(ct_work_wait(w), CT_OK);
    double s = (double)W * (W + 1) / 2;
    CHECK_CLOSE(ct_item(ct_amin(big, 0, NULL, 0)), s, 0);
    CHECK_CLOSE(ct_item(ct_amax(big, 0, NULL, 0)), s, 0);
    /* several in flight at once, waited in reverse order */
    ct_work *ws[4];
    ct_tensor *ts[4];
    for (int k = 0; k < 4; k++) {
        ts[k] = ct_full(CT_FLOAT64, (double)(k + R), 1000);
        CHECK_EQ_INT(ct_dist_all_reduce(ts[k], k % 2 ? CT_REDUCE_MAX : CT_REDUCE_SUM, NULL, &ws[k]), CT_OK);
    }
    for (int k = 3; k >= 0; k--) CHECK_EQ_INT(ct_work_wait(ws[k]), CT_OK);
    for (int k = 0; k < 4; k++) {
        double e = k % 2 ? (double)(k + W - 1) : (double)k * W + (double)W * (W - 1) / 2;
        CHECK_CLOSE(ct_item(ct_sum(ts[k])), 1000 * e, 0);
    }
    (void)polls;
}

/* all_reduce on point-to-point messages: the direct exchange (small buffers, fewer
   elements than ranks) and the ring (larger ones; chunks of unequal size when W does
   not divide n), several in flight at once: the reduction against one computed here
   from every rank's input (random floats: summed in another order, so within float
   tolerance), and every rank's result equal to rank 0's bit for bit */
static ct_tensor *ar_input(ct_dtype dt, int r, int64_t n) {
    ct_manual_seed(1000 + (uint64_t)r);
    ct_tensor *t = ct_sub(ct_mul(ct_rand(CT_FLOAT64, n), ct_scalar_tensor(200, CT_FLOAT64)), ct_scalar_tensor(100, CT_FLOAT64));
    return ct_to(dt == CT_INT32 ? ct_round(t) : t, dt);
}
static int same_on_every_rank(const ct_tensor *t) {
    ct_tensor *c = ct_clone(t);
    int ok = ct_dist_broadcast(c, 0, NULL, NULL) == CT_OK && ct_equal(c, t) == 1;
    ct_tensor *f = ct_scalar_tensor(ok, CT_INT64);
    ct_dist_all_reduce(f, CT_REDUCE_MIN, NULL, NULL);
    return (int)ct_item_int(f);
}
TEST(test_all_reduce_p2p) {
    const int64_t ns[] = {1, (int64_t)W - 1, 1000, 16385, 100003, (1 << 18) + 3};
    const ct_dtype dts[] = {CT_FLOAT32, CT_FLOAT64, CT_INT32, CT_FLOAT32, CT_FLOAT64, CT_FLOAT32};
    const ct_reduce_op ops[] = {CT_REDUCE_SUM, CT_REDUCE_AVG, CT_REDUCE_MAX, CT_REDUCE_MIN, CT_REDUCE_SUM, CT_REDUCE_AVG};
    enum { K = 6 };
    ct_tensor *ts[K];
    ct_work *ws[K];
    for (int k = 0; k < K; k++) {   /* all in flight, waited in reverse order */
        ts[k] = ar_input(dts[k], R, ns[k]);
        ws[k] = NULL;
        CHECK_EQ_INT(ct_dist_all_reduce(ts[k], ops[k], NULL, &ws[k]), CT_OK);
    }
    for (int k = K - 1; k >= 0; k--) CHECK_EQ_INT(ct_work_wait(ws[k]), CT_OK);
    for (int k = 0; k < K; k++) {
        ct_tensor *ref = ct_to(ar_input(dts[k], 0, ns[k]), CT_FLOAT64);
        for (int r = 1; r < W; r++) {
            ct_tensor *x = ct_to(ar_input(dts[k], r, ns[k]), CT_FLOAT64);
            ref = ops[k] == CT_REDUCE_MAX ? ct_maximum(ref, x) : ops[k] == CT_REDUCE_MIN ? ct_minimum(ref, x) : ct_add(ref, x);
        }
        if (ops[k] == CT_REDUCE_AVG) ref = ct_div(ref, ct_scalar_tensor(W, CT_FLOAT64));
        CHECK(ct_allclose(ct_to(ts[k], CT_FLOAT64), ref, dts[k] == CT_FLOAT32 ? 1e-5 : 1e-12, 1e-4) == 1);
        CHECK(same_on_every_rank(ts[k]));
    }
    /* blocking, in place on a view's storage: a row of a matrix */
    ct_tensor *m = ar_input(CT_FLOAT32, R, 3 * 40000), *m2 = ct_view(m, 3, 40000), *row = ct_select(m2, 0, 1);
    CHECK_EQ_INT(ct_dist_all_reduce(row, CT_REDUCE_SUM, NULL, NULL), CT_OK);
    CHECK(same_on_every_rank(row));
}

/* send/recv around a ring, async send and blocking receive */
TEST(test_send_recv) {
    int next = (R + 1) % W, prev = (R + W - 1) % W;
    ct_tensor *mine = ct_full(CT_INT64, (double)(100 + R), 5), *got = ct_zeros(CT_INT64, 5);
    ct_work *w = NULL;
    CHECK_EQ_INT(ct_dist_send(mine, next, NULL, 7, &w), CT_OK);
    CHECK_EQ_INT(ct_dist_recv(got, prev, NULL, 7, NULL), CT_OK);
    CHECK_EQ_INT(ct_work_wait(w), CT_OK);
    CHECK_EQ_INT(ct_item_int(ct_sum(got)), 5 * (100 + prev));
    CHECK_ERR(ct_dist_send(mine, W, NULL, 0, NULL) == CT_OK, CT_ERR_ARG, "send: invalid destination rank");
    CHECK_ERR(ct_dist_all_gather(W + 1, NULL, mine, NULL, NULL) == CT_OK, CT_ERR_ARG, "all_gather: tensor_list must have world_size");
}

/* ---- training: DDP and ZeRO-1 against one process on the global batch ---- */
enum { B = 8, STEPS = 5 };
static ct_module *mlp(uint64_t seed) {
    ct_manual_seed(seed);
    return ct_module_to_dtype(ct_nn_sequential(ct_nn_linear(10, 32), ct_nn_tanh(), ct_nn_linear(32, 16), ct_nn_relu(),
                                               ct_nn_linear(16, 4)),
                              CT_FLOAT64);
}
static int params_close(ct_module *a, ct_module *b, double rtol) {
    ct_tensor *pa[16], *pb[16];
    int n = ct_module_parameters(a, pa, 16), ok = n == ct_module_parameters(b, pb, 16);
    for (int i = 0; ok && i < n; i++) ok = ct_allclose(pa[i], pb[i], rtol, 1e-14) == 1;
    return ok;
}
/* every rank's parameters equal rank 0's, bit for bit */
static int params_same_everywhere(ct_module *m) {
    ct_tensor *ps[16];
    int n = ct_module_parameters(m, ps, 16), ok = 1;
    for (int i = 0; i < n; i++) {
        ct_tensor *c = ct_clone(ps[i]);
        if (ct_dist_broadcast(c, 0, NULL, NULL) || ct_equal(c, ps[i]) != 1) ok = 0;
    }
    ct_tensor *f = ct_scalar_tensor(ok, CT_INT64);
    ct_dist_all_reduce(f, CT_REDUCE_MIN, NULL, NULL);
    return (int)ct_item_int(f);
}
static ct_tensor *loss_of(ct_module *m, ct_ddp *d, ct_tensor *x, ct_tensor *y) {
    return ct_mse_loss(d ? ct_ddp_forward(d, x) : ct_forward(m, x), y, NULL);
}

TEST(test_ddp) {
    ct_module *ref = mlp(42), *net = mlp(42 + (uint64_t)R);   /* rank 1 starts elsewhere: DDP broadcasts rank 0's */
    ct_ddp_options o = {0.002, 0};                            /* ~2 KB: several buckets, started during backward */
    ct_ddp *ddp = ct_ddp_new(net, NULL, &o);
    CHECK(ddp != NULL);
    CHECK(ct_ddp_num_buckets(ddp) >= 3);
    CHECK(params_close(ref, net, 0));
    ct_optimizer *o1 = ct_optim_sgd(ref, &(ct_sgd_options){.lr = 0.05, .momentum = 0.9});
    ct_optimizer *o2 = ct_optim_sgd(net, &(ct_sgd_options){.lr = 0.05, .momentum = 0.9});
    ct_manual_seed(1000);   /* the same data on every rank; each takes its rows */
    for (int step = 0; step < STEPS; step++) CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)W * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)W * B, 4);
        ct_zero_grad(o1);
        ct_backward(loss_of(ref, NULL, x, y));
        ct_step(o1);
        ct_zero_grad(o2);
        CHECK_EQ_INT(ct_ddp_backward(ddp, loss_of(net, ddp, ct_narrow(x, 0, (int64_t)R * B, B), ct_narrow(y, 0, (int64_t)R * B, B))),
                     CT_OK);
        ct_step(o2);
    }
    CHECK(params_close(ref, net, 1e-12));
    CHECK(params_same_everywhere(net));
    /* gradient accumulation: three micro-batches, the first two under no_sync */
    CT_SCOPE {
        ct_zero_grad(o1);
        ct_zero_grad(o2);
        for (int micro = 0; micro < 3; micro++) {
            ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)W * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)W * B, 4);
            ct_backward(loss_of(ref, NULL, x, y));
            ct_tensor *xl = ct_narrow(x, 0, (int64_t)R * B, B), *yl = ct_narrow(y, 0, (int64_t)R * B, B);
            if (micro < 2) {
                CT_DDP_NO_SYNC(ddp) { CHECK_EQ_INT(ct_ddp_backward(ddp, loss_of(net, ddp, xl, yl)), CT_OK); }
            } else
                CHECK_EQ_INT(ct_ddp_backward(ddp, loss_of(net, ddp, xl, yl)), CT_OK);
        }
        ct_step(o1);
        ct_step(o2);
    }
    CHECK(params_close(ref, net, 1e-12));
    CHECK(params_same_everywhere(net));
    ct_optim_free(o1);
    ct_optim_free(o2);
    ct_ddp_free(ddp);
    ct_module_free(ref);
    ct_module_free(net);
}

TEST(test_zero) {
    ct_module *ref = mlp(7), *net = mlp(7);
    ct_ddp *ddp = ct_ddp_new(net, NULL, NULL);
    ct_optimizer *o1 = ct_optim_adam(ref, &(ct_adam_options){.lr = 0.01});
    ct_optimizer *o2 = ct_optim_adam(net, &(ct_adam_options){.lr = 0.01});
    ct_zero_optimizer *z = ct_zero_redundancy_optimizer(o2, NULL);
    CHECK(z != NULL);
    int own = 0, n = ct_optim_group_size(o2, 0);
    int64_t own_el = 0, all_el = 0, largest = 0;
    for (int i = 0; i < n; i++) {
        int r = ct_zero_param_rank(z, 0, i);
        int64_t k = ct_numel(ct_optim_param(o2, 0, i));
        CHECK(r >= 0 && r < W);
        own += r == R;
        all_el += k;
        if (k > largest) largest = k;
        if (r == R) own_el += k;
    }
    CHECK(own >= 1);
    CHECK(own_el <= all_el / W + largest);   /* the greedy partition's bound */
    ct_manual_seed(2000);
    for (int step = 0; step < STEPS; step++) CT_SCOPE {
        ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)W * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)W * B, 4);
        ct_zero_grad(o1);
        ct_backward(loss_of(ref, NULL, x, y));
        ct_step(o1);
        ct_zero_grad(o2);
        CHECK_EQ_INT(ct_ddp_backward(ddp, loss_of(net, ddp, ct_narrow(x, 0, (int64_t)R * B, B), ct_narrow(y, 0, (int64_t)R * B, B))),
                     CT_OK);
        CHECK_EQ_INT(ct_zero_step(z), CT_OK);
    }
    CHECK(params_close(ref, net, 1e-12));
    CHECK(params_same_everywhere(net));
    /* the optimizer's state: only this rank's parameters */
    CT_SCOPE {
        ct_state_dict sd;
        CHECK_EQ_INT(ct_optim_state_dict(o2, &sd), CT_OK);
        int with_state = 0;
        for (int i = 0; i < sd.n; i++)
            if (strstr(sd.items[i].name, ".exp_avg_sq")) with_state++;
        CHECK_EQ_INT(with_state, own);
        ct_state_dict_free(&sd);
    }
    ct_zero_free(z);
    ct_optim_free(o1);
    ct_optim_free(o2);
    ct_ddp_free(ddp);
    ct_module_free(ref);
    ct_module_free(net);
}

/* FSDP in each strategy, with and without CPU offload, against one process on the
   global batch */
TEST(test_fsdp) {
    for (int c = 0; c < 7; c++) {   /* strategy c % 3; 3..5: offload_params; 6: FULL_SHARD with forward prefetch too */
        int strat = c % 3;
        ct_module *ref = mlp(21), *net = mlp(21 + (uint64_t)R);   /* rank 0's weights win (sync_module_states) */
        /* two wrapped Linears and the root's */
        ct_fsdp_options fo = {.sharding_strategy = (ct_fsdp_strategy)strat, .min_num_params = 100, .forward_prefetch = c == 6,
                              .offload_params = c >= 3 && c < 6};
        ct_fsdp *f = ct_fsdp_new(net, NULL, &fo);
        CHECK(f != NULL);
        if (!f) { ct_module_free(ref); ct_module_free(net); continue; }
        CHECK_EQ_INT(ct_fsdp_num_units(f), 3);
        ct_tensor *shards[8];
        int ns = ct_fsdp_parameters(f, shards, 8);
        int64_t total = 0;
        for (int i = 0; i < ns; i++) total += ct_numel(shards[i]);
        /* 352 + 528 + 68 elements: each unit padded to a multiple of W, 1/W of it here */
        int64_t want = 0, sizes[3] = {352, 528, 68};
        for (int i = 0; i < 3; i++) want += strat == CT_FSDP_NO_SHARD ? sizes[i] : (sizes[i] + W - 1) / W;
        CHECK_EQ_INT(total, want);
        ct_optimizer *o1 = ct_optim_adam(ref, &(ct_adam_options){.lr = 0.01});
        ct_optimizer *o2 = ct_optim_adam_params(ns, shards, &(ct_adam_options){.lr = 0.01});
        ct_manual_seed(3000);
        for (int step = 0; step < STEPS; step++) CT_SCOPE {
            ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)W * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)W * B, 4);
            ct_zero_grad(o1);
            ct_backward(loss_of(ref, NULL, x, y));
            ct_step(o1);
            ct_zero_grad(o2);
            ct_tensor *xl = ct_narrow(x, 0, (int64_t)R * B, B), *yl = ct_narrow(y, 0, (int64_t)R * B, B);
            CHECK_EQ_INT(ct_fsdp_backward(f, ct_mse_loss(ct_fsdp_forward(f, xl), yl, NULL)), CT_OK);
            ct_step(o2);
        }
        CHECK_EQ_INT(ct_fsdp_summon_full_params(f), CT_OK);
        CHECK(params_close(ref, net, 1e-12));
        CHECK(params_same_everywhere(net));
        ct_optim_free(o1);
        ct_optim_free(o2);
        ct_fsdp_free(f);
        CHECK(params_close(ref, net, 1e-12));
        ct_module_free(ref);
        ct_module_free(net);
    }
}

/* FSDP with bfloat16 mixed precision (float32 master shards), in each strategy, with and
   without offload_params (a no-op on the CPU), against the same by hand in
   one process: each rank's half batch through a bfloat16 copy of a float32 model, the
   two gradients averaged as the bfloat16 reduce-scatter does (in float32, rounded to
   bfloat16 once), the float32 model stepped */
TEST(test_fsdp_mixed) {
    ct_fsdp_mixed_precision mp = {CT_BFLOAT16, CT_BFLOAT16};
    for (int c = 0; c < 6; c++) {
        int strat = c % 3;
        ct_module *ref = ct_module_to_dtype(mlp(23), CT_FLOAT32), *low = ct_module_to_dtype(mlp(23), CT_BFLOAT16);
        ct_module *net = ct_module_to_dtype(mlp(23), CT_FLOAT32);
        ct_fsdp *f = ct_fsdp_new(net, NULL, &(ct_fsdp_options){.sharding_strategy = (ct_fsdp_strategy)strat, .min_num_params = 100,
                                                               .mixed_precision = &mp, .offload_params = c >= 3});
        CHECK(f != NULL);
        if (!f) { ct_module_free(ref); ct_module_free(low); ct_module_free(net); continue; }
        ct_tensor *shards[8], *rp[16], *lp[16];
        int ns = ct_fsdp_parameters(f, shards, 8), np = ct_module_parameters(ref, rp, 16);
        ct_module_parameters(low, lp, 16);
        ct_optimizer *o1 = ct_optim_sgd(ref, &(ct_sgd_options){.lr = 0.05, .momentum = 0.9});
        ct_optimizer *o2 = ct_optim_sgd_params(ns, shards, &(ct_sgd_options){.lr = 0.05, .momentum = 0.9});
        ct_manual_seed(4000);
        for (int step = 0; step < STEPS; step++) CT_SCOPE {
            ct_tensor *x = ct_randn(CT_FLOAT32, (int64_t)W * B, 10), *y = ct_randn(CT_FLOAT32, (int64_t)W * B, 4);
            ct_set_grad_enabled(0);
            for (int i = 0; i < np; i++) ct_copy_(lp[i], rp[i]);
            ct_set_grad_enabled(1);
            ct_tensor *sum[16] = {0};
            for (int r = 0; r < W; r++) {
                for (int i = 0; i < np; i++) ct_set_grad(lp[i], NULL);
                ct_tensor *xr = ct_to(ct_narrow(x, 0, (int64_t)r * B, B), CT_BFLOAT16);
                ct_backward(ct_mse_loss(ct_to(ct_forward(low, xr), CT_FLOAT32), ct_narrow(y, 0, (int64_t)r * B, B), NULL));
                for (int i = 0; i < np; i++) {
                    ct_tensor *g = ct_to(ct_grad(lp[i]), CT_FLOAT32);
                    sum[i] = r ? ct_add(sum[i], g) : g;
                }
            }
            ct_zero_grad(o1);
            for (int i = 0; i < np; i++) ct_set_grad(rp[i], ct_to(ct_to(ct_div_scalar(sum[i], W), CT_BFLOAT16), CT_FLOAT32));
            ct_step(o1);
            ct_zero_grad(o2);
            ct_tensor *out = ct_fsdp_forward(f, ct_narrow(x, 0, (int64_t)R * B, B));
            CHECK(out && out->dtype == CT_BFLOAT16);
            CHECK_EQ_INT(ct_fsdp_backward(f, ct_mse_loss(ct_to(out, CT_FLOAT32), ct_narrow(y, 0, (int64_t)R * B, B), NULL)), CT_OK);
            ct_step(o2);
        }
        ct_optim_free(o1);
        ct_optim_free(o2);
        ct_fsdp_free(f);   /* the module: float32 parameters with the master values */
        CHECK(params_close(ref, net, 1e-6));
        CHECK(params_same_everywhere(net));
        ct_module_free(ref);
        ct_module_free(low);
        ct_module_free(net);
    }
}

/* FSDP with activation checkpointing of its units, in each strategy: the same parameters
   bit for bit as without it after a few Adam steps (dropout in the units: the
   recomputation replays the forward's random numbers), and a lower activation peak
   (four units: without checkpointing all four units' activations are alive when the
   first unit's backward runs; with it, one unit's recomputed ones) */
static ct_module *blocks(uint64_t seed, ct_module **b) {
    ct_manual_seed(seed);
    for (int i = 0; i < 4; i++) b[i] = ct_nn_sequential(ct_nn_linear(10, 48), ct_nn_tanh(), ct_nn_dropout(0.25), ct_nn_linear(48, 10));
    return ct_module_to_dtype(ct_nn_sequential(b[0], b[1], b[2], b[3]), CT_FLOAT64);
}
TEST(test_fsdp_ckpt) {
    for (int strat = 0; strat < 3; strat++) {
        ct_tensor *want[2] = {NULL, NULL};
        int64_t peak[2] = {0, 0};
        for (int ck = 0; ck < 2; ck++) {
            ct_module *b[4], *net = blocks(61, b);
            ct_fsdp *f = ct_fsdp_new(net, NULL, &(ct_fsdp_options){.sharding_strategy = (ct_fsdp_strategy)strat, .min_num_params = -1,
                                                                   .wrap_modules = b, .num_wrap_modules = 4,
                                                                   .activation_checkpointing = ck});
            CHECK(f != NULL);
            if (!f) { ct_module_free(net); continue; }
            CHECK_EQ_INT(ct_fsdp_num_units(f), 4);
            ct_tensor *shards[4];
            int ns = ct_fsdp_parameters(f, shards, 4);
            ct_optimizer *o = ct_optim_adam_params(ns, shards, &(ct_adam_options){.lr = 0.01});
            ct_manual_seed(5000 + (uint64_t)R);
            for (int step = 0; step < 3; step++) CT_SCOPE {
                ct_tensor *x = ct_randn(CT_FLOAT64, 64, 10), *y = ct_randn(CT_FLOAT64, 64, 10);
                ct_zero_grad(o);
                int64_t base = ct_live_bytes();
                ct_fsdp_reset_peak_memory(f);
                CHECK_EQ_INT(ct_fsdp_backward(f, ct_mse_loss(ct_fsdp_forward(f, x), y, NULL)), CT_OK);
                ct_fsdp_memory_stats ms;
                ct_fsdp_memory(f, &ms);
                if (ms.peak_live_bytes - base > peak[ck]) peak[ck] = ms.peak_live_bytes - base;
                ct_step(o);
            }
            CHECK_EQ_INT(ct_fsdp_summon_full_params(f), CT_OK);
            ct_tensor *ps[16];
            int np = ct_module_parameters(net, ps, 16);
            CHECK_EQ_INT(np, 16);
            ct_tensor *flat[16];
            for (int i = 0; i < np; i++) flat[i] = ct_flatten(ps[i], 0, -1);
            want[ck] = ct_cat(np, flat, 0);
            ct_optim_free(o);
            ct_fsdp_free(f);
            ct_module_free(net);
        }
        CHECK(want[0] && want[1] && ct_equal(want[0], want[1]) == 1);
        CHECK(peak[1] > 0 && peak[1] < peak[0]);
        if (R == 0) printf("# checkpointing, strategy %d: activation peak %lld -> %lld bytes\n", strat, (long long)peak[0], (long long)peak[1]);
    }
}

/* ---- FSDP checkpoints across runs: ckpt_save trains 6 steps, saving at step 3
   (SHARDED: a file per rank; FULL: rank 0's file; the optimizer's state per rank)
   and recording every rank's losses; ckpt_resume is a new mpirun: it loads them
   into differently initialized models and must see the same losses bit for bit ---- */
static const char *ckpt_dir;
static char *ckpt_path(char *buf, size_t cap, const char *what, int strat, int rank) {
    snprintf(buf, cap, "%s/%s_s%d_r%d.safetensors", ckpt_dir, what, strat, rank);
    return buf;
}
static ct_status sd_write(const char *path, const ct_state_dict *sd) {
    const char *names[64];
    const ct_tensor *ts[64];
    for (int i = 0; i < sd->n && i < 64; i++) {
        names[i] = sd->items[i].name;
        ts[i] = sd->items[i].tensor;
    }
    return ct_save_safetensors_n(path, sd->n, names, ts, 0, NULL, NULL);
}
/* the file's tensors as a state dict (current scope; names borrowed from st); free items */
static ct_state_dict sd_read(ct_safetensors *st) {
    ct_state_dict sd = {st ? ct_safetensors_count(st) : 0, NULL};
    sd.items = (ct_named_tensor *)calloc((size_t)(sd.n > 0 ? sd.n : 1), sizeof *sd.items);
    for (int i = 0; i < sd.n; i++) {
        sd.items[i].name = (char *)ct_safetensors_name(st, i);
        sd.items[i].tensor = ct_safetensors_get(st, sd.items[i].name);
        sd.items[i].persistent = 1;
    }
    return sd;
}
static double ckpt_step(ct_fsdp *f, ct_optimizer *o, int step) {
    double l = 0;
    CT_SCOPE {
        ct_manual_seed(700 + (uint64_t)step);
        ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)W * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)W * B, 4);
        ct_zero_grad(o);
        ct_tensor *loss = ct_mse_loss(ct_fsdp_forward(f, ct_narrow(x, 0, (int64_t)R * B, B)), ct_narrow(y, 0, (int64_t)R * B, B), NULL);
        l = ct_item(loss);
        if (ct_fsdp_backward(f, loss) || ct_step(o)) l = -1;
    }
    return l;
}
typedef struct ckpt_run { ct_module *m; ct_fsdp *f; ct_optimizer *o; } ckpt_run;
static ckpt_run ckpt_start(ct_module *m, int strat) {
    ckpt_run r = {m, ct_fsdp_new(m, NULL, &(ct_fsdp_options){.sharding_strategy = (ct_fsdp_strategy)strat, .min_num_params = 100}), NULL};
    ct_tensor *shards[8];
    int ns = ct_fsdp_parameters(r.f, shards, 8);
    r.o = ct_optim_adam_params(ns, shards, &(ct_adam_options){.lr = 0.01});
    return r;
}
static void ckpt_end(ckpt_run *r) {
    ct_optim_free(r->o);
    ct_fsdp_free(r->f);
    ct_module_free(r->m);
}
TEST(test_ckpt_save) {
    char path[512];
    for (int strat = 0; strat < 3; strat++) {
        ckpt_run r = ckpt_start(mlp(51), strat);
        CHECK(r.f != NULL);
        if (!r.f) { ct_module_free(r.m); continue; }
        FILE *lf = fopen(ckpt_path(path, sizeof path, "losses", strat, R), "w");
        CHECK(lf != NULL);
        for (int step = 0; step < 6; step++) {
            if (step == 3) CT_SCOPE {
                ct_state_dict sd;
                CHECK_EQ_INT(ct_fsdp_state_dict(r.f, CT_FSDP_SHARDED_STATE_DICT, &sd), CT_OK);
                CHECK_EQ_INT(sd.n, 3);
                CHECK_STR(sd.items[0].name, "0.flat_param");
                CHECK_EQ_INT(sd_write(ckpt_path(path, sizeof path, "sharded", strat, R), &sd), CT_OK);
                ct_state_dict_free(&sd);
                CHECK_EQ_INT(ct_fsdp_state_dict(r.f, CT_FSDP_FULL_STATE_DICT, &sd), CT_OK);
                CHECK_EQ_INT(sd.n, R == 0 ? 6 : 0);   /* rank 0 only */
                if (R == 0) CHECK_EQ_INT(sd_write(ckpt_path(path, sizeof path, "full", strat, 0), &sd), CT_OK);
                ct_state_dict_free(&sd);
                CHECK_EQ_INT(ct_optim_state_dict(r.o, &sd), CT_OK);
                CHECK_EQ_INT(sd_write(ckpt_path(path, sizeof path, "optim", strat, R), &sd), CT_OK);
                ct_state_dict_free(&sd);
                /* the full optimizer state dict: rank 0, the module's parameters' indices */
                CHECK_EQ_INT(ct_fsdp_full_optim_state_dict(r.f, r.o, &sd), CT_OK);
                CHECK_EQ_INT(sd.n > 0, R == 0);
                if (R == 0) {
                    CHECK_STR(sd.items[0].name, "state.0.step");
                    CHECK_STR(sd.items[1].name, "state.0.exp_avg");
                    CHECK(sd.items[1].tensor->ndim == 2 && sd.items[1].tensor->shape[0] == 32 && sd.items[1].tensor->shape[1] == 10);
                    CHECK_STR(sd.items[3 * 5 + 1].name, "state.5.exp_avg");
                    CHECK(sd.items[3 * 5 + 1].tensor->ndim == 1 && sd.items[3 * 5 + 1].tensor->shape[0] == 4);
                    CHECK_STR(sd.items[sd.n - 1].name, "param_groups.0.params");
                    CHECK_EQ_INT(ct_numel(sd.items[sd.n - 1].tensor), 6);
                    CHECK_EQ_INT(sd_write(ckpt_path(path, sizeof path, "foptim", strat, 0), &sd), CT_OK);
                }
                ct_state_dict_free(&sd);
            }
            double l = ckpt_step(r.f, r.o, step);
            if (lf) fprintf(lf, "%a\n", l);
        }
        if (lf) fclose(lf);
        ckpt_end(&r);
    }
}
/* every rank, with no FSDP: a plain model and a plain Adam load rank 0's FULL model and
   full optimizer state dicts and train on the global batch: the loss of steps 3..5 is
   the mean of the ranks' recorded losses */
static void ckpt_resume_plain(int strat) {
    char path[512];
    double want[6] = {0};
    for (int r = 0; r < W; r++) {
        FILE *lf = fopen(ckpt_path(path, sizeof path, "losses", strat, r), "r");
        CHECK(lf != NULL);
        for (int i = 0; lf && i < 6; i++) {
            double l = 0;
            CHECK(fscanf(lf, "%la", &l) == 1);
            want[i] += l / W;
        }
        if (lf) fclose(lf);
    }
    ct_module *m = mlp(95);
    CHECK_EQ_INT(ct_module_load_safetensors(m, ckpt_path(path, sizeof path, "full", strat, 0), 1), CT_OK);
    ct_optimizer *o = ct_optim_adam(m, &(ct_adam_options){.lr = 0.01});
    CT_SCOPE {
        ct_safetensors *os = ct_safetensors_load(ckpt_path(path, sizeof path, "foptim", strat, 0));
        CHECK(os != NULL);
        ct_state_dict osd = sd_read(os);
        CHECK_EQ_INT(ct_optim_load_state_dict(o, &osd), CT_OK);
        free(osd.items);
        ct_safetensors_free(os);
    }
    int same = 1;
    for (int step = 3; step < 6; step++) CT_SCOPE {
        ct_manual_seed(700 + (uint64_t)step);
        ct_tensor *x = ct_randn(CT_FLOAT64, (int64_t)W * B, 10), *y = ct_randn(CT_FLOAT64, (int64_t)W * B, 4);
        ct_zero_grad(o);
        ct_tensor *loss = ct_mse_loss(ct_forward(m, x), y, NULL);
        double l = ct_item(loss);
        same &= fabs(l - want[step]) <= 1e-12 * fabs(want[step]);
        ct_backward(loss);
        ct_step(o);
    }
    CHECK(same);
    if (!same) printf("FAIL strategy %d: the plain model's losses are not the FSDP run's\n", strat);
    ct_optim_free(o);
    ct_module_free(m);
}
/* one way of resuming (0: sharded files, 1: FULL through ct_fsdp_load_state_dict, 2: FULL
   into a plain model on rank 0, which FSDP then broadcasts; 3: FULL model and full optimizer
   state dict through FSDP): steps 3..5 as recorded */
static void ckpt_resume_one(int strat, int how) {
    char path[512];
    double want[6] = {0};
    FILE *lf = fopen(ckpt_path(path, sizeof path, "losses", strat, R), "r");
    CHECK(lf != NULL);
    for (int i = 0; lf && i < 6; i++) CHECK(fscanf(lf, "%la", &want[i]) == 1);
    if (lf) fclose(lf);
    ct_module *m = mlp(90 + (uint64_t)R);   /* other initial values everywhere */
    if (how == 2 && R == 0) CHECK_EQ_INT(ct_module_load_safetensors(m, ckpt_path(path, sizeof path, "full", strat, 0), 1), CT_OK);
    ckpt_run r = ckpt_start(m, strat);
    CHECK(r.f != NULL);
    if (!r.f) { ct_module_free(m); return; }
    CT_SCOPE {
        ct_safetensors *ms = NULL;
        if (how == 0) ms = ct_safetensors_load(ckpt_path(path, sizeof path, "sharded", strat, R));
        if ((how == 1 || how == 3) && R == 0) ms = ct_safetensors_load(ckpt_path(path, sizeof path, "full", strat, 0));
        ct_safetensors *os = how == 3 ? (R == 0 ? ct_safetensors_load(ckpt_path(path, sizeof path, "foptim", strat, 0)) : NULL)
                                      : ct_safetensors_load(ckpt_path(path, sizeof path, "optim", strat, R));
        CHECK((os != NULL || (how == 3 && R != 0)) && (ms != NULL || how == 2 || R != 0));
        ct_state_dict msd = sd_read(ms), osd = sd_read(os);
        if (how != 2)
            CHECK_EQ_INT(ct_fsdp_load_state_dict(r.f, how ? CT_FSDP_FULL_STATE_DICT : CT_FSDP_SHARDED_STATE_DICT, ms ? &msd : NULL), CT_OK);
        if (how == 3) CHECK_EQ_INT(ct_fsdp_load_full_optim_state_dict(r.f, r.o, os ? &osd : NULL), CT_OK);
        else CHECK_EQ_INT(ct_optim_load_state_dict(r.o, &osd), CT_OK);
        free(msd.items);
        free(osd.items);
        ct_safetensors_free(ms);
        ct_safetensors_free(os);
    }
    int same = 1;
    for (int step = 3; step < 6; step++) same &= ckpt_step(r.f, r.o, step) == want[step];
    CHECK(same);
    if (!same) printf("FAIL strategy %d, resume %d: another loss trajectory\n", strat, how);
    ckpt_end(&r);
}
TEST(test_ckpt_resume) {
    for (int strat = 0; strat < 3; strat++) {
        for (int how = 0; how < 4; how++) ckpt_resume_one(strat, how);
        ckpt_resume_plain(strat);
    }
    /* rank 0's load fails: every rank gets an error, none hangs */
    ckpt_run r = ckpt_start(mlp(3), CT_FSDP_FULL_SHARD);
    ct_state_dict empty = {0, NULL};
    CHECK_ERR(ct_fsdp_load_state_dict(r.f, CT_FSDP_FULL_STATE_DICT, &empty) == CT_OK, CT_ERR_ARG,
              R == 0 ? "Missing key(s) in state_dict" : "FSDP load_state_dict: rank 0 could not load the state dict");
    /* the same for the full optimizer state dict; an optimizer over other parameters */
    CHECK_ERR(ct_fsdp_load_full_optim_state_dict(r.f, r.o, &empty) == CT_OK, CT_ERR_ARG,
              R == 0 ? "FSDP load_full_optim_state_dict: missing or mis-shaped key 'param_groups.0.lr'"
                     : "FSDP load_full_optim_state_dict: rank 0 could not load the state dict");
    ct_module *other = mlp(4);
    ct_optimizer *oo = ct_optim_adam(other, &(ct_adam_options){.lr = 0.01});
    CHECK_ERR(ct_fsdp_full_optim_state_dict(r.f, oo, &empty) == CT_OK, CT_ERR_ARG,
              "FSDP full_optim_state_dict: the optimizer's parameter 0 (group 0) is not one of this FSDP's shards");
    ct_optim_free(oo);
    ct_module_free(other);
    ckpt_end(&r);
}

/* examples/fsdp_train.c in a tiny configuration: trains, the loss falls (the second run
   with bfloat16 mixed precision and activation checkpointing of the blocks) */
TEST(test_gpt_example) {
    char *args[] = {(char *)"fsdp_train", (char *)"4", (char *)"--layers", (char *)"2", (char *)"--embd", (char *)"32", NULL, NULL};
    for (int bf16 = 0; bf16 < 2; bf16++) {
        if (bf16) {
            args[6] = (char *)"--bf16";
            args[7] = (char *)"--checkpoint";
        }
        fsdp_train_result res = {0, 0, 0, 0};
        CHECK_EQ_INT(fsdp_train_run(6 + 2 * bf16, args, NULL, 1, &res), 0);
        CHECK_EQ_INT(res.steps, 4);
        CHECK(res.first_loss > 3.0 && res.first_loss < 6.0);   /* about log(96) at the start */
        CHECK(res.last_loss < res.first_loss - 0.2);
        if (R == 0) printf("# gpt%s: loss %.4f -> %.4f\n", bf16 ? " bf16, checkpointing" : "", res.first_loss, res.last_loss);
    }
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "collectives";
    int crash = !strcmp(mode, "crash"), leave = crash || !strcmp(mode, "exit");
    ct_t_init();
    int64_t live0 = ct_live_tensors();
    ct_dist_options opt = {leave ? 2.0 : 60.0};
    ct_process_group *pg = ct_dist_init_process_group("mpi", &opt);
    if (!pg) { printf("FAIL init_process_group: %s\n0 passed, 1 failed\n", ct_last_error()); return 1; }
    R = ct_dist_get_rank(pg);
    W = ct_dist_get_world_size(pg);
    CHECK_STR(ct_dist_get_backend(pg), "mpi");
    if (leave) {
        CHECK_EQ_INT(ct_dist_barrier(pg, NULL), CT_OK);
        if (R == 1) {
            if (crash) _exit(0);   /* no MPI_Finalize: a crash as far as MPI knows */
            ct_dist_destroy_process_group(pg);
            return 0;
        }
        ct_tensor *t = ct_ones(CT_FLOAT32, 4);
        double t0 = MPI_Wtime();
        ct_clear_error();
        ct_status st = ct_dist_all_reduce(t, CT_REDUCE_SUM, pg, NULL);
        double secs = MPI_Wtime() - t0;
        CHECK_EQ_INT(st, CT_ERR_STATE);
        CHECK(strstr(ct_last_error(), "all_reduce: timed out after 2.0 s waiting for the other ranks (rank 0 of 2, mpi backend)") != NULL);
        CHECK(secs >= 1.9 && secs < 10);
        CHECK_ERR(ct_dist_barrier(pg, NULL) == CT_OK, CT_ERR_STATE,
                  "barrier: the process group can no longer be used: all_reduce: timed out after 2.0 s");
        if (crash) {   /* MPI_Finalize may wait for the dead rank: report and leave without it */
            int rc = ct_t_summary();
            fflush(stdout);
            _exit(rc);
        }
        CHECK_EQ_INT(ct_dist_destroy_process_group(pg), CT_OK);
        return ct_t_summary();
    }
    if (!strcmp(mode, "collectives")) {
        RUN(test_collectives);
        RUN(test_async_overlap);
        RUN(test_all_reduce_p2p);
        RUN(test_send_recv);
    } else if (!strcmp(mode, "train")) {
        RUN(test_ddp);
        RUN(test_zero);
        RUN(test_fsdp);
        RUN(test_fsdp_mixed);
        RUN(test_fsdp_ckpt);
    } else if (!strcmp(mode, "gpt")) {
        RUN(test_gpt_example);
    } else if (!strcmp(mode, "ckpt_save") || !strcmp(mode, "ckpt_resume")) {
        ckpt_dir = argc > 2 ? argv[2] : ".";
        if (mode[5] == 's') {
            RUN(test_ckpt_save);
            RUN(test_gpt_example);   /* (here: one mpirun less for the suite) */
        } else RUN(test_ckpt_resume);
    } else {
        printf("unknown mode %s\n", mode);
        ct_t_fail++;
    }
    CHECK_EQ_INT(ct_live_tensors(), live0 + 0);
    /* rank 0 reports the sum over ranks */
    int64_t counts[2] = {ct_t_pass, ct_t_fail};
    ct_tensor *c = ct_from_blob(counts, CT_INT64, 1, (int64_t[]){2}, NULL, NULL, NULL);
    if (ct_dist_all_reduce(c, CT_REDUCE_SUM, pg, NULL)) {
        printf("FAIL summing the ranks' counts: %s\n", ct_last_error());
        counts[0] = ct_t_pass;
        counts[1] = ct_t_fail + 1;
    }
    ct_release(c);
    ct_dist_destroy_process_group(pg);
    if (R == 0) printf("%lld passed, %lld failed\n", (long long)counts[0], (long long)counts[1]);
    return counts[1] ? 1 : 0;
}
