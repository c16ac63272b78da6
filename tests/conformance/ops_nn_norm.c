/* Conformance handlers: normalization, dropout, embeddings, recurrent layers
   (ctensor.h section nn-norm; layouts in tests/reference/cases_nn_norm.py). */
#include <math.h>
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

static int64_t norm_shape(conf_case *c, int64_t *ns) { return conf_ints(c, "normalized_shape", ns, CT_MAX_DIMS); }

static int h_batch_norm(conf_case *c, ct_tensor **out) {
    int affine = conf_bool(c, "affine", 1), running = conf_bool(c, "running", 1);
    ct_tensor *rm = running ? ct_clone(IN(1)) : NULL, *rv = running ? ct_clone(IN(2)) : NULL;
    out[0] = ct_batch_norm(IN(0), rm, rv, affine ? IN(3) : NULL, affine ? IN(4) : NULL, conf_bool(c, "training", 0),
                           conf_double(c, "momentum", 0.1), conf_double(c, "eps", 1e-5));
    if (!out[0]) return -1;
    out[1] = running ? rm : IN(1);
    out[2] = running ? rv : IN(2);
    return 3;
}
static int h_layer_norm(conf_case *c, ct_tensor **out) {
    int64_t ns[CT_MAX_DIMS];
    int n = (int)norm_shape(c, ns);
    ONE(ct_layer_norm(IN(0), n, ns, c->nin > 1 ? IN(1) : NULL, c->nin > 2 ? IN(2) : NULL, conf_double(c, "eps", 1e-5)));
}
static int h_group_norm(conf_case *c, ct_tensor **out) {
    ONE(ct_group_norm(IN(0), conf_int(c, "num_groups", 1), c->nin > 1 ? IN(1) : NULL, c->nin > 2 ? IN(2) : NULL,
                      conf_double(c, "eps", 1e-5)));
}
static int h_dropout(conf_case *c, ct_tensor **out) {
    ct_manual_seed((uint64_t)conf_int(c, "seed", 0));
    ONE(ct_dropout(IN(0), conf_double(c, "p", 0.5), conf_bool(c, "training", 1)));
}
static int h_embedding(conf_case *c, ct_tensor **out) {
    int64_t pad = conf_has(c, "padding_idx") && !conf_is_null(c, "padding_idx") ? conf_int(c, "padding_idx", 0) : CT_NO_PADDING_IDX;
    ONE(ct_embedding(IN(0), IN(1), pad));
}
static int h_embedding_bag(conf_case *c, ct_tensor **out) {
    int ho = conf_bool(c, "has_offsets", 0), hp = conf_bool(c, "has_psw", 0);
    ONE(ct_embedding_bag(IN(0), IN(1), ho ? IN(2) : NULL, conf_str(c, "mode", "mean"), hp ? IN(2 + ho) : NULL,
                         conf_bool(c, "include_last_offset", 0)));
}

/* Makes a module's floating parameters and buffers dtype dt (PyTorch's module.to(dtype)). */
static int module_to(ct_module *m, ct_dtype dt) {
    for (int i = 0; i < m->nparams; i++) {
        ct_tensor *p = m->params[i].tensor;
        if (!p || ct_get_dtype(p) == dt) continue;
        ct_tensor *q = ct_retain(ct_requires_grad(ct_detach(ct_to(p, dt))));
        if (!q) return -1;
        ct_release(p);
        m->params[i].tensor = q;
    }
    for (int i = 0; i < m->nbuffers; i++) {
        ct_tensor *p = m->buffers[i].tensor;
        if (!p || ct_get_dtype(p) == dt || !ct_dtype_is_floating(ct_get_dtype(p))) continue;
        ct_tensor *q = ct_retain(ct_to(p, dt));
        if (!q) return -1;
        ct_release(p);
        m->buffers[i].tensor = q;
    }
    return 0;
}

static int h_bn_module(conf_case *c, ct_tensor **out) {
    ct_batch_norm_options o;
    memset(&o, 0, sizeof o);
    o.momentum = conf_is_null(c, "momentum") ? NAN : conf_double(c, "momentum", 0.1);
    if (o.momentum == 0.0) o.momentum = CT_ZERO;
    o.no_affine = !conf_bool(c, "affine", 1);
    ct_module *m = ct_nn_batch_norm2d_ex(conf_int(c, "num_features", 1), &o);
    if (!m || module_to(m, ct_get_dtype(IN(0)))) { ct_module_free(m); return -1; }
    out[0] = ct_forward(m, IN(0));
    out[1] = ct_forward(m, IN(1));
    ct_module_eval(m);
    out[2] = ct_forward(m, IN(1));
    out[3] = ct_clone(ct_module_get(m, "running_mean"));
    out[4] = ct_clone(ct_module_get(m, "running_var"));
    out[5] = ct_clone(ct_module_get(m, "num_batches_tracked"));
    ct_module_free(m);
    for (int k = 0; k < 6; k++)
        if (!out[k]) return -1;
    return 6;
}

static int h_rnn(conf_case *c, ct_tensor **out, int gru) {
    ct_rnn_options o;
    memset(&o, 0, sizeof o);
    o.num_layers = conf_int(c, "num_layers", 1);
    o.no_bias = !conf_bool(c, "bias", 1);
    o.batch_first = conf_bool(c, "batch_first", 0);
    o.bidirectional = conf_bool(c, "bidirectional", 0);
    ct_manual_seed((uint64_t)conf_int(c, "seed", 0));
    ct_dtype prev = ct_get_default_dtype();
    ct_set_default_dtype(CT_FLOAT32);   /* PyTorch initializes in float32, then .to(dtype) */
    ct_module *m = gru ? ct_nn_gru(conf_int(c, "input_size", 1), conf_int(c, "hidden_size", 1), &o)
                       : ct_nn_lstm(conf_int(c, "input_size", 1), conf_int(c, "hidden_size", 1), &o);
    ct_set_default_dtype(prev);
    if (!m || module_to(m, ct_get_dtype(IN(0)))) { ct_module_free(m); return -1; }
    int n;
    if (gru) {
        out[0] = ct_gru_forward(m, IN(0), c->nin > 1 ? IN(1) : NULL, &out[1]);
        n = 2;
    } else {
        out[0] = ct_lstm_forward(m, IN(0), c->nin > 1 ? IN(1) : NULL, c->nin > 2 ? IN(2) : NULL, &out[1], &out[2]);
        n = 3;
    }
    if (out[0] && conf_bool(c, "weight_grads", 0)) {
        /* output, then the gradients of sum(output * g_out) for every parameter, in order */
        n = 1;
        ct_tensor *params[32], *g = conf_named(c, "g_out");
        int np = ct_module_parameters(m, params, 32);
        ct_tensor *loss = ct_sum(ct_mul(out[0], g));
        if (np > CONF_MAX_OUT - n || !loss || ct_autograd_grad(1, &loss, NULL, np, params, out + n, NULL) != CT_OK) {
            ct_module_free(m);
            return -1;
        }
        n += np;
    }
    ct_module_free(m);
    return out[0] ? n : -1;
}
static int h_lstm(conf_case *c, ct_tensor **out) { return h_rnn(c, out, 0); }
static int h_gru(conf_case *c, ct_tensor **out) { return h_rnn(c, out, 1); }

const conf_op conf_ops_nn_norm[] = {
    {"torch.nn.functional.batch_norm", h_batch_norm, NULL},
    {"torch.nn.functional.layer_norm", h_layer_norm, NULL},
    {"torch.nn.functional.group_norm", h_group_norm, NULL},
    {"torch.nn.functional.dropout", h_dropout, NULL},
    {"torch.nn.functional.embedding", h_embedding, NULL},
    {"torch.nn.functional.embedding_bag", h_embedding_bag, NULL},
    {"nn.BatchNorm2d", h_bn_module, NULL},
    {"nn.LSTM", h_lstm, NULL},
    {"nn.GRU", h_gru, NULL},
    {0, 0, 0}};
