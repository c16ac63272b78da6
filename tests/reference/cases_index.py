"""Indexing and joining: gather/scatter family, index_* ops, advanced indexing
(index / index_put), masked_*, nonzero, take, cat/stack/split/chunk/unbind,
flip/roll/repeat/tile/repeat_interleave, tril/triu, diag/diag_embed, one_hot, pad.

Input conventions the handlers in tests/conformance/ops_index.c rely on:
  torch.index_put / Tensor.index_put_: in0 self, in1 values, in2... the index
      tensors; args.slices lists the positions of None (full slices) in the list.
  Tensor.__getitem__: in0 self, in1... index tensors; args.slices as above.
  torch.cat / torch.stack: every input is a list element.
  torch.repeat_interleave: (self, repeats=int) via args, (self, repeats tensor), or
      (repeats) alone.
  Ops with several outputs (split, chunk, unbind, nonzero(as_tuple)) return them all.
Scatter (without add) is nondeterministic for duplicate indices: its cases use
distinct indices."""
import torch
import torch.nn.functional as F

FAM = "index"
L = torch.long


def rn(*shape, dtype=torch.float64):
    return torch.randn(*shape, dtype=torch.float64).to(dtype)


def ri(lo, hi, *shape):
    return torch.randint(lo, hi, shape, dtype=L)


def perm_index(n_rows, shape, dim):
    """an index of `shape` whose values along `dim` are distinct (a scatter without duplicates)"""
    idx = torch.empty(shape, dtype=L)
    moved = idx.movedim(dim, -1)
    flat = moved.reshape(-1, shape[dim])
    for r in range(flat.shape[0]):
        flat[r] = torch.randperm(n_rows)[: shape[dim]]
    return flat.reshape(moved.shape).movedim(-1, dim).contiguous()


def aten_list(idx, slices):
    out, k = [], 0
    for p in range(len(idx) + len(slices)):
        if p in slices:
            out.append(None)
        else:
            out.append(idx[k])
            k += 1
    return out


def gather_scatter(w):
    c = w.case
    x = rn(3, 4)
    c(FAM, "index_select_f64", "torch.index_select", lambda x, i: torch.index_select(x, 0, i), [x, torch.tensor([2, 0, 2, 1])], args={"dim": 0})
    c(FAM, "index_select_negdim_noncontig", "torch.index_select", lambda x, i: torch.index_select(x, -1, i), [rn(3, 4, 5), torch.tensor([4, 0, 0])],
      args={"dim": -1}, permute=[[2, 0, 1], None])
    c(FAM, "index_select_int32_index", "torch.index_select", lambda x, i: torch.index_select(x, 1, i), [rn(3, 4, dtype=torch.float32), torch.tensor([3, 1], dtype=torch.int32)],
      args={"dim": 1})
    c(FAM, "index_select_int64_values", "torch.index_select", lambda x, i: torch.index_select(x, 0, i), [ri(-9, 9, 5, 2), torch.tensor([4, 4, 0])], args={"dim": 0})
    c(FAM, "index_select_bool", "torch.index_select", lambda x, i: torch.index_select(x, 1, i), [rn(2, 3) > 0, torch.tensor([2, 0])], args={"dim": 1})
    c(FAM, "index_select_bf16", "torch.index_select", lambda x, i: torch.index_select(x, 0, i), [rn(3, 2, dtype=torch.bfloat16), torch.tensor([1, 2])], args={"dim": 0},
      grad=False, optional=True)
    c(FAM, "index_select_empty_index", "torch.index_select", lambda x, i: torch.index_select(x, 1, i), [rn(3, 4), torch.zeros(0, dtype=L)], args={"dim": 1})
    c(FAM, "index_select_0d_index", "torch.index_select", lambda x, i: torch.index_select(x, 0, i), [rn(3, 4), torch.tensor(1)], args={"dim": 0})
    c(FAM, "index_select_err_oob", "torch.index_select", lambda x, i: torch.index_select(x, 0, i), [x, torch.tensor([0, 5])], args={"dim": 0}, expect_error=True)
    c(FAM, "index_select_err_2d", "torch.index_select", lambda x, i: torch.index_select(x, 0, i), [x, torch.tensor([[0, 1]])], args={"dim": 0}, expect_error=True)
    c(FAM, "index_select_err_float_index", "torch.index_select", lambda x, i: torch.index_select(x, 0, i), [x, torch.tensor([0.0])], args={"dim": 0},
      expect_error=True)

    c(FAM, "gather_dim1_dups", "torch.gather", lambda x, i: torch.gather(x, 1, i), [rn(3, 4), ri(0, 4, 3, 6)], args={"dim": 1})
    c(FAM, "gather_dim0_smaller", "torch.gather", lambda x, i: torch.gather(x, 0, i), [rn(4, 5), ri(0, 4, 2, 3)], args={"dim": 0})
    c(FAM, "gather_negdim_noncontig", "torch.gather", lambda x, i: torch.gather(x, -2, i), [rn(2, 3, 4), ri(0, 3, 2, 5, 4)], args={"dim": -2},
      permute=[[1, 2, 0], [0, 2, 1]])
    c(FAM, "gather_f32_3d", "torch.gather", lambda x, i: torch.gather(x, 2, i), [rn(2, 3, 4, dtype=torch.float32), ri(0, 4, 2, 3, 2)], args={"dim": 2})
    c(FAM, "gather_int", "torch.gather", lambda x, i: torch.gather(x, 1, i), [ri(-5, 5, 3, 3).int(), ri(0, 3, 3, 2)], args={"dim": 1})
    c(FAM, "gather_bool", "torch.gather", lambda x, i: torch.gather(x, 0, i), [rn(3, 2) > 0, ri(0, 3, 4, 2)], args={"dim": 0})
    c(FAM, "gather_empty", "torch.gather", lambda x, i: torch.gather(x, 1, i), [rn(3, 4), torch.zeros(3, 0, dtype=L)], args={"dim": 1})
    c(FAM, "gather_0d", "torch.gather", lambda x, i: torch.gather(x, 0, i), [torch.tensor(2.5, dtype=torch.float64), torch.tensor([0, 0])], args={"dim": 0})
    c(FAM, "gather_err_oob", "torch.gather", lambda x, i: torch.gather(x, 1, i), [x, torch.tensor([[0, 5]])], args={"dim": 1}, expect_error=True)
    c(FAM, "gather_err_neg", "torch.gather", lambda x, i: torch.gather(x, 1, i), [x, torch.tensor([[0, -1]])], args={"dim": 1}, expect_error=True)
    c(FAM, "gather_err_ndim", "torch.gather", lambda x, i: torch.gather(x, 1, i), [x, torch.tensor([0, 1])], args={"dim": 1}, expect_error=True)
    c(FAM, "gather_err_size", "torch.gather", lambda x, i: torch.gather(x, 1, i), [x, torch.zeros(4, 2, dtype=L)], args={"dim": 1}, expect_error=True)
    c(FAM, "gather_err_int32", "torch.gather", lambda x, i: torch.gather(x, 1, i), [x, torch.zeros(1, 2, dtype=torch.int32)], args={"dim": 1}, expect_error=True)

    # scatter: distinct indices along dim
    c(FAM, "scatter_src", "torch.scatter", lambda x, i, s: torch.scatter(x, 0, i, s), [rn(4, 3), perm_index(4, (3, 3), 0), rn(3, 3)], args={"dim": 0})
    c(FAM, "scatter_src_bigger", "torch.scatter", lambda x, i, s: torch.scatter(x, 1, i, s), [rn(3, 5), perm_index(5, (2, 3), 1), rn(3, 4)], args={"dim": 1},
      grad=False)
    c(FAM, "scatter_negdim_noncontig", "torch.scatter", lambda x, i, s: torch.scatter(x, -1, i, s), [rn(3, 4), perm_index(4, (3, 4), 1), rn(3, 4)],
      args={"dim": -1}, permute=[[1, 0], None, [1, 0]])
    c(FAM, "scatter_value", "torch.scatter", lambda x, i: torch.scatter(x, 1, i, 2.5), [rn(3, 4), perm_index(4, (3, 2), 1)], args={"dim": 1, "value": 2.5})
    c(FAM, "scatter_value_int", "torch.scatter", lambda x, i: torch.scatter(x, 0, i, 7), [ri(0, 5, 3, 2), perm_index(3, (2, 2), 0)], args={"dim": 0, "value": 7})
    c(FAM, "scatter_bool", "torch.scatter", lambda x, i, s: torch.scatter(x, 0, i, s), [rn(3, 2) > 0, perm_index(3, (2, 2), 0), rn(2, 2) > 0], args={"dim": 0})
    c(FAM, "scatter_empty_index", "torch.scatter", lambda x, i, s: torch.scatter(x, 0, i, s), [rn(3, 2), torch.zeros(0, 2, dtype=L), rn(1, 2)], args={"dim": 0})
    c(FAM, "scatter_err_oob", "torch.scatter", lambda x, i, s: torch.scatter(x, 0, i, s), [x, torch.tensor([[0, 3]]), rn(1, 2)], args={"dim": 0},
      expect_error=True)
    c(FAM, "scatter_err_dtype", "torch.scatter", lambda x, i, s: torch.scatter(x, 0, i, s), [x, torch.tensor([[0, 1]]), rn(1, 2, dtype=torch.float32)],
      args={"dim": 0}, expect_error=True)
    c(FAM, "scatter_err_size", "torch.scatter", lambda x, i, s: torch.scatter(x, 0, i, s), [x, torch.tensor([[0, 1]]), rn(1, 1)], args={"dim": 0},
      expect_error=True)

    c(FAM, "scatter_add_dups", "torch.scatter_add", lambda x, i, s: torch.scatter_add(x, 0, i, s), [rn(3, 4), ri(0, 3, 5, 4), rn(5, 4)], args={"dim": 0})
    c(FAM, "scatter_add_dim1_noncontig", "torch.scatter_add", lambda x, i, s: torch.scatter_add(x, 1, i, s), [rn(4, 3), ri(0, 3, 4, 6), rn(4, 6)],
      args={"dim": 1}, permute=[[1, 0], [1, 0], None])
    c(FAM, "scatter_add_f32_3d", "torch.scatter_add", lambda x, i, s: torch.scatter_add(x, -1, i, s), [rn(2, 3, 4, dtype=torch.float32), ri(0, 4, 2, 3, 5),
      rn(2, 3, 5, dtype=torch.float32)], args={"dim": -1})
    c(FAM, "scatter_add_int", "torch.scatter_add", lambda x, i, s: torch.scatter_add(x, 0, i, s), [ri(-5, 5, 3), ri(0, 3, 6), ri(-5, 5, 6)], args={"dim": 0})
    c(FAM, "scatter_add_bool", "torch.scatter_add", lambda x, i, s: torch.scatter_add(x, 0, i, s), [rn(3) > 0, ri(0, 3, 4), rn(4) > 0], args={"dim": 0})
    c(FAM, "scatter_add_f16", "torch.scatter_add", lambda x, i, s: torch.scatter_add(x, 0, i, s), [rn(3, dtype=torch.float16), ri(0, 3, 4),
      rn(4, dtype=torch.float16)], args={"dim": 0}, grad=False, optional=True)
    c(FAM, "scatter_add_err_oob", "torch.scatter_add", lambda x, i, s: torch.scatter_add(x, 0, i, s), [x, torch.tensor([[0, 3]]), rn(1, 2)],
      args={"dim": 0}, expect_error=True)

    idx = torch.tensor([[0, 0, 1, 1], [2, 0, 1, 3]])
    for red in ("sum", "prod", "mean", "amax", "amin"):
        for inc in (True, False):
            f = (lambda red, inc: lambda x, i, s: torch.scatter_reduce(x, 1, i, s, red, include_self=inc))(red, inc)
            c(FAM, "scatter_reduce_%s_%s" % (red, "self" if inc else "noself"), "torch.scatter_reduce", f, [rn(2, 5), idx, rn(2, 4)],
              args={"dim": 1, "reduce": red, "include_self": inc})
        f = (lambda red: lambda x, i, s: torch.scatter_reduce(x, 0, i, s, red, include_self=False))(red)
        c(FAM, "scatter_reduce_%s_int" % red, "torch.scatter_reduce", f, [ri(-9, 9, 4), torch.tensor([0, 0, 1, 1, 3]), ri(-9, 9, 5)],
          args={"dim": 0, "reduce": red, "include_self": False})
        c(FAM, "scatter_reduce_%s_noncontig" % red, "torch.scatter_reduce", (lambda red: lambda x, i, s: torch.scatter_reduce(x, 0, i, s, red))(red),
          [rn(3, 4), ri(0, 3, 4, 3), rn(4, 3)], args={"dim": 0, "reduce": red, "include_self": True}, permute=[[1, 0], None, [1, 0]])
    # ties and zeros exercise the amax/amin and prod gradient rules
    c(FAM, "scatter_reduce_amax_ties", "torch.scatter_reduce", lambda x, i, s: torch.scatter_reduce(x, 0, i, s, "amax"),
      [torch.tensor([1.0, 5.0, 2.0], dtype=torch.float64), torch.tensor([0, 0, 1, 1, 2]), torch.tensor([1.0, 0.5, 5.0, 5.0, 3.0], dtype=torch.float64)],
      args={"dim": 0, "reduce": "amax", "include_self": True})
    c(FAM, "scatter_reduce_prod_zeros", "torch.scatter_reduce", lambda x, i, s: torch.scatter_reduce(x, 0, i, s, "prod"),
      [torch.tensor([2.0, 0.0, 3.0, 4.0], dtype=torch.float64), torch.tensor([0, 0, 1, 1, 2, 3, 3]),
       torch.tensor([0.0, 5.0, 4.0, 2.0, 0.0, 0.0, 0.0], dtype=torch.float64)], args={"dim": 0, "reduce": "prod", "include_self": True}, grad=False)
    c(FAM, "scatter_reduce_prod_single_zero", "torch.scatter_reduce", lambda x, i, s: torch.scatter_reduce(x, 0, i, s, "prod"),
      [torch.tensor([2.0, 0.0, 3.0], dtype=torch.float64), torch.tensor([0, 0, 1, 1, 2]), torch.tensor([0.0, 5.0, 4.0, 2.0, 0.0], dtype=torch.float64)],
      args={"dim": 0, "reduce": "prod", "include_self": True})
    c(FAM, "scatter_reduce_err_reduce", "torch.scatter_reduce", lambda x, i, s: torch.scatter_reduce(x, 0, i, s, "max"), [x, torch.tensor([[0, 1]]), rn(1, 2)],
      args={"dim": 0, "reduce": "max", "include_self": True}, expect_error=True)
    c(FAM, "scatter_reduce_err_mean_bool", "torch.scatter_reduce", lambda x, i, s: torch.scatter_reduce(x, 0, i, s, "mean"),
      [rn(3) > 0, torch.tensor([0]), rn(1) > 0], args={"dim": 0, "reduce": "mean", "include_self": True}, expect_error=True)

    # in place
    c(FAM, "scatter__src", "Tensor.scatter_", lambda x, i, s: x.clone().scatter_(1, i, s), [rn(3, 4), perm_index(4, (3, 2), 1), rn(3, 2)], args={"dim": 1})
    c(FAM, "scatter__value", "Tensor.scatter_", lambda x, i: x.clone().scatter_(0, i, -1.5), [rn(3, 4), perm_index(3, (2, 4), 0)], args={"dim": 0, "value": -1.5})
    c(FAM, "scatter_add__dups", "Tensor.scatter_add_", lambda x, i, s: x.clone().scatter_add_(0, i, s), [rn(3, 2), ri(0, 3, 4, 2), rn(4, 2)], args={"dim": 0})
    c(FAM, "scatter_reduce__amin", "Tensor.scatter_reduce_", lambda x, i, s: x.clone().scatter_reduce_(0, i, s, "amin", include_self=False),
      [rn(3, 2), ri(0, 3, 4, 2), rn(4, 2)], args={"dim": 0, "reduce": "amin", "include_self": False})


def index_ops(w):
    c = w.case
    x = rn(4, 3)
    c(FAM, "index_add_dups_alpha", "torch.index_add", lambda x, i, s: torch.index_add(x, 0, i, s, alpha=-2.0), [x, torch.tensor([3, 0, 3]), rn(3, 3)],
      args={"dim": 0, "alpha": -2.0})
    c(FAM, "index_add_dim1_noncontig", "torch.index_add", lambda x, i, s: torch.index_add(x, 1, i, s), [rn(2, 4, 3), torch.tensor([2, 1]), rn(2, 2, 3)],
      args={"dim": 1, "alpha": 1.0}, permute=[[2, 0, 1], None, [1, 2, 0]])
    c(FAM, "index_add_negdim_int32", "torch.index_add", lambda x, i, s: torch.index_add(x, -1, i, s), [rn(3, 4, dtype=torch.float32),
      torch.tensor([0, 3, 0], dtype=torch.int32), rn(3, 3, dtype=torch.float32)], args={"dim": -1, "alpha": 1.0})
    c(FAM, "index_add_int", "torch.index_add", lambda x, i, s: torch.index_add(x, 0, i, s, alpha=3), [ri(-5, 5, 3, 2), torch.tensor([2, 2]), ri(-5, 5, 2, 2)],
      args={"dim": 0, "alpha": 3})
    c(FAM, "index_add_bcast_src", "torch.index_add", lambda x, i, s: torch.index_add(x, 0, i, s), [rn(3, 4), torch.tensor([0, 1]), rn(2)],
      args={"dim": 0, "alpha": 1.0}, grad=False)
    c(FAM, "index_add_0d", "torch.index_add", lambda x, i, s: torch.index_add(x, 0, i, s), [rn(3), torch.tensor([1]), torch.tensor(2.0, dtype=torch.float64)],
      args={"dim": 0, "alpha": 1.0})
    c(FAM, "index_add_err_oob", "torch.index_add", lambda x, i, s: torch.index_add(x, 0, i, s), [x, torch.tensor([0, 4]), rn(2, 3)], args={"dim": 0},
      expect_error=True)
    c(FAM, "index_add_err_count", "torch.index_add", lambda x, i, s: torch.index_add(x, 0, i, s), [x, torch.tensor([0, 1]), rn(3, 3)], args={"dim": 0},
      expect_error=True)
    c(FAM, "index_add_err_dtype", "torch.index_add", lambda x, i, s: torch.index_add(x, 0, i, s), [x, torch.tensor([0, 1]), rn(2, 3, dtype=torch.float32)],
      args={"dim": 0}, expect_error=True)
    c(FAM, "index_add__", "Tensor.index_add_", lambda x, i, s: x.clone().index_add_(1, i, s, alpha=0.5), [rn(3, 4), torch.tensor([1, 1, 3]), rn(3, 3)],
      args={"dim": 1, "alpha": 0.5})

    c(FAM, "index_copy_dim0", "torch.index_copy", lambda x, i, s: torch.index_copy(x, 0, i, s), [x, torch.tensor([3, 0]), rn(2, 3)], args={"dim": 0})
    c(FAM, "index_copy_negdim_noncontig", "torch.index_copy", lambda x, i, s: torch.index_copy(x, -1, i, s), [rn(3, 4), torch.tensor([2, 0, 3]), rn(3, 3)],
      args={"dim": -1}, permute=[[1, 0], None, [1, 0]])
    c(FAM, "index_copy_bool", "torch.index_copy", lambda x, i, s: torch.index_copy(x, 0, i, s), [rn(3, 2) > 0, torch.tensor([1]), rn(1, 2) > 0], args={"dim": 0})
    c(FAM, "index_copy_0d_src", "torch.index_copy", lambda x, i, s: torch.index_copy(x, 0, i, s), [rn(3), torch.tensor([2]), torch.tensor(5.0, dtype=torch.float64)],
      args={"dim": 0})
    c(FAM, "index_copy_err_oob", "torch.index_copy", lambda x, i, s: torch.index_copy(x, 0, i, s), [x, torch.tensor([0, 4]), rn(2, 3)], args={"dim": 0},
      expect_error=True)
    c(FAM, "index_copy_err_int32", "torch.index_copy", lambda x, i, s: torch.index_copy(x, 0, i, s), [x, torch.tensor([0, 1], dtype=torch.int32), rn(2, 3)],
      args={"dim": 0}, expect_error=True)
    c(FAM, "index_copy_err_slice", "torch.index_copy", lambda x, i, s: torch.index_copy(x, 0, i, s), [x, torch.tensor([0, 1]), rn(2, 4)], args={"dim": 0},
      expect_error=True)
    c(FAM, "index_copy__", "Tensor.index_copy_", lambda x, i, s: x.clone().index_copy_(0, i, s), [rn(3, 2), torch.tensor([2, 0]), rn(2, 2)], args={"dim": 0})

    c(FAM, "index_fill_neg_index", "torch.index_fill", lambda x, i: torch.index_fill(x, 1, i, -3.5), [rn(3, 4), torch.tensor([-1, 0])],
      args={"dim": 1, "value": -3.5})
    c(FAM, "index_fill_noncontig_dups", "torch.index_fill", lambda x, i: torch.index_fill(x, 0, i, 2.0), [rn(3, 4), torch.tensor([2, 2, 0])],
      args={"dim": 0, "value": 2.0}, permute=[[1, 0], None])
    c(FAM, "index_fill_int_trunc", "torch.index_fill", lambda x, i: torch.index_fill(x, 0, i, 2.7), [ri(0, 5, 4), torch.tensor([1, 3])], args={"dim": 0, "value": 2.7})
    c(FAM, "index_fill_bool", "torch.index_fill", lambda x, i: torch.index_fill(x, 0, i, True), [rn(4) > 0, torch.tensor([0])], args={"dim": 0, "value": True})
    c(FAM, "index_fill_0d_index", "torch.index_fill", lambda x, i: torch.index_fill(x, 1, i, 1.0), [rn(2, 3), torch.tensor(2)], args={"dim": 1, "value": 1.0})
    c(FAM, "index_fill_err_oob", "torch.index_fill", lambda x, i: torch.index_fill(x, 0, i, 1.0), [x, torch.tensor([-5])], args={"dim": 0, "value": 1.0},
      expect_error=True)
    c(FAM, "index_fill_err_int32", "torch.index_fill", lambda x, i: torch.index_fill(x, 0, i, 1.0), [x, torch.tensor([0], dtype=torch.int32)],
      args={"dim": 0, "value": 1.0}, expect_error=True)
    c(FAM, "index_fill__", "Tensor.index_fill_", lambda x, i: x.clone().index_fill_(0, i, 0.25), [rn(3, 2), torch.tensor([1])], args={"dim": 0, "value": 0.25})

    c(FAM, "take_neg_dups", "torch.take", lambda x, i: torch.take(x, i), [rn(3, 4), torch.tensor([[0, -1], [5, 5], [11, -12]])])
    c(FAM, "take_noncontig", "torch.take", lambda x, i: torch.take(x, i), [rn(3, 4), torch.tensor([1, 4, 7])], permute=[[1, 0], None])
    c(FAM, "take_0d_index", "torch.take", lambda x, i: torch.take(x, i), [rn(2, 3, dtype=torch.float32), torch.tensor(4)])
    c(FAM, "take_int", "torch.take", lambda x, i: torch.take(x, i), [ri(0, 9, 5).int(), torch.tensor([4, 0])])
    c(FAM, "take_err_oob", "torch.take", lambda x, i: torch.take(x, i), [rn(3, 4), torch.tensor([12])], expect_error=True)
    c(FAM, "take_err_int32", "torch.take", lambda x, i: torch.take(x, i), [rn(3, 4), torch.tensor([1], dtype=torch.int32)], expect_error=True)


def advanced(w):
    c = w.case
    x = rn(4, 3)

    def put(slices=(), acc=False, inplace=False):
        def f(x, v, *idx):
            lst = aten_list(list(idx), slices)
            if inplace:
                return torch.ops.aten.index_put_(x.clone(), lst, v, acc)
            return torch.ops.aten.index_put(x, lst, v, acc)
        return f

    def get(slices=()):
        return lambda x, *idx: torch.ops.aten.index(x, aten_list(list(idx), slices))

    c(FAM, "index_put_1idx", "torch.index_put", put(), [x, rn(2, 3), torch.tensor([3, 1])], args={"accumulate": False})
    c(FAM, "index_put_2idx_bcast_value", "torch.index_put", put(), [x, rn(1), torch.tensor([0, 2, 3]), torch.tensor([1, -1, 0])], args={"accumulate": False})
    c(FAM, "index_put_acc_dups", "torch.index_put", put(acc=True), [x, rn(4, 3), torch.tensor([1, 1, 3, 1])], args={"accumulate": True})
    c(FAM, "index_put_acc_2d_index", "torch.index_put", put(acc=True), [rn(5), rn(2, 2), torch.tensor([[0, 4], [4, -1]])], args={"accumulate": True})
    c(FAM, "index_put_slice_first", "torch.index_put", put(slices=(0,)), [rn(3, 4), rn(3, 2), torch.tensor([3, 0])],
      args={"accumulate": False, "slices": [0]})
    c(FAM, "index_put_separated", "torch.index_put", put(slices=(1,), acc=True), [rn(2, 3, 4), rn(2, 3), torch.tensor([0, 1]), torch.tensor([1, 2])],
      args={"accumulate": True, "slices": [1]})
    c(FAM, "index_put_noncontig", "torch.index_put", put(), [rn(3, 4), rn(2), torch.tensor([2, 0]), torch.tensor([1, 3])], args={"accumulate": False},
      permute=[[1, 0], None, None, None])
    c(FAM, "index_put_int_acc", "torch.index_put", put(acc=True), [ri(0, 5, 4), ri(0, 5, 3), torch.tensor([0, 0, 2])], args={"accumulate": True})
    c(FAM, "index_put_bool_acc", "torch.index_put", put(acc=True), [rn(3) > 0, torch.tensor([True, False, True]), torch.tensor([0, 0, 2])],
      args={"accumulate": True})
    c(FAM, "index_put_mask", "torch.index_put", put(), [x, torch.tensor(-1.0, dtype=torch.float64), x > 0.3], args={"accumulate": False})
    c(FAM, "index_put_row_mask", "torch.index_put", put(), [x, rn(3), torch.tensor([True, False, True, True])], args={"accumulate": False})
    c(FAM, "index_put_err_oob", "torch.index_put", put(), [x, rn(1), torch.tensor([4])], args={"accumulate": False}, expect_error=True)
    c(FAM, "index_put_err_shape", "torch.index_put", put(), [x, rn(4), torch.tensor([0, 1])], args={"accumulate": False}, expect_error=True)
    c(FAM, "index_put_err_dtype", "torch.index_put", put(), [x, rn(1, dtype=torch.float32), torch.tensor([0])], args={"accumulate": False}, expect_error=True)
    c(FAM, "index_put_err_bcast", "torch.index_put", put(), [x, rn(1), torch.tensor([0, 1]), torch.tensor([0, 1, 2])], args={"accumulate": False},
      expect_error=True)
    c(FAM, "index_put_err_too_many", "torch.index_put", put(), [x, rn(1), torch.tensor([0]), torch.tensor([0]), torch.tensor([0])], args={"accumulate": False},
      expect_error=True)
    c(FAM, "index_put_err_int32", "torch.index_put", put(), [x, rn(1), torch.tensor([0], dtype=torch.int32)], args={"accumulate": False}, expect_error=True)
    c(FAM, "index_put_err_mask_shape", "torch.index_put", put(), [x, rn(1), torch.tensor([True, False])], args={"accumulate": False}, expect_error=True)
    c(FAM, "index_put__acc", "Tensor.index_put_", put(acc=True, inplace=True), [x, rn(3), torch.tensor([2, 2, 0])], args={"accumulate": True})
    c(FAM, "index_put__slice", "Tensor.index_put_", put(slices=(0,), inplace=True), [rn(2, 3), rn(2, 1), torch.tensor([1])],
      args={"accumulate": False, "slices": [0]})

    c(FAM, "getitem_1idx_dups", "Tensor.__getitem__", get(), [x, torch.tensor([3, 0, 3])])
    c(FAM, "getitem_2idx_2d", "Tensor.__getitem__", get(), [rn(3, 4), torch.tensor([[0, 2], [1, 1]]), torch.tensor([3, -4])])
    c(FAM, "getitem_slice_middle", "Tensor.__getitem__", get(slices=(0,)), [rn(2, 3, 4), torch.tensor([2, 0]), torch.tensor([1, 3])], args={"slices": [0]})
    c(FAM, "getitem_separated", "Tensor.__getitem__", get(slices=(1,)), [rn(2, 3, 4), torch.tensor([1, 0, 1]), torch.tensor([0, 3, 3])], args={"slices": [1]})
    c(FAM, "getitem_mask", "Tensor.__getitem__", get(), [x, x < 0])
    c(FAM, "getitem_noncontig", "Tensor.__getitem__", get(slices=(0,)), [rn(3, 4), torch.tensor([3, 1])], args={"slices": [0]}, permute=[[1, 0], None])
    c(FAM, "getitem_err_oob", "Tensor.__getitem__", get(), [x, torch.tensor([0, -5])], expect_error=True)

    m = torch.tensor([[True, False, True], [False, False, True], [True, True, True], [False, False, False]])
    c(FAM, "masked_select_2d", "torch.masked_select", torch.masked_select, [x, m])
    c(FAM, "masked_select_bcast_mask", "torch.masked_select", torch.masked_select, [x, torch.tensor([True, False, True])])
    c(FAM, "masked_select_bcast_self", "torch.masked_select", torch.masked_select, [rn(3), m])
    # PyTorch 1.13's masked_select backward (zeros_like(self).masked_scatter_) fills a
    # transposed self in memory order, so its gradient is wrong for a non-contiguous self;
    # ctensor's is right (gradcheck in test_index.c). Values are checked, gradients only
    # for a non-contiguous mask.
    c(FAM, "masked_select_noncontig", "torch.masked_select", torch.masked_select, [rn(3, 4), rn(3, 4) > 0], permute=[[1, 0], [1, 0]], grad=False)
    c(FAM, "masked_select_noncontig_mask", "torch.masked_select", torch.masked_select, [rn(3, 4), rn(3, 4) > 0], permute=[None, [1, 0]])
    c(FAM, "masked_select_uint8_mask", "torch.masked_select", torch.masked_select, [x, m.to(torch.uint8)])
    c(FAM, "masked_select_int", "torch.masked_select", torch.masked_select, [ri(0, 9, 4, 3), m])
    c(FAM, "masked_select_empty", "torch.masked_select", torch.masked_select, [rn(0, 3), torch.zeros(0, 3, dtype=torch.bool)])
    c(FAM, "masked_select_none", "torch.masked_select", torch.masked_select, [x, torch.zeros(4, 3, dtype=torch.bool)])
    c(FAM, "masked_select_err_mask", "torch.masked_select", torch.masked_select, [x, x], expect_error=True)
    c(FAM, "masked_select_err_bcast", "torch.masked_select", torch.masked_select, [x, torch.tensor([True, False])], expect_error=True)

    c(FAM, "masked_scatter_2d", "torch.masked_scatter", torch.masked_scatter, [x, m, rn(12)])
    c(FAM, "masked_scatter_src_shape", "torch.masked_scatter", torch.masked_scatter, [x, m, rn(3, 5)])
    c(FAM, "masked_scatter_bcast", "torch.masked_scatter", torch.masked_scatter, [rn(3), m, rn(7)])
    c(FAM, "masked_scatter_noncontig", "torch.masked_scatter", torch.masked_scatter, [rn(3, 4), rn(3, 4) > 0, rn(4, 3)], permute=[[1, 0], None, [1, 0]])
    c(FAM, "masked_scatter_int", "torch.masked_scatter", torch.masked_scatter, [ri(0, 9, 4, 3), m, ri(0, 9, 12)])
    c(FAM, "masked_scatter_err_short", "torch.masked_scatter", torch.masked_scatter, [x, m, rn(3)], expect_error=True)
    c(FAM, "masked_scatter_err_dtype", "torch.masked_scatter", torch.masked_scatter, [x, m, rn(12, dtype=torch.float32)], expect_error=True)
    c(FAM, "masked_scatter__", "Tensor.masked_scatter_", lambda x, m, s: x.clone().masked_scatter_(m, s), [x, m[0], rn(8)])

    c(FAM, "nonzero_2d", "torch.nonzero", torch.nonzero, [torch.tensor([[0, 1, 0], [2, 0, -3]])], grad=False)
    c(FAM, "nonzero_float_nan", "torch.nonzero", torch.nonzero, [torch.tensor([float("nan"), 0.0, -0.0, 1.5])], grad=False)
    c(FAM, "nonzero_bool_3d", "torch.nonzero", torch.nonzero, [rn(2, 3, 2) > 0], grad=False)
    c(FAM, "nonzero_noncontig", "torch.nonzero", torch.nonzero, [rn(3, 4) > 0], grad=False, permute=[[1, 0]])
    c(FAM, "nonzero_0d", "torch.nonzero", torch.nonzero, [torch.tensor(2.0)], grad=False)
    c(FAM, "nonzero_empty", "torch.nonzero", torch.nonzero, [torch.zeros(0, 2)], grad=False)
    c(FAM, "nonzero_tuple", "torch.nonzero", lambda x: torch.nonzero(x, as_tuple=True), [rn(3, 4) > 0], args={"as_tuple": True}, grad=False)
    c(FAM, "nonzero_tuple_0d", "torch.nonzero", lambda x: torch.nonzero(x, as_tuple=True), [torch.tensor(1.0)], args={"as_tuple": True}, grad=False)


def joining(w):
    c = w.case
    a, b = rn(2, 3), rn(4, 3)
    c(FAM, "cat_dim0", "torch.cat", lambda *t: torch.cat(t, 0), [a, b, rn(1, 3)], args={"dim": 0})
    c(FAM, "cat_dim1_noncontig", "torch.cat", lambda *t: torch.cat(t, 1), [rn(3, 2), rn(3, 4)], args={"dim": 1}, permute=[[1, 0], None])
    c(FAM, "cat_negdim_3d", "torch.cat", lambda *t: torch.cat(t, -1), [rn(2, 3, 1), rn(2, 3, 4), rn(2, 3, 2)], args={"dim": -1})
    c(FAM, "cat_promote_int_float", "torch.cat", lambda *t: torch.cat(t, 0), [ri(0, 5, 2), rn(3, dtype=torch.float32)], args={"dim": 0})
    c(FAM, "cat_promote_bool_uint8", "torch.cat", lambda *t: torch.cat(t, 0), [rn(2) > 0, ri(0, 5, 3).to(torch.uint8)], args={"dim": 0})
    c(FAM, "cat_promote_int8_uint8", "torch.cat", lambda *t: torch.cat(t, 0), [ri(-5, 5, 2).to(torch.int8), ri(0, 5, 3).to(torch.uint8)], args={"dim": 0})
    c(FAM, "cat_promote_f32_f64", "torch.cat", lambda *t: torch.cat(t, 1), [rn(2, 2, dtype=torch.float32), rn(2, 1)], args={"dim": 1})
    c(FAM, "cat_legacy_empty", "torch.cat", lambda *t: torch.cat(t, 1), [rn(2, 2), torch.zeros(0, dtype=torch.float64), rn(2, 3)], args={"dim": 1})
    c(FAM, "cat_empty_dim", "torch.cat", lambda *t: torch.cat(t, 0), [rn(0, 3), rn(2, 3)], args={"dim": 0})
    c(FAM, "cat_only_legacy", "torch.cat", lambda *t: torch.cat(t, 0), [torch.zeros(0), torch.zeros(0)], args={"dim": 0}, grad=False)
    c(FAM, "cat_single", "torch.cat", lambda *t: torch.cat(t, 0), [rn(3, 2)], args={"dim": 0})
    c(FAM, "cat_many", "torch.cat", lambda *t: torch.cat(t, 0), [rn(1, 2) for _ in range(10)], args={"dim": 0})
    c(FAM, "cat_bf16", "torch.cat", lambda *t: torch.cat(t, 0), [rn(2, dtype=torch.bfloat16), rn(1, dtype=torch.bfloat16)], args={"dim": 0}, grad=False, optional=True)
    c(FAM, "cat_err_sizes", "torch.cat", lambda *t: torch.cat(t, 1), [rn(2, 2), rn(3, 3)], args={"dim": 1}, expect_error=True)
    c(FAM, "cat_err_ndim", "torch.cat", lambda *t: torch.cat(t, 0), [rn(2, 2), rn(3)], args={"dim": 0}, expect_error=True)
    c(FAM, "cat_err_0d", "torch.cat", lambda *t: torch.cat(t, 0), [torch.tensor(1.0), torch.tensor(2.0)], args={"dim": 0}, expect_error=True)
    c(FAM, "cat_err_dim", "torch.cat", lambda *t: torch.cat(t, 2), [rn(2, 2)], args={"dim": 2}, expect_error=True)

    c(FAM, "stack_dim0", "torch.stack", lambda *t: torch.stack(t, 0), [rn(2, 3), rn(2, 3), rn(2, 3)], args={"dim": 0})
    c(FAM, "stack_last_noncontig", "torch.stack", lambda *t: torch.stack(t, -1), [rn(3, 2), rn(3, 2)], args={"dim": -1}, permute=[[1, 0], None])
    c(FAM, "stack_mid", "torch.stack", lambda *t: torch.stack(t, 1), [rn(2, 3), rn(2, 3)], args={"dim": 1})
    c(FAM, "stack_0d_promote", "torch.stack", lambda *t: torch.stack(t, 0), [torch.tensor(1.5), torch.tensor(2)], args={"dim": 0}, grad=False)
    c(FAM, "stack_int", "torch.stack", lambda *t: torch.stack(t, 1), [ri(0, 5, 3), ri(0, 5, 3)], args={"dim": 1})
    c(FAM, "stack_err_shapes", "torch.stack", lambda *t: torch.stack(t, 0), [rn(2, 2), rn(2, 3)], args={"dim": 0}, expect_error=True)
    c(FAM, "stack_err_dim", "torch.stack", lambda *t: torch.stack(t, 3), [rn(2, 2)], args={"dim": 3}, expect_error=True)

    c(FAM, "split_size", "torch.split", lambda x: torch.split(x, 2, 0), [rn(7, 2)], args={"split_size_or_sections": 2, "dim": 0})
    c(FAM, "split_size_negdim_noncontig", "torch.split", lambda x: torch.split(x, 3, -1), [rn(2, 5)], args={"split_size_or_sections": 3, "dim": -1},
      permute=[[1, 0]])
    c(FAM, "split_sections", "torch.split", lambda x: torch.split(x, [1, 0, 3], 1), [rn(2, 4)], args={"split_size_or_sections": [1, 0, 3], "dim": 1})
    c(FAM, "split_empty", "torch.split", lambda x: torch.split(x, 2, 0), [rn(0, 3)], args={"split_size_or_sections": 2, "dim": 0}, grad=False)
    c(FAM, "split_err_sum", "torch.split", lambda x: torch.split(x, [3, 3], 0), [rn(10)], args={"split_size_or_sections": [3, 3], "dim": 0}, expect_error=True)
    c(FAM, "split_err_zero", "torch.split", lambda x: torch.split(x, 0, 0), [rn(10)], args={"split_size_or_sections": 0, "dim": 0}, expect_error=True)
    c(FAM, "chunk_uneven", "torch.chunk", lambda x: torch.chunk(x, 4, 0), [rn(10)], args={"chunks": 4, "dim": 0})
    c(FAM, "chunk_more_than_size", "torch.chunk", lambda x: torch.chunk(x, 6, 1), [rn(2, 5)], args={"chunks": 6, "dim": 1})
    c(FAM, "chunk_empty", "torch.chunk", lambda x: torch.chunk(x, 3, 0), [torch.zeros(0)], args={"chunks": 3, "dim": 0}, grad=False)
    c(FAM, "chunk_err_zero", "torch.chunk", lambda x: torch.chunk(x, 0, 0), [rn(4)], args={"chunks": 0, "dim": 0}, expect_error=True)
    c(FAM, "unbind_dim1", "torch.unbind", lambda x: torch.unbind(x, 1), [rn(2, 3)], args={"dim": 1})
    c(FAM, "unbind_negdim_noncontig", "torch.unbind", lambda x: torch.unbind(x, -1), [rn(3, 2, 2)], args={"dim": -1}, permute=[[2, 0, 1]])
    c(FAM, "unbind_err_0d", "torch.unbind", lambda x: torch.unbind(x, 0), [torch.tensor(1.0)], args={"dim": 0}, expect_error=True)


def reorder(w):
    c = w.case
    x = rn(3, 4)
    c(FAM, "flip_dims", "torch.flip", lambda x: torch.flip(x, [0, -1]), [rn(2, 3, 4)], args={"dims": [0, -1]})
    c(FAM, "flip_noncontig", "torch.flip", lambda x: torch.flip(x, [1]), [x], args={"dims": [1]}, permute=[[1, 0]])
    c(FAM, "flip_bool", "torch.flip", lambda x: torch.flip(x, [0]), [rn(3, 2) > 0], args={"dims": [0]})
    c(FAM, "flip_none", "torch.flip", lambda x: torch.flip(x, []), [x], args={"dims": []})
    c(FAM, "flip_0d", "torch.flip", lambda x: torch.flip(x, [0]), [torch.tensor(3.0, dtype=torch.float64)], args={"dims": [0]})
    c(FAM, "flip_err_dup", "torch.flip", lambda x: torch.flip(x, [0, -2]), [x], args={"dims": [0, -2]}, expect_error=True)
    c(FAM, "roll_flat", "torch.roll", lambda x: torch.roll(x, 5), [x], args={"shifts": 5, "dims": None})
    c(FAM, "roll_flat_noncontig", "torch.roll", lambda x: torch.roll(x, -2), [x], args={"shifts": -2, "dims": None}, permute=[[1, 0]])
    c(FAM, "roll_dims", "torch.roll", lambda x: torch.roll(x, (1, -5), (0, 2)), [rn(2, 3, 4)], args={"shifts": [1, -5], "dims": [0, 2]})
    c(FAM, "roll_same_dim", "torch.roll", lambda x: torch.roll(x, (1, 2), (1, 1)), [x], args={"shifts": [1, 2], "dims": [1, 1]})
    c(FAM, "roll_int", "torch.roll", lambda x: torch.roll(x, 1, 0), [ri(0, 9, 4)], args={"shifts": 1, "dims": 0})
    c(FAM, "roll_empty", "torch.roll", lambda x: torch.roll(x, 1, 0), [torch.zeros(0, 3)], args={"shifts": 1, "dims": 0}, grad=False)
    c(FAM, "roll_err_align", "torch.roll", lambda x: torch.roll(x, (1, 2), (0,)), [x], args={"shifts": [1, 2], "dims": [0]}, expect_error=True)

    c(FAM, "repeat_basic", "Tensor.repeat", lambda x: x.repeat(2, 3), [rn(2, 3)], args={"repeats": [2, 3]})
    c(FAM, "repeat_lead", "Tensor.repeat", lambda x: x.repeat(2, 1, 2), [rn(2, 3)], args={"repeats": [2, 1, 2]})
    c(FAM, "repeat_noncontig", "Tensor.repeat", lambda x: x.repeat(1, 2), [x], args={"repeats": [1, 2]}, permute=[[1, 0]])
    c(FAM, "repeat_zero", "Tensor.repeat", lambda x: x.repeat(0, 2), [x], args={"repeats": [0, 2]})
    c(FAM, "repeat_bool", "Tensor.repeat", lambda x: x.repeat(2, 1), [rn(2, 2) > 0], args={"repeats": [2, 1]})
    c(FAM, "repeat_0d", "Tensor.repeat", lambda x: x.repeat(3), [torch.tensor(1.5, dtype=torch.float64)], args={"repeats": [3]})
    c(FAM, "repeat_err_fewer", "Tensor.repeat", lambda x: x.repeat(2), [x], args={"repeats": [2]}, expect_error=True)
    c(FAM, "tile_short", "torch.tile", lambda x: torch.tile(x, (2,)), [rn(2, 3)], args={"dims": [2]})
    c(FAM, "tile_long", "torch.tile", lambda x: torch.tile(x, (2, 1, 2)), [rn(3)], args={"dims": [2, 1, 2]})

    c(FAM, "repeat_interleave_int_flat", "torch.repeat_interleave", lambda x: torch.repeat_interleave(x, 2), [x], args={"repeats": 2, "dim": None})
    c(FAM, "repeat_interleave_int_dim", "torch.repeat_interleave", lambda x: torch.repeat_interleave(x, 3, dim=1), [x], args={"repeats": 3, "dim": 1},
      permute=[[1, 0]])
    c(FAM, "repeat_interleave_tensor", "torch.repeat_interleave", lambda x, r: torch.repeat_interleave(x, r, dim=0), [x, torch.tensor([1, 0, 3])],
      args={"dim": 0})
    c(FAM, "repeat_interleave_tensor_int32", "torch.repeat_interleave", lambda x, r: torch.repeat_interleave(x, r, dim=-1), [x, torch.tensor([2, 1, 0, 1], dtype=torch.int32)],
      args={"dim": -1})
    c(FAM, "repeat_interleave_tensor_one", "torch.repeat_interleave", lambda x, r: torch.repeat_interleave(x, r, dim=0), [x, torch.tensor([2])], args={"dim": 0})
    c(FAM, "repeat_interleave_tensor_flat", "torch.repeat_interleave", lambda x, r: torch.repeat_interleave(x, r), [rn(2, 2), torch.tensor([1, 2, 0, 1])],
      args={"dim": None})
    c(FAM, "repeat_interleave_index", "torch.repeat_interleave", lambda r: torch.repeat_interleave(r), [torch.tensor([1, 0, 3, 2])], grad=False)
    c(FAM, "repeat_interleave_err_neg", "torch.repeat_interleave", lambda x, r: torch.repeat_interleave(x, r, dim=0), [x, torch.tensor([1, -1, 0])],
      args={"dim": 0}, expect_error=True)
    c(FAM, "repeat_interleave_err_size", "torch.repeat_interleave", lambda x, r: torch.repeat_interleave(x, r, dim=0), [x, torch.tensor([1, 1])],
      args={"dim": 0}, expect_error=True)


def triangles(w):
    c = w.case
    for k in (-1, 0, 2):
        c(FAM, "tril_k%d" % k, "torch.tril", (lambda k: lambda x: torch.tril(x, k))(k), [rn(3, 4)], args={"diagonal": k})
        c(FAM, "triu_k%d" % k, "torch.triu", (lambda k: lambda x: torch.triu(x, k))(k), [rn(4, 3)], args={"diagonal": k})
    c(FAM, "tril_batch_noncontig", "torch.tril", lambda x: torch.tril(x), [rn(2, 3, 3)], args={"diagonal": 0}, permute=[[0, 2, 1]])
    c(FAM, "triu_batch_big_k", "torch.triu", lambda x: torch.triu(x, -5), [rn(2, 2, 3)], args={"diagonal": -5})
    c(FAM, "tril_int", "torch.tril", lambda x: torch.tril(x, 1), [ri(0, 9, 3, 3)], args={"diagonal": 1})
    c(FAM, "triu_bool", "torch.triu", lambda x: torch.triu(x), [rn(3, 3) > -1], args={"diagonal": 0})
    c(FAM, "tril_empty", "torch.tril", lambda x: torch.tril(x), [rn(0, 3)], args={"diagonal": 0})
    c(FAM, "tril_err_1d", "torch.tril", lambda x: torch.tril(x), [rn(3)], args={"diagonal": 0}, expect_error=True)

    c(FAM, "diag_vec", "torch.diag", lambda x: torch.diag(x), [rn(3)], args={"diagonal": 0})
    c(FAM, "diag_vec_neg", "torch.diag", lambda x: torch.diag(x, -2), [rn(2)], args={"diagonal": -2})
    c(FAM, "diag_mat_pos", "torch.diag", lambda x: torch.diag(x, 1), [rn(3, 4)], args={"diagonal": 1})
    c(FAM, "diag_mat_noncontig", "torch.diag", lambda x: torch.diag(x, -1), [rn(4, 3)], args={"diagonal": -1}, permute=[[1, 0]])
    c(FAM, "diag_int", "torch.diag", lambda x: torch.diag(x), [ri(0, 9, 3, 3)], args={"diagonal": 0})
    c(FAM, "diag_err_3d", "torch.diag", lambda x: torch.diag(x), [rn(2, 2, 2)], args={"diagonal": 0}, expect_error=True)
    c(FAM, "diag_embed_default", "torch.diag_embed", lambda x: torch.diag_embed(x), [rn(2, 3)], args={"offset": 0, "dim1": -2, "dim2": -1})
    c(FAM, "diag_embed_offset_dims", "torch.diag_embed", lambda x: torch.diag_embed(x, 1, 0, 2), [rn(2, 3)], args={"offset": 1, "dim1": 0, "dim2": 2})
    c(FAM, "diag_embed_neg_swapped", "torch.diag_embed", lambda x: torch.diag_embed(x, -1, 2, 0), [rn(3, 2)], args={"offset": -1, "dim1": 2, "dim2": 0},
      permute=[[1, 0]])
    c(FAM, "diag_embed_err_same", "torch.diag_embed", lambda x: torch.diag_embed(x, 0, 1, 1), [rn(2, 3)], args={"offset": 0, "dim1": 1, "dim2": 1},
      expect_error=True)

    c(FAM, "one_hot_infer", "torch.nn.functional.one_hot", lambda x: F.one_hot(x), [torch.tensor([[1, 0], [3, 1]])], args={"num_classes": -1})
    c(FAM, "one_hot_classes", "torch.nn.functional.one_hot", lambda x: F.one_hot(x, 5), [torch.tensor([2, 0, 4])], args={"num_classes": 5})
    c(FAM, "one_hot_0d", "torch.nn.functional.one_hot", lambda x: F.one_hot(x, 3), [torch.tensor(1)], args={"num_classes": 3})
    c(FAM, "one_hot_empty", "torch.nn.functional.one_hot", lambda x: F.one_hot(x, 3), [torch.zeros(0, dtype=L)], args={"num_classes": 3})
    c(FAM, "one_hot_err_float", "torch.nn.functional.one_hot", lambda x: F.one_hot(x), [torch.tensor([1.0])], args={"num_classes": -1}, expect_error=True)
    c(FAM, "one_hot_err_neg", "torch.nn.functional.one_hot", lambda x: F.one_hot(x), [torch.tensor([1, -1])], args={"num_classes": -1}, expect_error=True)
    c(FAM, "one_hot_err_big", "torch.nn.functional.one_hot", lambda x: F.one_hot(x, 2), [torch.tensor([2])], args={"num_classes": 2}, expect_error=True)
    c(FAM, "one_hot_err_empty", "torch.nn.functional.one_hot", lambda x: F.one_hot(x), [torch.zeros(0, dtype=L)], args={"num_classes": -1}, expect_error=True)


def padding(w):
    c = w.case

    def pf(pad, mode="constant", value=None):
        if value is None:
            return lambda x: F.pad(x, pad, mode)
        return lambda x: F.pad(x, pad, mode, value)

    def args(pad, mode="constant", value=0.0):
        return {"pad": pad, "mode": mode, "value": value}

    c(FAM, "pad_const_1d", "torch.nn.functional.pad", pf([1, 2], value=-1.0), [rn(2, 3)], args=args([1, 2], value=-1.0))
    c(FAM, "pad_const_3dims", "torch.nn.functional.pad", pf([1, 0, 0, 2, 1, 1]), [rn(2, 2, 3)], args=args([1, 0, 0, 2, 1, 1]))
    c(FAM, "pad_const_negative", "torch.nn.functional.pad", pf([-1, 1, 2, -1]), [rn(3, 4)], args=args([-1, 1, 2, -1]))
    c(FAM, "pad_const_noncontig", "torch.nn.functional.pad", pf([2, 1]), [rn(3, 4)], args=args([2, 1]), permute=[[1, 0]])
    c(FAM, "pad_const_int", "torch.nn.functional.pad", pf([1, 1], value=2.5), [ri(0, 9, 2, 2)], args=args([1, 1], value=2.5))
    c(FAM, "pad_const_bool", "torch.nn.functional.pad", pf([1, 0], value=1), [rn(2, 2) > 0], args=args([1, 0], value=1))
    c(FAM, "pad_const_empty", "torch.nn.functional.pad", pf([1, 1]), [rn(2, 0)], args=args([1, 1]))
    c(FAM, "pad_const_f16", "torch.nn.functional.pad", pf([1, 1], value=3.5), [rn(2, 2, dtype=torch.float16)], args=args([1, 1], value=3.5), grad=False,
      optional=True)
    for mode in ("reflect", "replicate", "circular"):
        c(FAM, "pad_%s_1d" % mode, "torch.nn.functional.pad", pf([2, 1], mode), [rn(2, 3, 5)], args=args([2, 1], mode))
        c(FAM, "pad_%s_2d" % mode, "torch.nn.functional.pad", pf([1, 2, 2, 0], mode), [rn(1, 2, 3, 4)], args=args([1, 2, 2, 0], mode))
        c(FAM, "pad_%s_3d" % mode, "torch.nn.functional.pad", pf([1, 0, 0, 1, 1, 1], mode), [rn(1, 1, 2, 3, 3)], args=args([1, 0, 0, 1, 1, 1], mode))
        c(FAM, "pad_%s_noncontig" % mode, "torch.nn.functional.pad", pf([1, 1], mode), [rn(2, 3, 4)], args=args([1, 1], mode), permute=[[0, 2, 1]])
        c(FAM, "pad_%s_negative" % mode, "torch.nn.functional.pad", pf([-1, 2], mode), [rn(1, 2, 4)], args=args([-1, 2], mode))
        c(FAM, "pad_%s_empty_batch" % mode, "torch.nn.functional.pad", pf([1, 1], mode), [rn(0, 2, 3)], args=args([1, 1], mode))
    c(FAM, "pad_reflect_nobatch", "torch.nn.functional.pad", pf([1, 1], "reflect"), [rn(3, 4)], args=args([1, 1], "reflect"))
    c(FAM, "pad_replicate_2d_nobatch", "torch.nn.functional.pad", pf([2, 2, 1, 3], "replicate"), [rn(2, 3, 2)], args=args([2, 2, 1, 3], "replicate"))
    c(FAM, "pad_reflect_f32", "torch.nn.functional.pad", pf([3, 3], "reflect"), [rn(1, 2, 4, dtype=torch.float32)], args=args([3, 3], "reflect"))
    c(FAM, "pad_circular_int", "torch.nn.functional.pad", pf([1, 2], "circular"), [ri(0, 9, 1, 1, 4)], args=args([1, 2], "circular"))
    c(FAM, "pad_err_odd", "torch.nn.functional.pad", pf([1, 1, 1]), [rn(2, 3)], args=args([1, 1, 1]), expect_error=True)
    c(FAM, "pad_err_too_long", "torch.nn.functional.pad", pf([1] * 6), [rn(2, 3)], args=args([1] * 6), expect_error=True)
    c(FAM, "pad_err_reflect_big", "torch.nn.functional.pad", pf([4, 0], "reflect"), [rn(1, 3, 4)], args=args([4, 0], "reflect"), expect_error=True)
    c(FAM, "pad_err_reflect_dims", "torch.nn.functional.pad", pf([1, 1], "reflect"), [rn(3)], args=args([1, 1], "reflect"), expect_error=True)
    c(FAM, "pad_err_reflect_int", "torch.nn.functional.pad", pf([1, 1], "reflect"), [ri(0, 9, 1, 3)], args=args([1, 1], "reflect"), expect_error=True)
    c(FAM, "pad_err_circular_wrap", "torch.nn.functional.pad", pf([5, 0], "circular"), [rn(1, 1, 4)], args=args([5, 0], "circular"), expect_error=True)
    c(FAM, "pad_err_mode", "torch.nn.functional.pad", pf([1, 1], "foo"), [rn(1, 3)], args=args([1, 1], "foo"), expect_error=True)
    c(FAM, "pad_err_value", "torch.nn.functional.pad", pf([1, 1], "reflect", 2.0), [rn(1, 3)], args=args([1, 1], "reflect", 2.0), expect_error=True)
    c(FAM, "pad_err_negative", "torch.nn.functional.pad", pf([2, -7]), [rn(2, 4)], args=args([2, -7]), expect_error=True)


def generate(w):
    torch.manual_seed(0)
    gather_scatter(w)
    index_ops(w)
    advanced(w)
    joining(w)
    reorder(w)
    triangles(w)
    padding(w)
