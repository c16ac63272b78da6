/* dist.c - DistributedDataParallel's training step (ctensor_dist.h) beside one process.
   PyTorch twin: bench/torch/dist.py (PyTorch 1.13's DDP on gloo).

   The model: MLP 784-512-256-10 (ReLU), batch 64 per rank, cross-entropy, SGD lr 0.01
   momentum 0.9; one thread per process. A step: forward, loss, zero_grad, backward
   (with DDP: the buckets' all-reduce, started from the gradient hooks), SGD step.
     mlp_step_1proc   one process, no distribution
     mlp_step_ddp2    DDP over 2 ranks (mpirun -np 2 on this machine, loopback /
                      shared memory); rank 0's step times
     mlp_step_fsdp2   FSDP FULL_SHARD over 2 ranks, PyTorch's default wrapping (one
                      unit: the model is under the 1e8-parameter threshold)
   and a 50M-parameter model (eight Linear(2500, 2500) with ReLU, batch 64 per rank,
   MSE, Adam), 2 steps of warm-up and 6 timed:
     mlp50m_step_1proc, mlp50m_step_ddp2, mlp50m_step_fsdp2_{full_shard,shard_grad_op,
     no_shard} (every Linear a unit)
   with "# memory" lines per rank 0: the bytes held between steps (parameters,
   gradients, optimizer state, DDP's buckets / FSDP's shards: ctensor's live storage,
   FSDP's flat buffers included) and, for FSDP, the peaks ct_fsdp_memory reports.
   The two cases are fixed step counts (every rank must run the same number of
   steps), 30 warm-up steps then 300 timed one by one: median and fastest step.
   Run alone, the program times the first case and then starts itself under
   mpirun --oversubscribe -np 2 for the second (built with Open MPI: make
   build/bench/dist; without it the second case is skipped with a note).
   On GPUs: built by nvcc with the CUDA header and the NCCL group
     nvcc -x cu -O2 -DCTENSOR_CUDA -DCTENSOR_NCCL -I. -Ibench $(mpicc -showme:compile) bench/dist.c \
          -o dist -lcublas -lnccl -llapacke -lopenblas $(mpicc -showme:link)
   `dist --cuda` (or CT_BENCH_DIST_CUDA=1) runs every case with the model and batches
   on the GPU (one process: the current device; under mpirun: the "nccl" group, each
   rank on its node-local GPU), each step ending with a device synchronize; the cases
   are named with a _cuda suffix (no PyTorch twin: bench/torch/dist.py is the CPU's).
   A build without ctensor_cuda.h ignores --cuda with a note and runs on the CPU. */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#ifdef CTENSOR_CUDA
#include "ctensor_cuda.h"
#endif
#include "ctensor_dist.h"

enum { WARMUP = 30, STEPS = 300, B = 64 };

/* where the model and the batches live (--cuda: the GPU), and the case names' suffix */
static ct_device DEV;
static const char *SUFFIX = "";
static int on_gpu(void) { return DEV.type != CT_CPU; }
/* the end of a step: the device's queued work done (a no-op on the CPU) */
static int step_sync(void) {
#ifdef CTENSOR_CUDA_H_INCLUDED
    if (on_gpu()) return ct_cuda_synchronize() != CT_OK;
#endif
    return 0;
}
static ct_tensor *on_dev(ct_tensor *t) { return on_gpu() ? ct_to_device(t, DEV) : t; }
static ct_module *model_on_dev(ct_module *m) { return on_gpu() ? ct_module_to(m, DEV) : m; }

static ct_module *make_mlp(void) {
    return ct_nn_sequential(ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_linear(512, 256), ct_nn_relu(),
                            ct_nn_linear(256, 10));
}

/* times STEPS steps (after WARMUP); ddp and fsdp NULL: one process */
static int run_case(const char *name, const char *params, ct_module *model, ct_ddp *ddp, ct_fsdp *fsdp, int print) {
    ct_tensor *shards[8];
    int ns = fsdp ? ct_fsdp_parameters(fsdp, shards, 8) : 0;
    ct_sgd_options so;   /* (no compound literals: nvcc builds this file as C++) */
    memset(&so, 0, sizeof so);
    so.lr = 0.01;
    so.momentum = 0.9;
    ct_optimizer *opt = fsdp ? ct_optim_sgd_params(ns, shards, &so) : ct_optim_sgd(model, &so);
    ct_manual_seed(0);
    ct_tensor *x = ct_keep(on_dev(ct_randn(CT_FLOAT32, B, 784))), *y = ct_keep(on_dev(ct_randint(0, 10, CT_INT64, B)));
    double *t = (double *)malloc(STEPS * sizeof *t);
    int bad = !opt || !t;
    for (int i = 0; i < WARMUP + STEPS && !bad; i++) CT_SCOPE {
        double t0 = bench_wall_us();
        ct_tensor *loss = ct_cross_entropy(ddp ? ct_ddp_forward(ddp, x) : fsdp ? ct_fsdp_forward(fsdp, x) : ct_forward(model, x), y, NULL);
        ct_zero_grad(opt);
        bad |= !loss || (ddp ? ct_ddp_backward(ddp, loss) : fsdp ? ct_fsdp_backward(fsdp, loss) : ct_backward(loss)) ||
               ct_step(opt) || step_sync();
        if (i >= WARMUP) t[i - WARMUP] = bench_wall_us() - t0;
    }
    if (bad) fprintf(stderr, "%s%s: %s\n", name, SUFFIX, ct_last_error());
    else if (print) {
        qsort(t, STEPS, sizeof *t, bench_cmp);
        printf("%s%s\t%s%s\t%.2f\t%.2f\t%d\n", name, SUFFIX, params, on_gpu() ? ", GPU" : "", t[STEPS / 2], t[0], STEPS);
        fflush(stdout);
    }
    free(t);
    ct_optim_free(opt);
    return bad;
}

/* ---- the 50M model: DDP, FSDP in each strategy, one process ---- */
enum { BIG_WARMUP = 2, BIG_STEPS = 6, BIG_D = 2500, BIG_L = 8 };
static ct_module *make_big(void) {
    ct_module *mods[2 * BIG_L];
    for (int i = 0; i < BIG_L; i++) {
        mods[2 * i] = ct_nn_linear(BIG_D, BIG_D);
        mods[2 * i + 1] = ct_nn_relu();
    }
    return ct_nn_sequential_n(2 * BIG_L - 1, mods);   /* no ReLU after the last */
}
static int run_big(const char *name, ct_process_group *pg, int mode /* 0 one process, 1 DDP, 2+ FSDP strategy+2 */) {
    int rank = pg ? ct_dist_get_rank(pg) : 0;
    ct_manual_seed(5);
    ct_module *model = model_on_dev(make_big());
    /* CT_BENCH_DDP_BUCKET_MB: DDP's bucket_cap_mb (default 25, PyTorch's) */
    ct_ddp_options dopt = {getenv("CT_BENCH_DDP_BUCKET_MB") ? atof(getenv("CT_BENCH_DDP_BUCKET_MB")) : 0, 0};
    ct_ddp *ddp = mode == 1 ? ct_ddp_new(model, pg, &dopt) : NULL;
    ct_fsdp_options fo;
    memset(&fo, 0, sizeof fo);
    fo.sharding_strategy = (ct_fsdp_strategy)(mode - 2);
    fo.min_num_params = 1000000;
    fo.forward_prefetch = getenv("CT_BENCH_FSDP_NO_PREFETCH") == NULL;
    fo.backward_prefetch = getenv("CT_BENCH_FSDP_NO_PREFETCH") ? CT_FSDP_BACKWARD_NONE : CT_FSDP_BACKWARD_PRE;
    ct_fsdp *fsdp = mode >= 2 ? ct_fsdp_new(model, pg, &fo) : NULL;
    ct_tensor *shards[BIG_L + 1];
    int ns = fsdp ? ct_fsdp_parameters(fsdp, shards, BIG_L + 1) : 0;
    ct_adam_options ao;
    memset(&ao, 0, sizeof ao);
    ao.lr = 1e-4;
    ct_optimizer *opt = fsdp ? ct_optim_adam_params(ns, shards, &ao) : ct_optim_adam(model, &ao);
    ct_manual_seed(6);
    ct_tensor *x = ct_keep(on_dev(ct_randn(CT_FLOAT32, B, BIG_D))), *y = ct_keep(on_dev(ct_randn(CT_FLOAT32, B, BIG_D)));
    double t[BIG_STEPS];
    int bad = !opt || (mode == 1 && !ddp) || (mode >= 2 && !fsdp);
    int64_t held = 0;
    for (int i = 0; i < BIG_WARMUP + BIG_STEPS && !bad; i++) {
        if (i == BIG_WARMUP && fsdp) ct_fsdp_reset_peak_memory(fsdp);
        CT_SCOPE {
            double t0 = bench_wall_us();
            ct_tensor *out = ddp ? ct_ddp_forward(ddp, x) : fsdp ? ct_fsdp_forward(fsdp, x) : ct_forward(model, x);
            ct_tensor *loss = ct_mse_loss(out, y, NULL);
            ct_zero_grad(opt);
            bad |= !loss || (ddp ? ct_ddp_backward(ddp, loss) : fsdp ? ct_fsdp_backward(fsdp, loss) : ct_backward(loss)) ||
                   ct_step(opt) || step_sync();
            if (i >= BIG_WARMUP) t[i - BIG_WARMUP] = bench_wall_us() - t0;
        }
        held = ct_live_bytes();
    }
    if (bad) fprintf(stderr, "%s%s: %s\n", name, SUFFIX, ct_last_error());
    else if (rank == 0) {
        qsort(t, BIG_STEPS, sizeof *t, bench_cmp);
        printf("%s%s\t8x Linear(2500, 2500), 50M params, batch 64%s, Adam%s\t%.0f\t%.0f\t%d\n", name, SUFFIX,
               pg ? " per rank, 2 ranks" : "", on_gpu() ? ", GPU" : "", t[BIG_STEPS / 2], t[0], BIG_STEPS);
        if (fsdp) {
            ct_fsdp_memory_stats ms;
            ct_fsdp_memory(fsdp, &ms);
            printf("# memory %s rank 0: held between steps %.1f MB; peaks: gathered parameters %.1f MB, flat "
                   "gradients %.1f MB, everything (activations too) %.1f MB\n",
                   name, (double)held / 1e6, (double)ms.peak_full_param_bytes / 1e6,
                   (double)ms.peak_grad_bytes / 1e6, (double)ms.peak_live_bytes / 1e6);
        } else
            printf("# memory %s rank 0: held between steps %.1f MB (parameters, gradients, Adam's state%s)\n", name,
                   (double)held / 1e6, ddp ? ", DDP's buckets" : "");
        fflush(stdout);
    }
    ct_optim_free(opt);
    ct_ddp_free(ddp);
    ct_fsdp_free(fsdp);
    ct_module_free(model);
    return bad;
}

int main(int argc, char **argv) {
    bench_set_threads(1);
    DEV = ct_cpu();
    int cuda = getenv("CT_BENCH_DIST_CUDA") && atoi(getenv("CT_BENCH_DIST_CUDA")) != 0;
    for (int i = 1; i < argc; i++) cuda |= !strcmp(argv[i], "--cuda");
#ifdef CTENSOR_CUDA_H_INCLUDED
    if (cuda) SUFFIX = "_cuda";
#else
    if (cuda) printf("# --cuda ignored: built without ctensor_cuda.h (nvcc -x cu -DCTENSOR_CUDA -DCTENSOR_NCCL ...): the CPU\n");
    cuda = 0;
#endif
    if (argc > 1 && !strcmp(argv[1], "--ddp")) {     /* one rank of mlp_step_ddp2 */
        ct_process_group *pg = ct_dist_init_process_group(cuda ? "nccl" : "mpi", NULL);
        if (!pg) { fprintf(stderr, "%s\n", ct_last_error()); return 1; }
#ifdef CTENSOR_CUDA_H_INCLUDED
        if (cuda) DEV = ct_cuda(ct_cuda_current_device());   /* (the group picked this rank's GPU) */
#endif
        ct_manual_seed(1);
        ct_module *model = model_on_dev(make_mlp());
        ct_ddp *ddp = ct_ddp_new(model, pg, NULL);
        int bad = !ddp || run_case("mlp_step_ddp2", "MLP 784-512-256-10, batch 64 per rank, 2 ranks, SGD", model, ddp, NULL,
                                   ct_dist_get_rank(pg) == 0);
        ct_ddp_free(ddp);
        ct_module_free(model);
        /* the same MLP under FSDP FULL_SHARD with PyTorch's default wrapping (one unit:
           the 535,818 parameters are under its 1e8 threshold) */
        if (!bad && bench_selected("mlp_step_fsdp2")) {
            ct_manual_seed(1);
            model = model_on_dev(make_mlp());
            ct_fsdp *fsdp = ct_fsdp_new(model, pg, NULL);
            bad = !fsdp || run_case("mlp_step_fsdp2", "MLP 784-512-256-10, batch 64 per rank, 2 ranks, SGD, FSDP FULL_SHARD", model,
                                    NULL, fsdp, ct_dist_get_rank(pg) == 0);
            ct_fsdp_free(fsdp);
            ct_module_free(model);
        }
        if (!getenv("CT_BENCH_DIST_SMALL")) {
            static const char *const names[5] = {"", "mlp50m_step_ddp2", "mlp50m_step_fsdp2_full_shard",
                                                 "mlp50m_step_fsdp2_shard_grad_op", "mlp50m_step_fsdp2_no_shard"};
            for (int mode = 1; mode <= 4 && !bad; mode++)
                if (bench_selected(names[mode])) bad |= run_big(names[mode], pg, mode);
        }
        ct_dist_destroy_process_group(pg);
        return bad;
    }
    bench_begin("dist");
#ifdef CTENSOR_CUDA_H_INCLUDED
    if (cuda) DEV = ct_cuda(ct_cuda_current_device());
#endif
    ct_manual_seed(1);
    ct_module *model = model_on_dev(make_mlp());
    int bad = run_case("mlp_step_1proc", "MLP 784-512-256-10, batch 64, one process, SGD", model, NULL, NULL, 1);
    ct_module_free(model);
    if (!getenv("CT_BENCH_DIST_SMALL") && bench_selected("mlp50m_step_1proc")) bad |= run_big("mlp50m_step_1proc", NULL, 0);
#ifdef CTENSOR_MPI
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_tcp_if_include=lo "
             "OMPI_MCA_oob_tcp_if_include=lo mpirun --oversubscribe -np 2 '%s' --ddp%s",
             argv[0], cuda ? " --cuda" : "");
    fflush(stdout);
    if (system(cmd) != 0) { fprintf(stderr, "dist: the mpirun run failed\n"); bad = 1; }
#else
    (void)argv;
    printf("# mlp_step_ddp2 skipped: built without Open MPI (make build/bench/dist with mpicc present)\n");
#endif
    return bad;
}
