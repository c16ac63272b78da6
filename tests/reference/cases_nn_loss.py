"""Losses and distances (torch.nn.functional): cross_entropy (class indices and
probabilities, weight, ignore_index, label_smoothing, reductions, 1-D / 2-D /
N-D inputs), nll_loss, mse_loss, l1_loss, smooth_l1_loss, huber_loss,
binary_cross_entropy, binary_cross_entropy_with_logits, kl_div,
cosine_similarity, pairwise_distance. Values, gradients (input, and float
targets) and errors. Class weights and pos_weight are named arrays
(weight.npy, pos_weight.npy); they take no gradient, as in PyTorch."""
import warnings

import torch
import torch.nn.functional as F

FAM = "nn_loss"
warnings.filterwarnings("ignore")


def rnd(*shape, dtype=torch.float64, scale=1.0):
    return (torch.randn(shape, dtype=torch.float64) * scale).to(dtype)


def uni(*shape, lo=0.05, hi=0.95, dtype=torch.float64):
    return (torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo).to(dtype)


def cls(*shape, C, ignore=None, at=()):
    t = torch.randint(0, C, shape, dtype=torch.int64)
    for i in at:
        t.view(-1)[i] = ignore
    return t


def C(w, name, opname, inputs, args=None, named=None, **kw):
    """opname: the F function's name; named arrays are passed as keyword tensors."""
    args = dict(args or {})
    fn = getattr(F, opname)
    extra = dict(named or {})

    def call(*xs):
        return fn(*xs, **args, **extra)
    w.case(FAM, name, "torch.nn.functional." + opname, call, inputs, args=args, named=named, **kw)


def probs(*shape, dtype=torch.float64):
    return torch.softmax(rnd(*shape), dim=1).to(dtype)


def cross_entropy_cases(w):
    torch.manual_seed(10)
    ce = "cross_entropy"
    C(w, "ce_2d_f32", ce, [rnd(6, 5, dtype=torch.float32), cls(6, C=5)])
    C(w, "ce_2d_f64_mean", ce, [rnd(6, 5), cls(6, C=5)])
    C(w, "ce_2d_f64_sum", ce, [rnd(6, 5), cls(6, C=5)], {"reduction": "sum"})
    C(w, "ce_2d_f64_none", ce, [rnd(6, 5), cls(6, C=5)], {"reduction": "none"})
    C(w, "ce_2d_f32_none", ce, [rnd(4, 9, dtype=torch.float32), cls(4, C=9)], {"reduction": "none"})
    C(w, "ce_2d_ignore_default", ce, [rnd(6, 5), cls(6, C=5, ignore=-100, at=(1, 4))])
    C(w, "ce_2d_ignore_1_sum", ce, [rnd(6, 5), torch.tensor([1, 0, 1, 3, 4, 1])], {"ignore_index": 1, "reduction": "sum"})
    C(w, "ce_2d_ignore_0_none", ce, [rnd(5, 4), torch.tensor([0, 2, 0, 3, 1])], {"ignore_index": 0, "reduction": "none"})
    C(w, "ce_2d_all_ignored_mean", ce, [rnd(3, 4), torch.tensor([-100, -100, -100])], grad=False)
    C(w, "ce_2d_noncontig", ce, [rnd(5, 7), cls(5, C=7)], permute=[[1, 0], None])
    C(w, "ce_2d_large_logits", ce, [rnd(4, 6, scale=800.0), cls(4, C=6)])
    C(w, "ce_2d_large_f32", ce, [rnd(3, 40, dtype=torch.float32, scale=300.0), cls(3, C=40)], {"reduction": "none"})
    C(w, "ce_2d_wide_f32", ce, [rnd(8, 100, dtype=torch.float32), cls(8, C=100)], atol=1e-5)
    C(w, "ce_2d_empty_batch_sum", ce, [rnd(0, 4), torch.zeros(0, dtype=torch.int64)], {"reduction": "sum"}, grad=False)
    C(w, "ce_1d", ce, [rnd(5), torch.tensor(3)])
    C(w, "ce_1d_none", ce, [rnd(5), torch.tensor(1)], {"reduction": "none"})
    C(w, "ce_3d", ce, [rnd(2, 4, 3), cls(2, 3, C=4)])
    C(w, "ce_4d_none", ce, [rnd(2, 3, 2, 2), cls(2, 2, 2, C=3)], {"reduction": "none"})
    C(w, "ce_4d_weight_ignore", ce, [rnd(2, 3, 2, 2), cls(2, 2, 2, C=3, ignore=-100, at=(0, 5))], named={"weight": uni(3)})
    C(w, "ce_2d_weight_mean", ce, [rnd(6, 4), cls(6, C=4)], named={"weight": uni(4, lo=0.2, hi=2.0)})
    C(w, "ce_2d_weight_sum", ce, [rnd(6, 4), cls(6, C=4)], {"reduction": "sum"}, named={"weight": uni(4, lo=0.2, hi=2.0)})
    C(w, "ce_2d_weight_none_ignore", ce, [rnd(6, 4), torch.tensor([0, 2, 2, 1, 3, 2])], {"reduction": "none", "ignore_index": 2},
      named={"weight": uni(4, lo=0.2, hi=2.0)})
    C(w, "ce_2d_weight_f32", ce, [rnd(5, 3, dtype=torch.float32), cls(5, C=3)], named={"weight": uni(3, dtype=torch.float32)})
    # label smoothing with class indices
    C(w, "ce_ls_mean", ce, [rnd(6, 5), cls(6, C=5)], {"label_smoothing": 0.1})
    C(w, "ce_ls_sum_ignore", ce, [rnd(6, 5), cls(6, C=5, ignore=-100, at=(2,))], {"label_smoothing": 0.25, "reduction": "sum"})
    C(w, "ce_ls_none_ignore", ce, [rnd(6, 5), cls(6, C=5, ignore=-100, at=(0, 3))], {"label_smoothing": 0.3, "reduction": "none"})
    C(w, "ce_ls_weight_mean_ignore", ce, [rnd(6, 5), cls(6, C=5, ignore=-100, at=(4,))], {"label_smoothing": 0.2},
      named={"weight": uni(5, lo=0.3, hi=2.0)})
    C(w, "ce_ls_weight_none", ce, [rnd(3, 4, 2), cls(3, 2, C=4)], {"label_smoothing": 0.15, "reduction": "none"},
      named={"weight": uni(4, lo=0.3, hi=2.0)})
    C(w, "ce_ls_1d", ce, [rnd(4), torch.tensor(2)], {"label_smoothing": 0.4})
    C(w, "ce_ls_f32", ce, [rnd(4, 6, dtype=torch.float32), cls(4, C=6)], {"label_smoothing": 0.1})
    # class probabilities
    C(w, "ce_prob_mean", ce, [rnd(4, 5), probs(4, 5)])
    C(w, "ce_prob_sum", ce, [rnd(4, 5), probs(4, 5)], {"reduction": "sum"})
    C(w, "ce_prob_none_4d", ce, [rnd(2, 3, 2, 2), probs(2, 3, 2, 2)], {"reduction": "none"})
    C(w, "ce_prob_weight_ls", ce, [rnd(4, 5), probs(4, 5)], {"label_smoothing": 0.2}, named={"weight": uni(5, lo=0.3, hi=2.0)})
    C(w, "ce_prob_1d", ce, [rnd(5), torch.softmax(rnd(5), 0)])
    C(w, "ce_prob_f32", ce, [rnd(3, 4, dtype=torch.float32), probs(3, 4, dtype=torch.float32)])
    # errors
    E = dict(expect_error=True, grad=False)
    C(w, "ce_err_batch", ce, [rnd(3, 4), cls(2, C=4)], **E)
    C(w, "ce_err_target_oob", ce, [rnd(3, 4), torch.tensor([0, 5, 1])], **E)
    C(w, "ce_err_target_negative", ce, [rnd(3, 4), torch.tensor([0, -3, 1])], **E)
    C(w, "ce_err_target_oob_4d", ce, [rnd(1, 3, 2, 2), torch.tensor([[[0, 1], [3, 1]]])], **E)
    C(w, "ce_err_weight_size", ce, [rnd(3, 4), cls(3, C=4)], named={"weight": uni(3)}, **E)
    C(w, "ce_err_reduction", ce, [rnd(3, 4), cls(3, C=4)], {"reduction": "avg"}, **E)
    C(w, "ce_err_0d", ce, [rnd(), torch.tensor(0)], **E)
    C(w, "ce_err_target_shape_3d", ce, [rnd(2, 3, 4), cls(2, 5, C=3)], **E)
    C(w, "ce_err_prob_ignore", ce, [rnd(3, 4), probs(3, 4)], {"ignore_index": 1}, **E)
    C(w, "ce_err_float_target_shape", ce, [rnd(3, 4), rnd(3)], **E)


def nll_cases(w):
    torch.manual_seed(11)
    n = "nll_loss"
    lp = lambda *s: torch.log_softmax(rnd(*s), 1)  # noqa: E731
    C(w, "nll_2d", n, [lp(6, 5), cls(6, C=5)])
    C(w, "nll_2d_f32_sum", n, [lp(6, 5).float(), cls(6, C=5)], {"reduction": "sum"})
    C(w, "nll_2d_none_ignore", n, [lp(6, 5), cls(6, C=5, ignore=-100, at=(1,))], {"reduction": "none"})
    C(w, "nll_2d_weight_ignore", n, [lp(6, 5), torch.tensor([3, 1, 4, 3, 0, 2])], {"ignore_index": 3},
      named={"weight": uni(5, lo=0.2, hi=2.0)})
    C(w, "nll_1d", n, [torch.log_softmax(rnd(4), 0), torch.tensor(2)])
    C(w, "nll_4d_weight", n, [lp(2, 3, 2, 3), cls(2, 2, 3, C=3)], named={"weight": uni(3, lo=0.2, hi=2.0)})
    C(w, "nll_5d_none", n, [lp(2, 3, 2, 1, 2), cls(2, 2, 1, 2, C=3)], {"reduction": "none"})
    E = dict(expect_error=True, grad=False)
    C(w, "nll_err_batch", n, [lp(3, 4), cls(2, C=4)], **E)
    C(w, "nll_err_oob", n, [lp(3, 4), torch.tensor([0, 4, 1])], **E)
    C(w, "nll_err_float_target", n, [lp(3, 4), rnd(3)], **E)


def regression_cases(w):
    torch.manual_seed(12)
    for op in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"):
        short = op.replace("_loss", "")
        C(w, short + "_mean_f64", op, [rnd(3, 4), rnd(3, 4)])
        C(w, short + "_sum_f32", op, [rnd(5, 2, dtype=torch.float32), rnd(5, 2, dtype=torch.float32)], {"reduction": "sum"})
        C(w, short + "_none", op, [rnd(2, 3, 2), rnd(2, 3, 2)], {"reduction": "none"})
        C(w, short + "_bcast", op, [rnd(3, 4), rnd(1, 4)])
        C(w, short + "_noncontig", op, [rnd(3, 4), rnd(3, 4)], {"reduction": "none"}, permute=[[1, 0], None])
        C(w, short + "_0d", op, [rnd(), rnd()])
        C(w, short + "_empty_sum", op, [rnd(0, 3), rnd(0, 3)], {"reduction": "sum"})
        C(w, short + "_err_reduction", op, [rnd(3), rnd(3)], {"reduction": "batchmean"}, expect_error=True, grad=False)
    C(w, "smooth_l1_beta_half", "smooth_l1_loss", [rnd(4, 5), rnd(4, 5)], {"beta": 0.5, "reduction": "none"})
    C(w, "smooth_l1_beta_2", "smooth_l1_loss", [rnd(4, 5), rnd(4, 5)], {"beta": 2.0})
    C(w, "smooth_l1_beta_0", "smooth_l1_loss", [rnd(4, 5), rnd(4, 5)], {"beta": 0.0, "reduction": "sum"})
    C(w, "huber_delta_half", "huber_loss", [rnd(4, 5), rnd(4, 5)], {"delta": 0.5, "reduction": "none"})
    C(w, "huber_delta_3", "huber_loss", [rnd(4, 5, scale=3.0), rnd(4, 5)], {"delta": 3.0})
    C(w, "smooth_l1_err_beta", "smooth_l1_loss", [rnd(3), rnd(3)], {"beta": -1.0}, expect_error=True, grad=False)


def bce_cases(w):
    torch.manual_seed(13)
    b = "binary_cross_entropy"
    C(w, "bce_mean", b, [uni(4, 3), uni(4, 3, lo=0.0, hi=1.0)])
    C(w, "bce_f32_sum", b, [uni(6, dtype=torch.float32), torch.randint(0, 2, (6,)).float()], {"reduction": "sum"})
    C(w, "bce_none_weight", b, [uni(3, 4), uni(3, 4, lo=0.0, hi=1.0)], {"reduction": "none"}, named={"weight": uni(4, lo=0.5, hi=2.0)})
    C(w, "bce_edges_clamp", b, [torch.tensor([0.0, 1.0, 0.0, 1.0, 0.5]), torch.tensor([1.0, 0.0, 0.0, 1.0, 0.3])],
      {"reduction": "none"}, grad=False)
    E = dict(expect_error=True, grad=False)
    C(w, "bce_err_size", b, [uni(3), uni(2)], **E)
    C(w, "bce_err_range", b, [torch.tensor([0.2, 1.5]), torch.tensor([0.0, 1.0])], **E)
    bl = "binary_cross_entropy_with_logits"
    C(w, "bcel_mean", bl, [rnd(4, 3), uni(4, 3, lo=0.0, hi=1.0)])
    C(w, "bcel_f32_none", bl, [rnd(5, 2, dtype=torch.float32), uni(5, 2, lo=0.0, hi=1.0, dtype=torch.float32)], {"reduction": "none"})
    C(w, "bcel_large", bl, [rnd(3, 4, scale=60.0), torch.randint(0, 2, (3, 4)).double()], {"reduction": "sum"})
    C(w, "bcel_weight", bl, [rnd(3, 4), uni(3, 4, lo=0.0, hi=1.0)], named={"weight": uni(3, 1, lo=0.5, hi=2.0)})
    C(w, "bcel_pos_weight", bl, [rnd(3, 4), uni(3, 4, lo=0.0, hi=1.0)], {"reduction": "none"}, named={"pos_weight": uni(4, lo=0.5, hi=3.0)})
    C(w, "bcel_both_weights", bl, [rnd(2, 3, 4), uni(2, 3, 4, lo=0.0, hi=1.0)],
      named={"weight": uni(3, 4, lo=0.5, hi=2.0), "pos_weight": uni(4, lo=0.5, hi=3.0)})
    # float32, long enough for the 16-lane path (and its scalar tail)
    C(w, "bcel_f32_vec_none", bl, [rnd(5, 13, dtype=torch.float32, scale=6.0), uni(5, 13, lo=0.0, hi=1.0, dtype=torch.float32)],
      {"reduction": "none"})
    C(w, "bcel_f32_vec_mean", bl, [rnd(7, 19, dtype=torch.float32, scale=6.0), torch.randint(0, 2, (7, 19)).float()])
    C(w, "mse_f32_vec_sum", "mse_loss", [rnd(6, 21, dtype=torch.float32), rnd(6, 21, dtype=torch.float32)], {"reduction": "sum"},
      atol=1e-5)
    C(w, "bcel_err_size", bl, [rnd(3), uni(2)], **E)


def kl_cases(w):
    torch.manual_seed(14)
    k = "kl_div"
    lp = lambda *s: torch.log_softmax(rnd(*s), -1)  # noqa: E731
    pr = lambda *s: torch.softmax(rnd(*s), -1)  # noqa: E731
    C(w, "kl_mean", k, [lp(3, 4), pr(3, 4)])
    C(w, "kl_batchmean", k, [lp(3, 4), pr(3, 4)], {"reduction": "batchmean"})
    C(w, "kl_sum_f32", k, [lp(3, 4).float(), pr(3, 4).float()], {"reduction": "sum"})
    C(w, "kl_none", k, [lp(2, 3, 2), pr(2, 3, 2)], {"reduction": "none"})
    C(w, "kl_log_target", k, [lp(3, 4), lp(3, 4)], {"reduction": "batchmean", "log_target": True})
    C(w, "kl_log_target_none", k, [lp(3, 4), lp(3, 4)], {"reduction": "none", "log_target": True})
    C(w, "kl_zero_targets", k, [lp(2, 3), torch.tensor([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])], {"reduction": "none"}, grad=False)
    C(w, "kl_bcast", k, [lp(3, 4), pr(1, 4)], {"reduction": "sum"})
    C(w, "kl_err_reduction", k, [lp(3), pr(3)], {"reduction": "avg"}, expect_error=True, grad=False)


def distance_cases(w):
    torch.manual_seed(15)
    cs = "cosine_similarity"
    C(w, "cos_default", cs, [rnd(3, 5), rnd(3, 5)])
    C(w, "cos_dim0_f32", cs, [rnd(4, 3, dtype=torch.float32), rnd(4, 3, dtype=torch.float32)], {"dim": 0})
    C(w, "cos_dimneg", cs, [rnd(2, 3, 4), rnd(2, 3, 4)], {"dim": -1})
    C(w, "cos_bcast", cs, [rnd(3, 1, 4), rnd(5, 4)], {"dim": -1})
    C(w, "cos_eps_clamp", cs, [rnd(2, 3, scale=1e-5), rnd(2, 3)], {"dim": 1, "eps": 1e-3})
    C(w, "cos_1d", cs, [rnd(6), rnd(6)], {"dim": 0})
    C(w, "cos_err_dim", cs, [rnd(3, 4), rnd(3, 4)], {"dim": 2}, expect_error=True, grad=False)
    pd = "pairwise_distance"
    C(w, "pd_default", pd, [rnd(4, 5), rnd(4, 5)])
    C(w, "pd_p1_keepdim", pd, [rnd(4, 5), rnd(4, 5)], {"p": 1.0, "keepdim": True})
    C(w, "pd_p3_f32", pd, [rnd(3, 6, dtype=torch.float32), rnd(3, 6, dtype=torch.float32)], {"p": 3.0})
    C(w, "pd_bcast", pd, [rnd(3, 4), rnd(1, 4)], {"eps": 1e-3})
    C(w, "pd_3d", pd, [rnd(2, 3, 4), rnd(2, 3, 4)])
    C(w, "pd_1d", pd, [rnd(5), rnd(5)])


def generate(w):
    cross_entropy_cases(w)
    nll_cases(w)
    regression_cases(w)
    bce_cases(w)
    kl_cases(w)
    distance_cases(w)
