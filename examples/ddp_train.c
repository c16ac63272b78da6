/* ddp_train.c - an MLP trained with DistributedDataParallel (ctensor_dist.h), as
   PyTorch's DDP tutorial does it: each rank takes its share of the global batch, DDP
   averages the gradients, every rank steps the same way.

     mpicc -std=c11 -O2 -DCTENSOR_MPI -I. examples/ddp_train.c -o ddp_train -lm
     OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 ./ddp_train
   (make build/examples/ddp_train does the first line; without MPI it builds the
   single-process version, which runs as one rank of one.)

   The data: 10 classes of 784-dimensional points around random centres; the model:
   784-512-256-10 with ReLU, SGD with momentum, batch 64 per rank. Prints the loss
   (averaged over ranks) and the median step time. */
#define _POSIX_C_SOURCE 200809L
#define CTENSOR_IMPLEMENTATION
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "ctensor.h"
#include "ctensor_nn.h"
#include "ctensor_dist.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 100;
    if (steps < 1 || steps > 100000) steps = 100;
    ct_process_group *pg = ct_dist_init_process_group(NULL, NULL);   /* "mpi" when built with it */
    if (!pg) { fprintf(stderr, "%s\n", ct_last_error()); return 1; }
    int rank = ct_dist_get_rank(pg), world = ct_dist_get_world_size(pg);
    const int64_t B = 64;

    ct_manual_seed(1234 + (uint64_t)rank);   /* each rank starts elsewhere: DDP broadcasts rank 0's weights */
    ct_module *model = ct_nn_sequential(ct_nn_linear(784, 512), ct_nn_relu(), ct_nn_linear(512, 256), ct_nn_relu(),
                                        ct_nn_linear(256, 10));
    ct_ddp *ddp = ct_ddp_new(model, pg, NULL);
    ct_optimizer *opt = ct_optim_sgd(model, &(ct_sgd_options){.lr = 0.05, .momentum = 0.9});
    if (!ddp || !opt) { fprintf(stderr, "%s\n", ct_last_error()); return 1; }

    ct_manual_seed(99);                        /* the same data stream on every rank */
    ct_tensor *centres = ct_keep(ct_mul_scalar(ct_randn(CT_FLOAT32, 10, 784), 0.05));
    double *times = (double *)malloc((size_t)steps * sizeof *times);
    int status = 0;
    if (rank == 0) printf("DDP on %d rank%s (%s backend), batch %lld per rank\n", world, world > 1 ? "s" : "",
                          ct_dist_get_backend(pg), (long long)B);
    for (int step = 0; step < steps && !status; step++) CT_SCOPE {
        /* the global batch, then this rank's rows of it */
        ct_tensor *y = ct_randint(0, 10, CT_INT64, B * world);
        ct_tensor *x = ct_add(ct_index_select(centres, 0, y), ct_randn(CT_FLOAT32, B * world, 784));
        ct_tensor *xl = ct_narrow(x, 0, B * rank, B), *yl = ct_narrow(y, 0, B * rank, B);
        double t0 = now();
        ct_tensor *loss = ct_cross_entropy(ct_ddp_forward(ddp, xl), yl, NULL);
        ct_zero_grad(opt);
        if (!loss || ct_ddp_backward(ddp, loss) || ct_step(opt)) {
            fprintf(stderr, "rank %d: %s\n", rank, ct_last_error());
            status = 1;
            break;
        }
        times[step] = now() - t0;
        if (step % 20 == 0 || step == steps - 1) {
            ct_tensor *l = ct_clone(ct_detach(loss));
            ct_dist_all_reduce(l, CT_REDUCE_AVG, pg, NULL);
            if (rank == 0) printf("step %4d  loss %.4f\n", step, ct_item(l));
        }
    }
    if (!status) {
        qsort(times, (size_t)steps, sizeof *times, cmp_double);
        if (rank == 0) printf("median step time %.3f ms (forward, backward with the all-reduce, SGD step)\n", times[steps / 2] * 1e3);
    }
    free(times);
    ct_optim_free(opt);
    ct_ddp_free(ddp);
    ct_module_free(model);
    ct_dist_destroy_process_group(pg);
    return status;
}
