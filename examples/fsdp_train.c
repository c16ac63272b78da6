/* fsdp_train.c - a minGPT-style decoder trained with FullyShardedDataParallel
   (ctensor_dist.h), as PyTorch's FSDP examples train GPT: every transformer block is
   a unit (manual wrap), the rest (embeddings, final LayerNorm, head) the root's; each
   rank holds a 1/N shard of every unit, all-gathers a block's parameters just before
   its forward and its backward (the next block's all-gather prefetched), frees them
   after, and reduce-scatters the gradients; Adam steps the local shards only.

     mpicc -std=c11 -O2 -DCTENSOR_MPI -I. examples/fsdp_train.c -o fsdp_train -lm
     OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 2 ./fsdp_train
   (make build/examples/fsdp_train does the first line; without MPI it builds the
   single-process version, which runs as one rank of one.) On GPUs, built with the
   CUDA header and the NCCL group (nvcc; a file of C that nvcc compiles as C++):
     nvcc -x cu -O2 -DCTENSOR_CUDA -DCTENSOR_NCCL -I. $(mpicc -showme:compile) examples/fsdp_train.c \
          -o fsdp_train -lcublas -lnccl $(mpicc -showme:link)
     mpirun -np 2 ./fsdp_train --cuda
   --cuda puts the model and the batches on this rank's GPU (cuda:<node-local rank>)
   and trains over the "nccl" group; without it (or in a build without ctensor_cuda.h,
   where --cuda only prints a note) everything stays on the CPU.

   Options: [steps (default 60)] [--cuda] [--layers N] [--embd N] [--strategy full|grad_op|no_shard]
            [--bf16] (mixed precision: bfloat16 compute and reduction, float32 master shards)
            [--checkpoint] (activation checkpointing of the blocks: each block's forward keeps
            no activations and is recomputed in backward; compare the memory line)
            [--save PATH] (the FULL state dict, gathered to rank 0, as safetensors with
            minGPT's key names: a plain ctensor or PyTorch model loads it)
   The model (minGPT's GPT): token and position embeddings, n_layer pre-norm blocks
   (ln_1, causal self-attention attn.c_attn / attn.c_proj, ln_2, mlp.c_fc, GELU,
   mlp.c_proj), ln_f and lm_head; the data: characters of a short text, next-character
   prediction, a block of 32 characters, batch 16 per rank. Prints the loss (averaged
   over ranks), the median step time, and every rank's memory (ct_fsdp_memory). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef FSDP_TRAIN_NO_MAIN
#define CTENSOR_IMPLEMENTATION
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ctensor.h"
#include "ctensor_nn.h"
#ifdef CTENSOR_CUDA
#include "ctensor_cuda.h"
#endif
#include "ctensor_dist.h"

typedef struct gpt_config { int64_t vocab, block, n_layer, n_head, n_embd; } gpt_config;
static gpt_config gpt_cfg;   /* the model's shape (one model per program) */

static ct_tensor *gpt_no_forward(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    (void)in;
    ct_set_error(CT_ERR_STATE, "%s: runs only inside GPT's forward", m->type->name);
    return NULL;
}
static const ct_module_type gpt_dict_type = {"ModuleDict", gpt_no_forward, NULL, NULL};

/* a LayerNorm; in float32 when the input is bfloat16 (mixed precision: ctensor's
   layer_norm has no bfloat16 kernel), the result back in the input's dtype */
static ct_tensor *gpt_ln(ct_module *ln, ct_tensor *x) {
    if (!x || x->dtype == CT_FLOAT32) return ct_forward(ln, x);   /* (NULL: the error that made it) */
    int64_t d = gpt_cfg.n_embd;
    ct_tensor *w = ct_module_get(ln, "weight"), *b = ct_module_get(ln, "bias");
    return ct_to(ct_layer_norm(ct_to(x, CT_FLOAT32), 1, &d, ct_to(w, CT_FLOAT32), ct_to(b, CT_FLOAT32), 1e-5), x->dtype);
}
/* a block: x + attn(ln_1(x)), then x + mlp(ln_2(x)) */
static ct_tensor *gpt_block_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) { ct_set_error(CT_ERR_ARG, "Block: forward takes 1 input, got %d", nin); return NULL; }
    ct_tensor *x = in[0];
    int64_t B = ct_size(x, 0), T = ct_size(x, 1), C = gpt_cfg.n_embd, H = gpt_cfg.n_head;
    ct_tensor *qkv = ct_forward(ct_module_child(m, "attn.c_attn"), gpt_ln(ct_module_child(m, "ln_1"), x));
    ct_tensor *hd[3];
    const int64_t heads[4] = {B, T, H, C / H}, merged[3] = {B, T, C};   /* (no compound literals: C++ builds it too) */
    for (int i = 0; i < 3; i++)   /* q, k, v: [B, H, T, C / H] */
        hd[i] = ct_transpose(ct_view_n(ct_narrow(qkv, 2, (int64_t)i * C, C), 4, heads), 1, 2);
    /* causal: on the GPU with the mask made here on the device (is_causal's composite
       path builds its mask in host memory) */
    ct_tensor *mask = x->device.type == CT_CPU ? NULL : ct_to_device(ct_tril(ct_ones(CT_BOOL, T, T), 0), x->device);
    ct_tensor *y = ct_scaled_dot_product_attention(hd[0], hd[1], hd[2], mask, 0.0, mask == NULL);
    y = ct_reshape_n(ct_transpose(y, 1, 2), 3, merged);
    x = ct_add(x, ct_forward(ct_module_child(m, "attn.c_proj"), y));
    ct_tensor *h = ct_gelu(ct_forward(ct_module_child(m, "mlp.c_fc"), gpt_ln(ct_module_child(m, "ln_2"), x)), "none");
    return ct_add(x, ct_forward(ct_module_child(m, "mlp.c_proj"), h));
}
static const ct_module_type gpt_block_type = {"Block", gpt_block_forward, NULL, NULL};

/* idx [B, T] int64 -> logits [B, T, vocab] */
static ct_tensor *gpt_forward(ct_module *m, int nin, ct_tensor *const *in) {
    if (nin != 1) { ct_set_error(CT_ERR_ARG, "GPT: forward takes 1 input, got %d", nin); return NULL; }
    int64_t T = ct_size(in[0], 1);
    ct_module *tr = ct_module_child(m, "transformer"), *h = ct_module_child(tr, "h");
    ct_tensor *x = ct_add(ct_forward(ct_module_child(tr, "wte"), in[0]),
                          ct_forward(ct_module_child(tr, "wpe"), ct_to_device(ct_arange(0, (double)T, 1, CT_INT64), in[0]->device)));
    for (int i = 0; i < ct_nn_module_list_len(h); i++) x = ct_forward(ct_nn_module_list_get(h, i), x);
    return ct_forward(ct_module_child(m, "lm_head"), gpt_ln(ct_module_child(tr, "ln_f"), x));
}
static const ct_module_type gpt_type = {"GPT", gpt_forward, NULL, NULL};

static ct_module *gpt_new(gpt_config c) {
    gpt_cfg = c;
    int64_t d = c.n_embd;
    ct_module *h = ct_nn_module_list_n(0, NULL);
    for (int i = 0; i < c.n_layer; i++) {
        ct_module *b = ct_module_new(&gpt_block_type, NULL), *attn = ct_module_new(&gpt_dict_type, NULL);
        ct_module *mlp = ct_module_new(&gpt_dict_type, NULL);
        ct_module_add_module(attn, "c_attn", ct_nn_linear(d, 3 * d));
        ct_module_add_module(attn, "c_proj", ct_nn_linear(d, d));
        ct_module_add_module(mlp, "c_fc", ct_nn_linear(d, 4 * d));
        ct_module_add_module(mlp, "c_proj", ct_nn_linear(4 * d, d));
        ct_module_add_module(b, "ln_1", ct_nn_layer_norm(1, &d));
        ct_module_add_module(b, "attn", attn);
        ct_module_add_module(b, "ln_2", ct_nn_layer_norm(1, &d));
        ct_module_add_module(b, "mlp", mlp);
        ct_nn_module_list_append(h, b);
    }
    ct_module *tr = ct_module_new(&gpt_dict_type, NULL), *gpt = ct_module_new(&gpt_type, NULL);
    ct_module_add_module(tr, "wte", ct_nn_embedding(c.vocab, d));
    ct_module_add_module(tr, "wpe", ct_nn_embedding(c.block, d));
    ct_module_add_module(tr, "h", h);
    ct_module_add_module(tr, "ln_f", ct_nn_layer_norm(1, &d));
    ct_module_add_module(gpt, "transformer", tr);
    ct_module_add_module(gpt, "lm_head", ct_nn_linear_bias(d, c.vocab, 0));
    return gpt;
}

static const char gpt_text[] =
    "First Citizen: Before we proceed any further, hear me speak. All: Speak, speak. "
    "First Citizen: You are all resolved rather to die than to famish? All: Resolved. resolved. "
    "First Citizen: First, you know Caius Marcius is chief enemy to the people. All: We know't, we know't. "
    "First Citizen: Let us kill him, and we'll have corn at our own price. Is't a verdict? "
    "All: No more talking on't; let it be done: away, away! Second Citizen: One word, good citizens.";

static double gpt_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static int gpt_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct fsdp_train_result { double first_loss, last_loss, median_ms; int steps; } fsdp_train_result;

/* trains; every rank calls it. quiet: no printing (the tests). The model and the
   batches go where the group's collectives run: this rank's GPU for "nccl" (a build
   with ctensor_cuda.h), else host memory. */
static int fsdp_train_run(int argc, char **argv, ct_process_group *pg, int quiet, fsdp_train_result *res) {
    int steps = 60, bf16 = 0, ckpt = 0;
    gpt_config c = {96, 32, 4, 4, 128};
    ct_fsdp_strategy strat = CT_FSDP_FULL_SHARD;
    const char *save = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--layers") && i + 1 < argc) c.n_layer = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--embd") && i + 1 < argc) c.n_embd = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--bf16")) bf16 = 1;
        else if (!strcmp(argv[i], "--checkpoint")) ckpt = 1;
        else if (!strcmp(argv[i], "--save") && i + 1 < argc) save = argv[++i];
        else if (!strcmp(argv[i], "--cuda")) continue;   /* (main picks the group) */
        else if (!strcmp(argv[i], "--strategy") && i + 1 < argc) {
            i++;
            strat = !strcmp(argv[i], "grad_op") ? CT_FSDP_SHARD_GRAD_OP : !strcmp(argv[i], "no_shard") ? CT_FSDP_NO_SHARD : CT_FSDP_FULL_SHARD;
        } else steps = atoi(argv[i]);
    }
    if (steps < 1 || steps > 100000) steps = 60;
    if (c.n_layer < 1 || c.n_layer > 96) c.n_layer = 4;
    if (c.n_embd < 8 || c.n_embd > 4096 || c.n_embd % c.n_head) c.n_embd = 128;
    int rank = ct_dist_get_rank(pg), world = ct_dist_get_world_size(pg);
    const int64_t B = 16, T = c.block, N = (int64_t)sizeof gpt_text - 1;
    const char *backend = ct_dist_get_backend(pg);
    ct_device dev = ct_cpu();
#ifdef CTENSOR_CUDA_H_INCLUDED
    if (backend && !strcmp(backend, "nccl")) dev = ct_cuda(ct_cuda_current_device());
#endif
    char devname[24];
    ct_device_str(dev, devname, sizeof devname);

    ct_manual_seed(1234 + (uint64_t)rank);   /* each rank starts elsewhere: FSDP uses rank 0's values */
    ct_module *gpt = gpt_new(c);
    if (dev.type != CT_CPU && !ct_module_to(gpt, dev)) {
        fprintf(stderr, "rank %d: %s\n", rank, ct_last_error());
        ct_module_free(gpt);
        return 1;
    }
    ct_module *blocks[96];
    for (int i = 0; i < c.n_layer; i++) blocks[i] = ct_nn_module_list_get(ct_module_child(gpt, "transformer.h"), i);
    ct_fsdp_mixed_precision mp = {CT_BFLOAT16, CT_BFLOAT16};
    ct_fsdp_options fo;
    memset(&fo, 0, sizeof fo);
    fo.sharding_strategy = strat;
    fo.min_num_params = -1;
    fo.wrap_modules = blocks;
    fo.num_wrap_modules = (int)c.n_layer;
    fo.forward_prefetch = 1;
    fo.mixed_precision = bf16 ? &mp : NULL;
    fo.activation_checkpointing = ckpt;
    ct_fsdp *fsdp = ct_fsdp_new(gpt, pg, &fo);
    ct_tensor *shards[97];
    int ns = fsdp ? ct_fsdp_parameters(fsdp, shards, 97) : 0;
    ct_adamw_options ao;
    memset(&ao, 0, sizeof ao);
    ao.lr = 3e-3;
    ao.weight_decay = 0.01;
    ct_optimizer *opt = fsdp ? ct_optim_adamw_params(ns, shards, &ao) : NULL;
    if (!fsdp || !opt) {
        fprintf(stderr, "rank %d: %s\n", rank, ct_last_error());
        ct_fsdp_free(fsdp);
        ct_module_free(gpt);
        return 1;
    }
    if (rank == 0 && !quiet)
        printf("minGPT: %lld layers, %lld heads, embedding %lld, %lld parameters; FSDP %s on %d rank%s (%s backend, rank 0 on %s), "
               "%d units, batch %lld x %lld characters per rank%s%s\n",
               (long long)c.n_layer, (long long)c.n_head, (long long)c.n_embd, (long long)ct_module_num_elements(gpt),
               strat == CT_FSDP_FULL_SHARD ? "FULL_SHARD" : strat == CT_FSDP_SHARD_GRAD_OP ? "SHARD_GRAD_OP" : "NO_SHARD", world,
               world > 1 ? "s" : "", backend, devname, ct_fsdp_num_units(fsdp),
               (long long)B, (long long)T,
               bf16 ? ", bfloat16 mixed precision" : "", ckpt ? ", activation checkpointing" : "");
    double *times = (double *)malloc((size_t)steps * sizeof *times);
    int status = !times;
    ct_manual_seed(99);   /* the same batches everywhere; each rank takes its rows */
    for (int step = 0; step < steps && !status; step++) CT_SCOPE {
        /* the global batch: B * world windows of the text; x its characters, y the next ones */
        ct_tensor *start = ct_randint(0, N - T - 1, CT_INT64, B * world);
        int64_t *st = (int64_t *)ct_data_ptr(start);
        int64_t *xy = (int64_t *)malloc((size_t)(2 * B * T) * sizeof *xy);
        for (int64_t b = 0; b < B; b++)
            for (int64_t t = 0; t < T; t++) {
                xy[b * T + t] = (unsigned char)gpt_text[st[rank * B + b] + t] % c.vocab;
                xy[B * T + b * T + t] = (unsigned char)gpt_text[st[rank * B + b] + t + 1] % c.vocab;
            }
        const int64_t xshape[2] = {B, T}, yshape[1] = {B * T}, lshape[2] = {B * T, c.vocab};
        ct_tensor *x = ct_to_device(ct_from_data_n(xy, CT_INT64, 2, xshape), dev);
        ct_tensor *y = ct_to_device(ct_from_data_n(xy + B * T, CT_INT64, 1, yshape), dev);
        free(xy);
        double t0 = gpt_now();
        ct_tensor *logits = ct_fsdp_forward(fsdp, x);
        ct_tensor *loss = logits ? ct_cross_entropy(ct_reshape_n(ct_to(logits, CT_FLOAT32), 2, lshape), y, NULL) : NULL;
        ct_zero_grad(opt);
        if (!loss || ct_fsdp_backward(fsdp, loss) || ct_step(opt)) {
            fprintf(stderr, "rank %d: %s\n", rank, ct_last_error());
            status = 1;
            break;
        }
        times[step] = gpt_now() - t0;
        ct_tensor *l = ct_clone(ct_detach(loss));
        ct_dist_all_reduce(l, CT_REDUCE_AVG, pg, NULL);
        if (step == 0) res->first_loss = ct_item(l);
        res->last_loss = ct_item(l);
        if (rank == 0 && !quiet && (step % 10 == 0 || step == steps - 1))
            printf("step %4d  loss %.4f  step time %.1f ms\n", step, ct_item(l), times[step] * 1e3);
    }
    if (!status) {
        qsort(times, (size_t)steps, sizeof *times, gpt_cmp);
        res->median_ms = times[steps / 2] * 1e3;
        res->steps = steps;
        /* every rank's memory, gathered to rank 0 */
        ct_fsdp_memory_stats ms;
        ct_fsdp_memory(fsdp, &ms);
        CT_SCOPE {
            int64_t mine[4] = {ms.shard_param_bytes, ms.peak_full_param_bytes, ms.peak_grad_bytes, ms.peak_live_bytes};
            const int64_t four[1] = {4};
            ct_tensor *all = ct_zeros_on(dev, CT_INT64, 4 * (int64_t)world);   /* (the group's device) */
            if (!all || ct_dist_all_gather_into_tensor(all, ct_to_device(ct_from_data_n(mine, CT_INT64, 1, four), dev), pg, NULL) ||
                !(all = ct_to_device(all, ct_cpu()))) {
                fprintf(stderr, "rank %d: %s\n", rank, ct_last_error());
                status = 1;
            }
            const int64_t *a = status ? NULL : (const int64_t *)ct_data_ptr(all);
            if (rank == 0 && !quiet && !status) {
                printf("median step time %.1f ms (forward, backward with the all-gathers and reduce-scatters, AdamW on the shards)\n",
                       res->median_ms);
                for (int r = 0; r < world; r++)
                    printf("rank %d memory: shards %.2f MB, peak gathered parameters %.2f MB, peak gradients %.2f MB, "
                           "peak of everything (activations too) %.2f MB\n",
                           r, (double)a[4 * r] / 1e6, (double)a[4 * r + 1] / 1e6, (double)a[4 * r + 2] / 1e6, (double)a[4 * r + 3] / 1e6);
            }
        }
    }
    if (!status && save) CT_SCOPE {
        ct_state_dict sd;
        if (ct_fsdp_state_dict(fsdp, CT_FSDP_FULL_STATE_DICT, &sd)) status = 1;
        else if (rank == 0) {
            const char **names = (const char **)malloc((size_t)(sd.n ? sd.n : 1) * sizeof *names);
            const ct_tensor **ts = (const ct_tensor **)malloc((size_t)(sd.n ? sd.n : 1) * sizeof *ts);
            for (int i = 0; names && ts && i < sd.n; i++) {
                names[i] = sd.items[i].name;
                ts[i] = sd.items[i].tensor;
            }
            if (!names || !ts || ct_save_safetensors_n(save, sd.n, names, ts, 0, NULL, NULL)) status = 1;
            else if (!quiet) printf("saved the full state dict (%d tensors, %s, ...) to %s\n", sd.n, sd.items[0].name, save);
            free(names);
            free(ts);
        }
        ct_state_dict_free(&sd);
        if (status) fprintf(stderr, "rank %d: %s\n", rank, ct_last_error());
    }
    free(times);
    ct_optim_free(opt);
    ct_fsdp_free(fsdp);
    ct_module_free(gpt);
    return status;
}

#ifndef FSDP_TRAIN_NO_MAIN
int main(int argc, char **argv) {
    const char *backend = NULL;   /* "mpi" when built with it, else the single process */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--cuda")) {
#ifdef CTENSOR_CUDA_H_INCLUDED
            backend = "nccl";     /* (an error below when the build has no NCCL group) */
#else
            fprintf(stderr, "fsdp_train: --cuda needs a build with ctensor_cuda.h and the NCCL group (nvcc -x cu "
                            "-DCTENSOR_CUDA -DCTENSOR_NCCL ...): training on the CPU\n");
#endif
        }
    ct_process_group *pg = ct_dist_init_process_group(backend, NULL);
    if (!pg) { fprintf(stderr, "%s\n", ct_last_error()); return 1; }
    fsdp_train_result res = {0, 0, 0, 0};
    int status = fsdp_train_run(argc, argv, pg, 0, &res);
    ct_dist_destroy_process_group(pg);
    return status;
}
#endif
