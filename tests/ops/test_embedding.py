"""Differential tests: embedding rules against PyTorch on the meta device."""
import random

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, OpFailed, apply, build_module, call_module
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV

from .diff import T, check, check_module


def asserting(fn):
    """PyTorch states some of these preconditions with `assert`: count them as rejections."""
    def run(*a, **k):
        try:
            return fn(*a, **k)
        except AssertionError as e:
            raise RuntimeError(str(e))
    return run


def _idx(r, lo=0, hi=3):
    return T(*[r.randint(1, 4) for _ in range(r.randint(lo, hi))], dtype=r.choice(["long", "long", "int", "float"]))


@pytest.mark.parametrize("k", range(20))
def test_embedding_functional(k):
    r = random.Random(k)
    w = r.choice([T(10, 4), T(10, 4), T(10), T(2, 3, 4)])
    check("torch.nn.functional.embedding", asserting(F.embedding), (_idx(r), w))


@pytest.mark.parametrize("k", range(15))
def test_embedding_layer(k):
    r = random.Random(100 + k)
    check_module("torch.nn.Embedding", torch.nn.Embedding, (10, r.randint(1, 8)),
                 {"padding_idx": r.choice([None, 0, -1, 9])}, (_idx(r),))


@pytest.mark.parametrize("k", range(25))
def test_embedding_bag(k):
    r = random.Random(200 + k)
    x = T(*[r.randint(1, 4) for _ in range(r.choice([1, 1, 2, 2, 3]))], dtype=r.choice(["long", "long", "float"]))
    good = None if len(x.dims) == 2 else T(r.randint(1, 3), dtype="long")
    offs = good if r.random() < 0.7 else r.choice([None, T(r.randint(1, 3), dtype="long"), T(2, 2, dtype="long")])
    kw = {"mode": r.choice(["sum", "mean", "max"]), "include_last_offset": r.random() < 0.3}
    psw = r.choice([None, None, None, T(*x.dims), T(*x.dims, 1)])
    if r.random() < 0.5:
        check("torch.nn.functional.embedding_bag", F.embedding_bag, (x, T(10, 3), offs),
              dict(kw, per_sample_weights=psw))
    else:
        check_module("torch.nn.EmbeddingBag", torch.nn.EmbeddingBag, (10, 3), kw, (x, offs),
                     {"per_sample_weights": psw})


@pytest.mark.parametrize("k", range(12))
def test_one_hot(k):
    r = random.Random(300 + k)
    x = T(*[r.randint(1, 4) for _ in range(r.randint(0, 3))], dtype=r.choice(["long", "long", "int"]))
    check("torch.nn.functional.one_hot", F.one_hot, (x, r.choice([1, 5, 10, -2])))


def test_one_hot_data_dependent():
    out = apply("torch.nn.functional.one_hot", TensorV(Shape.of([Expr.sym("B"), 7]), "int64"))
    assert str(out.shape).startswith("[B, 7, num_classes")


def test_symbolic_embedding():
    m = build_module("torch.nn.Embedding", 50257, 768)
    out = call_module(ConcreteContext("wte"), m, [TensorV(Shape.of([Expr.sym("B"), Expr.sym("T")]), "int64")], {})
    assert str(out.shape) == "[B, T, 768]"
    with pytest.raises(OpFailed) as e:
        call_module(ConcreteContext("nn.Embedding(50257, 768)"), m, [TensorV(Shape.of([Expr.sym("B")]), "float32")],
                    {})
    assert "integer" in e.value.message and e.value.code == "SH107"


def test_padding_idx_out_of_range():
    with pytest.raises(AssertionError):
        torch.nn.Embedding(10, 3, padding_idx=10)
    with pytest.raises(OpFailed):
        build_module("torch.nn.Embedding", 10, 3, padding_idx=10)


@pytest.mark.parametrize("idx,offs", [((8,), (2,)), ((2, 4), None), ((8,), None), ((3, 2, 2), None)])
def test_embedding_bag_old_argument_order(idx, offs):
    """`F.embedding_bag(weight, input, ...)`: PyTorch swaps them back (with a deprecation
    warning) when the weight is floating point and the indices are int64."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check("torch.nn.functional.embedding_bag", F.embedding_bag,
              (T(10, 3), T(*idx, dtype="long"), T(*offs, dtype="long") if offs else None))


def test_embedding_bag_order_unknown_when_the_first_dtype_is():
    """int64 indices second and a first argument of unknown dtype: PyTorch swaps only for a
    floating-point one, so neither order can be taken (no error, no shape)."""
    from shapehint.ops.context import NotApplicable
    with pytest.raises(NotApplicable):
        apply("torch.nn.functional.embedding_bag", TensorV(Shape.of([10, 3]), None),
              TensorV(Shape.of([8]), "int64"), TensorV(Shape.of([2]), "int64"))


BAGS = '''import torch
import torch.nn as nn


class Bags(nn.Module):
    def __init__(self):
        super().__init__()
        self.em = nn.EmbeddingBag(10, 3)

    def forward(self, input):
        return self.em(input, offsets=torch.LongTensor(range(input.shape[0])))
'''


def test_an_input_of_unknown_rank_takes_the_rank_the_offsets_ask_for():
    """With offsets given the input must be 1-D: taking rank 2 (the other choice) made a false
    "offsets must be None" error in torch's own rpc tests."""
    from shapehint.analysis.api import analyze_session, analyze_source
    from shapehint.questions.migrate import migrate_function
    result = analyze_session(BAGS, "bags.py")
    assert [d.code for d in result.result.diagnostics if d.severity == "error"] == []
    m = migrate_function(result, "Bags.forward")
    assert m["status"] == "static" and len(m["params"][0]["shape"]) == 1
    ns: dict = {}
    exec(compile(BAGS, "bags.py", "exec"), ns)
    out = ns["Bags"]()(torch.zeros(m["params"][0]["shape"], dtype=torch.long))
    assert list(out.shape) == [m["params"][0]["shape"][0], 3]
