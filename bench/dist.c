/* dist.c - DistributedDataParallel's training step (ctensor_dist.h) beside one process.
   PyTorch twin: bench/torch/dist.py (PyTorch 1.13's DDP on gloo).

   The model: MLP 784-512-256-10 (ReLU), batch 64 per rank, cross-entropy, SGD lr 0.01
   momentum 0.9; one thread per process. A step: forward, loss, zero_grad, backward
   (with DDP: the buckets' all-reduce, started from the gradient hooks), SGD step.
     mlp_step_1proc   one process, no distribution
     mlp_step_ddp2    DDP over 2 ranks (mpirun -np 2 on this machine, loopback /
                      shared memory); rank 0's step times
   The two cases are fixed step counts (every rank must run the same number of
   steps), 30 warm-up steps then 300 timed one by one: median and fastest step.
   Run alone, the program times the first case and then starts itself under
   mpirun --oversubscribe -np 2 for the second (built with Open MPI: make
   build/bench/dist; without it the second case is skipped with a note). */
#include "bench.h"
#define CTENSOR_IMPLEMENTATION
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_dist.h"

enum { WARMUP = 30, STEPS = 300, B = 64 };

static ct_module *make_mlp(void) {
    return ct_nn_sequential(ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_linear(512, 256), ct_nn_relu(),
                            ct_nn_linear(256, 10));
}

/* times STEPS steps (after WARMUP); ddp NULL: one process */
static int run_case(const char *name, const char *params, ct_module *model, ct_ddp *ddp, int print) {
    ct_optimizer *opt = ct_optim_sgd(model, &(ct_sgd_options){.lr = 0.01, .momentum = 0.9});
    ct_manual_seed(0);
    ct_tensor *x = ct_keep(ct_randn(CT_FLOAT32, B, 784)), *y = ct_keep(ct_randint(0, 10, CT_INT64, B));
    double *t = (double *)malloc(STEPS * sizeof *t);
    int bad = !opt || !t;
    for (int i = 0; i < WARMUP + STEPS && !bad; i++) CT_SCOPE {
        double t0 = bench_wall_us();
        ct_tensor *loss = ct_cross_entropy(ddp ? ct_ddp_forward(ddp, x) : ct_forward(model, x), y, NULL);
        ct_zero_grad(opt);
        bad |= !loss || (ddp ? ct_ddp_backward(ddp, loss) : ct_backward(loss)) || ct_step(opt);
        if (i >= WARMUP) t[i - WARMUP] = bench_wall_us() - t0;
    }
    if (bad) fprintf(stderr, "%s: %s\n", name, ct_last_error());
    else if (print) {
        qsort(t, STEPS, sizeof *t, bench_cmp);
        printf("%s\t%s\t%.2f\t%.2f\t%d\n", name, params, t[STEPS / 2], t[0], STEPS);
        fflush(stdout);
    }
    free(t);
    ct_optim_free(opt);
    return bad;
}

int main(int argc, char **argv) {
    bench_set_threads(1);
    if (argc > 1 && !strcmp(argv[1], "--ddp")) {     /* one rank of mlp_step_ddp2 */
        ct_process_group *pg = ct_dist_init_process_group("mpi", NULL);
        if (!pg) { fprintf(stderr, "%s\n", ct_last_error()); return 1; }
        ct_manual_seed(1);
        ct_module *model = make_mlp();
        ct_ddp *ddp = ct_ddp_new(model, pg, NULL);
        int bad = !ddp || run_case("mlp_step_ddp2", "MLP 784-512-256-10, batch 64 per rank, 2 ranks, SGD", model, ddp,
                                   ct_dist_get_rank(pg) == 0);
        ct_ddp_free(ddp);
        ct_module_free(model);
        ct_dist_destroy_process_group(pg);
        return bad;
    }
    bench_begin("dist");
    ct_manual_seed(1);
    ct_module *model = make_mlp();
    int bad = run_case("mlp_step_1proc", "MLP 784-512-256-10, batch 64, one process, SGD", model, NULL, 1);
    ct_module_free(model);
#ifdef CTENSOR_MPI
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_tcp_if_include=lo "
             "OMPI_MCA_oob_tcp_if_include=lo mpirun --oversubscribe -np 2 '%s' --ddp",
             argv[0]);
    fflush(stdout);
    if (system(cmd) != 0) { fprintf(stderr, "dist: the mpirun run failed\n"); bad = 1; }
#else
    (void)argv;
    printf("# mlp_step_ddp2 skipped: built without Open MPI (make build/bench/dist with mpicc present)\n");
#endif
    return bad;
}
