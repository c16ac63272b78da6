/* Threads: two threads training their own small model at once, two threads running
   inference on one shared module, a thread's state and caches given back when it
   exits, a thread whose state cannot be allocated getting an error, not an abort, and
   the thread pool (every index once, nested calls, kernel errors, two callers at once,
   after fork). Built like every test (plain, ASan) and also with -fsanitize=thread by
   tests/run_suite.sh (build/tsan/test_threads), where TSan checks the threads and the
   pool's memory ordering; CTENSOR_THREADS turns the pool on in all three builds. */
#define CTENSOR_IMPLEMENTATION
#define CTENSOR_THREADS
#include <stdlib.h>
/* an allocator that fails on request, per thread (the thread-state test) */
static _Thread_local int t_fail_alloc;
#define CT_MALLOC(sz) (t_fail_alloc ? NULL : malloc(sz))
#define CT_REALLOC(p, sz) (t_fail_alloc ? NULL : realloc((p), (sz)))
#define CT_FREE(p) free(p)
#include "ct_test.h"
#include "ctensor_nn.h"
#include "ctensor_named.h"
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- two threads training at once --------------------------------------------
   Each thread: Linear(4, 8) -> ReLU -> Linear(8, 1), SGD, its own data (y = x . w
   with a per-thread w); 100 full-batch steps must cut the MSE loss at least 4x. */
typedef struct train_job {
    int id;
    double first_loss, last_loss;
    int failed;
    char err[256];
} train_job;

static void *train(void *arg) {
    train_job *j = (train_job *)arg;
    ct_module *model = ct_nn_sequential(ct_nn_linear(4, 8), ct_nn_relu(), ct_nn_linear(8, 1));
    ct_sgd_options o = {0};
    o.lr = 0.05;
    o.momentum = 0.9;
    ct_optimizer *opt = model ? ct_optim_sgd(model, &o) : NULL;
    if (!opt) {
        j->failed = 1;
        snprintf(j->err, sizeof j->err, "%.200s", ct_last_error());
        ct_module_free(model);
        return NULL;
    }
    CT_SCOPE {
        float xs[16 * 4], ys[16];
        for (int i = 0; i < 16; i++) {
            ys[i] = 0;
            for (int k = 0; k < 4; k++) {
                xs[i * 4 + k] = (float)((i * 7 + k * 3 + j->id) % 11) / 11.0f - 0.5f;
                ys[i] += xs[i * 4 + k] * (float)(k + 1 + j->id) * 0.5f;
            }
        }
        ct_tensor *x = ct_tensor_f32(xs, 16, 4), *y = ct_tensor_f32(ys, 16, 1);
        for (int step = 0; step < 100 && !j->failed; step++) CT_SCOPE {
            ct_tensor *loss = ct_mse_loss(ct_forward(model, x), y, "mean");
            ct_zero_grad(opt);
            if (!loss || ct_backward(loss) != CT_OK || ct_step(opt) != CT_OK) {
                j->failed = 1;
                snprintf(j->err, sizeof j->err, "%.200s", ct_last_error());
                break;
            }
            if (step == 0) j->first_loss = ct_item(loss);
            j->last_loss = ct_item(loss);
        }
    }
    ct_optim_free(opt);
    ct_module_free(model);
    return NULL;
}

TEST(test_two_threads_train) {
    pthread_t th[2];
    train_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 2; i++) {
        jobs[i].id = i;
        CHECK(pthread_create(&th[i], NULL, train, &jobs[i]) == 0);
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        CT_T_REPORT(!jobs[i].failed, "thread %d failed: %s", i, jobs[i].err);
        CT_T_REPORT(jobs[i].last_loss < jobs[i].first_loss / 4, "thread %d: loss %g -> %g", i, jobs[i].first_loss,
                    jobs[i].last_loss);
    }
}

/* ---- two threads running inference on one module -------------------------------- */
typedef struct infer_job {
    ct_module *model;
    const ct_tensor *x;
    double out[3];
    int failed;
} infer_job;

static void *infer(void *arg) {
    infer_job *j = (infer_job *)arg;
    for (int rep = 0; rep < 50; rep++) CT_INFERENCE_MODE CT_SCOPE {
        ct_tensor *y = ct_contiguous(ct_to(ct_forward(j->model, (ct_tensor *)j->x), CT_FLOAT64));
        if (!y) { j->failed = 1; break; }
        memcpy(j->out, ct_data_ptr(y), sizeof j->out);
    }
    return NULL;
}

TEST(test_shared_module_inference) {
    ct_manual_seed(1);
    ct_module *model = ct_nn_sequential(ct_nn_linear(4, 8), ct_nn_relu(), ct_nn_linear(8, 1));
    ct_tensor *x = ct_retain(ct_reshape(ct_arange(0, 12, 1, CT_FLOAT32), 3, 4));
    double expect[3];
    CT_SCOPE {
        ct_tensor *y = ct_contiguous(ct_to(ct_forward(model, x), CT_FLOAT64));
        CHECK(y != NULL);
        if (y) memcpy(expect, ct_data_ptr(y), sizeof expect);
    }
    pthread_t th[2];
    infer_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    for (int i = 0; i < 2; i++) {
        jobs[i].model = model;
        jobs[i].x = x;
        CHECK(pthread_create(&th[i], NULL, infer, &jobs[i]) == 0);
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        CHECK(!jobs[i].failed);
        CHECK_VALUES(ct_tensor_f64(jobs[i].out, 3), expect, 3, 0);
    }
    ct_release(x);
    ct_module_free(model);
}

/* ---- a thread's state at exit ------------------------------------------------------
   The thread leaves a 1 MiB result in its root scope and a large block in its cache;
   after it exits both are gone, and its state is reused by the next thread. */
static int64_t cached_bytes_of_dead_threads(void) {
    int64_t n = 0;
    ct__spin_lock(&ct__tls_lock);
    for (ct__tls *t = CT__LOAD_ACQUIRE(&ct__tls_all); t; t = t->next)
        if (t->dead) {
            n += t->big_bytes;
            for (int c = 0; c < CT__NUM_CLASSES; c++) n += t->nfree_blocks[c];
            n += t->nfree_tensors + t->nitems + (t->items != NULL);
        }
    ct__spin_unlock(&ct__tls_lock);
    return n;
}
static int count_states(void) {
    int n = 0;
    ct__spin_lock(&ct__tls_lock);
    for (ct__tls *t = CT__LOAD_ACQUIRE(&ct__tls_all); t; t = t->next) n++;
    ct__spin_unlock(&ct__tls_lock);
    return n;
}
static void *leave_things(void *arg) {
    int64_t *cached = (int64_t *)arg;
    (void)ct_ones(CT_FLOAT32, 256, 1024);              /* root scope, never released by the thread */
    CT_SCOPE { (void)ct_ones(CT_FLOAT32, 512, 1024); } /* freed into the thread's block cache */
    *cached = ct__tls_get()->big_bytes;
    return NULL;
}

TEST(test_thread_exit_frees_state) {
    int64_t live0 = ct_live_tensors(), bytes0 = ct_live_bytes();
    int64_t cached = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, leave_things, &cached) == 0);
    pthread_join(th, NULL);
#ifndef CTENSOR_NO_CACHES   /* (under ASan nothing freed is cached) */
    CHECK(cached >= 2 << 20);                          /* the cache held the block while it ran */
#endif
    CHECK_EQ_INT(cached_bytes_of_dead_threads(), 0);
    CHECK_EQ_INT(ct_live_tensors(), live0);            /* the root scope was released */
    CHECK_EQ_INT(ct_live_bytes(), bytes0);
    int states = count_states();
    for (int i = 0; i < 4; i++) {
        CHECK(pthread_create(&th, NULL, leave_things, &cached) == 0);
        pthread_join(th, NULL);
    }
    CHECK_EQ_INT(count_states(), states);              /* exited threads' states are reused */
    CHECK_EQ_INT(ct_live_tensors(), live0);
}

/* ---- no memory for a new thread's state ----------------------------------------- */
typedef struct oom_job {
    int made;
    ct_status code, code2;
    char msg[256];
} oom_job;
static void *start_without_memory(void *arg) {
    oom_job *j = (oom_job *)arg;
    t_fail_alloc = 1;                  /* the thread's first ctensor call cannot allocate */
    ct_tensor *x = ct_zeros(CT_FLOAT32, 2);
    j->made = x != NULL;
    j->code = ct_last_error_code();
    snprintf(j->msg, sizeof j->msg, "%.200s", ct_last_error());
    t_fail_alloc = 0;                  /* memory again: this thread still reports the failure */
    ct_clear_error();
    j->made += ct_ones(CT_FLOAT32, 2) != NULL;
    j->code2 = ct_last_error_code();
    return NULL;
}

TEST(test_thread_state_out_of_memory) {
    oom_job j;
    memset(&j, 0, sizeof j);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, start_without_memory, &j) == 0);
    pthread_join(th, NULL);
    CHECK_EQ_INT(j.made, 0);
    CHECK_EQ_INT(j.code, CT_ERR_MEMORY);
    CHECK(strstr(j.msg, "out of memory: this thread's ctensor state") != NULL);
    CHECK_EQ_INT(j.code2, CT_ERR_MEMORY);
}

/* ---- the thread pool ---------------------------------------------------------------- */
typedef struct mark_job { int *seen; int64_t nested_sum; int kerr_at; } mark_job;
static void mark_chunk(void *c, int64_t lo, int64_t hi) {
    mark_job *j = (mark_job *)c;
    for (int64_t i = lo; i < hi; i++) __atomic_add_fetch(&j->seen[i], 1, __ATOMIC_RELAXED);
    if (j->kerr_at >= lo && j->kerr_at < hi) ct__kerr_tls |= 4;
}
static void nested_inner(void *c, int64_t lo, int64_t hi) {
    int64_t *acc = (int64_t *)c;
    for (int64_t i = lo; i < hi; i++) *acc += i;   /* inline on the chunk's thread: no race */
}
static void nested_outer(void *c, int64_t lo, int64_t hi) {
    mark_job *j = (mark_job *)c;
    for (int64_t i = lo; i < hi; i++) {
        int64_t acc = 0;
        ct__par_for(1000, 10, nested_inner, &acc);
        __atomic_add_fetch(&j->nested_sum, acc, __ATOMIC_RELAXED);
    }
}
static int marks_ok(const int *seen, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (seen[i] != 1) return 0;
    return 1;
}
enum { NMARK = 100000 };
static void *pool_caller(void *arg) {
    int *seen = (int *)arg;
    mark_job j = {seen, 0, -1};
    for (int rep = 0; rep < 20; rep++) {
        memset(seen, 0, sizeof(int) * NMARK);
        ct__par_for(NMARK, 1000, mark_chunk, &j);
        if (!marks_ok(seen, NMARK)) return (void *)1;
    }
    return NULL;
}

/* ---- named tensors from two threads at once: the first naming turns the names
   step on (published with release/acquire), names are interned under a lock ---- */
static void *name_things(void *arg) {
    int *bad = (int *)arg;
    char nbuf[2][8];
    for (int i = 0; i < 50 && !*bad; i++) {
        int s = ct_scope_begin();
        snprintf(nbuf[0], sizeof nbuf[0], "N%d", i % 7);
        snprintf(nbuf[1], sizeof nbuf[1], "C%d", i % 5);
        const char *nm[2] = {nbuf[0], nbuf[1]};
        ct_tensor *x = ct_refine_names(ct_ones(CT_FLOAT32, 2, 3), 2, nm);
        ct_tensor *y = ct_sum_dim(ct_mul(x, x), ct_dim_of(x, nbuf[1]), 0);
        if (!y || !ct_dim_name(y, 0) || strcmp(ct_dim_name(y, 0), nbuf[0]) || ct_item(ct_sum(y)) != 6.0) *bad = 1;
        ct_scope_end(s);
    }
    return NULL;
}
TEST(test_named_two_threads) {
    pthread_t th[2];
    int bad[2] = {0, 0};
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, name_things, &bad[i]) == 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    CHECK(!bad[0] && !bad[1]);
}

TEST(test_pool) {
    int *seen = (int *)calloc(NMARK, sizeof(int));
    CHECK(seen != NULL);
    if (!seen) return;
    for (int nt = 1; nt <= 4; nt++) {
        ct_set_num_threads(nt);
        CHECK_EQ_INT(ct_get_num_threads(), nt);
        for (int64_t grain = 1; grain <= 4096; grain *= 8) {
            for (int64_t n = 1; n <= NMARK; n = n * 7 + 3) {
                mark_job j = {seen, 0, -1};
                memset(seen, 0, sizeof(int) * NMARK);
                ct__par_for(n, grain, mark_chunk, &j);
                CT_T_REPORT(marks_ok(seen, n), "threads %d grain %lld n %lld: an index not run exactly once", nt,
                            (long long)grain, (long long)n);
            }
        }
        /* a kernel error raised in any chunk reaches the caller */
        for (int at = 0; at < NMARK; at += NMARK / 7) {
            mark_job j = {seen, 0, at};
            int mine = ct__kerr_tls;
            ct__kerr_tls = 0;
            ct__par_for(NMARK, 100, mark_chunk, &j);
            CT_T_REPORT(ct__kerr_tls == 4, "threads %d: kernel error at %d lost (flags %d)", nt, at, ct__kerr_tls);
            ct__kerr_tls = mine;
        }
        /* nested: inner loops run inline on the chunk's thread */
        mark_job j = {seen, 0, -1};
        ct__par_for(64, 1, nested_outer, &j);
        CHECK_EQ_INT(j.nested_sum, (int64_t)64 * 999 * 1000 / 2);
    }
    /* two user threads calling at once: one gets the pool, the other runs inline */
    ct_set_num_threads(2);
    int *seen2 = (int *)calloc(NMARK, sizeof(int));
    CHECK(seen2 != NULL);
    if (seen2) {
        pthread_t a, b;
        void *ra = (void *)1, *rb = (void *)1;
        CHECK(pthread_create(&a, NULL, pool_caller, seen) == 0);
        CHECK(pthread_create(&b, NULL, pool_caller, seen2) == 0);
        pthread_join(a, &ra);
        pthread_join(b, &rb);
        CHECK(ra == NULL && rb == NULL);
        free(seen2);
    }
    /* an op on the pool gives PyTorch's values: a large elementwise op and a GEMM */
    CT_SCOPE {
        ct_tensor *x = ct_arange(0, 1 << 18, 1, CT_FLOAT64);
        ct_tensor *y = ct_mul(x, x);
        double s = ct_item(ct_sum(y));
        double n = (double)(1 << 18);
        CHECK(s == (n - 1) * n * (2 * n - 1) / 6);
        ct_tensor *a = ct_ones(CT_FLOAT64, 256, 256), *m = ct_mm(a, a);
        CHECK(m && ct_item(ct_sum(m)) == 256.0 * 256 * 256);
    }
    free(seen);
    ct_set_num_threads(0);
}

/* after fork() the child has no workers: the pool starts afresh there */
#ifndef __SANITIZE_THREAD__   /* TSan refuses new threads in a child of a threaded fork */
TEST(test_pool_after_fork) {
    ct_set_num_threads(2);
    int *seen = (int *)calloc(NMARK, sizeof(int));
    CHECK(seen != NULL);
    if (!seen) return;
    mark_job j = {seen, 0, -1};
    ct__par_for(NMARK, 1000, mark_chunk, &j);   /* workers made in the parent */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        memset(seen, 0, sizeof(int) * NMARK);
        ct__par_for(NMARK, 1000, mark_chunk, &j);
        _exit(marks_ok(seen, NMARK) ? 0 : 3);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(seen);
    ct_set_num_threads(0);
}
#endif


/* ---- ops on the pool give the 1-thread results ------------------------------------
   Every kernel family that splits over the pool, on inputs big enough to split: exact
   for ops that move or compare elements, close for float sums (split rows add in
   another order, as in PyTorch). */
typedef ct_tensor *(*op1_fn)(const ct_tensor *x);
static ct_tensor *f_sum0(const ct_tensor *x) { return ct_sum_dim(x, 0, 0); }
static ct_tensor *f_sum1(const ct_tensor *x) { return ct_sum_dim(x, 1, 0); }
static ct_tensor *f_sumall(const ct_tensor *x) { return ct_sum(x); }
static ct_tensor *f_mean1(const ct_tensor *x) { return ct_mean_dim(x, 1, 1); }
static ct_tensor *f_var0(const ct_tensor *x) { int64_t d = 0; return ct_var_dims(x, 1, &d, 1.0, 0); }
static ct_tensor *f_max1(const ct_tensor *x) { ct_tensor *i = NULL; ct_tensor *v = ct_max_dim(x, 1, 0, &i); return ct_cat(2, (ct_tensor *[]){v, ct_to(i, CT_FLOAT32)}, 0); }
static ct_tensor *f_amax0(const ct_tensor *x) { int64_t d = 0; return ct_amax(x, 1, &d, 0); }
static ct_tensor *f_maxall(const ct_tensor *x) { return ct_max(x); }
static ct_tensor *f_lse1(const ct_tensor *x) { int64_t d = 1; return ct_logsumexp(x, 1, &d, 0); }
static ct_tensor *f_norm0(const ct_tensor *x) { int64_t d = 0; return ct_norm(x, 2.0, 1, &d, 0); }
static ct_tensor *f_smx1(const ct_tensor *x) { return ct_softmax(x, 1); }
static ct_tensor *f_smx0(const ct_tensor *x) { return ct_log_softmax(x, 0); }
static ct_tensor *f_smx1_64(const ct_tensor *x) { return ct_softmax(ct_to(x, CT_FLOAT64), 1); }
static ct_tensor *f_cumsum0(const ct_tensor *x) { return ct_cumsum(x, 0); }
static ct_tensor *f_sort1(const ct_tensor *x) { return ct_sort(x, 1, 1, NULL); }
static ct_tensor *f_count0(const ct_tensor *x) { int64_t d = 0; return ct_count_nonzero(ct_gt_scalar(x, 0.5), 1, &d); }
static ct_tensor *f_prod1(const ct_tensor *x) { return ct_prod(ct_add_scalar(ct_mul_scalar(ct_narrow(x, 1, 0, 64), 0.01), 1.0)); }
static ct_tensor *f_isel(const ct_tensor *x) {
    return ct_index_select(x, 1, ct_flip(ct_arange(0, x->shape[1], 1, CT_INT64), 1, (int64_t[]){0}));
}
static ct_tensor *f_cat(const ct_tensor *x) { return ct_cat(2, (ct_tensor *[]){(ct_tensor *)x, ct_neg(x)}, 1); }
static ct_tensor *f_flip(const ct_tensor *x) { return ct_flip(x, 1, (int64_t[]){0}); }
static ct_tensor *f_repeat(const ct_tensor *x) { return ct_repeat(x, 2, (int64_t[]){2, 3}); }
static ct_tensor *f_tril(const ct_tensor *x) { return ct_tril(x, 3); }
static ct_tensor *f_pad(const ct_tensor *x) { return ct_pad(ct_unsqueeze(x, 0), 2, (int64_t[]){3, 5}, "reflect", 0); }
static ct_tensor *f_padc(const ct_tensor *x) { return ct_pad(x, 4, (int64_t[]){1, 2, 3, 4}, "constant", 7); }
static ct_tensor *f_mm(const ct_tensor *x) { return ct_mm(ct_narrow(x, 0, 0, 300), ct_t(ct_narrow(x, 0, 300, 200))); }

static ct_tensor *img(const ct_tensor *x) { return ct_reshape(ct_narrow(ct_reshape(x, 700000), 0, 0, 262144), 4, 16, 64, 64); }
static ct_tensor *flat(ct_tensor *t) { return ct_reshape(ct_contiguous(t), -1); }
/* forward output and the input's gradient of sum(y * y) */
static ct_tensor *with_grad(const ct_tensor *x, ct_tensor *(*f)(ct_tensor *xi, const ct_tensor *x)) {
    ct_tensor *xi = ct_set_requires_grad(ct_mul_scalar(img(x), 1.0), 1);
    ct_tensor *y = f(xi, x);
    if (!y || ct_backward(ct_sum(ct_mul(y, y))) != CT_OK || !ct_grad(xi)) return NULL;
    return ct_cat(2, (ct_tensor *[]){flat(y), flat(ct_grad(xi))}, 0);
}
static ct_tensor *conv_body(ct_tensor *xi, const ct_tensor *x) {
    ct_conv_options o = {0};
    o.padding = 1;
    ct_tensor *w = ct_reshape(ct_narrow(ct_reshape(x, 700000), 0, 300000, 16 * 16 * 9), 16, 16, 3, 3);
    return ct_conv2d(xi, ct_sub_scalar(w, 0.5), NULL, &o);
}
static ct_tensor *bn_body(ct_tensor *xi, const ct_tensor *x) {
    (void)x;
    return ct_batch_norm(xi, NULL, NULL, NULL, NULL, 1, 0.1, 1e-5);
}
static ct_tensor *ln_body(ct_tensor *xi, const ct_tensor *x) {
    (void)x;
    return ct_layer_norm(xi, 2, (int64_t[]){64, 64}, NULL, NULL, 1e-5);
}
static ct_tensor *pool_body(ct_tensor *xi, const ct_tensor *x) {
    (void)x;
    return ct_max_pool2d(xi, 3, &(ct_pool_options){.stride = 2, .padding = 1});
}
static ct_tensor *bilinear_body(ct_tensor *xi, const ct_tensor *x) {
    (void)x;
    ct_interpolate_options o = {{0}, {0}, "bilinear", 0, 0, 0};
    o.scale_factor[0] = o.scale_factor[1] = 1.7;
    return ct_interpolate(xi, &o);
}
static ct_tensor *f_conv(const ct_tensor *x) { return with_grad(x, conv_body); }
static ct_tensor *f_bn(const ct_tensor *x) { return with_grad(x, bn_body); }
static ct_tensor *f_ln(const ct_tensor *x) { return with_grad(x, ln_body); }
static ct_tensor *f_pool(const ct_tensor *x) { return with_grad(x, pool_body); }
static ct_tensor *f_bilinear(const ct_tensor *x) { return with_grad(x, bilinear_body); }
static ct_tensor *f_ce(const ct_tensor *x) {
    ct_tensor *t = ct_to(ct_mul_scalar(ct_narrow(ct_select(x, 1, 0), 0, 0, 1000), 699.0), CT_INT64);
    return ct_cross_entropy(x, t, NULL);
}

TEST(test_pool_ops_match_serial) {
    static const struct { const char *name; op1_fn f; int exact; } ops[] = {
        {"sum dim 0", f_sum0, 0}, {"sum dim 1", f_sum1, 0}, {"sum", f_sumall, 0}, {"mean dim 1", f_mean1, 0},
        {"var dim 0", f_var0, 0}, {"max dim 1", f_max1, 1}, {"amax dim 0", f_amax0, 1}, {"max", f_maxall, 1},
        {"logsumexp dim 1", f_lse1, 0}, {"norm dim 0", f_norm0, 0}, {"softmax dim 1", f_smx1, 0},
        {"log_softmax dim 0", f_smx0, 0}, {"softmax f64", f_smx1_64, 0}, {"cumsum dim 0", f_cumsum0, 0},
        {"sort", f_sort1, 1}, {"count_nonzero", f_count0, 1}, {"prod", f_prod1, 0}, {"index_select", f_isel, 1},
        {"cat", f_cat, 1}, {"flip", f_flip, 1}, {"repeat", f_repeat, 1}, {"tril", f_tril, 1},
        {"pad reflect", f_pad, 1}, {"pad constant", f_padc, 1}, {"mm", f_mm, 0},
        {"conv2d + grad", f_conv, 0}, {"batch_norm + grad", f_bn, 0}, {"layer_norm + grad", f_ln, 0},
        {"max_pool2d + grad", f_pool, 1}, {"bilinear + grad", f_bilinear, 0}, {"cross_entropy", f_ce, 0},
    };
    ct_manual_seed(7);
    ct_tensor *x = ct_retain(ct_rand(CT_FLOAT32, 1000, 700));
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) CT_SCOPE {
        ct_set_num_threads(1);
        ct_tensor *ref = ct_contiguous(ops[k].f(x));
        ct_set_num_threads(4);
        ct_tensor *got = ct_contiguous(ops[k].f(x));
        ct_set_num_threads(0);
        CT_T_REPORT(ref && got, "%s: %s", ops[k].name, ct_last_error());
        if (ref && got) {
            int same = ops[k].exact ? ct_equal(ref, got) : ct_allclose(ref, got, 1e-5, 1e-6);
            CT_T_REPORT(same == 1, "%s: 4 threads differ from 1", ops[k].name);
        }
    }
    ct_release(x);
}

int main(void) {
    ct_t_init();
    RUN(test_thread_state_out_of_memory);   /* first: no exited thread's state to reuse yet */
    RUN(test_two_threads_train);
    RUN(test_shared_module_inference);
    RUN(test_thread_exit_frees_state);
    RUN(test_pool);
    RUN(test_named_two_threads);
    RUN(test_pool_ops_match_serial);
#ifndef __SANITIZE_THREAD__   /* TSan refuses new threads in a child of a threaded fork */
    /* so does qemu-user 7.2 (its own assertion fails; make test-aarch64 sets CT_TEST_QEMU) */
    if (getenv("CT_TEST_QEMU")) printf("skip test_pool_after_fork: qemu-user\n");
    else RUN(test_pool_after_fork);
#endif
    return ct_t_summary();
}
