"""Differential tests: attention rules against PyTorch (meta device; CPU for in-place mask semantics)."""
import random

import pytest
import torch
import torch.nn.functional as F

from shapehint.ops.concrete import ConcreteContext, OpFailed, build_module, call_module
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import NoneV, TensorV

from .diff import T
from .test_conv import _cpu, cpu_check, cpu_check_module


def _batch(r, n):
    return [r.choice([1, 2, 3]) for _ in range(n)]


@pytest.mark.parametrize("k", range(40))
def test_sdpa(k):
    r = random.Random(k)
    nb = r.randint(0, 2)
    qb = _batch(r, nb)
    kb = qb[r.randint(0, nb):] if r.random() < 0.7 else _batch(r, r.randint(0, 2))
    vb = kb if r.random() < 0.8 else _batch(r, r.randint(0, 2))
    L, S, E, Ev = r.randint(1, 4), r.randint(1, 4), r.randint(1, 4), r.randint(1, 4)
    q = T(*qb, L, E)
    key = T(*kb, S, E if r.random() < 0.85 else E + 1)
    v = T(*vb, S if r.random() < 0.85 else S + 1, Ev)
    kw = {}
    if r.random() < 0.4:
        kw["attn_mask"] = r.choice([T(L, S), T(1, S), T(S), T(*qb, L, S), T(2, 1, L, S), T(L + 1, S)])
        kw["is_causal"] = r.random() < 0.1
    elif r.random() < 0.2:
        kw["is_causal"] = True
    cpu_check("torch.nn.functional.scaled_dot_product_attention", F.scaled_dot_product_attention, (q, key, v), kw)


@pytest.mark.parametrize("hk", [1, 2, 3, 4])
def test_sdpa_gqa(hk):
    cpu_check("torch.nn.functional.scaled_dot_product_attention", F.scaled_dot_product_attention,
              (T(2, 4, 3, 8), T(2, hk, 5, 8), T(2, hk, 5, 6)), {"enable_gqa": True})


def _mha_case(k):
    r = random.Random(100 + k)
    H = r.choice([1, 2, 4])
    E = H * r.randint(1, 3)
    kw = {"batch_first": r.random() < 0.5, "add_bias_kv": r.random() < 0.2, "add_zero_attn": r.random() < 0.2}
    kdim = vdim = E
    if r.random() < 0.3:
        kdim, vdim = r.randint(1, 5), r.randint(1, 5)
        kw.update(kdim=kdim, vdim=vdim)
    L, S, N = r.randint(1, 4), r.randint(1, 4), r.randint(1, 3)
    batched = r.random() < 0.75

    def seq(n, f):
        if not batched:
            return T(n, f)
        return T(N, n, f) if kw["batch_first"] else T(n, N, f)
    q = seq(L, E if r.random() < 0.9 else E + 1)
    key = seq(S, kdim)
    v = seq(S if r.random() < 0.9 else S + 1, vdim)
    fkw = {"need_weights": r.random() < 0.7, "average_attn_weights": r.random() < 0.5}
    if r.random() < 0.3:
        fkw["attn_mask"] = r.choice([T(L, S), T(L, S + 1), T((N if batched else 1) * H, L, S)])
    if r.random() < 0.2:
        fkw["key_padding_mask"] = T(N, S, dtype="bool") if batched else T(S, dtype="bool")
    return r, (E, H), kw, (q, key, v), fkw


@pytest.mark.parametrize("k", range(40))
def test_mha(k):
    r, ctor, kw, args, fkw = _mha_case(k)
    cpu_check_module("torch.nn.MultiheadAttention", torch.nn.MultiheadAttention, ctor, kw, args, fkw)


@pytest.mark.parametrize("k", range(16))
def test_transformer_layers(k):
    r = random.Random(300 + k)
    H = r.choice([1, 2])
    D = H * r.randint(1, 3)
    bf = r.random() < 0.5
    N, L, S = r.randint(1, 3), r.randint(1, 3), r.randint(1, 3)
    x = r.choice([T(N, L, D) if bf else T(L, N, D), T(L, D), T(L, N, D + 1)])
    kw = {"dim_feedforward": 8, "batch_first": bf, "dropout": 0.0}
    if r.random() < 0.5:
        mask = r.choice([None, T(L, L), T(L, L + 1)])
        cpu_check_module("torch.nn.TransformerEncoderLayer", torch.nn.TransformerEncoderLayer, (D, H), kw, (x,),
                     {"src_mask": mask})
    else:
        mem = r.choice([T(N, S, D) if bf else T(S, N, D), T(S, D), T(S, N + 1, D) if not bf else T(N + 1, S, D)])
        cpu_check_module("torch.nn.TransformerDecoderLayer", torch.nn.TransformerDecoderLayer, (D, H), kw, (x, mem))


@pytest.mark.parametrize("shape", [(5, 2, 8), (5, 2, 6), (5, 8), (2, 5, 8, 1)])
def test_transformer_encoder(shape):
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16)
    enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    want = _cpu(enc, (T(*shape),), {})
    m = build_module("torch.nn.TransformerEncoder", build_module("torch.nn.TransformerEncoderLayer", 8, 2, 16), 2)
    try:
        got = ("ok", tuple(d.value for d in call_module(ConcreteContext("enc"), m, [T(*shape).abstract()], {}).shape.dims))
    except OpFailed as e:
        got = ("error", e.message)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), (want, got)


@pytest.mark.parametrize("src,tgt", [((4, 2, 8), (3, 2, 8)), ((4, 2, 8), (3, 3, 8)), ((4, 2, 8), (3, 2, 6)),
                                     ((4, 8), (3, 8))])
def test_transformer(src, tgt):
    cpu_check_module("torch.nn.Transformer", torch.nn.Transformer, (),
                 {"d_model": 8, "nhead": 2, "num_encoder_layers": 1, "num_decoder_layers": 1, "dim_feedforward": 8},
                 (T(*src), T(*tgt)))


def test_mha_ctor_divisibility():
    with pytest.raises(AssertionError):
        torch.nn.MultiheadAttention(10, 3)
    with pytest.raises(OpFailed):
        build_module("torch.nn.MultiheadAttention", 10, 3)


def test_symbolic_attention():
    B, L, S = Expr.sym("B"), Expr.sym("L"), Expr.sym("S")
    m = build_module("torch.nn.MultiheadAttention", 64, 8, batch_first=True)
    out = call_module(ConcreteContext("mha"), m, [TensorV(Shape.of([B, L, 64])), TensorV(Shape.of([B, S, 64])),
                                                  TensorV(Shape.of([B, S, 64]))], {})
    assert str(out.items[0].shape) == "[B, L, 64]" and str(out.items[1].shape) == "[B, L, S]"
    out = call_module(ConcreteContext("mha"), m, [TensorV(Shape.of([B, L, 64]))] * 3, {"need_weights": False})
    assert isinstance(out.items[1], NoneV)
    from shapehint.ops.concrete import apply
    y = apply("torch.nn.functional.scaled_dot_product_attention", TensorV(Shape.of([B, 8, L, 16])),
              TensorV(Shape.of([B, 8, S, 16])), TensorV(Shape.of([B, 8, S, 32])))
    assert str(y.shape) == "[B, 8, L, 32]"
