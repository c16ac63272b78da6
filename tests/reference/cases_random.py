"""Random ops against PyTorch 1.13's CPU generator: same seed, same numbers.
Each case calls torch.manual_seed(args["manual_seed"]) (or, with args
["generator_seed"], passes generator=torch.Generator().manual_seed(S)) and then
the op; outputs must match exactly (integers) or to rounding (floats).
Inputs of in-place ops (Tensor.random_, ...) give shape, dtype and layout only."""
import torch

FAM = "random"
EXACT = dict(rtol=1e-12, atol=0.0)


def seeded(seed, f, gen_seed=None):
    def fn(*ins):
        if gen_seed is not None:
            g = torch.Generator()
            g.manual_seed(gen_seed)
            return f(g, *ins)
        torch.manual_seed(seed)
        return f(None, *ins)
    return fn


def case(w, name, op, f, inputs, args, seed=0, gen_seed=None, permute=None, expect_error=None, tol=None):
    a = dict(args)
    if gen_seed is not None:
        a["generator_seed"] = gen_seed
    else:
        a["manual_seed"] = seed
    t = tol or EXACT
    w.case(FAM, name, op, seeded(seed, f, gen_seed), inputs, args=a, grad=False, permute=permute,
           expect_error=expect_error, rtol=t["rtol"], atol=t["atol"])


def generate(w):
    dts = {"i64": torch.int64, "i32": torch.int32, "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8,
           "f32": torch.float32, "f64": torch.float64, "f16": torch.float16, "bf16": torch.bfloat16, "bool": torch.bool}
    # torch.randint
    for i, (lo, hi, size) in enumerate([(-5, 10, [3, 4]), (0, 2 ** 40, [5]), (-2 ** 62, 2 ** 62, [6]), (0, 1, [4]),
                                        (3, 7, [0, 3]), (-(2 ** 53), 2 ** 53, [5]), (0, 2 ** 32, [3])]):
        case(w, "randint_%d" % i, "torch.randint", lambda g, lo=lo, hi=hi, size=size: torch.randint(lo, hi, size, generator=g),
             [], {"low": lo, "high": hi, "size": size}, seed=100 + i)
    for k, dt in dts.items():
        lo, hi = (0, 2) if dt == torch.bool else (-3, 50) if dt != torch.uint8 else (0, 200)
        case(w, "randint_" + k, "torch.randint", lambda g, lo=lo, hi=hi, dt=dt: torch.randint(lo, hi, (2, 9), dtype=dt, generator=g),
             [], {"low": lo, "high": hi, "size": [2, 9], "dtype": dt}, seed=7)
    case(w, "randint_f16_wide", "torch.randint", lambda g: torch.randint(-5000, 60000, (6,), dtype=torch.float16, generator=g),
         [], {"low": -5000, "high": 60000, "size": [6], "dtype": torch.float16}, seed=9)
    case(w, "err_randint_f16_bounds", "torch.randint", lambda g: torch.randint(0, 70000, (6,), dtype=torch.float16, generator=g),
         [], {"low": 0, "high": 70000, "size": [6], "dtype": torch.float16}, expect_error=True)
    case(w, "randint_f32_wide", "torch.randint", lambda g: torch.randint(-2 ** 35, 2 ** 35, (6,), dtype=torch.float32, generator=g),
         [], {"low": -2 ** 35, "high": 2 ** 35, "size": [6], "dtype": torch.float32}, seed=8)
    case(w, "randint_generator", "torch.randint", lambda g: torch.randint(0, 1000, (20,), generator=g),
         [], {"low": 0, "high": 1000, "size": [20]}, gen_seed=1234)
    case(w, "err_randint_empty_range", "torch.randint", lambda g: torch.randint(5, 3, (2,), generator=g),
         [], {"low": 5, "high": 3, "size": [2]}, expect_error=True)
    # Tensor.random_ (full range and [from, to)); non-contiguous inputs fill in memory order
    for k, dt in dts.items():
        x = torch.zeros(3, 5, dtype=dt)
        case(w, "random_" + k, "Tensor.random_", lambda g, x: x.random_(generator=g), [x], {}, seed=11)
        lo, hi = (0, 2) if dt == torch.bool else (-10, 100) if dt != torch.uint8 else (3, 250)
        case(w, "random_from_to_" + k, "Tensor.random_", lambda g, x, lo=lo, hi=hi: x.random_(lo, hi, generator=g), [x],
             {"from": lo, "to": hi}, seed=12)
    case(w, "random_i64_permuted", "Tensor.random_", lambda g, x: x.random_(0, 1000, generator=g),
         [torch.zeros(4, 3, 2, dtype=torch.int64)], {"from": 0, "to": 1000}, seed=13, permute=[[2, 0, 1]])
    case(w, "random_f64_generator", "Tensor.random_", lambda g, x: x.random_(generator=g),
         [torch.zeros(7, dtype=torch.float64)], {}, gen_seed=99)
    case(w, "err_random_i8_bounds", "Tensor.random_", lambda g, x: x.random_(0, 300, generator=g),
         [torch.zeros(3, dtype=torch.int8)], {"from": 0, "to": 300}, expect_error=True)
    case(w, "err_random_u8_from", "Tensor.random_", lambda g, x: x.random_(-1, 3, generator=g),
         [torch.zeros(3, dtype=torch.uint8)], {"from": -1, "to": 3}, expect_error=True)
    case(w, "err_random_from_to", "Tensor.random_", lambda g, x: x.random_(5, 5, generator=g),
         [torch.zeros(3)], {"from": 5, "to": 5}, expect_error=True)
    # torch.bernoulli(p), torch.bernoulli(x, p), Tensor.bernoulli_
    torch.manual_seed(1)
    for k, dt in [("f32", torch.float32), ("f64", torch.float64)]:
        p = torch.rand(4, 6, dtype=torch.float64).to(dt)
        case(w, "bernoulli_" + k, "torch.bernoulli", lambda g, p: torch.bernoulli(p, generator=g), [p], {}, seed=21)
    p = torch.rand(3, 5)
    case(w, "bernoulli_permuted", "torch.bernoulli", lambda g, p: torch.bernoulli(p, generator=g), [p], {}, seed=22, permute=[[1, 0]])
    case(w, "bernoulli_generator", "torch.bernoulli", lambda g, p: torch.bernoulli(p, generator=g), [p], {}, gen_seed=5)
    for k in ["f32", "i64", "bool", "f64"]:
        x = torch.zeros(20, dtype=dts[k])
        case(w, "bernoulli_scalar_" + k, "torch.bernoulli", lambda g, x: torch.bernoulli(x, 0.3, generator=g), [x], {"p": 0.3}, seed=23)
    x = torch.zeros(4, 6, dtype=torch.int32)
    case(w, "bernoulli__tensor_broadcast", "Tensor.bernoulli_", lambda g, x, p: x.bernoulli_(p, generator=g),
         [x, torch.rand(6, dtype=torch.float64)], {}, seed=24)
    case(w, "bernoulli__scalar", "Tensor.bernoulli_", lambda g, x: x.bernoulli_(0.7, generator=g), [torch.zeros(3, 4)], {"p": 0.7}, seed=25)
    case(w, "err_bernoulli_p", "Tensor.bernoulli_", lambda g, x: x.bernoulli_(1.5, generator=g), [torch.zeros(3)], {"p": 1.5}, expect_error=True)
    case(w, "err_bernoulli_int_p", "torch.bernoulli", lambda g, p: torch.bernoulli(p, generator=g),
         [torch.tensor([1, 0])], {}, expect_error=True)
    # Tensor.exponential_
    for k, dt in [("f32", torch.float32), ("f64", torch.float64), ("f16", torch.float16)]:
        case(w, "exponential_" + k, "Tensor.exponential_", lambda g, x: x.exponential_(2.5, generator=g),
             [torch.zeros(5, 7, dtype=dt)], {"lambd": 2.5}, seed=31, tol=dict(rtol=1e-6 if dt == torch.float32 else 1e-12 if dt == torch.float64 else 1e-3, atol=0.0))
    case(w, "exponential_permuted", "Tensor.exponential_", lambda g, x: x.exponential_(generator=g),
         [torch.zeros(3, 4, dtype=torch.float64)], {}, seed=32, permute=[[1, 0]])
    case(w, "err_exponential_lambd", "Tensor.exponential_", lambda g, x: x.exponential_(-1.0, generator=g),
         [torch.zeros(3)], {"lambd": -1.0}, expect_error=True)
    case(w, "err_exponential_int", "Tensor.exponential_", lambda g, x: x.exponential_(generator=g),
         [torch.zeros(3, dtype=torch.int32)], {}, expect_error=True)
    # torch.randperm
    for n in [0, 1, 2, 10, 100]:
        case(w, "randperm_%d" % n, "torch.randperm", lambda g, n=n: torch.randperm(n, generator=g), [], {"n": n}, seed=40 + n)
    for k in ["i32", "i16", "u8", "f32", "f64"]:
        case(w, "randperm_" + k, "torch.randperm", lambda g, k=k: torch.randperm(50, dtype=dts[k], generator=g), [],
             {"n": 50, "dtype": dts[k]}, seed=41)
    case(w, "randperm_generator", "torch.randperm", lambda g: torch.randperm(30, generator=g), [], {"n": 30}, gen_seed=77)
    case(w, "err_randperm_neg", "torch.randperm", lambda g: torch.randperm(-1, generator=g), [], {"n": -1}, expect_error=True)
    case(w, "err_randperm_bool", "torch.randperm", lambda g: torch.randperm(3, dtype=torch.bool, generator=g), [],
         {"n": 3, "dtype": torch.bool}, expect_error=True)
    case(w, "err_randperm_i8", "torch.randperm", lambda g: torch.randperm(300, dtype=torch.int8, generator=g), [],
         {"n": 300, "dtype": torch.int8}, expect_error=True)
    # torch.multinomial
    torch.manual_seed(2)
    p1 = torch.rand(8) + 0.05
    p2 = torch.rand(3, 10, dtype=torch.float64) + 0.01
    case(w, "multinomial_noreplace", "torch.multinomial", lambda g, p: torch.multinomial(p, 5, generator=g), [p1],
         {"num_samples": 5}, seed=51)
    case(w, "multinomial_all", "torch.multinomial", lambda g, p: torch.multinomial(p, 8, generator=g), [p1],
         {"num_samples": 8}, seed=52)
    case(w, "multinomial_one", "torch.multinomial", lambda g, p: torch.multinomial(p, 1, generator=g), [p1],
         {"num_samples": 1}, seed=53)
    case(w, "multinomial_one_replace", "torch.multinomial", lambda g, p: torch.multinomial(p, 1, True, generator=g), [p1],
         {"num_samples": 1, "replacement": True}, seed=53)
    case(w, "multinomial_replace", "torch.multinomial", lambda g, p: torch.multinomial(p, 30, True, generator=g), [p1],
         {"num_samples": 30, "replacement": True}, seed=54)
    case(w, "multinomial_2d_f64", "torch.multinomial", lambda g, p: torch.multinomial(p, 4, generator=g), [p2],
         {"num_samples": 4}, seed=55)
    case(w, "multinomial_2d_replace", "torch.multinomial", lambda g, p: torch.multinomial(p, 12, True, generator=g), [p2],
         {"num_samples": 12, "replacement": True}, seed=56)
    case(w, "multinomial_2d_permuted", "torch.multinomial", lambda g, p: torch.multinomial(p, 3, generator=g),
         [p2.float()], {"num_samples": 3}, seed=57, permute=[[1, 0]])
    case(w, "multinomial_zeros", "torch.multinomial", lambda g, p: torch.multinomial(p, 2, generator=g),
         [torch.tensor([0.0, 2.0, 0.0, 1.0])], {"num_samples": 2}, seed=58)
    case(w, "multinomial_generator", "torch.multinomial", lambda g, p: torch.multinomial(p, 20, True, generator=g), [p1],
         {"num_samples": 20, "replacement": True}, gen_seed=3)
    for nm, p, ns, rep in [("err_multinomial_int", torch.tensor([1, 2]), 1, False),
                           ("err_multinomial_3d", torch.ones(2, 2, 2), 1, False),
                           ("err_multinomial_zero_samples", torch.ones(3), 0, False),
                           ("err_multinomial_too_many", torch.ones(3), 4, False),
                           ("err_multinomial_negative", torch.tensor([1.0, -1.0, 2.0]), 2, False),
                           ("err_multinomial_negative_replace", torch.tensor([1.0, -1.0, 2.0]), 2, True),
                           ("err_multinomial_zero_sum", torch.zeros(3), 2, True),
                           ("err_multinomial_inf_replace", torch.tensor([1.0, float("inf"), 0.0]), 2, True)]:
        case(w, nm, "torch.multinomial", lambda g, p, ns=ns, rep=rep: torch.multinomial(p, ns, rep, generator=g), [p],
             {"num_samples": ns, "replacement": rep}, expect_error=True)
    # torch.normal with tensor mean / std
    torch.manual_seed(3)
    for k, dt in [("f32", torch.float32), ("f64", torch.float64)]:
        m, s = torch.randn(3, 1, dtype=dt), torch.rand(6, dtype=dt) + 0.5
        tol = dict(rtol=1e-6, atol=1e-7) if dt == torch.float32 else dict(rtol=1e-12, atol=1e-14)
        case(w, "normal_tt_" + k, "torch.normal", lambda g, m, s: torch.normal(m, s, generator=g), [m, s], {}, seed=61, tol=tol)
        case(w, "normal_ts_" + k, "torch.normal", lambda g, m: torch.normal(m, 2.0, generator=g), [torch.randn(20, dtype=dt)],
             {"std": 2.0}, seed=62, tol=tol)
        case(w, "normal_st_" + k, "torch.normal", lambda g, s: torch.normal(0.5, s, generator=g), [s], {"mean": 0.5}, seed=63, tol=tol)
    case(w, "err_normal_std", "torch.normal", lambda g, m, s: torch.normal(m, s, generator=g),
         [torch.zeros(2), torch.tensor([1.0, -1.0])], {}, expect_error=True)
    # rand_like / randn_like / randint_like
    for k, dt in [("f32", torch.float32), ("f64", torch.float64)]:
        for n in [5, 40]:
            x = torch.zeros(n, dtype=dt)
            tol = dict(rtol=1e-6, atol=1e-7) if dt == torch.float32 else dict(rtol=1e-12, atol=1e-14)
            case(w, "rand_like_%s_%d" % (k, n), "torch.rand_like", lambda g, x: torch.rand_like(x), [x], {}, seed=71, tol=tol)
            case(w, "randn_like_%s_%d" % (k, n), "torch.randn_like", lambda g, x: torch.randn_like(x), [x], {}, seed=72, tol=tol)
    # a transposed input: the result takes its stride order and is filled in memory order
    tol = dict(rtol=1e-12, atol=1e-14)
    case(w, "rand_like_permuted", "torch.rand_like", lambda g, x: torch.rand_like(x), [torch.zeros(3, 5, dtype=torch.float64)], {},
         seed=75, permute=[[1, 0]], tol=tol)
    case(w, "randn_like_permuted", "torch.randn_like", lambda g, x: torch.randn_like(x), [torch.zeros(4, 6, dtype=torch.float64)], {},
         seed=76, permute=[[1, 0]], tol=tol)
    case(w, "randint_like_permuted", "torch.randint_like", lambda g, x: torch.randint_like(x, 0, 50), [torch.zeros(2, 3, 4, dtype=torch.int64)],
         {"low": 0, "high": 50}, seed=77, permute=[[2, 0, 1]])
    case(w, "bernoulli_scalar_permuted", "torch.bernoulli", lambda g, x: torch.bernoulli(x, 0.4, generator=g), [torch.zeros(3, 7)],
         {"p": 0.4}, seed=78, permute=[[1, 0]])
    case(w, "randint_like_i32", "torch.randint_like", lambda g, x: torch.randint_like(x, -4, 9), [torch.zeros(3, 4, dtype=torch.int32)],
         {"low": -4, "high": 9}, seed=73)
    case(w, "randint_like_f64", "torch.randint_like", lambda g, x: torch.randint_like(x, 100), [torch.zeros(6, dtype=torch.float64)],
         {"high": 100}, seed=74)
