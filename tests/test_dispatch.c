/* test_dispatch.c - the spine seen from outside: the dispatch hook (a small
   tracer that records a training step), ct_dispatch by stable name, kernel slots
   per backend, devices (type + index) and ct_to_device, owned quantization
   parameters, and output shapes that would overflow int64. */
/* This test holds its own implementation: a stand-in quantized backend needs a
   meta function, which uses the call record's internals (as ctensor_quant.h will). */
#define CTENSOR_IMPLEMENTATION
#include "ct_test.h"
#include "ctensor_nn.h"
#include <pthread.h>

/* ---- a test tracer: records each call as "schema_name(attrs)" ---- */
typedef struct tracer {
    int n, enters, fails, nested;
    char ops[256][48];
    char text[256][160];
    int depth0_only;
} tracer;
static void tracer_fn(const ct_dispatch_event *e, void *user) {
    tracer *tr = (tracer *)user;
    if (e->phase == CT_DISPATCH_ENTER) { tr->enters++; return; }
    if (e->phase == CT_DISPATCH_FAIL) { tr->fails++; return; }
    if (e->depth > 0) tr->nested++;
    if (tr->n < 256) {
        snprintf(tr->ops[tr->n], sizeof tr->ops[0], "%s", ct_op_schema_name(e->op));
        char a[120];
        ct_attrs_repr(e->op, e->attrs, a, sizeof a);
        snprintf(tr->text[tr->n], sizeof tr->text[0], "%s(%s)", ct_op_schema_name(e->op), a);
    }
    tr->n++;
}
static int tracer_find(const tracer *tr, const char *name, int from) {
    for (int k = from; k < tr->n && k < 256; k++)
        if (!strcmp(tr->ops[k], name)) return k;
    return -1;
}

TEST(test_listener_basics) {
    tracer tr;
    memset(&tr, 0, sizeof tr);
    int h = ct_add_dispatch_listener(tracer_fn, &tr, 0);
    CHECK(h > 0);
    ct_tensor *a = ct_ones(CT_FLOAT32, 2, 3);
    ct_tensor *b = ct_add(a, a);
    CHECK(b != NULL);
    CHECK(tracer_find(&tr, "aten::full", 0) >= 0);
    CHECK(tracer_find(&tr, "aten::add.Tensor", 0) >= 0);
    CHECK_EQ_INT(tr.enters, 0);    /* not asked for */
    int k = tracer_find(&tr, "aten::add.Tensor", 0);
    CHECK_STR(tr.text[k], "aten::add.Tensor(alpha=1.)");
    /* a failing call: no EXIT event, no FAIL event without ENTER */
    int before = tr.n;
    CHECK(ct_add(a, ct_ones(CT_FLOAT32, 4)) == NULL);
    CHECK_EQ_INT(tr.n, before + 1);   /* only the ones() factory */
    CHECK_EQ_INT(tr.fails, 0);
    CHECK_EQ_INT(ct_remove_dispatch_listener(h), CT_OK);
    before = tr.n;
    ct_add(a, a);
    CHECK_EQ_INT(tr.n, before);
    CHECK_ERR(ct_remove_dispatch_listener(h) == CT_OK, CT_ERR_ARG, "no listener");
    CHECK_ERR(ct_add_dispatch_listener(NULL, NULL, 0) > 0, CT_ERR_ARG, "fn is NULL");
    CHECK_ERR(ct_add_dispatch_listener(tracer_fn, &tr, 0x100) > 0, CT_ERR_ARG, "unknown flags");
    /* ENTER / FAIL pairs */
    memset(&tr, 0, sizeof tr);
    h = ct_add_dispatch_listener(tracer_fn, &tr, CT_LISTEN_ENTER);
    ct_add(a, a);
    CHECK_EQ_INT(tr.enters, 1);
    CHECK_EQ_INT(tr.n, 1);
    CHECK(ct_add(a, ct_ones(CT_FLOAT32, 4)) == NULL);
    CHECK_EQ_INT(tr.fails, 1);
    CHECK_EQ_INT(tr.enters, 3);       /* add, ones, add */
    ct_remove_dispatch_listener(h);
    /* too many listeners */
    int hs[16], nh = 0;
    for (int i = 0; i < 16; i++) {
        int x = ct_add_dispatch_listener(tracer_fn, &tr, 0);
        if (x > 0) hs[nh++] = x;
    }
    CHECK(nh < 16);
    CHECK(strstr(ct_last_error(), "listeners") != NULL);
    ct_clear_error();
    for (int i = 0; i < nh; i++) ct_remove_dispatch_listener(hs[i]);
}

/* a listener that runs ops itself: they are not observed (no recursion) */
static int self_calls;
static void busy_listener(const ct_dispatch_event *e, void *user) {
    (void)user;
    if (e->phase != CT_DISPATCH_EXIT) return;
    self_calls++;
    CT_SCOPE { ct_sum(ct_ones(CT_FLOAT32, 3)); }
}
TEST(test_listener_runs_ops) {
    self_calls = 0;
    int h = ct_add_dispatch_listener(busy_listener, NULL, 0);
    ct_tensor *x = ct_ones(CT_FLOAT32, 3);
    ct_neg(x);
    CHECK_EQ_INT(self_calls, 2);
    ct_remove_dispatch_listener(h);
}

/* listeners are per thread */
static void *other_thread(void *arg) {
    CT_SCOPE { ct_add(ct_ones(CT_FLOAT32, 2), ct_ones(CT_FLOAT32, 2)); }
    ct_thread_cleanup();
    return arg;
}
TEST(test_listener_per_thread) {
    tracer tr;
    memset(&tr, 0, sizeof tr);
    int h = ct_add_dispatch_listener(tracer_fn, &tr, 0);
    pthread_t th;
    pthread_create(&th, NULL, other_thread, NULL);
    pthread_join(th, NULL);
    CHECK_EQ_INT(tr.n, 0);
    ct_remove_dispatch_listener(h);
}

/* nested calls (ops run inside another op's kernel) only with CT_LISTEN_NESTED */
TEST(test_listener_nested) {
    tracer a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    int ha = ct_add_dispatch_listener(tracer_fn, &a, 0), hb = ct_add_dispatch_listener(tracer_fn, &b, CT_LISTEN_NESTED);
    ct_tensor *x = ct_randn(CT_FLOAT64, 4, 5);
    ct_tensor *s = ct_std_dims(x, CT_DIMS(1), 1.0, 0);   /* a reduction whose kernel may call ops */
    CHECK(s != NULL);
    CHECK_EQ_INT(a.nested, 0);
    CHECK(b.n >= a.n);
    ct_remove_dispatch_listener(ha);
    ct_remove_dispatch_listener(hb);
}

/* The proof the issue asks for: a tracer on the hook records a training step:
   forward ops, the loss, the backward rules' ops and the optimizer's update. */
TEST(test_trace_training_step) {
    ct_manual_seed(0);
    ct_module *model = ct_nn_sequential(ct_nn_linear(4, 8), ct_nn_relu(), ct_nn_linear(8, 2));
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.1;
    so.momentum = 0.9;
    ct_optimizer *opt = ct_optim_sgd(model, &so);
    CHECK(model && opt);
    tracer tr;
    memset(&tr, 0, sizeof tr);
    ct_tensor *x = ct_randn(CT_FLOAT32, 3, 4), *y = ct_randn(CT_FLOAT32, 3, 2);
    int h = ct_add_dispatch_listener(tracer_fn, &tr, 0);
    ct_zero_grad(opt);
    ct_tensor *loss = ct_mse_loss(ct_forward(model, x), y, NULL);
    int mark_fwd = tr.n;
    CHECK_EQ_INT(ct_backward(loss), CT_OK);
    int mark_bwd = tr.n;
    CHECK_EQ_INT(ct_step(opt), CT_OK);
    ct_remove_dispatch_listener(h);
    int fwd = tracer_find(&tr, "aten::addmm", 0);
    if (fwd < 0) fwd = tracer_find(&tr, "aten::mm", 0);
    int relu = tracer_find(&tr, "aten::relu", 0);
    int mse = tracer_find(&tr, "aten::mse_loss", 0);
    CHECK(fwd >= 0 && fwd < mark_fwd);
    CHECK(relu > fwd && relu < mark_fwd);
    CHECK(mse > relu && mse < mark_fwd);
    /* backward: the loss's own backward op, then matrix products for the weights */
    int msebw = tracer_find(&tr, "aten::mse_loss_backward", mark_fwd);
    int mmbw = tracer_find(&tr, "aten::mm", mark_fwd);
    CHECK(msebw >= mark_fwd && msebw < mark_bwd);
    CHECK(mmbw >= mark_fwd && mmbw < mark_bwd);
    /* the update: one fused SGD op per parameter (4 parameters) */
    int updates = 0;
    for (int k = mark_bwd; k < tr.n && k < 256; k++) updates += !strcmp(tr.ops[k], "ct::_fused_sgd_");
    CHECK_EQ_INT(updates, 4);
    /* every recorded call is printable and its text parses back */
    for (int k = 0; k < tr.n && k < 256; k++) {
        int op = ct_op_find(tr.ops[k]);
        CHECK(op >= 0);
        const char *open = strchr(tr.text[k], '(');
        char attrs[160];
        snprintf(attrs, sizeof attrs, "%s", open + 1);
        attrs[strlen(attrs) - 1] = 0;
        ct_attrs back;
        CHECK_EQ_INT(ct_attrs_parse(op, attrs, &back), CT_OK);
    }
    ct_optim_free(opt);
    ct_module_free(model);
}

/* ---- ct_dispatch by stable name ---- */
TEST(test_dispatch_by_name) {
    int add = ct_op_find("aten::add.Tensor");
    CHECK(add >= 0);
    CHECK_EQ_INT(ct_op_find("add"), add);
    CHECK_EQ_INT(ct_op_find("aten::no_such_op"), -1);
    CHECK_STR(ct_op_name(add), "add");
    CHECK_STR(ct_op_backward_name(add), "AddBackward0");
    CHECK_EQ_INT(ct_op_num_inputs(add), 2);
    CHECK_EQ_INT(ct_op_num_outputs(add), 1);
    /* companion ops are found by name too (registered when the program loaded) */
    CHECK(ct_op_find("aten::native_layer_norm") >= 0);
    CHECK(ct_op_find("ct::_fused_adam_") >= 0);
    ct_attrs a;
    CHECK_EQ_INT(ct_attrs_parse(add, "alpha=2.5", &a), CT_OK);
    ct_tensor *in[2], *out[2];
    in[0] = ct_tensor_f64(((double[]){1, 2}), 2);
    in[1] = ct_tensor_f64(((double[]){10, 20}), 2);
    CHECK_EQ_INT(ct_dispatch(add, 2, in, &a, NULL, 0, out, 2), 1);
    CHECK_VALUES(out[0], ((double[]){26, 52}), 2, 0);
    /* in place: the _ form */
    CHECK_EQ_INT(ct_dispatch(add, 2, in, &a, NULL, 1, out, 2), 1);
    CHECK(out[0] == in[0]);
    CHECK_VALUES(in[0], ((double[]){26, 52}), 2, 0);
    /* no attributes: PyTorch's defaults (alpha=1) */
    CHECK_EQ_INT(ct_dispatch(add, 2, in, NULL, NULL, 0, out, 2), 1);
    CHECK_VALUES(out[0], ((double[]){36, 72}), 2, 0);
    ct_attrs dv;
    int var = ct_op_find("aten::var.correction");
    ct_attr_value cv;
    CHECK(ct_attrs_defaults(var, &dv) == CT_OK && ct_attrs_get(var, &dv, "correction", &cv) == CT_OK && cv.f == 1.0);
    char dtext[128];
    ct_attrs_repr(ct_op_find("aten::softplus"), NULL, dtext, sizeof dtext);
    ct_attrs_defaults(ct_op_find("aten::softplus"), &dv);
    ct_attrs_repr(ct_op_find("aten::softplus"), &dv, dtext, sizeof dtext);
    CHECK_STR(dtext, "beta=1., threshold=20.");
    CHECK_ERR(ct_dispatch(add, 1, in, &a, NULL, 0, out, 2) >= 0, CT_ERR_ARG, "takes 2 inputs");
    CHECK_ERR(ct_dispatch(-3, 1, in, &a, NULL, 0, out, 2) >= 0, CT_ERR_ARG, "no op with id -3");
    CHECK_ERR(ct_dispatch(ct_num_ops(), 1, in, &a, NULL, 0, out, 2) >= 0, CT_ERR_ARG, "no op with id");
    char sch[256];
    ct_op_schema(add, sch, sizeof sch);
    CHECK(strstr(sch, "aten::add.Tensor(Tensor, Tensor") == sch);
    /* a random op replays exactly from a copy of its generator */
    ct_generator g1, g2;
    ct_generator_init(&g1, 7);
    g2 = g1;
    int uni = ct_op_find("aten::uniform_");
    CHECK(ct_op_flags(uni) & CT_OP_RANDOM);
    ct_tensor *u1 = ct_uniform_(ct_empty(CT_FLOAT32, 5), -1, 1, &g1);
    ct_tensor *t2 = ct_empty(CT_FLOAT32, 5), *o2;
    ct_attrs ua;
    CHECK_EQ_INT(ct_attrs_parse(uni, "from=-1., to=1.", &ua), CT_OK);
    CHECK_EQ_INT(ct_dispatch(uni, 1, &t2, &ua, &g2, 0, &o2, 1), 1);
    CHECK(ct_item(ct_all(ct_eq(u1, t2))) == 1.0);
}

/* ---- kernels per backend ---- */
static int custom_calls, custom_metas;
/* a quantized-backend meta: same shape, same (quantized) dtype */
static int custom_q_meta(ct_op_call *c) {
    ct__outinfo *o = &c->oi[0];
    custom_metas++;
    c->nout = 1;
    o->kind = CT__OUT_NEW;
    o->dtype = c->in[0]->dtype;
    o->ndim = c->in[0]->ndim;
    o->has_strides = 0;
    for (int d = 0; d < o->ndim; d++) o->shape[d] = c->in[0]->shape[d];
    return 0;
}
static int custom_neg_kernel(ct_op_call *c) {
    (void)c;
    custom_calls++;
    ct_set_error(CT_ERR_UNSUPPORTED, "custom kernel ran");
    return -1;
}
TEST(test_backend_kernels) {
    ct_tensor *x = ct_ones(CT_FLOAT32, 3);
    /* a registered CPU kernel replaces the row's own; NULL restores it */
    CHECK_EQ_INT(ct_register_kernel("aten::neg", CT_BACKEND_CPU, custom_neg_kernel), CT_OK);
    custom_calls = 0;
    CHECK_ERR(ct_neg(x), CT_ERR_UNSUPPORTED, "custom kernel ran");
    CHECK_EQ_INT(custom_calls, 1);
    CHECK_EQ_INT(ct_register_kernel("aten::neg", CT_BACKEND_CPU, NULL), CT_OK);
    CHECK_VALUES(ct_neg(x), ((double[]){-1, -1, -1}), 3, 0);
    /* a quantized input selects QuantizedCPU: no silent fallback to the CPU kernel */
    ct_tensor *q = ct_empty(CT_QINT8, 3);
    CHECK(q != NULL);
    CHECK_ERR(ct_neg(q), CT_ERR_DTYPE, "Could not run 'aten::neg' with arguments from the 'QuantizedCPU' backend");
    /* a kernel alone runs after the op's own meta, which refuses quantized dtypes */
    CHECK_EQ_INT(ct_register_kernel("neg", CT_BACKEND_QUANTIZED_CPU, custom_neg_kernel), CT_OK);
    custom_calls = 0;
    CHECK_ERR(ct_neg(q), CT_ERR_DTYPE, "neg: not implemented for 'QInt8'");
    CHECK_EQ_INT(custom_calls, 0);
    /* with its own meta the backend takes the op over */
    CHECK_EQ_INT(ct_register_backend_op("neg", CT_BACKEND_QUANTIZED_CPU, custom_q_meta, custom_neg_kernel), CT_OK);
    custom_calls = custom_metas = 0;
    CHECK_ERR(ct_neg(q), CT_ERR_UNSUPPORTED, "custom kernel ran");
    CHECK_EQ_INT(custom_metas, 1);
    CHECK_EQ_INT(custom_calls, 1);
    /* the CPU backend keeps the op's own meta and kernel */
    CHECK_VALUES(ct_neg(x), ((double[]){-1, -1, -1}), 3, 0);
    ct_register_backend_op("neg", CT_BACKEND_QUANTIZED_CPU, NULL, NULL);
    CHECK_ERR(ct_register_kernel("aten::nope", CT_BACKEND_CPU, NULL) == CT_OK, CT_ERR_ARG, "no op named 'aten::nope'");
    CHECK_ERR(ct_register_kernel("aten::neg", (ct_backend)9, NULL) == CT_OK, CT_ERR_ARG, "invalid backend 9");
    CHECK_STR(ct_backend_name(CT_BACKEND_QUANTIZED_CUDA), "QuantizedCUDA");
}

/* ---- devices: a stand-in "CUDA" backend built from host memory proves the
   slots: allocator per device type, the _to_copy kernel on the CUDA backend,
   device checks naming both devices, and gradients that flow back. ---- */
static void *fake_alloc(size_t n, ct_device d, void *u) {
    (void)u;
    if (n > ((size_t)1 << 30)) {   /* a device allocator that says why it failed (ctensor_cuda.h does) */
        ct_set_error(CT_ERR_MEMORY, "fake device out of memory on cuda:%d", (int)d.index);
        return NULL;
    }
    return malloc(n);
}
static void fake_free(void *p, ct_device d, void *u) { (void)d; (void)u; free(p); }
static int fake_copies;
static int fake_to_copy(ct_op_call *c) {
    /* host memory on both sides: a plain strided copy through the CPU path */
    ct_tensor *in = ct_op_call_input(c, 0), *out = ct_op_call_output(c, 0);
    /* a host view of the input: the stand-in device memory is host memory */
    ct_tensor *src = ct_from_blob(ct_data_ptr(in), in->dtype, in->ndim, in->shape, in->strides, NULL, NULL);
    ct_tensor *conv = src ? ct_contiguous(ct_to(src, out->dtype)) : NULL;
    if (!conv) return -1;
    memcpy(ct_data_ptr(out), ct_data_ptr(conv), (size_t)ct_numel(conv) * ct_dtype_size(conv->dtype));
    fake_copies++;
    return 0;
}
static int fake_mul(ct_op_call *c) { (void)c; ct_set_error(CT_ERR_UNSUPPORTED, "fake mul"); return -1; }
TEST(test_devices) {
    char buf[24];
    CHECK_STR(ct_device_str(ct_cuda(1), buf, sizeof buf), "cuda:1");
    CHECK_STR(ct_device_str(ct_cpu(), buf, sizeof buf), "cpu");
    ct_device d;
    CHECK(ct_device_parse("cuda:3", &d) == 0 && d.type == CT_CUDA && d.index == 3);
    CHECK(ct_device_parse("cuda", &d) == 0 && d.type == CT_CUDA && d.index == 0);
    CHECK(ct_device_parse("cpu", &d) == 0 && d.type == CT_CPU);
    CHECK_ERR(ct_device_parse("tpu:0", &d) == 0, CT_ERR_ARG, "Expected one of cpu, cuda");
    CHECK_ERR(ct_device_parse("cuda:x", &d) == 0, CT_ERR_ARG, "cuda:x");
    ct_tensor *x = ct_requires_grad(ct_tensor_f64(((double[]){1, 2, 3}), 3));
    /* already there: the same tensor (an alias), no copy */
    ct_tensor *same = ct_to_device(x, ct_cpu());
    CHECK(same && ct_data_ptr(same) == ct_data_ptr(x));
    /* no CUDA backend in this build */
    CHECK_ERR(ct_to_device(x, ct_cuda(0)), CT_ERR_DEVICE, "Could not run 'aten::_to_copy' with arguments from the 'CUDA' backend");
    CHECK_ERR(ct_to_device(x, ct_device_of(CT_CPU, 2)), CT_ERR_DEVICE, "invalid device");
    /* a stand-in CUDA backend */
    ct_allocator al = {fake_alloc, fake_free, NULL};
    CHECK_EQ_INT(ct_set_allocator(CT_CUDA, &al), CT_OK);
    CHECK_EQ_INT(ct_register_kernel("aten::_to_copy", CT_BACKEND_CUDA, fake_to_copy), CT_OK);
    fake_copies = 0;
    ct_tensor *g = ct_to_device(x, ct_cuda(1));
    CHECK(g && g->device.type == CT_CUDA && g->device.index == 1 && ct_device_eq(ct_get_device(g), ct_cuda(1)));
    CHECK_EQ_INT(fake_copies, 1);
    CHECK(ct_to_device(g, ct_cuda(1)) != NULL);   /* already there */
    CHECK_EQ_INT(fake_copies, 1);
    /* a device tensor prints through a host copy made by its backend, with its device */
    CHECK_REPR(g, "tensor([1., 2., 3.], device='cuda:1', dtype=torch.float64,\n       grad_fn=<ToCopyBackward0>)");   /* PyTorch wraps at 80 too */
    CHECK_EQ_INT(fake_copies, 2);
    /* the allocator's own message is kept; a success after an error leaves the error as it was */
    CHECK_ERR(ct_empty_on(ct_cuda(1), CT_FLOAT32, (int64_t)1 << 29), CT_ERR_MEMORY, "fake device out of memory on cuda:1");
    ct_set_error(CT_ERR_ARG, "an earlier error");
    CHECK(ct_empty_on(ct_cuda(1), CT_FLOAT32, 4) != NULL);
    CHECK(ct_last_error_code() == CT_ERR_ARG && !strcmp(ct_last_error(), "an earlier error"));
    ct_clear_error();
    /* mixing devices names both */
    CHECK_ERR(ct_add(x, g), CT_ERR_DEVICE, "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:1!");
    CHECK_ERR(ct_add(g, ct_to_device(x, ct_cuda(0))), CT_ERR_DEVICE, "cuda:1 and cuda:0");
    /* an op with no kernel for the device */
    CHECK_ERR(ct_mul(g, g), CT_ERR_DEVICE, "Could not run 'aten::mul.Tensor' with arguments from the 'CUDA' backend");
    ct_register_kernel("aten::mul.Tensor", CT_BACKEND_CUDA, fake_mul);
    CHECK_ERR(ct_mul(g, g), CT_ERR_UNSUPPORTED, "fake mul");
    ct_register_kernel("aten::mul.Tensor", CT_BACKEND_CUDA, NULL);
    /* 0-d CPU tensors go with any device (the device check lets them through) */
    ct_clear_error();
    CHECK_ERR(ct_mul(g, ct_scalar_tensor(2.0, CT_FLOAT64)), CT_ERR_DEVICE, "'CUDA' backend");
    /* to_device is differentiable: the gradient comes back to the CPU */
    ct_tensor *back = ct_to_device(g, ct_cpu());
    CHECK(back && back->device.type == CT_CPU);
    CHECK_EQ_INT(ct_backward(ct_sum(back)), CT_OK);
    CHECK_VALUES(ct_grad(x), ((double[]){1, 1, 1}), 3, 0);
    CHECK(ct_to_device_dtype(x, ct_cuda(0), CT_FLOAT32) != NULL && ct_get_dtype(ct_to_device_dtype(x, ct_cuda(0), CT_FLOAT32)) == CT_FLOAT32);
    ct_register_kernel("aten::_to_copy", CT_BACKEND_CUDA, NULL);
    CHECK_EQ_INT(ct_set_allocator(CT_CUDA, NULL), CT_OK);
    CHECK_ERR(ct_set_allocator((ct_device_type)7, NULL) == CT_OK, CT_ERR_DEVICE, "invalid device type 7");
}

/* ---- owned quantization parameters ---- */
TEST(test_qparams) {
    int64_t live = ct_live_tensors();
    CT_SCOPE {
        ct_tensor *q = ct_empty(CT_QINT8, 2, 3);
        ct_qparams *p = ct_qparams_per_tensor(0.5, 3, CT_PER_TENSOR_AFFINE);
        CHECK(p && p->refcount == 1);
        CHECK_EQ_INT(ct_set_qparams(q, p), CT_OK);
        CHECK_EQ_INT(p->refcount, 2);
        ct_tensor *v = ct_select(q, 0, 1);          /* views share the parameters */
        CHECK(ct_get_qparams(v) == p);
        CHECK_EQ_INT(p->refcount, 3);
        ct_qparams_release(p);                      /* the tensors keep them alive */
        CHECK(ct_get_qparams(q)->scale == 0.5 && ct_get_qparams(q)->zero_point == 3);
        double sc[3] = {0.1, 0.2, 0.3};
        int64_t zp[3] = {0, 1, 2};
        ct_qparams *pc = ct_qparams_per_channel(3, sc, zp, 1, CT_PER_CHANNEL_AFFINE);
        CHECK(pc != NULL);
        CHECK_EQ_INT(ct_set_qparams(q, pc), CT_OK);  /* replaces; the view keeps the old ones */
        CHECK(ct_get_qparams(v)->qscheme == CT_PER_TENSOR_AFFINE);
        CHECK(ct_get_qparams(q)->scales[2] == 0.3);
        ct_qparams_release(pc);
        CHECK_ERR(ct_set_qparams(ct_zeros(CT_FLOAT32, 2), ct_get_qparams(v) ? (ct_qparams *)ct_get_qparams(v) : NULL) == CT_OK,
                  CT_ERR_DTYPE, "is not quantized");
        ct_qparams *bad = ct_qparams_per_channel(4, (double[]){1, 1, 1, 1}, (int64_t[]){0, 0, 0, 0}, 0, CT_PER_CHANNEL_SYMMETRIC);
        CHECK_ERR(ct_set_qparams(q, bad) == CT_OK, CT_ERR_SHAPE, "do not fit a tensor of shape [2, 3]");
        ct_qparams_release(bad);
        CHECK_ERR(ct_qparams_per_tensor(0.0, 0, CT_PER_TENSOR_AFFINE), CT_ERR_ARG, "scale must be a positive finite number, got 0");
        CHECK_ERR(ct_qparams_per_tensor(1.0, 0, CT_PER_CHANNEL_AFFINE), CT_ERR_ARG, "is not a per-tensor scheme");
        CHECK_ERR(ct_qparams_per_channel(2, sc, zp, 0, CT_PER_TENSOR_AFFINE), CT_ERR_ARG, "is not a per-channel scheme");
        CHECK_ERR(ct_qparams_per_channel(2, (double[]){1, -1}, zp, 0, CT_PER_CHANNEL_AFFINE), CT_ERR_ARG, "scale 1 must be");
    }
    CHECK_EQ_INT(ct_live_tensors(), live);   /* ASan: the parameters were freed with the last tensor */
}

/* ---- output shapes that overflow int64 are refused by the dispatcher (and
   metas do not overflow computing them); under ASan+UBSan nothing is written
   out of bounds ---- */
TEST(test_overflowing_shapes) {
    int64_t big = (int64_t)1 << 62;
    ct_tensor *x3 = ct_ones(CT_FLOAT32, 3);
    CHECK(ct_pad(x3, 2, ((int64_t[]){big, big}), NULL, 0) == NULL);
    CHECK(ct_last_error_code() != CT_OK);
    ct_clear_error();
    CHECK(ct_contiguous(ct_expand(ct_ones(CT_FLOAT32, 1, 1), 4, big)) == NULL);
    CHECK(strstr(ct_last_error(), "overflow") != NULL);
    ct_clear_error();
    ct_tensor *idx = ct_tensor_i64(((int64_t[]){0, 1}), 2);
    CHECK(ct_one_hot(idx, big) == NULL);
    ct_clear_error();
    CHECK(ct_one_hot(idx, (int64_t)0x6DB6DB6DB6DB6DB7LL) == NULL);
    ct_clear_error();
    CHECK(ct_repeat(x3, 1, ((int64_t[]){big})) == NULL);
    ct_clear_error();
    CHECK(ct_repeat_interleave(x3, big, 0) == NULL);
    ct_clear_error();
    /* a huge view is fine while it fits int64 (PyTorch allows it), a copy is not */
    ct_tensor *v = ct_expand(ct_ones(CT_FLOAT32, 1, 1), 1, big);
    CHECK(v && ct_numel(v) == big);
    CHECK(ct_contiguous(v) == NULL);
    ct_clear_error();
}

int main(void) {
    ct_t_init();
    RUN(test_listener_basics);
    RUN(test_listener_runs_ops);
    RUN(test_listener_per_thread);
    RUN(test_listener_nested);
    RUN(test_trace_training_step);
    RUN(test_dispatch_by_name);
    RUN(test_backend_kernels);
    RUN(test_devices);
    RUN(test_qparams);
    RUN(test_overflowing_shapes);
    return ct_t_summary();
}
