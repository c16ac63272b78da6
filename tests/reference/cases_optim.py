"""torch.optim: optimizers step by step, learning-rate schedulers, gradient clipping.

Case layouts (the runner's handlers in tests/conformance/ops_optim.c read them):

Optimizers (op torch.optim.SGD / Adam / AdamW / RMSprop / Adagrad)
  inputs   in<i>.npy             the initial value of parameter i
  named    grad_step<s>_p<i>.npy the gradient of parameter i at step s; absent
                                 means p.grad is None at that step (skipped)
  args     the constructor's keyword arguments (lr, momentum, betas, ...),
           "param_groups": [{"params": [indices], <overrides>}, ...] (absent:
           one group of all parameters), "steps": number of optimizer.step() calls
  outputs  out<i>.npy            parameter i after each step, stacked: [steps, *shape]

Schedulers (op torch.optim.lr_scheduler.<Name>)
  no inputs; args: "optimizer" (class name), "optimizer_args" (its keyword
  arguments, lr excluded), "group_lrs" (one parameter group per entry, each with
  one parameter of shape [1]), the scheduler's keyword arguments, "steps"
  outputs  out0.npy  get_last_lr() after construction and after each
                     optimizer.step(); scheduler.step(): float64 [steps + 1, groups]
           out1.npy  (OneCycleLR with cycle_momentum) the groups' momentum, or
                     betas[0], at the same points
  expect_error cases fail at construction or at a step.

Clipping (op torch.nn.utils.clip_grad_norm_ / clip_grad_value_)
  inputs   in<i>.npy  the gradient of parameter i (the parameters are zeros)
  args     max_norm, norm_type, error_if_nonfinite / clip_value
  outputs  clip_grad_norm_: out0 the total norm (0-d), out1.. the clipped grads;
           clip_grad_value_: out0.. the clipped grads
"""
import zlib

import torch
import torch.optim as optim

FAM = "optim"
STEPS = 6
SHAPES = [(3, 4), (5,), (2, 3)]
TOLS = {torch.float32: (1e-5, 1e-6), torch.float64: (1e-10, 1e-12)}
DT = {torch.float32: "f32", torch.float64: "f64"}


def _grads(shapes, dtype, steps, none=(), scale=1.0):
    g = []
    for s in range(steps):
        row = []
        for i, sh in enumerate(shapes):
            if (s, i) in none:
                row.append(None)
            else:
                row.append((torch.randn(sh, dtype=torch.float64) * scale).to(dtype))
        g.append(row)
    return g


def optimizer_case(w, name, cls, kwargs, dtype, groups=None, steps=STEPS, none=(), shapes=SHAPES, scale=1.0,
                   expect_error=False):
    torch.manual_seed(zlib.crc32(name.encode()))
    params0 = [torch.randn(sh, dtype=torch.float64).to(dtype) for sh in shapes]
    grads = _grads(shapes, dtype, steps, none, scale)
    named = {}
    for s in range(steps):
        for i in range(len(shapes)):
            if grads[s][i] is not None:
                named["grad_step%d_p%d" % (s, i)] = grads[s][i]

    def run(*ps):
        params = [p.detach().clone().requires_grad_(True) for p in ps]
        if groups is None:
            pg = params
        else:
            pg = [dict({k: v for k, v in g.items() if k != "params"}, params=[params[i] for i in g["params"]])
                  for g in groups]
        opt = cls(pg, **kwargs)
        traj = [[] for _ in params]
        for s in range(steps):
            for i, p in enumerate(params):
                p.grad = None if grads[s][i] is None else grads[s][i].clone()
            opt.step()
            for i, p in enumerate(params):
                traj[i].append(p.detach().clone())
        return tuple(torch.stack(t) for t in traj)

    args = dict(kwargs)
    if "betas" in args:
        args["betas"] = list(args["betas"])
    args["steps"] = steps
    if groups is not None:
        args["param_groups"] = groups
    r, a = TOLS[dtype]
    w.case(FAM, name, "torch.optim." + cls.__name__, run, params0, args=args, grad=False, named=named, rtol=r, atol=a,
           expect_error=True if expect_error else None)


def optimizer_cases(w):
    sgd = [
        ("plain", {"lr": 0.1}),
        ("momentum", {"lr": 0.05, "momentum": 0.9}),
        ("momentum_dampening", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3}),
        ("nesterov", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
        ("weight_decay", {"lr": 0.1, "weight_decay": 0.05}),
        ("maximize", {"lr": 0.1, "maximize": True}),
        ("all", {"lr": 0.03, "momentum": 0.7, "dampening": 0.1, "weight_decay": 0.02, "maximize": True}),
        ("nesterov_wd_maximize", {"lr": 0.03, "momentum": 0.6, "nesterov": True, "weight_decay": 0.1, "maximize": True}),
    ]
    adam = [
        ("default", {"lr": 1e-2}),
        ("weight_decay", {"lr": 1e-2, "weight_decay": 0.1}),
        ("amsgrad", {"lr": 2e-2, "amsgrad": True}),
        ("maximize", {"lr": 1e-2, "maximize": True}),
        ("amsgrad_wd_maximize", {"lr": 1e-2, "amsgrad": True, "weight_decay": 0.05, "maximize": True}),
        ("betas_eps", {"lr": 3e-2, "betas": (0.5, 0.9), "eps": 1e-3}),
        ("beta1_zero", {"lr": 1e-2, "betas": (0.0, 0.99)}),
    ]
    adamw = [
        ("default", {"lr": 1e-2}),
        ("weight_decay", {"lr": 1e-2, "weight_decay": 0.3}),
        ("no_weight_decay", {"lr": 1e-2, "weight_decay": 0.0}),
        ("amsgrad", {"lr": 2e-2, "amsgrad": True}),
        ("maximize_amsgrad", {"lr": 1e-2, "maximize": True, "amsgrad": True, "betas": (0.8, 0.95)}),
    ]
    rmsprop = [
        ("default", {"lr": 1e-2}),
        ("alpha_eps", {"lr": 1e-2, "alpha": 0.9, "eps": 1e-4}),
        ("weight_decay", {"lr": 1e-2, "weight_decay": 0.1}),
        ("momentum", {"lr": 1e-2, "momentum": 0.9}),
        ("centered", {"lr": 1e-2, "centered": True}),
        ("centered_momentum", {"lr": 1e-2, "centered": True, "momentum": 0.5}),
        ("maximize", {"lr": 1e-2, "maximize": True}),
        ("all", {"lr": 5e-3, "alpha": 0.95, "eps": 1e-6, "weight_decay": 0.05, "momentum": 0.3, "centered": True,
                 "maximize": True}),
    ]
    adagrad = [
        ("default", {"lr": 1e-1}),
        ("lr_decay", {"lr": 1e-1, "lr_decay": 0.2}),
        ("weight_decay", {"lr": 1e-1, "weight_decay": 0.1}),
        ("initial_accumulator_value", {"lr": 1e-1, "initial_accumulator_value": 0.5}),
        ("eps", {"lr": 1e-1, "eps": 1e-3}),
        ("maximize", {"lr": 1e-1, "maximize": True}),
        ("all", {"lr": 5e-2, "lr_decay": 0.1, "weight_decay": 0.05, "initial_accumulator_value": 0.2, "eps": 1e-5,
                 "maximize": True}),
    ]
    for cls, table in ((optim.SGD, sgd), (optim.Adam, adam), (optim.AdamW, adamw), (optim.RMSprop, rmsprop),
                       (optim.Adagrad, adagrad)):
        for tag, kw in table:
            for dtype in (torch.float32, torch.float64):
                optimizer_case(w, "%s_%s_%s" % (cls.__name__.lower(), tag, DT[dtype]), cls, kw, dtype)
        # parameter groups with their own settings, and parameters without a grad at some steps
        base = dict(table[0][1])
        g2 = {"params": [2], "lr": base["lr"] * 0.3, "weight_decay": 0.05}
        if cls is optim.SGD:
            base["momentum"] = 0.9
            g2["momentum"] = 0.5
        if cls in (optim.Adam, optim.AdamW):
            g2["betas"] = (0.7, 0.9)
            g2["amsgrad"] = True
        if cls is optim.RMSprop:
            g2["centered"] = True
            g2["momentum"] = 0.2
        if cls is optim.Adagrad:
            g2["lr_decay"] = 0.05
        for dtype in (torch.float32, torch.float64):
            optimizer_case(w, "%s_groups_%s" % (cls.__name__.lower(), DT[dtype]), cls, base, dtype,
                           groups=[{"params": [0, 1]}, g2], steps=8, none={(0, 1), (3, 0), (4, 0), (5, 2)})
        # a longer run at float32 (20 steps: accumulated rounding stays within tolerance)
        optimizer_case(w, "%s_long_f32" % cls.__name__.lower(), cls, table[-1][1], torch.float32, steps=20)
    # PyTorch's constructor checks
    errors = [
        ("sgd_bad_lr", optim.SGD, {"lr": -0.1}),
        ("sgd_bad_momentum", optim.SGD, {"lr": 0.1, "momentum": -0.5}),
        ("sgd_bad_weight_decay", optim.SGD, {"lr": 0.1, "weight_decay": -1.0}),
        ("sgd_nesterov_no_momentum", optim.SGD, {"lr": 0.1, "nesterov": True}),
        ("sgd_nesterov_dampening", optim.SGD, {"lr": 0.1, "momentum": 0.9, "dampening": 0.1, "nesterov": True}),
        ("adam_bad_lr", optim.Adam, {"lr": -1e-3}),
        ("adam_bad_beta0", optim.Adam, {"lr": 1e-3, "betas": (1.0, 0.999)}),
        ("adam_bad_beta1", optim.Adam, {"lr": 1e-3, "betas": (0.9, -0.1)}),
        ("adam_bad_eps", optim.Adam, {"lr": 1e-3, "eps": -1e-8}),
        ("adam_bad_weight_decay", optim.Adam, {"lr": 1e-3, "weight_decay": -0.01}),
        ("adamw_bad_beta0", optim.AdamW, {"lr": 1e-3, "betas": (1.5, 0.999)}),
        ("rmsprop_bad_alpha", optim.RMSprop, {"lr": 1e-2, "alpha": -0.5}),
        ("rmsprop_bad_momentum", optim.RMSprop, {"lr": 1e-2, "momentum": -0.5}),
        ("rmsprop_bad_eps", optim.RMSprop, {"lr": 1e-2, "eps": -1.0}),
        ("adagrad_bad_lr_decay", optim.Adagrad, {"lr": 1e-2, "lr_decay": -0.5}),
        ("adagrad_bad_initial_accumulator_value", optim.Adagrad, {"lr": 1e-2, "initial_accumulator_value": -1.0}),
        ("adagrad_bad_eps", optim.Adagrad, {"lr": 1e-2, "eps": -1e-10}),
    ]
    for name, cls, kw in errors:
        optimizer_case(w, name, cls, kw, torch.float32, steps=1, expect_error=True)


def scheduler_case(w, name, sched, kwargs, steps, opt_name="SGD", opt_args=None, group_lrs=(0.1, 0.02),
                   expect_error=False, momentum_out=False):
    opt_args = dict(opt_args or {})

    def run():
        params = [torch.zeros(1, requires_grad=True) for _ in group_lrs]
        cls = getattr(optim, opt_name)
        opt = cls([{"params": [p], "lr": lr} for p, lr in zip(params, group_lrs)], **opt_args)
        s = getattr(optim.lr_scheduler, sched)(opt, **kwargs)
        lrs = [list(s.get_last_lr())]

        def mom():
            return [g["betas"][0] if "betas" in g else g.get("momentum", 0.0) for g in opt.param_groups]
        moms = [mom()]
        for _ in range(steps):
            opt.step()
            s.step()
            lrs.append(list(s.get_last_lr()))
            moms.append(mom())
        out = [torch.tensor(lrs, dtype=torch.float64)]
        if momentum_out:
            out.append(torch.tensor(moms, dtype=torch.float64))
        return tuple(out)

    args = dict(kwargs)
    args.update({"optimizer": opt_name, "optimizer_args": opt_args, "group_lrs": list(group_lrs), "steps": steps})
    w.case(FAM, name, "torch.optim.lr_scheduler." + sched, run, [], args=args, grad=False, rtol=1e-12, atol=1e-15,
           expect_error=True if expect_error else None)


def scheduler_cases(w):
    scheduler_case(w, "steplr", "StepLR", {"step_size": 3, "gamma": 0.5}, 12)
    scheduler_case(w, "steplr_adam", "StepLR", {"step_size": 1, "gamma": 0.9}, 7, opt_name="Adam")
    scheduler_case(w, "multisteplr", "MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.3}, 12)
    scheduler_case(w, "exponentiallr", "ExponentialLR", {"gamma": 0.9}, 10)
    scheduler_case(w, "cosineannealinglr", "CosineAnnealingLR", {"T_max": 10, "eta_min": 0.001}, 35)
    scheduler_case(w, "cosineannealinglr_tmax7", "CosineAnnealingLR", {"T_max": 7}, 20, group_lrs=(0.5,))
    scheduler_case(w, "linearlr_warmup", "LinearLR", {"start_factor": 0.25, "end_factor": 1.0, "total_iters": 4}, 8)
    scheduler_case(w, "linearlr_decay", "LinearLR", {"start_factor": 1.0, "end_factor": 0.1, "total_iters": 6}, 9)
    sgdm = {"momentum": 0.9}
    scheduler_case(w, "onecyclelr_cos", "OneCycleLR", {"max_lr": 0.5, "total_steps": 20}, 19, opt_args=sgdm,
                   momentum_out=True)
    scheduler_case(w, "onecyclelr_linear", "OneCycleLR", {"max_lr": 0.5, "total_steps": 20, "anneal_strategy": "linear"},
                   19, opt_args=sgdm, momentum_out=True)
    scheduler_case(w, "onecyclelr_three_phase", "OneCycleLR",
                   {"max_lr": [0.4, 0.2], "total_steps": 25, "three_phase": True, "pct_start": 0.25}, 24, opt_args=sgdm,
                   momentum_out=True)
    scheduler_case(w, "onecyclelr_factors", "OneCycleLR",
                   {"max_lr": 1.0, "epochs": 3, "steps_per_epoch": 5, "div_factor": 10.0, "final_div_factor": 100.0,
                    "pct_start": 0.4, "base_momentum": 0.8, "max_momentum": 0.9}, 14, opt_args=sgdm, momentum_out=True)
    scheduler_case(w, "onecyclelr_adam_beta1", "OneCycleLR", {"max_lr": 0.01, "total_steps": 16}, 15, opt_name="Adam",
                   momentum_out=True)
    scheduler_case(w, "onecyclelr_rmsprop", "OneCycleLR", {"max_lr": 0.01, "total_steps": 12, "anneal_strategy": "linear"},
                   11, opt_name="RMSprop", momentum_out=True)
    scheduler_case(w, "onecyclelr_no_cycle_momentum", "OneCycleLR",
                   {"max_lr": 0.3, "total_steps": 10, "cycle_momentum": False}, 9, opt_name="Adagrad")
    # errors
    scheduler_case(w, "onecyclelr_too_many_steps", "OneCycleLR", {"max_lr": 0.5, "total_steps": 10}, 11, opt_args=sgdm,
                   expect_error=True)
    scheduler_case(w, "onecyclelr_bad_pct_start", "OneCycleLR", {"max_lr": 0.5, "total_steps": 10, "pct_start": 1.5}, 1,
                   opt_args=sgdm, expect_error=True)
    scheduler_case(w, "onecyclelr_bad_anneal", "OneCycleLR", {"max_lr": 0.5, "total_steps": 10, "anneal_strategy": "exp"},
                   1, opt_args=sgdm, expect_error=True)
    scheduler_case(w, "onecyclelr_no_momentum", "OneCycleLR", {"max_lr": 0.5, "total_steps": 10}, 1, opt_name="Adagrad",
                   expect_error=True)
    scheduler_case(w, "onecyclelr_bad_total_steps", "OneCycleLR", {"max_lr": 0.5, "total_steps": -3}, 1,
                   opt_args=sgdm, expect_error=True)
    scheduler_case(w, "onecyclelr_no_steps", "OneCycleLR", {"max_lr": 0.5}, 1, opt_args=sgdm, expect_error=True)
    scheduler_case(w, "linearlr_bad_start", "LinearLR", {"start_factor": 1.5}, 1, expect_error=True)
    scheduler_case(w, "linearlr_bad_end", "LinearLR", {"start_factor": 0.5, "end_factor": -0.5}, 1, expect_error=True)


def clip_cases(w):
    from torch.nn.utils import clip_grad_norm_, clip_grad_value_

    def grads(dtype, scale=1.0, seed=0):
        torch.manual_seed(seed)
        return [(torch.randn(sh, dtype=torch.float64) * scale).to(dtype) for sh in SHAPES]

    def norm_fn(max_norm, norm_type, error_if_nonfinite=False):
        def run(*gs):
            ps = [torch.zeros_like(g, requires_grad=True) for g in gs]
            for p, g in zip(ps, gs):
                p.grad = g.clone()
            total = clip_grad_norm_(ps, max_norm, norm_type, error_if_nonfinite=error_if_nonfinite)
            return (total,) + tuple(p.grad for p in ps)
        return run

    for dtype in (torch.float32, torch.float64):
        r, a = TOLS[dtype]
        for tag, max_norm, norm_type in (("l2", 1.0, 2.0), ("l2_noclip", 100.0, 2.0), ("l1", 2.0, 1.0),
                                         ("l3", 0.5, 3.0), ("inf", 0.7, float("inf")), ("l0", 5.0, 0.0),
                                         ("ninf", 0.1, float("-inf")), ("l2_int_max", 1, 2)):
            name = "clip_grad_norm_%s_%s" % (tag, DT[dtype])
            w.case(FAM, name, "torch.nn.utils.clip_grad_norm_", norm_fn(max_norm, norm_type), grads(dtype, 2.0),
                   args={"max_norm": max_norm, "norm_type": norm_type}, grad=False, rtol=r * 10, atol=a)
        g = grads(dtype)
        g[1][2] = float("nan")
        w.case(FAM, "clip_grad_norm_nonfinite_%s" % DT[dtype], "torch.nn.utils.clip_grad_norm_", norm_fn(1.0, 2.0), g,
               args={"max_norm": 1.0, "norm_type": 2.0}, grad=False, rtol=r, atol=a)
        g = grads(dtype)
        g[0][0, 1] = float("inf")
        w.case(FAM, "clip_grad_norm_error_if_nonfinite_%s" % DT[dtype], "torch.nn.utils.clip_grad_norm_",
               norm_fn(1.0, 2.0, True), g, args={"max_norm": 1.0, "norm_type": 2.0, "error_if_nonfinite": True},
               grad=False, expect_error=True)

        def value_fn(clip_value):
            def run(*gs):
                ps = [torch.zeros_like(g, requires_grad=True) for g in gs]
                for p, g in zip(ps, gs):
                    p.grad = g.clone()
                clip_grad_value_(ps, clip_value)
                return tuple(p.grad for p in ps)
            return run
        for cv in (0.5, 2.0):
            w.case(FAM, "clip_grad_value_%g_%s" % (cv, DT[dtype]), "torch.nn.utils.clip_grad_value_", value_fn(cv),
                   grads(dtype, 1.5, seed=1), args={"clip_value": cv}, grad=False, rtol=0, atol=0)


def generate(w):
    optimizer_cases(w)
    scheduler_cases(w)
    clip_cases(w)
