/* ctensor_dist.h - torch.distributed for ctensor: process groups (Open MPI, NCCL on CUDA
   tensors, a single process), collectives with asynchronous handles and timeouts, DistributedDataParallel,
   ZeroRedundancyOptimizer (ZeRO-1) and FullyShardedDataParallel (prefetch, mixed
   precision, FULL and SHARDED state dicts).
                                                                  v0.2 (2026-12-07)

   HOW TO USE
     #define CTENSOR_IMPLEMENTATION          (in exactly one file)
     #include "ctensor.h"
     #include "ctensor_nn.h"
     #include "ctensor_dist.h"               (after ctensor_nn.h)

     Without CTENSOR_MPI only the single-process group ("single") exists: the header
     needs nothing but ctensor.h and ctensor_nn.h, and a program written for N ranks
     runs as one. With Open MPI (Debian: libopenmpi-dev, openmpi-bin):
         mpicc -DCTENSOR_MPI -O2 train.c -o train -lm && mpirun -np 2 ./train
     (as root, Open MPI also wants OMPI_ALLOW_RUN_AS_ROOT=1
     OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; more ranks than cores: --oversubscribe).

     A program whose ctensor implementation was built without MPI (a prebuilt
     libctensor, one shared implementation file) gets the MPI backend from one more
     file, compiled with mpicc:
         #define CTENSOR_DIST_MPI_IMPLEMENTATION
         #include "ctensor.h"
         #include "ctensor_nn.h"
         #include "ctensor_dist.h"
     It holds only the MPI backend and registers it when the program starts (gcc,
     clang and C++; elsewhere call ct_dist_mpi_register() before
     ct_dist_init_process_group).

     NCCL ("nccl": CUDA tensors, DDP and FSDP with parameters on the GPU; bootstrapped over MPI),
     in the file that holds the implementations, compiled by nvcc with ctensor_cuda.h:
         nvcc -O2 -x cu -DCTENSOR_CUDA -DCTENSOR_NCCL $(mpicc -showme:compile) train.c \
              -lcublas -lnccl $(mpicc -showme:link) && mpirun -np 2 ./train
     (or a file of its own with CTENSOR_DIST_NCCL_IMPLEMENTATION, after ctensor.h,
     ctensor_nn.h and ctensor_cuda.h; any C compiler with the CUDA and MPI include
     paths). Not yet run on a GPU: the backend, DDP and FSDP on it are tested on the
     CUDA emulator with NCCL emulated over MPI (tests/dist/emu).

   THE FEEL (torch.distributed, torch.nn.parallel.DistributedDataParallel)
       ct_process_group *pg = ct_dist_init_process_group("mpi", NULL);
       ct_ddp *ddp = ct_ddp_new(model, pg, NULL);     // rank 0's parameters everywhere
       ct_optimizer *opt = ct_optim_sgd(model, &(ct_sgd_options){ .lr = 0.1 });
       for (...) CT_SCOPE {
           ct_tensor *loss = ct_cross_entropy(ct_ddp_forward(ddp, x_local), y_local, NULL);
           ct_zero_grad(opt);
           ct_ddp_backward(ddp, loss);                // buckets all-reduced as grads appear
           ct_step(opt);
       }
       ct_ddp_free(ddp); ct_dist_destroy_process_group(pg);

   TABLE OF CONTENTS
     1. Declarations
        Process groups: init, rank, world size, destroy, backends (single, MPI, NCCL)
        Collectives: all_reduce, broadcast, all_gather(_into_tensor),
          reduce_scatter(_tensor), barrier, send/recv; async work (wait, test)
        DistributedDataParallel: buckets, gradient hooks, no_sync
        ZeroRedundancyOptimizer (ZeRO-1)
        FullyShardedDataParallel: units (auto and manual wrap), strategies, prefetch,
          mixed precision, CPU offload, activation checkpointing, memory report,
          state dicts, optimizer state dicts (full and sharded)
     2. Implementation
        Groups, the backend registry, work handles and their completion
        The single-process backend
        Collectives (checks, then the backend)
        DistributedDataParallel
        ZeroRedundancyOptimizer
        FullyShardedDataParallel (units, gathers and prefetch, activation
          checkpointing, gradient reduction, the state dicts, the optimizer state dicts)
        The MPI backend (CTENSOR_MPI or CTENSOR_DIST_MPI_IMPLEMENTATION)
        The NCCL backend (CTENSOR_NCCL or CTENSOR_DIST_NCCL_IMPLEMENTATION)

   SEMANTICS (PyTorch 1.13's torch.distributed)
     - Tensors are CPU tensors (CUDA tensors for the "nccl" group), contiguous, of a real dtype (float32/64, float16,
       bfloat16, the integers, bool); collectives work in place on them (the
       version counter is bumped as for any in-place op) and are not recorded by
       autograd. Reductions of float16/bfloat16 run in float32 and round once.
       ReduceOp.AVG needs a floating point dtype (sum, then divide by world size).
       bool: SUM and MAX are logical or, PRODUCT and MIN logical and.
     - Every collective takes `ct_work **work`: NULL runs it to completion (async_op=
       False); else it starts it and *work is the handle (async_op=True): compute
       overlaps the transfer until ct_work_wait (which also frees the handle).
       The tensors involved stay alive until then (the handle holds references);
       do not touch their data before the wait.
     - Timeouts: every wait gives up after the group's timeout (options.timeout_s,
       default 1800 s as PyTorch's) or ct_work_wait_timeout's, and returns an error
       naming the op, the rank and the time: a peer that exited or hangs becomes an
       error here, never a hang. The group is then broken: its later calls fail at
       once with the first message (as NCCL's async error handling); destroy it.
       Open MPI's own runtime kills the other ranks when one exits without
       MPI_Finalize (a crash) unless mpirun is given --enable-recovery; a rank that
       leaves cleanly (ct_dist_destroy_process_group, then exit) is caught here.
     - Errors come back as a ct_status (NULL for constructors) with ct_last_error():
       "all_gather_into_tensor: output tensor size must be equal to world_size times
       input tensor size (output 5 elements, input 3, world_size 2)". A NULL tensor
       argument keeps the error that made it NULL.
*/
#ifndef CTENSOR_DIST_H_INCLUDED
#define CTENSOR_DIST_H_INCLUDED

#include "ctensor.h"
#include "ctensor_nn.h"     /* modules and optimizers (DDP, ZeRO, FSDP wrap them) */

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================
   Process groups (torch.distributed.init_process_group, ProcessGroup)
   A group is a set of ranks 0..world_size-1 that run collectives together. The
   first group made is the default one: functions given a NULL group use it.
   ========================================================================== */
/* torch.distributed.ReduceOp */
typedef enum ct_reduce_op {
    CT_REDUCE_SUM = 0,
    CT_REDUCE_AVG = 1,
    CT_REDUCE_MAX = 2,
    CT_REDUCE_MIN = 3,
    CT_REDUCE_PRODUCT = 4,
    CT_REDUCE_NUM_OPS = 5
} ct_reduce_op;

typedef struct ct_process_group ct_process_group;
typedef struct ct_work ct_work;
typedef struct ct_dist_options {
    double timeout_s;           /* 0: 1800 s (PyTorch's default timedelta(minutes=30)) */
} ct_dist_options;

/* torch.distributed.init_process_group(backend, timeout=...): "mpi" (built with
   CTENSOR_MPI, started by mpirun), "single" (one process, rank 0 of 1), or a
   registered backend's name. NULL backend: "mpi" when it is built in, else
   "single". The first group becomes the default group. NULL + error when the
   backend is unknown or cannot start. */
CTENSOR_API ct_process_group *ct_dist_init_process_group(const char *backend, const ct_dist_options *options);
/* torch.distributed.destroy_process_group(group): finishes the backend (MPI_Finalize
   for the group that started MPI) and frees the group; NULL: the default group. */
CTENSOR_API ct_status ct_dist_destroy_process_group(ct_process_group *group);
/* torch.distributed.is_initialized(): a default group exists */
CTENSOR_API int ct_dist_is_initialized(void);
/* torch.distributed.get_rank(group) / get_world_size(group): -1 + error without a group */
CTENSOR_API int ct_dist_get_rank(const ct_process_group *group);
CTENSOR_API int ct_dist_get_world_size(const ct_process_group *group);
/* torch.distributed.get_backend(group): "mpi", "single", ... (NULL + error without a group) */
CTENSOR_API const char *ct_dist_get_backend(const ct_process_group *group);

/* A backend, for its authors (an NCCL one, a test double). Every function works on
   contiguous buffers of `count` elements of dt and starts an operation: 0 and *req
   (NULL when it completed at once), or non-zero with the error set (ct_set_error).
   all_reduce and reduce_scatter never get CT_REDUCE_AVG (the group divides) nor a
   float16/bfloat16 buffer (the group reduces those in float32). test: *done = 1 when
   the request finished (it is then freed); non-zero on an error. abandon: the
   request will never be waited for again (a timeout). device_index (may be NULL):
   the index of the device the group's tensors must be on (the "nccl" group: this
   rank's GPU), -1 for any. */
typedef struct ct_dist_backend {
    const char *name;
    int (*init)(void **state, int *rank, int *world_size);
    void (*shutdown)(void *state, int broken);
    int (*all_reduce)(void *state, void *buf, int64_t count, ct_dtype dt, ct_reduce_op op, void **req);
    int (*broadcast)(void *state, void *buf, int64_t count, ct_dtype dt, int root, void **req);
    int (*all_gather)(void *state, const void *in, void *out, int64_t count, ct_dtype dt, void **req);
    int (*reduce_scatter)(void *state, const void *in, void *out, int64_t count, ct_dtype dt, ct_reduce_op op,
                          void **req);
    int (*barrier)(void *state, void **req);
    int (*send)(void *state, const void *buf, int64_t count, ct_dtype dt, int dst, int tag, void **req);
    int (*recv)(void *state, void *buf, int64_t count, ct_dtype dt, int src, int tag, void **req);
    int (*test)(void *state, void *req, int *done);
    void (*abandon)(void *state, void *req);
    int device_type;            /* where the buffers are: CT_CPU (0: host memory), CT_CUDA (device pointers: "nccl") */
    int (*device_index)(void *state);
} ct_dist_backend;
/* torch.distributed.Backend.register_backend: makes `b` (kept by pointer) available
   to ct_dist_init_process_group under b->name; a second one of the same name
   replaces the first. */
CTENSOR_API ct_status ct_dist_register_backend(const ct_dist_backend *b);
#if defined(CTENSOR_MPI) || defined(CTENSOR_DIST_MPI_IMPLEMENTATION)
/* Registers the MPI backend ("mpi"); done by itself at program start with gcc, clang
   and C++ compilers, so only needed elsewhere. */
CTENSOR_API ct_status ct_dist_mpi_register(void);
#endif
#if defined(CTENSOR_NCCL) || defined(CTENSOR_DIST_NCCL_IMPLEMENTATION)
/* Registers the NCCL backend ("nccl": CUDA tensors; needs ctensor_cuda.h, NCCL and MPI,
   see "The NCCL backend" below); done by itself at program start as the MPI one. */
CTENSOR_API ct_status ct_dist_nccl_register(void);
#endif

/* ============================================================================
   Collectives (torch.distributed.all_reduce, ...) and work handles
   group NULL: the default group. work NULL: run to completion (waiting at most the
   group's timeout); else start the operation and return its handle in *work.
   ========================================================================== */
/* torch.distributed.all_reduce(tensor, op): every rank's tensor becomes the
   reduction of all ranks' tensors. */
CTENSOR_API ct_status ct_dist_all_reduce(ct_tensor *tensor, ct_reduce_op op, ct_process_group *group, ct_work **work);
/* torch.distributed.broadcast(tensor, src): every rank's tensor becomes src's. */
CTENSOR_API ct_status ct_dist_broadcast(ct_tensor *tensor, int src, ct_process_group *group, ct_work **work);
/* torch.distributed.all_gather(tensor_list, tensor): outputs[r] = rank r's input; n must
   be the world size and every output the input's dtype and number of elements. */
CTENSOR_API ct_status ct_dist_all_gather(int n, ct_tensor *const *outputs, const ct_tensor *input,
                                         ct_process_group *group, ct_work **work);
/* torch.distributed.all_gather_into_tensor(output, input): output (world_size times
   the input's elements: [world*n0, ...] or [world, ...]) holds the inputs in rank order. */
CTENSOR_API ct_status ct_dist_all_gather_into_tensor(ct_tensor *output, const ct_tensor *input, ct_process_group *group,
                                                     ct_work **work);
/* torch.distributed.reduce_scatter(output, input_list, op): output = the reduction over
   ranks of their input_list[rank]; n must be the world size. */
CTENSOR_API ct_status ct_dist_reduce_scatter(ct_tensor *output, int n, ct_tensor *const *inputs, ct_reduce_op op,
                                             ct_process_group *group, ct_work **work);
/* torch.distributed.reduce_scatter_tensor(output, input, op): input holds world_size
   chunks of output's size; output = the reduction over ranks of chunk [rank]. */
CTENSOR_API ct_status ct_dist_reduce_scatter_tensor(ct_tensor *output, const ct_tensor *input, ct_reduce_op op,
                                                    ct_process_group *group, ct_work **work);
/* torch.distributed.barrier(): returns when every rank has entered it. */
CTENSOR_API ct_status ct_dist_barrier(ct_process_group *group, ct_work **work);
/* torch.distributed.send(tensor, dst, tag) / isend: to another rank (not this one). */
CTENSOR_API ct_status ct_dist_send(const ct_tensor *tensor, int dst, ct_process_group *group, int tag, ct_work **work);
/* torch.distributed.recv(tensor, src, tag) / irecv: from rank src, into tensor (its
   dtype and number of elements must be the sender's). */
CTENSOR_API ct_status ct_dist_recv(ct_tensor *tensor, int src, ct_process_group *group, int tag, ct_work **work);

/* Work.wait(): waits (at most the group's timeout), finishes the operation (the AVG
   division, copies into the outputs) and frees the handle, whatever the outcome. */
CTENSOR_API ct_status ct_work_wait(ct_work *work);
/* Work.wait(timeout): the same with its own timeout in seconds. */
CTENSOR_API ct_status ct_work_wait_timeout(ct_work *work, double timeout_s);
/* Work.is_completed(): drives the transfer on; 1 when it finished (its outputs are
   ready; still call ct_work_wait to free the handle), 0 when not yet, -1 on an error. */
CTENSOR_API int ct_work_test(ct_work *work);

/* ============================================================================
   DistributedDataParallel (torch.nn.parallel.DistributedDataParallel)
   Construction broadcasts rank 0's parameters and buffers to every rank. Each
   parameter gets a gradient hook (ct_register_hook); the parameters are laid out,
   in reverse order, in flat buckets of one dtype (the first 1 MiB, the others
   bucket_cap_mb, as PyTorch's). In a backward after ct_ddp_forward, each hook copies
   its gradient (plus the .grad accumulated so far) into its bucket; a bucket whose
   gradients are all in is all-reduced (averaged) at once, asynchronously, in bucket
   order, while backward goes on to earlier layers.
   ctensor's hooks run before a gradient is accumulated into .grad and none runs
   after, so the averaged buckets are written back into .grad by one more call at
   the end of backward: ct_ddp_backward(ddp, loss) does ct_backward then
   ct_ddp_finish_gradients(ddp); a program that calls ct_backward itself must call
   ct_ddp_finish_gradients before reading .grad or stepping (the next
   ct_ddp_forward fails if it did not). Parameters that got no gradient are
   reduced as zeros (find_unused_parameters=True's result).
   ========================================================================== */
typedef struct ct_ddp ct_ddp;
typedef struct ct_ddp_options {
    double bucket_cap_mb;       /* 0: 25 (PyTorch's default) */
    int no_broadcast_buffers;   /* PyTorch's broadcast_buffers=False: buffers are not
                                   broadcast from rank 0 at every forward */
} ct_ddp_options;
/* DistributedDataParallel(module, process_group=group, bucket_cap_mb=...): borrows
   the module (free it after the DDP). NULL + error if the broadcast fails. */
CTENSOR_API ct_ddp *ct_ddp_new(ct_module *module, ct_process_group *group, const ct_ddp_options *options);
/* frees the wrapper and removes its hooks (not the module) */
CTENSOR_API void ct_ddp_free(ct_ddp *ddp);
/* ddp.module */
CTENSOR_API ct_module *ct_ddp_module(const ct_ddp *ddp);
/* ddp(x): the module's forward; arms gradient synchronization for the next backward
   (when grad mode is on and not in no_sync). */
CTENSOR_API ct_tensor *ct_ddp_forward(ct_ddp *ddp, ct_tensor *x);
/* loss.backward() under DDP: ct_backward(loss), then ct_ddp_finish_gradients. */
CTENSOR_API ct_status ct_ddp_backward(ct_ddp *ddp, ct_tensor *loss);
/* The end of DDP's backward (PyTorch's reducer finalize): starts the buckets not
   started yet, waits for all of them and writes the averaged gradients into .grad.
   Nothing to do (CT_OK) when the last forward did not arm synchronization. */
CTENSOR_API ct_status ct_ddp_finish_gradients(ct_ddp *ddp);
/* ddp.require_backward_grad_sync = enabled; returns the previous setting. */
CTENSOR_API int ct_ddp_set_require_sync(ct_ddp *ddp, int enabled);
/* with ddp.no_sync(): ...  gradients accumulate locally in the block (a plain loop:
   break leaves it and restores the setting; return and goto do not). */
#define CT_DDP_NO_SYNC(ddp) \
    for (int ct__ns_prev = ct_ddp_set_require_sync((ddp), 0), ct__ns_once = 1; ct__ns_once; \
         ct__ns_once = 0, ct_ddp_set_require_sync((ddp), ct__ns_prev))
/* how many buckets, and the parameters (indices in ct_module_parameters order) of each */
CTENSOR_API int ct_ddp_num_buckets(const ct_ddp *ddp);
CTENSOR_API int ct_ddp_bucket_params(const ct_ddp *ddp, int bucket, int *indices, int max);

/* ============================================================================
   ZeroRedundancyOptimizer (torch.distributed.optim.ZeroRedundancyOptimizer), ZeRO-1
   Wraps an optimizer of any kind made over the whole model on every rank. Each
   parameter belongs to one rank (greedy by size, largest first, to the rank with
   the fewest elements so far, per group, as PyTorch's partition); a rank's step
   updates only its own parameters, so optimizer state (momentum, Adam's moments)
   exists for them only: about 1/world_size of it per rank. Then each parameter is
   broadcast from its owner. The gradients must already be the same everywhere
   (DDP's averaged .grad).
   ========================================================================== */
typedef struct ct_zero_optimizer ct_zero_optimizer;
/* ZeroRedundancyOptimizer(params, optimizer_class, ...): borrows opt (free it after). */
CTENSOR_API ct_zero_optimizer *ct_zero_redundancy_optimizer(ct_optimizer *opt, ct_process_group *group);
CTENSOR_API void ct_zero_free(ct_zero_optimizer *z);
/* optimizer.step(): the local partition's update, then the parameters broadcast from
   their owners. */
CTENSOR_API ct_status ct_zero_step(ct_zero_optimizer *z);
/* the rank that owns parameter i of group g (-1 + error when out of range) */
CTENSOR_API int ct_zero_param_rank(const ct_zero_optimizer *z, int group, int i);

/* ============================================================================
   FullyShardedDataParallel (torch.distributed.fsdp): flat parameters per wrapped
   unit, the three sharding strategies, all-gather before a unit's forward and
   (FULL_SHARD) again before its backward, with backward prefetch (and optionally
   forward prefetch) of the next unit's all-gather, gradients reduce-scattered
   (averaged) to shards as each unit's backward ends, the optimizer on the local
   shards only, mixed precision with float32 master shards (every strategy), activation
   checkpointing of units, FULL and SHARDED state dicts, the full optimizer state dict,
   a per-rank memory report.
   Devices: the parameters must all be on one device, the one the group moves: host
   memory for "mpi" and "single", a CUDA device for "nccl" (that rank's device, as
   PyTorch's device_id). Then the flat parameters, the shards, the flat gradients
   and their all-gathers and reduce-scatters are in that device's memory and the
   optimizer steps the shards there; with offload_params the shards and their .grad
   live in host memory instead (each shard is copied to the device for its all-gather,
   each reduced gradient back to the host), and the optimizer steps on the host. The
   forward's input is moved to the parameters' device (as PyTorch's). The FULL state
   dict and the full optimizer state dict are host tensors; SHARDED ones are on the
   shards' device.
   Units: the root, and every submodule the policy wraps (bottom-up, as PyTorch's
   size_based_auto_wrap_policy: a module whose parameters not already in a wrapped
   descendant number at least min_num_params) or wrap_modules names (manual wrap).
   Under mixed precision the module's parameters are param_dtype tensors (the
   gathered compute copies, also after summon_full_params); the float32 values are
   the shards, the FULL state dict, and the module's own parameters after
   ct_fsdp_free. Each unit's parameters become one
   flat buffer, padded to a multiple of the world size; each rank keeps its 1/N
   shard (NO_SHARD: the whole). The module's parameters are replaced by tensors over
   the flat buffer, whose memory exists only between the all-gather and the free:
   read them only inside forward/backward or after ct_fsdp_summon_full_params.
   Build the optimizer over ct_fsdp_parameters (the shards). As with DDP, the end of
   backward is one call: ct_fsdp_backward(fsdp, loss) or ct_fsdp_finish_gradients.
   ========================================================================== */
typedef enum ct_fsdp_strategy {
    CT_FSDP_FULL_SHARD = 0,     /* params, grads, optimizer state sharded; params freed after forward */
    CT_FSDP_SHARD_GRAD_OP = 1,  /* params kept from forward to the end of backward */
    CT_FSDP_NO_SHARD = 2        /* DDP-like: everything whole, gradients all-reduced */
} ct_fsdp_strategy;
typedef struct ct_fsdp ct_fsdp;
/* backward_prefetch (torch.distributed.fsdp.BackwardPrefetch) */
typedef enum ct_fsdp_backward_prefetch {
    CT_FSDP_BACKWARD_PRE = 0,   /* the next unit's all-gather starts before this unit's gradients are computed */
    CT_FSDP_BACKWARD_NONE = -1  /* no prefetch: each unit gathers when its backward begins */
} ct_fsdp_backward_prefetch;
/* torch.distributed.fsdp.MixedPrecision: the gathered parameters (and so forward and
   backward, and the forward's floating point input) in param_dtype, the gradients
   reduce-scattered in reduce_dtype; the shards the optimizer steps stay in the
   parameters' own dtype (float32 master shards), and so do their .grad. */
typedef struct ct_fsdp_mixed_precision {
    ct_dtype param_dtype;       /* CT_BFLOAT16, CT_FLOAT16 (or CT_FLOAT32, CT_FLOAT64) */
    ct_dtype reduce_dtype;      /* the same choices (0 = CT_FLOAT32: full precision reduction) */
} ct_fsdp_mixed_precision;
typedef struct ct_fsdp_options {
    ct_fsdp_strategy sharding_strategy;   /* 0: FULL_SHARD (PyTorch's default) */
    int64_t min_num_params;               /* auto-wrap threshold; 0: 1e8 (PyTorch's default);
                                             -1: no auto-wrap (the root unit only, plus wrap_modules) */
    ct_fsdp_backward_prefetch backward_prefetch;   /* 0: BACKWARD_PRE (PyTorch 1.13's default) */
    int forward_prefetch;                 /* 1: the next unit's all-gather starts as this unit's forward
                                             begins (order: the first forward's); 0: off (PyTorch's default) */
    ct_module *const *wrap_modules;       /* manual wrap (wrap() / nested FSDP instances): these submodules
                                             become units too, with or without the size policy */
    int num_wrap_modules;
    const ct_fsdp_mixed_precision *mixed_precision;   /* NULL: none (every strategy) */
    int offload_params;                   /* CPUOffload(offload_params=True): with CUDA parameters the shards
                                             and their gradients live in host memory and the optimizer steps
                                             there; each shard is copied to the GPU for the all-gather (as
                                             PyTorch's). With host parameters, nothing to do. */
    int activation_checkpointing;         /* 1: every unit but the root is checkpointed (PyTorch's
                                             apply_activation_checkpointing over the wrapped units, reentrant
                                             checkpoint with preserve_rng_state): its forward keeps no
                                             activations, only its inputs; its backward all-gathers the unit
                                             again (FULL_SHARD), recomputes the forward with the forward's
                                             random state and backpropagates through it. Same gradients, less
                                             activation memory, one more forward per unit. One backward per
                                             forward (no retain_graph through a checkpointed unit). */
} ct_fsdp_options;
/* FullyShardedDataParallel(module, process_group, sharding_strategy, auto_wrap_policy,
   sync_module_states=True): rank 0's parameters are used everywhere. Borrows the
   module and replaces its parameters (their memory goes: the shards hold the
   values). Free the module after the FSDP. */
CTENSOR_API ct_fsdp *ct_fsdp_new(ct_module *module, ct_process_group *group, const ct_fsdp_options *options);
/* Frees the FSDP; the module gets parameters of its own again with the trained
   values: a collective (the units are all-gathered), every rank calls it. */
CTENSOR_API void ct_fsdp_free(ct_fsdp *f);
/* fsdp.parameters(): the local flat shards, one per unit (for the optimizer) */
CTENSOR_API int ct_fsdp_parameters(const ct_fsdp *f, ct_tensor **out, int max);
/* how many units were made (the root's counts when it has parameters of its own) */
CTENSOR_API int ct_fsdp_num_units(const ct_fsdp *f);
/* fsdp(x) */
CTENSOR_API ct_tensor *ct_fsdp_forward(ct_fsdp *f, ct_tensor *x);
/* loss.backward() under FSDP, then ct_fsdp_finish_gradients */
CTENSOR_API ct_status ct_fsdp_backward(ct_fsdp *f, ct_tensor *loss);
/* the end of backward: waits for the reduce-scatters and adds the averaged shard
   gradients into the shards' .grad (accumulating across backwards, as .grad does) */
CTENSOR_API ct_status ct_fsdp_finish_gradients(ct_fsdp *f);
/* Per-rank memory (torch.cuda.max_memory_allocated's role, split by kind), in bytes:
   since construction or the last ct_fsdp_reset_peak_memory. Peaks are sampled where
   FSDP runs (each unit's forward, pre-backward, gradient hooks, the end of backward). */
typedef struct ct_fsdp_memory_stats {
    int64_t shard_param_bytes;        /* the local flat shards (what the optimizer steps; NO_SHARD: its float
                                         master copy under mixed precision, else 0: the flat parameter
                                         counts as gathered) */
    int64_t peak_full_param_bytes;    /* gathered flat parameters alive at once */
    int64_t peak_grad_bytes;          /* flat gradients (whole and reduced) alive at once, and the
                                         shards' .grad */
    int64_t peak_live_bytes;          /* all of ctensor's storage plus FSDP's buffers: parameters,
                                         gradients, optimizer state and activations */
} ct_fsdp_memory_stats;
CTENSOR_API ct_status ct_fsdp_memory(const ct_fsdp *f, ct_fsdp_memory_stats *out);
CTENSOR_API void ct_fsdp_reset_peak_memory(ct_fsdp *f);
/* FSDP.summon_full_params(): all-gathers every unit, so the module's parameters can
   be read (or saved) until the next forward or backward frees them */
CTENSOR_API ct_status ct_fsdp_summon_full_params(ct_fsdp *f);
/* State dicts (FSDP.state_dict_type(model, StateDictType...); model.state_dict()):
     CT_FSDP_FULL_STATE_DICT     FULL_STATE_DICT with FullStateDictConfig(rank0_only=True,
                                 offload_to_cpu=True): every unit is all-gathered (a
                                 collective: every rank calls it); rank 0 gets the whole
                                 model's state dict under the module's own key names
                                 ("0.weight", "0.bias", ...: PyTorch's names, which FSDP's
                                 hooks strip of "_fsdp_wrapped_module."), so a model that is
                                 not distributed loads it (ct_module_load_state_dict,
                                 ct_module_load_safetensors); the other ranks get an empty
                                 dict (n = 0).
     CT_FSDP_SHARDED_STATE_DICT  each rank's own shards, no communication: per unit the
                                 local flat shard under "<unit's module path>.flat_param"
                                 ("flat_param" for the root unit; the layout of PyTorch's
                                 LOCAL_STATE_DICT), then the module's persistent buffers
                                 under their names. It loads back only into the same model
                                 wrapped the same way at the same world size (the shard
                                 shapes are checked).
   The tensors are new tensors of the current scope (copies: later steps do not change
   them); free the list with ct_state_dict_free. The optimizer over the shards saves
   its per-rank state with ct_optim_state_dict. Error when a backward's gradients are
   still being reduced (call ct_fsdp_finish_gradients first). */
typedef enum ct_fsdp_state_dict_type {
    CT_FSDP_FULL_STATE_DICT = 0,
    CT_FSDP_SHARDED_STATE_DICT = 1
} ct_fsdp_state_dict_type;
CTENSOR_API ct_status ct_fsdp_state_dict(ct_fsdp *f, ct_fsdp_state_dict_type type, ct_state_dict *out);
/* model.load_state_dict(sd) under the same state-dict type (strict):
     FULL: a collective; rank 0's sd is loaded (the other ranks' sd is ignored and may be
       NULL, as a rank0_only dict is empty there) and broadcast: every rank's shards get
       their part. rank 0's missing, unexpected or mis-shaped keys fail on every rank (rank
       0 with ct_module_load_state_dict's report, the others with "FSDP load_state_dict:
       rank 0 could not load the state dict").
     SHARDED: this rank's own dict (from ct_fsdp_state_dict on the same rank); every key
       and shape is checked before anything changes. */
CTENSOR_API ct_status ct_fsdp_load_state_dict(ct_fsdp *f, ct_fsdp_state_dict_type type, const ct_state_dict *sd);
/* Optimizer state dicts of an optimizer built over ct_fsdp_parameters (any of ctensor's
   optimizers; each of its parameters one unit's shard).
   SHARDED (FSDP.sharded_optim_state_dict's role): each rank's ct_optim_state_dict(opt),
     loaded back by ct_optim_load_state_dict on the same rank of the same wrapping.
   FULL, FSDP.full_optim_state_dict(model, optim, rank0_only=True): a collective (each
     state buffer is all-gathered and cut back into the module's own parameters); rank 0
     gets the state dict of the same optimizer built over ct_module_parameters(module) in
     the same groups, in ct_optim_state_dict's layout: "state.<i>.<key>" with i the
     parameter's index among the module's parameters (the keys of PyTorch's
     optimizer.state_dict(), which FSDP.rekey_optim_state_dict(sd, PARAM_ID, model)
     gives from PyTorch's name-keyed full dict), "param_groups.<g>.<setting>" and
     "param_groups.<g>.params" (each group's parameter indices, ascending). An optimizer
     that is not distributed, over the unwrapped module, loads it with
     ct_optim_load_state_dict. The other ranks get n = 0. The tensors are new tensors of
     the current scope; free the list with ct_state_dict_free. */
CTENSOR_API ct_status ct_fsdp_full_optim_state_dict(ct_fsdp *f, const ct_optimizer *opt, ct_state_dict *out);
/* FSDP.scatter_full_optim_state_dict + optim.load_state_dict: rank 0's FULL optimizer
   state dict (the other ranks' sd is ignored and may be NULL) is cut into every rank's
   shards and loaded into opt (built over ct_fsdp_parameters as the saving one was): a
   collective. An error on rank 0 (a missing or mis-shaped entry, another optimizer)
   fails every rank ("FSDP load_full_optim_state_dict: rank 0 could not load the state
   dict" on the others), and nothing changes. */
CTENSOR_API ct_status ct_fsdp_load_full_optim_state_dict(ct_fsdp *f, ct_optimizer *opt, const ct_state_dict *sd);

#ifdef __cplusplus
}
#endif
#endif /* CTENSOR_DIST_H_INCLUDED */

/* ############################################################################
   2. IMPLEMENTATION
   ############################################################################ */
#if defined(CTENSOR_IMPLEMENTATION) && !defined(CTENSOR_DIST_NO_IMPLEMENTATION) && !defined(CTENSOR_DIST_IMPLEMENTATION)
#define CTENSOR_DIST_IMPLEMENTATION
#endif
#ifdef CTENSOR_DIST_IMPLEMENTATION
#ifndef CTENSOR_DIST_IMPLEMENTATION_DONE
#define CTENSOR_DIST_IMPLEMENTATION_DONE
#include <string.h>
#include <time.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#define CT__DIST_YIELD() sched_yield()
#else
#define CT__DIST_YIELD() ((void)0)
#endif

/* ============================================================================
   Groups, the backend registry, work handles and their completion
   ========================================================================== */
#define CT__DIST_MAX_BACKENDS 8
static const ct_dist_backend *ct__dist_backends[CT__DIST_MAX_BACKENDS];
static int ct__dist_nbackends;
static ct_process_group *ct__dist_default;

struct ct_process_group {
    const ct_dist_backend *be;
    void *st;
    int rank, world;
    int device;                 /* the device index its tensors must be on (be->device_index), -1: any */
    double timeout_s;
    int broken;                 /* an operation timed out or failed: later ones fail at once */
    char broken_msg[320];
    int nheld, capheld;         /* tensors of abandoned operations, kept until destroy */
    ct_tensor **held;
};
#define CT__WORK_MAXT 4
struct ct_work {
    ct_process_group *g;
    const char *op;
    void *req;
    int pending;                /* the backend request has not finished */
    int avg;                    /* divide buf by the world size at completion */
    int bump;                   /* buf is the caller's tensor written in place */
    ct_tensor *buf;             /* what the backend writes (retained) */
    ct_tensor *dst;             /* buf is copied into dst at completion (retained) */
    int nouts;
    ct_tensor **outs;           /* list forms: row r of buf -> outs[r] (retained) */
    ct_tensor *keep[CT__WORK_MAXT];   /* inputs alive while in flight (retained) */
};

CTENSOR_API ct_status ct_dist_register_backend(const ct_dist_backend *b) {
    if (!b || !b->name || !b->init || !b->test) {
        ct_set_error(CT_ERR_ARG, "register_backend: the backend or its name, init or test function is NULL");
        return CT_ERR_ARG;
    }
    for (int i = 0; i < ct__dist_nbackends; i++)
        if (!strcmp(ct__dist_backends[i]->name, b->name)) { ct__dist_backends[i] = b; return CT_OK; }
    if (ct__dist_nbackends == CT__DIST_MAX_BACKENDS) {
        ct_set_error(CT_ERR_STATE, "register_backend: at most %d backends can be registered", CT__DIST_MAX_BACKENDS);
        return CT_ERR_STATE;
    }
    ct__dist_backends[ct__dist_nbackends++] = b;
    return CT_OK;
}

/* dst = a, or "a: b" when b is given, cut to cap (messages kept for later) */
static void ct__dist_msg(char *dst, size_t cap, const char *a, const char *b) {
    size_t k = 0;
    for (const char *p = a; *p && k + 1 < cap; p++) dst[k++] = *p;
    if (b) {
        for (const char *p = ": "; *p && k + 1 < cap; p++) dst[k++] = *p;
        for (const char *p = b; *p && k + 1 < cap; p++) dst[k++] = *p;
    }
    dst[k] = 0;
}

static double ct__dist_now(void) {
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the group to use, or NULL + error naming op */
static ct_process_group *ct__dist_group(const char *op, const ct_process_group *g) {
    if (!g) g = ct__dist_default;
    if (!g) {
        ct_set_error(CT_ERR_STATE, "%s: the default process group has not been initialized (call ct_dist_init_process_group first)", op);
        return NULL;
    }
    if (g->broken) {
        ct_set_error(CT_ERR_STATE, "%s: the process group can no longer be used: %s", op, g->broken_msg);
        return NULL;
    }
    return (ct_process_group *)g;
}

static void ct__dist_hold(ct_process_group *g, ct_tensor *t) {
    if (!t) return;
    if (g->nheld == g->capheld) {
        int nc = g->capheld ? 2 * g->capheld : 16;
        ct_tensor **nh = (ct_tensor **)CT_REALLOC(g->held, (size_t)nc * sizeof *nh);
        if (!nh) return;   /* out of memory: the tensor leaks rather than being freed under the transfer */
        g->held = nh;
        g->capheld = nc;
    }
    g->held[g->nheld++] = t;
}

static void ct__work_release(ct_work *w, int abandon) {
    ct_tensor *ts[3 + CT__WORK_MAXT];
    int n = 0;
    ts[n++] = w->buf;
    ts[n++] = w->dst;
    for (int i = 0; i < CT__WORK_MAXT; i++) ts[n++] = w->keep[i];
    for (int i = 0; i < n; i++)
        if (ts[i]) { if (abandon) ct__dist_hold(w->g, ts[i]); else ct_release(ts[i]); }
    for (int i = 0; i < w->nouts; i++)
        if (w->outs[i]) { if (abandon) ct__dist_hold(w->g, w->outs[i]); else ct_release(w->outs[i]); }
    CT_FREE(w->outs);
    CT_FREE(w);
}

static ct_work *ct__work_new(ct_process_group *g, const char *op) {
    ct_work *w = (ct_work *)CT_MALLOC(sizeof *w);
    if (!w) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", op); return NULL; }
    memset(w, 0, sizeof *w);
    w->g = g;
    w->op = op;
    return w;
}

/* the transfer finished: the AVG division, copies into the outputs, version bumps */
static int ct__work_complete(ct_work *w) {
    int rc = 0, prev = ct_set_grad_enabled(0), s = ct_scope_begin();
    if (w->avg && !ct_div_(w->buf, ct_scalar_tensor((double)w->g->world, w->buf->dtype))) rc = -1;
    if (!rc && w->dst && !ct_copy_(w->dst, ct_view_n(w->buf, w->dst->ndim, w->dst->shape))) rc = -1;
    for (int r = 0; !rc && r < w->nouts; r++)
        if (!ct_copy_(w->outs[r], ct_view_n(ct_select(w->buf, 0, r), w->outs[r]->ndim, w->outs[r]->shape))) rc = -1;
    if (!rc && w->bump && !w->avg) CT__ATOMIC_INC(&w->buf->storage->version);
    ct_scope_end(s);
    ct_set_grad_enabled(prev);
    return rc;
}

static void ct__dist_break(ct_process_group *g, const char *msg) {
    if (g->broken) return;
    g->broken = 1;
    ct__dist_msg(g->broken_msg, sizeof g->broken_msg, msg, NULL);
}

/* 1 finished (completion done), 0 pending, -1 error (set) */
static int ct__work_poll(ct_work *w) {
    if (w->pending) {
        int done = 0;
        if (w->g->be->test(w->g->st, w->req, &done)) {
            char msg[300];
            ct__dist_msg(msg, sizeof msg, w->op, ct_last_error());
            w->pending = 0;
            w->req = NULL;
            ct__dist_break(w->g, msg);
            ct_set_error(CT_ERR_STATE, "%s", msg);
            return -1;
        }
        if (!done) return 0;
        w->pending = 0;
        w->req = NULL;
        if (ct__work_complete(w)) return -1;
    }
    return 1;
}

static ct_status ct__work_wait(ct_work *w, double timeout_s) {
    if (!w) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "wait: the work handle is NULL");
        return ct_last_error_code();
    }
    double t0 = ct__dist_now();
    int r;
    long spins = 0;
    while ((r = ct__work_poll(w)) == 0) {
        if (ct__dist_now() - t0 > timeout_s) {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "%s: timed out after %.1f s waiting for the other ranks (rank %d of %d, %s backend): a peer may "
                     "have exited or be stuck",
                     w->op, timeout_s, w->g->rank, w->g->world, w->g->be->name);
            ct__dist_break(w->g, msg);
            if (w->g->be->abandon) w->g->be->abandon(w->g->st, w->req);
            ct__work_release(w, 1);
            ct_set_error(CT_ERR_STATE, "%s", msg);
            return CT_ERR_STATE;
        }
        /* spin briefly (the usual wait is short), then give the core away: ranks may
           share cores (mpirun --oversubscribe) */
        if (++spins > 200) CT__DIST_YIELD();
    }
    ct_status st = r < 0 ? ct_last_error_code() : CT_OK;
    if (r < 0 && st == CT_OK) st = CT_ERR_STATE;
    ct__work_release(w, 0);
    return st;
}
CTENSOR_API ct_status ct_work_wait(ct_work *work) { return ct__work_wait(work, work ? work->g->timeout_s : 0); }
CTENSOR_API ct_status ct_work_wait_timeout(ct_work *work, double timeout_s) {
    if (work && !(timeout_s >= 0)) {
        ct_set_error(CT_ERR_ARG, "wait: timeout must be a non-negative number of seconds (got %g)", timeout_s);
        return CT_ERR_ARG;
    }
    return ct__work_wait(work, timeout_s);
}
CTENSOR_API int ct_work_test(ct_work *work) {
    if (!work) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "is_completed: the work handle is NULL");
        return -1;
    }
    return ct__work_poll(work);
}

/* Starts w's backend call (already made: rc and req), then either hands the handle
   out or waits for it. */
static ct_status ct__work_start(ct_work *w, int rc, void *req, ct_work **out) {
    if (rc) {
        ct_status st = ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_STATE;
        ct__work_release(w, 0);
        return st;
    }
    w->req = req;
    w->pending = req != NULL;
    if (!w->pending && ct__work_complete(w)) {
        ct__work_release(w, 0);
        return ct_last_error_code();
    }
    if (out) { *out = w; return CT_OK; }
    return ct__work_wait(w, w->g->timeout_s);
}

/* ============================================================================
   The single-process backend: rank 0 of 1
   ========================================================================== */
static int ct__single_init(void **st, int *rank, int *world) { *st = NULL; *rank = 0; *world = 1; return 0; }
static void ct__single_shutdown(void *st, int broken) { (void)st; (void)broken; }
static int ct__single_all_reduce(void *st, void *buf, int64_t n, ct_dtype dt, ct_reduce_op op, void **req) {
    (void)st; (void)buf; (void)n; (void)dt; (void)op; *req = NULL; return 0;
}
static int ct__single_broadcast(void *st, void *buf, int64_t n, ct_dtype dt, int root, void **req) {
    (void)st; (void)buf; (void)n; (void)dt; (void)root; *req = NULL; return 0;
}
static int ct__single_all_gather(void *st, const void *in, void *out, int64_t n, ct_dtype dt, void **req) {
    (void)st;
    if (in != out) memmove(out, in, (size_t)n * ct_dtype_size(dt));
    *req = NULL;
    return 0;
}
static int ct__single_reduce_scatter(void *st, const void *in, void *out, int64_t n, ct_dtype dt, ct_reduce_op op, void **req) {
    (void)op;
    return ct__single_all_gather(st, in, out, n, dt, req);
}
static int ct__single_barrier(void *st, void **req) { (void)st; *req = NULL; return 0; }
static int ct__single_p2p(void *st, const void *buf, int64_t n, ct_dtype dt, int peer, int tag, void **req) {
    (void)st; (void)buf; (void)n; (void)dt; (void)tag; (void)req;
    ct_set_error(CT_ERR_ARG, "the single-process group has no rank %d", peer);   /* the checks catch it first */
    return -1;
}
static int ct__single_recv(void *st, void *buf, int64_t n, ct_dtype dt, int peer, int tag, void **req) {
    return ct__single_p2p(st, buf, n, dt, peer, tag, req);
}
static int ct__single_test(void *st, void *req, int *done) { (void)st; (void)req; *done = 1; return 0; }
static const ct_dist_backend ct__dist_single = {
    "single", ct__single_init, ct__single_shutdown, ct__single_all_reduce, ct__single_broadcast,
    ct__single_all_gather, ct__single_reduce_scatter, ct__single_barrier, ct__single_p2p, ct__single_recv,
    ct__single_test, NULL, CT_CPU, NULL};

#if defined(CTENSOR_MPI)
static const ct_dist_backend *ct__dist_mpi_backend(void);
#endif
#if defined(CTENSOR_NCCL)
static const ct_dist_backend *ct__dist_nccl_backend(void);
#endif

CTENSOR_API ct_process_group *ct_dist_init_process_group(const char *backend, const ct_dist_options *o) {
    if (o && !(o->timeout_s >= 0)) {
        ct_set_error(CT_ERR_ARG, "init_process_group: timeout must be a non-negative number of seconds (got %g)", o->timeout_s);
        return NULL;
    }
#if defined(CTENSOR_MPI)
    ct_dist_register_backend(ct__dist_mpi_backend());
#endif
#if defined(CTENSOR_NCCL)
    ct_dist_register_backend(ct__dist_nccl_backend());
#endif
    const ct_dist_backend *be = NULL;
    if (!backend) {
        for (int i = 0; i < ct__dist_nbackends && !be; i++)
            if (!strcmp(ct__dist_backends[i]->name, "mpi")) be = ct__dist_backends[i];
        if (!be) be = &ct__dist_single;
    } else if (!strcmp(backend, "single")) {
        be = &ct__dist_single;
    } else {
        for (int i = 0; i < ct__dist_nbackends && !be; i++)
            if (!strcmp(ct__dist_backends[i]->name, backend)) be = ct__dist_backends[i];
    }
    if (!be) {
        if (!strcmp(backend, "nccl"))
            ct_set_error(CT_ERR_UNSUPPORTED, "init_process_group: the nccl backend is not built in: compile the implementation "
                                             "with -DCTENSOR_CUDA -DCTENSOR_NCCL (nvcc, with MPI's flags; link -lnccl), or add "
                                             "a file with CTENSOR_DIST_NCCL_IMPLEMENTATION");
        else if (!strcmp(backend, "mpi"))
            ct_set_error(CT_ERR_UNSUPPORTED, "init_process_group: the mpi backend is not built in: compile the implementation "
                                             "with -DCTENSOR_MPI (mpicc), or add a file with CTENSOR_DIST_MPI_IMPLEMENTATION");
        else
            ct_set_error(CT_ERR_ARG, "init_process_group: unknown backend '%s' (built in: single%s)", backend,
                         ct__dist_nbackends ? ", and the registered ones" : "");
        return NULL;
    }
    ct_process_group *g = (ct_process_group *)CT_MALLOC(sizeof *g);
    if (!g) { ct_set_error(CT_ERR_MEMORY, "init_process_group: out of memory"); return NULL; }
    memset(g, 0, sizeof *g);
    g->be = be;
    g->timeout_s = o && o->timeout_s > 0 ? o->timeout_s : 1800.0;
    if (be->init(&g->st, &g->rank, &g->world)) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_STATE, "init_process_group: the %s backend failed to start", be->name);
        CT_FREE(g);
        return NULL;
    }
    g->device = be->device_index ? be->device_index(g->st) : -1;
    if (!ct__dist_default) ct__dist_default = g;
    return g;
}

CTENSOR_API ct_status ct_dist_destroy_process_group(ct_process_group *g) {
    if (!g) g = ct__dist_default;
    if (!g) {
        ct_set_error(CT_ERR_STATE, "destroy_process_group: the default process group has not been initialized");
        return CT_ERR_STATE;
    }
    g->be->shutdown(g->st, g->broken);
    for (int i = 0; i < g->nheld; i++) ct_release(g->held[i]);
    CT_FREE(g->held);
    if (g == ct__dist_default) ct__dist_default = NULL;
    CT_FREE(g);
    return CT_OK;
}
CTENSOR_API int ct_dist_is_initialized(void) { return ct__dist_default != NULL; }
CTENSOR_API int ct_dist_get_rank(const ct_process_group *g) {
    if (!g) g = ct__dist_default;
    if (!g) { ct_set_error(CT_ERR_STATE, "get_rank: the default process group has not been initialized"); return -1; }
    return g->rank;
}
CTENSOR_API int ct_dist_get_world_size(const ct_process_group *g) {
    if (!g) g = ct__dist_default;
    if (!g) { ct_set_error(CT_ERR_STATE, "get_world_size: the default process group has not been initialized"); return -1; }
    return g->world;
}
CTENSOR_API const char *ct_dist_get_backend(const ct_process_group *g) {
    if (!g) g = ct__dist_default;
    if (!g) { ct_set_error(CT_ERR_STATE, "get_backend: the default process group has not been initialized"); return NULL; }
    return g->be->name;
}

/* ============================================================================
   Collectives: checks, then the backend
   ========================================================================== */

/* "[3, 2]" */
static const char *ct__dist_shape(const ct_tensor *t, char *buf, size_t cap) {
    size_t k = 0;
    k += (size_t)snprintf(buf + k, cap - k, "[");
    for (int d = 0; d < t->ndim && k < cap; d++)
        k += (size_t)snprintf(buf + k, cap - k, d ? ", %lld" : "%lld", (long long)t->shape[d]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
    return buf;
}

/* a tensor a collective can use: present, CPU, a real dtype, contiguous */
static int ct__dist_check_tensor(const char *op, const char *what, const ct_tensor *t, const ct_process_group *g) {
    if (!t) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: %s is NULL", op, what);
        return -1;
    }
    int want = g ? g->be->device_type : CT_CPU;
    if ((int)t->device.type != want) {
        char dev[32];
        ct_device_str(t->device, dev, sizeof dev);
        if (want == CT_CPU) ct_set_error(CT_ERR_DEVICE, "%s: %s must be a CPU tensor (got one on %s)", op, what, dev);
        else
            ct_set_error(CT_ERR_DEVICE, "%s: %s must be a %s tensor for the %s backend (got one on %s)", op, what,
                         want == CT_CUDA ? "CUDA" : "device", g->be->name, dev);
        return -1;
    }
    if (g && g->device >= 0 && t->device.index != g->device) {
        char dev[32], gdev[32];
        ct_device_str(t->device, dev, sizeof dev);
        ct_device_str(ct_device_of(t->device.type, g->device), gdev, sizeof gdev);
        ct_set_error(CT_ERR_DEVICE, "%s: %s is on %s, but this rank's %s group uses %s", op, what, dev, g->be->name, gdev);
        return -1;
    }
    if (t->dtype > CT_BOOL) {
        ct_set_error(CT_ERR_DTYPE, "%s: %s has dtype %s, which collectives do not support", op, what, ct_dtype_name(t->dtype));
        return -1;
    }
    if (!ct_is_contiguous(t)) {
        char s1[160], s2[160];
        size_t k = 0;
        k += (size_t)snprintf(s2 + k, sizeof s2 - k, "[");
        for (int d = 0; d < t->ndim && k < sizeof s2; d++)
            k += (size_t)snprintf(s2 + k, sizeof s2 - k, d ? ", %lld" : "%lld", (long long)t->strides[d]);
        if (k < sizeof s2) snprintf(s2 + k, sizeof s2 - k, "]");
        ct_set_error(CT_ERR_ARG, "%s: %s must be contiguous (got shape %s with strides %s)", op, what,
                     ct__dist_shape(t, s1, sizeof s1), s2);
        return -1;
    }
    return 0;
}
static int ct__dist_check_op(const char *op, ct_reduce_op r, ct_dtype dt) {
    if ((int)r < 0 || r >= CT_REDUCE_NUM_OPS) {
        ct_set_error(CT_ERR_ARG, "%s: invalid reduce op %d", op, (int)r);
        return -1;
    }
    if (r == CT_REDUCE_AVG && !ct_dtype_is_floating(dt)) {
        ct_set_error(CT_ERR_DTYPE, "%s: ReduceOp.AVG needs a floating point tensor (got %s)", op, ct_dtype_name(dt));
        return -1;
    }
    return 0;
}
static int ct__dist_check_rank(const char *op, const char *what, int r, const ct_process_group *g) {
    if (r < 0 || r >= g->world) {
        ct_set_error(CT_ERR_ARG, "%s: invalid %s rank %d (the group's ranks are 0..%d)", op, what, r, g->world - 1);
        return -1;
    }
    return 0;
}
static int ct__dist_half(ct_dtype dt) { return dt == CT_FLOAT16 || dt == CT_BFLOAT16; }
static ct_reduce_op ct__dist_backend_op(ct_reduce_op r) { return r == CT_REDUCE_AVG ? CT_REDUCE_SUM : r; }
/* a retained new tensor (no scope owns it) */
static ct_tensor *ct__dist_own(ct_tensor *t) {
    if (t) ct_retain(t);
    return t;
}

CTENSOR_API ct_status ct_dist_all_reduce(ct_tensor *t, ct_reduce_op op, ct_process_group *group, ct_work **work) {
    static const char *const OP = "all_reduce";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g || ct__dist_check_tensor(OP, "the tensor", t, g) || ct__dist_check_op(OP, op, t->dtype)) return ct_last_error_code();
    ct_work *w = ct__work_new(g, OP);
    if (!w) return CT_ERR_MEMORY;
    int s = ct_scope_begin();
    w->avg = op == CT_REDUCE_AVG;
    if (ct__dist_half(t->dtype)) {      /* reduce in float32, round once */
        w->buf = ct__dist_own(ct_to(t, CT_FLOAT32));
        w->dst = ct_retain(t);
    } else {
        w->buf = ct_retain(t);
        w->bump = 1;
    }
    ct_scope_end(s);
    if (!w->buf) { ct__work_release(w, 0); return ct_last_error_code(); }
    void *req = NULL;
    int rc = g->be->all_reduce(g->st, ct_data_ptr(w->buf), ct_numel(w->buf), w->buf->dtype, ct__dist_backend_op(op), &req);
    return ct__work_start(w, rc, req, work);
}

CTENSOR_API ct_status ct_dist_broadcast(ct_tensor *t, int src, ct_process_group *group, ct_work **work) {
    static const char *const OP = "broadcast";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g || ct__dist_check_tensor(OP, "the tensor", t, g) || ct__dist_check_rank(OP, "src", src, g)) return ct_last_error_code();
    ct_work *w = ct__work_new(g, OP);
    if (!w) return CT_ERR_MEMORY;
    w->buf = ct_retain(t);
    w->bump = g->rank != src;
    void *req = NULL;
    int rc = g->be->broadcast(g->st, ct_data_ptr(t), ct_numel(t), t->dtype, src, &req);
    return ct__work_start(w, rc, req, work);
}

/* the list forms' outputs / inputs: n == world, each of the reference's dtype and numel */
static int ct__dist_check_list(const char *op, const char *what, int n, ct_tensor *const *ts, const ct_tensor *ref,
                               const char *refname, const ct_process_group *g) {
    if (n != g->world || !ts) {
        ct_set_error(CT_ERR_ARG, "%s: %s must have world_size (%d) tensors, got %d", op, what, g->world, ts ? n : 0);
        return -1;
    }
    for (int r = 0; r < n; r++) {
        char nm[48];
        snprintf(nm, sizeof nm, "%s[%d]", what, r);
        if (!ts[r]) {
            if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: %s is NULL", op, nm);
            return -1;
        }
        if ((int)ts[r]->device.type != g->be->device_type || ts[r]->dtype > CT_BOOL) return ct__dist_check_tensor(op, nm, ts[r], g);
        if (ts[r]->dtype != ref->dtype) {
            ct_set_error(CT_ERR_DTYPE, "%s: %s has dtype %s, but the %s has %s", op, nm, ct_dtype_name(ts[r]->dtype),
                         refname, ct_dtype_name(ref->dtype));
            return -1;
        }
        if (ct_numel(ts[r]) != ct_numel(ref)) {
            char s1[160], s2[160];
            ct_set_error(CT_ERR_SHAPE, "%s: %s has shape %s, but the %s has shape %s", op, nm,
                         ct__dist_shape(ts[r], s1, sizeof s1), refname,
                         ct__dist_shape(ref, s2, sizeof s2));
            return -1;
        }
    }
    return 0;
}

CTENSOR_API ct_status ct_dist_all_gather(int n, ct_tensor *const *outs, const ct_tensor *in, ct_process_group *group,
                                         ct_work **work) {
    static const char *const OP = "all_gather";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g || ct__dist_check_tensor(OP, "the input", in, g) || ct__dist_check_list(OP, "tensor_list", n, outs, in, "input", g))
        return ct_last_error_code();
    ct_work *w = ct__work_new(g, OP);
    if (!w) return CT_ERR_MEMORY;
    w->outs = (ct_tensor **)CT_MALLOC((size_t)n * sizeof *w->outs);
    if (!w->outs) { ct__work_release(w, 0); ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); return CT_ERR_MEMORY; }
    w->nouts = n;
    for (int r = 0; r < n; r++) w->outs[r] = ct_retain(outs[r]);
    int s = ct_scope_begin();
    int64_t shp[2] = {n, ct_numel(in)};
    w->buf = ct__dist_own(ct_empty_on_n(in->device, in->dtype, 2, shp));
    w->keep[0] = ct_retain((ct_tensor *)in);
    ct_scope_end(s);
    if (!w->buf) { ct__work_release(w, 0); return ct_last_error_code(); }
    void *req = NULL;
    int rc = g->be->all_gather(g->st, ct_data_ptr(in), ct_data_ptr(w->buf), ct_numel(in), in->dtype, &req);
    return ct__work_start(w, rc, req, work);
}

CTENSOR_API ct_status ct_dist_all_gather_into_tensor(ct_tensor *out, const ct_tensor *in, ct_process_group *group,
                                                     ct_work **work) {
    static const char *const OP = "all_gather_into_tensor";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g || ct__dist_check_tensor(OP, "the output", out, g) || ct__dist_check_tensor(OP, "the input", in, g))
        return ct_last_error_code();
    if (out->dtype != in->dtype) {
        ct_set_error(CT_ERR_DTYPE, "%s: output tensor must have the same type as input tensor (output %s, input %s)", OP,
                     ct_dtype_name(out->dtype), ct_dtype_name(in->dtype));
        return CT_ERR_DTYPE;
    }
    if (ct_numel(out) != (int64_t)g->world * ct_numel(in)) {
        ct_set_error(CT_ERR_SHAPE, "%s: output tensor size must be equal to world_size times input tensor size (output %lld "
                                   "elements, input %lld, world_size %d)",
                     OP, (long long)ct_numel(out), (long long)ct_numel(in), g->world);
        return CT_ERR_SHAPE;
    }
    ct_work *w = ct__work_new(g, OP);
    if (!w) return CT_ERR_MEMORY;
    w->buf = ct_retain(out);
    w->keep[0] = ct_retain((ct_tensor *)in);
    w->bump = 1;
    void *req = NULL;
    int rc = g->be->all_gather(g->st, ct_data_ptr(in), ct_data_ptr(out), ct_numel(in), in->dtype, &req);
    return ct__work_start(w, rc, req, work);
}

/* reduce_scatter's common part: `in` is a contiguous [world, n] block of the input */
static ct_status ct__dist_reduce_scatter(const char *OP, ct_process_group *g, ct_tensor *out, ct_tensor *in, ct_reduce_op op,
                                         ct_work **work) {
    ct_work *w = ct__work_new(g, OP);
    if (!w) return CT_ERR_MEMORY;
    w->avg = op == CT_REDUCE_AVG;
    int s = ct_scope_begin();
    if (ct__dist_half(out->dtype)) {
        w->keep[0] = ct__dist_own(ct_contiguous(ct_to(in, CT_FLOAT32)));
        int64_t n = ct_numel(out);
        w->buf = ct__dist_own(ct_empty_on_n(out->device, CT_FLOAT32, 1, &n));
        w->dst = ct_retain(out);
    } else {
        w->keep[0] = ct_retain(in);
        w->buf = ct_retain(out);
        w->bump = 1;
    }
    ct_scope_end(s);
    if (!w->buf || !w->keep[0]) { ct__work_release(w, 0); return ct_last_error_code(); }
    void *req = NULL;
    int rc = g->be->reduce_scatter(g->st, ct_data_ptr(w->keep[0]), ct_data_ptr(w->buf), ct_numel(out), w->buf->dtype,
                                   ct__dist_backend_op(op), &req);
    return ct__work_start(w, rc, req, work);
}

CTENSOR_API ct_status ct_dist_reduce_scatter(ct_tensor *out, int n, ct_tensor *const *ins, ct_reduce_op op,
                                             ct_process_group *group, ct_work **work) {
    static const char *const OP = "reduce_scatter";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g || ct__dist_check_tensor(OP, "the output", out, g) || ct__dist_check_op(OP, op, out->dtype) ||
        ct__dist_check_list(OP, "input_list", n, ins, out, "output", g))
        return ct_last_error_code();
    int s = ct_scope_begin();
    ct_tensor *flat[64];
    ct_tensor **fl = n <= 64 ? flat : (ct_tensor **)CT_MALLOC((size_t)n * sizeof *fl);
    ct_tensor *packed = NULL;
    if (fl) {
        for (int r = 0; r < n; r++) fl[r] = ct_reshape(ins[r], -1);
        packed = ct_stack(n, fl, 0);      /* [world, numel], contiguous */
        if (fl != flat) CT_FREE(fl);
    } else ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP);
    ct_status st = packed ? ct__dist_reduce_scatter(OP, g, out, packed, op, work) : ct_last_error_code();
    ct_scope_end(s);
    return st;
}

CTENSOR_API ct_status ct_dist_reduce_scatter_tensor(ct_tensor *out, const ct_tensor *in, ct_reduce_op op,
                                                    ct_process_group *group, ct_work **work) {
    static const char *const OP = "reduce_scatter_tensor";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g || ct__dist_check_tensor(OP, "the output", out, g) || ct__dist_check_tensor(OP, "the input", in, g) ||
        ct__dist_check_op(OP, op, out->dtype))
        return ct_last_error_code();
    if (out->dtype != in->dtype) {
        ct_set_error(CT_ERR_DTYPE, "%s: input tensor must have the same type as output tensor (output %s, input %s)", OP,
                     ct_dtype_name(out->dtype), ct_dtype_name(in->dtype));
        return CT_ERR_DTYPE;
    }
    if (ct_numel(in) != (int64_t)g->world * ct_numel(out)) {
        ct_set_error(CT_ERR_SHAPE, "%s: input tensor size must be equal to world_size times output tensor size (input %lld "
                                   "elements, output %lld, world_size %d)",
                     OP, (long long)ct_numel(in), (long long)ct_numel(out), g->world);
        return CT_ERR_SHAPE;
    }
    return ct__dist_reduce_scatter(OP, g, out, (ct_tensor *)in, op, work);
}

CTENSOR_API ct_status ct_dist_barrier(ct_process_group *group, ct_work **work) {
    static const char *const OP = "barrier";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g) return ct_last_error_code();
    ct_work *w = ct__work_new(g, OP);
    if (!w) return CT_ERR_MEMORY;
    void *req = NULL;
    int rc = g->be->barrier(g->st, &req);
    return ct__work_start(w, rc, req, work);
}

static int ct__dist_check_peer(const char *op, const char *what, int peer, const ct_process_group *g) {
    if (ct__dist_check_rank(op, what, peer, g)) return -1;
    if (peer == g->rank) {
        ct_set_error(CT_ERR_ARG, "%s: invalid %s rank %d: it is the rank of this process", op, what, peer);
        return -1;
    }
    return 0;
}
CTENSOR_API ct_status ct_dist_send(const ct_tensor *t, int dst, ct_process_group *group, int tag, ct_work **work) {
    static const char *const OP = "send";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g || ct__dist_check_tensor(OP, "the tensor", t, g) || ct__dist_check_peer(OP, "destination", dst, g))
        return ct_last_error_code();
    if (tag < 0) { ct_set_error(CT_ERR_ARG, "%s: tag must be non-negative (got %d)", OP, tag); return CT_ERR_ARG; }
    ct_work *w = ct__work_new(g, OP);
    if (!w) return CT_ERR_MEMORY;
    w->keep[0] = ct_retain((ct_tensor *)t);
    void *req = NULL;
    int rc = g->be->send(g->st, ct_data_ptr(t), ct_numel(t), t->dtype, dst, tag, &req);
    return ct__work_start(w, rc, req, work);
}
CTENSOR_API ct_status ct_dist_recv(ct_tensor *t, int src, ct_process_group *group, int tag, ct_work **work) {
    static const char *const OP = "recv";
    if (work) *work = NULL;
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g || ct__dist_check_tensor(OP, "the tensor", t, g) || ct__dist_check_peer(OP, "source", src, g))
        return ct_last_error_code();
    if (tag < 0) { ct_set_error(CT_ERR_ARG, "%s: tag must be non-negative (got %d)", OP, tag); return CT_ERR_ARG; }
    ct_work *w = ct__work_new(g, OP);
    if (!w) return CT_ERR_MEMORY;
    w->buf = ct_retain(t);
    w->bump = 1;
    void *req = NULL;
    int rc = g->be->recv(g->st, ct_data_ptr(t), ct_numel(t), t->dtype, src, tag, &req);
    return ct__work_start(w, rc, req, work);
}

/* ============================================================================
   DistributedDataParallel
   ========================================================================== */
typedef struct ct__ddp_param {
    struct ct_ddp *ddp;
    ct_tensor *p;               /* borrowed from the module */
    int index;                  /* in ct_module_parameters order */
    int bucket;
    int64_t offset;             /* in the bucket, elements */
    int ready;                  /* its gradient is in the bucket (this backward) */
    int hook;
} ct__ddp_param;
typedef struct ct__ddp_bucket {
    ct_tensor *flat;            /* retained, 1-D */
    int first, count;           /* its parameters: d->ps[first .. first+count-1] */
    int pending;                /* parameters whose gradient has not come */
    int launched;
    ct_work *work;
} ct__ddp_bucket;
struct ct_ddp {
    ct_module *m;
    ct_process_group *g;
    int np, nb, nbuf;
    ct__ddp_param *ps;          /* bucket order: reverse of the module's */
    ct__ddp_bucket *bk;
    ct_tensor **bufs;           /* buffers (borrowed) broadcast at each forward */
    int next_launch;            /* buckets start in order */
    int armed;                  /* the next backward synchronizes */
    int started;                /* a hook fired since arming */
    int require_sync;
    int broadcast_buffers;
    ct_status err;              /* an error inside a hook, reported at finish */
    char errmsg[320];
};

static void ct__ddp_fail(ct_ddp *d) {
    if (d->err) return;
    d->err = ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_STATE;
    ct__dist_msg(d->errmsg, sizeof d->errmsg, ct_last_error(), NULL);
}
static void ct__ddp_launch_ready(ct_ddp *d) {
    while (d->next_launch < d->nb && d->bk[d->next_launch].pending == 0) {
        ct__ddp_bucket *b = &d->bk[d->next_launch++];
        if (ct_dist_all_reduce(b->flat, CT_REDUCE_AVG, d->g, &b->work)) ct__ddp_fail(d);
        b->launched = 1;
    }
    /* drive the started transfers on (MPI progresses non-blocking collectives inside its calls) */
    for (int i = 0; i < d->next_launch; i++)
        if (d->bk[i].work && ct_work_test(d->bk[i].work) < 0) ct__ddp_fail(d);
}
static ct_tensor *ct__ddp_param_slot(ct_ddp *d, const ct__ddp_param *pp) {
    ct_tensor *flat = d->bk[pp->bucket].flat;
    return ct_view_n(ct_narrow(flat, 0, pp->offset, ct_numel(pp->p)), pp->p->ndim, pp->p->shape);
}
/* the gradient hook: runs before grad is accumulated into .grad */
static ct_tensor *ct__ddp_hook(ct_tensor *grad, void *user) {
    ct__ddp_param *pp = (ct__ddp_param *)user;
    ct_ddp *d = pp->ddp;
    if (!d->armed || d->err) return NULL;
    if (pp->ready) {
        ct_set_error(CT_ERR_STATE, "DistributedDataParallel: parameter %d got a second gradient in one synchronized backward "
                                   "(call ct_ddp_finish_gradients after each backward)", pp->index);
        ct__ddp_fail(d);
        return NULL;
    }
    d->started = 1;
    int prev = ct_set_grad_enabled(0);
    ct_tensor *slot = ct__ddp_param_slot(d, pp);
    if (!slot || !ct_copy_(slot, grad) || (pp->p->grad && !ct_add_(slot, pp->p->grad))) ct__ddp_fail(d);
    ct_set_grad_enabled(prev);
    pp->ready = 1;
    d->bk[pp->bucket].pending--;
    ct__ddp_launch_ready(d);
    return NULL;
}

static ct_status ct__ddp_broadcast_all(ct_ddp *d, int n, ct_tensor **ts) {
    ct_status st = CT_OK;
    int prev = ct_set_grad_enabled(0);
    for (int i = 0; i < n && !st; i++) {
        int s = ct_scope_begin();
        if (ct_is_contiguous(ts[i])) st = ct_dist_broadcast(ts[i], 0, d->g, NULL);
        else {
            ct_tensor *c = ct_contiguous(ts[i]);
            st = c ? ct_dist_broadcast(c, 0, d->g, NULL) : ct_last_error_code();
            if (!st && !ct_copy_(ts[i], c)) st = ct_last_error_code();
        }
        ct_scope_end(s);
    }
    ct_set_grad_enabled(prev);
    return st;
}

CTENSOR_API void ct_ddp_free(ct_ddp *d) {
    if (!d) return;
    for (int i = 0; i < d->nb; i++) {
        if (d->bk[i].work) ct_work_wait(d->bk[i].work);
        if (d->bk[i].flat) ct_release(d->bk[i].flat);
    }
    for (int i = 0; i < d->np; i++)
        if (d->ps[i].hook > 0) ct_remove_hook(d->ps[i].p, d->ps[i].hook);
    CT_FREE(d->ps);
    CT_FREE(d->bk);
    CT_FREE(d->bufs);
    CT_FREE(d);
}

CTENSOR_API ct_ddp *ct_ddp_new(ct_module *m, ct_process_group *group, const ct_ddp_options *o) {
    static const char *const OP = "DistributedDataParallel";
    if (!m) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: the module is NULL", OP);
        return NULL;
    }
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g) return NULL;
    double cap_mb = o && o->bucket_cap_mb != 0 ? o->bucket_cap_mb : 25.0;
    if (!(cap_mb > 0)) {
        ct_set_error(CT_ERR_ARG, "%s: bucket_cap_mb must be positive (got %g)", OP, cap_mb);
        return NULL;
    }
    ct_ddp *d = (ct_ddp *)CT_MALLOC(sizeof *d);
    if (!d) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); return NULL; }
    memset(d, 0, sizeof *d);
    d->m = m;
    d->g = g;
    d->require_sync = 1;
    d->broadcast_buffers = !(o && o->no_broadcast_buffers);
    int np = ct_module_parameters(m, NULL, 0);
    ct_tensor **params = (ct_tensor **)CT_MALLOC((size_t)(np ? np : 1) * sizeof *params);
    d->ps = (ct__ddp_param *)CT_MALLOC((size_t)(np ? np : 1) * sizeof *d->ps);
    d->bk = (ct__ddp_bucket *)CT_MALLOC((size_t)(np ? np : 1) * sizeof *d->bk);
    if (!params || !d->ps || !d->bk) {
        CT_FREE(params);
        ct_ddp_free(d);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP);
        return NULL;
    }
    memset(d->bk, 0, (size_t)(np ? np : 1) * sizeof *d->bk);
    ct_module_parameters(m, params, np);
    for (int i = 0; i < np; i++) {
        if (ct__dist_check_tensor(OP, "a parameter", params[i], g)) {
            CT_FREE(params);
            ct_ddp_free(d);
            return NULL;
        }
    }
    /* buffers: the state dict's entries that are not parameters */
    ct_state_dict sd = {0, NULL};
    if (ct_module_state_dict(m, &sd) == CT_OK && sd.n) {
        d->bufs = (ct_tensor **)CT_MALLOC((size_t)sd.n * sizeof *d->bufs);
        for (int i = 0; d->bufs && i < sd.n; i++) {
            int isp = 0;
            for (int j = 0; j < np && !isp; j++) isp = params[j] == sd.items[i].tensor;
            if (!isp && sd.items[i].tensor) d->bufs[d->nbuf++] = sd.items[i].tensor;
        }
    }
    ct_state_dict_free(&sd);
    /* rank 0's parameters and buffers everywhere */
    if (ct__ddp_broadcast_all(d, np, params) || ct__ddp_broadcast_all(d, d->nbuf, d->bufs)) {
        CT_FREE(params);
        ct_ddp_free(d);
        return NULL;
    }
    /* buckets over the parameters in reverse order; one dtype per bucket; the first
       holds 1 MiB (PyTorch's _DEFAULT_FIRST_BUCKET_BYTES), the others cap_mb */
    int64_t cap = (int64_t)(cap_mb * 1024 * 1024), first_cap = 1024 * 1024;
    if (first_cap > cap) first_cap = cap;
    int nb = 0;
    int64_t bytes = 0;
    for (int k = 0; k < np; k++) {
        ct__ddp_param *pp = &d->ps[k];
        pp->ddp = d;
        pp->index = np - 1 - k;
        pp->p = params[pp->index];
        pp->ready = 0;
        pp->hook = 0;
        int64_t pb = ct_numel(pp->p) * (int64_t)ct_dtype_size(pp->p->dtype);
        int newb = nb == 0 || d->ps[d->bk[nb - 1].first].p->dtype != pp->p->dtype ||
                   (bytes > 0 && bytes + pb > (nb == 1 ? first_cap : cap));
        if (newb) { d->bk[nb].first = k; d->bk[nb].count = 0; nb++; bytes = 0; }
        pp->bucket = nb - 1;
        pp->offset = 0;
        for (int q = d->bk[nb - 1].first; q < k; q++) pp->offset += ct_numel(d->ps[q].p);
        d->bk[nb - 1].count++;
        bytes += pb;
    }
    d->np = np;
    d->nb = nb;
    CT_FREE(params);
    for (int b = 0; b < nb; b++) {
        ct__ddp_param *last = &d->ps[d->bk[b].first + d->bk[b].count - 1];
        int64_t n = last->offset + ct_numel(last->p);
        int s = ct_scope_begin();
        d->bk[b].flat = ct__dist_own(ct_zeros_on_n(last->p->device, last->p->dtype, 1, &n));
        ct_scope_end(s);
        d->bk[b].pending = d->bk[b].count;
        if (!d->bk[b].flat) { ct_ddp_free(d); return NULL; }
    }
    for (int k = 0; k < np; k++) {
        d->ps[k].hook = ct_register_hook(d->ps[k].p, ct__ddp_hook, &d->ps[k]);
        if (d->ps[k].hook < 0) { ct_ddp_free(d); return NULL; }
    }
    return d;
}

CTENSOR_API ct_module *ct_ddp_module(const ct_ddp *d) { return d ? d->m : NULL; }
CTENSOR_API int ct_ddp_set_require_sync(ct_ddp *d, int enabled) {
    if (!d) return 0;
    int prev = d->require_sync;
    d->require_sync = enabled != 0;
    return prev;
}
CTENSOR_API int ct_ddp_num_buckets(const ct_ddp *d) { return d ? d->nb : 0; }
CTENSOR_API int ct_ddp_bucket_params(const ct_ddp *d, int b, int *idx, int max) {
    if (!d || b < 0 || b >= d->nb) {
        ct_set_error(CT_ERR_INDEX, "DistributedDataParallel: bucket %d out of range (%d buckets)", b, d ? d->nb : 0);
        return -1;
    }
    for (int i = 0; i < d->bk[b].count && i < max; i++) idx[i] = d->ps[d->bk[b].first + i].index;
    return d->bk[b].count;
}

static void ct__ddp_reset(ct_ddp *d) {
    for (int k = 0; k < d->np; k++) d->ps[k].ready = 0;
    for (int b = 0; b < d->nb; b++) {
        d->bk[b].pending = d->bk[b].count;
        d->bk[b].launched = 0;
        d->bk[b].work = NULL;
    }
    d->next_launch = 0;
    d->armed = 0;
    d->started = 0;
}

CTENSOR_API ct_tensor *ct_ddp_forward(ct_ddp *d, ct_tensor *x) {
    if (!d) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "DistributedDataParallel forward: the DDP is NULL");
        return NULL;
    }
    if (d->armed && d->started) {
        ct_set_error(CT_ERR_STATE, "DistributedDataParallel forward: the previous backward's gradients were not synchronized: "
                                   "call ct_ddp_finish_gradients after ct_backward (ct_ddp_backward does both)");
        return NULL;
    }
    if (d->broadcast_buffers && d->nbuf && d->g->world > 1 && ct__ddp_broadcast_all(d, d->nbuf, d->bufs)) return NULL;
    ct_tensor *y = ct_forward(d->m, x);
    if (y && d->require_sync && ct_is_grad_enabled()) d->armed = 1;
    return y;
}

CTENSOR_API ct_status ct_ddp_finish_gradients(ct_ddp *d) {
    static const char *const OP = "DistributedDataParallel";
    if (!d) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: the DDP is NULL", OP);
        return ct_last_error_code();
    }
    if (!d->armed) return CT_OK;
    int prev = ct_set_grad_enabled(0);
    /* parameters that got no gradient: their .grad so far (or zeros) */
    for (int k = 0; k < d->np && !d->err; k++) {
        ct__ddp_param *pp = &d->ps[k];
        if (pp->ready) continue;
        int s = ct_scope_begin();
        ct_tensor *slot = ct__ddp_param_slot(d, pp);
        if (!slot || !(pp->p->grad ? ct_copy_(slot, pp->p->grad) : ct_zero_(slot))) ct__ddp_fail(d);
        ct_scope_end(s);
        pp->ready = 1;
        d->bk[pp->bucket].pending--;
    }
    if (!d->err) ct__ddp_launch_ready(d);
    for (int b = 0; b < d->nb; b++) {
        if (!d->bk[b].work) continue;
        if (ct_work_wait(d->bk[b].work)) ct__ddp_fail(d);
        d->bk[b].work = NULL;
    }
    /* the averaged gradients into .grad */
    for (int k = 0; k < d->np && !d->err; k++) {
        ct__ddp_param *pp = &d->ps[k];
        int s = ct_scope_begin();
        ct_tensor *slot = ct__ddp_param_slot(d, pp);
        if (!slot) ct__ddp_fail(d);
        else if (pp->p->grad) { if (!ct_copy_(pp->p->grad, slot)) ct__ddp_fail(d); }
        else if (ct_set_grad(pp->p, ct_clone(slot))) ct__ddp_fail(d);
        ct_scope_end(s);
    }
    ct_set_grad_enabled(prev);
    ct_status st = d->err;
    if (st) ct_set_error(st, "%s: gradient synchronization failed: %s", OP, d->errmsg);
    d->err = CT_OK;
    ct__ddp_reset(d);
    return st;
}

CTENSOR_API ct_status ct_ddp_backward(ct_ddp *d, ct_tensor *loss) {
    if (!d) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "DistributedDataParallel backward: the DDP is NULL");
        return ct_last_error_code();
    }
    ct_status st = ct_backward(loss);
    if (st) {
        /* the other ranks wait for our buckets: still take part, then report */
        char msg[320];
        ct__dist_msg(msg, sizeof msg, ct_last_error(), NULL);
        if (d->armed) ct_ddp_finish_gradients(d);
        ct_set_error(st, "%s", msg);
        return st;
    }
    return ct_ddp_finish_gradients(d);
}

/* ============================================================================
   ZeroRedundancyOptimizer (ZeRO-1)
   ========================================================================== */
struct ct_zero_optimizer {
    ct_optimizer *opt;
    ct_process_group *g;
    int np;
    ct_tensor **params;         /* borrowed, in group order */
    int *rank;                  /* owner of each */
    int *gstart;                /* first index of each group */
    int ngroups;
};

CTENSOR_API void ct_zero_free(ct_zero_optimizer *z) {
    if (!z) return;
    CT_FREE(z->params);
    CT_FREE(z->rank);
    CT_FREE(z->gstart);
    CT_FREE(z);
}

CTENSOR_API ct_zero_optimizer *ct_zero_redundancy_optimizer(ct_optimizer *opt, ct_process_group *group) {
    static const char *const OP = "ZeroRedundancyOptimizer";
    if (!opt) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: the optimizer is NULL", OP);
        return NULL;
    }
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g) return NULL;
    ct_zero_optimizer *z = (ct_zero_optimizer *)CT_MALLOC(sizeof *z);
    if (!z) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); return NULL; }
    memset(z, 0, sizeof *z);
    z->opt = opt;
    z->g = g;
    z->ngroups = ct_optim_num_groups(opt);
    for (int gi = 0; gi < z->ngroups; gi++) z->np += ct_optim_group_size(opt, gi);
    z->params = (ct_tensor **)CT_MALLOC((size_t)(z->np ? z->np : 1) * sizeof *z->params);
    z->rank = (int *)CT_MALLOC((size_t)(z->np ? z->np : 1) * sizeof *z->rank);
    z->gstart = (int *)CT_MALLOC((size_t)(z->ngroups + 1) * sizeof *z->gstart);
    int64_t *load = (int64_t *)CT_MALLOC((size_t)g->world * sizeof *load);
    int *order = (int *)CT_MALLOC((size_t)(z->np ? z->np : 1) * sizeof *order);
    if (!z->params || !z->rank || !z->gstart || !load || !order) {
        CT_FREE(load);
        CT_FREE(order);
        ct_zero_free(z);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP);
        return NULL;
    }
    for (int r = 0; r < g->world; r++) load[r] = 0;
    int k = 0;
    for (int gi = 0; gi < z->ngroups; gi++) {
        int n = ct_optim_group_size(opt, gi);
        z->gstart[gi] = k;
        for (int i = 0; i < n; i++) {
            z->params[k + i] = ct_optim_param(opt, gi, i);
            if (ct__dist_check_tensor(OP, "a parameter", z->params[k + i], g)) {
                CT_FREE(load);
                CT_FREE(order);
                ct_zero_free(z);
                return NULL;
            }
        }
        /* PyTorch's partition: per group, the largest first, each to the rank with the
           fewest elements so far (ties: the lowest rank) */
        for (int i = 0; i < n; i++) order[i] = k + i;
        for (int i = 1; i < n; i++) {       /* stable insertion sort by numel, descending */
            int v = order[i], j = i - 1;
            while (j >= 0 && ct_numel(z->params[order[j]]) < ct_numel(z->params[v])) { order[j + 1] = order[j]; j--; }
            order[j + 1] = v;
        }
        for (int i = 0; i < n; i++) {
            int best = 0;
            for (int r = 1; r < g->world; r++)
                if (load[r] < load[best]) best = r;
            z->rank[order[i]] = best;
            load[best] += ct_numel(z->params[order[i]]);
        }
        k += n;
    }
    z->gstart[z->ngroups] = k;
    CT_FREE(load);
    CT_FREE(order);
    return z;
}

CTENSOR_API int ct_zero_param_rank(const ct_zero_optimizer *z, int group, int i) {
    if (!z || group < 0 || group >= z->ngroups || i < 0 || i >= z->gstart[group + 1] - z->gstart[group]) {
        ct_set_error(CT_ERR_INDEX, "ZeroRedundancyOptimizer: parameter %d of group %d out of range", i, group);
        return -1;
    }
    return z->rank[z->gstart[group] + i];
}

CTENSOR_API ct_status ct_zero_step(ct_zero_optimizer *z) {
    static const char *const OP = "ZeroRedundancyOptimizer.step";
    if (!z) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: the optimizer is NULL", OP);
        return ct_last_error_code();
    }
    ct_process_group *g = ct__dist_group(OP, z->g);
    if (!g) return ct_last_error_code();
    /* the others' parameters without .grad for this step: the optimizer skips them and
       makes no state for them */
    ct_tensor **stash = (ct_tensor **)CT_MALLOC((size_t)(z->np ? z->np : 1) * sizeof *stash);
    ct_work **ws = (ct_work **)CT_MALLOC((size_t)(z->np ? z->np : 1) * sizeof *ws);
    if (!stash || !ws) {
        CT_FREE(stash);
        CT_FREE(ws);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP);
        return CT_ERR_MEMORY;
    }
    for (int k = 0; k < z->np; k++) {
        stash[k] = NULL;
        ws[k] = NULL;
        if (z->rank[k] != g->rank && z->params[k]->grad) {
            stash[k] = ct_retain(z->params[k]->grad);
            ct_set_grad(z->params[k], NULL);
        }
    }
    ct_status st = ct_step(z->opt);
    char msg[320];
    if (st) ct__dist_msg(msg, sizeof msg, ct_last_error(), NULL);
    for (int k = 0; k < z->np; k++)
        if (stash[k]) {
            ct_set_grad(z->params[k], stash[k]);
            ct_release(stash[k]);
        }
    CT_FREE(stash);
    if (st) {
        /* still take part in the broadcasts the other ranks start (their updates) */
        ct_set_error(st, "%s", msg);
    }
    /* every parameter from its owner, all started at once, then waited for */
    ct_status bst = CT_OK;
    int prev = ct_set_grad_enabled(0);
    for (int k = 0; k < z->np && !bst; k++) bst = ct_dist_broadcast(z->params[k], z->rank[k], g, &ws[k]);
    for (int k = 0; k < z->np; k++)
        if (ws[k]) {
            ct_status s2 = ct_work_wait(ws[k]);
            if (!bst) bst = s2;
        }
    ct_set_grad_enabled(prev);
    CT_FREE(ws);
    if (st) { ct_set_error(st, "%s: %s", OP, msg); return st; }
    return bst;
}

/* ============================================================================
   FullyShardedDataParallel
   ========================================================================== */
typedef struct ct__fsdp_unit {
    struct ct_fsdp *f;
    ct_module *m;               /* the wrapped module */
    const ct_module_type *orig; /* its type, given back by ct_fsdp_free */
    ct_module_type wtype;       /* its type with the forward below */
    int np;
    ct_named_tensor **slots;    /* where its parameters live in the module tree */
    ct_tensor *fullt;           /* the gathered flat parameter's storage (retained; NULL while freed) */
    ct_tensor **params;         /* tensors over the flat buffer (retained) */
    int64_t *off;               /* each one's offset in the flat buffer */
    int64_t numel, padded, shard;
    ct_dtype dt;                /* the parameters' (and the shards') dtype */
    ct_dtype cdt, rdt;          /* the gathered parameters' and the flat gradients' (mixed precision) */
    void *buf;                  /* its data */
    ct_tensor *local;           /* the local shard [shard] (retained; requires grad) */
    ct_tensor *gfull;           /* this backward's full gradient [padded] (retained) */
    ct_tensor *gred;            /* its reduced shard [shard] (retained) */
    ct_work *work;
    ct_work *gwork;             /* a prefetched all-gather in flight (buf allocated, parameters not yet pointed) */
    int ngot, launched;
    unsigned char *got;         /* [np] this backward's gradient of parameter i is in gfull */
    int ckpt;                   /* activation checkpointing: forward without saved activations, recomputed in backward */
    ct_tensor *anchor;          /* (checkpointing) a 0-d zero leaf that joins the unit's output to the graph */
} ct__fsdp_unit;
struct ct_fsdp {
    ct_module *root;
    ct_process_group *g;
    ct_fsdp_strategy strategy;
    int nu;
    ct__fsdp_unit *u;
    void *args;                 /* the gradient hooks' arguments (unit, parameter) */
    int *order, norder;         /* units in the order their forward began (the first forward's) */
    int *done, ndone;           /* ... and in the order it ended: reversed, the backward order */
    int recorded;               /* a whole forward has been recorded */
    int fwd_prefetch, bwd_prefetch;
    ct_device dev;              /* the parameters' device: where the flat parameters are gathered and computed on */
    ct_device sdev;             /* the shards' device: dev, or the host under CPU offload of CUDA parameters */
    const ct_fsdp_mixed_precision *mp;   /* &mpv or NULL */
    ct_fsdp_mixed_precision mpv;
    int64_t full_bytes, peak_full, grad_bytes, peak_grad, peak_live;   /* ct_fsdp_memory */
    ct_tensor *spare[3];        /* flat buffers that were freed, for the next unit of the same size (a caching
                                   allocator's reserve: without it every gather and flat gradient was fresh pages
                                   from the kernel, zeroed by it, and the step spent 5% there) */
    ct_status err;
    char errmsg[320];
};
#define CT__FSDP_MAX_UNITS 4096
static ct__fsdp_unit *ct__fsdp_live[CT__FSDP_MAX_UNITS];   /* wrapped module -> unit, for the forward */
static int ct__fsdp_nlive;

static int ct__fsdp_path(const ct_module *m, const ct_module *t, char *buf, size_t cap, size_t len);
static void ct__fsdp_fail(ct_fsdp *f) {
    if (f->err) return;
    f->err = ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_STATE;
    ct__dist_msg(f->errmsg, sizeof f->errmsg, ct_last_error(), NULL);
}
static void ct__fsdp_sample(ct_fsdp *f) {
    if (f->full_bytes > f->peak_full) f->peak_full = f->full_bytes;
    if (f->grad_bytes > f->peak_grad) f->peak_grad = f->grad_bytes;
    int64_t live = ct_live_bytes();
    if (live > f->peak_live) f->peak_live = live;
}
static int64_t ct__fsdp_flatbytes(const ct__fsdp_unit *u, int64_t n) { return n * (int64_t)ct_dtype_size(u->dt); }
static int64_t ct__fsdp_cbytes(const ct__fsdp_unit *u, int64_t n) { return n * (int64_t)ct_dtype_size(u->cdt); }
static int64_t ct__fsdp_rbytes(const ct__fsdp_unit *u, int64_t n) { return n * (int64_t)ct_dtype_size(u->rdt); }
/* a flat buffer of n elements of dt: a spare one of that size, or a new one (retained;
   its values are left as they are) */
static ct_tensor *ct__fsdp_take(ct_fsdp *f, ct_dtype dt, int64_t n) {
    for (int i = 0; i < (int)(sizeof f->spare / sizeof f->spare[0]); i++)
        if (f->spare[i] && f->spare[i]->dtype == dt && ct_numel(f->spare[i]) == n) {
            ct_tensor *t = f->spare[i];
            f->spare[i] = NULL;
            return t;
        }
    int s = ct_scope_begin();
    ct_tensor *t = ct__dist_own(ct_empty_on_n(f->dev, dt, 1, &n));
    ct_scope_end(s);
    return t;
}
/* a flat buffer no longer used: kept as a spare when nothing else holds it */
static void ct__fsdp_give(ct_fsdp *f, ct_tensor *t) {
    if (!t) return;
    if (t->refcount == 1 && t->storage->refcount == 1 && !t->grad_fn && !t->grad)
        for (int i = 0; i < (int)(sizeof f->spare / sizeof f->spare[0]); i++)
            if (!f->spare[i]) {
                f->spare[i] = t;
                return;
            }
    ct_release(t);
}
/* the flat parameter's memory */
static int ct__fsdp_alloc_full(ct__fsdp_unit *u) {
    u->fullt = ct__fsdp_take(u->f, u->cdt, u->padded);
    if (!u->fullt) return -1;
    u->buf = ct_data_ptr(u->fullt);
    u->f->full_bytes += ct__fsdp_cbytes(u, u->padded);
    return 0;
}
static void ct__fsdp_point(ct__fsdp_unit *u, void *buf);
static void ct__fsdp_release_full(ct__fsdp_unit *u) {
    if (u->gwork) {   /* a prefetch in flight: it must land before its buffer goes */
        ct_work_wait(u->gwork);
        u->gwork = NULL;
    }
    if (!u->fullt) return;
    ct__fsdp_point(u, NULL);
    ct__fsdp_give(u->f, u->fullt);
    u->fullt = NULL;
    u->buf = NULL;
    u->f->full_bytes -= ct__fsdp_cbytes(u, u->padded);
}
/* points the unit's parameter tensors at buf (NULL: freed) */
static void ct__fsdp_point(ct__fsdp_unit *u, void *buf) {
    size_t es = ct_dtype_size(u->cdt);
    for (int i = 0; u->params && i < u->np; i++)
        if (u->params[i]) u->params[i]->storage->data = buf ? (char *)buf + (size_t)u->off[i] * es : NULL;
}
/* NO_SHARD in the parameters' own dtype and on their device: the flat parameter is the
   local one, never freed */
static int ct__fsdp_flat_is_local(const ct__fsdp_unit *u) {
    return u->f->strategy == CT_FSDP_NO_SHARD && u->cdt == u->dt && ct_device_eq(u->f->sdev, u->f->dev);
}
static void ct__fsdp_free_full(ct__fsdp_unit *u) {
    if (ct__fsdp_flat_is_local(u) || !u->buf) return;
    ct__fsdp_release_full(u);
}
/* the all-gather's input: the shard, in param_dtype (a copy under mixed precision) */
static ct_tensor *ct__fsdp_shard_in(ct__fsdp_unit *u) {
    if (!ct_device_eq(u->local->device, u->f->dev))   /* (CPU offload: the host shard copied to the device) */
        return ct_to_device_dtype(ct_detach(u->local), u->f->dev, u->cdt);
    return u->cdt == u->dt ? ct_detach(u->local) : ct_to(ct_detach(u->local), u->cdt);
}
/* dst = src across devices (ctensor's copy_ wants one device, but for a 0-d host source) */
static ct_tensor *ct__fsdp_copy(ct_tensor *dst, const ct_tensor *src) {
    if (dst && src && !ct_device_eq(dst->device, src->device) && !(src->ndim == 0 && src->device.type == CT_CPU)) {
        int s = ct_scope_begin();
        ct_tensor *r = ct_copy_(dst, ct_to_device(src, dst->device));
        ct_scope_end(s);
        return r;
    }
    return ct_copy_(dst, src);
}
/* the collectives of the state dicts on tensors that may be in host memory: through a
   device copy when the group moves device tensors (NCCL) */
static int ct__fsdp_host_side(const ct_fsdp *f, const ct_tensor *t) {
    return f->g->be->device_type != CT_CPU && t && t->device.type == CT_CPU;
}
static ct_status ct__fsdp_bcast(ct_fsdp *f, ct_tensor *t) {
    if (!ct__fsdp_host_side(f, t)) return ct_dist_broadcast(t, 0, f->g, NULL);
    int s = ct_scope_begin();
    ct_tensor *d = ct_to_device(t, f->dev);
    ct_status st = d ? ct_dist_broadcast(d, 0, f->g, NULL) : ct_last_error_code();
    if (!st && !ct__fsdp_copy(t, d)) st = ct_last_error_code();
    ct_scope_end(s);
    return st;
}
static ct_status ct__fsdp_all_gather(ct_fsdp *f, ct_tensor *out, const ct_tensor *in) {
    if (!ct__fsdp_host_side(f, out) && !ct__fsdp_host_side(f, in)) return ct_dist_all_gather_into_tensor(out, in, f->g, NULL);
    int s = ct_scope_begin();
    const ct_tensor *di = ct__fsdp_host_side(f, in) ? ct_to_device(in, f->dev) : in;
    ct_tensor *dout = ct__fsdp_host_side(f, out) ? ct_empty_on_n(f->dev, out->dtype, out->ndim, out->shape) : out;
    ct_status st = di && dout ? ct_dist_all_gather_into_tensor(dout, di, f->g, NULL) : ct_last_error_code();
    if (!st && dout != out && !ct__fsdp_copy(out, dout)) st = ct_last_error_code();
    ct_scope_end(s);
    return st;
}
/* a tensor for a state dict that is gathered to the host: a host copy */
static ct_tensor *ct__fsdp_host_copy(const ct_tensor *t) {
    return t && t->device.type != CT_CPU ? ct_to_device(t, ct_cpu()) : ct_clone(t);
}
/* the all-gather of a unit's flat parameter, started (prefetch): the parameters are
   pointed at it when ct__fsdp_gather waits for it */
static int ct__fsdp_start_gather(ct__fsdp_unit *u) {
    if (u->buf || u->f->err) return 0;
    if (ct__fsdp_alloc_full(u)) return -1;
    int s = ct_scope_begin(), prev = ct_set_grad_enabled(0);
    int rc = ct_dist_all_gather_into_tensor(u->fullt, ct__fsdp_shard_in(u), u->f->g, &u->gwork) != CT_OK;
    ct_set_grad_enabled(prev);
    ct_scope_end(s);
    if (rc) {
        u->gwork = NULL;
        ct__fsdp_release_full(u);
        return -1;
    }
    ct__fsdp_sample(u->f);
    return 0;
}
/* the all-gather of a unit's flat parameter (or the wait for its prefetch) */
static int ct__fsdp_gather(ct__fsdp_unit *u) {
    if (u->gwork) {
        ct_work *w = u->gwork;
        u->gwork = NULL;
        if (ct_work_wait(w)) { ct__fsdp_release_full(u); return -1; }
        ct__fsdp_point(u, u->buf);
        return 0;
    }
    if (u->buf) return 0;
    if (ct__fsdp_alloc_full(u)) return -1;
    int s = ct_scope_begin(), prev = ct_set_grad_enabled(0);
    /* (NO_SHARD under mixed precision: the whole local parameter, cast; no communication) */
    int rc = u->f->strategy == CT_FSDP_NO_SHARD ? !ct_copy_(u->fullt, ct__fsdp_shard_in(u))
                                                : ct_dist_all_gather_into_tensor(u->fullt, ct__fsdp_shard_in(u), u->f->g, NULL) != CT_OK;
    ct_set_grad_enabled(prev);
    ct_scope_end(s);
    if (rc) { ct__fsdp_release_full(u); return -1; }
    ct__fsdp_point(u, u->buf);
    ct__fsdp_sample(u->f);
    return 0;
}
static ct__fsdp_unit *ct__fsdp_find(const ct_module *m) {
    for (int i = 0; i < ct__fsdp_nlive; i++)
        if (ct__fsdp_live[i]->m == m) return ct__fsdp_live[i];
    return NULL;
}
/* before the unit's backward: its parameters again (FULL_SHARD freed them) */
static ct_tensor *ct__fsdp_pre_backward(ct_tensor *grad, void *user) {
    (void)grad;
    ct__fsdp_unit *u = (ct__fsdp_unit *)user;
    ct_fsdp *f = u->f;
    if (!f->err && ct__fsdp_gather(u)) ct__fsdp_fail(f);
    /* BACKWARD_PRE: the unit whose backward comes next (the one whose forward ended
       before this one's) starts gathering while this one's gradients are computed */
    if (!f->err && f->bwd_prefetch) {
        int idx = (int)(u - f->u);
        for (int q = f->ndone - 1; q > 0; q--)
            if (f->done[q] == idx) {
                ct__fsdp_unit *next = &f->u[f->done[q - 1]];
                if (!next->launched && ct__fsdp_start_gather(next)) ct__fsdp_fail(f);
                break;
            }
    }
    ct__fsdp_sample(f);
    return NULL;
}

/* ---- activation checkpointing of a unit (torch.utils.checkpoint's reentrant form, as
   FSDP's apply_activation_checkpointing wraps units): the forward runs without grad,
   so the unit keeps none of its activations, only its inputs; the output y is joined
   to the graph as y + 0 (a zero that depends on the unit's inputs and on the anchor
   leaf). When y's gradient g arrives, a hook gathers the unit again (FULL_SHARD),
   recomputes the forward with grad from the saved inputs and the saved random state,
   and runs backward(y_recomputed, g): the parameters' hooks reduce their gradients as
   usual, and the inputs' gradients are handed to the outer graph by a hook on the
   input side of the zero. The record lives in the storage of a 0-d tensor (the value
   1 that multiplies the inputs) saved by those multiplications, so it goes with the
   graph: after the backward, or unused when the graph is dropped. ---- */
typedef struct ct__fsdp_ckpt ct__fsdp_ckpt;
typedef struct ct__fsdp_ckpt_in { ct__fsdp_ckpt *rec; int i; } ct__fsdp_ckpt_in;
struct ct__fsdp_ckpt {
    float one;                  /* the holder tensor's value (first: the blob's data) */
    ct__fsdp_unit *u;
    int nin, ran;
    ct_tensor **in;             /* [nin] the inputs, detached (retained); requires grad where the input did */
    ct_tensor **dx;             /* [nin] their gradients from the recomputation (retained until handed on) */
    ct__fsdp_ckpt_in *arg;      /* [nin] (the three arrays follow the record in its allocation) */
    ct_generator rng;           /* the default generator as the forward found it (preserve_rng_state) */
};
static void ct__fsdp_ckpt_free(void *data, void *user) {
    (void)data;
    ct__fsdp_ckpt *r = (ct__fsdp_ckpt *)user;
    for (int i = 0; i < r->nin; i++) {
        if (r->in[i]) ct_release(r->in[i]);
        if (r->dx[i]) ct_release(r->dx[i]);
    }
    CT_FREE(r);
}
static void ct__fsdp_fail(ct_fsdp *f);
static int ct__fsdp_gather(ct__fsdp_unit *u);
/* y's gradient has arrived: recompute the unit and run its backward */
static ct_tensor *ct__fsdp_ckpt_recompute(ct_tensor *grad, void *user) {
    ct__fsdp_ckpt *r = (ct__fsdp_ckpt *)user;
    ct__fsdp_unit *u = r->u;
    ct_fsdp *f = u->f;
    if (f->err) return NULL;
    if (r->ran) {
        ct_set_error(CT_ERR_AUTOGRAD, "FSDP activation checkpointing: a checkpointed unit's backward ran twice (one backward per forward)");
        ct__fsdp_fail(f);
        return NULL;
    }
    r->ran = 1;
    if (ct__fsdp_gather(u)) { ct__fsdp_fail(f); return NULL; }
    ct_generator *gen = ct_default_generator(), now = *gen;
    *gen = r->rng;
    int prev = ct_set_grad_enabled(1);
    const ct_module_type *wt = u->m->type;
    u->m->type = u->orig;
    ct_tensor *y = ct_forward_n(u->m, r->nin, r->in);
    u->m->type = wt;
    *gen = now;
    if (!y || !ct_get_requires_grad(y) || ct_backward_ex(1, &y, &grad, NULL)) {
        if (y && !ct_get_requires_grad(y) && ct_last_error_code() == CT_OK)
            ct_set_error(CT_ERR_AUTOGRAD, "FSDP activation checkpointing: the recomputed output does not require grad");
        ct__fsdp_fail(f);
    } else
        for (int i = 0; i < r->nin; i++)
            if (r->in[i] && r->in[i]->grad) {
                r->dx[i] = ct_retain(r->in[i]->grad);
                ct_set_grad(r->in[i], NULL);
            }
    ct_set_grad_enabled(prev);
    return NULL;
}
/* the zero's input side: its gradient becomes the recomputed input gradient */
static ct_tensor *ct__fsdp_ckpt_hand(ct_tensor *grad, void *user) {
    ct__fsdp_ckpt_in *a = (ct__fsdp_ckpt_in *)user;
    ct__fsdp_ckpt *r = a->rec;
    ct_tensor *dx = r->dx[a->i];
    if (!dx) return NULL;   /* (the recomputation failed: the error is the FSDP's) */
    r->dx[a->i] = NULL;
    ct_tensor *out = ct_reshape_n(dx, grad->ndim, grad->shape);
    if (out && out->dtype != grad->dtype) out = ct_to(out, grad->dtype);
    ct_release(dx);
    return out;
}
/* the unit's forward without activations; *rec: the record (to hook on y once the
   FSDP's pre-backward hook is in place). NULL *rec: it ran as a plain forward. */
static ct_tensor *ct__fsdp_ckpt_forward(ct__fsdp_unit *u, int nin, ct_tensor *const *in, ct__fsdp_ckpt **rec) {
    *rec = NULL;
    /* the record, then its arrays of nin entries each (any number of inputs) */
    size_t head = (sizeof(ct__fsdp_ckpt) + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *);
    size_t arrs = (size_t)(nin > 0 ? nin : 1) * (2 * sizeof(ct_tensor *) + sizeof(ct__fsdp_ckpt_in));
    ct__fsdp_ckpt *r = (ct__fsdp_ckpt *)CT_MALLOC(head + arrs);
    if (!r) return (ct_tensor *)(ct_set_error(CT_ERR_MEMORY, "FSDP activation checkpointing: out of memory"), NULL);
    memset(r, 0, head + arrs);
    r->in = (ct_tensor **)(void *)((char *)r + head);
    r->dx = r->in + (nin > 0 ? nin : 1);
    r->arg = (ct__fsdp_ckpt_in *)(void *)(r->dx + (nin > 0 ? nin : 1));
    r->one = 1.0f;
    r->u = u;
    r->rng = *ct_default_generator();
    int s = ct_scope_begin();
    ct_tensor *holder = ct_from_blob(&r->one, CT_FLOAT32, 0, NULL, NULL, ct__fsdp_ckpt_free, r);
    if (!holder) { CT_FREE(r); ct_scope_end(s); return NULL; }
    r->nin = nin;
    int prev = ct_set_grad_enabled(0);
    for (int i = 0; i < nin; i++) {
        r->arg[i].rec = r;
        r->arg[i].i = i;
        if (!in[i]) continue;
        ct_tensor *d = ct_detach(in[i]);
        if (d && ct_get_requires_grad(in[i]) && ct_dtype_is_floating(in[i]->dtype)) ct_set_requires_grad(d, 1);
        r->in[i] = d ? ct_retain(d) : NULL;
    }
    ct_tensor *y0 = ct_forward_n(u->m, nin, r->in);
    ct_set_grad_enabled(prev);
    ct_tensor *y = NULL;
    if (y0 && ct_dtype_is_floating(y0->dtype)) {
        /* y = y0 + (anchor * 1 + sum over the inputs of sum((x * 1)[:0])): zero, exactly */
        ct_tensor *z = ct_mul(u->anchor, holder);
        for (int i = 0; i < nin && z; i++) {
            if (!in[i] || !ct_get_requires_grad(in[i]) || !ct_dtype_is_floating(in[i]->dtype)) continue;
            ct_tensor *x1 = ct_mul(ct_flatten(in[i], 0, -1), holder);
            if (!x1 || ct_register_hook(x1, ct__fsdp_ckpt_hand, &r->arg[i]) < 0) { z = NULL; break; }
            ct_tensor *e = ct_sum(ct_narrow(x1, 0, 0, 0));
            z = e ? ct_add(z, ct_to(e, z->dtype)) : NULL;
        }
        y = z ? ct_add(y0, ct_to(z, y0->dtype)) : NULL;
        if (y) *rec = r;
    } else y = y0;   /* (nothing to differentiate: the output as it is) */
    if (y) ct_keep(y);
    ct_scope_end(s);   /* r goes with the holder unless the graph keeps it */
    return y;
}

static ct_tensor *ct__fsdp_unit_forward(ct_module *m, int nin, ct_tensor *const *in) {
    ct__fsdp_unit *u = ct__fsdp_find(m);
    if (!u) return (ct_tensor *)(ct_set_error(CT_ERR_STATE, "FSDP: forward of a module that is no longer wrapped"), NULL);
    ct_fsdp *f = u->f;
    int idx = (int)(u - f->u);
    if (!f->recorded && f->norder < f->nu) f->order[f->norder++] = idx;
    if (ct__fsdp_gather(u)) return NULL;
    /* forward_prefetch: the next unit of the recorded order starts gathering now */
    if (f->fwd_prefetch && f->recorded && !f->err)
        for (int p = 0; p + 1 < f->norder; p++)
            if (f->order[p] == idx) {
                if (ct__fsdp_start_gather(&f->u[f->order[p + 1]])) return NULL;
                break;
            }
    m->type = u->orig;
    ct__fsdp_ckpt *rec = NULL;
    ct_tensor *y = u->ckpt && ct_is_grad_enabled() ? ct__fsdp_ckpt_forward(u, nin, in, &rec)
                                                                              : ct_forward_n(m, nin, in);
    m->type = &u->wtype;
    if (!f->recorded && f->ndone < f->nu) f->done[f->ndone++] = idx;
    ct__fsdp_sample(u->f);
    if (u->f->strategy == CT_FSDP_FULL_SHARD) {
        int bwd = y && ct_get_requires_grad(y);
        if (bwd && ct_register_hook(y, ct__fsdp_pre_backward, u) < 0) y = NULL;
        /* the root unit keeps its parameters when a backward follows: its backward
           comes first (PyTorch does not reshard the root after forward either); so
           does the unit whose forward ran last, whose backward comes next (freed and
           gathered again at once otherwise) */
        int last = f->recorded && f->norder > 0 && f->order[f->norder - 1] == idx;
        if (!bwd || (u->m != f->root && !last)) ct__fsdp_free_full(u);
    }
    /* (after the pre-backward hook: the unit is gathered, and the next one prefetched,
       before the recomputation) */
    if (y && rec && ct_register_hook(y, ct__fsdp_ckpt_recompute, rec) < 0) y = NULL;
    return y;
}
/* a parameter's gradient, before it is accumulated: into the unit's flat gradient */
static void ct__fsdp_launch(ct__fsdp_unit *u) {
    ct_fsdp *f = u->f;
    u->launched = 1;
    if (u->gfull && u->gfull->device.type != CT_CPU) {   /* (device memory: zero_ on views) */
        int s = ct_scope_begin(), prev = ct_set_grad_enabled(0);
        for (int k = 0; k < u->np; k++)
            if (!u->got[k] && !ct_zero_(ct_narrow(u->gfull, 0, u->off[k], ct_numel(u->params[k])))) ct__fsdp_fail(f);
        if (u->padded > u->numel && !ct_zero_(ct_narrow(u->gfull, 0, u->numel, u->padded - u->numel))) ct__fsdp_fail(f);
        ct_set_grad_enabled(prev);
        ct_scope_end(s);
    } else if (u->gfull) {   /* zeros for the padding and for the parameters without a gradient */
        char *g = (char *)ct_data_ptr(u->gfull);
        size_t es = ct_dtype_size(u->rdt);
        for (int k = 0; k < u->np; k++)
            if (!u->got[k]) memset(g + (size_t)u->off[k] * es, 0, (size_t)ct_numel(u->params[k]) * es);
        if (u->padded > u->numel) memset(g + (size_t)u->numel * es, 0, (size_t)(u->padded - u->numel) * es);
    }
    if (f->strategy == CT_FSDP_NO_SHARD) {
        if (ct_dist_all_reduce(u->gfull, CT_REDUCE_AVG, f->g, &u->work)) ct__fsdp_fail(f);
    } else if (ct_dist_reduce_scatter_tensor(u->gred, u->gfull, CT_REDUCE_AVG, f->g, &u->work)) ct__fsdp_fail(f);
    /* the gradients accumulated into the whole parameters are not needed (the one
       being accumulated now goes at the end of backward) */
    for (int k = 0; k < u->np; k++) ct_set_grad(u->params[k], NULL);
    /* FULL_SHARD: the unit's backward is over, its parameters can go */
    if (f->strategy == CT_FSDP_FULL_SHARD) ct__fsdp_free_full(u);
}
/* reduce-scatters that finished: their whole flat gradient can go */
static void ct__fsdp_poll(ct_fsdp *f) {
    for (int i = 0; i < f->nu; i++) {
        ct__fsdp_unit *u = &f->u[i];
        if (!u->work) continue;
        int r = ct_work_test(u->work);   /* also moves the transfer on */
        if (r == 0 || f->strategy == CT_FSDP_NO_SHARD) continue;
        if (ct_work_wait(u->work)) ct__fsdp_fail(f);
        u->work = NULL;
        if (u->gfull) {
            f->grad_bytes -= ct__fsdp_rbytes(u, u->padded);
            ct__fsdp_give(f, u->gfull);
            u->gfull = NULL;
        }
    }
}
/* this backward's flat gradient of a unit (and its reduced shard) */
/* (the flat gradient is not zeroed: each parameter's gradient is copied into its
   slot, and the launch zeroes the padding and the slots that got none) */
static void ct__fsdp_grad_bufs(ct__fsdp_unit *u) {
    u->gfull = ct__fsdp_take(u->f, u->rdt, u->padded);
    if (u->f->strategy != CT_FSDP_NO_SHARD) {
        int s = ct_scope_begin();
        u->gred = ct__dist_own(ct_empty_on_n(u->f->dev, u->rdt, 1, &u->shard));   /* (the reduce-scatter writes all of it) */
        ct_scope_end(s);
    }
    u->f->grad_bytes += ct__fsdp_rbytes(u, u->padded + (u->gred ? u->shard : 0));
    ct__fsdp_sample(u->f);
}
static int ct__fsdp_grad_in(ct__fsdp_unit *u, int i, const ct_tensor *grad) {
    ct_fsdp *f = u->f;
    if (f->err) return 0;
    int prev = ct_set_grad_enabled(0);
    if (!u->gfull) ct__fsdp_grad_bufs(u);
    int s = ct_scope_begin();
    ct_tensor *slot = u->gfull ? ct_view_n(ct_narrow(u->gfull, 0, u->off[i], ct_numel(u->params[i])), u->params[i]->ndim,
                                           u->params[i]->shape) : NULL;
    if (!slot || !ct_copy_(slot, grad)) ct__fsdp_fail(f);
    else u->got[i] = 1;
    ct_scope_end(s);
    ct_set_grad_enabled(prev);
    if (++u->ngot == u->np && !f->err) ct__fsdp_launch(u);
    ct__fsdp_poll(f);
    return 0;
}
typedef struct ct__fsdp_hookarg { ct__fsdp_unit *u; int i; } ct__fsdp_hookarg;
static ct_tensor *ct__fsdp_grad_hook(ct_tensor *grad, void *user) {
    ct__fsdp_hookarg *a = (ct__fsdp_hookarg *)user;
    ct__fsdp_grad_in(a->u, a->i, grad);
    return NULL;
}

/* the policy, bottom-up: returns the parameters of m's subtree that no wrapped
   descendant holds; wraps m (not the root) when they are at least min */
static int64_t ct__fsdp_plan(ct_module *m, int is_root, int64_t min, const ct_fsdp_options *o, ct_module **wrapped, int *nw) {
    int64_t own = 0;
    for (int j = 0; j < m->nparams; j++)
        if (m->params[j].tensor) own += ct_numel(m->params[j].tensor);
    for (int c = 0; c < m->nchildren; c++) own += ct__fsdp_plan(m->children[c].module, 0, min, o, wrapped, nw);
    int manual = 0;
    for (int i = 0; o && i < o->num_wrap_modules && !manual; i++) manual = o->wrap_modules[i] == m;
    if (!is_root && own > 0 && (manual || (min >= 0 && own >= min)) && *nw < CT__FSDP_MAX_UNITS) {
        wrapped[(*nw)++] = m;
        return 0;
    }
    return own;
}
static int ct__fsdp_is_wrapped(const ct_module *m, ct_module *const *wrapped, int nw) {
    for (int i = 0; i < nw; i++)
        if (wrapped[i] == m) return 1;
    return 0;
}
/* the parameter slots of unit um, in PyTorch's order, skipping wrapped descendants */
static int ct__fsdp_collect(ct_module *m, const ct_module *um, ct_module *const *wrapped, int nw, ct_named_tensor **slots,
                            int n) {
    if (m != um && ct__fsdp_is_wrapped(m, wrapped, nw)) return n;
    for (int j = 0; j < m->nparams; j++)
        if (m->params[j].tensor) slots[n++] = &m->params[j];
    for (int c = 0; c < m->nchildren; c++) n = ct__fsdp_collect(m->children[c].module, um, wrapped, nw, slots, n);
    return n;
}

static void ct__fsdp_unit_release(ct__fsdp_unit *u, ct_tensor *master) {
    if (u->work) { ct_work_wait(u->work); u->work = NULL; }
    for (int i = 0; u->params && i < u->np; i++) {
        if (!u->params[i]) continue;
        /* the module gets parameters of its own again: copies of the gathered values
           in full precision (zeros when they could not be gathered) */
        int s = ct_scope_begin(), prev = ct_set_grad_enabled(0);
        ct_tensor *mv = master ? ct_view_n(ct_narrow(master, 0, u->off[i], ct_numel(u->params[i])), u->params[i]->ndim,
                                           u->params[i]->shape) : NULL;
        ct_tensor *own = mv ? (ct_device_eq(mv->device, u->f->dev) ? ct_clone(mv) : ct_to_device(mv, u->f->dev))
                   : u->buf && !u->gwork ? ct_to(ct_clone(ct_detach(u->params[i])), u->dt)   /* (a failed construction) */
                                : ct_zeros_on_n(u->f->dev, u->dt, u->params[i]->ndim, u->params[i]->shape);
        ct_set_grad_enabled(prev);
        if (own) {
            ct_set_requires_grad(own, 1);
            u->slots[i]->tensor = ct_retain(own);
            ct_release(u->params[i]);   /* the module's reference */
        }
        ct_scope_end(s);
    }
    ct__fsdp_release_full(u);   /* (it points the parameters away first) */
    for (int i = 0; u->params && i < u->np; i++)
        if (u->params[i]) ct_release(u->params[i]);
    if (u->local) ct_release(u->local);
    if (u->gfull) ct_release(u->gfull);
    if (u->gred) ct_release(u->gred);
    if (u->anchor) ct_release(u->anchor);
    if (u->m && u->orig) u->m->type = u->orig;
    for (int i = 0; i < ct__fsdp_nlive; i++)
        if (ct__fsdp_live[i] == u) { ct__fsdp_live[i] = ct__fsdp_live[--ct__fsdp_nlive]; break; }
    CT_FREE(u->slots);
    CT_FREE(u->params);
    CT_FREE(u->off);
    CT_FREE(u->got);
}
static ct_status ct__fsdp_masters(ct_fsdp *f, ct_tensor **m);
static void ct__fsdp_destroy(ct_fsdp *f, int gather) {
    if (!f) return;
    /* the values for the module's own parameters again (a collective) */
    int s = ct_scope_begin();
    ct_tensor **m = (ct_tensor **)CT_MALLOC((size_t)(f->nu ? f->nu : 1) * sizeof *m);
    for (int i = 0; m && i < f->nu; i++) m[i] = NULL;
    if (m && gather && f->u && ct__fsdp_masters(f, m))
        for (int i = 0; i < f->nu; i++) m[i] = NULL;
    for (int i = 0; i < f->nu; i++) ct__fsdp_unit_release(&f->u[i], m ? m[i] : NULL);
    for (int i = 0; i < (int)(sizeof f->spare / sizeof f->spare[0]); i++)
        if (f->spare[i]) ct_release(f->spare[i]);
    CT_FREE(m);
    ct_scope_end(s);
    CT_FREE(f->u);
    CT_FREE(f->args);
    CT_FREE(f->order);
    CT_FREE(f->done);
    CT_FREE(f);
}
CTENSOR_API void ct_fsdp_free(ct_fsdp *f) { ct__fsdp_destroy(f, 1); }

/* every parameter from rank 0 (sync_module_states) */
static ct_status ct__dist_broadcast_list(ct_process_group *g, int n, ct_tensor *const *ts) {
    ct_status st = CT_OK;
    int prev = ct_set_grad_enabled(0);
    for (int i = 0; i < n && !st; i++) {
        int s = ct_scope_begin();
        ct_tensor *c = ct_is_contiguous(ts[i]) ? ts[i] : ct_contiguous(ts[i]);
        st = c ? ct_dist_broadcast(c, 0, g, NULL) : ct_last_error_code();
        if (!st && c != ts[i] && !ct_copy_(ts[i], c)) st = ct_last_error_code();
        ct_scope_end(s);
    }
    ct_set_grad_enabled(prev);
    return st;
}

static int ct__fsdp_unit_init(ct_fsdp *f, ct__fsdp_unit *u, ct_module *um, ct_module *const *wrapped, int nw, int maxp,
                              ct__fsdp_hookarg *args) {
    static const char *const OP = "FullyShardedDataParallel";
    u->f = f;
    u->slots = (ct_named_tensor **)CT_MALLOC((size_t)maxp * sizeof *u->slots);
    if (!u->slots) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); return -1; }
    u->np = ct__fsdp_collect(um, um, wrapped, nw, u->slots, 0);
    u->params = (ct_tensor **)CT_MALLOC((size_t)(u->np ? u->np : 1) * sizeof(ct_tensor *));
    u->off = (int64_t *)CT_MALLOC((size_t)(u->np ? u->np : 1) * sizeof(int64_t));
    u->got = (unsigned char *)CT_MALLOC((size_t)(u->np ? u->np : 1));
    if (!u->params || !u->off || !u->got) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); return -1; }
    memset(u->got, 0, (size_t)(u->np ? u->np : 1));
    for (int i = 0; i < u->np; i++) u->params[i] = NULL;
    u->dt = u->slots[0]->tensor->dtype;
    for (int i = 0; i < u->np; i++) {
        ct_tensor *p = u->slots[i]->tensor;
        if (ct__dist_check_tensor(OP, "a parameter", p, f->g)) return -1;
        if (p->dtype != u->dt) {
            ct_set_error(CT_ERR_DTYPE, "%s: the parameters of one unit must share a dtype (got %s and %s)", OP,
                         ct_dtype_name(u->dt), ct_dtype_name(p->dtype));
            return -1;
        }
        u->off[i] = u->numel;
        u->numel += ct_numel(p);
    }
    int W = f->g->world;
    u->padded = f->strategy == CT_FSDP_NO_SHARD ? u->numel : (u->numel + W - 1) / W * W;
    u->shard = f->strategy == CT_FSDP_NO_SHARD ? u->numel : u->padded / W;
    const ct_fsdp_mixed_precision *mp = f->mp;
    u->cdt = mp ? mp->param_dtype : u->dt;
    u->rdt = mp ? mp->reduce_dtype : u->dt;
    size_t ces = ct_dtype_size(u->cdt);
    if (ct__fsdp_alloc_full(u)) return -1;
    int s = ct_scope_begin(), rc = 0, prev = ct_set_grad_enabled(0);
    /* the values, flat, in the parameters' dtype, on their device (zero padding); the
       flat parameter gets them in param_dtype, the local shard its part on its device */
    ct_tensor *stage = ct_zeros_on_n(f->dev, u->dt, 1, &u->padded);
    if (!stage) rc = -1;
    for (int i = 0; i < u->np && !rc; i++) {
        ct_tensor *orig = u->slots[i]->tensor;
        ct_tensor *slot = ct_view_n(ct_narrow(stage, 0, u->off[i], ct_numel(orig)), orig->ndim, orig->shape);
        ct_tensor *p = slot && ct_copy_(slot, ct_detach(orig))
                           ? ct_from_blob_on(f->dev, (char *)u->buf + (size_t)u->off[i] * ces, u->cdt, orig->ndim, orig->shape,
                                             NULL, NULL, NULL)
                           : NULL;
        if (!p) { rc = -1; break; }
        ct_set_requires_grad(p, 1);
        u->params[i] = ct_retain(p);
        u->slots[i]->tensor = ct_retain(p);    /* the module holds the new one ... */
        ct_release(orig);                      /* ... and lets its own go */
        args[i].u = u;
        args[i].i = i;
    }
    if (!rc && !ct_copy_(u->fullt, stage)) rc = -1;
    if (!rc) {
        ct_tensor *loc;
        if (ct__fsdp_flat_is_local(u)) loc = ct_from_blob_on(f->dev, u->buf, u->dt, 1, &u->padded, NULL, NULL, NULL);
        else {   /* NO_SHARD: a float copy (mixed precision) or a host copy (offload); else this rank's shard */
            ct_tensor *part = f->strategy == CT_FSDP_NO_SHARD ? stage : ct_narrow(stage, 0, (int64_t)f->g->rank * u->shard, u->shard);
            loc = !part ? NULL : ct_device_eq(f->sdev, f->dev) ? ct_clone(part) : ct_to_device(part, f->sdev);
        }
        if (loc) u->local = ct_retain(ct_set_requires_grad(loc, 1));
        rc = !u->local;
    }
    ct_set_grad_enabled(prev);
    ct_scope_end(s);
    if (rc) return -1;
    for (int i = 0; i < u->np; i++)
        if (ct_register_hook(u->params[i], ct__fsdp_grad_hook, &args[i]) < 0) return -1;
    if (u->ckpt) {
        s = ct_scope_begin();
        ct_tensor *a = ct_zeros_on_n(f->dev, CT_FLOAT32, 0, NULL);
        if (a) u->anchor = ct_retain(ct_set_requires_grad(a, 1));
        ct_scope_end(s);
        if (!u->anchor) return -1;
    }
    u->m = um;
    u->orig = um->type;
    u->wtype = *um->type;
    u->wtype.forward = ct__fsdp_unit_forward;
    um->type = &u->wtype;
    ct__fsdp_live[ct__fsdp_nlive++] = u;
    return 0;
}

CTENSOR_API ct_fsdp *ct_fsdp_new(ct_module *m, ct_process_group *group, const ct_fsdp_options *o) {
    static const char *const OP = "FullyShardedDataParallel";
    if (!m) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: the module is NULL", OP);
        return NULL;
    }
    ct_process_group *g = ct__dist_group(OP, group);
    if (!g) return NULL;
    ct_fsdp_strategy strat = o ? o->sharding_strategy : CT_FSDP_FULL_SHARD;
    if ((int)strat < 0 || strat > CT_FSDP_NO_SHARD) {
        ct_set_error(CT_ERR_ARG, "%s: invalid sharding strategy %d", OP, (int)strat);
        return NULL;
    }
    if (ct__fsdp_find(m)) {
        ct_set_error(CT_ERR_STATE, "%s: the module is already wrapped by an FSDP", OP);
        return NULL;
    }
    if (o && o->backward_prefetch != CT_FSDP_BACKWARD_PRE && o->backward_prefetch != CT_FSDP_BACKWARD_NONE) {
        ct_set_error(CT_ERR_ARG, "%s: invalid backward_prefetch %d", OP, (int)o->backward_prefetch);
        return NULL;
    }
    if (o && (o->num_wrap_modules < 0 || (o->num_wrap_modules > 0 && !o->wrap_modules))) {
        ct_set_error(CT_ERR_ARG, "%s: wrap_modules is NULL with num_wrap_modules %d", OP, o->num_wrap_modules);
        return NULL;
    }
    if (o && o->mixed_precision) {
        const ct_fsdp_mixed_precision *mp = o->mixed_precision;
        ct_dtype bad = (mp->param_dtype != CT_FLOAT32 && mp->param_dtype != CT_FLOAT64 && mp->param_dtype != CT_FLOAT16 &&
                        mp->param_dtype != CT_BFLOAT16) ? mp->param_dtype : mp->reduce_dtype;
        if (bad != CT_FLOAT32 && bad != CT_FLOAT64 && bad != CT_FLOAT16 && bad != CT_BFLOAT16) {
            ct_set_error(CT_ERR_DTYPE, "%s: mixed precision needs floating point dtypes (got %s)", OP,
                         (int)bad >= 0 && bad < CT_NUM_DTYPES ? ct_dtype_name(bad) : "an invalid dtype");
            return NULL;
        }
    }
    for (int i = 0; o && i < o->num_wrap_modules; i++) {
        char path[512];
        if (!o->wrap_modules[i] || o->wrap_modules[i] == m || !ct__fsdp_path(m, o->wrap_modules[i], path, sizeof path, 0)) {
            ct_set_error(CT_ERR_ARG, "%s: wrap_modules[%d] is %s", OP, i,
                         !o->wrap_modules[i] ? "NULL" : o->wrap_modules[i] == m ? "the root module itself" : "not a submodule of the module");
            return NULL;
        }
    }
    int64_t min = o && o->min_num_params ? o->min_num_params : 100000000;
    int maxp = ct_module_parameters(m, NULL, 0);
    ct_module **wrapped = (ct_module **)CT_MALLOC((size_t)(maxp + 1) * sizeof *wrapped);
    ct_tensor **all = (ct_tensor **)CT_MALLOC((size_t)(maxp + 1) * sizeof *all);
    ct_fsdp *f = (ct_fsdp *)CT_MALLOC(sizeof *f);
    if (!wrapped || !all || !f) {
        CT_FREE(wrapped); CT_FREE(all); CT_FREE(f);
        ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP);
        return NULL;
    }
    /* one device for every parameter, the one the group's backend moves (before the
       broadcast, which would name only the tensor) */
    ct_module_parameters(m, all, maxp);
    ct_device dev = maxp > 0 && all[0] ? all[0]->device : ct_cpu();
    for (int i = 1; i < maxp; i++)
        if (all[i] && !ct_device_eq(all[i]->device, dev)) {
            char a[24], b[24];
            ct_set_error(CT_ERR_DEVICE, "%s: the parameters must all be on one device (got %s and %s)", OP,
                         ct_device_str(dev, a, sizeof a), ct_device_str(all[i]->device, b, sizeof b));
            CT_FREE(wrapped); CT_FREE(all); CT_FREE(f);
            return NULL;
        }
    if ((int)dev.type != g->be->device_type) {
        char a[24];
        ct_set_error(CT_ERR_DEVICE, "%s: the %s backend needs the parameters %s (got them on %s)", OP, g->be->name,
                     g->be->device_type == CT_CUDA ? "on a CUDA device" : "in host memory", ct_device_str(dev, a, sizeof a));
        CT_FREE(wrapped); CT_FREE(all); CT_FREE(f);
        return NULL;
    }
    if (g->device >= 0 && dev.index != g->device) {
        char a[24], b[24];
        ct_set_error(CT_ERR_DEVICE, "%s: the parameters are on %s, but this rank's %s group uses %s (move the module there "
                     "first, as PyTorch's device_id)", OP, ct_device_str(dev, a, sizeof a), g->be->name,
                     ct_device_str(ct_device_of(dev.type, g->device), b, sizeof b));
        CT_FREE(wrapped); CT_FREE(all); CT_FREE(f);
        return NULL;
    }
    memset(f, 0, sizeof *f);
    f->root = m;
    f->g = g;
    f->strategy = strat;
    f->dev = dev;
    f->sdev = o && o->offload_params ? ct_cpu() : dev;   /* (CPUOffload: the shards in host memory) */
    f->fwd_prefetch = o && o->forward_prefetch && strat != CT_FSDP_NO_SHARD;
    if (o && o->mixed_precision) {
        f->mpv = *o->mixed_precision;
        f->mp = &f->mpv;
    }
    f->bwd_prefetch = (!o || o->backward_prefetch == CT_FSDP_BACKWARD_PRE) && strat == CT_FSDP_FULL_SHARD;
    ct_status st = ct__dist_broadcast_list(g, maxp, all);
    CT_FREE(all);
    int nw = 0;
    int64_t rootn = ct__fsdp_plan(m, 1, min, o, wrapped, &nw);
    if (rootn > 0) wrapped[nw++] = m;   /* the root unit last: its children are wrapped first */
    if (ct__fsdp_nlive + nw > CT__FSDP_MAX_UNITS) {
        ct_set_error(CT_ERR_STATE, "%s: at most %d units can be live", OP, CT__FSDP_MAX_UNITS);
        st = CT_ERR_STATE;
    }
    f->u = (ct__fsdp_unit *)CT_MALLOC((size_t)(nw ? nw : 1) * sizeof *f->u);
    f->order = (int *)CT_MALLOC((size_t)(nw ? nw : 1) * sizeof(int));
    f->done = (int *)CT_MALLOC((size_t)(nw ? nw : 1) * sizeof(int));
    ct__fsdp_hookarg *args = (ct__fsdp_hookarg *)CT_MALLOC((size_t)(maxp ? maxp : 1) * sizeof *args);
    f->args = args;
    if (!f->u || !args || !f->order || !f->done) { if (!st) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; } }
    if (!st) {
        memset(f->u, 0, (size_t)(nw ? nw : 1) * sizeof *f->u);
        int used = 0;
        for (int i = 0; i < nw && !st; i++) {
            f->nu = i + 1;
            f->u[i].ckpt = o && o->activation_checkpointing && wrapped[i] != m;
            if (ct__fsdp_unit_init(f, &f->u[i], wrapped[i], wrapped, nw, maxp, args + used)) st = ct_last_error_code();
            used += f->u[i].np;
        }
    }
    CT_FREE(wrapped);
    if (st) { ct__fsdp_destroy(f, 0); return NULL; }
    for (int i = 0; i < f->nu; i++) ct__fsdp_free_full(&f->u[i]);   /* now only shards */
    return f;
}

CTENSOR_API int ct_fsdp_num_units(const ct_fsdp *f) { return f ? f->nu : 0; }
CTENSOR_API int ct_fsdp_parameters(const ct_fsdp *f, ct_tensor **out, int max) {
    if (!f) return 0;
    for (int i = 0; i < f->nu && i < max; i++) out[i] = f->u[i].local;
    return f->nu;
}
CTENSOR_API ct_tensor *ct_fsdp_forward(ct_fsdp *f, ct_tensor *x) {
    if (!f) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "FullyShardedDataParallel forward: the FSDP is NULL");
        return NULL;
    }
    for (int i = 0; i < f->nu; i++)
        if (f->u[i].ngot) {
            ct_set_error(CT_ERR_STATE, "FullyShardedDataParallel forward: the previous backward's gradients were not reduced: "
                                       "call ct_fsdp_finish_gradients after ct_backward (ct_fsdp_backward does both)");
            return NULL;
        }
    if (!f->recorded) f->norder = f->ndone = 0;
    /* an input elsewhere than the parameters goes to their device (PyTorch's FSDP moves
       the forward's arguments to its compute device) */
    if (x && !ct_device_eq(x->device, f->dev)) x = ct_to_device(x, f->dev);
    /* mixed precision: a floating point input in param_dtype (the root's cast_forward_inputs) */
    if (f->mp && x && x->dtype != f->mp->param_dtype &&
        (x->dtype == CT_FLOAT32 || x->dtype == CT_FLOAT64 || x->dtype == CT_FLOAT16 || x->dtype == CT_BFLOAT16))
        x = ct_to(x, f->mp->param_dtype);
    ct_tensor *y = ct_forward(f->root, x);
    if (y && f->norder == f->nu) f->recorded = 1;
    return y;
}
CTENSOR_API ct_status ct_fsdp_finish_gradients(ct_fsdp *f) {
    static const char *const OP = "FullyShardedDataParallel";
    if (!f) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: the FSDP is NULL", OP);
        return ct_last_error_code();
    }
    int any = 0;
    for (int i = 0; i < f->nu; i++) any |= f->u[i].ngot > 0;
    if (any) {
        /* units whose parameters got no gradient (or not all): zeros for the missing ones */
        for (int i = 0; i < f->nu && !f->err; i++) {
            ct__fsdp_unit *u = &f->u[i];
            if (u->launched) continue;
            if (!u->gfull) ct__fsdp_grad_bufs(u);
            ct__fsdp_launch(u);
        }
        int prev = ct_set_grad_enabled(0);
        for (int i = 0; i < f->nu; i++) {
            ct__fsdp_unit *u = &f->u[i];
            if (u->work) {
                if (ct_work_wait(u->work)) ct__fsdp_fail(f);
                u->work = NULL;
            }
            ct_tensor **gp = f->strategy == CT_FSDP_NO_SHARD ? &u->gfull : &u->gred;
            int s = ct_scope_begin();
            if (!f->err && *gp) {
                /* (mixed precision: the shard's .grad in the shard's own dtype) */
                ct_tensor *g = !ct_device_eq(u->local->device, (*gp)->device) ? ct_to_device_dtype(*gp, u->local->device, u->dt)
                               : u->rdt == u->dt ? *gp : ct_to(*gp, u->dt);   /* (CPU offload: to the host shard) */
                if (!g) ct__fsdp_fail(f);
                else if (u->local->grad) { if (!ct_add_(u->local->grad, g)) ct__fsdp_fail(f); }
                else if (ct_set_grad(u->local, g)) ct__fsdp_fail(f);
                else if (g == *gp) {   /* the reduced gradient becomes .grad as it is, no copy */
                    f->grad_bytes -= ct__fsdp_rbytes(u, gp == &u->gfull ? u->padded : u->shard);
                    ct_release(*gp);
                    *gp = NULL;
                }
            }
            ct_scope_end(s);
            for (int k = 0; k < u->np; k++) ct_set_grad(u->params[k], NULL);
            if (u->anchor) ct_set_grad(u->anchor, NULL);
            ct__fsdp_sample(f);
            if (u->gfull) { f->grad_bytes -= ct__fsdp_rbytes(u, u->padded); ct__fsdp_give(f, u->gfull); }
            if (u->gred) { f->grad_bytes -= ct__fsdp_rbytes(u, u->shard); ct_release(u->gred); }
            u->gfull = u->gred = NULL;
            u->ngot = 0;
            memset(u->got, 0, (size_t)(u->np ? u->np : 1));
            u->launched = 0;
            ct__fsdp_free_full(u);
        }
        ct_set_grad_enabled(prev);
    }
    ct_status st = f->err;
    if (st) ct_set_error(st, "%s: gradient reduction failed: %s", OP, f->errmsg);
    f->err = CT_OK;
    return st;
}
CTENSOR_API ct_status ct_fsdp_backward(ct_fsdp *f, ct_tensor *loss) {
    if (!f) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "FullyShardedDataParallel backward: the FSDP is NULL");
        return ct_last_error_code();
    }
    ct_status st = ct_backward(loss);
    if (st) {
        char msg[320];
        ct__dist_msg(msg, sizeof msg, ct_last_error(), NULL);
        ct_fsdp_finish_gradients(f);
        ct_set_error(st, "%s", msg);
        return st;
    }
    return ct_fsdp_finish_gradients(f);
}
CTENSOR_API ct_status ct_fsdp_memory(const ct_fsdp *f, ct_fsdp_memory_stats *out) {
    if (!f || !out) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "FSDP memory: the FSDP or the output is NULL");
        return ct_last_error_code() ? ct_last_error_code() : CT_ERR_NULL;
    }
    memset(out, 0, sizeof *out);
    int64_t shard_grads = 0;
    for (int i = 0; i < f->nu; i++) {
        const ct__fsdp_unit *u = &f->u[i];
        if (!ct__fsdp_flat_is_local(u)) out->shard_param_bytes += ct__fsdp_flatbytes(u, u->shard);
        if (u->local && u->local->grad) shard_grads += ct__fsdp_flatbytes(u, u->shard);
    }
    out->peak_full_param_bytes = f->peak_full;
    out->peak_grad_bytes = f->peak_grad + shard_grads;
    out->peak_live_bytes = f->peak_live;
    return CT_OK;
}
CTENSOR_API void ct_fsdp_reset_peak_memory(ct_fsdp *f) {
    if (!f) return;
    f->peak_full = f->full_bytes;
    f->peak_grad = f->grad_bytes;
    f->peak_live = ct_live_bytes();
}
CTENSOR_API ct_status ct_fsdp_summon_full_params(ct_fsdp *f) {
    if (!f) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "summon_full_params: the FSDP is NULL");
        return ct_last_error_code();
    }
    for (int i = 0; i < f->nu; i++)
        if (ct__fsdp_gather(&f->u[i])) return ct_last_error_code();
    return CT_OK;
}

/* ---- state dicts ---- */
/* every unit's whole flat parameter in the parameters' own dtype ([padded]; float32
   under mixed precision) on the parameters' device, all-gathered from the shards: a
   collective; new tensors of the current scope (NO_SHARD: views of the flat parameter
   itself; with CPU offload of CUDA parameters a device copy of it) */
static ct_status ct__fsdp_masters(ct_fsdp *f, ct_tensor **m) {
    ct_status st = CT_OK;
    int prev = ct_set_grad_enabled(0);
    for (int i = 0; i < f->nu; i++) m[i] = NULL;
    for (int i = 0; i < f->nu && !st; i++) {
        ct__fsdp_unit *u = &f->u[i];
        if (f->strategy == CT_FSDP_NO_SHARD)   /* (CPU offload: a device copy of the host one) */
            m[i] = ct_device_eq(u->local->device, f->dev) ? ct_detach(u->local) : ct_to_device(ct_detach(u->local), f->dev);
        else {
            m[i] = ct_empty_on_n(f->dev, u->dt, 1, &u->padded);   /* (on the parameters' device) */
            if (m[i]) st = ct__fsdp_all_gather(f, m[i], ct_detach(u->local));
        }
        if (!m[i] && !st) st = ct_last_error_code() ? ct_last_error_code() : CT_ERR_MEMORY;
    }
    ct_set_grad_enabled(prev);
    return st;
}
/* on: the module's parameter slots hold views of the masters (for the module's own
   state-dict functions); off: the units' parameters again */
static ct_status ct__fsdp_swap(ct_fsdp *f, ct_tensor *const *m, int on) {
    ct_status st = CT_OK;
    for (int i = 0; i < f->nu; i++) {
        ct__fsdp_unit *u = &f->u[i];
        for (int k = 0; k < u->np; k++) {
            ct_tensor *v = on ? ct_view_n(ct_narrow(m[i], 0, u->off[k], ct_numel(u->params[k])), u->params[k]->ndim, u->params[k]->shape)
                              : u->params[k];
            if (!v) { st = ct_last_error_code(); v = u->params[k]; }
            u->slots[k]->tensor = v;
        }
    }
    if (st) ct__fsdp_swap(f, m, 0);
    return st;
}
/* the dotted path of module t under m ("" for m itself); 1 when found */
static int ct__fsdp_path(const ct_module *m, const ct_module *t, char *buf, size_t cap, size_t len) {
    if (m == t) { buf[len] = 0; return 1; }
    for (int c = 0; c < m->nchildren; c++) {
        size_t n = strlen(m->children[c].name);
        if (len + n + 2 > cap) continue;
        size_t l2 = len;
        if (l2) buf[l2++] = '.';
        memcpy(buf + l2, m->children[c].name, n);
        if (ct__fsdp_path(m->children[c].module, t, buf, cap, l2 + n)) return 1;
    }
    buf[len] = 0;
    return 0;
}
static char *ct__fsdp_flat_key(const ct_fsdp *f, const ct__fsdp_unit *u) {
    char path[512];
    ct__fsdp_path(f->root, u->m, path, sizeof path, 0);
    size_t len = strlen(path) + sizeof ".flat_param";
    char *k = (char *)CT_MALLOC(len);
    if (k) snprintf(k, len, "%s%sflat_param", path, path[0] ? "." : "");
    return k;
}
/* 1 when t is one of the units' parameter tensors */
static int ct__fsdp_is_param(const ct_fsdp *f, const ct_tensor *t) {
    for (int i = 0; i < f->nu; i++)
        for (int k = 0; k < f->u[i].np; k++)
            if (f->u[i].params[k] == t) return 1;
    return 0;
}
static ct_status ct__fsdp_sd_push(ct_state_dict *sd, int cap, char *name, ct_tensor *t) {
    if (!name || !t || sd->n >= cap) {
        CT_FREE(name);
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_MEMORY, "FSDP state_dict: out of memory");
        return ct_last_error_code();
    }
    sd->items[sd->n].name = name;
    sd->items[sd->n].tensor = t;
    sd->items[sd->n].persistent = 1;
    sd->n++;
    return CT_OK;
}
static char *ct__fsdp_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)CT_MALLOC(n);
    if (d) memcpy(d, s, n);
    return d;
}
static ct_status ct__fsdp_sd_check(const char *op, ct_fsdp *f, int type) {
    if (!f) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: the FSDP is NULL", op);
        return ct_last_error_code();
    }
    if (type != CT_FSDP_FULL_STATE_DICT && type != CT_FSDP_SHARDED_STATE_DICT) {
        ct_set_error(CT_ERR_ARG, "%s: invalid state dict type %d", op, type);
        return CT_ERR_ARG;
    }
    for (int i = 0; i < f->nu; i++)
        if (f->u[i].ngot) {
            ct_set_error(CT_ERR_STATE, "%s: a backward's gradients are still being reduced: call ct_fsdp_finish_gradients first", op);
            return CT_ERR_STATE;
        }
    return CT_OK;
}
CTENSOR_API ct_status ct_fsdp_state_dict(ct_fsdp *f, ct_fsdp_state_dict_type type, ct_state_dict *out) {
    static const char *const OP = "FSDP state_dict";
    if (!out) { ct_set_error(CT_ERR_NULL, "%s: the output is NULL", OP); return CT_ERR_NULL; }
    out->n = 0;
    out->items = NULL;
    ct_status st = ct__fsdp_sd_check(OP, f, (int)type);
    if (st) return st;
    ct_state_dict mine;
    if (type == CT_FSDP_FULL_STATE_DICT) {
        ct_tensor **m = (ct_tensor **)CT_MALLOC((size_t)(f->nu ? f->nu : 1) * sizeof *m);
        if (!m) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); return CT_ERR_MEMORY; }
        int s = ct_scope_begin();
        st = ct__fsdp_masters(f, m);
        if (!st && f->g->rank == 0 && !(st = ct__fsdp_swap(f, m, 1))) {
            st = ct_module_state_dict(f->root, &mine);
            if (!st) {
                out->items = (ct_named_tensor *)CT_MALLOC((size_t)(mine.n ? mine.n : 1) * sizeof *out->items);
                int prev = ct_set_grad_enabled(0);
                for (int i = 0; i < mine.n && !st; i++)
                    st = ct__fsdp_sd_push(out, mine.n, ct__fsdp_strdup(mine.items[i].name),
                                          out->items ? ct_keep(ct__fsdp_host_copy(ct_detach(mine.items[i].tensor))) : NULL);
                ct_set_grad_enabled(prev);
                ct_state_dict_free(&mine);
            }
            ct__fsdp_swap(f, m, 0);
        }
        ct_scope_end(s);
        CT_FREE(m);
    } else {
        if ((st = ct_module_state_dict(f->root, &mine))) return st;
        int cap = f->nu + mine.n;
        out->items = (ct_named_tensor *)CT_MALLOC((size_t)(cap ? cap : 1) * sizeof *out->items);
        int prev = ct_set_grad_enabled(0);
        for (int i = 0; i < f->nu && !st; i++)
            st = ct__fsdp_sd_push(out, cap, ct__fsdp_flat_key(f, &f->u[i]), out->items ? ct_clone(ct_detach(f->u[i].local)) : NULL);
        for (int i = 0; i < mine.n && !st; i++)
            if (!ct__fsdp_is_param(f, mine.items[i].tensor))
                st = ct__fsdp_sd_push(out, cap, ct__fsdp_strdup(mine.items[i].name), ct_clone(mine.items[i].tensor));
        ct_set_grad_enabled(prev);
        ct_state_dict_free(&mine);
    }
    if (st) ct_state_dict_free(out);
    return st;
}
static const ct_tensor *ct__fsdp_sd_find(const ct_state_dict *sd, const char *name) {
    for (int i = 0; sd && i < sd->n; i++)
        if (sd->items[i].name && !strcmp(sd->items[i].name, name)) return sd->items[i].tensor;
    return NULL;
}
/* SHARDED: every key and shape checked, then the copies */
static ct_status ct__fsdp_load_sharded(ct_fsdp *f, const ct_state_dict *sd) {
    static const char *const OP = "FSDP load_state_dict (SHARDED_STATE_DICT)";
    ct_state_dict mine;
    if (ct_module_state_dict(f->root, &mine)) return ct_last_error_code();
    int total = f->nu, nbuf = 0;
    for (int i = 0; i < mine.n; i++) nbuf += !ct__fsdp_is_param(f, mine.items[i].tensor);
    total += nbuf;
    char **keys = (char **)CT_MALLOC((size_t)(total ? total : 1) * sizeof(char *));
    ct_tensor **dst = (ct_tensor **)CT_MALLOC((size_t)(total ? total : 1) * sizeof(ct_tensor *));
    ct_status st = CT_OK;
    int nk = 0;
    if (!keys || !dst) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; }
    for (int i = 0; !st && i < f->nu; i++, nk++) {
        keys[nk] = ct__fsdp_flat_key(f, &f->u[i]);
        dst[nk] = f->u[i].local;
        if (!keys[nk]) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; }
    }
    for (int i = 0; !st && i < mine.n; i++)
        if (!ct__fsdp_is_param(f, mine.items[i].tensor)) {
            keys[nk] = ct__fsdp_strdup(mine.items[i].name);
            dst[nk] = mine.items[i].tensor;
            if (!keys[nk++]) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; }
        }
    /* the checks: every key present with its shape and dtype, none unexpected */
    for (int k = 0; !st && k < nk; k++) {
        const ct_tensor *t = ct__fsdp_sd_find(sd, keys[k]);
        if (!t) { ct_set_error(CT_ERR_ARG, "%s: missing key '%s'", OP, keys[k]); st = CT_ERR_ARG; break; }
        if (t->ndim != dst[k]->ndim || ct_numel(t) != ct_numel(dst[k]) ||
            (t->ndim && memcmp(t->shape, dst[k]->shape, (size_t)t->ndim * sizeof(int64_t)))) {
            ct_set_error(CT_ERR_SHAPE, "%s: '%s' has %lld elements in the state dict and %lld here (saved by another "
                         "wrapping or world size?)", OP, keys[k], (long long)ct_numel(t), (long long)ct_numel(dst[k]));
            st = CT_ERR_SHAPE;
        }
    }
    for (int i = 0; !st && i < sd->n; i++) {
        int known = 0;
        for (int k = 0; k < nk && !known; k++) known = sd->items[i].name && !strcmp(sd->items[i].name, keys[k]);
        if (!known) {
            ct_set_error(CT_ERR_ARG, "%s: unexpected key '%s'", OP, sd->items[i].name ? sd->items[i].name : "(null)");
            st = CT_ERR_ARG;
        }
    }
    int prev = ct_set_grad_enabled(0);
    for (int k = 0; !st && k < nk; k++) {
        int s = ct_scope_begin();
        if (!ct__fsdp_copy(ct_detach(dst[k]), ct__fsdp_sd_find(sd, keys[k]))) st = ct_last_error_code();
        ct_scope_end(s);
    }
    ct_set_grad_enabled(prev);
    /* gathered parameters of the sharded strategies are stale now */
    for (int i = 0; !st && i < f->nu; i++) ct__fsdp_free_full(&f->u[i]);
    for (int k = 0; keys && k < nk; k++) CT_FREE(keys[k]);
    CT_FREE(keys);
    CT_FREE(dst);
    ct_state_dict_free(&mine);
    return st;
}
/* FULL: rank 0 loads into the gathered parameters, then everything from rank 0 */
static ct_status ct__fsdp_load_full(ct_fsdp *f, const ct_state_dict *sd) {
    ct_tensor **m = (ct_tensor **)CT_MALLOC((size_t)(f->nu ? f->nu : 1) * sizeof *m);
    if (!m) { ct_set_error(CT_ERR_MEMORY, "FSDP load_state_dict: out of memory"); return CT_ERR_MEMORY; }
    int s = ct_scope_begin(), prev = ct_set_grad_enabled(0);
    /* the masters hold the values: rank 0 loads into them */
    ct_status st = ct__fsdp_masters(f, m);
    int64_t code = 0;
    char msg[320] = "";
    if (!st && f->g->rank == 0) {
        if (!sd) ct_set_error(CT_ERR_NULL, "FSDP load_state_dict: the state dict is NULL on rank 0");
        /* (the values on the module's device: ctensor's copy_ stays on one device) */
        ct_state_dict dsd = {0, NULL};
        if (sd && f->dev.type != CT_CPU) {
            dsd.items = (ct_named_tensor *)CT_MALLOC((size_t)(sd->n ? sd->n : 1) * sizeof *dsd.items);
            if (!dsd.items) ct_set_error(CT_ERR_MEMORY, "FSDP load_state_dict: out of memory");
            for (int i = 0; dsd.items && i < sd->n; i++) {
                dsd.items[i].name = sd->items[i].name;
                dsd.items[i].tensor = sd->items[i].tensor && sd->items[i].tensor->device.type == CT_CPU
                                          ? ct_to_device(sd->items[i].tensor, f->dev) : sd->items[i].tensor;
            }
            dsd.n = dsd.items ? sd->n : 0;
        }
        code = !sd ? CT_ERR_NULL : f->dev.type != CT_CPU && !dsd.items ? CT_ERR_MEMORY : ct__fsdp_swap(f, m, 1);
        if (!code) {
            code = ct_module_load_state_dict(f->root, dsd.items ? &dsd : sd, 1);
            ct__fsdp_swap(f, m, 0);
        }
        CT_FREE(dsd.items);   /* (the names are sd's) */
        if (code) ct__dist_msg(msg, sizeof msg, ct_last_error(), NULL);
    }
    if (st) {
        ct_set_grad_enabled(prev);
        ct_scope_end(s);
        CT_FREE(m);
        return st;
    }
    ct_tensor *flag = ct_scalar_tensor((double)code, CT_INT64);
    st = flag ? ct__fsdp_bcast(f, flag) : ct_last_error_code();
    if (!st) code = ct_item_int(flag);
    ct_state_dict mine = {0, NULL};
    if (!st && code) {
        st = (ct_status)code;
        if (f->g->rank == 0) ct_set_error(st, "%s", msg);
        else ct_set_error(st, "FSDP load_state_dict: rank 0 could not load the state dict");
    }
    if (!st) st = ct_module_state_dict(f->root, &mine);
    /* the units' whole flat parameters, then the buffers */
    for (int i = 0; i < f->nu && !st; i++) st = ct__fsdp_bcast(f, m[i]);
    for (int i = 0; i < mine.n && !st; i++)
        if (!ct__fsdp_is_param(f, mine.items[i].tensor)) st = ct__dist_broadcast_list(f->g, 1, &mine.items[i].tensor);
    for (int i = 0; i < f->nu && !st; i++) {
        ct__fsdp_unit *u = &f->u[i];
        if (f->strategy != CT_FSDP_NO_SHARD) {   /* (NO_SHARD's master is the flat parameter itself) */
            int s2 = ct_scope_begin();
            if (!ct__fsdp_copy(ct_detach(u->local), ct_narrow(m[i], 0, (int64_t)f->g->rank * u->shard, u->shard)))
                st = ct_last_error_code();
            ct_scope_end(s2);
        } else if (m[i]->storage != u->local->storage) {   /* (NO_SHARD offloaded: the master was a copy) */
            int s2 = ct_scope_begin();
            if (!ct__fsdp_copy(ct_detach(u->local), m[i])) st = ct_last_error_code();
            ct_scope_end(s2);
        } else CT__ATOMIC_INC(&u->local->storage->version);
    }
    ct_state_dict_free(&mine);
    ct_set_grad_enabled(prev);
    ct_scope_end(s);
    CT_FREE(m);
    /* gathered parameters of the sharded strategies are stale now */
    for (int i = 0; i < f->nu; i++) ct__fsdp_free_full(&f->u[i]);
    return st;
}
CTENSOR_API ct_status ct_fsdp_load_state_dict(ct_fsdp *f, ct_fsdp_state_dict_type type, const ct_state_dict *sd) {
    static const char *const OP = "FSDP load_state_dict";
    ct_status st = ct__fsdp_sd_check(OP, f, (int)type);
    if (st) return st;
    if (type == CT_FSDP_FULL_STATE_DICT) return ct__fsdp_load_full(f, sd);
    if (!sd) { ct_set_error(CT_ERR_NULL, "%s: the state dict is NULL", OP); return CT_ERR_NULL; }
    return ct__fsdp_load_sharded(f, sd);
}


/* ---- optimizer state dicts ---- */
/* the unit whose shard is the optimizer's parameter t (NULL: none) */
static ct__fsdp_unit *ct__fsdp_unit_of_shard(ct_fsdp *f, const ct_tensor *t) {
    for (int i = 0; i < f->nu; i++)
        if (f->u[i].local == t) return &f->u[i];
    return NULL;
}
/* idx[unit][k]: the index of the unit's k-th parameter among the module's parameters */
static int **ct__fsdp_param_ids(ct_fsdp *f) {
    int n = ct_module_parameters(f->root, NULL, 0);
    ct_tensor **all = (ct_tensor **)CT_MALLOC((size_t)(n ? n : 1) * sizeof *all);
    int **ids = (int **)CT_MALLOC((size_t)(f->nu ? f->nu : 1) * sizeof *ids);
    int ok = all && ids;
    for (int i = 0; ids && i < f->nu; i++) ids[i] = NULL;
    if (ok) ct_module_parameters(f->root, all, n);
    for (int i = 0; ok && i < f->nu; i++) {
        ct__fsdp_unit *u = &f->u[i];
        ids[i] = (int *)CT_MALLOC((size_t)(u->np ? u->np : 1) * sizeof(int));
        if (!ids[i]) { ok = 0; break; }
        for (int k = 0; k < u->np; k++) {
            ids[i][k] = -1;
            for (int j = 0; j < n; j++)
                if (all[j] == u->params[k]) { ids[i][k] = j; break; }
        }
    }
    CT_FREE(all);
    if (!ok) {
        for (int i = 0; ids && i < f->nu; i++) CT_FREE(ids[i]);
        CT_FREE(ids);
        ct_set_error(CT_ERR_MEMORY, "FSDP optimizer state dict: out of memory");
        return NULL;
    }
    return ids;
}
static void ct__fsdp_free_ids(ct_fsdp *f, int **ids) {
    for (int i = 0; ids && i < f->nu; i++) CT_FREE(ids[i]);
    CT_FREE(ids);
}
/* checks that opt's parameters are f's shards; returns the total count (-1: error) */
static int ct__fsdp_optim_check(const char *op, ct_fsdp *f, const ct_optimizer *opt) {
    if (!f || !opt) {
        if (ct_last_error_code() == CT_OK) ct_set_error(CT_ERR_NULL, "%s: the FSDP or the optimizer is NULL", op);
        return -1;
    }
    int total = 0;
    for (int g = 0; g < ct_optim_num_groups(opt); g++)
        for (int i = 0; i < ct_optim_group_size(opt, g); i++, total++)
            if (!ct__fsdp_unit_of_shard(f, ct_optim_param(opt, g, i))) {
                ct_set_error(CT_ERR_ARG, "%s: the optimizer's parameter %d (group %d) is not one of this FSDP's shards "
                             "(build the optimizer over ct_fsdp_parameters)", op, i, g);
                return -1;
            }
    return total;
}
/* "state.<j>.<key>" -> j and key (0 when not of that form) */
static int ct__fsdp_osd_state(const char *name, int *j, const char **key) {
    if (!name || strncmp(name, "state.", 6)) return 0;
    const char *q = name + 6;
    long v = 0;
    if (*q < '0' || *q > '9') return 0;
    while (*q >= '0' && *q <= '9' && v < 100000000L) v = v * 10 + (*q++ - '0');
    if (*q != '.' || !q[1]) return 0;
    *j = (int)v;
    *key = q + 1;
    return 1;
}
static char *ct__fsdp_fmt(const char *fmt, int a, const char *b) {
    char buf[256];
    snprintf(buf, sizeof buf, fmt, a, b);
    return ct__fsdp_strdup(buf);
}
typedef struct ct__fsdp_osd_item { int pid, order; } ct__fsdp_osd_item;
static int ct__fsdp_osd_cmp(const void *a, const void *b) {
    const ct__fsdp_osd_item *x = (const ct__fsdp_osd_item *)a, *y = (const ct__fsdp_osd_item *)b;
    return x->pid != y->pid ? (x->pid < y->pid ? -1 : 1) : (x->order < y->order ? -1 : x->order > y->order);
}
CTENSOR_API ct_status ct_fsdp_full_optim_state_dict(ct_fsdp *f, const ct_optimizer *opt, ct_state_dict *out) {
    static const char *const OP = "FSDP full_optim_state_dict";
    if (!out) { ct_set_error(CT_ERR_NULL, "%s: the output is NULL", OP); return CT_ERR_NULL; }
    out->n = 0;
    out->items = NULL;
    int total = ct__fsdp_optim_check(OP, f, opt);
    if (total < 0) return ct_last_error_code();
    ct_status st = ct__fsdp_sd_check(OP, f, CT_FSDP_FULL_STATE_DICT);
    if (st) return st;
    ct_state_dict mine;
    if ((st = ct_optim_state_dict(opt, &mine))) return st;
    int **ids = ct__fsdp_param_ids(f);
    if (!ids) { ct_state_dict_free(&mine); return CT_ERR_MEMORY; }
    int r0 = f->g->rank == 0, cap = 0;
    int nparams = ct_module_parameters(f->root, NULL, 0);
    for (int e = 0; e < mine.n; e++) {
        int j;
        const char *key;
        if (ct__fsdp_osd_state(mine.items[e].name, &j, &key)) cap += 64;   /* (at most a unit's parameters each; grown below) */
        else cap++;
    }
    cap += nparams * 8 + 16;
    ct_state_dict full = {0, NULL};
    ct__fsdp_osd_item *ord = NULL;
    if (r0) {
        full.items = (ct_named_tensor *)CT_MALLOC((size_t)cap * sizeof *full.items);
        ord = (ct__fsdp_osd_item *)CT_MALLOC((size_t)cap * sizeof *ord);
        if (!full.items || !ord) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; }
    }
    int prev = ct_set_grad_enabled(0), sc = ct_scope_begin();   /* (what rank 0 returns is kept) */
    /* the per-parameter state: each entry of shard j, in the optimizer's order (the same
       on every rank: every rank stepped its shard of every unit) */
    for (int e = 0; e < mine.n && !st; e++) {
        int j, g = 0, i = 0;
        const char *key;
        if (!ct__fsdp_osd_state(mine.items[e].name, &j, &key)) continue;
        for (int t = j; g < ct_optim_num_groups(opt) && t >= ct_optim_group_size(opt, g); g++) t -= ct_optim_group_size(opt, g);
        i = j;
        for (int h = 0; h < g; h++) i -= ct_optim_group_size(opt, h);
        ct__fsdp_unit *u = ct__fsdp_unit_of_shard(f, ct_optim_param(opt, g, i));
        int ui = (int)(u - f->u);
        ct_tensor *t = mine.items[e].tensor, *whole = NULL;
        if (ct_numel(t) == u->shard && t->ndim == 1) {   /* a buffer shaped as the shard: gathered whole */
            if (f->strategy == CT_FSDP_NO_SHARD) whole = t;
            else {
                whole = ct_empty_on_n(t->device, t->dtype, 1, &u->padded);
                if (!whole) st = ct_last_error_code();
                else st = ct__fsdp_all_gather(f, whole, ct_contiguous(t));
            }
        }
        if (st || !r0) continue;
        if (full.n + u->np > cap) {   /* (more state entries than guessed) */
            int nc = 2 * cap + u->np;
            ct_named_tensor *ni = (ct_named_tensor *)CT_REALLOC(full.items, (size_t)nc * sizeof *ni);
            ct__fsdp_osd_item *no = ni ? (ct__fsdp_osd_item *)CT_REALLOC(ord, (size_t)nc * sizeof *no) : NULL;
            if (ni) full.items = ni;
            if (no) { ord = no; cap = nc; }
            else { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; break; }
        }
        for (int k = 0; k < u->np && !st; k++) {
            ct_tensor *v = whole ? ct__fsdp_host_copy(ct_view_n(ct_narrow(whole, 0, u->off[k], ct_numel(u->params[k])),
                                                                u->params[k]->ndim, u->params[k]->shape))
                                 : ct__fsdp_host_copy(t);   /* (step and other per-parameter scalars) */
            ord[full.n].pid = ids[ui][k];
            ord[full.n].order = full.n;
            st = ct__fsdp_sd_push(&full, cap, ct__fsdp_fmt("state.%d.%s", ids[ui][k], key), v ? ct_keep(v) : NULL);
        }
    }
    /* the groups: settings as they are, params: the module's indices of the group's units */
    for (int e = 0; e < mine.n && !st && r0; e++) {
        const char *nm = mine.items[e].name, *dot;
        int j;
        const char *key;
        if (ct__fsdp_osd_state(nm, &j, &key)) continue;
        if (full.n >= cap) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; break; }
        ord[full.n].pid = 1 << 30;
        ord[full.n].order = full.n;
        dot = strrchr(nm, '.');
        if (!dot || strcmp(dot, ".params") || strncmp(nm, "param_groups.", 13)) {
            ct_tensor *v = ct__fsdp_host_copy(mine.items[e].tensor);
            st = ct__fsdp_sd_push(&full, cap, ct__fsdp_strdup(nm), v ? ct_keep(v) : NULL);
            continue;
        }
        int g = atoi(nm + 13), n = 0;
        int64_t cnt = 0;
        for (int i = 0; i < ct_optim_group_size(opt, g); i++) cnt += ct__fsdp_unit_of_shard(f, ct_optim_param(opt, g, i))->np;
        ct_tensor *p = ct_empty_n(CT_INT64, 1, &cnt);
        if (!p) { st = ct_last_error_code(); break; }
        int64_t *pd = (int64_t *)ct_data_ptr(p);
        for (int i = 0; i < ct_optim_group_size(opt, g); i++) {
            ct__fsdp_unit *u = ct__fsdp_unit_of_shard(f, ct_optim_param(opt, g, i));
            for (int k = 0; k < u->np; k++) pd[n++] = ids[u - f->u][k];
        }
        for (int a = 1; a < n; a++)   /* ascending: the module's order */
            for (int b = a; b > 0 && pd[b - 1] > pd[b]; b--) { int64_t x = pd[b]; pd[b] = pd[b - 1]; pd[b - 1] = x; }
        st = ct__fsdp_sd_push(&full, cap, ct__fsdp_strdup(nm), ct_keep(p));
    }
    ct_scope_end(sc);
    ct_set_grad_enabled(prev);
    if (!st && r0) {   /* state entries by parameter index, as ct_optim_state_dict lists them */
        ct_named_tensor *sorted = (ct_named_tensor *)CT_MALLOC((size_t)(full.n ? full.n : 1) * sizeof *sorted);
        if (!sorted) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; }
        else {
            qsort(ord, (size_t)full.n, sizeof *ord, ct__fsdp_osd_cmp);
            for (int e = 0; e < full.n; e++) sorted[e] = full.items[ord[e].order];
            CT_FREE(full.items);
            full.items = sorted;
        }
    }
    CT_FREE(ord);
    ct__fsdp_free_ids(f, ids);
    ct_state_dict_free(&mine);
    if (st) { ct_state_dict_free(&full); return st; }
    *out = full;
    return CT_OK;
}

/* a string from rank 0 to every rank (as a uint8 tensor); *s: CT_MALLOC'd */
static ct_status ct__fsdp_bcast_str(ct_fsdp *f, const char *mine, char **s) {
    ct_process_group *g = f->g;
    *s = NULL;
    ct_tensor *len = ct_scalar_tensor(g->rank == 0 && mine ? (double)strlen(mine) : 0.0, CT_INT64);
    ct_status st = len ? ct__fsdp_bcast(f, len) : ct_last_error_code();
    if (st) return st;
    int64_t n = ct_item_int(len) + 1;
    ct_tensor *b = ct_zeros_n(CT_UINT8, 1, &n);
    if (!b) return ct_last_error_code();
    if (g->rank == 0 && mine) memcpy(ct_data_ptr(b), mine, (size_t)n - 1);
    if ((st = ct__fsdp_bcast(f, b))) return st;
    *s = (char *)CT_MALLOC((size_t)n);
    if (!*s) { ct_set_error(CT_ERR_MEMORY, "FSDP load_full_optim_state_dict: out of memory"); return CT_ERR_MEMORY; }
    memcpy(*s, ct_data_ptr(b), (size_t)n);
    (*s)[n - 1] = 0;
    return CT_OK;
}
static const ct_tensor *ct__fsdp_osd_find(const ct_state_dict *sd, const char *fmt, int a, const char *b) {
    char name[256];
    snprintf(name, sizeof name, fmt, a, b);
    return ct__fsdp_sd_find(sd, name);
}
CTENSOR_API ct_status ct_fsdp_load_full_optim_state_dict(ct_fsdp *f, ct_optimizer *opt, const ct_state_dict *sd) {
    static const char *const OP = "FSDP load_full_optim_state_dict";
    int total = ct__fsdp_optim_check(OP, f, opt);
    if (total < 0) return ct_last_error_code();
    ct_status st = ct__fsdp_sd_check(OP, f, CT_FSDP_FULL_STATE_DICT);
    if (st) return st;
    int r0 = f->g->rank == 0;
    int **ids = ct__fsdp_param_ids(f);
    if (!ids) return CT_ERR_MEMORY;
    ct_state_dict mine = {0, NULL}, local = {0, NULL};
    int s = ct_scope_begin(), prev = ct_set_grad_enabled(0), cap = 0;
    char msg[320] = "", *keys = NULL;
    /* rank 0: the state keys of the first parameter that has state ("" when none has:
       an optimizer that never stepped), checked for every parameter */
    int64_t code = 0;
    char klist[512] = "";
    if (r0) {
        if (!sd) code = (ct_set_error(CT_ERR_NULL, "%s: the state dict is NULL on rank 0", OP), CT_ERR_NULL);
        for (int e = 0; !code && e < sd->n && !klist[0]; e++) {
            int j;
            const char *key;
            if (!ct__fsdp_osd_state(sd->items[e].name, &j, &key)) continue;
            for (int q = e; q < sd->n; q++) {
                int j2;
                const char *k2;
                if (ct__fsdp_osd_state(sd->items[q].name, &j2, &k2) && j2 == j && strlen(klist) + strlen(k2) + 2 < sizeof klist) {
                    if (klist[0]) strcat(klist, ",");
                    strcat(klist, k2);
                }
            }
        }
        for (int i = 0; !code && i < f->nu; i++)
            for (int k = 0; !code && k < f->u[i].np; k++) {
                const char *p = klist;
                while (!code && *p) {
                    char key[128];
                    size_t n = strcspn(p, ",");
                    snprintf(key, sizeof key, "%.*s", (int)(n < 127 ? n : 127), p);
                    const ct_tensor *t = ct__fsdp_osd_find(sd, "state.%d.%s", ids[i][k], key);
                    if (!t) code = (ct_set_error(CT_ERR_ARG, "%s: missing key 'state.%d.%s'", OP, ids[i][k], key), CT_ERR_ARG);
                    else if (strcmp(key, "step") && ct_numel(t) != ct_numel(f->u[i].params[k]))
                        code = (ct_set_error(CT_ERR_SHAPE, "%s: 'state.%d.%s' has %lld elements, the parameter %lld", OP, ids[i][k], key,
                                             (long long)ct_numel(t), (long long)ct_numel(f->u[i].params[k])), CT_ERR_SHAPE);
                    p += n + (p[n] == ',');
                }
            }
        if (code) ct__dist_msg(msg, sizeof msg, ct_last_error(), NULL);
    }
    ct_tensor *flag = ct_scalar_tensor((double)code, CT_INT64);
    st = flag ? ct__fsdp_bcast(f, flag) : ct_last_error_code();
    if (!st && (code = ct_item_int(flag))) {
        st = (ct_status)code;
        if (r0) ct_set_error(st, "%s", msg);
        else ct_set_error(st, "%s: rank 0 could not load the state dict", OP);
    }
    if (!st) st = ct__fsdp_bcast_str(f, klist, &keys);
    /* this rank's own state dict: the groups' settings from rank 0 (this optimizer's own
       keys, its own params lists), the state cut from rank 0's parameters */
    if (!st) st = ct_optim_state_dict(opt, &mine);
    if (!st) {
        cap = mine.n + total * 8 + 8;
        local.items = (ct_named_tensor *)CT_MALLOC((size_t)cap * sizeof *local.items);
        if (!local.items) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; }
    }
    for (int e = 0; e < mine.n && !st; e++) {
        int j;
        const char *key, *nm = mine.items[e].name, *dot = strrchr(nm, '.');
        if (ct__fsdp_osd_state(nm, &j, &key)) continue;
        ct_tensor *v = ct_clone(mine.items[e].tensor);
        if (!v) { st = ct_last_error_code(); break; }
        if (!(dot && !strcmp(dot, ".params"))) {
            const ct_tensor *src = r0 ? ct__fsdp_sd_find(sd, nm) : NULL;
            int64_t ok = !r0 || (src && ct_numel(src) == ct_numel(v));
            ct_tensor *okt = ct_scalar_tensor((double)ok, CT_INT64);
            if (!okt || (st = ct__fsdp_bcast(f, okt))) { if (!st) st = ct_last_error_code(); break; }
            if (!ct_item_int(okt)) {
                st = CT_ERR_ARG;
                if (r0) ct_set_error(st, "%s: missing or mis-shaped key '%s' (another optimizer?)", OP, nm);
                else ct_set_error(st, "%s: rank 0 could not load the state dict", OP);
                break;
            }
            if (r0 && !ct__fsdp_copy(v, src)) { st = ct_last_error_code(); break; }
            if ((st = ct__fsdp_bcast(f, v))) break;
        }
        st = ct__fsdp_sd_push(&local, cap, ct__fsdp_strdup(nm), v);
    }
    for (int j = 0, g = 0; g < ct_optim_num_groups(opt) && !st; g++)
        for (int i = 0; i < ct_optim_group_size(opt, g) && !st; i++, j++) {
            ct__fsdp_unit *u = ct__fsdp_unit_of_shard(f, ct_optim_param(opt, g, i));
            int ui = (int)(u - f->u);
            const char *p = keys;
            while (*p && !st) {
                char key[128];
                size_t n = strcspn(p, ",");
                snprintf(key, sizeof key, "%.*s", (int)(n < 127 ? n : 127), p);
                p += n + (p[n] == ',');
                ct_tensor *v;
                if (!strcmp(key, "step")) {   /* a scalar: rank 0's first parameter's */
                    v = ct_zeros_n(CT_FLOAT64, 0, NULL);
                    if (v && r0) ct__fsdp_copy(v, ct__fsdp_osd_find(sd, "state.%d.%s", ids[ui][0], key));
                } else {   /* the unit's flat buffer, from rank 0's parameters; then this rank's shard */
                    v = ct_zeros_n(u->dt, 1, &u->padded);
                    for (int k = 0; v && r0 && k < u->np; k++)
                        if (!ct__fsdp_copy(ct_narrow(v, 0, u->off[k], ct_numel(u->params[k])),
                                      ct_flatten(ct__fsdp_osd_find(sd, "state.%d.%s", ids[ui][k], key), 0, -1)))
                            v = NULL;
                }
                if (!v) { st = ct_last_error_code() ? ct_last_error_code() : CT_ERR_MEMORY; break; }
                if ((st = ct__fsdp_bcast(f, v))) break;
                if (strcmp(key, "step") && f->strategy != CT_FSDP_NO_SHARD) v = ct_narrow(v, 0, (int64_t)f->g->rank * u->shard, u->shard);
                if (v && strcmp(key, "step") && !ct_device_eq(v->device, u->local->device)) v = ct_to_device(v, u->local->device);
                if (local.n >= cap) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); st = CT_ERR_MEMORY; break; }
                st = ct__fsdp_sd_push(&local, cap, ct__fsdp_fmt("state.%d.%s", j, key), v);
            }
        }
    if (!st) st = ct_optim_load_state_dict(opt, &local);
    CT_FREE(keys);
    ct_state_dict_free(&local);
    ct_state_dict_free(&mine);
    ct_set_grad_enabled(prev);
    ct_scope_end(s);
    ct__fsdp_free_ids(f, ids);
    return st;
}

#endif /* CTENSOR_DIST_IMPLEMENTATION_DONE */
#endif /* CTENSOR_DIST_IMPLEMENTATION */

/* ============================================================================
   The MPI backend (Open MPI): non-blocking MPI-3 collectives on a duplicate of
   MPI_COMM_WORLD with MPI_ERRORS_RETURN, polled with MPI_Test, so that a wait can
   give up at its timeout. all_gather and reduce_scatter are point-to-point messages
   on a second duplicate (every rank sends each peer its part at once; the reduction
   is MPI_Reduce_local when they have landed), 3x to 20x faster than Open MPI's
   MPI_Iallgather / MPI_Ireduce_scatter_block at FSDP's sizes here. all_reduce is
   point to point too: a ring reduce-scatter then all-gather (2(W-1) steps of 1/W of
   the buffer), or for a small buffer one exchange of the whole buffer with every
   peer; each step is moved on by the next test/wait (DDP's gradient hooks test
   their buckets), and every rank ends with the same bytes (each chunk is reduced in
   one fixed order, on one rank, and copied to the others). MPI is started
   here unless the program started it.
   ========================================================================== */
#if (defined(CTENSOR_MPI) && defined(CTENSOR_DIST_IMPLEMENTATION)) || defined(CTENSOR_DIST_MPI_IMPLEMENTATION)
#ifndef CTENSOR_DIST_MPI_DONE
#define CTENSOR_DIST_MPI_DONE
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1      /* Open MPI's deprecated C++ bindings: not used, and they warn */
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ct__mpi_state {
    MPI_Comm comm;
    MPI_Comm coll;              /* the point-to-point collectives' messages (apart from send/recv's tags) */
    int started_mpi;            /* this group called MPI_Init */
    unsigned seq;               /* all_reduces started (the same on every rank): their tags */
} ct__mpi_state;

static int ct__mpi_err(const char *call, int rc) {
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS) snprintf(s, sizeof s, "error %d", rc);
    ct_set_error(CT_ERR_STATE, "%s failed: %s", call, s);
    return -1;
}
static MPI_Datatype ct__mpi_type(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT32: return MPI_FLOAT;
    case CT_FLOAT64: return MPI_DOUBLE;
    case CT_FLOAT16: case CT_BFLOAT16: return MPI_UINT16_T;    /* moved, never reduced */
    case CT_INT64: return MPI_INT64_T;
    case CT_INT32: return MPI_INT32_T;
    case CT_INT16: return MPI_INT16_T;
    case CT_INT8: return MPI_INT8_T;
    case CT_UINT8: case CT_BOOL: return MPI_UINT8_T;
    default: return MPI_DATATYPE_NULL;
    }
}
static MPI_Op ct__mpi_op(ct_reduce_op op, ct_dtype dt) {
    if (dt == CT_BOOL) return op == CT_REDUCE_SUM || op == CT_REDUCE_MAX ? MPI_BOR : MPI_BAND;
    switch (op) {
    case CT_REDUCE_MAX: return MPI_MAX;
    case CT_REDUCE_MIN: return MPI_MIN;
    case CT_REDUCE_PRODUCT: return MPI_PROD;
    default: return MPI_SUM;
    }
}
static int ct__mpi_count(const char *op, int64_t n) {
    if (n > INT_MAX) {
        ct_set_error(CT_ERR_UNSUPPORTED, "%s: %lld elements exceed MPI's count limit of one message (%d)", op, (long long)n, INT_MAX);
        return -1;
    }
    return 0;
}
/* the backend's request handle: one or more MPI requests and, for a reduce-scatter
   done point to point, the local reduction that follows them */
typedef struct ct__mpi_request {
    int n;                      /* requests in r */
    MPI_Request *r;
    void *out, *tmp;            /* reduce-scatter: the output (holds the first peer's chunk), the others' chunks */
    const void *own;            /* ... this rank's chunk of the input */
    int ntmp, count;
    size_t bytes;               /* one chunk's */
    MPI_Datatype type;
    MPI_Op op;
    MPI_Request one;            /* (r for a single request) */
    /* all_reduce point to point (ar: 1 ring, 2 direct exchange) */
    int ar, W, R, step, nsteps, tag;
    char *buf;                  /* the caller's buffer, reduced in place */
    int64_t nel;                /* its elements */
    size_t esize;
    MPI_Comm comm;
} ct__mpi_request;
static ct__mpi_request *ct__mpi_req_n(int n) {
    ct__mpi_request *q = (ct__mpi_request *)malloc(sizeof *q);
    if (q) {
        memset(q, 0, sizeof *q);
        q->n = n;
        q->r = n <= 1 ? &q->one : (MPI_Request *)malloc((size_t)n * sizeof(MPI_Request));
        if (!q->r) { free(q); q = NULL; }
    }
    if (!q) { ct_set_error(CT_ERR_MEMORY, "mpi: out of memory"); return NULL; }
    for (int i = 0; i < n; i++) q->r[i] = MPI_REQUEST_NULL;
    return q;
}
static void ct__mpi_req_free(ct__mpi_request *q) {
    if (!q) return;
    if (q->r != &q->one) free(q->r);
    free(q->tmp);
    free(q);
}
static ct__mpi_request *ct__mpi_req(void) { return ct__mpi_req_n(1); }
#define CT__MPI_START(call, expr)                                 \
    ct__mpi_request *q = ct__mpi_req();                           \
    if (!q) return -1;                                            \
    MPI_Request *r = q->r;                                        \
    int rc = (expr);                                              \
    if (rc != MPI_SUCCESS) { ct__mpi_req_free(q); return ct__mpi_err(call, rc); } \
    *req = q;                                                     \
    return 0;
/* a failed start of a point-to-point composite: what was posted stays with MPI (it
   cannot be cancelled safely once matched), the handle goes */
static int ct__mpi_p2p_fail(ct__mpi_request *q, const char *call, int rc) {
    ct__mpi_req_free(q);
    return ct__mpi_err(call, rc);
}
static int ct__mpi_init(void **state, int *rank, int *world) {
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (finalized) {
        ct_set_error(CT_ERR_STATE, "init_process_group: MPI was already finalized in this process");
        return -1;
    }
    ct__mpi_state *s = (ct__mpi_state *)malloc(sizeof *s);
    if (!s) { ct_set_error(CT_ERR_MEMORY, "init_process_group: out of memory"); return -1; }
    s->started_mpi = 0;
    s->seq = 0;
    if (!inited) {
        int provided = 0;
        int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        if (rc != MPI_SUCCESS) { free(s); return ct__mpi_err("init_process_group: MPI_Init_thread", rc); }
        s->started_mpi = 1;
    }
    int rc = MPI_Comm_dup(MPI_COMM_WORLD, &s->comm);
    if (rc != MPI_SUCCESS) { free(s); return ct__mpi_err("init_process_group: MPI_Comm_dup", rc); }
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &s->coll);
    if (rc != MPI_SUCCESS) { MPI_Comm_free(&s->comm); free(s); return ct__mpi_err("init_process_group: MPI_Comm_dup", rc); }
    MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(s->coll, MPI_ERRORS_RETURN);
    MPI_Comm_rank(s->comm, rank);
    MPI_Comm_size(s->comm, world);
    *state = s;
    return 0;
}
static void ct__mpi_shutdown(void *state, int broken) {
    ct__mpi_state *s = (ct__mpi_state *)state;
    if (!s) return;
    /* a broken group may have a peer gone: freeing the communicator could wait for it */
    if (!broken) {
        MPI_Comm_free(&s->comm);
        MPI_Comm_free(&s->coll);
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (s->started_mpi && !finalized) MPI_Finalize();
    free(s);
}
/* all_reduce on MPI_Isend / MPI_Irecv (Open MPI's MPI_Iallreduce, libnbc, moves on
   round by round only inside MPI calls, with its own buffers: DDP's step spent most of
   its time there). A buffer of at most CT__MPI_AR_DIRECT bytes: every rank sends it
   to every peer at once and reduces the W copies in rank order. A larger one: a ring
   (chunk c = elements [c*n/W, (c+1)*n/W)); reduce-scatter steps s = 0..W-2 send chunk
   R-s to rank R+1 and reduce chunk R-s-1, received from R-1, into the buffer; after
   them rank R holds chunk R+1 complete; all-gather steps t = 0..W-2 send chunk R+1-t
   and receive chunk R-t in place. Chunk c is reduced along the ring from rank c, in
   one order, on one rank: every rank gets the same bytes. Steps move on in test. */
#ifndef CT__MPI_AR_DIRECT
#define CT__MPI_AR_DIRECT 65536
#endif
static int64_t ct__mpi_ar_lo(const ct__mpi_request *q, int c) {   /* c in 0..W-1 */
    return (int64_t)c * q->nel / q->W;
}
static int ct__mpi_ar_len(const ct__mpi_request *q, int c) {
    return (int)(ct__mpi_ar_lo(q, c + 1) - ct__mpi_ar_lo(q, c));
}
/* posts step q->step's receive and send */
static int ct__mpi_ar_post(ct__mpi_request *q) {
    int R = q->R, W = q->W, s = q->step, next = (R + 1) % W, prev = (R - 1 + W) % W, rc;
    int sc, rcv;                /* the chunks sent and received */
    if (s < W - 1) { sc = R - s; rcv = R - s - 1; }
    else { sc = R + 1 - (s - (W - 1)); rcv = R - (s - (W - 1)); }
    sc = ((sc % W) + W) % W;
    rcv = ((rcv % W) + W) % W;
    void *into = s < W - 1 ? q->tmp : (void *)(q->buf + (size_t)ct__mpi_ar_lo(q, rcv) * q->esize);
    rc = MPI_Irecv(into, ct__mpi_ar_len(q, rcv), q->type, prev, q->tag, q->comm, &q->r[0]);
    if (rc != MPI_SUCCESS) return ct__mpi_err("all_reduce: MPI_Irecv", rc);
    rc = MPI_Isend(q->buf + (size_t)ct__mpi_ar_lo(q, sc) * q->esize, ct__mpi_ar_len(q, sc), q->type, next, q->tag, q->comm,
                   &q->r[1]);
    if (rc != MPI_SUCCESS) return ct__mpi_err("all_reduce: MPI_Isend", rc);
    return 0;
}
static int ct__mpi_all_reduce(void *state, void *buf, int64_t n, ct_dtype dt, ct_reduce_op op, void **req) {
    ct__mpi_state *s = (ct__mpi_state *)state;
    if (ct__mpi_count("all_reduce", n)) return -1;
    int R = 0, W = 1;
    MPI_Comm_rank(s->coll, &R);
    MPI_Comm_size(s->coll, &W);
    size_t es = ct_dtype_size(dt), bytes = (size_t)n * es;
    if (W == 1 || n == 0) { *req = NULL; return 0; }
    int direct = bytes <= CT__MPI_AR_DIRECT || n < W;
    ct__mpi_request *q = ct__mpi_req_n(direct ? 2 * (W - 1) : 2);
    if (!q) return -1;
    q->ar = direct ? 2 : 1;
    q->W = W;
    q->R = R;
    q->buf = (char *)buf;
    q->nel = n;
    q->esize = es;
    q->count = (int)n;
    q->bytes = bytes;
    q->type = ct__mpi_type(dt);
    q->op = ct__mpi_op(op, dt);
    q->comm = s->coll;
    q->tag = 2 + (int)(s->seq++ % 30000u);    /* 0 and 1: all_gather, reduce_scatter; MPI_TAG_UB >= 32767 */
    size_t tb = direct ? (size_t)W * bytes : (size_t)(n / W + 1) * es;
    if (!(q->tmp = malloc(tb))) {
        ct__mpi_req_free(q);
        ct_set_error(CT_ERR_MEMORY, "all_reduce: out of memory (%zu bytes)", tb);
        return -1;
    }
    if (direct) {               /* rank r's copy lands in tmp slot r */
        int k = 0;
        for (int j = 1; j < W; j++) {
            int src = (R - j + W) % W;
            int rc = MPI_Irecv((char *)q->tmp + (size_t)src * bytes, (int)n, q->type, src, q->tag, q->comm, &q->r[k++]);
            if (rc != MPI_SUCCESS) return ct__mpi_p2p_fail(q, "all_reduce: MPI_Irecv", rc);
        }
        for (int j = 1; j < W; j++) {
            int rc = MPI_Isend(buf, (int)n, q->type, (R + j) % W, q->tag, q->comm, &q->r[k++]);
            if (rc != MPI_SUCCESS) return ct__mpi_p2p_fail(q, "all_reduce: MPI_Isend", rc);
        }
        q->nsteps = 1;
    } else {
        q->nsteps = 2 * (W - 1);
        if (ct__mpi_ar_post(q)) { ct__mpi_req_free(q); return -1; }
    }
    *req = q;
    return 0;
}
/* moves an all_reduce on: 0 and *done, or -1 (error set; q freed by the caller) */
static int ct__mpi_ar_test(ct__mpi_request *q, int *done) {
    for (;;) {
        int rc = MPI_Testall(q->n, q->r, done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) return ct__mpi_err("all_reduce: MPI_Testall", rc);
        if (!*done) return 0;
        if (q->ar == 2) {       /* buf = copy 0 op copy 1 op ... (rank order) */
            char *own = (char *)q->tmp + (size_t)q->R * q->bytes;
            memcpy(own, q->buf, q->bytes);
            memcpy(q->buf, q->tmp, q->bytes);
            for (int r = 1; r < q->W && rc == MPI_SUCCESS; r++)
                rc = MPI_Reduce_local((char *)q->tmp + (size_t)r * q->bytes, q->buf, q->count, q->type, q->op);
        } else if (q->step < q->W - 1) {   /* the received partial chunk R-s-1 op= this rank's */
            int c = ((q->R - q->step - 1) % q->W + q->W) % q->W;
            rc = MPI_Reduce_local(q->tmp, q->buf + (size_t)ct__mpi_ar_lo(q, c) * q->esize, ct__mpi_ar_len(q, c), q->type, q->op);
        }
        if (rc != MPI_SUCCESS) return ct__mpi_err("all_reduce: MPI_Reduce_local", rc);
        if (++q->step == q->nsteps) return 0;
        *done = 0;
        if (ct__mpi_ar_post(q)) return -1;
    }
}
static int ct__mpi_broadcast(void *state, void *buf, int64_t n, ct_dtype dt, int root, void **req) {
    ct__mpi_state *s = (ct__mpi_state *)state;
    if (ct__mpi_count("broadcast", n)) return -1;
    CT__MPI_START("broadcast: MPI_Ibcast", MPI_Ibcast(buf, (int)n, ct__mpi_type(dt), root, s->comm, r))
}
/* all_gather and reduce_scatter point to point: every rank sends each peer its part
   at once (Open MPI's non-blocking collectives of libnbc go round by round, each
   round moved on only inside an MPI call: a 25 MB reduce-scatter took 10x an
   all-reduce of the same buffer on this machine, see bench/RESULTS.md) */
static int ct__mpi_all_gather(void *state, const void *in, void *out, int64_t n, ct_dtype dt, void **req) {
    ct__mpi_state *s = (ct__mpi_state *)state;
    if (ct__mpi_count("all_gather", n)) return -1;
    int R = 0, W = 1;
    MPI_Comm_rank(s->coll, &R);
    MPI_Comm_size(s->coll, &W);
    ct__mpi_request *q = ct__mpi_req_n(2 * (W - 1));
    if (!q) return -1;
    MPI_Datatype t = ct__mpi_type(dt);
    size_t bytes = (size_t)n * ct_dtype_size(dt);
    int k = 0;
    for (int j = 1; j < W; j++) {   /* receives first: a matched send then lands in place */
        int src = (R - j + W) % W;
        int rc = MPI_Irecv((char *)out + (size_t)src * bytes, (int)n, t, src, 0, s->coll, &q->r[k++]);
        if (rc != MPI_SUCCESS) return ct__mpi_p2p_fail(q, "all_gather: MPI_Irecv", rc);
    }
    for (int j = 1; j < W; j++) {
        int dst = (R + j) % W;
        int rc = MPI_Isend(in, (int)n, t, dst, 0, s->coll, &q->r[k++]);
        if (rc != MPI_SUCCESS) return ct__mpi_p2p_fail(q, "all_gather: MPI_Isend", rc);
    }
    if ((char *)out + (size_t)R * bytes != (const char *)in) memmove((char *)out + (size_t)R * bytes, in, bytes);
    *req = q;
    return 0;
}
static int ct__mpi_reduce_scatter(void *state, const void *in, void *out, int64_t n, ct_dtype dt, ct_reduce_op op, void **req) {
    ct__mpi_state *s = (ct__mpi_state *)state;
    if (ct__mpi_count("reduce_scatter", n)) return -1;
    int R = 0, W = 1;
    MPI_Comm_rank(s->coll, &R);
    MPI_Comm_size(s->coll, &W);
    size_t bytes = (size_t)n * ct_dtype_size(dt);
    if (W == 1) {
        if (out != in) memmove(out, in, bytes);
        *req = NULL;
        return 0;
    }
    ct__mpi_request *q = ct__mpi_req_n(2 * (W - 1));
    if (!q) return -1;
    q->out = out;
    q->own = (const char *)in + (size_t)R * bytes;
    q->count = (int)n;
    q->bytes = bytes;
    q->type = ct__mpi_type(dt);
    q->op = ct__mpi_op(op, dt);
    q->ntmp = W - 2;
    if (q->ntmp && !(q->tmp = malloc((size_t)q->ntmp * bytes))) {
        ct__mpi_req_free(q);
        ct_set_error(CT_ERR_MEMORY, "reduce_scatter: out of memory (%zu bytes)", (size_t)(W - 2) * bytes);
        return -1;
    }
    int k = 0;
    for (int j = 1; j < W; j++) {   /* rank R-1's chunk into out, the others' into tmp */
        int src = (R - j + W) % W;
        void *dst = j == 1 ? out : (char *)q->tmp + (size_t)(j - 2) * bytes;
        int rc = MPI_Irecv(dst, (int)n, q->type, src, 1, s->coll, &q->r[k++]);
        if (rc != MPI_SUCCESS) return ct__mpi_p2p_fail(q, "reduce_scatter: MPI_Irecv", rc);
    }
    for (int j = 1; j < W; j++) {
        int dst = (R + j) % W;
        int rc = MPI_Isend((const char *)in + (size_t)dst * bytes, (int)n, q->type, dst, 1, s->coll, &q->r[k++]);
        if (rc != MPI_SUCCESS) return ct__mpi_p2p_fail(q, "reduce_scatter: MPI_Isend", rc);
    }
    *req = q;
    return 0;
}
static int ct__mpi_barrier(void *state, void **req) {
    ct__mpi_state *s = (ct__mpi_state *)state;
    CT__MPI_START("barrier: MPI_Ibarrier", MPI_Ibarrier(s->comm, r))
}
static int ct__mpi_send(void *state, const void *buf, int64_t n, ct_dtype dt, int dst, int tag, void **req) {
    ct__mpi_state *s = (ct__mpi_state *)state;
    if (ct__mpi_count("send", n)) return -1;
    CT__MPI_START("send: MPI_Isend", MPI_Isend(buf, (int)n, ct__mpi_type(dt), dst, tag, s->comm, r))
}
static int ct__mpi_recv(void *state, void *buf, int64_t n, ct_dtype dt, int src, int tag, void **req) {
    ct__mpi_state *s = (ct__mpi_state *)state;
    if (ct__mpi_count("recv", n)) return -1;
    CT__MPI_START("recv: MPI_Irecv", MPI_Irecv(buf, (int)n, ct__mpi_type(dt), src, tag, s->comm, r))
}
static int ct__mpi_test(void *state, void *req, int *done) {
    (void)state;
    ct__mpi_request *q = (ct__mpi_request *)req;
    if (q->ar) {
        if (ct__mpi_ar_test(q, done)) { ct__mpi_req_free(q); *done = 1; return -1; }
        if (*done) ct__mpi_req_free(q);
        return 0;
    }
    int rc = q->n == 1 ? MPI_Test(q->r, done, MPI_STATUS_IGNORE)   /* a receive of the wrong size fails here */
                       : MPI_Testall(q->n, q->r, done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
        const char *call = q->n == 1 ? "MPI_Test" : "MPI_Testall";
        ct__mpi_req_free(q);
        *done = 1;
        return ct__mpi_err(call, rc);
    }
    if (*done && q->out) {   /* reduce-scatter: out (the previous rank's chunk) op= own, op= the others' */
        rc = MPI_Reduce_local(q->own, q->out, q->count, q->type, q->op);
        for (int i = 0; rc == MPI_SUCCESS && i < q->ntmp; i++)
            rc = MPI_Reduce_local((char *)q->tmp + (size_t)i * q->bytes, q->out, q->count, q->type, q->op);
        if (rc != MPI_SUCCESS) { ct__mpi_req_free(q); return ct__mpi_err("reduce_scatter: MPI_Reduce_local", rc); }
    }
    if (*done) ct__mpi_req_free(q);
    return 0;
}
/* the receive buffers of abandoned transfers: a late message may still land in them,
   so they are never freed, but kept reachable (no leak report) to the end */
static void **ct__mpi_kept;
static size_t ct__mpi_nkept, ct__mpi_capkept;
static void ct__mpi_keep(void *p) {
    if (!p) return;
    if (ct__mpi_nkept == ct__mpi_capkept) {
        size_t nc = ct__mpi_capkept ? 2 * ct__mpi_capkept : 8;
        void **nk = (void **)realloc(ct__mpi_kept, nc * sizeof *nk);
        if (!nk) return;   /* (out of memory: then it is only never freed) */
        ct__mpi_kept = nk;
        ct__mpi_capkept = nc;
    }
    ct__mpi_kept[ct__mpi_nkept++] = p;
}
static void ct__mpi_abandon(void *state, void *req) {
    (void)state;
    /* the requests stay with MPI (collectives cannot be cancelled); the handle is dropped */
    ct__mpi_request *q = (ct__mpi_request *)req;
    if (q) { ct__mpi_keep(q->tmp); q->tmp = NULL; ct__mpi_req_free(q); }
}
static const ct_dist_backend ct__dist_mpi = {
    "mpi", ct__mpi_init, ct__mpi_shutdown, ct__mpi_all_reduce, ct__mpi_broadcast, ct__mpi_all_gather,
    ct__mpi_reduce_scatter, ct__mpi_barrier, ct__mpi_send, ct__mpi_recv, ct__mpi_test, ct__mpi_abandon, CT_CPU, NULL};
#if defined(CTENSOR_MPI) && defined(CTENSOR_DIST_IMPLEMENTATION)
static const ct_dist_backend *ct__dist_mpi_backend(void) { return &ct__dist_mpi; }
#endif
CTENSOR_API ct_status ct_dist_mpi_register(void) { return ct_dist_register_backend(&ct__dist_mpi); }
/* registered at program start (the file that holds only the MPI backend needs it) */
#if defined(__cplusplus)
static const int ct__dist_mpi_registered = (ct_dist_mpi_register(), 1);
#elif defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void ct__dist_mpi_autoregister(void) { ct_dist_mpi_register(); }
#endif
#endif /* CTENSOR_DIST_MPI_DONE */
#endif

/* ============================================================================
   The NCCL backend (CTENSOR_NCCL with the implementation, or a file of its own with
   CTENSOR_DIST_NCCL_IMPLEMENTATION): torch.distributed's "nccl" on CUDA tensors.
   Needs ctensor_cuda.h before this header (CTENSOR_CUDA), cuda_runtime.h, nccl.h and
   MPI (the bootstrap: rank 0's ncclUniqueId is broadcast over MPI_COMM_WORLD, so the
   program starts under mpirun); link -lnccl -lcudart and MPI's libraries.
     - Each rank takes CUDA device (its node-local rank) % (the device count) and makes
       it the current device (ct_cuda_current_device() says which, after
       ct_dist_init_process_group("nccl")).
     - Collectives are queued on the group's own CUDA stream, a blocking one: it
       orders itself with the legacy default stream, which is ctensor's default
       stream (work queued there before a collective runs before it; work queued
       after its wait runs after it). When the calling thread has another current
       stream (ct_cuda_set_stream), that stream is synchronized first.
     - Completion is a CUDA event recorded after the NCCL call: ct_work_test asks
       cudaEventQuery and ncclCommGetAsyncError; errors carry ncclGetErrorString's
       text. A wait that times out aborts the communicator (ncclCommAbort, as
       PyTorch's NCCL watchdog does): the group is broken from then on.
     - send/recv ignore the tag (NCCL has none; PyTorch's NCCL group ignores it too).
       int16 has no NCCL type: reductions of it fail; moves (broadcast, all_gather,
       send/recv) go as bytes.
   ========================================================================== */
#if (defined(CTENSOR_NCCL) && defined(CTENSOR_DIST_IMPLEMENTATION)) || defined(CTENSOR_DIST_NCCL_IMPLEMENTATION)
#ifndef CTENSOR_DIST_NCCL_DONE
#define CTENSOR_DIST_NCCL_DONE
#ifndef CTENSOR_CUDA_H_INCLUDED
#  error "ctensor_dist.h: the NCCL backend needs ctensor_cuda.h (define CTENSOR_CUDA and include it before ctensor_dist.h)"
#endif
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ct__nccl_state {
    ncclComm_t comm;
    cudaStream_t stream;        /* the collectives' stream (blocking: ordered with the legacy default stream) */
    float *scratch;             /* one float on the device: the barrier's all-reduce */
    MPI_Comm mpi;               /* the bootstrap's communicator */
    int device, started_mpi, aborted;
} ct__nccl_state;
static int ct__nccl_fail(const char *op, const char *call, ncclResult_t r) {
    ct_set_error(CT_ERR_STATE, "%s: %s failed: %s (NCCL error %d)", op, call, ncclGetErrorString(r), (int)r);
    return -1;
}
static int ct__nccl_cuda_fail(const char *op, const char *call, cudaError_t e) {
    ct_set_error(CT_ERR_DEVICE, "%s: %s failed: %s", op, call, cudaGetErrorString(e));
    return -1;
}
/* the reducing type of a dtype (-1: none), and the moving one (bytes for any dtype) */
static int ct__nccl_type(ct_dtype dt) {
    switch (dt) {
    case CT_FLOAT32: return (int)ncclFloat32;
    case CT_FLOAT64: return (int)ncclFloat64;
    case CT_FLOAT16: return (int)ncclFloat16;
    case CT_BFLOAT16: return (int)ncclBfloat16;
    case CT_INT64: return (int)ncclInt64;
    case CT_INT32: return (int)ncclInt32;
    case CT_INT8: return (int)ncclInt8;
    case CT_UINT8: case CT_BOOL: return (int)ncclUint8;
    default: return -1;
    }
}
static ncclRedOp_t ct__nccl_op(ct_reduce_op op, ct_dtype dt) {
    if (dt == CT_BOOL) return op == CT_REDUCE_SUM || op == CT_REDUCE_MAX ? ncclMax : ncclMin;   /* or / and of 0 and 1 */
    switch (op) {
    case CT_REDUCE_MAX: return ncclMax;
    case CT_REDUCE_MIN: return ncclMin;
    case CT_REDUCE_PRODUCT: return ncclProd;
    default: return ncclSum;
    }
}
/* before a call: the group usable, its device current, the caller's stream drained
   when it is not the default stream */
static int ct__nccl_pre(ct__nccl_state *s, const char *op) {
    if (s->aborted) {
        ct_set_error(CT_ERR_STATE, "%s: the NCCL communicator was aborted (a timeout or an error)", op);
        return -1;
    }
    cudaError_t e = cudaSetDevice(s->device);
    if (e != cudaSuccess) return ct__nccl_cuda_fail(op, "cudaSetDevice", e);
    ct_cuda_stream *cur = ct_cuda_current_stream(s->device);
    if (cur && cur != ct_cuda_default_stream(s->device) && ct_cuda_stream_synchronize(cur)) return -1;
    return 0;
}
/* after the NCCL call: its result, then the completion event as the request */
static int ct__nccl_post(ct__nccl_state *s, const char *op, const char *call, ncclResult_t r, void **req) {
    if (r != ncclSuccess) return ct__nccl_fail(op, call, r);
    cudaEvent_t ev;
    cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e != cudaSuccess) return ct__nccl_cuda_fail(op, "cudaEventCreateWithFlags", e);
    e = cudaEventRecord(ev, s->stream);
    if (e != cudaSuccess) {
        cudaEventDestroy(ev);
        return ct__nccl_cuda_fail(op, "cudaEventRecord", e);
    }
    *req = (void *)ev;
    return 0;
}
static int ct__nccl_init(void **state, int *rank, int *world) {
    static const char *const OP = "init_process_group (nccl)";
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (finalized) {
        ct_set_error(CT_ERR_STATE, "%s: MPI was already finalized in this process (NCCL is bootstrapped over MPI)", OP);
        return -1;
    }
    ct__nccl_state *s = (ct__nccl_state *)malloc(sizeof *s);
    if (!s) { ct_set_error(CT_ERR_MEMORY, "%s: out of memory", OP); return -1; }
    memset(s, 0, sizeof *s);
    if (!inited) {
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
            free(s);
            ct_set_error(CT_ERR_STATE, "%s: MPI_Init_thread failed", OP);
            return -1;
        }
        s->started_mpi = 1;
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &s->mpi);
    MPI_Comm_set_errhandler(s->mpi, MPI_ERRORS_RETURN);
    MPI_Comm_rank(s->mpi, rank);
    MPI_Comm_size(s->mpi, world);
    /* the device: the node-local rank modulo the node's device count */
    MPI_Comm node;
    int local = 0, ndev = 0;
    if (MPI_Comm_split_type(s->mpi, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_rank(node, &local);
        MPI_Comm_free(&node);
    }
    cudaError_t ce = cudaGetDeviceCount(&ndev);
    int rc = 0;
    if (ce != cudaSuccess || ndev <= 0) {
        ct_set_error(CT_ERR_DEVICE, "%s: no CUDA device (%s)", OP, ce != cudaSuccess ? cudaGetErrorString(ce) : "0 devices");
        rc = -1;
    }
    if (!rc) {
        s->device = local % ndev;
        rc = ct_cuda_set_device(s->device) != CT_OK;
    }
    /* rank 0's unique id to everyone; every rank says whether it could go on */
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t nr = ncclSuccess;
    if (!rc && *rank == 0 && (nr = ncclGetUniqueId(&id)) != ncclSuccess) rc = ct__nccl_fail(OP, "ncclGetUniqueId", nr);
    int ok = !rc, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, s->mpi);
    if (all && MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, s->mpi) != MPI_SUCCESS) {
        ct_set_error(CT_ERR_STATE, "%s: MPI_Bcast of the NCCL unique id failed", OP);
        rc = -1;
    }
    if (!rc && !all) {
        ct_set_error(CT_ERR_STATE, "%s: another rank could not start NCCL", OP);
        rc = -1;
    }
    if (!rc && (nr = ncclCommInitRank(&s->comm, *world, id, *rank)) != ncclSuccess) {
        rc = ct__nccl_fail(OP, "ncclCommInitRank", nr);
        s->comm = NULL;
    }
    if (!rc && (ce = cudaStreamCreateWithFlags(&s->stream, cudaStreamDefault)) != cudaSuccess) {
        rc = ct__nccl_cuda_fail(OP, "cudaStreamCreateWithFlags", ce);
        s->stream = NULL;
    }
    if (!rc && (ce = cudaMalloc((void **)&s->scratch, sizeof(float))) != cudaSuccess) {
        rc = ct__nccl_cuda_fail(OP, "cudaMalloc", ce);
        s->scratch = NULL;
    }
    if (rc) {
        if (s->scratch) cudaFree(s->scratch);
        if (s->stream) cudaStreamDestroy(s->stream);
        if (s->comm) ncclCommDestroy(s->comm);
        MPI_Comm_free(&s->mpi);
        if (s->started_mpi) MPI_Finalize();
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}
static void ct__nccl_shutdown(void *state, int broken) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    if (!s) return;
    cudaSetDevice(s->device);
    if (!s->aborted) {
        if (broken) ncclCommAbort(s->comm);   /* a peer may be gone: destroying could wait for it */
        else {
            cudaStreamSynchronize(s->stream);
            ncclCommDestroy(s->comm);
        }
    }
    cudaStreamDestroy(s->stream);
    cudaFree(s->scratch);
    if (!broken) MPI_Comm_free(&s->mpi);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (s->started_mpi && !finalized) MPI_Finalize();
    free(s);
}
static int ct__nccl_reduce_type(const char *op, ct_dtype dt) {
    int t = ct__nccl_type(dt);
    if (t < 0) ct_set_error(CT_ERR_DTYPE, "%s: NCCL cannot reduce %s tensors", op, ct_dtype_name(dt));
    return t;
}
static int ct__nccl_all_reduce(void *state, void *buf, int64_t n, ct_dtype dt, ct_reduce_op op, void **req) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    int t = ct__nccl_reduce_type("all_reduce", dt);
    if (t < 0 || ct__nccl_pre(s, "all_reduce")) return -1;
    return ct__nccl_post(s, "all_reduce", "ncclAllReduce",
                         ncclAllReduce(buf, buf, (size_t)n, (ncclDataType_t)t, ct__nccl_op(op, dt), s->comm, s->stream), req);
}
static int ct__nccl_broadcast(void *state, void *buf, int64_t n, ct_dtype dt, int root, void **req) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    if (ct__nccl_pre(s, "broadcast")) return -1;
    return ct__nccl_post(s, "broadcast", "ncclBroadcast",
                         ncclBroadcast(buf, buf, (size_t)n * ct_dtype_size(dt), ncclUint8, root, s->comm, s->stream), req);
}
static int ct__nccl_all_gather(void *state, const void *in, void *out, int64_t n, ct_dtype dt, void **req) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    if (ct__nccl_pre(s, "all_gather")) return -1;
    return ct__nccl_post(s, "all_gather", "ncclAllGather",
                         ncclAllGather(in, out, (size_t)n * ct_dtype_size(dt), ncclUint8, s->comm, s->stream), req);
}
static int ct__nccl_reduce_scatter(void *state, const void *in, void *out, int64_t n, ct_dtype dt, ct_reduce_op op, void **req) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    int t = ct__nccl_reduce_type("reduce_scatter", dt);
    if (t < 0 || ct__nccl_pre(s, "reduce_scatter")) return -1;
    return ct__nccl_post(s, "reduce_scatter", "ncclReduceScatter",
                         ncclReduceScatter(in, out, (size_t)n, (ncclDataType_t)t, ct__nccl_op(op, dt), s->comm, s->stream), req);
}
static int ct__nccl_barrier(void *state, void **req) {   /* PyTorch's: an all-reduce of one element */
    ct__nccl_state *s = (ct__nccl_state *)state;
    if (ct__nccl_pre(s, "barrier")) return -1;
    return ct__nccl_post(s, "barrier", "ncclAllReduce", ncclAllReduce(s->scratch, s->scratch, 1, ncclFloat32, ncclSum, s->comm, s->stream),
                         req);
}
static int ct__nccl_send(void *state, const void *buf, int64_t n, ct_dtype dt, int dst, int tag, void **req) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    (void)tag;
    if (ct__nccl_pre(s, "send")) return -1;
    return ct__nccl_post(s, "send", "ncclSend", ncclSend(buf, (size_t)n * ct_dtype_size(dt), ncclUint8, dst, s->comm, s->stream), req);
}
static int ct__nccl_recv(void *state, void *buf, int64_t n, ct_dtype dt, int src, int tag, void **req) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    (void)tag;
    if (ct__nccl_pre(s, "recv")) return -1;
    return ct__nccl_post(s, "recv", "ncclRecv", ncclRecv(buf, (size_t)n * ct_dtype_size(dt), ncclUint8, src, s->comm, s->stream), req);
}
static int ct__nccl_test(void *state, void *req, int *done) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    cudaEvent_t ev = (cudaEvent_t)req;
    cudaError_t e = cudaEventQuery(ev);
    if (e == cudaSuccess) {
        cudaEventDestroy(ev);
        *done = 1;
        return 0;
    }
    *done = 0;
    if (e != cudaErrorNotReady) {
        (void)cudaGetLastError();
        cudaEventDestroy(ev);
        *done = 1;
        return ct__nccl_cuda_fail("NCCL work", "cudaEventQuery", e);
    }
    ncclResult_t ar = ncclSuccess;
    ncclResult_t r = ncclCommGetAsyncError(s->comm, &ar);
    if (r != ncclSuccess || (ar != ncclSuccess && ar != ncclInProgress)) {
        cudaEventDestroy(ev);
        *done = 1;
        return ct__nccl_fail("NCCL work", "ncclCommGetAsyncError", r != ncclSuccess ? r : ar);
    }
    return 0;
}
static int ct__nccl_device_index(void *state) { return ((ct__nccl_state *)state)->device; }
static void ct__nccl_abandon(void *state, void *req) {
    ct__nccl_state *s = (ct__nccl_state *)state;
    /* a timeout: the communicator goes (its kernels may never finish otherwise) */
    if (!s->aborted) {
        ncclCommAbort(s->comm);
        s->aborted = 1;
    }
    if (req) cudaEventDestroy((cudaEvent_t)req);
}
static const ct_dist_backend ct__dist_nccl = {
    "nccl", ct__nccl_init, ct__nccl_shutdown, ct__nccl_all_reduce, ct__nccl_broadcast, ct__nccl_all_gather,
    ct__nccl_reduce_scatter, ct__nccl_barrier, ct__nccl_send, ct__nccl_recv, ct__nccl_test, ct__nccl_abandon, CT_CUDA,
    ct__nccl_device_index};
#if defined(CTENSOR_NCCL) && defined(CTENSOR_DIST_IMPLEMENTATION)
static const ct_dist_backend *ct__dist_nccl_backend(void) { return &ct__dist_nccl; }
#endif
CTENSOR_API ct_status ct_dist_nccl_register(void) { return ct_dist_register_backend(&ct__dist_nccl); }
#if defined(__cplusplus)
static const int ct__dist_nccl_registered = (ct_dist_nccl_register(), 1);
#elif defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void ct__dist_nccl_autoregister(void) { ct_dist_nccl_register(); }
#endif
#endif /* CTENSOR_DIST_NCCL_DONE */
#endif
