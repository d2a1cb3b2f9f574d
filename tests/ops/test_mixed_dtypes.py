"""Mixed dtypes against PyTorch: every rule with a dtype precondition, and the type promotion of
the ops that combine operands, over int64, float32, bool and float16 (plus int32 for indices).

PyTorch runs on small CPU tensors: the meta kernels skip most dtype checks (`matmul(int64,
float32)` passes on meta). A failure that only says a kernel is missing for a dtype on this
backend ("not implemented for 'Half'") is a backend limitation, not a shape/dtype rule: the rule
may accept such a call (CUDA has the kernel), and when it does its shape and dtype must be right.
"""
import itertools

import pytest
import torch
import torch.nn.functional as F

from tests.ops.diff import T, check_module, run_rule, run_torch

MIX = ("long", "float", "bool", "half")
PAIRS = list(itertools.product(MIX, repeat=2))
INDEX = MIX + ("int",)


# errors of this CPU backend or of the zeros the tensors hold, not of the dtypes as such
NOT_DTYPE_RULES = ("not implemented for", "Unsupported dtype", "ZeroDivisionError")


def _same(want, got) -> bool:
    """Equal, where a data-dependent size (a symbol in the rule's shape) matches any int."""
    if isinstance(want, tuple) and isinstance(got, tuple) and len(want) == len(got):
        return all(_same(w, g) for w, g in zip(want, got))
    return want == got or (isinstance(got, str) and got.startswith("n_") and isinstance(want, int))


def agree(name, fn, args, kwargs=None):
    kwargs = kwargs or {}
    want = run_torch(fn, args, kwargs, "cpu", dtype=True)
    got = run_rule(name, args, kwargs, dtype=True)
    not_dtype = want[0] == "error" and any(m in want[1] for m in NOT_DTYPE_RULES)
    if not_dtype and got[0] == "error":
        return
    if not_dtype:
        want = run_torch(fn, args, kwargs, "meta", dtype=True)
        if want[0] == "error":
            return  # no kernel anywhere we can run: the rule may accept it (no claim to check)
    assert want[0] == got[0] and (want[0] == "error" or _same(want[1], got[1])), \
        f"{name}{args}{kwargs}: torch={want} rule={got}"


# ---- matrix products: operands of one dtype (outer promotes) ---------------------------------

@pytest.mark.parametrize("a,b", PAIRS)
def test_matmul_family(a, b):
    agree("torch.matmul", torch.matmul, (T(2, 3, dtype=a), T(3, 4, dtype=b)))
    agree("torch.matmul", torch.matmul, (T(3, dtype=a), T(3, dtype=b)))
    agree("torch.matmul", torch.matmul, (T(2, 2, 3, dtype=a), T(3, 4, dtype=b)))
    agree("Tensor.__matmul__", torch.Tensor.__matmul__, (T(2, 3, dtype=a), T(3, dtype=b)))
    agree("torch.mm", torch.mm, (T(2, 3, dtype=a), T(3, 4, dtype=b)))
    agree("torch.bmm", torch.bmm, (T(2, 2, 3, dtype=a), T(2, 3, 4, dtype=b)))
    agree("torch.mv", torch.mv, (T(2, 3, dtype=a), T(3, dtype=b)))
    agree("torch.dot", torch.dot, (T(3, dtype=a), T(3, dtype=b)))
    agree("torch.outer", torch.outer, (T(3, dtype=a), T(4, dtype=b)))
    agree("torch.ger", torch.ger, (T(3, dtype=a), T(4, dtype=b)))
    agree("torch.addmm", torch.addmm, (T(4, dtype="float"), T(2, 3, dtype=a), T(3, 4, dtype=b)))
    agree("torch.addmv", torch.addmv, (T(2, dtype="float"), T(2, 3, dtype=a), T(3, dtype=b)))
    agree("torch.baddbmm", torch.baddbmm, (T(2, 2, 4, dtype="float"), T(2, 2, 3, dtype=a), T(2, 3, 4, dtype=b)))


def test_outer_of_positions_and_frequencies():
    # the rotary-embedding pattern: int64 positions times float32 inverse frequencies
    agree("torch.outer", torch.outer, (T(8, dtype="long"), T(4)))


# ---- complex construction ---------------------------------------------------------------------

@pytest.mark.parametrize("a,b", PAIRS + [("double", "float"), ("double", "double")])
def test_complex_and_polar(a, b):
    agree("torch.complex", torch.complex, (T(2, 3, dtype=a), T(3, dtype=b)))
    agree("torch.polar", torch.polar, (T(2, 3, dtype=a), T(3, dtype=b)))


@pytest.mark.parametrize("a", MIX + ("cfloat", "double"))
def test_views_between_real_and_complex(a):
    agree("torch.view_as_real", torch.view_as_real, (T(2, 3, dtype=a),))
    agree("torch.view_as_complex", torch.view_as_complex, (T(3, 2, dtype=a),))


@pytest.mark.parametrize("a", MIX + ("cfloat",))
def test_real_fft_needs_a_real_input(a):
    agree("torch.fft.rfft", torch.fft.rfft, (T(2, 8, dtype=a),))
    agree("torch.fft.fft", torch.fft.fft, (T(2, 8, dtype=a),))


# ---- index and mask dtypes ----------------------------------------------------------------------

@pytest.mark.parametrize("w,i", list(itertools.product(MIX, INDEX)))
def test_embedding_indices(w, i):
    agree("torch.nn.functional.embedding", F.embedding, (T(2, 3, dtype=i), T(5, 4, dtype=w)))


@pytest.mark.parametrize("i", INDEX)
def test_embedding_layer_and_bag_indices(i):
    check_module("torch.nn.Embedding", torch.nn.Embedding, (5, 4), args=(T(2, 3, dtype=i),), device="cpu", dtype=True)
    check_module("torch.nn.EmbeddingBag", torch.nn.EmbeddingBag, (5, 4), args=(T(2, 3, dtype=i),), device="cpu",
                 dtype=True)
    agree("torch.nn.functional.one_hot", F.one_hot, (T(2, 3, dtype=i), 4))


@pytest.mark.parametrize("x,i", list(itertools.product(MIX, INDEX)))
def test_gather_scatter_and_index_ops(x, i):
    agree("torch.gather", torch.gather, (T(3, 4, dtype=x), 1, T(3, 2, dtype=i)))
    agree("torch.take_along_dim", torch.take_along_dim, (T(3, 4, dtype=x), T(3, 2, dtype=i), 1))
    agree("torch.take_along_dim", torch.take_along_dim, (T(3, 4, dtype=x), T(5, dtype=i)))
    agree("torch.index_select", torch.index_select, (T(3, 4, dtype=x), 0, T(2, dtype=i)))
    agree("torch.scatter", torch.scatter, (T(3, 4, dtype=x), 1, T(3, 2, dtype=i), T(3, 2, dtype=x)))
    agree("torch.scatter_add", torch.scatter_add, (T(3, 4, dtype=x), 1, T(3, 2, dtype=i), T(3, 2, dtype=x)))
    agree("torch.index_add", torch.index_add, (T(3, 4, dtype=x), 0, T(2, dtype=i), T(2, 4, dtype=x)))
    agree("torch.index_copy", torch.index_copy, (T(3, 4, dtype=x), 0, T(2, dtype=i), T(2, 4, dtype=x)))
    agree("torch.index_fill", torch.index_fill, (T(3, 4, dtype=x), 0, T(2, dtype=i), 0))


@pytest.mark.parametrize("x,m", PAIRS)
def test_masks(x, m):
    agree("torch.masked_select", torch.masked_select, (T(3, 4, dtype=x), T(3, 4, dtype=m)))


# ---- float-only reductions and softmax ------------------------------------------------------------

@pytest.mark.parametrize("a", MIX + ("double",))
def test_float_only_ops(a):
    for name in ("mean", "var", "std"):
        agree(f"torch.{name}", getattr(torch, name), (T(2, 3, dtype=a), 1))
    for name in ("softmax", "log_softmax"):
        agree(f"torch.nn.functional.{name}", getattr(F, name), (T(2, 3, dtype=a), -1))
        agree(f"torch.nn.functional.{name}", getattr(F, name), (T(2, 3, dtype=a), -1), {"dtype": torch.float32})
    agree("torch.mean", torch.mean, (T(2, 3, dtype=a),), {"dtype": torch.float32})


# ---- losses: class-index vs probability targets ---------------------------------------------------

@pytest.mark.parametrize("x,t", list(itertools.product(("float", "half", "double"), INDEX)))
def test_loss_targets(x, t):
    agree("torch.nn.functional.cross_entropy", F.cross_entropy, (T(2, 5, dtype=x), T(2, dtype=t)))
    agree("torch.nn.functional.cross_entropy", F.cross_entropy, (T(2, 5, dtype=x), T(2, 5, dtype=t)))
    agree("torch.nn.functional.nll_loss", F.nll_loss, (T(2, 5, dtype=x), T(2, dtype=t)))


# ---- pointwise: promotion ------------------------------------------------------------------------

@pytest.mark.parametrize("a,b,c", list(itertools.product(MIX, repeat=3)))
def test_addcdiv_addcmul(a, b, c):
    agree("torch.addcdiv", torch.addcdiv, (T(2, 3, dtype=a), T(3, dtype=b), T(2, 3, dtype=c)))
    agree("torch.addcmul", torch.addcmul, (T(2, 3, dtype=a), T(3, dtype=b), T(2, 3, dtype=c)))


BINARY = ("add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "float_power", "maximum", "atan2",
          "eq", "lt", "logical_and", "bitwise_and")
TENSORS = [T(2, 3, dtype=d) for d in MIX] + [T(dtype=d) for d in MIX]
SCALARS = [2, 0.5, True]
TENSOR_ONLY = {"maximum", "atan2", "logical_and"}  # PyTorch takes no Python scalar there


@pytest.mark.parametrize("name", BINARY)
def test_binary_promotion(name):
    fn = getattr(torch, name)
    for a, b in itertools.product(TENSORS, TENSORS + ([] if name in TENSOR_ONLY else SCALARS)):
        agree(f"torch.{name}", fn, (a, b))
    # a Python scalar on the left: the reflected operator
    for op in ("__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rpow__"):
        for a, b in itertools.product(TENSORS, SCALARS):
            agree(f"Tensor.{op}", getattr(torch.Tensor, op), (a, b))


def test_true_division_and_rounding_modes():
    agree("torch.div", torch.div, (T(3, dtype="long"), 2))
    agree("torch.div", torch.div, (T(3, dtype="long"), 2), {"rounding_mode": "floor"})
    agree("Tensor.__truediv__", torch.Tensor.__truediv__, (T(3, dtype="long"), T(3, dtype="long")))
    agree("Tensor.__rtruediv__", torch.Tensor.__rtruediv__, (T(3, dtype="long"), 1.0))
    agree("Tensor.__and__", torch.Tensor.__and__, (T(3, dtype="bool"), T(3, dtype="int")))


@pytest.mark.parametrize("a,b", PAIRS)
def test_in_place_keeps_self_dtype(a, b):
    agree("Tensor.add_", torch.Tensor.add_, (T(2, 3, dtype=a), T(3, dtype=b)))
    agree("Tensor.__imul__", torch.Tensor.__imul__, (T(2, 3, dtype=a), T(3, dtype=b)))


UNARY = ("sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "sin", "erf", "reciprocal", "abs", "neg", "floor",
         "square", "cumsum")


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("a", MIX)
def test_unary_result_dtype(name, a):
    args = (T(2, 3, dtype=a), 1) if name == "cumsum" else (T(2, 3, dtype=a),)
    agree(f"torch.{name}", getattr(torch, name), args)


@pytest.mark.parametrize("a,b", PAIRS)
def test_where_and_joins(a, b):
    agree("torch.where", torch.where, (T(2, 3, dtype="bool"), T(2, 3, dtype=a), T(3, dtype=b)))
    agree("torch.where", torch.where, (T(2, 3, dtype="bool"), T(2, 3, dtype=a), 0.5))
    agree("torch.cat", torch.cat, ([T(2, 3, dtype=a), T(1, 3, dtype=b)],))
    agree("torch.stack", torch.stack, ([T(2, 3, dtype=a), T(2, 3, dtype=b)],))
