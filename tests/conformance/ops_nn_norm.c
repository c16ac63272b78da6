/* Conformance handlers: normalization, dropout, embeddings, recurrent layers
   (ctensor.h section nn-norm; the repo's layouts in tests/reference/cases_nn_norm.py).

   Functional ops take every tensor as an input in PyTorch's signature order,
   an optional one left as None written "name": null in args (CONFORMANCE.md):
     F.batch_norm(input, running_mean, running_var, weight, bias; training,
       momentum, eps). The running stats F.batch_norm updates in place (training
       with stats given) are compared when the case gives them, either as
       named arrays running_mean.npy / running_var.npy (the values PyTorch
       leaves in the tensors passed in, i.e. after the call) or as outputs
       out1 / out2 after out0 (the repo's layout). The inputs themselves are
       not changed (the handler updates copies).
       Repo extension: args "affine" / "running" false with all five inputs
       present: weight/bias or the running stats are passed as None.
     F.layer_norm(input, weight, bias), F.group_norm(input, weight, bias),
     F.embedding(input, weight), F.embedding_bag(input, weight, offsets,
       per_sample_weights).
   Modules (nn.BatchNorm2d, nn.LSTM, nn.GRU): named arrays under state_dict
   names are copied into the module after construction. */
#include <math.h>
#include <string.h>
#include "conf.h"

#define IN(k) (c->in[k])
#define ONE(expr) do { out[0] = (expr); return out[0] ? 1 : -1; } while (0)

static int64_t norm_shape(conf_case *c, int64_t *ns) { return conf_ints(c, "normalized_shape", ns, CT_MAX_DIMS); }
static ct_tensor *copy_of(ct_tensor *t) { return t ? ct_clone(ct_detach(t)) : NULL; }

/* the repo's older layout: five inputs always, "affine" / "running" flags */
static int batch_norm_flags(conf_case *c, ct_tensor **out) {
    int affine = conf_bool(c, "affine", 1), running = conf_bool(c, "running", 1);
    if (c->nin != 5) { ct_set_error(CT_ERR_ARG, "batch_norm case with \"affine\"/\"running\": five inputs expected"); return -1; }
    ct_tensor *rm = running ? copy_of(IN(1)) : NULL, *rv = running ? copy_of(IN(2)) : NULL;
    out[0] = ct_batch_norm(IN(0), rm, rv, affine ? IN(3) : NULL, affine ? IN(4) : NULL, conf_bool(c, "training", 0),
                           conf_double(c, "momentum", 0.1), conf_double(c, "eps", 1e-5));
    if (!out[0]) return -1;
    out[1] = running ? rm : IN(1);
    out[2] = running ? rv : IN(2);
    return 3;
}
static int h_batch_norm(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"input", "running_mean", "running_var", "weight", "bias"};
    ct_tensor *t[5];
    if (conf_has(c, "affine") || conf_has(c, "running")) return batch_norm_flags(c, out);
    if (conf_tensors(c, 5, names, 1, t)) return -1;
    ct_tensor *rm = copy_of(t[1]), *rv = copy_of(t[2]);
    out[0] = ct_batch_norm(t[0], rm, rv, t[3], t[4], conf_bool(c, "training", 0), conf_double(c, "momentum", 0.1),
                           conf_double(c, "eps", 1e-5));
    if (!out[0]) return -1;
    if (rm) conf_result(c, "running_mean", rm);
    if (rv) conf_result(c, "running_var", rv);
    if (!rm || !rv) return 1;
    out[1] = rm;
    out[2] = rv;
    return 3;
}
static int h_layer_norm(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"input", "weight", "bias"};
    ct_tensor *t[3];
    int64_t ns[CT_MAX_DIMS];
    if (conf_tensors(c, 3, names, 1, t)) return -1;
    int n = (int)norm_shape(c, ns);
    ONE(ct_layer_norm(t[0], n < 0 ? 0 : n, ns, t[1], t[2], conf_double(c, "eps", 1e-5)));
}
static int h_group_norm(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"input", "weight", "bias"};
    ct_tensor *t[3];
    if (conf_tensors(c, 3, names, 1, t)) return -1;
    ONE(ct_group_norm(t[0], conf_int(c, "num_groups", 1), t[1], t[2], conf_double(c, "eps", 1e-5)));
}
static int h_dropout(conf_case *c, ct_tensor **out) {
    ct_manual_seed((uint64_t)conf_int(c, "seed", 0));
    ONE(ct_dropout(IN(0), conf_double(c, "p", 0.5), conf_bool(c, "training", 1)));
}
/* embedding_bag options ctensor does not have (sparse only changes the gradient's layout) */
static int embedding_unsupported(conf_case *c) {
    if (conf_bool(c, "scale_grad_by_freq", 0)) return conf_skip(c, "%s: scale_grad_by_freq is not supported", c->op);
    return 0;
}
/* max_norm: the rows indices name renormalized in place (the weight after the call is
   the named result weight_renormed) */
static int renorm(conf_case *c, ct_tensor *weight, const ct_tensor *indices) {
    if (!ct_embedding_renorm_(weight, indices, conf_double(c, "max_norm", 0.0), conf_double(c, "norm_type", 2.0))) return -1;
    return conf_result(c, "weight_renormed", weight);
}
/* max_norm: the named rows of the weight renormalized in place first (as F.embedding
   does; a weight that requires grad is a leaf and PyTorch renormalizes it under
   no_grad, so the case's own weight is modified, as in PyTorch) */
static int h_embedding(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"input", "weight"};
    ct_tensor *t[2];
    if (conf_tensors(c, 2, names, 2, t)) return -1;
    if (conf_given(c, "max_norm") && renorm(c, t[1], t[0])) return -1;
    ct_embedding_options o = {conf_given(c, "padding_idx"), conf_int(c, "padding_idx", 0), 0.0, 0.0, conf_bool(c, "scale_grad_by_freq", 0)};
    ONE(ct_embedding_ex(t[0], t[1], &o));
}
static int h_embedding_bag(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"input", "weight", "offsets", "per_sample_weights"};
    ct_tensor *t[4];
    if (embedding_unsupported(c)) return CONF_SKIP;
    if (conf_given(c, "padding_idx")) return conf_skip(c, "%s: padding_idx is not supported", c->op);
    if (conf_tensors(c, 4, names, 2, t)) return -1;
    if (conf_given(c, "max_norm") && renorm(c, t[1], t[0])) return -1;
    ONE(ct_embedding_bag(t[0], t[1], t[2], conf_str(c, "mode", "mean"), t[3], conf_bool(c, "include_last_offset", 0)));
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

/* named arrays under the module's state_dict names replace its values (module cases) */
static int load_weights(conf_case *c, ct_module *m) {
    ct_state_dict sd;
    if (ct_module_state_dict(m, &sd) != CT_OK) return -1;
    int rc = 0, pg = ct_set_grad_enabled(0);
    for (int i = 0; i < sd.n && !rc; i++) {
        ct_tensor *v = conf_named(c, sd.items[i].name);
        if (v && !ct_copy_(sd.items[i].tensor, v)) rc = -1;
    }
    ct_set_grad_enabled(pg);
    ct_state_dict_free(&sd);
    return rc;
}

/* nn.BatchNorm2d. One input: one forward (training mode, as a new module, unless
   args "training" is false) -> out0. Two inputs (the repo's layout): two training
   forwards, then an eval forward of the second; outputs y1, y2, y_eval,
   running_mean, running_var, num_batches_tracked. */
static int h_bn_module(conf_case *c, ct_tensor **out) {
    ct_batch_norm_options o;
    memset(&o, 0, sizeof o);
    o.momentum = conf_is_null(c, "momentum") ? NAN : conf_double(c, "momentum", 0.1);
    if (o.momentum == 0.0) o.momentum = CT_ZERO;
    o.eps = conf_double(c, "eps", 1e-5);
    if (o.eps == 0.0) o.eps = CT_ZERO;
    o.no_affine = !conf_bool(c, "affine", 1);
    o.no_track_running_stats = !conf_bool(c, "track_running_stats", 1);
    if (c->nin < 1 || c->nin > 2) { ct_set_error(CT_ERR_ARG, "nn.BatchNorm2d case: one or two inputs expected"); return -1; }
    ct_module *m = ct_nn_batch_norm2d_ex(conf_int(c, "num_features", 1), &o);
    if (!m || module_to(m, ct_get_dtype(IN(0))) || load_weights(c, m)) { ct_module_free(m); return -1; }
    if (c->nin == 1) {
        if (!conf_bool(c, "training", 1)) ct_module_eval(m);
        out[0] = ct_forward(m, IN(0));
        ct_module_free(m);
        return out[0] ? 1 : -1;
    }
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
    if (conf_double(c, "dropout", 0.0) != 0.0 && o.num_layers > 1 && conf_bool(c, "training", 1))
        return conf_skip(c, "%s: dropout between layers in training mode (random) is not supported", c->op);
    if (conf_int(c, "proj_size", 0) != 0) return conf_skip(c, "%s: proj_size is not supported", c->op);
    ct_manual_seed((uint64_t)conf_int(c, "seed", 0));
    ct_dtype prev = ct_get_default_dtype();
    ct_set_default_dtype(CT_FLOAT32);   /* PyTorch initializes in float32, then .to(dtype) */
    ct_module *m = gru ? ct_nn_gru(conf_int(c, "input_size", 1), conf_int(c, "hidden_size", 1), &o)
                       : ct_nn_lstm(conf_int(c, "input_size", 1), conf_int(c, "hidden_size", 1), &o);
    ct_set_default_dtype(prev);
    if (!m || module_to(m, ct_get_dtype(IN(0))) || load_weights(c, m)) { ct_module_free(m); return -1; }
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
