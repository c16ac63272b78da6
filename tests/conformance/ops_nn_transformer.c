/* Conformance handlers: attention and transformers (ctensor_nn.h section
   transformer-api; the repo's layouts in tests/reference/cases_nn_transformer.py).

   Module cases: the constructor's arguments and the forward's keywords are in
   args under PyTorch's names; tensor arguments are inputs in the forward's
   signature order, one left as None written "name": null (CONFORMANCE.md); the
   weights are named arrays under state_dict names, copied into the module after
   it is built (float32, as PyTorch builds it) and moved to the input's dtype.
   Every named weight must have a place in the module (a name ctensor does not
   know fails the case rather than being left out).
     nn.MultiheadAttention(query, key, value, key_padding_mask, attn_mask):
       outputs attn_output, then attn_weights when need_weights (default true).
     nn.TransformerEncoderLayer(src, src_mask, src_key_padding_mask)
     nn.TransformerEncoder(src, mask, src_key_padding_mask): args the layer's,
       num_layers, "norm" (a final LayerNorm(d_model)), enable_nested_tensor,
       mask_check.
     nn.TransformerDecoderLayer / nn.TransformerDecoder(tgt, memory, tgt_mask,
       memory_mask, tgt_key_padding_mask, memory_key_padding_mask)
     nn.Transformer(src, tgt, src_mask, tgt_mask, memory_mask,
       src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask)
     nn.Transformer.generate_square_subsequent_mask: args sz.
   Repo extensions: "eval" (module.eval() first), "no_grad" (the forward under
   torch.no_grad()), "self_attention" (MultiheadAttention: in0 alone is query,
   key and value), "weight_grads": [names] (outputs: out0, then the gradients
   of sum(out0 * g_out), g_out a named array, for those parameters in order).
   Dropout other than 0 in training mode is random: such a case is skipped. */
#include <math.h>
#include <string.h>
#include "conf.h"

/* every named array the case lists under "weights" (g_out aside) replaces the
   module's tensor of that state_dict name; a name the module lacks, or a shape
   that differs, is an error */
static int load_weights(conf_case *c, ct_module *m) {
    json_value *ws = json_get(c->json, "weights");
    if (!ws || ws->type != JSON_ARRAY) return 0;
    int rc = 0, pg = ct_set_grad_enabled(0);
    for (int i = 0; i < ws->count && !rc; i++) {
        json_value *nm = ws->items[i];
        if (!nm || nm->type != JSON_STRING || !strcmp(nm->string, "g_out")) continue;
        ct_tensor *dst = ct_module_get(m, nm->string), *v = conf_named(c, nm->string);
        if (!dst) {
            ct_set_error(CT_ERR_ARG, "%s: the case's weight '%s' is not in the module's state_dict", c->op, nm->string);
            rc = -1;
        } else if (!v) {
            ct_set_error(CT_ERR_ARG, "%s: cannot read %s.npy", c->op, nm->string);
            rc = -1;
        } else if (ct_numel(dst) != ct_numel(v) || ct_ndim(dst) != ct_ndim(v)) {
            ct_set_error(CT_ERR_SHAPE, "%s: weight '%s' has %lld elements in the case, %lld in the module", c->op,
                         nm->string, (long long)ct_numel(v), (long long)ct_numel(dst));
            rc = -1;
        } else if (!ct_copy_(dst, v)) {
            rc = -1;
        }
    }
    ct_set_grad_enabled(pg);
    return rc;
}

/* loads the weights, then eval mode when asked: m is freed on failure */
static ct_module *prepare(conf_case *c, ct_module *m) {
    if (!m) return NULL;
    if (load_weights(c, m)) { ct_module_free(m); return NULL; }
    if (conf_bool(c, "eval", 0)) ct_module_eval(m);
    return m;
}

/* Modules are built in the first input's dtype (the default dtype is set to it
   around the constructor): PyTorch's module.to(dtype) before the weights load. */
static ct_dtype build_dtype(conf_case *c) {
    ct_dtype prev = ct_get_default_dtype();
    if (c->nin > 0 && ct_dtype_is_floating(ct_get_dtype(c->in[0]))) ct_set_default_dtype(ct_get_dtype(c->in[0]));
    return prev;
}

/* out[0..n) hold the forward's outputs; with "weight_grads" they become out0 and the
   parameters' gradients. Frees m. Returns the output count or -1. */
static int finish(conf_case *c, ct_module *m, ct_tensor **out, int n) {
    if (!out[0]) { ct_module_free(m); return -1; }
    json_value *wg = json_get(c->args, "weight_grads");
    if (wg && wg->type == JSON_ARRAY) {
        ct_tensor *params[CONF_MAX_OUT], *g = conf_named(c, "g_out");
        int np = wg->count;
        if (np > CONF_MAX_OUT - 1 || !g) {
            ct_set_error(CT_ERR_ARG, "%s: weight_grads needs g_out.npy and at most %d names", c->op, CONF_MAX_OUT - 1);
            ct_module_free(m);
            return -1;
        }
        for (int i = 0; i < np; i++) {
            json_value *nm = wg->items[i];
            params[i] = nm && nm->type == JSON_STRING ? ct_module_get(m, nm->string) : NULL;
            if (!params[i]) {
                ct_set_error(CT_ERR_ARG, "%s: weight_grads names a parameter the module lacks (%s)", c->op,
                             nm && nm->type == JSON_STRING ? nm->string : "?");
                ct_module_free(m);
                return -1;
            }
        }
        ct_grad_options go;
        memset(&go, 0, sizeof go);
        go.allow_unused = 1;
        go.materialize_grads = 1;
        ct_tensor *loss = ct_sum(ct_mul(out[0], g));
        if (!loss || ct_autograd_grad(1, &loss, NULL, np, params, out + 1, &go) != CT_OK) {
            ct_module_free(m);
            return -1;
        }
        n = 1 + np;
    }
    ct_module_free(m);
    for (int k = 0; k < n; k++)
        if (!out[k]) return -1;
    return n;
}

/* training-mode dropout is random: the runner cannot compare it */
static int random_dropout(conf_case *c) {
    return conf_double(c, "dropout", 0.0) != 0.0 && !conf_bool(c, "eval", 0);
}

static int h_mha(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"query", "key", "value", "key_padding_mask", "attn_mask"};
    static const char *const self_names[] = {"query", "key_padding_mask", "attn_mask"};
    ct_tensor *t[5];
    if (random_dropout(c)) return conf_skip(c, "%s: dropout in training mode (random) is not compared", c->op);
    if (conf_bool(c, "self_attention", 0)) {
        ct_tensor *s[3];
        if (conf_tensors(c, 3, self_names, 1, s)) return -1;
        t[0] = t[1] = t[2] = s[0];
        t[3] = s[1];
        t[4] = s[2];
    } else if (conf_tensors(c, 5, names, 3, t)) {
        return -1;
    }
    ct_mha_options o;
    memset(&o, 0, sizeof o);
    o.dropout = conf_double(c, "dropout", 0.0);
    o.no_bias = !conf_bool(c, "bias", 1);
    o.add_bias_kv = conf_bool(c, "add_bias_kv", 0);
    o.add_zero_attn = conf_bool(c, "add_zero_attn", 0);
    o.kdim = conf_int(c, "kdim", 0);
    o.vdim = conf_int(c, "vdim", 0);
    o.batch_first = conf_bool(c, "batch_first", 0);
    ct_mha_args a;
    memset(&a, 0, sizeof a);
    a.key_padding_mask = t[3];
    a.attn_mask = t[4];
    a.is_causal = conf_bool(c, "is_causal", 0);
    a.per_head_weights = !conf_bool(c, "average_attn_weights", 1);
    int need_weights = conf_bool(c, "need_weights", 1);
    ct_dtype prev = build_dtype(c);
    ct_module *m = ct_nn_multihead_attention(conf_int(c, "embed_dim", 0), conf_int(c, "num_heads", 0), &o);
    ct_set_default_dtype(prev);
    if (!(m = prepare(c, m))) return -1;
    int pg = conf_bool(c, "no_grad", 0) ? ct_set_grad_enabled(0) : ct_is_grad_enabled();
    out[0] = ct_mha_forward(m, t[0], t[1], t[2], &a, need_weights ? &out[1] : NULL);
    ct_set_grad_enabled(pg);
    return finish(c, m, out, need_weights ? 2 : 1);
}

static void layer_options(conf_case *c, ct_transformer_layer_options *o) {
    memset(o, 0, sizeof *o);
    o->dim_feedforward = conf_int(c, "dim_feedforward", 2048);
    double p = conf_double(c, "dropout", 0.1);
    o->dropout = p == 0.0 ? CT_ZERO : p;
    o->activation = conf_str(c, "activation", "relu");
    o->layer_norm_eps = conf_double(c, "layer_norm_eps", 1e-5);
    o->batch_first = conf_bool(c, "batch_first", 0);
    o->norm_first = conf_bool(c, "norm_first", 0);
}
static int unsupported_layer(conf_case *c) {
    if (conf_double(c, "dropout", 0.1) != 0.0 && !conf_bool(c, "eval", 0))
        return conf_skip(c, "%s: dropout in training mode (random) is not compared", c->op);
    return 0;
}
/* a final LayerNorm(d_model) when args "norm" is true (NULL otherwise; *bad set on failure) */
static ct_module *final_norm(conf_case *c, int *bad) {
    *bad = 0;
    if (!conf_bool(c, "norm", 0)) return NULL;
    int64_t d = conf_int(c, "d_model", 0);
    ct_module *n = ct_nn_layer_norm(1, &d);
    if (!n) *bad = 1;
    return n;
}

/* runs fwd under the case's grad mode */
#define UNDER_GRAD_MODE(c, expr)                                                                     \
    do {                                                                                             \
        int pg_ = conf_bool(c, "no_grad", 0) ? ct_set_grad_enabled(0) : ct_is_grad_enabled();        \
        expr;                                                                                        \
        ct_set_grad_enabled(pg_);                                                                    \
    } while (0)

static int h_encoder_layer(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"src", "src_mask", "src_key_padding_mask"};
    ct_tensor *t[3];
    ct_transformer_layer_options o;
    if (unsupported_layer(c)) return CONF_SKIP;
    if (conf_tensors(c, 3, names, 1, t)) return -1;
    layer_options(c, &o);
    ct_dtype prev = build_dtype(c);
    ct_module *m = ct_nn_transformer_encoder_layer(conf_int(c, "d_model", 0), conf_int(c, "nhead", 0), &o);
    ct_set_default_dtype(prev);
    if (!(m = prepare(c, m))) return -1;
    UNDER_GRAD_MODE(c, out[0] = ct_transformer_encoder_forward(m, t[0], t[1], t[2]));
    return finish(c, m, out, 1);
}

static int h_encoder(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"src", "mask", "src_key_padding_mask"};
    ct_tensor *t[3];
    ct_transformer_layer_options o;
    ct_transformer_encoder_options eo;
    int bad;
    if (unsupported_layer(c)) return CONF_SKIP;
    if (conf_tensors(c, 3, names, 1, t)) return -1;
    layer_options(c, &o);
    memset(&eo, 0, sizeof eo);
    eo.no_nested_tensor = !conf_bool(c, "enable_nested_tensor", 1);
    eo.no_mask_check = !conf_bool(c, "mask_check", 1);
    ct_dtype prev = build_dtype(c);
    ct_module *layer = ct_nn_transformer_encoder_layer(conf_int(c, "d_model", 0), conf_int(c, "nhead", 0), &o);
    ct_module *norm = layer ? final_norm(c, &bad) : NULL, *m = NULL;
    if (layer && !bad) m = ct_nn_transformer_encoder_ex(layer, (int)conf_int(c, "num_layers", 1), norm, &eo);
    else ct_module_free(layer);
    ct_set_default_dtype(prev);
    if (!(m = prepare(c, m))) return -1;
    UNDER_GRAD_MODE(c, out[0] = ct_transformer_encoder_forward(m, t[0], t[1], t[2]));
    return finish(c, m, out, 1);
}

static int decoder_common(conf_case *c, ct_tensor **out, int stack) {
    static const char *const names[] = {"tgt", "memory", "tgt_mask", "memory_mask", "tgt_key_padding_mask", "memory_key_padding_mask"};
    ct_tensor *t[6];
    ct_transformer_layer_options o;
    int bad;
    if (unsupported_layer(c)) return CONF_SKIP;
    if (conf_tensors(c, 6, names, 2, t)) return -1;
    layer_options(c, &o);
    ct_dtype prev = build_dtype(c);
    ct_module *m = ct_nn_transformer_decoder_layer(conf_int(c, "d_model", 0), conf_int(c, "nhead", 0), &o);
    if (m && stack) {
        ct_module *norm = final_norm(c, &bad);
        if (bad) { ct_module_free(m); m = NULL; }
        else m = ct_nn_transformer_decoder(m, (int)conf_int(c, "num_layers", 1), norm);
    }
    ct_set_default_dtype(prev);
    if (!(m = prepare(c, m))) return -1;
    ct_transformer_decoder_args a;
    a.tgt_mask = t[2];
    a.memory_mask = t[3];
    a.tgt_key_padding_mask = t[4];
    a.memory_key_padding_mask = t[5];
    UNDER_GRAD_MODE(c, out[0] = ct_transformer_decoder_forward(m, t[0], t[1], &a));
    return finish(c, m, out, 1);
}
static int h_decoder_layer(conf_case *c, ct_tensor **out) { return decoder_common(c, out, 0); }
static int h_decoder(conf_case *c, ct_tensor **out) { return decoder_common(c, out, 1); }

static int h_transformer(conf_case *c, ct_tensor **out) {
    static const char *const names[] = {"src", "tgt", "src_mask", "tgt_mask", "memory_mask", "src_key_padding_mask",
                                        "tgt_key_padding_mask", "memory_key_padding_mask"};
    ct_tensor *t[8];
    ct_transformer_options o;
    if (unsupported_layer(c)) return CONF_SKIP;
    if (conf_given(c, "custom_encoder") || conf_given(c, "custom_decoder"))
        return conf_skip(c, "%s: custom_encoder / custom_decoder are not supported", c->op);
    if (conf_tensors(c, 8, names, 2, t)) return -1;
    memset(&o, 0, sizeof o);
    layer_options(c, &o.layer);
    int64_t ne = conf_int(c, "num_encoder_layers", 6), nd = conf_int(c, "num_decoder_layers", 6);
    o.num_encoder_layers = ne == 0 ? CT_TRANSFORMER_NONE : ne;
    o.num_decoder_layers = nd == 0 ? CT_TRANSFORMER_NONE : nd;
    ct_dtype prev = build_dtype(c);
    ct_module *m = ct_nn_transformer(conf_int(c, "d_model", 512), conf_int(c, "nhead", 8), &o);
    ct_set_default_dtype(prev);
    if (!(m = prepare(c, m))) return -1;
    ct_transformer_args a;
    a.src_mask = t[2];
    a.tgt_mask = t[3];
    a.memory_mask = t[4];
    a.src_key_padding_mask = t[5];
    a.tgt_key_padding_mask = t[6];
    a.memory_key_padding_mask = t[7];
    UNDER_GRAD_MODE(c, out[0] = ct_transformer_forward(m, t[0], t[1], &a));
    return finish(c, m, out, 1);
}

static int h_square_subsequent_mask(conf_case *c, ct_tensor **out) {
    out[0] = ct_nn_transformer_square_subsequent_mask(conf_int(c, "sz", 0));
    return out[0] ? 1 : -1;
}

const conf_op conf_ops_nn_transformer[] = {
    {"nn.MultiheadAttention", h_mha, NULL},
    {"nn.TransformerEncoderLayer", h_encoder_layer, NULL},
    {"nn.TransformerEncoder", h_encoder, NULL},
    {"nn.TransformerDecoderLayer", h_decoder_layer, NULL},
    {"nn.TransformerDecoder", h_decoder, NULL},
    {"nn.Transformer", h_transformer, NULL},
    {"nn.Transformer.generate_square_subsequent_mask", h_square_subsequent_mask, NULL},
    {0, 0, 0}};
