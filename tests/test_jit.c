/* test_jit.c - ctensor_jit.h: tracing, the graph text, the interpreter, every
   pass (each checked for equivalence against eager execution), save/load with a
   corrupted-file sweep, the builder, export to standalone C (compiled with
   `cc -std=c99` and run), autograd through a graph run (gradcheck), warnings,
   dynamic batch, and bad input for every public function. Models: an MLP, the
   Fashion-MNIST-style CNN with batch norm, a transformer encoder layer, and a
   20-op elementwise chain. Eager execution is the reference: the interpreter
   runs the same kernels, so unfused graphs match bit for bit; folded and fused
   graphs within float tolerance. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L   /* mkdtemp */
#endif
#ifndef CT_TEST_SHARED_IMPL   /* else linked from tests/ct_impl.c (Makefile) */
#define CTENSOR_IMPLEMENTATION
#endif
#include "ct_test.h"
#include "ctensor_nn.h"
#include "ctensor_quant.h"   /* graph-mode quantization */
#include "ctensor_jit.h"
#include "bench/jit_chain.h"   /* the 20-op chain bench/jit.c times */
#include <stdint.h>
#ifndef CTENSOR_NO_THREADS
#include <pthread.h>
#endif
#include <unistd.h>

/* files go to a private temporary folder (the suite runs builds side by side) */
static char tdir[64];
static const char *tpath(const char *name) {
    static char buf[4][256];
    static int k;
    if (!tdir[0]) {
        snprintf(tdir, sizeof tdir, "/tmp/ct_test_jit_XXXXXX");
        if (!mkdtemp(tdir)) snprintf(tdir, sizeof tdir, ".");
    }
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tdir, name);
    return buf[k];
}

static double maxdiff(ct_tensor *a, ct_tensor *b) {
    if (!a || !b || !ct_same_shape(a, b)) return INFINITY;
    return ct_item(ct_amax(ct_abs(ct_sub(ct_to(a, CT_FLOAT64), ct_to(b, CT_FLOAT64))), 0, NULL, 0));
}
static int bit_equal(ct_tensor *a, ct_tensor *b) {
    if (!a || !b || !ct_same_shape(a, b) || ct_get_dtype(a) != ct_get_dtype(b)) return 0;
    ct_tensor *ca = ct_contiguous(a), *cb = ct_contiguous(b);
    return !memcmp(ct_data_ptr(ca), ct_data_ptr(cb), (size_t)ct_numel(a) * ct_dtype_size(ct_get_dtype(a)));
}
static ct_tensor *param(ct_module *m, const char *name) {
    ct_state_dict sd;
    ct_tensor *t = NULL;
    ct_module_state_dict(m, &sd);
    for (int i = 0; i < sd.n; i++) if (!strcmp(sd.items[i].name, name)) t = sd.items[i].tensor;
    ct_state_dict_free(&sd);
    return t;
}
static ct_tensor *run1(const ct_graph *g, ct_tensor *x) {
    ct_tensor *y = NULL;
    return ct_graph_run(g, 1, &x, &y, 1) == 1 ? y : NULL;
}
static ct_module *make_cnn(void) {
    ct_module *m = ct_nn_sequential(ct_nn_conv2d(1, 8, 3, 1, 1), ct_nn_batch_norm2d(8), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                                    ct_nn_conv2d(8, 16, 3, 1, 1), ct_nn_batch_norm2d(16), ct_nn_relu(), ct_nn_max_pool2d(2, 2),
                                    ct_nn_flatten(), ct_nn_linear(16 * 7 * 7, 10));
    /* running statistics that are not the defaults, so folding has work to do */
    CT_NO_GRAD {
        ct_state_dict sd;
        ct_module_state_dict(m, &sd);
        for (int i = 0; i < sd.n; i++) {
            if (strstr(sd.items[i].name, "running_var")) ct_copy_(sd.items[i].tensor, ct_add_scalar(ct_rand_like(sd.items[i].tensor, NULL), 0.5));
            if (strstr(sd.items[i].name, "running_mean")) ct_copy_(sd.items[i].tensor, ct_randn_like(sd.items[i].tensor, NULL));
        }
        ct_state_dict_free(&sd);
    }
    return ct_module_eval(m);
}

TEST(test_mlp_trace_run_optimize) {
    ct_manual_seed(1);
    ct_module *m = ct_nn_sequential(ct_nn_linear(12, 16), ct_nn_relu(), ct_nn_linear(16, 4));
    ct_tensor *x = ct_randn(CT_FLOAT32, 5, 12);
    ct_tensor *ref = ct_forward(m, x);
    ct_graph *g = ct_trace_module(m, 1, &x);
    CHECK(g != NULL);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    CHECK_EQ_INT(ct_graph_num_inputs(g), 1);
    CHECK_EQ_INT(ct_graph_num_outputs(g), 1);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::addmm"), 2);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::relu"), 1);
    CHECK(bit_equal(run1(g, x), ref));             /* the same kernels: the same bits */
    char text[4096];
    ct_graph_repr(g, text, sizeof text);
    CHECK(strstr(text, "graph(%x0 : Float(5, 12)):") != NULL);
    CHECK(strstr(text, "%0.weight : Float(16, 12) = prim::Param[name=\"0.weight\"]()") != NULL);
    CHECK(strstr(text, "aten::addmm[beta=1., alpha=1.](%0.bias, %x0, ") != NULL);
    /* parameters are references: training the model changes the traced graph's result */
    CT_NO_GRAD { ct_mul_scalar_(param(m, "2.bias"), 2.0); }
    ct_tensor *ref2 = ct_forward(m, x);
    CHECK(bit_equal(run1(g, x), ref2));
    /* optimize: frozen (copies), transposes folded into constants */
    CHECK_EQ_INT(ct_jit_optimize(g), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::permute"), 0);
    CHECK(maxdiff(run1(g, x), ref2) <= 1e-6);
    CT_NO_GRAD { ct_mul_scalar_(param(m, "2.bias"), 2.0); }
    CHECK(maxdiff(run1(g, x), ref2) <= 1e-6);      /* frozen: the model's change does not reach it */
    const char *ops[8];
    int nops = ct_graph_ops_used(g, ops, 8);
    CHECK_EQ_INT(nops, 2);
    if (nops == 2) { CHECK_STR(ops[0], "aten::addmm"); CHECK_STR(ops[1], "aten::relu"); }
    /* the selective build of the graph: its ops, then the interpreter's alias */
    char *sel = NULL;
    size_t sellen = 0;
    CHECK_EQ_INT(ct_jit_export_selected_ops_mem(g, &sel, &sellen), CT_OK);
    if (sel) {
        CHECK_EQ_INT((int)strlen(sel), (int)sellen);
        const char *want[] = {"\n#define CTENSOR_SELECTED_OPS 1\n", "\n#define CTENSOR_OP_ADDMM 1   /* aten::addmm */\n",
                              "\n#define CTENSOR_OP_RELU 1   /* aten::relu */\n", "\n#define CTENSOR_OP_ALIAS 1   /* aten::alias: the interpreter"};
        const char *at = sel;
        for (int k = 0; k < 4; k++) { const char *f = strstr(at, want[k]); CHECK(f != NULL); if (f) at = f; }
        CHECK(strstr(sel, "CTENSOR_JIT_USES_") == NULL);   /* ctensor.h's ops only */
        CHECK(strstr(sel, "CTENSOR_OP_CLONE") == NULL);    /* no fused group */
        ct_free(sel);
    }
    ct_graph_free(g);
    ct_module_free(m);
}

TEST(test_cnn_conv_bn_folding) {
    ct_manual_seed(2);
    ct_module *m = make_cnn();
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 1, 28, 28);
    ct_tensor *ref = ct_forward(m, x);
    ct_graph *g = ct_trace_module(m, 1, &x);
    CHECK(g != NULL);
    CHECK(bit_equal(run1(g, x), ref));
    CHECK_EQ_INT(ct_graph_count_op(g, "ct::batch_norm_eval"), 2);
    ct_graph *frozen = ct_graph_clone(g);
    CHECK_EQ_INT(ct_jit_freeze(frozen), CT_OK);
    CHECK(maxdiff(run1(frozen, x), ref) <= 1e-5);
    CHECK_EQ_INT(ct_jit_fold_conv_bn(frozen), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(frozen, "ct::batch_norm_eval"), 0);
    CHECK_EQ_INT(ct_graph_count_op(frozen, "aten::conv2d"), 2);
    CHECK(maxdiff(run1(frozen, x), ref) <= 1e-4);
    /* the ReLUs go into the convolutions' epilogues (ct::conv2d_relu) */
    CHECK_EQ_INT(ct_jit_fuse_activation(frozen), CT_OK);
    static char txt[8192];
    ct_graph_repr(frozen, txt, sizeof txt);
    CHECK(strstr(txt, "= ct::conv2d_relu[stride=[1, 1]") != NULL);
    CHECK_EQ_INT(ct_graph_count_op(frozen, "ct::conv2d_relu"), 2);
    CHECK_EQ_INT(ct_graph_count_op(frozen, "aten::relu") + ct_graph_count_op(frozen, "aten::conv2d"), 0);
    CHECK(maxdiff(run1(frozen, x), ref) <= 1e-4);
    /* folding needs constants: on the unfrozen graph it changes nothing */
    CHECK_EQ_INT(ct_jit_fold_conv_bn(g), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g, "ct::batch_norm_eval"), 2);
    /* a conv without bias (traced with two inputs) folds too, and gains the shift as its bias */
    ct_module *nb = ct_module_eval(ct_nn_sequential(ct_nn_conv2d_ex(3, 4, 3, 1, 1, 1, 1, 0), ct_nn_batch_norm2d(4), ct_nn_relu()));
    CT_NO_GRAD {
        ct_copy_(param(nb, "1.running_mean"), ct_randn(CT_FLOAT32, 4));
        ct_copy_(param(nb, "1.bias"), ct_randn(CT_FLOAT32, 4));
    }
    ct_tensor *xnb = ct_randn(CT_FLOAT32, 2, 3, 9, 9);
    ct_tensor *refnb = ct_forward(nb, xnb);
    ct_graph *gnb = ct_trace_module(nb, 1, &xnb);
    CHECK_EQ_INT(ct_jit_optimize(gnb), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(gnb), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(gnb, "ct::batch_norm_eval"), 0);
    ct_graph_repr(gnb, txt, sizeof txt);
    CHECK(strstr(txt, "= ct::conv2d_relu[") != NULL);      /* and the ReLU runs in the conv's epilogue */
    CHECK(maxdiff(run1(gnb, xnb), refnb) <= 1e-5);
    ct_graph_free(gnb);
    ct_module_free(nb);
    /* the selective build names ctensor_nn.h's rows and asks for the header */
    CHECK_EQ_INT(ct_jit_export_selected_ops(frozen, tpath("cnn_ops.h")), CT_OK);
    FILE *f = fopen(tpath("cnn_ops.h"), "rb");
    CHECK(f != NULL);
    if (f) {
        size_t n = fread(txt, 1, sizeof txt - 1, f);
        txt[n] = 0;
        fclose(f);
        CHECK(strstr(txt, "#define CTENSOR_OP_CONV2D_RELU 1   /* ct::conv2d_relu */") != NULL);
        CHECK(strstr(txt, "#define CTENSOR_OP_MAX_POOL2D 1   /* aten::max_pool2d_with_indices */") != NULL);
        CHECK(strstr(txt, "#define CTENSOR_JIT_USES_NN 1") != NULL);
        CHECK(strstr(txt, "BATCH_NORM") == NULL);          /* folded away */
        remove(tpath("cnn_ops.h"));
    }
    ct_graph_free(frozen);
    ct_graph_free(g);
    ct_module_free(m);
}

/* conv2d + relu -> ct::conv2d_relu (ctensor_nn.h's convolution with relu in its
   epilogue): Winograd's tiles (16 -> 16 channels) and the im2col path (1 -> 8), the
   eager bits, autograd through the fused op, save / load, a bad weight */
TEST(test_conv_relu_epilogue) {
    ct_manual_seed(21);
    ct_module *m = ct_module_eval(ct_nn_sequential(ct_nn_conv2d(1, 16, 3, 1, 1), ct_nn_relu(), ct_nn_conv2d(16, 16, 3, 1, 1),
                                                   ct_nn_relu()));
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 1, 16, 16);
    ct_tensor *ref = ct_forward(m, x);
    ct_graph *g = ct_trace_module(m, 1, &x);
    CHECK(g != NULL);
    CHECK_EQ_INT(ct_jit_optimize(g), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g, "ct::conv2d_relu"), 2);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::relu") + ct_graph_count_op(g, "aten::conv2d"), 0);
    CHECK(bit_equal(run1(g, x), ref));             /* relu's operation on the same products */
    /* autograd through the fused op: the input's gradient equals eager conv + relu's */
    ct_tensor *xg = ct_requires_grad(ct_clone(x));
    ct_tensor *yg = run1(g, xg);
    CHECK(yg != NULL);
    CHECK_EQ_INT(ct_backward(ct_sum(yg)), CT_OK);
    ct_tensor *xe = ct_requires_grad(ct_clone(x));
    CHECK_EQ_INT(ct_backward(ct_sum(ct_forward(m, xe))), CT_OK);
    CHECK(ct_grad(xg) && ct_grad(xe) && maxdiff(ct_grad(xg), ct_grad(xe)) <= 1e-5);
    /* the file keeps the op */
    void *data = NULL;
    size_t len = 0;
    CHECK_EQ_INT(ct_graph_save_mem(g, &data, &len), CT_OK);
    ct_graph *l = ct_graph_load_mem(data, len, "conv_relu.ctjit");
    CHECK(l && ct_graph_count_op(l, "ct::conv2d_relu") == 2 && bit_equal(run1(l, x), ref));
    ct_graph_free(l);
    ct_free(data);
    /* a bad geometry names the op (no attributes given: stride 0) */
    ct_graph *b = ct_graph_new();
    int64_t xs[4] = {1, 3, 5, 5};
    int in[2];
    in[0] = ct_graph_add_input(b, "x", CT_FLOAT32, 4, xs);
    in[1] = ct_graph_add_constant(b, "w", ct_randn(CT_FLOAT32, 4, 2, 3, 3));
    int out = -1;
    CHECK(ct_graph_add_node(b, "ct::conv2d_relu", 2, in, NULL, 1, &out) == 0);
    CHECK(ct_graph_set_outputs(b, 1, &out) == CT_OK);
    ct_tensor *bx = ct_randn(CT_FLOAT32, 1, 3, 5, 5);
    CHECK_ERR(run1(b, bx) != NULL, CT_ERR_ARG, "conv2d_relu: invalid convolution geometry");
    ct_graph_free(b);
    ct_graph_free(g);
    ct_module_free(m);
}

/* Linear + BatchNorm1d (eval) folds into one addmm; a bias-free Linear (mm) too */
TEST(test_linear_bn_folding) {
    ct_manual_seed(12);
    ct_module *m = ct_nn_sequential(ct_nn_linear(12, 16), ct_nn_batch_norm1d(16), ct_nn_relu(), ct_nn_linear_bias(16, 8, 0),
                                    ct_nn_batch_norm1d(8));
    CT_NO_GRAD {   /* statistics and affine parameters that are not the defaults */
        ct_state_dict sd;
        ct_module_state_dict(m, &sd);
        for (int i = 0; i < sd.n; i++) {
            const char *nm = sd.items[i].name;
            if (strstr(nm, "running_var")) ct_copy_(sd.items[i].tensor, ct_add_scalar(ct_rand_like(sd.items[i].tensor, NULL), 0.5));
            else if (strstr(nm, "running_mean") || (strstr(nm, "bias") && !strstr(nm, "0.")))
                ct_copy_(sd.items[i].tensor, ct_randn_like(sd.items[i].tensor, NULL));
            else if (strstr(nm, "1.weight") || strstr(nm, "4.weight"))
                ct_copy_(sd.items[i].tensor, ct_add_scalar(ct_rand_like(sd.items[i].tensor, NULL), 0.5));
        }
        ct_state_dict_free(&sd);
    }
    ct_module_eval(m);
    ct_tensor *x = ct_randn(CT_FLOAT32, 6, 12);
    ct_tensor *ref = ct_forward(m, x);
    ct_graph *g = ct_trace_module(m, 1, &x);
    CHECK(g != NULL);
    CHECK_EQ_INT(ct_graph_count_op(g, "ct::batch_norm_eval"), 2);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::mm"), 1);
    /* needs constants: the unfrozen graph is left alone */
    CHECK_EQ_INT(ct_jit_fold_linear_bn(g), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g, "ct::batch_norm_eval"), 2);
    CHECK_EQ_INT(ct_jit_freeze(g), CT_OK);
    CHECK_EQ_INT(ct_jit_fold_linear_bn(g), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g, "ct::batch_norm_eval"), 0);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::mm"), 0);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::addmm"), 2);
    CHECK(maxdiff(run1(g, x), ref) <= 1e-5);
    /* through a file, and ct_jit_optimize folds it as well */
    CHECK_EQ_INT(ct_graph_save(g, tpath("lbn.ctjit")), CT_OK);
    ct_graph *l = ct_graph_load(tpath("lbn.ctjit"));
    CHECK(l != NULL);
    CHECK(maxdiff(run1(l, x), ref) <= 1e-5);
    ct_graph_free(l);
    remove(tpath("lbn.ctjit"));
    ct_graph *g2 = ct_trace_module(m, 1, &x);
    CHECK_EQ_INT(ct_jit_optimize(g2), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g2, "ct::batch_norm_eval"), 0);
    CHECK(maxdiff(run1(g2, x), ref) <= 1e-5);
    ct_graph_free(g2);
    ct_graph_free(g);
    ct_module_free(m);
}

TEST(test_transformer_encoder_layer) {
    ct_manual_seed(3);
    ct_transformer_layer_options o = {0};
    o.dim_feedforward = 32;
    o.dropout = CT_ZERO;
    o.batch_first = 1;
    ct_module *m = ct_module_eval(ct_nn_transformer_encoder_layer(16, 2, &o));
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 5, 16);
    ct_tensor *ref = ct_forward(m, x);
    ct_graph *g = ct_trace_module(m, 1, &x);
    CHECK(g != NULL);
    CHECK(maxdiff(run1(g, x), ref) <= 1e-6);
    CHECK_EQ_INT(ct_jit_optimize(g), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    CHECK(maxdiff(run1(g, x), ref) <= 1e-5);
    ct_graph_free(g);
    ct_module_free(m);
}

TEST(test_trace_batch_norm_training) {
    /* A batch norm traced in training mode: each run of the graph updates the running
       statistics from its own batch, as the eager module does (the update reads the
       batch statistics; it once read the trace-time values as constants) */
    ct_manual_seed(41);
    ct_module *te = ct_module_train(ct_nn_batch_norm2d(4), 1), *tg = ct_module_train(ct_nn_batch_norm2d(4), 1);
    ct_tensor *a = ct_randn(CT_FLOAT32, 3, 4, 5, 5), *b = ct_add_scalar(ct_mul_scalar(ct_randn(CT_FLOAT32, 3, 4, 5, 5), 2.0), 1.0);
    ct_graph *g = ct_trace_module(tg, 1, &a);   /* runs tg once on a */
    CHECK(g != NULL);
    CHECK(ct_forward(te, a) != NULL);
    ct_tensor *yg = NULL;
    CHECK_EQ_INT(ct_graph_run(g, 1, &b, &yg, 1), 1);
    ct_tensor *ye = ct_forward(te, b);
    CHECK(ct_allclose(yg, ye, 1e-6, 1e-6) == 1);
    static const char *const names[2] = {"running_mean", "running_var"};
    for (int k = 0; k < 2; k++)
        CT_T_REPORT(ct_equal(ct_module_get(tg, names[k]), ct_module_get(te, names[k])) == 1, "the graph's run on a new batch: %s", names[k]);
    ct_graph_free(g);
    ct_module_free(te);
    ct_module_free(tg);
}

TEST(test_elementwise_fusion) {
    ct_manual_seed(4);
    /* large enough for the parallel path and several blocks; an odd size for the tail */
    ct_tensor *x = ct_randn(CT_FLOAT32, 70001);
    ct_tensor *ref = jit_chain20(x);
    CHECK(ct_trace_begin(1, &x) == CT_OK);
    CHECK(ct_is_tracing());
    ct_tensor *y = jit_chain20(x);
    ct_graph *g = ct_trace_end(1, &y);
    CHECK(!ct_is_tracing());
    CHECK(g != NULL);
    int before = ct_graph_num_nodes(g);
    CHECK(before >= 18);
    CHECK_EQ_INT(ct_jit_fuse_elementwise(g), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    CHECK_EQ_INT(ct_graph_num_nodes(g), 1);
    CHECK_EQ_INT(ct_graph_count_op(g, "prim::FusedElementwise"), 1);
    CHECK(maxdiff(run1(g, x), ref) <= 1e-6);
    /* the selective build lists the fused members, and clone for strided inputs */
    char *sel = NULL;
    size_t sellen = 0;
    CHECK_EQ_INT(ct_jit_export_selected_ops_mem(g, &sel, &sellen), CT_OK);
    if (sel) {
        CHECK(strstr(sel, "#define CTENSOR_OP_GELU 1") != NULL);
        CHECK(strstr(sel, "#define CTENSOR_OP_MAXIMUM 1") != NULL);
        CHECK(strstr(sel, "#define CTENSOR_OP_CLONE 1   /* aten::clone: the interpreter") != NULL);
        ct_free(sel);
    }
    /* float64 too, and an intermediate returned beside the result (two outputs) */
    ct_tensor *xd = ct_randn(CT_FLOAT64, 3, 7);
    ct_trace_begin(1, &xd);
    ct_tensor *a = ct_tanh(ct_mul_scalar(xd, 2.0));
    ct_tensor *b = ct_exp(ct_neg(a));
    ct_tensor *outs[2] = {a, b};
    ct_graph *g2 = ct_trace_end(2, outs);
    CHECK_EQ_INT(ct_jit_fuse_elementwise(g2), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g2, "prim::FusedElementwise"), 1);
    ct_tensor *r[2] = {NULL, NULL};
    CHECK_EQ_INT(ct_graph_run(g2, 1, &xd, r, 2), 2);
    CHECK(bit_equal(r[0], a));
    CHECK(bit_equal(r[1], b));
    /* a non-contiguous input of the traced shape still runs */
    ct_tensor *xt = ct_transpose(ct_randn(CT_FLOAT64, 7, 3), 0, 1);
    CHECK_EQ_INT(ct_graph_run(g2, 1, &xt, r, 2), 2);
    CHECK(maxdiff(r[1], ct_exp(ct_neg(ct_tanh(ct_mul_scalar(xt, 2.0))))) <= 1e-12);
    ct_graph_free(g2);
    ct_graph_free(g);
}

TEST(test_dce_cse_constants) {
    ct_tensor *x = ct_randn(CT_FLOAT32, 4, 4);
    ct_tensor *w = ct_randn(CT_FLOAT32, 4, 4);
    ct_trace_begin(1, &x);
    ct_tensor *dead = ct_exp(x);                   /* unused: removed when the trace ends */
    (void)dead;
    ct_tensor *a = ct_sin(x), *b = ct_sin(x);      /* the same call twice */
    ct_tensor *c = ct_add(ct_mul(a, b), ct_matmul(x, ct_transpose(w, 0, 1)));
    ct_graph *g = ct_trace_end(1, &c);
    CHECK(g != NULL);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::exp"), 0);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::sin"), 2);
    CHECK_EQ_INT(ct_jit_eliminate_common_subexpressions(g), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::sin"), 1);
    CHECK(bit_equal(run1(g, x), c));
    /* w is a captured constant: its transpose folds */
    int nodes = ct_graph_num_nodes(g);
    CHECK_EQ_INT(ct_jit_constant_propagation(g), CT_OK);
    CHECK_EQ_INT(ct_graph_num_nodes(g), nodes - 1);
    CHECK(bit_equal(run1(g, x), c));
    CHECK_EQ_INT(ct_jit_eliminate_dead_code(g), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    ct_graph_free(g);
}

TEST(test_save_load_roundtrip_and_corruption) {
    ct_manual_seed(5);
    ct_module *m = make_cnn();
    ct_tensor *x = ct_randn(CT_FLOAT32, 1, 1, 28, 28);
    ct_graph *g = ct_trace_module(m, 1, &x);
    ct_jit_optimize(g);
    ct_tensor *y = run1(g, x);
    void *data = NULL;
    size_t len = 0;
    CHECK_EQ_INT(ct_graph_save_mem(g, &data, &len), CT_OK);
    ct_graph *h = ct_graph_load_mem(data, len, "cnn.ctjit");
    CHECK(h != NULL);
    CHECK(bit_equal(run1(h, x), y));
    static char t1[16384], t2[16384];
    ct_graph_repr(g, t1, sizeof t1);
    ct_graph_repr(h, t2, sizeof t2);
    CHECK_STR(t2, t1);                             /* the text survives save and load */
    /* a graph with a fused node, in place ops and a dynamic batch, through a file */
    ct_tensor *xe = ct_randn(CT_FLOAT32, 3, 6);
    ct_trace_begin(1, &xe);
    ct_tensor *e = ct_relu_(ct_sigmoid(ct_mul_scalar(ct_tanh(xe), 2.0)));
    ct_graph *ge = ct_trace_end(1, &e);
    ct_jit_fuse_elementwise(ge);
    ct_graph_set_dynamic_batch(ge, 1);
    CHECK_EQ_INT(ct_graph_save(ge, tpath("g.ctjit")), CT_OK);
    ct_graph *he = ct_graph_load(tpath("g.ctjit"));
    remove(tpath("g.ctjit"));
    CHECK(he != NULL);
    ct_tensor *x9 = ct_randn(CT_FLOAT32, 9, 6);
    CHECK(bit_equal(run1(he, x9), run1(ge, x9)));
    ct_graph_repr(ge, t1, sizeof t1);
    ct_graph_repr(he, t2, sizeof t2);
    CHECK_STR(t2, t1);
    CHECK(strstr(t1, "graph(%x0 : Float(*, 6)):") != NULL);
    CHECK(strstr(t1, "aten::relu_(") != NULL);
    ct_graph_free(he);
    ct_graph_free(ge);
    /* corrupted files: clear errors, never a crash (ASan watches) */
    CHECK_ERR(ct_graph_load_mem(data, len / 2, "half.ctjit"), CT_ERR_FORMAT, "half.ctjit");
    CHECK_ERR(ct_graph_load("/nonexistent/model.ctjit"), CT_ERR_IO, "/nonexistent/model.ctjit");
    char *bad = (char *)malloc(len);
    const char *cases[][3] = {
        {"ct::conv2d_relu", "ct::conv9d_relu", "no op named 'ct::conv9d_relu'"},
        {"ctensor.jit.version\":\"1", "ctensor.jit.version\":\"7", "graph file version '7'"},
        {"return (%", "retvrn (%", "expected"},
        {"groups=1", "groups=x", "bad attributes"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memcpy(bad, data, len);
        char *at = NULL;
        for (size_t i = 0; i + strlen(cases[k][0]) <= len && !at; i++)
            if (!memcmp(bad + i, cases[k][0], strlen(cases[k][0]))) at = bad + i;
        CHECK(at != NULL);
        if (!at) continue;
        memcpy(at, cases[k][1], strlen(cases[k][1]));
        CHECK_ERR(ct_graph_load_mem(bad, len, "bad.ctjit"), CT_ERR_FORMAT, cases[k][2]);
    }
    /* a sweep of single-byte corruptions over the header and graph text */
    uint32_t seed = 12345;
    int loaded = 0, refused = 0;
    size_t hdr = (size_t)(((const unsigned char *)data)[0] | ((const unsigned char *)data)[1] << 8) + 8;
    for (int it = 0; it < 300; it++) {
        memcpy(bad, data, len);
        seed = seed * 1664525u + 1013904223u;
        size_t pos = 8 + (seed >> 8) % (hdr - 8);
        seed = seed * 1664525u + 1013904223u;
        bad[pos] = (char)(seed >> 24);
        ct_graph *q = ct_graph_load_mem(bad, len, "fuzz.ctjit");
        if (q) {
            loaded++;
            ct_tensor *r = NULL;
            ct_graph_run(q, 1, &x, &r, 1);         /* may fail (a changed shape), must not crash */
            ct_graph_free(q);
        } else {
            refused++;
            CHECK(ct_last_error_code() == CT_ERR_FORMAT || ct_last_error_code() == CT_ERR_MEMORY);
        }
    }
    CHECK(refused > 0);
    CHECK_EQ_INT(loaded + refused, 300);
    free(bad);
    ct_free(data);
    ct_graph_free(h);
    ct_graph_free(g);
    ct_module_free(m);
}

TEST(test_builder) {
    ct_graph *g = ct_graph_new();
    int64_t shp[2] = {2, 3};
    int x = ct_graph_add_input(g, "x", CT_FLOAT32, 2, shp);
    int c = ct_graph_add_constant(g, "scale", ct_full(CT_FLOAT32, 3.0, 3));
    int ins[2] = {x, c}, m = -1, r = -1;
    CHECK(x >= 0 && c >= 0);
    CHECK_EQ_INT(ct_graph_add_node(g, "aten::mul.Tensor", 2, ins, NULL, 1, &m), 0);
    CHECK_EQ_INT(ct_graph_add_node(g, "relu", 1, &m, NULL, 1, &r), 0);   /* short names work too */
    CHECK_EQ_INT(ct_graph_set_outputs(g, 1, &r), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    static const float xd[6] = {-1, 2, -3, 4, -5, 6};
    ct_tensor *xv = ct_tensor_f32(xd, 2, 3);
    ct_tensor *y = run1(g, xv);
    CHECK_VALUES(y, ((double[]){0, 6, 0, 12, 0, 18}), 6, 0);
    CHECK_EQ_INT(ct_graph_infer_shapes(g, 1, &xv), CT_OK);
    char t[1024];
    ct_graph_repr(g, t, sizeof t);
    CHECK(strstr(t, "%1 : Float(2, 3) = aten::relu(%0)") != NULL || strstr(t, "= aten::relu(") != NULL);
    CHECK(strstr(t, " : Tensor") == NULL);         /* every type known now */
    /* bad builder calls */
    CHECK_ERR(ct_graph_add_node(g, "aten::nosuch", 1, &x, NULL, 1, &m) == 0, CT_ERR_ARG, "no op named 'aten::nosuch'");
    CHECK_ERR(ct_graph_add_node(g, "aten::relu", 2, ins, NULL, 1, &m) == 0, CT_ERR_ARG, "takes 1 inputs, got 2");
    CHECK_ERR(ct_graph_add_node(g, "aten::relu", 1, (int[]){99}, NULL, 1, &m) == 0, CT_ERR_INDEX, "value 99");
    CHECK_ERR(ct_graph_add_node(g, "aten::relu", 1, &x, NULL, 2, &m) == 0, CT_ERR_ARG, "has 1 outputs, asked for 2");
    CHECK_ERR(ct_graph_add_input(g, "x", CT_FLOAT32, 2, shp) >= 0, CT_ERR_ARG, "name 'x' is already used");
    CHECK_ERR(ct_graph_add_input(g, "12", CT_FLOAT32, 2, shp) >= 0, CT_ERR_ARG, "all digits");
    CHECK_ERR(ct_graph_add_input(g, "a b", CT_FLOAT32, 2, shp) >= 0, CT_ERR_ARG, "a character other than");
    CHECK_ERR(ct_graph_add_input(g, "y", CT_FLOAT32, 99, shp) >= 0, CT_ERR_ARG, "ndim 99");
    CHECK_ERR(ct_graph_add_input(NULL, "y", CT_FLOAT32, 2, shp) >= 0, CT_ERR_NULL, "graph is NULL");
    CHECK_ERR(ct_graph_add_constant(g, "k", NULL) >= 0, CT_ERR_NULL, "tensor is NULL");
    CHECK_ERR(ct_graph_set_outputs(g, 1, (int[]){77}) == CT_OK, CT_ERR_INDEX, "value 77");
    ct_graph_free(g);
}

/* prim::If and prim::Loop built by hand: run, print, save/load, optimize, errors */
static ct_graph *unary_block(const char *op, double k) {
    ct_graph *b = ct_graph_new();
    int64_t n4 = 4;
    int a = ct_graph_add_input(b, "a", CT_FLOAT32, 1, &n4);
    int c = ct_graph_add_constant(b, "k", ct_scalar_tensor(k, CT_FLOAT32));
    int ins[2] = {a, c}, y = -1;
    ct_graph_add_node(b, op, 2, ins, NULL, 1, &y);
    ct_graph_set_outputs(b, 1, &y);
    return b;
}
TEST(test_control_flow) {
    int64_t n4 = 4;
    /* y = x * 2 if sum(x) > 0 else x - 1 */
    ct_graph *tb = unary_block("aten::mul.Tensor", 2.0), *eb = unary_block("aten::sub.Tensor", 1.0);
    ct_graph *g = ct_graph_new();
    int x = ct_graph_add_input(g, "x", CT_FLOAT32, 1, &n4);
    int zero = ct_graph_add_constant(g, "zero", ct_scalar_tensor(0.0, CT_FLOAT32));
    int s = -1, c = -1, y = -1;
    ct_attrs sa;
    ct_attrs_defaults(ct_op_find("aten::sum.dim_IntList"), &sa);
    sa.nv = 1;
    sa.v[0] = 0;
    CHECK_EQ_INT(ct_graph_add_node(g, "aten::sum.dim_IntList", 1, &x, &sa, 1, &s), 0);
    int gi[2] = {s, zero};
    CHECK_EQ_INT(ct_graph_add_node(g, "aten::gt.Tensor", 2, gi, NULL, 1, &c), 0);
    CHECK_EQ_INT(ct_graph_add_if(g, c, tb, eb, 1, &x, 1, &y), 0);
    CHECK_EQ_INT(ct_graph_set_outputs(g, 1, &y), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g, "prim::If"), 1);
    static const float pos[4] = {1, 2, 3, -1}, neg[4] = {-1, -2, 0, 1};
    ct_tensor *xp = ct_tensor_f32(pos, 4), *xn = ct_tensor_f32(neg, 4);
    CHECK_VALUES(run1(g, xp), ((double[]){2, 4, 6, -2}), 4, 0);
    CHECK_VALUES(run1(g, xn), ((double[]){-2, -3, -1, 0}), 4, 0);
    /* a loop: y = y * 2 + i, n times (n is an input) */
    ct_graph *body = ct_graph_new();
    int bi = ct_graph_add_input(body, "i", CT_INT64, 0, NULL);
    int by = ct_graph_add_input(body, "y", CT_FLOAT32, 1, &n4);
    int btwo = ct_graph_add_constant(body, "two", ct_scalar_tensor(2.0, CT_FLOAT32));
    int btrue = ct_graph_add_constant(body, "go", ct_scalar_tensor(1.0, CT_BOOL));
    int m = -1, a2 = -1, mi[2] = {by, btwo};
    ct_graph_add_node(body, "aten::mul.Tensor", 2, mi, NULL, 1, &m);
    int ai[2] = {m, bi};
    ct_graph_add_node(body, "aten::add.Tensor", 2, ai, NULL, 1, &a2);
    int bo[2] = {btrue, a2};
    ct_graph_set_outputs(body, 2, bo);
    ct_graph *lg = ct_graph_new();
    int ly = ct_graph_add_input(lg, "y0", CT_FLOAT32, 1, &n4);
    int ln = ct_graph_add_input(lg, "n", CT_INT64, 0, NULL);
    int lgo = ct_graph_add_constant(lg, "go", ct_scalar_tensor(1.0, CT_BOOL));
    int lout = -1;
    CHECK_EQ_INT(ct_graph_add_loop(lg, ln, lgo, body, 1, &ly, &lout), 0);
    CHECK_EQ_INT(ct_graph_set_outputs(lg, 1, &lout), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(lg), CT_OK);
    ct_tensor *lin[2] = {xp, ct_scalar_tensor(3.0, CT_INT64)}, *lres = NULL;
    CHECK_EQ_INT(ct_graph_run(lg, 2, lin, &lres, 1), 1);
    /* ((y*2 + 0)*2 + 1)*2 + 2 = 8y + 4 */
    CHECK_VALUES(lres, ((double[]){12, 20, 28, -4}), 4, 0);
    lin[1] = ct_scalar_tensor(0.0, CT_INT64);                  /* zero trips: the input comes back */
    CHECK_EQ_INT(ct_graph_run(lg, 2, lin, &lres, 1), 1);
    CHECK(bit_equal(lres, xp) && lres != xp);
    /* the text, and save / load with the blocks' constants */
    static char t1[8192], t2[8192];
    ct_graph_repr(g, t1, sizeof t1);
    CHECK(strstr(t1, "= prim::If(%1, %x)") != NULL);
    CHECK(strstr(t1, "    block0(%a : Float(4)):") != NULL);
    CHECK(strstr(t1, "      -> (%0)") != NULL);
    void *d;
    size_t n;
    CHECK_EQ_INT(ct_graph_save_mem(lg, &d, &n), CT_OK);
    ct_graph *lh = ct_graph_load_mem(d, n, "loop.ctjit");
    ct_free(d);
    CHECK(lh != NULL);
    lin[1] = ct_scalar_tensor(3.0, CT_INT64);
    CHECK_EQ_INT(ct_graph_run(lh, 2, lin, &lres, 1), 1);
    CHECK_VALUES(lres, ((double[]){12, 20, 28, -4}), 4, 0);
    ct_graph_repr(lg, t1, sizeof t1);
    ct_graph_repr(lh, t2, sizeof t2);
    CHECK_STR(t2, t1);
    CHECK_EQ_INT(ct_graph_save_mem(g, &d, &n), CT_OK);
    ct_graph *h = ct_graph_load_mem(d, n, "if.ctjit");
    ct_free(d);
    CHECK(h != NULL);
    CHECK_VALUES(run1(h, xn), ((double[]){-2, -3, -1, 0}), 4, 0);
    /* passes reach the blocks; the results stay */
    CHECK_EQ_INT(ct_jit_optimize(g), CT_OK);
    CHECK_VALUES(run1(g, xp), ((double[]){2, 4, 6, -2}), 4, 0);
    const char *ops[16];
    CHECK_EQ_INT(ct_graph_ops_used(g, ops, 16), 4);                 /* gt, mul, sub, sum */
    /* errors */
    int out1 = -1;
    CHECK_ERR(ct_graph_add_if(g, c, tb, body, 1, &x, 1, &out1) == 0, CT_ERR_ARG, "the blocks take 1 and 2 inputs");
    CHECK_ERR(ct_graph_add_if(g, 99, tb, eb, 1, &x, 1, &out1) == 0, CT_ERR_INDEX, "value 99");
    CHECK_ERR(ct_graph_add_if(g, c, NULL, eb, 1, &x, 1, &out1) == 0, CT_ERR_NULL, "a block is NULL");
    CHECK_ERR(ct_graph_add_loop(lg, ln, lgo, tb, 1, &ly, &out1) == 0, CT_ERR_ARG, "a loop carrying 1 values needs 2 and 2");
    CHECK_ERR(ct_graph_add_loop(lg, ln, lgo, body, 0, &ly, &out1) == 0, CT_ERR_ARG, "0 carried values");
    CHECK_ERR(ct_graph_add_loop(NULL, ln, lgo, body, 1, &ly, &out1) == 0, CT_ERR_NULL, "graph is NULL");
    ct_graph *gx = ct_graph_new();
    int xx = ct_graph_add_input(gx, "x", CT_FLOAT32, 1, &n4), yx = -1;
    ct_graph_add_if(gx, xx, tb, eb, 1, &xx, 1, &yx);            /* a condition of 4 elements */
    ct_graph_set_outputs(gx, 1, &yx);
    CHECK_ERR(run1(gx, xp), CT_ERR_SHAPE, "prim::If condition must have one element, got 4");
    ct_graph_free(gx);
    char *text;
    CHECK_ERR(ct_jit_export_c_mem(lg, "f", &text, &n) == CT_OK, CT_ERR_UNSUPPORTED, "control flow is not exported");
    ct_graph_free(h);
    ct_graph_free(lh);
    ct_graph_free(lg);
    ct_graph_free(body);
    ct_graph_free(g);
    ct_graph_free(tb);
    ct_graph_free(eb);
}

/* the exported file, compiled with the system's C compiler, against the interpreter */
TEST(test_export_c) {
    if (system("cc --version > /dev/null 2>&1") != 0) { printf("skip test_export_c: no cc\n"); return; }
    ct_manual_seed(6);
    ct_module *m = make_cnn();
    ct_tensor *x = ct_randn(CT_FLOAT32, 2, 1, 28, 28);
    ct_graph *g = ct_trace_module(m, 1, &x);
    ct_jit_optimize(g);
    ct_tensor *y = run1(g, x);
    CHECK_EQ_INT(ct_jit_export_c(g, tpath("model.c"), "model_forward"), CT_OK);
    /* a chain graph too (a fused group inlined as one loop) */
    ct_tensor *xc = ct_randn(CT_FLOAT32, 1000);
    ct_trace_begin(1, &xc);
    ct_tensor *yc = jit_chain20(xc);
    ct_graph *gc = ct_trace_end(1, &yc);
    ct_jit_optimize(gc);
    CHECK_EQ_INT(ct_jit_export_c(gc, tpath("chain.c"), "chain_forward"), CT_OK);
    /* the memory plan: one arena as large as the peak of live values: the first conv's
       output (2x8x28x28, the ReLU in place) and the pooling's (2x8x14x14) while the
       pooling runs; a buffer per value would take 25120 floats */
    char *etext = NULL;
    size_t elen = 0;
    CHECK_EQ_INT(ct_jit_export_c_mem(g, "f", &etext, &elen), CT_OK);
    long long arena = -1, naive = -1;
    const char *mp = etext ? strstr(etext, "memory plan: the values share one arena of ") : NULL;
    CHECK(mp != NULL && sscanf(mp, "memory plan: the values share one arena of %lld floats (%lld without reuse)", &arena, &naive) == 2);
    CHECK(arena == 2 * 8 * 28 * 28 + 2 * 8 * 14 * 14 && naive == 25120);
    ct_free(etext);
    FILE *f = fopen(tpath("main.c"), "w");
    fputs("#include <stdio.h>\nvoid model_forward(const float *in0, float *out0);\n"
          "void chain_forward(const float *in0, float *out0);\n"
          "static float x[1568], y[20], xc[1000], yc[1000];\n"
          "int main(void) {\n  FILE *f = fopen(\"in.bin\", \"rb\");\n"
          "  if (!f || fread(x, 4, 1568, f) != 1568 || fread(xc, 4, 1000, f) != 1000) return 2;\n  fclose(f);\n"
          "  model_forward(x, y);\n  chain_forward(xc, yc);\n"
          "  f = fopen(\"out.bin\", \"wb\");\n  fwrite(y, 4, 20, f);\n  fwrite(yc, 4, 1000, f);\n  fclose(f);\n  return 0;\n}\n", f);
    fclose(f);
    f = fopen(tpath("in.bin"), "wb");
    fwrite(ct_data_ptr(ct_contiguous(x)), 4, 1568, f);
    fwrite(ct_data_ptr(xc), 4, 1000, f);
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cd %s && cc -std=c99 -Wall -Wextra -pedantic -Werror -O2 model.c chain.c main.c -o prog -lm && ./prog", tdir);
    int rc = system(cmd);
    CHECK_EQ_INT(rc, 0);
    float out[1020];
    f = fopen(tpath("out.bin"), "rb");
    CHECK(f != NULL && fread(out, 4, 1020, f) == 1020);
    if (f) fclose(f);
    ct_tensor *ye = ct_tensor_f32(out, 2, 10), *yce = ct_tensor_f32(out + 20, 1000);
    CHECK(maxdiff(ye, y) <= 1e-4);
    CHECK(maxdiff(yce, run1(gc, xc)) <= 1e-5);
    static const char *const made[] = {"model.c", "chain.c", "main.c", "in.bin", "out.bin", "prog"};
    for (int i = 0; i < 6; i++) remove(tpath(made[i]));
    /* what cannot be exported says so */
    ct_graph_set_dynamic_batch(g, 1);
    char *text = NULL;
    size_t len = 0;
    CHECK_ERR(ct_jit_export_c_mem(g, "f", &text, &len) == CT_OK, CT_ERR_UNSUPPORTED, "dynamic batch");
    ct_graph_set_dynamic_batch(g, 0);
    CHECK_ERR(ct_jit_export_c_mem(g, "9f", &text, &len) == CT_OK, CT_ERR_ARG, "not a C identifier");
    ct_tensor *xs = ct_randn(CT_FLOAT32, 4, 4);
    ct_trace_begin(1, &xs);
    ct_tensor *ys = ct_cumsum(xs, 1);
    ct_graph *gs = ct_trace_end(1, &ys);
    CHECK_ERR(ct_jit_export_c_mem(gs, "f", &text, &len) == CT_OK, CT_ERR_UNSUPPORTED, "aten::cumsum");
    ct_graph_free(gs);
    ct_graph_free(gc);
    ct_graph_free(g);
    ct_module_free(m);
}

/* gradients flow through a graph run: gradcheck on float64 */
static ct_tensor *through_graph(ct_tensor *const *in, void *user) {
    ct_tensor *y = NULL;
    ct_graph_run((const ct_graph *)user, 2, in, &y, 1);
    return y;
}
TEST(test_autograd_through_graph) {
    ct_tensor *a = ct_requires_grad(ct_randn(CT_FLOAT64, 3, 4)), *b = ct_requires_grad(ct_randn(CT_FLOAT64, 4));
    ct_tensor *in[2] = {a, b};
    ct_trace_begin(2, in);
    ct_tensor *y = ct_sum(ct_tanh(ct_mul(ct_add(a, b), a)));
    ct_graph *g = ct_trace_end(1, &y);
    ct_jit_fuse_elementwise(g);
    CHECK_EQ_INT(ct_graph_count_op(g, "prim::FusedElementwise"), 1);
    CHECK(ct_gradcheck(through_graph, g, 2, in, NULL));
    ct_graph_free(g);
}

static int warnings_logged;
static void count_warnings(ct_status code, const char *msg, void *user) {
    (void)user;
    if (code == CT_OK && strstr(msg, "TracerWarning: aten::nonzero")) warnings_logged++;
}
TEST(test_warnings_and_dynamic_batch) {
    ct_tensor *x = ct_randn(CT_FLOAT32, 6);
    ct_set_logger(count_warnings, NULL);
    ct_trace_begin(1, &x);
    ct_tensor *nz = ct_nonzero(ct_gt_scalar(x, 0.0));
    ct_graph *g = ct_trace_end(1, &nz);
    ct_set_logger(ct_t_quiet, NULL);
    CHECK_EQ_INT(warnings_logged, 1);
    CHECK(g != NULL);
    CHECK_EQ_INT(ct_graph_num_warnings(g), 1);
    CHECK(ct_graph_warning(g, 0) && strstr(ct_graph_warning(g, 0), "aten::nonzero"));
    CHECK(ct_graph_warning(g, 1) == NULL);
    ct_graph_free(g);
    /* an MLP whose ops bake no batch size in */
    ct_module *m = ct_nn_sequential(ct_nn_linear(3, 4), ct_nn_tanh());
    ct_tensor *x2 = ct_randn(CT_FLOAT32, 2, 3), *x7 = ct_randn(CT_FLOAT32, 7, 3);
    ct_graph *gm = ct_trace_module(m, 1, &x2);
    CHECK_ERR(run1(gm, x7), CT_ERR_SHAPE, "input 0 (%x0) has shape [7, 3], the graph was traced with [2, 3]");
    CHECK_EQ_INT(ct_graph_set_dynamic_batch(gm, 1), CT_OK);
    CHECK(bit_equal(run1(gm, x7), ct_forward(m, x7)));
    CHECK_ERR(run1(gm, ct_randn(CT_FLOAT32, 7, 4)), CT_ERR_SHAPE, "dimension 0 may vary");
    CHECK_ERR(run1(gm, ct_randn(CT_FLOAT64, 2, 3)), CT_ERR_DTYPE, "has dtype float64, the graph expects float32");
    ct_graph_free(gm);
    ct_module_free(m);
    /* a traced nn.Flatten records view(2, 48): dynamic batch makes it view(-1, 48) */
    ct_module *mf = ct_nn_sequential(ct_nn_flatten(), ct_nn_linear(48, 4));
    ct_tensor *f2 = ct_randn(CT_FLOAT32, 2, 3, 4, 4), *f5 = ct_randn(CT_FLOAT32, 5, 3, 4, 4);
    ct_graph *gf = ct_trace_module(mf, 1, &f2);
    CHECK(gf != NULL);
    CHECK_EQ_INT(ct_graph_set_dynamic_batch(gf, 1), CT_OK);
    CHECK(bit_equal(run1(gf, f5), ct_forward(mf, f5)));
    CHECK(bit_equal(run1(gf, f2), ct_forward(mf, f2)));
    ct_graph_free(gf);
    ct_module_free(mf);
    /* a view that mixes the batch with other dimensions keeps its sizes: an error */
    ct_tensor *v2 = ct_randn(CT_FLOAT32, 2, 6);
    CHECK(ct_trace_begin(1, &v2) == CT_OK);
    ct_tensor *vv = ct_relu(ct_view(v2, 3, 4));
    ct_graph *gv = ct_trace_end(1, &vv);
    CHECK_EQ_INT(ct_graph_set_dynamic_batch(gv, 1), CT_OK);
    CHECK_ERR(run1(gv, ct_randn(CT_FLOAT32, 5, 6)), CT_ERR_SHAPE, "view");
    ct_graph_free(gv);
}

TEST(test_bad_input) {
    ct_tensor *x = ct_randn(CT_FLOAT32, 2);
    CHECK_ERR(ct_trace_end(1, &x), CT_ERR_STATE, "not tracing");
    CHECK_ERR(ct_trace_begin(1, (ct_tensor *[]){NULL}) == CT_OK, CT_ERR_NULL, "input 0 is NULL");
    CHECK_ERR(ct_trace_begin(2, (ct_tensor *[]){x, x}) == CT_OK, CT_ERR_ARG, "same tensor as an earlier input");
    CHECK_EQ_INT(ct_trace_begin(1, &x), CT_OK);
    CHECK_ERR(ct_trace_begin(1, &x) == CT_OK, CT_ERR_STATE, "already tracing");
    ct_tensor *y = ct_relu(x);
    CHECK_ERR(ct_trace_end(1, (ct_tensor *[]){NULL}), CT_ERR_NULL, "output 0 is NULL");
    CHECK(!ct_is_tracing());
    ct_trace_begin(1, &x);
    ct_trace_abort();
    CHECK(!ct_is_tracing());
    ct_trace_begin(1, &x);
    y = ct_relu(x);
    ct_graph *g = ct_trace_end(1, &y);
    CHECK_ERR(ct_graph_run(NULL, 1, &x, &y, 1) >= 0, CT_ERR_NULL, "graph is NULL");
    CHECK_ERR(ct_graph_run(g, 2, &x, &y, 1) >= 0, CT_ERR_ARG, "takes 1 inputs, got 2");
    CHECK_ERR(ct_graph_run(g, 1, (ct_tensor *[]){NULL}, &y, 1) >= 0, CT_ERR_NULL, "input 0 is NULL");
    CHECK_ERR(ct_graph_run(g, 1, &x, NULL, 1) >= 0, CT_ERR_ARG, "NULL output list");
    CHECK_EQ_INT(ct_graph_run(g, 1, &x, NULL, 0), 1);            /* outputs not wanted: fine */
    CHECK_ERR(ct_graph_clone(NULL), CT_ERR_NULL, "graph is NULL");
    CHECK_ERR(ct_graph_verify(NULL) == CT_OK, CT_ERR_NULL, "graph is NULL");
    CHECK_ERR(ct_jit_eliminate_dead_code(NULL) == CT_OK, CT_ERR_NULL, "eliminate_dead_code");
    CHECK_ERR(ct_jit_eliminate_common_subexpressions(NULL) == CT_OK, CT_ERR_NULL, "eliminate_common_subexpressions");
    CHECK_ERR(ct_jit_constant_propagation(NULL) == CT_OK, CT_ERR_NULL, "constant_propagation");
    CHECK_ERR(ct_jit_freeze(NULL) == CT_OK, CT_ERR_NULL, "freeze");
    CHECK_ERR(ct_jit_fold_conv_bn(NULL) == CT_OK, CT_ERR_NULL, "fold_conv_bn");
    CHECK_ERR(ct_jit_fold_linear_bn(NULL) == CT_OK, CT_ERR_NULL, "fold_linear_bn: graph is NULL");
    CHECK_ERR(ct_jit_fuse_elementwise(NULL) == CT_OK, CT_ERR_NULL, "fuse_elementwise");
    CHECK_ERR(ct_jit_optimize(NULL) == CT_OK, CT_ERR_NULL, "optimize");
    CHECK_ERR(ct_jit_fuse_activation(NULL) == CT_OK, CT_ERR_NULL, "fuse_activation");
    CHECK_ERR(ct_graph_count_op(NULL, "aten::relu") >= 0, CT_ERR_NULL, "graph_count_op");
    CHECK_ERR(ct_graph_ops_used(NULL, NULL, 0) >= 0, CT_ERR_NULL, "graph_ops_used");
    CHECK_ERR(ct_graph_set_dynamic_batch(NULL, 1) == CT_OK, CT_ERR_NULL, "graph_set_dynamic_batch");
    ct_tensor *s = ct_scalar_tensor(1.0, CT_FLOAT32);
    ct_trace_begin(1, &s);
    ct_tensor *sy = ct_exp(s);
    ct_graph *gs = ct_trace_end(1, &sy);
    CHECK_ERR(ct_graph_set_dynamic_batch(gs, 1) == CT_OK, CT_ERR_ARG, "0-dimensional");
    ct_graph_free(gs);
    void *d;
    size_t n;
    CHECK_ERR(ct_graph_save_mem(NULL, &d, &n) == CT_OK, CT_ERR_NULL, "graph_save");
    CHECK_ERR(ct_graph_save(g, NULL) == CT_OK, CT_ERR_NULL, "path is NULL");
    CHECK_ERR(ct_graph_save(g, "/nonexistent/dir/g.ctjit") == CT_OK, CT_ERR_IO, "cannot write");
    CHECK_ERR(ct_graph_load_mem(NULL, 0, "z"), CT_ERR_NULL, "data is NULL");
    CHECK_ERR(ct_graph_load(NULL), CT_ERR_NULL, "path is NULL");
    /* a plain safetensors file is not a graph */
    const char *nm = "t";
    const ct_tensor *tt = x;
    CHECK_EQ_INT(ct_save_safetensors_mem(1, &nm, &tt, 0, NULL, NULL, &d, &n), CT_OK);
    CHECK_ERR(ct_graph_load_mem(d, n, "plain.safetensors"), CT_ERR_FORMAT, "not a ctensor graph file");
    ct_free(d);
    char *text;
    CHECK_ERR(ct_jit_export_c_mem(NULL, "f", &text, &n) == CT_OK, CT_ERR_NULL, "jit_export_c");
    CHECK_ERR(ct_jit_export_c(g, NULL, "f") == CT_OK, CT_ERR_NULL, "path is NULL");
    CHECK_ERR(ct_jit_export_selected_ops_mem(NULL, &text, &n) == CT_OK, CT_ERR_NULL, "jit_export_selected_ops: NULL argument");
    CHECK_ERR(ct_jit_export_selected_ops_mem(g, NULL, &n) == CT_OK, CT_ERR_NULL, "jit_export_selected_ops: NULL argument");
    CHECK_ERR(ct_jit_export_selected_ops(g, NULL) == CT_OK, CT_ERR_NULL, "jit_export_selected_ops: path is NULL");
    CHECK_ERR(ct_jit_export_selected_ops(g, "/nonexistent/dir/ops.h") == CT_OK, CT_ERR_IO, "cannot write /nonexistent/dir/ops.h");
    CHECK_ERR(ct_graph_infer_shapes(NULL, 0, NULL) == CT_OK, CT_ERR_NULL, "graph_infer_shapes");
    CHECK_ERR(ct_graph_add_node(NULL, "aten::relu", 0, NULL, NULL, 0, NULL) == 0, CT_ERR_NULL, "graph is NULL");
    CHECK_ERR(ct_graph_set_outputs(NULL, 0, NULL) == CT_OK, CT_ERR_NULL, "graph is NULL");
    CHECK_ERR(ct_graph_repr(NULL, NULL, 0) > 0, CT_ERR_NULL, "graph is NULL");
    CHECK_EQ_INT(ct_graph_num_nodes(NULL), -1);
    CHECK_EQ_INT(ct_graph_num_inputs(NULL), -1);
    CHECK_EQ_INT(ct_graph_num_outputs(NULL), -1);
    CHECK_EQ_INT(ct_graph_num_warnings(NULL), -1);
    CHECK(ct_graph_warning(NULL, 0) == NULL);
    ct_graph_print(NULL);
    CHECK_ERR(ct_trace_module(NULL, 1, &x), CT_ERR_NULL, "module is NULL");
    /* a module whose forward fails: the trace is dropped, the error says why */
    ct_module *lin = ct_nn_linear(5, 2);
    CHECK_ERR(ct_trace_module(lin, 1, &x), CT_ERR_STATE, "the forward pass failed");
    CHECK(!ct_is_tracing());
    ct_module_free(lin);
    ct_graph_free(g);
    ct_graph_free(NULL);
}

/* one graph, run by two threads at once (a graph is read-only while it runs) */
#ifndef CTENSOR_NO_THREADS
typedef struct job { const ct_graph *g; ct_tensor *x, *ref; int ok; } job;
static void *run_many(void *u) {
    job *j = (job *)u;
    j->ok = 1;
    for (int it = 0; it < 20; it++) CT_SCOPE {
        ct_tensor *y = run1(j->g, j->x);
        if (!bit_equal(y, j->ref)) j->ok = 0;
    }
    ct_thread_cleanup();
    return NULL;
}
#endif
TEST(test_threads_share_a_graph) {
#ifndef CTENSOR_NO_THREADS
    ct_tensor *x = ct_randn(CT_FLOAT32, 40000);
    ct_trace_begin(1, &x);
    ct_tensor *y = jit_chain20(x);
    ct_graph *g = ct_trace_end(1, &y);
    ct_jit_fuse_elementwise(g);
    ct_tensor *ref = run1(g, x);
    job a = {g, x, ref, 0}, b = {g, x, ref, 0};
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, run_many, &a) == 0);
    CHECK(pthread_create(&tb, NULL, run_many, &b) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.ok && b.ok);
    ct_graph_free(g);
#endif
}

/* ---- graph-mode quantization (ct_jit_quant_prepare / convert) ----------------
   Against ctensor_quant.h's eager static quantization of the same model with the
   same calibration data (equal int8 results), and against PyTorch 1.13's FX graph
   mode (tests/reference/jit_quant_fixtures.py). */
#ifndef CT_JIT_QUANT_FIXTURES
#define CT_JIT_QUANT_FIXTURES "tests/fixtures"
#endif
static ct_tensor *jqfix(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s.npy", CT_JIT_QUANT_FIXTURES, dir, name);
    ct_tensor *t = ct_load_npy(path);
    CT_T_REPORT(t != NULL, "fixture %s: %s", path, ct_last_error());
    return t;
}
/* copies fixtures <dir>/<prefix><key> into m's float32 state (missing keys are skipped) */
static int jq_load(ct_module *m, const char *dir, const char *prefix) {
    ct_state_dict sd;
    if (ct_module_state_dict(m, &sd) != CT_OK) return -1;
    int bad = 0;
    for (int i = 0; i < sd.n; i++) {
        if (ct_get_dtype(sd.items[i].tensor) != CT_FLOAT32) continue;
        char nm[160];
        snprintf(nm, sizeof nm, "%s%s", prefix, sd.items[i].name);
        ct_tensor *v = jqfix(dir, nm);
        CT_NO_GRAD { bad |= !v || !ct_copy_(sd.items[i].tensor, v); }
    }
    ct_state_dict_free(&sd);
    return bad ? -1 : 0;
}
static ct_module *jq_cnn(int stubs) {
    ct_module *q = stubs ? ct_nn_quant_stub() : ct_nn_identity(), *dq = stubs ? ct_nn_dequant_stub() : ct_nn_identity();
    return ct_nn_sequential_dict({"quant", q}, {"conv1", ct_nn_conv2d(3, 8, 3, 1, 1)}, {"bn1", ct_nn_batch_norm2d(8)},
                                 {"relu1", ct_nn_relu()}, {"pool", ct_nn_max_pool2d(2, 2)}, {"conv2", ct_nn_conv2d(8, 16, 3, 1, 0)},
                                 {"relu2", ct_nn_relu()}, {"avg", ct_nn_adaptive_avg_pool2d(1, 1)}, {"flat", ct_nn_flatten()},
                                 {"fc1", ct_nn_linear(16, 12)}, {"relu3", ct_nn_relu()}, {"fc2", ct_nn_linear(12, 5)},
                                 {"dequant", dq});
}
static ct_module *jq_mlp(int stubs) {
    ct_module *q = stubs ? ct_nn_quant_stub() : ct_nn_identity(), *dq = stubs ? ct_nn_dequant_stub() : ct_nn_identity();
    return ct_nn_sequential_dict({"q", q}, {"0", ct_nn_linear(20, 32)}, {"1", ct_nn_relu()}, {"2", ct_nn_linear(32, 16)},
                                 {"3", ct_nn_relu()}, {"4", ct_nn_linear(16, 5)}, {"dq", dq});
}
/* the graph on x; B rows at a time (the last window overlapping the one before)
   when x has more rows than the traced batch B (flatten bakes B in) */
static ct_tensor *jq_run_rows(const ct_graph *g, ct_tensor *x, int64_t B) {
    int64_t n = ct_size(x, 0);
    if (n <= B) return run1(g, x);              /* a dynamic batch, or the traced one */
    ct_tensor *parts[16];
    int k = 0;
    for (int64_t s = 0; s < n && k < 16; s += B) {
        int64_t st = s + B <= n ? s : n - B;
        ct_tensor *y = run1(g, ct_contiguous(ct_narrow(x, 0, st, B)));
        if (!y) return NULL;
        parts[k++] = ct_narrow(y, 0, s - st, B - (s - st));
    }
    return ct_cat(k, parts, 0);
}
/* one model both ways: graph mode on its trace, eager static quantization on a copy
   with stubs; calibration on the same batches. Returns 0 when the two agree bit for
   bit on x (y: the graph's output); checks save -> load -> run too. */
static int jq_both_ways(ct_module *(*make)(int), const char *dir, const char *prefix, const char *calib_fmt, ct_tensor *x,
                        const ct_qconfig *qc, int nfuse, const char *const (*fuse)[3], ct_tensor **y) {
    ct_module *fm = make(0), *em = make(1);
    int rc = -1;
    *y = NULL;
    if (!fm || !em || jq_load(fm, dir, prefix) || jq_load(em, dir, prefix)) goto done;
    ct_module_eval(fm);
    ct_module_eval(em);
    ct_tensor *cal[4];
    for (int i = 0; i < 4; i++) {
        char nm[64];
        snprintf(nm, sizeof nm, calib_fmt, i);
        cal[i] = jqfix(dir, nm);
        if (!cal[i]) goto done;
    }
    ct_graph *g = ct_trace_module(fm, 1, &cal[0]);
    CHECK(g != NULL);
    int64_t B = ct_size(cal[0], 0);
    ct_graph_set_dynamic_batch(g, 1);              /* kept by prepare and convert */
    ct_graph *p = ct_jit_quant_prepare(g, qc);
    CHECK(p != NULL);
    ct_graph_free(g);
    if (!p) goto done;
    CHECK(ct_jit_quant_num_observers(p) >= 3);
    CHECK_EQ_INT(ct_graph_count_op(p, "ct::batch_norm_eval"), 0);   /* folded */
    for (int i = 0; i < 4; i++) CT_NO_GRAD { CHECK(run1(p, cal[i]) != NULL); }
    ct_graph *q = ct_jit_quant_convert(p);
    CHECK(q != NULL);
    ct_graph_free(p);
    if (!q) goto done;
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::quantize_per_tensor"), 1);
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::addmm") + ct_graph_count_op(q, "aten::conv2d") + ct_graph_count_op(q, "aten::relu"), 0);
    CHECK_EQ_INT(ct_graph_verify(q), CT_OK);
    /* eager: fuse, prepare, calibrate, convert */
    for (int k = 0; k < nfuse; k++) CHECK_EQ_INT(ct_fuse_modules_n(em, fuse[k][2] ? 3 : 2, fuse[k]), CT_OK);
    CHECK(ct_quant_prepare(em, qc, NULL) > 0);
    for (int i = 0; i < 4; i++) CT_NO_GRAD { CHECK(ct_forward(em, cal[i]) != NULL); }
    CHECK(ct_quant_convert(em) > 0);
    ct_tensor *ye = ct_forward(em, x);
    *y = jq_run_rows(q, x, B);
    rc = bit_equal(*y, ye) ? 0 : -1;
    if (rc) printf("  graph mode vs eager: max diff %g\n", maxdiff(*y, ye));
    /* the converted graph saves (quantized weights with their parameters) and loads */
    ct_graph *l = NULL;
    CHECK_EQ_INT(ct_graph_save(q, tpath("q.ctjit")), CT_OK);
    CHECK((l = ct_graph_load(tpath("q.ctjit"))) != NULL);
    CHECK(l && bit_equal(jq_run_rows(l, x, B), *y));
    ct_graph_free(l);
    ct_graph_free(q);
done:
    ct_module_free(fm);
    ct_module_free(em);
    return rc;
}
TEST(test_quant_graph_mode_cnn) {
    static const char *const fuse[3][3] = {{"conv1", "bn1", "relu1"}, {"conv2", "relu2", NULL}, {"fc1", "relu3", NULL}};
    ct_qconfig qc = ct_qconfig_default_x86();
    ct_tensor *x = jqfix("quant", "wf_st_x"), *y = NULL;
    if (!x) return;
    CHECK_EQ_INT(jq_both_ways(jq_cnn, "quant", "wf_st_in_", "wf_st_calib%d", x, &qc, 3, fuse, &y), 0);
    /* PyTorch: its eager static quantization (the same fixtures) and its FX graph mode,
       which dequantizes before nn.Flatten and quantizes again with an observer of its
       own (1.13 does not treat Flatten as a shape op): within two output quanta */
    ct_tensor *qp = jqfix("jit_quant", "jq_cnn_qparams");
    double quantum = qp ? ((const double *)ct_data_ptr(qp))[0] : 0;
    double de = maxdiff(y, jqfix("quant", "wf_st_y_quant")), dfx = maxdiff(y, jqfix("jit_quant", "jq_cnn_y"));
    CT_T_REPORT(de <= quantum * 1.0001, "graph mode vs PyTorch's eager static quantization: %g (quantum %g)", de, quantum);
    CT_T_REPORT(dfx <= 2 * quantum * 1.0001, "graph mode vs PyTorch's FX graph mode: %g (quantum %g)", dfx, quantum);
}
TEST(test_quant_graph_mode_mlp) {
    static const char *const fuse[2][3] = {{"0", "1", NULL}, {"2", "3", NULL}};
    ct_qconfig qc = ct_qconfig_default_arm();        /* qnnpack */
    ct_tensor *x = jqfix("jit_quant", "jq_mlp_x"), *y = NULL;
    if (!x) return;
    CHECK_EQ_INT(jq_both_ways(jq_mlp, "jit_quant", "jq_mlp_", "jq_mlp_calib%d", x, &qc, 2, fuse, &y), 0);
    ct_tensor *qp = jqfix("jit_quant", "jq_mlp_qparams");
    double quantum = qp ? ((const double *)ct_data_ptr(qp))[0] : 0;
    double dfx = maxdiff(y, jqfix("jit_quant", "jq_mlp_y"));
    CT_T_REPORT(dfx <= quantum * 1.0001, "graph mode vs PyTorch's FX graph mode (qnnpack): %g (quantum %g)", dfx, quantum);
    double sq = ct_q_sqnr(jqfix("jit_quant", "jq_mlp_y_float"), y);
    CT_T_REPORT(sq > 20, "SQNR against the float model %.1f dB", sq);
}
/* conv -> relu -> flatten -> linear: the int8 conv output is channels-last, so the
   traced view needs a contiguous copy first; equal to eager static quantization */
static ct_module *jq_convflat(int stubs) {
    ct_module *q = stubs ? ct_nn_quant_stub() : ct_nn_identity(), *dq = stubs ? ct_nn_dequant_stub() : ct_nn_identity();
    return ct_nn_sequential_dict({"q", q}, {"conv", ct_nn_conv2d(2, 4, 3, 1, 1)}, {"relu", ct_nn_relu()}, {"flat", ct_nn_flatten()},
                                 {"fc", ct_nn_linear(4 * 5 * 5, 3)}, {"dq", dq});
}
TEST(test_quant_graph_mode_conv_flatten) {
    ct_manual_seed(21);
    ct_module *fm = ct_module_eval(jq_convflat(0)), *em = ct_module_eval(jq_convflat(1));
    ct_state_dict sd;
    ct_module_state_dict(fm, &sd);
    CHECK_EQ_INT(ct_module_load_state_dict(em, &sd, 0), CT_OK);
    ct_state_dict_free(&sd);
    ct_tensor *cal[3], *y = NULL;
    for (int i = 0; i < 3; i++) cal[i] = ct_randn(CT_FLOAT32, 2, 2, 5, 5);
    ct_qconfig qc = ct_qconfig_default_x86();
    ct_graph *g = ct_trace_module(fm, 1, &cal[0]);
    ct_graph *p = g ? ct_jit_quant_prepare(g, &qc) : NULL;
    CHECK(p != NULL);
    for (int i = 0; p && i < 3; i++) CHECK(run1(p, cal[i]) != NULL);
    ct_graph *q = p ? ct_jit_quant_convert(p) : NULL;
    CHECK(q != NULL);
    CHECK_EQ_INT(ct_fuse_modules(em, "conv", "relu"), CT_OK);
    CHECK(ct_quant_prepare(em, &qc, NULL) > 0);
    for (int i = 0; i < 3; i++) CT_NO_GRAD { ct_forward(em, cal[i]); }
    CHECK(ct_quant_convert(em) > 0);
    CHECK(q && (y = run1(q, cal[1])) != NULL && bit_equal(y, ct_forward(em, cal[1])));
    ct_graph_free(q);
    ct_graph_free(p);
    ct_graph_free(g);
    ct_module_free(fm);
    ct_module_free(em);
}
/* optimize before prepare: ct_jit_fuse_activation's ct::conv2d_relu is the conv +
   relu pattern (a quantized conv2d_relu), the same converted graph as prepare first */
TEST(test_quant_graph_mode_fused_conv_relu) {
    ct_manual_seed(22);
    ct_module *fm = ct_module_eval(jq_convflat(0));
    ct_tensor *cal[3], *y1 = NULL, *y2 = NULL;
    for (int i = 0; i < 3; i++) cal[i] = ct_randn(CT_FLOAT32, 2, 2, 5, 5);
    ct_qconfig qc = ct_qconfig_default_x86();
    ct_graph *g = ct_trace_module(fm, 1, &cal[0]);
    ct_graph *g2 = g ? ct_graph_clone(g) : NULL;
    CHECK(g2 && ct_jit_freeze(g2) == CT_OK && ct_jit_fuse_activation(g2) == CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(g2, "ct::conv2d_relu"), 1);
    ct_graph *p1 = g ? ct_jit_quant_prepare(g, &qc) : NULL, *p2 = g2 ? ct_jit_quant_prepare(g2, &qc) : NULL;
    CHECK(p1 != NULL && p2 != NULL);
    CHECK_EQ_INT(ct_jit_quant_num_observers(p2), ct_jit_quant_num_observers(p1));
    for (int i = 0; p1 && p2 && i < 3; i++) CHECK(run1(p1, cal[i]) != NULL && run1(p2, cal[i]) != NULL);
    ct_graph *q1 = p1 ? ct_jit_quant_convert(p1) : NULL, *q2 = p2 ? ct_jit_quant_convert(p2) : NULL;
    CHECK(q1 != NULL && q2 != NULL);
    CHECK_EQ_INT(ct_graph_count_op(q2, "quantized::conv2d_relu"), 1);
    CHECK_EQ_INT(ct_graph_count_op(q2, "ct::conv2d_relu") + ct_graph_count_op(q2, "aten::conv2d"), 0);
    CHECK_EQ_INT(ct_graph_count_op(q1, "quantized::conv2d_relu"), 1);
    CHECK(q1 && q2 && (y1 = run1(q1, cal[1])) != NULL && (y2 = run1(q2, cal[1])) != NULL && bit_equal(y1, y2));
    ct_graph_free(q1);
    ct_graph_free(q2);
    ct_graph_free(p1);
    ct_graph_free(p2);
    ct_graph_free(g2);
    ct_graph_free(g);
    ct_module_free(fm);
}
/* dynamic quantization in graph mode: the linears become quantized::linear_dynamic;
   equal bit for bit to eager ct_quantize_dynamic (per tensor and per channel,
   reduce_range on and off), and to PyTorch 1.13's quantize_dynamic (onednn) within
   the tolerance of ctensor_quant.h's own test (tests/reference/quant_fixtures_workflow.py) */
static ct_module *jq_dyn_mlp(void) {
    return ct_nn_sequential(ct_nn_linear(20, 32), ct_nn_relu(), ct_nn_sequential(ct_nn_linear(32, 16), ct_nn_tanh()), ct_nn_linear(16, 4));
}
/* graph-mode QAT (prepare_qat_fx, training through the graph, convert_fx) against
   eager QAT of the same model (fuse_modules_qat, prepare_qat, the same SGD steps,
   convert): the same loss at every step and the same int8 results, bit for bit */
/* three SGD steps of an eager module on an MSE loss; the losses in el */
static void jq_eager_steps(ct_module *em, const ct_sgd_options *so, ct_tensor **xs, ct_tensor **ts, double *el) {
    ct_optimizer *eo = ct_optim_sgd(em, so);
    CHECK(eo != NULL);
    for (int s = 0; s < 3 && eo; s++) CT_SCOPE {
        ct_tensor *loss = ct_mse_loss(ct_forward(em, xs[s]), ts[s], NULL);
        ct_zero_grad(eo);
        CHECK(loss && ct_backward(loss) == CT_OK && ct_step(eo) == CT_OK);
        if (loss) el[s] = ct_item(loss);
    }
    ct_optim_free(eo);
}
static ct_module *jq_qat_mlp(int stubs) {
    ct_manual_seed(21);
    ct_module *fc1 = ct_nn_linear(8, 16), *fc2 = ct_nn_linear(16, 4);
    ct_module *q = stubs ? ct_nn_quant_stub() : ct_nn_identity(), *dq = stubs ? ct_nn_dequant_stub() : ct_nn_identity();
    return ct_nn_sequential_dict({"quant", q}, {"fc1", fc1}, {"relu", ct_nn_relu()}, {"fc2", fc2}, {"dequant", dq});
}
TEST(test_quant_graph_mode_qat) {
    ct_qconfig qc = ct_qat_qconfig_default_x86();
    ct_manual_seed(22);
    ct_tensor *xs[3], *ts[3];
    for (int s = 0; s < 3; s++) {
        xs[s] = ct_mul_scalar(ct_randn(CT_FLOAT32, 6, 8), 2.0);
        ts[s] = ct_randn(CT_FLOAT32, 6, 4);
    }
    ct_tensor *xt = ct_randn(CT_FLOAT32, 5, 8);
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.1;
    /* eager */
    ct_module *em = jq_qat_mlp(1);
    CHECK(em != NULL);
    if (!em) return;
    ct_module_train(em, 1);
    CHECK_EQ_INT(ct_fuse_modules_qat(em, "fc1", "relu"), CT_OK);
    CHECK(ct_quant_prepare_qat(em, &qc, NULL) > 0);
    double el[3] = {NAN, NAN, NAN};
    jq_eager_steps(em, &so, xs, ts, el);
    ct_module_eval(em);
    CHECK(ct_quant_convert(em) > 0);
    ct_tensor *ye = ct_forward(em, xt);
    /* graph mode */
    ct_module *fm = jq_qat_mlp(0);
    ct_graph *g = fm ? ct_trace_module(fm, 1, &xs[0]) : NULL;
    CHECK(g != NULL);
    if (g) ct_graph_set_dynamic_batch(g, 1);
    ct_graph *p = g ? ct_jit_quant_prepare_qat(g, &qc) : NULL;
    CHECK(p != NULL);
    CHECK_EQ_INT(ct_jit_quant_num_observers(p), 3);            /* input, fc1 + relu, fc2: FakeQuantize modules */
    ct_tensor *w[8] = {NULL};
    CHECK_EQ_INT(ct_jit_quant_qat_parameters(p, w, 8), 4);     /* two weights, two biases */
    CHECK_EQ_INT(ct_jit_quant_qat_parameters(p, NULL, 0), 4);
    ct_optimizer *go = p ? ct_optim_sgd_params(4, w, &so) : NULL;
    CHECK(go != NULL);
    for (int s = 0; s < 3 && go; s++) CT_SCOPE {
        ct_tensor *loss = ct_mse_loss(run1(p, xs[s]), ts[s], NULL);
        ct_zero_grad(go);
        CHECK(loss && ct_backward(loss) == CT_OK && ct_step(go) == CT_OK);
        double l = loss ? ct_item(loss) : NAN;
        CT_T_REPORT(l == el[s], "QAT step %d: graph-mode loss %.9g, eager %.9g", s, l, el[s]);
    }
    ct_optim_free(go);
    /* the graph trains copies: the float model's weights are not touched */
    CHECK(w[0] && ct_get_requires_grad(w[0]) && ct_grad(w[0]) != NULL);
    CHECK(fm && ct_grad(ct_module_get(fm, "fc1.weight")) == NULL);
    ct_graph *q = p ? ct_jit_quant_convert(p) : NULL;
    CHECK(q != NULL);
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::linear_relu"), 1);
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::linear"), 1);
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::addmm"), 0);
    ct_tensor *yg = q ? run1(q, xt) : NULL;
    CHECK(yg && ye && bit_equal(yg, ye));
    if (yg && ye && !bit_equal(yg, ye)) printf("  QAT graph mode vs eager: max diff %g\n", maxdiff(yg, ye));
    /* bad input */
    ct_qconfig ptq = ct_qconfig_default_x86();
    CHECK_ERR(ct_jit_quant_prepare_qat(g, &ptq) != NULL, CT_ERR_ARG, "not a FakeQuantize");
    CHECK_ERR(ct_jit_quant_prepare_qat(NULL, &qc) != NULL, CT_ERR_NULL, "jit_quant_prepare_qat: graph is NULL");
    CHECK_ERR(ct_jit_quant_qat_parameters(g, w, 8) >= 0, CT_ERR_STATE, "not prepared for QAT");
    CHECK_ERR(ct_jit_quant_qat_parameters(NULL, w, 8) >= 0, CT_ERR_NULL, "jit_quant_qat_parameters: graph is NULL");
    ct_graph *p2 = g ? ct_jit_quant_prepare_qat(g, &qc) : NULL;      /* never run: its FakeQuantize modules saw no data */
    CHECK(p2 != NULL);
    CHECK_ERR(ct_jit_quant_convert(p2) != NULL, CT_ERR_STATE, "has seen no data");
    ct_graph_free(p2);
    ct_graph_free(q);
    ct_graph_free(p);
    ct_graph_free(g);
    ct_module_free(fm);
    ct_module_free(em);
}
/* graph-mode QAT of conv2d -> batch norm (-> relu) as FX's ConvBn2d / ConvBnReLU2d:
   the batch norm kept, folded on the fly, batch statistics in training; against
   eager QAT (fuse_modules_qat's ConvBnReLU2d and ConvBn2d, the same SGD steps):
   the same loss at every step, running statistics, eval-mode outputs and int8
   results, bit for bit (the same ops on the same tensors in the same order).
   Against PyTorch 1.13's FX (prepare_qat_fx, 3 steps, convert_fx; fixtures of
   tests/reference/jit_quant_fixtures.py): the running statistics within 1e-5 (equal
   here), the first loss within 1e-6 relative, the next ones within 2e-3 and the
   int8 output within 3 quanta, because FX 1.13 dequantizes before nn.Flatten and
   fake-quantizes its output again with an observer of its own (its moving average
   drifts from the conv's after the first step; 0.08% at step 3). PyTorch's eager
   QAT of the same model, which observes no Flatten, gives the losses 1.20036137,
   1.84190571, 1.22973812: within 1e-7 of these. */
static ct_module *jq_qat_cnn_m(int stubs, double momentum) {
    ct_manual_seed(31);
    ct_batch_norm_options bo;
    memset(&bo, 0, sizeof bo);
    bo.momentum = momentum;                    /* 0: the default 0.1 */
    ct_module *q = stubs ? ct_nn_quant_stub() : ct_nn_identity(), *dq = stubs ? ct_nn_dequant_stub() : ct_nn_identity();
    ct_module *m = ct_nn_sequential_dict({"quant", q}, {"conv1", ct_nn_conv2d(1, 4, 3, 1, 1)}, {"bn1", ct_nn_batch_norm2d_ex(4, &bo)},
                                         {"relu1", ct_nn_relu()}, {"conv2", ct_nn_conv2d_ex(4, 4, 3, 1, 1, 1, 1, 0)},
                                         {"bn2", ct_nn_batch_norm2d_ex(4, &bo)}, {"flat", ct_nn_flatten()}, {"fc", ct_nn_linear(4 * 6 * 6, 3)},
                                         {"dequant", dq});
    if (m && jq_load(m, "jit_quant", "jq_qat_")) {   /* PyTorch's seeded weights and batch norm statistics */
        ct_module_free(m);
        m = NULL;
    }
    return m;
}
static ct_module *jq_qat_cnn(int stubs) { return jq_qat_cnn_m(stubs, 0); }
/* eager QAT of the model (fused, prepared, training mode) */
static void jq_qat_cnn_eager(ct_module *em, const ct_qconfig *qc) {
    ct_module_train(em, 1);
    CHECK_EQ_INT(ct_fuse_modules_qat(em, "conv1", "bn1", "relu1"), CT_OK);
    CHECK_EQ_INT(ct_fuse_modules_qat(em, "conv2", "bn2"), CT_OK);
    CHECK(ct_quant_prepare_qat(em, qc, NULL) > 0);
}
/* a hand-built graph: value y, then an eval-mode batch norm of 3 channels as
   ct_batch_norm traces it; prepare_qat must refuse it with msg; frees b */
static void jq_bad_bn(ct_graph *b, int y, const ct_qconfig *qc, const char *msg) {
    int rv = ct_graph_add_constant(b, "rv", ct_ones(CT_FLOAT32, 3)), ep = ct_graph_add_constant(b, "eps", ct_scalar_tensor(1e-5, CT_FLOAT32));
    int ga = ct_graph_add_constant(b, "gamma", ct_ones(CT_FLOAT32, 3)), rm = ct_graph_add_constant(b, "rm", ct_zeros(CT_FLOAT32, 3));
    int be = ct_graph_add_constant(b, "beta", ct_zeros(CT_FLOAT32, 3));
    int a = -1, r = -1, sc = -1, mm = -1, ng = -1, sh = -1, o = -1;
    ct_attrs al;
    memset(&al, 0, sizeof al);
    al.s[0] = 1.0;
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::add.Tensor", 2, (int[]){rv, ep}, &al, 1, &a), 0);
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::rsqrt", 1, &a, NULL, 1, &r), 0);
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::mul.Tensor", 2, (int[]){r, ga}, NULL, 1, &sc), 0);
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::mul.Tensor", 2, (int[]){rm, sc}, NULL, 1, &mm), 0);
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::neg", 1, &mm, NULL, 1, &ng), 0);
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::add.Tensor", 2, (int[]){ng, be}, &al, 1, &sh), 0);
    CHECK_EQ_INT(ct_graph_add_node(b, "ct::batch_norm_eval", 3, (int[]){y, sc, sh}, NULL, 1, &o), 0);
    CHECK_EQ_INT(ct_graph_set_outputs(b, 1, &o), CT_OK);
    CHECK_ERR(ct_jit_quant_prepare_qat(b, qc) != NULL, CT_ERR_SHAPE, msg);
    ct_graph_free(b);
}
/* a model with momentum 0.3 traced in training mode (train 1: the momentum read
   from the statistics updates) or in eval mode (train 0: from batch_norm_eval),
   prepared for QAT: two more runs and the running statistics equal eager QAT's
   (fm: the float model to trace, em: the eager one, prep: its fuse + prepare;
   names: its four statistics) */
static void jq_check_train_trace(const char *what, int train, ct_module *fm, ct_module *em, void (*prep)(ct_module *, const ct_qconfig *),
                                 const ct_qconfig *qc, ct_tensor *const *xs, const char *const *names) {
    const char *mode = train ? "training-mode" : "eval-mode";
    ct_tensor *x0 = xs[0], *bufs[4] = {NULL, NULL, NULL, NULL};
    ct_graph *g = fm ? ct_trace_module(ct_module_train(fm, train), 1, &x0) : NULL;
    CHECK(g != NULL);
    CHECK_EQ_INT(ct_graph_count_op(g, train ? "aten::native_batch_norm" : "ct::batch_norm_eval"), 2);
    ct_graph *p = g ? ct_jit_quant_prepare_qat(g, qc) : NULL;
    CHECK(p != NULL);
    CHECK_EQ_INT(ct_graph_count_op(p, "aten::native_batch_norm"), 0);
    CHECK_EQ_INT(ct_graph_count_op(p, "ct::batch_norm_eval"), 0);
    if (train) CHECK_EQ_INT(ct_graph_count_op(p, "aten::mul.Tensor"), 2);   /* the scaled weights; no statistics updates left */
    if (train) CHECK(em && ct_forward(ct_module_train(em, 1), xs[0]) != NULL);   /* the trace's own statistics update */
    if (em) prep(em, qc);
    for (int s = 1; s < 3; s++) {
        ct_tensor *ya = p ? run1(p, xs[s]) : NULL, *yb = em ? ct_forward(em, xs[s]) : NULL;
        CT_T_REPORT(ya && yb && bit_equal(ya, yb), "%s %s trace, run %d: graph vs eager max diff %g", what, mode, s, maxdiff(ya, yb));
    }
    CHECK_EQ_INT(p ? ct_jit_quant_qat_buffers(p, bufs, 4) : -1, 4);
    for (int k = 0; k < 4 && p && em; k++)
        CT_T_REPORT(bit_equal(bufs[k], ct_module_get(em, names[k])), "%s %s trace: running statistic %d differs by %g", what, mode, k,
                    maxdiff(bufs[k], ct_module_get(em, names[k])));
    ct_graph_free(p);
    ct_graph_free(g);
    ct_module_free(fm);
    ct_module_free(em);
}
TEST(test_quant_graph_mode_qat_convbn) {
    ct_qconfig qc = ct_qat_qconfig_default_x86();
    ct_tensor *xs[3], *ts[3], *xt = jqfix("jit_quant", "jq_qat_xt");
    for (int s = 0; s < 3; s++) {
        char nm[32];
        snprintf(nm, sizeof nm, "jq_qat_x%d", s);
        xs[s] = jqfix("jit_quant", nm);
        snprintf(nm, sizeof nm, "jq_qat_t%d", s);
        ts[s] = jqfix("jit_quant", nm);
        if (!xs[s] || !ts[s]) return;
    }
    ct_tensor *fl = jqfix("jit_quant", "jq_qat_losses"), *frun = jqfix("jit_quant", "jq_qat_running");
    ct_tensor *fy = jqfix("jit_quant", "jq_qat_y"), *fqp = jqfix("jit_quant", "jq_qat_qparams");
    if (!xt || !fl || !frun || !fy || !fqp) return;
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.05;
    so.momentum = 0.9;
    /* eager */
    ct_module *em = jq_qat_cnn(1);
    CHECK(em != NULL);
    if (!em) return;
    jq_qat_cnn_eager(em, &qc);
    double el[3] = {NAN, NAN, NAN};
    jq_eager_steps(em, &so, xs, ts, el);
    ct_module_eval(em);
    ct_tensor *yef = ct_forward(em, xt);        /* eval mode: running statistics */
    ct_tensor *erun[4] = {ct_clone(ct_module_get(em, "conv1.bn.running_mean")), ct_clone(ct_module_get(em, "conv1.bn.running_var")),
                          ct_clone(ct_module_get(em, "conv2.bn.running_mean")), ct_clone(ct_module_get(em, "conv2.bn.running_var"))};
    CHECK(ct_quant_convert(em) > 0);
    ct_tensor *ye = ct_forward(em, xt);
    /* graph mode: traced in eval mode (the batch norm as its running statistics) */
    ct_module *fm = jq_qat_cnn(0);
    if (fm) ct_module_eval(fm);
    ct_graph *g = fm ? ct_trace_module(fm, 1, &xs[0]) : NULL;
    ct_tensor *fm_rm = fm ? ct_clone(ct_module_get(fm, "bn1.running_mean")) : NULL;
    CHECK(g != NULL);
    if (g) ct_graph_set_dynamic_batch(g, 1);
    ct_graph *p = g ? ct_jit_quant_prepare_qat(g, &qc) : NULL;
    CHECK(p != NULL);
    CHECK_EQ_INT(ct_jit_quant_num_observers(p), 4);            /* input, conv1 + bn1 + relu1, conv2 + bn2, fc (none on the flatten) */
    CHECK_EQ_INT(ct_graph_count_op(p, "ct::batch_norm_eval"), 0);
    CHECK_EQ_INT(ct_graph_count_op(p, "aten::div.Tensor"), 4);   /* sf per ConvBn2d, the output / sf */
    CHECK(p && ct_graph_verify(p) == CT_OK);
    ct_tensor *w[12] = {NULL}, *bufs[4] = {NULL};
    /* conv1 weight + bias, conv2 weight, fc weight + bias, two gammas, then two betas */
    CHECK_EQ_INT(ct_jit_quant_qat_parameters(p, w, 12), 9);
    CHECK_EQ_INT(ct_jit_quant_qat_buffers(p, bufs, 4), 4);
    CHECK_EQ_INT(ct_jit_quant_qat_buffers(p, NULL, 0), 4);
    ct_optimizer *go = p ? ct_optim_sgd_params(9, w, &so) : NULL;
    CHECK(go != NULL);
    for (int s = 0; s < 3 && go; s++) CT_SCOPE {
        ct_tensor *loss = ct_mse_loss(run1(p, xs[s]), ts[s], NULL);
        ct_zero_grad(go);
        CHECK(loss && ct_backward(loss) == CT_OK && ct_step(go) == CT_OK);
        double l = loss ? ct_item(loss) : NAN, lfx = ((const double *)ct_data_ptr(fl))[s];
        CT_T_REPORT(l == el[s], "ConvBn2d QAT step %d: graph-mode loss %.9g, eager %.9g", s, l, el[s]);
        CT_T_REPORT(fabs(l - lfx) <= (s ? 2e-3 : 1e-6) * lfx, "ConvBn2d QAT step %d: graph-mode loss %.9g, PyTorch FX %.9g", s, l, lfx);
    }
    ct_optim_free(go);
    CHECK(fm && ct_grad(ct_module_get(fm, "bn1.weight")) == NULL);   /* the float model is not touched */
    CHECK(fm && fm_rm && bit_equal(ct_module_get(fm, "bn1.running_mean"), fm_rm));
    CHECK_EQ_INT(ct_jit_quant_qat_train(p, 0), CT_OK);
    ct_tensor *ygf = p ? run1(p, xt) : NULL;
    CT_T_REPORT(yef && ygf && bit_equal(ygf, yef), "ConvBn2d QAT eval mode: graph vs eager max diff %g", maxdiff(ygf, yef));
    for (int k = 0; k < 4; k++) {
        CT_T_REPORT(bufs[k] && erun[k] && bit_equal(bufs[k], erun[k]), "running statistic %d: graph vs eager max diff %g", k, maxdiff(bufs[k], erun[k]));
        double dfx = maxdiff(bufs[k], ct_narrow(frun, 0, 4 * k, 4));
        CT_T_REPORT(dfx <= 1e-5, "running statistic %d: graph vs PyTorch FX max diff %g", k, dfx);
    }
    ct_graph *q = p ? ct_jit_quant_convert(p) : NULL;
    CHECK(q != NULL);
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::conv2d_relu"), 1);
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::conv2d"), 1);
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::native_batch_norm") + ct_graph_count_op(q, "aten::div.Tensor"), 0);
    CHECK(q && ct_graph_verify(q) == CT_OK);
    ct_tensor *yg = q ? run1(q, xt) : NULL;
    CT_T_REPORT(yg && ye && bit_equal(yg, ye), "ConvBn2d QAT int8: graph vs eager max diff %g", maxdiff(yg, ye));
    double dy = maxdiff(yg, fy), quantum = ((const double *)ct_data_ptr(fqp))[0];
    CT_T_REPORT(dy <= 3 * quantum * 1.0001, "ConvBn2d QAT int8: graph vs PyTorch FX max diff %g (quantum %g)", dy, quantum);
    /* a graph traced in training mode (the batch norm as native_batch_norm and its
       statistics updates; momentum 0.3 read from them; the trace's own forward
       updated the statistics, as the eager model's first forward does) */
    static const char *const en2[4] = {"conv1.bn.running_mean", "conv1.bn.running_var", "conv2.bn.running_mean", "conv2.bn.running_var"};
    for (int train = 1; train >= 0; train--)
        jq_check_train_trace("ConvBn2d", train, jq_qat_cnn_m(0, 0.3), jq_qat_cnn_m(1, 0.3), jq_qat_cnn_eager, &qc, xs, en2);
    /* momentum=None (a cumulative average): batch_norm_eval records 0 */
    jq_check_train_trace("ConvBn2d momentum=None", 0, jq_qat_cnn_m(0, NAN), jq_qat_cnn_m(1, NAN), jq_qat_cnn_eager, &qc, xs, en2);
    /* bad input */
    CHECK_ERR(ct_jit_quant_qat_buffers(g, bufs, 4) >= 0, CT_ERR_STATE, "not prepared for QAT");
    CHECK_ERR(ct_jit_quant_qat_buffers(NULL, bufs, 4) >= 0, CT_ERR_NULL, "jit_quant_qat_buffers: graph is NULL");
    CHECK_ERR(ct_jit_quant_qat_buffers(p, NULL, 4) >= 0, CT_ERR_ARG, "max 4 with a NULL list");
    CHECK_ERR(ct_jit_quant_qat_train(g, 1) == CT_OK, CT_ERR_STATE, "not prepared for QAT");
    CHECK_ERR(ct_jit_quant_qat_train(NULL, 1) == CT_OK, CT_ERR_NULL, "jit_quant_qat_train: graph is NULL");
    /* a batch norm of 3 channels after a conv2d of 4 (built by hand) */
    ct_graph *b = ct_graph_new();
    int64_t xshape[4] = {2, 1, 6, 6};
    int x = ct_graph_add_input(b, "x", CT_FLOAT32, 4, xshape);
    int cw = ct_graph_add_constant(b, "w", ct_randn(CT_FLOAT32, 4, 1, 3, 3)), cb = ct_graph_add_constant(b, "b", ct_zeros(CT_FLOAT32, 4));
    int y = -1;
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::conv2d", 3, (int[]){x, cw, cb}, NULL, 1, &y), 0);
    jq_bad_bn(b, y, &qc, "has a weight of 3 elements, the conv2d makes 4 channels");
    ct_graph_free(q);
    ct_graph_free(p);
    ct_graph_free(g);
    ct_module_free(fm);
    ct_module_free(em);
}
/* graph-mode QAT of linear -> BatchNorm1d as FX's LinearBn1d (PyTorch 1.13 has no
   LinearBnReLU1d: a relu after it runs on the fake-quantized output, sharing its
   FakeQuantize, as in FX and eager mode); fc2 has no bias (an mm). Against eager
   QAT (fuse_modules_qat's LinearBn1d, the same SGD steps): the same losses, running
   statistics, eval-mode outputs and int8 results, bit for bit. Against PyTorch
   1.13 (tests/reference/jit_quant_fixtures.py qatmlp): its eager QAT's losses within
   1e-6 relative (2e-7 here); FX's first loss within 1e-6 relative, the next ones
   within 2e-2 (0.4% and 1.2% here), the running statistics within 1e-2 (2e-3 here)
   and the eval-mode and int8 outputs within 3 quanta (1 here), because FX's relu
   shares the LinearBn1d's FakeQuantize by running it again on the relu's output:
   its observer also sees that output (its moving minimum drifts towards 0) and the
   values are fake-quantized twice; eager mode and this graph observe no relu. */
static ct_module *jq_qat_lbn(int stubs, double momentum) {
    ct_manual_seed(41);
    ct_batch_norm_options bo;
    memset(&bo, 0, sizeof bo);
    bo.momentum = momentum;                    /* 0: the default 0.1 */
    ct_module *q = stubs ? ct_nn_quant_stub() : ct_nn_identity(), *dq = stubs ? ct_nn_dequant_stub() : ct_nn_identity();
    ct_module *m = ct_nn_sequential_dict({"quant", q}, {"fc1", ct_nn_linear(8, 16)}, {"bn1", ct_nn_batch_norm1d_ex(16, &bo)}, {"relu1", ct_nn_relu()},
                                         {"fc2", ct_nn_linear_bias(16, 12, 0)}, {"bn2", ct_nn_batch_norm1d_ex(12, &bo)}, {"fc3", ct_nn_linear(12, 4)},
                                         {"dequant", dq});
    if (m && jq_load(m, "jit_quant", "jq_qlm_")) {   /* PyTorch's seeded weights and batch norm statistics */
        ct_module_free(m);
        m = NULL;
    }
    return m;
}
static void jq_qat_lbn_eager(ct_module *em, const ct_qconfig *qc) {
    ct_module_train(em, 1);
    CHECK_EQ_INT(ct_fuse_modules_qat(em, "fc1", "bn1"), CT_OK);
    CHECK_EQ_INT(ct_fuse_modules_qat(em, "fc2", "bn2"), CT_OK);
    CHECK(ct_quant_prepare_qat(em, qc, NULL) > 0);
}
TEST(test_quant_graph_mode_qat_linearbn) {
    ct_qconfig qc = ct_qat_qconfig_default_x86();
    ct_tensor *xs[3], *ts[3], *xt = jqfix("jit_quant", "jq_qlm_xt");
    for (int s = 0; s < 3; s++) {
        char nm[32];
        snprintf(nm, sizeof nm, "jq_qlm_x%d", s);
        xs[s] = jqfix("jit_quant", nm);
        snprintf(nm, sizeof nm, "jq_qlm_t%d", s);
        ts[s] = jqfix("jit_quant", nm);
        if (!xs[s] || !ts[s]) return;
    }
    ct_tensor *fl = jqfix("jit_quant", "jq_qlm_losses"), *fle = jqfix("jit_quant", "jq_qlm_eager_losses"), *frun = jqfix("jit_quant", "jq_qlm_running");
    ct_tensor *fy = jqfix("jit_quant", "jq_qlm_y"), *fyf = jqfix("jit_quant", "jq_qlm_yf"), *fqp = jqfix("jit_quant", "jq_qlm_qparams");
    if (!xt || !fl || !fle || !frun || !fy || !fyf || !fqp) return;
    ct_sgd_options so;
    memset(&so, 0, sizeof so);
    so.lr = 0.05;
    so.momentum = 0.9;
    /* eager */
    ct_module *em = jq_qat_lbn(1, 0);
    CHECK(em != NULL);
    if (!em) return;
    jq_qat_lbn_eager(em, &qc);
    double el[3] = {NAN, NAN, NAN};
    jq_eager_steps(em, &so, xs, ts, el);
    ct_module_eval(em);
    ct_tensor *yef = ct_forward(em, xt);
    static const char *const en[4] = {"fc1.bn.running_mean", "fc1.bn.running_var", "fc2.bn.running_mean", "fc2.bn.running_var"};
    ct_tensor *erun[4];
    for (int k = 0; k < 4; k++) erun[k] = ct_clone(ct_module_get(em, en[k]));
    CHECK(ct_quant_convert(em) > 0);
    ct_tensor *ye = ct_forward(em, xt);
    /* graph mode: traced in eval mode */
    ct_module *fm = jq_qat_lbn(0, 0);
    if (fm) ct_module_eval(fm);
    ct_graph *g = fm ? ct_trace_module(fm, 1, &xs[0]) : NULL;
    ct_tensor *fm_rm = fm ? ct_clone(ct_module_get(fm, "bn1.running_mean")) : NULL;
    CHECK(g != NULL);
    if (g) ct_graph_set_dynamic_batch(g, 1);
    ct_graph *p = g ? ct_jit_quant_prepare_qat(g, &qc) : NULL;
    CHECK(p != NULL);
    CHECK_EQ_INT(ct_jit_quant_num_observers(p), 4);            /* input, fc1 + bn1 (relu1 shares it), fc2 + bn2, fc3 */
    CHECK_EQ_INT(ct_graph_count_op(p, "ct::batch_norm_eval"), 0);
    CHECK_EQ_INT(ct_graph_count_op(p, "aten::div.Tensor"), 4);   /* sf per LinearBn1d, the output / sf */
    CHECK_EQ_INT(ct_graph_count_op(p, "aten::mm"), 0);           /* fc2: addmm(zeros, x, w'), as ct_linear */
    CHECK(p && ct_graph_verify(p) == CT_OK);
    ct_tensor *w[12] = {NULL}, *bufs[4] = {NULL};
    /* fc1 weight + bias, fc2 weight, fc3 weight + bias, two gammas, then two betas */
    CHECK_EQ_INT(ct_jit_quant_qat_parameters(p, w, 12), 9);
    CHECK_EQ_INT(ct_jit_quant_qat_buffers(p, bufs, 4), 4);
    ct_optimizer *go = p ? ct_optim_sgd_params(9, w, &so) : NULL;
    CHECK(go != NULL);
    for (int s = 0; s < 3 && go; s++) CT_SCOPE {
        ct_tensor *loss = ct_mse_loss(run1(p, xs[s]), ts[s], NULL);
        ct_zero_grad(go);
        CHECK(loss && ct_backward(loss) == CT_OK && ct_step(go) == CT_OK);
        double l = loss ? ct_item(loss) : NAN;
        CT_T_REPORT(l == el[s], "LinearBn1d QAT step %d: graph-mode loss %.9g, eager %.9g", s, l, el[s]);
        double lfx = ((const double *)ct_data_ptr(fl))[s];
        double lpe = ((const double *)ct_data_ptr(fle))[s];
        CT_T_REPORT(fabs(l - lfx) <= (s ? 2e-2 : 1e-6) * lfx, "LinearBn1d QAT step %d: graph-mode loss %.9g, PyTorch FX %.9g", s, l, lfx);
        CT_T_REPORT(fabs(l - lpe) <= 1e-6 * lpe, "LinearBn1d QAT step %d: graph-mode loss %.9g, PyTorch eager QAT %.9g", s, l, lpe);
    }
    ct_optim_free(go);
    CHECK(fm && ct_grad(ct_module_get(fm, "fc1.weight")) == NULL);   /* the float model is not touched */
    CHECK(fm && fm_rm && bit_equal(ct_module_get(fm, "bn1.running_mean"), fm_rm));
    CHECK_EQ_INT(ct_jit_quant_qat_train(p, 0), CT_OK);
    ct_tensor *ygf = p ? run1(p, xt) : NULL;
    CT_T_REPORT(yef && ygf && bit_equal(ygf, yef), "LinearBn1d QAT eval mode: graph vs eager max diff %g", maxdiff(ygf, yef));
    double quantum = ((const double *)ct_data_ptr(fqp))[0], dyf = maxdiff(ygf, fyf);
    CT_T_REPORT(dyf <= 3 * quantum * 1.0001, "LinearBn1d QAT eval mode: graph vs PyTorch FX max diff %g (quantum %g)", dyf, quantum);
    for (int k = 0; k < 4; k++) {
        CT_T_REPORT(bufs[k] && erun[k] && bit_equal(bufs[k], erun[k]), "LinearBn1d running statistic %d: graph vs eager max diff %g", k,
                    maxdiff(bufs[k], erun[k]));
        int64_t off = k < 2 ? 16 * k : 32 + 12 * (k - 2), len = k < 2 ? 16 : 12;
        double dfx = maxdiff(bufs[k], ct_narrow(frun, 0, off, len));
        CT_T_REPORT(dfx <= 1e-2, "LinearBn1d running statistic %d: graph vs PyTorch FX max diff %g", k, dfx);
    }
    ct_graph *q = p ? ct_jit_quant_convert(p) : NULL;
    CHECK(q != NULL);
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::linear"), 3);
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::linear_relu"), 0);
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::native_batch_norm") + ct_graph_count_op(q, "aten::div.Tensor") + ct_graph_count_op(q, "aten::addmm"), 0);
    CHECK(q && ct_graph_verify(q) == CT_OK);
    ct_tensor *yg = q ? run1(q, xt) : NULL;
    CT_T_REPORT(yg && ye && bit_equal(yg, ye), "LinearBn1d QAT int8: graph vs eager max diff %g", maxdiff(yg, ye));
    double dy = maxdiff(yg, fy);
    CT_T_REPORT(dy <= 3 * quantum * 1.0001, "LinearBn1d QAT int8: graph vs PyTorch FX max diff %g (quantum %g)", dy, quantum);
    for (int train = 1; train >= 0; train--)
        jq_check_train_trace("LinearBn1d", train, jq_qat_lbn(0, 0.3), jq_qat_lbn(1, 0.3), jq_qat_lbn_eager, &qc, xs, en);
    /* bad input: a BatchNorm1d of 3 features after a linear of 4 (built by hand) */
    ct_graph *b = ct_graph_new();
    int64_t xshape[2] = {2, 8};
    int x = ct_graph_add_input(b, "x", CT_FLOAT32, 2, xshape);
    int lw = ct_graph_add_constant(b, "w", ct_randn(CT_FLOAT32, 4, 8)), lb = ct_graph_add_constant(b, "b", ct_zeros(CT_FLOAT32, 4));
    int wt = -1, y = -1;
    ct_attrs pa, ab;
    memset(&pa, 0, sizeof pa);
    pa.nv = 2;
    pa.v[0] = 1;
    memset(&ab, 0, sizeof ab);
    ab.s[0] = 1.0;
    ab.s[1] = 1.0;                             /* addmm: beta 1, alpha 1 */
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::permute", 1, &lw, &pa, 1, &wt), 0);
    CHECK_EQ_INT(ct_graph_add_node(b, "aten::addmm", 3, (int[]){lb, x, wt}, &ab, 1, &y), 0);
    jq_bad_bn(b, y, &qc, "batch norm after linear node 1 has a weight of 3 elements, the linear makes 4 features");
    ct_graph_free(q);
    ct_graph_free(p);
    ct_graph_free(g);
    ct_module_free(fm);
    ct_module_free(em);
}
TEST(test_quant_graph_mode_dynamic) {
    ct_tensor *x = jqfix("quant", "wf_dyn_x"), *yt = jqfix("quant", "wf_dyn_y");
    if (!x || !yt) return;
    ct_module *fm = ct_module_eval(jq_dyn_mlp());
    CHECK(fm && jq_load(fm, "quant", "wf_dyn_in_") == 0);
    ct_graph *g = ct_trace_module(fm, 1, &x);
    CHECK(g != NULL);
    if (!g) { ct_module_free(fm); return; }
    ct_graph_set_dynamic_batch(g, 1);
    for (int pc = 0; pc < 2; pc++) {
        int rr = !pc;
        ct_graph *q = ct_jit_quant_dynamic(g, pc, rr);
        CHECK(q != NULL);
        CHECK_EQ_INT(ct_graph_count_op(q, "quantized::linear_dynamic"), 3);
        CHECK_EQ_INT(ct_graph_count_op(q, "aten::addmm") + ct_graph_count_op(q, "aten::mm"), 0);
        CHECK_EQ_INT(ct_graph_count_op(q, "aten::tanh"), 1);           /* the rest stays float */
        ct_module *em = ct_module_eval(jq_dyn_mlp());
        CHECK(em && jq_load(em, "quant", "wf_dyn_in_") == 0);
        CHECK_EQ_INT(ct_quantize_dynamic(em, pc, rr), 3);
        ct_tensor *y = q ? run1(q, x) : NULL;
        CHECK(y && bit_equal(y, ct_forward(em, x)));
        ct_tensor *x2 = ct_contiguous(ct_narrow(x, 0, 1, 2));        /* another batch (dynamic batch kept) */
        CHECK(q && bit_equal(run1(q, x2), ct_forward(em, x2)));
        if (!pc) {
            double d = maxdiff(y, yt);
            CT_T_REPORT(d < 2e-2, "graph-mode dynamic MLP vs PyTorch's quantize_dynamic: %g", d);
        }
        ct_graph *l = NULL;
        CHECK_EQ_INT(ct_graph_save(q, tpath("qd.ctjit")), CT_OK);
        CHECK((l = ct_graph_load(tpath("qd.ctjit"))) != NULL);
        CHECK(l && bit_equal(run1(l, x), y));
        ct_graph_free(l);
        ct_graph_free(q);
        ct_module_free(em);
    }
    CHECK(ct_graph_num_nodes(g) > 0 && ct_graph_count_op(g, "aten::addmm") == 3);       /* g is not changed */
    CHECK_ERR(ct_jit_quant_dynamic(NULL, 0, 1) != NULL, CT_ERR_NULL, "jit_quant_dynamic: graph is NULL");
    ct_graph_free(g);
    ct_module_free(fm);
    ct_tensor *xs[1] = {ct_randn(CT_FLOAT32, 2, 3)};
    CHECK(ct_trace_begin(1, xs) == CT_OK);
    ct_tensor *t = ct_tanh(xs[0]);
    g = ct_trace_end(1, &t);
    CHECK_ERR(g && ct_jit_quant_dynamic(g, 0, 1) != NULL, CT_ERR_ARG, "jit_quant_dynamic: the graph has no linear layer with a constant weight to quantize");
    ct_graph_free(g);
}
/* a residual block (conv-bn-relu, conv-bn, add, relu) and a two-branch cat: the
   float model calls ct_add / ct_relu / ct_cat, the eager one FloatFunctional's
   add_relu / cat; graph mode matches add+relu and cat and equals eager static
   quantization bit for bit */
static ct_tensor *jq_res_fwd(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    int eager = ct_module_child(m, "ff") != NULL;
    ct_tensor *x = ct_forward(ct_module_child(m, "quant"), in[0]);
    ct_tensor *h = ct_forward(ct_module_child(m, "relu1"), ct_forward(ct_module_child(m, "bn1"), ct_forward(ct_module_child(m, "conv1"), x)));
    h = ct_forward(ct_module_child(m, "bn2"), ct_forward(ct_module_child(m, "conv2"), h));
    ct_tensor *y = eager ? ct_ff_add_relu(ct_module_child(m, "ff"), h, x) : ct_relu(ct_add(h, x));
    return ct_forward(ct_module_child(m, "dequant"), y);
}
static ct_tensor *jq_cat_fwd(ct_module *m, int nin, ct_tensor *const *in) {
    (void)nin;
    int eager = ct_module_child(m, "ff") != NULL;
    ct_tensor *x = ct_forward(ct_module_child(m, "quant"), in[0]);
    ct_tensor *ab[2] = {ct_forward(ct_module_child(m, "relua"), ct_forward(ct_module_child(m, "bna"), ct_forward(ct_module_child(m, "conva"), x))),
                        ct_forward(ct_module_child(m, "relub"), ct_forward(ct_module_child(m, "convb"), x))};
    ct_tensor *c = eager ? ct_ff_cat(ct_module_child(m, "ff"), 2, ab, 1) : ct_cat(2, ab, 1);
    return ct_forward(ct_module_child(m, "dequant"), ct_forward(ct_module_child(m, "convc"), c));
}
static const ct_module_type jq_res_type = {"ResBlock", jq_res_fwd, NULL, NULL};
static const ct_module_type jq_cat_type = {"TwoBranch", jq_cat_fwd, NULL, NULL};
static ct_module *jq_res(int stubs) {
    ct_module *m = ct_module_new(&jq_res_type, NULL);
    ct_module_add_module(m, "quant", stubs ? ct_nn_quant_stub() : ct_nn_identity());
    ct_module_add_module(m, "conv1", ct_nn_conv2d(4, 4, 3, 1, 1));
    ct_module_add_module(m, "bn1", ct_nn_batch_norm2d(4));
    ct_module_add_module(m, "relu1", ct_nn_relu());
    ct_module_add_module(m, "conv2", ct_nn_conv2d(4, 4, 3, 1, 1));
    ct_module_add_module(m, "bn2", ct_nn_batch_norm2d(4));
    if (stubs) ct_module_add_module(m, "ff", ct_nn_float_functional());
    ct_module_add_module(m, "dequant", stubs ? ct_nn_dequant_stub() : ct_nn_identity());
    return m;
}
static ct_module *jq_twobranch(int stubs) {
    ct_module *m = ct_module_new(&jq_cat_type, NULL);
    ct_module_add_module(m, "quant", stubs ? ct_nn_quant_stub() : ct_nn_identity());
    ct_module_add_module(m, "conva", ct_nn_conv2d(3, 4, 3, 1, 1));
    ct_module_add_module(m, "bna", ct_nn_batch_norm2d(4));
    ct_module_add_module(m, "relua", ct_nn_relu());
    ct_module_add_module(m, "convb", ct_nn_conv2d(3, 2, 1, 1, 0));
    ct_module_add_module(m, "relub", ct_nn_relu());
    ct_module_add_module(m, "convc", ct_nn_conv2d(6, 5, 1, 1, 0));
    if (stubs) ct_module_add_module(m, "ff", ct_nn_float_functional());
    ct_module_add_module(m, "dequant", stubs ? ct_nn_dequant_stub() : ct_nn_identity());
    return m;
}
/* the converted graph's ops for one model (prepared, calibrated, converted again) */
static ct_graph *jq_convert_fixture(ct_module *(*make)(int), const char *prefix) {
    char nm[64];
    ct_module *fm = make(0);
    ct_graph *g = NULL, *p = NULL, *q = NULL;
    ct_tensor *cal[4];
    if (!fm || jq_load(fm, "jit_quant", prefix)) goto done;
    ct_module_eval(fm);
    for (int i = 0; i < 4; i++) {
        snprintf(nm, sizeof nm, "%scalib%d", prefix, i);
        if (!(cal[i] = jqfix("jit_quant", nm))) goto done;
    }
    ct_qconfig qc = ct_qconfig_default_x86();
    g = ct_trace_module(fm, 1, &cal[0]);
    p = g ? ct_jit_quant_prepare(g, &qc) : NULL;
    for (int i = 0; p && i < 4; i++) CHECK(run1(p, cal[i]) != NULL);
    q = p ? ct_jit_quant_convert(p) : NULL;
done:
    CHECK(q != NULL);
    ct_graph_free(p);
    ct_graph_free(g);
    ct_module_free(fm);
    return q;
}
/* graph mode vs eager (bit for bit, in jq_both_ways) and vs PyTorch's FX */
static void jq_fx_case(ct_module *(*make)(int), const char *name, int nfuse, const char *const (*fuse)[3], double quanta) {
    char nm[64];
    ct_qconfig qc = ct_qconfig_default_x86();
    snprintf(nm, sizeof nm, "jq_%s_x", name);
    ct_tensor *x = jqfix("jit_quant", nm), *y = NULL;
    if (!x) return;
    char prefix[32], calib[40];
    snprintf(prefix, sizeof prefix, "jq_%s_", name);
    snprintf(calib, sizeof calib, "jq_%s_calib%%d", name);
    CHECK_EQ_INT(jq_both_ways(make, "jit_quant", prefix, calib, x, &qc, nfuse, fuse, &y), 0);
    snprintf(nm, sizeof nm, "jq_%s_qparams", name);
    ct_tensor *qp = jqfix("jit_quant", nm);
    double quantum = qp ? ((const double *)ct_data_ptr(qp))[0] : 0;
    snprintf(nm, sizeof nm, "jq_%s_y", name);
    double dfx = maxdiff(y, jqfix("jit_quant", nm));
    CT_T_REPORT(dfx <= quanta * quantum * 1.0001, "%s: graph mode vs PyTorch's FX graph mode: %g (quantum %g)", name, dfx, quantum);
}
TEST(test_quant_graph_mode_residual_add) {
    static const char *const fuse[2][3] = {{"conv1", "bn1", "relu1"}, {"conv2", "bn2", NULL}};
    jq_fx_case(jq_res, "res", 2, fuse, 1);     /* equal to FX's here */
    ct_graph *q = jq_convert_fixture(jq_res, "jq_res_");
    if (!q) return;
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::add_relu"), 1);
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::conv2d_relu") + ct_graph_count_op(q, "quantized::conv2d"), 2);
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::quantize_per_tensor"), 1);     /* the input, quantized once for conv1 and the add */
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::add.Tensor") + ct_graph_count_op(q, "aten::relu"), 0);
    ct_graph_free(q);
}
TEST(test_quant_graph_mode_cat) {
    ct_graph *q = jq_convert_fixture(jq_twobranch, "jq_cat_");
    if (!q) return;
    /* FX's shared observer: both convs before the cat write the cat's scale and
       zero point (quantized::cat copies codes, no requantize) */
    static char txt[8192];
    ct_graph_repr(q, txt, sizeof txt);
    const char *qp[3] = {NULL, NULL, NULL}, *at = txt;
    for (int k = 0; k < 3 && at; k++) {
        const char *line = strstr(at, k < 2 ? "= quantized::conv2d_relu[" : "= quantized::cat[");
        qp[k] = line ? strstr(line, "scale=") : NULL;
        at = qp[k];
    }
    CHECK(qp[0] && qp[1] && qp[2]);
    if (qp[0] && qp[1] && qp[2]) {
        size_t len = strcspn(qp[2], "]");
        CHECK(len > 20 && !strncmp(qp[0], qp[2], len) && !strncmp(qp[1], qp[2], len) && qp[0][len] == ']' && qp[1][len] == ']');
    }
    /* and the outputs: PyTorch 1.13's FX graph mode (the same calibration) */
    ct_tensor *x = jqfix("jit_quant", "jq_cat_x"), *c0 = jqfix("jit_quant", "jq_cat_calib0");
    ct_tensor *qpar = jqfix("jit_quant", "jq_cat_qparams");
    if (x && c0 && qpar) {
        double quantum = ((const double *)ct_data_ptr(qpar))[0];
        ct_tensor *y = jq_run_rows(q, x, ct_size(c0, 0));
        double dfx = maxdiff(y, jqfix("jit_quant", "jq_cat_y"));
        CT_T_REPORT(y && dfx == 0, "cat: graph mode vs PyTorch's FX graph mode: %g (quantum %g; one quantum apart with a requantizing cat)", dfx, quantum);
    }
    CHECK_EQ_INT(ct_graph_count_op(q, "quantized::cat"), 1);
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::cat"), 0);
    CHECK_EQ_INT(ct_graph_count_op(q, "aten::quantize_per_tensor"), 1);
    ct_graph_free(q);
}
/* add and cat alone are quantized only beside a conv or linear layer; an add with a
   constant operand or alpha != 1 stays float */
TEST(test_quant_graph_mode_add_cat_bad_input) {
    ct_manual_seed(33);
    ct_qconfig qc = ct_qconfig_default_x86();
    ct_tensor *xs[2] = {ct_randn(CT_FLOAT32, 2, 3), ct_randn(CT_FLOAT32, 2, 3)};
    CHECK(ct_trace_begin(2, xs) == CT_OK);
    ct_tensor *ab[2] = {ct_add(xs[0], xs[1]), xs[1]};
    ct_tensor *y = ct_cat(2, ab, 1);
    ct_graph *g = ct_trace_end(1, &y);
    CHECK(g != NULL);
    CHECK_ERR(ct_jit_quant_prepare(g, &qc) != NULL, CT_ERR_ARG, "jit_quant_prepare: the graph has no conv2d or linear layer with constant weights to quantize");
    ct_graph_free(g);
    ct_module *lin = ct_module_eval(ct_nn_linear(3, 3));
    CHECK(ct_trace_begin(2, xs) == CT_OK);
    ct_tensor *h = ct_forward(lin, xs[0]);
    y = ct_add(ct_add_alpha(h, xs[1], 2.0), ct_full(CT_FLOAT32, 1.0, 2, 3));
    g = ct_trace_end(1, &y);
    ct_graph *p = g ? ct_jit_quant_prepare(g, &qc) : NULL;
    CHECK(p != NULL);
    ct_tensor *yp = NULL;
    CHECK(p && ct_graph_run(p, 2, xs, &yp, 1) == 1);
    ct_graph *q = p ? ct_jit_quant_convert(p) : NULL;
    CHECK(q && ct_graph_count_op(q, "quantized::add") == 0 && ct_graph_count_op(q, "quantized::linear") == 1);
    ct_graph_free(q);
    ct_graph_free(p);
    ct_graph_free(g);
    ct_module_free(lin);
}
TEST(test_quant_graph_mode_bad_input) {
    ct_manual_seed(3);
    ct_qconfig qc = ct_qconfig_default_x86();
    ct_module *m = ct_module_eval(jq_mlp(0));
    ct_tensor *x = ct_randn(CT_FLOAT32, 4, 20);
    ct_graph *g = ct_trace_module(m, 1, &x);
    CHECK(g != NULL);
    CHECK_ERR(ct_jit_quant_prepare(NULL, &qc) != NULL, CT_ERR_NULL, "jit_quant_prepare: graph is NULL");
    CHECK_ERR(ct_jit_quant_prepare(g, NULL) != NULL, CT_ERR_NULL, "jit_quant_prepare: qconfig is NULL");
    CHECK_ERR(ct_jit_quant_convert(NULL) != NULL, CT_ERR_NULL, "jit_quant_convert: graph is NULL");
    CHECK_ERR(ct_jit_quant_num_observers(NULL) >= 0, CT_ERR_NULL, "jit_quant_num_observers: graph is NULL");
    CHECK_EQ_INT(ct_jit_quant_num_observers(g), 0);
    /* a graph not prepared; a graph with nothing to quantize (the elementwise chain) */
    CHECK_ERR(ct_jit_quant_convert(g) != NULL, CT_ERR_STATE, "is not prepared");
    ct_tensor *cx = ct_randn(CT_FLOAT32, 64);
    CHECK(ct_trace_begin(1, &cx) == CT_OK);
    ct_tensor *cy = jit_chain20(cx);
    ct_graph *chain = ct_trace_end(1, &cy);
    CHECK_ERR(ct_jit_quant_prepare(chain, &qc) != NULL, CT_ERR_ARG, "no conv2d or linear layer with constant weights");
    ct_jit_fuse_elementwise(chain);
    CHECK_ERR(ct_jit_quant_prepare(chain, &qc) != NULL, CT_ERR_UNSUPPORTED, "prim::FusedElementwise");
    ct_graph_free(chain);
    /* convert before calibration; a prepared graph cannot be saved or prepared again */
    ct_graph *p = ct_jit_quant_prepare(g, &qc);
    CHECK(p != NULL);
    CHECK_ERR(ct_jit_quant_convert(p) != NULL, CT_ERR_STATE, "has seen no data: run the prepared graph on calibration inputs first");
    void *buf = NULL;
    size_t len = 0;
    CHECK_ERR(ct_graph_save_mem(p, &buf, &len) == CT_OK, CT_ERR_STATE, "graph_save: the graph is prepared for quantization");
    CHECK_ERR(ct_jit_quant_prepare(p, &qc) != NULL, CT_ERR_STATE, "already prepared");
    /* the printout shows the observers, as FX's GraphModule shows its observer modules */
    char txt[4096];
    ct_graph_repr(p, txt, sizeof txt);
    CHECK(strstr(txt, "\n  # observed by HistogramObserver: %") != NULL);
    /* a clone drops the observers; the prepared graph computes what the float one does */
    ct_graph *c = ct_graph_clone(p);
    CHECK(c && ct_jit_quant_num_observers(c) == 0);
    ct_graph_free(c);
    CHECK(maxdiff(run1(p, x), ct_forward(m, x)) < 1e-5);
    ct_graph *q = ct_jit_quant_convert(p);   /* calibrated by that run */
    CHECK(q != NULL);
    /* a graph whose relu already runs in place (ct_jit_fuse_activation) matches too */
    ct_graph *g2 = ct_graph_clone(g);
    CHECK(g2 && ct_jit_freeze(g2) == CT_OK && ct_jit_fuse_activation(g2) == CT_OK);
    ct_graph *p2 = g2 ? ct_jit_quant_prepare(g2, &qc) : NULL;
    CHECK(p2 && run1(p2, x) != NULL);
    ct_graph *q2 = p2 ? ct_jit_quant_convert(p2) : NULL;
    CHECK(q2 && ct_graph_count_op(q2, "quantized::linear_relu") == 2 && bit_equal(run1(q2, x), run1(q, x)));
    ct_graph_free(q2);
    ct_graph_free(p2);
    ct_graph_free(g2);
    ct_graph_free(q);
    ct_graph_free(p);
    ct_graph_free(g);
    ct_module_free(m);
}

/* float32 bits in an order where neighbours differ by one ulp */
static int64_t ulp_key(float f) {
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i < 0 ? (int64_t)INT32_MIN - i : i;
}
/* same bits, or both NaN (a NaN's payload is not specified) */
static int same_or_nan(ct_tensor *a, ct_tensor *b) {
    if (!a || !b || !ct_same_shape(a, b) || ct_get_dtype(a) != CT_FLOAT32 || ct_get_dtype(b) != CT_FLOAT32) return 0;
    const float *p = (const float *)ct_data_ptr(ct_contiguous(a)), *q = (const float *)ct_data_ptr(ct_contiguous(b));
    for (int64_t i = 0; i < ct_numel(a); i++)
        if (!(isnan(p[i]) && isnan(q[i])) && memcmp(&p[i], &q[i], sizeof(float))) return 0;
    return 1;
}
/* x with special values (NaN, signed zeros, infinities, gelu's tail, a subnormal) */
static ct_tensor *with_specials(ct_tensor *x, int shift) {
    static const float sp[] = {NAN, 0.0f, -0.0f, INFINITY, -INFINITY, -5.6f, -7.0f, -12.0f, 1e-40f, 3.0f, -3.0f};
    ct_tensor *c = ct_contiguous(ct_clone(x));
    float *p = (float *)ct_data_ptr(c);
    for (int k = 0; k < (int)(sizeof sp / sizeof sp[0]); k++) p[(size_t)(k * 37 + shift) % (size_t)ct_numel(c)] = sp[k];
    return c;
}
static ct_tensor *fk_outputs(ct_tensor *x, ct_tensor *y, ct_tensor **o) {
    ct_tensor *two = ct_scalar_tensor(2.5, CT_FLOAT32);
    o[0] = ct_add(x, y);
    o[1] = ct_sub(x, y);
    o[2] = ct_mul(ct_mul_scalar(x, 3.0), y);
    o[3] = ct_div(x, ct_add(y, two));          /* a scalar as the second operand */
    o[4] = ct_maximum(x, y);
    o[5] = ct_minimum(ct_sub(two, x), y);      /* and as the first */
    o[6] = ct_neg(ct_abs(x));
    o[7] = ct_relu(ct_div(y, x));
    o[8] = ct_gelu(ct_mul(x, y), "none");
    o[9] = ct_sigmoid(ct_exp(ct_neg(x)));
    o[10] = ct_silu(ct_add(x, two));
    /* a run of six cheap ops in registers: the running value as the first operand,
       the second, both (t * t), with a scalar and with the group's inputs */
    ct_tensor *t = ct_add(y, ct_relu(ct_sub(x, y)));
    o[11] = ct_maximum(x, ct_sub_scalar(ct_mul(t, t), 0.1));
    /* exp around its overflow bound (88.72283): inf above it, from the clamp and scalef */
    o[12] = ct_exp(ct_add_scalar(ct_mul_scalar(y, 0.02), 88.72283));
    /* maximum / minimum on ties of signed zeros and on two NaNs (y's specials at x's) */
    o[13] = ct_maximum(ct_mul_scalar(x, 0.0), ct_neg(ct_mul_scalar(y, 0.0)));
    o[14] = ct_minimum(ct_neg(ct_mul_scalar(x, 0.0)), ct_mul_scalar(y, 0.0));
    o[15] = ct_maximum(y, x);
    return o[0];
}
TEST(test_fused_kernels) {
    /* the fused group's own loops (16 lanes on AVX-512) against the eager kernels:
       the same bits for the cheap ops and gelu, on a size with a tail, with NaN,
       signed zeros, infinities and scalar operands on either side */
    ct_manual_seed(11);
    ct_tensor *x = with_specials(ct_mul_scalar(ct_randn(CT_FLOAT32, 1003), 4.0), 0);
    ct_tensor *y = with_specials(ct_randn(CT_FLOAT32, 1003), 5);
    float *yp = (float *)ct_data_ptr(y);
    yp[0] = NAN;                    /* x[0] is NaN too */
    yp[37] = -0.0f;                 /* x[37] is +0 */
    yp[74] = 0.0f;                  /* x[74] is -0 */
    yp[111] = NAN;                  /* x[111] is inf */
    ct_tensor *ref[16], *got[16], *tr[16];
    fk_outputs(x, y, ref);
    ct_tensor *xy[2] = {x, y};
    CHECK(ct_trace_begin(2, xy) == CT_OK);
    fk_outputs(x, y, tr);
    ct_graph *g = ct_trace_end(16, tr);
    CHECK(g != NULL);
    CHECK_EQ_INT(ct_jit_fuse_elementwise(g), CT_OK);
    CHECK(ct_graph_count_op(g, "prim::FusedElementwise") >= 1);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::gelu"), 0);   /* in a fused group */
    CHECK_EQ_INT(ct_graph_run(g, 2, xy, got, 16), 16);
    for (int k = 0; k < 16; k++) CT_T_REPORT(same_or_nan(got[k], ref[k]), "fused output %d differs from eager", k);
    ct_graph_free(g);
    /* tanh and rsqrt have their own approximations in fused groups: within 2 ulp of
       double over a sweep of float bit patterns (both signs, subnormals to huge) */
    const int64_t n = 1 << 17;
    ct_tensor *s = ct_empty(CT_FLOAT32, n);
    float *sp = (float *)ct_data_ptr(s);
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)(i * 32768 + 12345);   /* every 32768th pattern of both halves */
        memcpy(&sp[i], &u, sizeof u);
        if (isnan(sp[i])) sp[i] = (float)i;
    }
    for (int which = 0; which < 2; which++) {
        CHECK(ct_trace_begin(1, &s) == CT_OK);
        ct_tensor *t = ct_neg(which ? ct_rsqrt(s) : ct_tanh(s));
        ct_graph *gu = ct_trace_end(1, &t);
        CHECK_EQ_INT(ct_jit_fuse_elementwise(gu), CT_OK);
        CHECK_EQ_INT(ct_graph_count_op(gu, "prim::FusedElementwise"), 1);
        ct_tensor *r = run1(gu, s);
        CHECK(r != NULL);
        int64_t worst = 0, bad = 0;
        for (int64_t i = 0; r && i < n; i++) {
            double xv = sp[i];
            float want = which ? (xv < 0 ? NAN : (float)(1.0 / sqrt(xv))) : (float)tanh(xv);
            float have = -((const float *)ct_data_ptr(r))[i];
            if (isnan(want) || isnan(have)) { bad += isnan(want) != isnan(have); continue; }
            int64_t d = ulp_key(have) - ulp_key(want);
            if (d < 0) d = -d;
            if (d > worst) worst = d;
        }
        CT_T_REPORT(worst <= 2 && bad == 0, "fused %s: %lld ulp at worst, %lld NaN mismatches", which ? "rsqrt" : "tanh", (long long)worst, (long long)bad);
        ct_graph_free(gu);
    }
}

TEST(test_fused_segments) {
    /* Segments: a run of cheap ops and the costly op (exp, sigmoid, silu, tanh, gelu)
       that reads its result run as one pass, 64 floats at a time. The same graph with
       every intermediate also returned (so no run ends in a costly op) takes the ops'
       own loops: the outputs must have the same bits. The chain has segments of 1 to
       4 cheap ops (rsqrt among them) before each of the five costly ops; the sizes
       give a whole block, a block with a 64-float remainder and a masked tail, and a
       part block. NaN, signed zeros and infinities are in the data. */
    static const int64_t sizes[] = {1024, 3000, 45};
    for (int si = 0; si < 3; si++) {
        ct_manual_seed(21 + si);
        ct_tensor *x = with_specials(ct_mul_scalar(ct_randn(CT_FLOAT32, sizes[si]), 3.0), si);
        CHECK(ct_trace_begin(1, &x) == CT_OK);
        ct_tensor *y = jit_chain20(x);
        ct_graph *g = ct_trace_end(1, &y);
        CHECK(g != NULL);
        CHECK_EQ_INT(ct_jit_optimize(g), CT_OK);
        CHECK_EQ_INT(ct_graph_count_op(g, "prim::FusedElementwise"), 1);
        /* each costly op's operand an output too (so it ends no run) */
        ct_tensor *t[8];
        int nt = 0;
        CHECK(ct_trace_begin(1, &x) == CT_OK);
        ct_tensor *v = ct_add_scalar(ct_mul_scalar(x, 0.5), 0.25);
        t[nt++] = v;
        v = ct_mul(ct_tanh(v), x);
        t[nt++] = v;
        v = ct_neg(ct_add(ct_relu(ct_sub(ct_sigmoid(v), x)), x));
        t[nt++] = v;
        v = ct_mul(x, ct_rsqrt(ct_add_scalar(ct_mul_scalar(ct_exp(v), 3.0), 1.0)));
        t[nt++] = v;
        v = ct_silu(v);
        v = ct_maximum(ct_sub_scalar(ct_mul(v, v), 0.1), x);
        t[nt++] = v;
        t[nt++] = ct_gelu(v, "none");
        ct_graph *ga = ct_trace_end(nt, t);
        CHECK(ga != NULL);
        CHECK_EQ_INT(ct_jit_fuse_elementwise(ga), CT_OK);
        CHECK_EQ_INT(ct_graph_count_op(ga, "prim::FusedElementwise"), 1);
        ct_tensor *got = NULL, *all[8] = {NULL};
        CHECK_EQ_INT(ct_graph_run(g, 1, &x, &got, 1), 1);
        CHECK_EQ_INT(ct_graph_run(ga, 1, &x, all, nt), nt);
        CT_T_REPORT(same_or_nan(got, all[nt - 1]), "size %lld: the segments' output differs from the ops' own loops", (long long)sizes[si]);
        ct_graph_free(g);
        ct_graph_free(ga);
    }
}

static void simp_f(ct_tensor *x, ct_tensor *y, ct_tensor **o) {
    ct_tensor *a = ct_mul_scalar(x, 1.0);
    a = ct_div_scalar(a, 1.0);
    a = ct_add_scalar(a, -0.0);
    a = ct_sub_scalar(a, 0.0);
    a = ct_neg(ct_neg(a));
    o[0] = a;
    o[1] = ct_div(a, ct_sqrt(y));
    o[2] = ct_add_scalar(x, 0.0);          /* not an identity: -0 + 0 is +0 */
}
TEST(test_simplify) {
    ct_manual_seed(12);
    ct_tensor *x = with_specials(ct_randn(CT_FLOAT32, 300), 1);
    ct_tensor *y = ct_add_scalar(ct_abs(ct_randn(CT_FLOAT32, 300)), 0.01);
    ((float *)ct_data_ptr(y))[2] = 0.0f;   /* x / sqrt(0), 0 / sqrt(0) */
    ((float *)ct_data_ptr(y))[1] = 0.0f;
    ct_tensor *ref[3], *tr[3], *got[3];
    simp_f(x, y, ref);
    ct_tensor *xy[2] = {x, y};
    CHECK(ct_trace_begin(2, xy) == CT_OK);
    simp_f(x, y, tr);
    ct_graph *g = ct_trace_end(3, tr);
    CHECK(g != NULL);
    int before = ct_graph_num_nodes(g);
    CHECK_EQ_INT(ct_jit_simplify(g), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(g), CT_OK);
    /* left: x * rsqrt(y) (two nodes) and x + 0 */
    CT_T_REPORT(ct_graph_num_nodes(g) == 3, "%d nodes before, %d after", before, ct_graph_num_nodes(g));
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::rsqrt"), 1);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::sqrt") + ct_graph_count_op(g, "aten::neg") + ct_graph_count_op(g, "aten::div.Tensor"), 0);
    CHECK_EQ_INT(ct_graph_count_op(g, "aten::add.Tensor"), 1);
    for (int pass = 0; pass < 2; pass++) {   /* as it is, and fused */
        CHECK_EQ_INT(ct_graph_run(g, 2, xy, got, 3), 3);
        CHECK(same_or_nan(got[0], x));
        CHECK(same_or_nan(got[2], ref[2]));
        const float *h = (const float *)ct_data_ptr(got[1]), *w = (const float *)ct_data_ptr(ref[1]);
        int64_t worst = 0;
        for (int i = 0; i < 300; i++) {
            if (isnan(w[i]) || isnan(h[i])) { if (isnan(w[i]) != isnan(h[i])) worst = 99; continue; }
            int64_t d = ulp_key(h[i]) - ulp_key(w[i]);
            if (d < 0) d = -d;
            if (d > worst) worst = d;
        }
        CT_T_REPORT(worst <= 3, "x * rsqrt(y): %lld ulp from x / sqrt(y) (pass %d)", (long long)worst, pass);
        CHECK_EQ_INT(ct_jit_fuse_elementwise(g), CT_OK);
    }
    ct_graph_free(g);
    /* a graph with in-place ops is left as it is */
    ct_tensor *z = ct_clone(x);
    CHECK(ct_trace_begin(1, &z) == CT_OK);
    ct_tensor *w = ct_mul_scalar(ct_relu_(z), 1.0);
    ct_graph *gi = ct_trace_end(1, &w);
    CHECK(gi != NULL);
    int ni = ct_graph_num_nodes(gi);
    CHECK_EQ_INT(ct_jit_simplify(gi), CT_OK);
    CHECK_EQ_INT(ct_graph_num_nodes(gi), ni);
    ct_graph_free(gi);
    /* the sign analysis: abs and relu of values that are at least +0 (or NaN) dropped,
       the others kept; the same values either way */
    ct_tensor *sx = with_specials(ct_mul_scalar(ct_randn(CT_FLOAT32, 300), 30.0), 2);
    ct_tensor *sref[5], *str[5], *sgot[5];
    for (int pass = 0; pass < 2; pass++) {
        if (pass) CHECK(ct_trace_begin(1, &sx) == CT_OK);
        ct_tensor **o = pass ? str : sref;
        o[0] = ct_abs(ct_mul_scalar(ct_exp(sx), 3.0));                       /* dropped */
        o[1] = ct_relu(ct_add(ct_sigmoid(sx), ct_sqrt(ct_abs(sx))));          /* relu dropped, abs(x) kept */
        o[2] = ct_abs(ct_mul_scalar(ct_exp(sx), -2.0));                      /* kept: a negative factor */
        o[3] = ct_relu(ct_sqrt(sx));                                         /* kept: sqrt(-0) is -0 */
        o[4] = ct_abs(ct_mul(sx, sx));                                       /* kept: x * x is not known to be >= +0 */
    }
    ct_graph *gs = ct_trace_end(5, str);
    CHECK(gs != NULL);
    CHECK_EQ_INT(ct_jit_simplify(gs), CT_OK);
    CHECK_EQ_INT(ct_graph_verify(gs), CT_OK);
    CHECK_EQ_INT(ct_graph_count_op(gs, "aten::abs"), 3);
    CHECK_EQ_INT(ct_graph_count_op(gs, "aten::relu"), 1);
    for (int pass = 0; pass < 2; pass++) {   /* as it is, and fused */
        CHECK_EQ_INT(ct_graph_run(gs, 1, &sx, sgot, 5), 5);
        for (int k = 0; k < 5; k++) CT_T_REPORT(same_or_nan(sgot[k], sref[k]), "sign analysis: output %d differs (pass %d)", k, pass);
        CHECK_EQ_INT(ct_jit_fuse_elementwise(gs), CT_OK);
    }
    ct_graph_free(gs);
    CHECK_ERR(ct_jit_simplify(NULL) == CT_OK, CT_ERR_NULL, "simplify: graph is NULL");
}

int main(void) {
    ct_t_init();
    int64_t live0 = ct_live_tensors();
    RUN(test_mlp_trace_run_optimize);
    RUN(test_cnn_conv_bn_folding);
    RUN(test_conv_relu_epilogue);
    RUN(test_linear_bn_folding);
    RUN(test_transformer_encoder_layer);
    RUN(test_trace_batch_norm_training);
    RUN(test_elementwise_fusion);
    RUN(test_fused_kernels);
    RUN(test_fused_segments);
    RUN(test_simplify);
    RUN(test_dce_cse_constants);
    RUN(test_save_load_roundtrip_and_corruption);
    RUN(test_builder);
    RUN(test_control_flow);
    RUN(test_export_c);
    RUN(test_autograd_through_graph);
    RUN(test_warnings_and_dynamic_batch);
    RUN(test_bad_input);
    RUN(test_threads_share_a_graph);
    RUN(test_quant_graph_mode_cnn);
    RUN(test_quant_graph_mode_mlp);
    RUN(test_quant_graph_mode_conv_flatten);
    RUN(test_quant_graph_mode_fused_conv_relu);
    RUN(test_quant_graph_mode_dynamic);
    RUN(test_quant_graph_mode_qat);
    RUN(test_quant_graph_mode_qat_convbn);
    RUN(test_quant_graph_mode_qat_linearbn);
    RUN(test_quant_graph_mode_bad_input);
    RUN(test_quant_graph_mode_residual_add);
    RUN(test_quant_graph_mode_cat);
    RUN(test_quant_graph_mode_add_cat_bad_input);
    CHECK_EQ_INT(ct_live_tensors(), live0);
    if (tdir[0] && strcmp(tdir, ".")) rmdir(tdir);
    return ct_t_summary();
}
