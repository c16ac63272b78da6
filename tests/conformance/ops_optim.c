/* Conformance handlers: optim family (torch.optim, lr_scheduler, clip_grad).

   Optimizers, CONFORMANCE.md's layout: in0 is the initial parameter; in1
   stacks the gradients of steps 1..S along a new leading dim (before step s
   the parameter's .grad is in1[s-1]); out0 stacks the parameter after each
   step, [S, *param.shape]. args are param_groups[0] less "params", as PyTorch
   reports them. Keys that leave the math as it is (foreach, capturable,
   differentiable, fused) are ignored; decoupled_weight_decay picks Adam or
   AdamW's update; any other key the optimizer does not know skips the case
   with its name, unless its value is null or false (a feature left off).

   Repo extension (the fixtures of tests/reference/cases_optim.py; recognised
   by "steps" or "param_groups" in args): several parameters in0, in1, ...,
   their gradients as named arrays grad_step<s>_p<i>.npy (absent: .grad is
   None at that step), "param_groups" with per-group overrides, "steps";
   outputs out<i> stack parameter i after each step. Schedulers and clipping
   use layouts of their own, described in that file. */
#include <stdio.h>
#include <string.h>
#include "conf.h"

enum { K_SGD, K_ADAM, K_ADAMW, K_RMSPROP, K_ADAGRAD };

/* an option from a JSON object: absent -> 0 (PyTorch's default), a given 0 -> CT_ZERO */
static double jopt(const json_value *obj, const char *key) {
    json_value *v = json_get(obj, key);
    if (!v || (v->type != JSON_NUMBER && v->type != JSON_BOOL)) return 0.0;
    return v->number == 0 ? CT_ZERO : v->number;
}
static int jflag(const json_value *obj, const char *key) {
    json_value *v = json_get(obj, key);
    return v && (v->type == JSON_BOOL || v->type == JSON_NUMBER) && v->number != 0;
}
static double jbeta(const json_value *obj, int i) {
    json_value *b = json_get(obj, "betas"), *x = b ? json_at(b, i) : NULL;
    if (!x || x->type != JSON_NUMBER) return 0.0;
    return x->number == 0 ? CT_ZERO : x->number;
}

/* constructs an optimizer of `kind` over params from the options in obj (lr overridable) */
static ct_optimizer *make_optimizer(int kind, const json_value *obj, int n, ct_tensor *const *params, double lr) {
    double l = lr != 0 ? lr : jopt(obj, "lr");
    switch (kind) {
    case K_SGD: {
        ct_sgd_options o;
        memset(&o, 0, sizeof o);
        o.lr = l; o.momentum = jopt(obj, "momentum"); o.dampening = jopt(obj, "dampening");
        o.weight_decay = jopt(obj, "weight_decay"); o.nesterov = jflag(obj, "nesterov"); o.maximize = jflag(obj, "maximize");
        return ct_optim_sgd_params(n, params, &o);
    }
    case K_ADAM: case K_ADAMW: {
        ct_adam_options o;
        memset(&o, 0, sizeof o);
        o.lr = l; o.beta1 = jbeta(obj, 0); o.beta2 = jbeta(obj, 1); o.eps = jopt(obj, "eps");
        o.weight_decay = jopt(obj, "weight_decay"); o.amsgrad = jflag(obj, "amsgrad"); o.maximize = jflag(obj, "maximize");
        return kind == K_ADAM ? ct_optim_adam_params(n, params, &o) : ct_optim_adamw_params(n, params, &o);
    }
    case K_RMSPROP: {
        ct_rmsprop_options o;
        memset(&o, 0, sizeof o);
        o.lr = l; o.alpha = jopt(obj, "alpha"); o.eps = jopt(obj, "eps"); o.weight_decay = jopt(obj, "weight_decay");
        o.momentum = jopt(obj, "momentum"); o.centered = jflag(obj, "centered"); o.maximize = jflag(obj, "maximize");
        return ct_optim_rmsprop_params(n, params, &o);
    }
    default: {
        ct_adagrad_options o;
        memset(&o, 0, sizeof o);
        o.lr = l; o.lr_decay = jopt(obj, "lr_decay"); o.weight_decay = jopt(obj, "weight_decay");
        o.initial_accumulator_value = jopt(obj, "initial_accumulator_value"); o.eps = jopt(obj, "eps");
        o.maximize = jflag(obj, "maximize");
        return ct_optim_adagrad_params(n, params, &o);
    }
    }
}
static int kind_of(const char *name) {
    if (!name) return -1;
    if (!strcmp(name, "SGD")) return K_SGD;
    if (!strcmp(name, "Adam")) return K_ADAM;
    if (!strcmp(name, "AdamW")) return K_ADAMW;
    if (!strcmp(name, "RMSprop")) return K_RMSPROP;
    if (!strcmp(name, "Adagrad")) return K_ADAGRAD;
    return -1;
}
/* a group's overrides ({"params": [...], "lr": ...}) through set_option */
static int apply_overrides(ct_optimizer *opt, int g, const json_value *grp) {
    for (int k = 0; k < grp->count; k++) {
        const char *key = grp->keys[k];
        json_value *v = grp->items[k];
        if (!strcmp(key, "params")) continue;
        if (!strcmp(key, "betas")) {
            json_value *b1 = json_at(v, 0), *b2 = json_at(v, 1);
            if (!b1 || !b2) { ct_set_error(CT_ERR_ARG, "optim case: betas must be a list of two numbers"); return -1; }
            if (ct_optim_set_option(opt, g, "beta1", b1->number) || ct_optim_set_option(opt, g, "beta2", b2->number))
                return -1;
            continue;
        }
        if (ct_optim_set_option(opt, g, key, v->number)) return -1;
    }
    return 0;
}

/* a parameter to optimize (a leaf copy of the input) and its trajectory [steps, *shape] */
static ct_tensor *new_param(const ct_tensor *init, int64_t steps, ct_tensor **traj) {
    ct_tensor *p = ct_requires_grad(ct_clone(ct_detach(init)));
    *traj = NULL;
    if (!p) return NULL;
    if (p->ndim >= CT_MAX_DIMS) { ct_set_error(CT_ERR_ARG, "optim case: a %d-dim parameter leaves no dim to stack steps on", p->ndim); return NULL; }
    int64_t shape[CT_MAX_DIMS];
    shape[0] = steps;
    for (int d = 0; d < p->ndim; d++) shape[d + 1] = p->shape[d];
    *traj = ct_empty_n(p->dtype, p->ndim + 1, shape);
    return *traj ? p : NULL;
}

/* the repo's multi-parameter layout (see the top of this file) */
static int run_optimizer_named(conf_case *c, ct_tensor **out, int kind) {
    int n = c->nin, steps = (int)conf_int(c, "steps", 1), rc = -1;
    ct_tensor *params[CONF_MAX_IN], *traj[CONF_MAX_IN];
    if (n < 1 || n > CONF_MAX_OUT) { ct_set_error(CT_ERR_ARG, "optim case: %d parameters", n); return -1; }
    if (steps < 0) { ct_set_error(CT_ERR_ARG, "optim case: steps %d", steps); return -1; }
    for (int i = 0; i < n; i++)
        if (!(params[i] = new_param(c->in[i], steps, &traj[i]))) return -1;
    json_value *groups = json_get(c->args, "param_groups");
    ct_optimizer *opt = NULL;
    if (!groups) {
        opt = make_optimizer(kind, c->args, n, params, 0);
    } else {
        for (int g = 0; g < groups->count; g++) {
            json_value *grp = json_at(groups, g), *idx = json_get(grp, "params");
            ct_tensor *ps[CONF_MAX_IN];
            int m = 0;
            for (int k = 0; idx && k < idx->count && m < CONF_MAX_IN; k++) {
                double pi = json_at(idx, k)->number;
                if (!(pi >= 0 && pi < n)) { ct_set_error(CT_ERR_ARG, "optim case: param_groups names parameter %g of %d", pi, n); goto done; }
                ps[m++] = params[(int)pi];
            }
            if (g == 0) {
                if (!(opt = make_optimizer(kind, c->args, m, ps, 0))) goto done;
            } else if (ct_optim_add_param_group(opt, m, ps, NULL)) {
                goto done;
            }
            if (apply_overrides(opt, g, grp)) goto done;
        }
    }
    if (!opt) goto done;
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < n; i++) {
            char name[64];
            snprintf(name, sizeof name, "grad_step%d_p%d", s, i);
            ct_set_grad(params[i], conf_named(c, name));
        }
        if (ct_step(opt)) goto done;
        for (int i = 0; i < n; i++)
            if (!ct_copy_(ct_select(traj[i], 0, s), params[i])) goto done;
    }
    for (int i = 0; i < n; i++) out[i] = traj[i];
    rc = n;
done:
    ct_optim_free(opt);
    return rc;
}
/* param_groups[0]'s keys per optimizer (CONFORMANCE.md layout); NULL-ended */
static const char *const KEYS_SGD[] = {"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", NULL};
static const char *const KEYS_ADAM[] = {"lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "decoupled_weight_decay", NULL};
static const char *const KEYS_RMSPROP[] = {"lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize", NULL};
static const char *const KEYS_ADAGRAD[] = {"lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps", "maximize", NULL};
static const char *const KEYS_SAME_MATH[] = {"foreach", "capturable", "differentiable", "fused", NULL};
static int listed(const char *const *keys, const char *key) {
    for (; *keys; keys++)
        if (!strcmp(*keys, key)) return 1;
    return 0;
}

/* CONFORMANCE.md's layout: one parameter in0, stacked gradients in1, stacked trajectory out0 */
static int run_optimizer(conf_case *c, ct_tensor **out, int kind) {
    if (conf_has(c, "steps") || conf_has(c, "param_groups")) return run_optimizer_named(c, out, kind);
    const char *const *keys = kind == K_SGD ? KEYS_SGD : kind == K_RMSPROP ? KEYS_RMSPROP : kind == K_ADAGRAD ? KEYS_ADAGRAD : KEYS_ADAM;
    for (int k = 0; c->args && k < c->args->count; k++) {
        const char *key = c->args->keys[k];
        json_value *v = c->args->items[k];
        int off = v->type == JSON_NULL || (v->type == JSON_BOOL && v->number == 0);
        if (!listed(keys, key) && !listed(KEYS_SAME_MATH, key) && !off)
            return conf_skip(c, "%s: option \"%s\" is not supported", c->op, key);
    }
    if (conf_given(c, "decoupled_weight_decay")) kind = conf_bool(c, "decoupled_weight_decay", 0) ? K_ADAMW : K_ADAM;
    if (c->nin != 2) {
        ct_set_error(CT_ERR_ARG, "%s case: in0 (the parameter) and in1 (the gradients of the steps, stacked) expected, got %d inputs", c->op, c->nin);
        return -1;
    }
    ct_tensor *p0 = c->in[0], *g = c->in[1];
    int ok = g->ndim == p0->ndim + 1;
    for (int d = 0; ok && d < p0->ndim; d++) ok = g->shape[d + 1] == p0->shape[d];
    if (!ok) { ct_set_error(CT_ERR_SHAPE, "%s case: in1 must be [steps, *in0.shape]", c->op); return -1; }
    int64_t steps = g->shape[0];
    ct_tensor *traj, *param = new_param(p0, steps, &traj);
    if (!param) return -1;
    /* PyTorch's default learning rates, for a case that leaves lr out */
    double lr = conf_has(c, "lr") ? 0.0 : kind == K_RMSPROP || kind == K_ADAGRAD ? 1e-2 : 1e-3;
    ct_optimizer *opt = make_optimizer(kind, c->args, 1, &param, lr);
    if (!opt) return -1;
    int rc = -1;
    for (int64_t s = 0; s < steps; s++) {
        ct_set_grad(param, ct_clone(ct_select(g, 0, s)));
        if (ct_step(opt) || !ct_copy_(ct_select(traj, 0, s), param)) goto done;
    }
    out[0] = traj;
    rc = 1;
done:
    ct_optim_free(opt);
    return rc;
}
static int f_sgd(conf_case *c, ct_tensor **out) { return run_optimizer(c, out, K_SGD); }
static int f_adam(conf_case *c, ct_tensor **out) { return run_optimizer(c, out, K_ADAM); }
static int f_adamw(conf_case *c, ct_tensor **out) { return run_optimizer(c, out, K_ADAMW); }
static int f_rmsprop(conf_case *c, ct_tensor **out) { return run_optimizer(c, out, K_RMSPROP); }
static int f_adagrad(conf_case *c, ct_tensor **out) { return run_optimizer(c, out, K_ADAGRAD); }

/* ---- schedulers ---- */
enum { S_STEP, S_MULTISTEP, S_EXP, S_COSINE, S_LINEAR, S_ONECYCLE };
static int run_scheduler(conf_case *c, ct_tensor **out, int which) {
    int kind = kind_of(conf_str(c, "optimizer", "SGD")), steps = (int)conf_int(c, "steps", 1), rc = -1;
    json_value *lrs = json_get(c->args, "group_lrs"), *oargs = json_get(c->args, "optimizer_args");
    int ng = lrs ? lrs->count : 0;
    if (kind < 0 || ng < 1 || ng > CONF_MAX_IN) { ct_set_error(CT_ERR_ARG, "scheduler case: bad optimizer or group_lrs"); return -1; }
    ct_tensor *params[CONF_MAX_IN];
    for (int g = 0; g < ng; g++) params[g] = ct_requires_grad(ct_zeros(CT_FLOAT32, 1));
    ct_optimizer *opt = make_optimizer(kind, oargs, 1, params, json_at(lrs, 0)->number);
    ct_lr_scheduler *s = NULL;
    for (int g = 1; opt && g < ng; g++)
        if (ct_optim_add_param_group(opt, 1, params + g, NULL) || ct_optim_set_lr(opt, g, json_at(lrs, g)->number)) goto done;
    if (!opt) goto done;
    switch (which) {
    case S_STEP: s = ct_sched_step_lr(opt, conf_int(c, "step_size", 1), conf_double(c, "gamma", 0.1)); break;
    case S_MULTISTEP: {
        int64_t m[64];
        int nm = conf_ints(c, "milestones", m, 64);
        s = ct_sched_multistep_lr(opt, nm < 0 ? 0 : nm, m, conf_double(c, "gamma", 0.1));
        break;
    }
    case S_EXP: s = ct_sched_exponential_lr(opt, conf_double(c, "gamma", 0.1)); break;
    case S_COSINE: s = ct_sched_cosine_annealing_lr(opt, conf_int(c, "T_max", 1), conf_double(c, "eta_min", 0)); break;
    case S_LINEAR:
        s = ct_sched_linear_lr(opt, conf_double(c, "start_factor", 1.0 / 3), conf_double(c, "end_factor", 1.0),
                               conf_int(c, "total_iters", 5));
        break;
    default: {
        ct_one_cycle_options o;
        double maxlrs[CONF_MAX_IN];
        memset(&o, 0, sizeof o);
        json_value *ml = json_get(c->args, "max_lr");
        if (ml && ml->type == JSON_ARRAY) {
            for (int g = 0; g < ml->count && g < CONF_MAX_IN; g++) maxlrs[g] = json_at(ml, g)->number;
            o.max_lrs = maxlrs;
        } else {
            o.max_lr = jopt(c->args, "max_lr");
        }
        o.total_steps = conf_int(c, "total_steps", 0);
        o.epochs = conf_int(c, "epochs", 0);
        o.steps_per_epoch = conf_int(c, "steps_per_epoch", 0);
        o.pct_start = jopt(c->args, "pct_start");
        o.anneal_strategy = conf_str(c, "anneal_strategy", NULL);
        o.no_cycle_momentum = conf_has(c, "cycle_momentum") && !conf_bool(c, "cycle_momentum", 1);
        o.base_momentum = jopt(c->args, "base_momentum");
        o.max_momentum = jopt(c->args, "max_momentum");
        o.div_factor = jopt(c->args, "div_factor");
        o.final_div_factor = jopt(c->args, "final_div_factor");
        o.three_phase = conf_bool(c, "three_phase", 0);
        s = ct_sched_one_cycle_lr(opt, &o);
        break;
    }
    }
    if (!s) goto done;
    ct_tensor *lr_t = ct_zeros(CT_FLOAT64, steps + 1, ng), *mom_t = ct_zeros(CT_FLOAT64, steps + 1, ng);
    const char *mom_key = kind == K_ADAM || kind == K_ADAMW ? "beta1" : kind == K_ADAGRAD ? NULL : "momentum";
    for (int t = 0; t <= steps; t++) {
        if (t > 0 && (ct_step(opt) || ct_sched_step(s))) goto done;
        for (int g = 0; g < ng; g++) {
            ((double *)ct_data_ptr(lr_t))[t * ng + g] = ct_sched_get_last_lr(s, g);
            ((double *)ct_data_ptr(mom_t))[t * ng + g] = mom_key ? ct_optim_get_option(opt, g, mom_key) : 0.0;
        }
    }
    out[0] = lr_t;
    out[1] = mom_t;
    rc = 2;
done:
    ct_sched_free(s);
    ct_optim_free(opt);
    return rc;
}
static int f_steplr(conf_case *c, ct_tensor **out) { return run_scheduler(c, out, S_STEP); }
static int f_multisteplr(conf_case *c, ct_tensor **out) { return run_scheduler(c, out, S_MULTISTEP); }
static int f_exponentiallr(conf_case *c, ct_tensor **out) { return run_scheduler(c, out, S_EXP); }
static int f_cosinelr(conf_case *c, ct_tensor **out) { return run_scheduler(c, out, S_COSINE); }
static int f_linearlr(conf_case *c, ct_tensor **out) { return run_scheduler(c, out, S_LINEAR); }
static int f_onecyclelr(conf_case *c, ct_tensor **out) { return run_scheduler(c, out, S_ONECYCLE); }

/* ---- clipping: the inputs are the grads of zero parameters ---- */
static int set_grads(conf_case *c, ct_tensor **ps) {
    if (c->nin < 1 || c->nin > CONF_MAX_OUT - 1) { ct_set_error(CT_ERR_ARG, "clip case: %d grads", c->nin); return -1; }
    for (int i = 0; i < c->nin; i++) {
        ps[i] = ct_requires_grad(ct_zeros_like(c->in[i]));
        ct_set_grad(ps[i], ct_clone(c->in[i]));
    }
    return 0;
}
static int f_clip_norm(conf_case *c, ct_tensor **out) {
    ct_tensor *ps[CONF_MAX_IN];
    double total;
    if (set_grads(c, ps)) return -1;
    if (ct_clip_grad_norm_ex(c->nin, ps, conf_double(c, "max_norm", 1.0), conf_double(c, "norm_type", 2.0),
                             conf_bool(c, "error_if_nonfinite", 0), &total))
        return -1;
    ct_dtype dt = c->in[0]->dtype;
    for (int i = 1; i < c->nin; i++) dt = ct_promote_types(dt, c->in[i]->dtype);
    out[0] = ct_scalar_tensor(total, dt);
    for (int i = 0; i < c->nin; i++) out[1 + i] = ct_grad(ps[i]);
    return 1 + c->nin;
}
static int f_clip_value(conf_case *c, ct_tensor **out) {
    ct_tensor *ps[CONF_MAX_IN];
    if (set_grads(c, ps)) return -1;
    if (ct_clip_grad_value_(c->nin, ps, conf_double(c, "clip_value", 1.0))) return -1;
    for (int i = 0; i < c->nin; i++) out[i] = ct_grad(ps[i]);
    return c->nin;
}

const conf_op conf_ops_optim[] = {
    {"torch.optim.SGD", f_sgd, 0},
    {"torch.optim.Adam", f_adam, 0},
    {"torch.optim.AdamW", f_adamw, 0},
    {"torch.optim.RMSprop", f_rmsprop, 0},
    {"torch.optim.Adagrad", f_adagrad, 0},
    {"torch.optim.lr_scheduler.StepLR", f_steplr, 0},
    {"torch.optim.lr_scheduler.MultiStepLR", f_multisteplr, 0},
    {"torch.optim.lr_scheduler.ExponentialLR", f_exponentiallr, 0},
    {"torch.optim.lr_scheduler.CosineAnnealingLR", f_cosinelr, 0},
    {"torch.optim.lr_scheduler.LinearLR", f_linearlr, 0},
    {"torch.optim.lr_scheduler.OneCycleLR", f_onecyclelr, 0},
    {"torch.nn.utils.clip_grad_norm_", f_clip_norm, 0},
    {"torch.nn.utils.clip_grad_value_", f_clip_value, 0},
    {0, 0, 0}};
