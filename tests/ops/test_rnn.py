"""Differential tests: recurrent layers against PyTorch on the meta device."""
import random

import pytest
import torch

from shapehint.ops.concrete import ConcreteContext, OpFailed, build_module, call_module
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import TensorV, TupleV

from .diff import T, check_module


def _case(k):
    r = random.Random(k)
    kind = r.choice(["RNN", "GRU", "LSTM"])
    fin, h = r.randint(1, 5), r.randint(2, 6)
    kw = {"num_layers": r.randint(1, 3), "batch_first": r.random() < 0.5, "bidirectional": r.random() < 0.5}
    if kind == "LSTM" and r.random() < 0.4:
        kw["proj_size"] = r.randint(1, h - 1)
    L, N = r.randint(1, 4), r.randint(1, 3)
    feat = fin if r.random() < 0.8 else fin + 1
    rank = r.choice([3, 3, 2, 2, 4])
    if rank == 3:
        x = T(N, L, feat) if kw["batch_first"] else T(L, N, feat)
    elif rank == 2:
        x = T(L, feat)
    else:
        x = T(1, L, N, feat)
    return r, kind, fin, h, kw, x, N, rank


@pytest.mark.parametrize("k", range(30))
def test_rnn_no_state(k):
    r, kind, fin, h, kw, x, N, rank = _case(k)
    check_module(f"torch.nn.{kind}", getattr(torch.nn, kind), (fin, h), kw, (x,))


@pytest.mark.parametrize("k", range(30))
def test_rnn_with_state(k):
    r, kind, fin, h, kw, x, N, rank = _case(500 + k)
    D = 2 if kw["bidirectional"] else 1
    hout = kw.get("proj_size", h)
    lead = kw["num_layers"] * D + (1 if r.random() < 0.15 else 0)
    nb = (N + (1 if r.random() < 0.15 else 0),) if rank == 3 or r.random() < 0.1 else ()
    h0 = T(lead, *nb, hout + (1 if r.random() < 0.1 else 0))
    c0 = T(lead, *nb, h)
    hx = (h0, c0) if kind == "LSTM" else h0
    check_module(f"torch.nn.{kind}", getattr(torch.nn, kind), (fin, h), kw, (x, hx))


@pytest.mark.parametrize("ctor", [
    ("LSTM", (4, 8), {"proj_size": 8}), ("LSTM", (4, 8), {"proj_size": -1}), ("GRU", (4, 0), {}),
    ("RNN", (4, 8), {"nonlinearity": "gelu"}), ("RNN", (4, 8), {"num_layers": 0}), ("GRU", (4, 8), {"dropout": 1.5}),
])
def test_rnn_ctor_errors(ctor):
    kind, a, kw = ctor
    check_module(f"torch.nn.{kind}", getattr(torch.nn, kind), a, kw, (T(3, 2, 4),))


@pytest.mark.parametrize("k", range(20))
def test_cells(k):
    r = random.Random(900 + k)
    kind = r.choice(["RNNCell", "GRUCell", "LSTMCell"])
    fin, h, n = r.randint(1, 5), r.randint(1, 5), r.randint(1, 3)
    x = r.choice([T(n, fin), T(fin), T(n, fin + 1), T(1, n, fin)])
    hx = None
    if r.random() < 0.5:
        hd = (n, h) if len(x.dims) != 1 else (h,)
        if r.random() < 0.3:
            hd = (n + 1, h)
        hx = (T(*hd), T(*hd)) if kind == "LSTMCell" else T(*hd)
    check_module(f"torch.nn.{kind}", getattr(torch.nn, kind), (fin, h), {}, (x, hx))


def test_symbolic_lstm():
    m = build_module("torch.nn.LSTM", 32, 64, num_layers=2, batch_first=True, bidirectional=True)
    B, L = Expr.sym("B"), Expr.sym("L")
    out = call_module(ConcreteContext("lstm"), m, [TensorV(Shape.of([B, L, 32]))], {})
    assert isinstance(out, TupleV)
    assert str(out.items[0].shape) == "[B, L, 128]"
    assert str(out.items[1].items[0].shape) == "[4, B, 64]"
    with pytest.raises(OpFailed) as e:
        call_module(ConcreteContext("nn.LSTM(32, 64)"), m, [TensorV(Shape.of([B, L, 16]))], {})
    assert "input_size 32" in e.value.message
