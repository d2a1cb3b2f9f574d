"""The flattened leading axes of a parameter of unknown rank, named so a reader can evaluate them
(analysis/product_names.py).

`x.view(-1, x.size(-1))` of an unannotated `x` has one size for all its leading axes, whatever
their number: it used to be shown as `?`; it is `x.shape[:-1].numel()`, torch's own value for
every rank (1 for a 1-D `x`). Every shape claimed is evaluated against torch (meta tensors) for
ranks 1 to 4, wherever the function runs."""
import math

import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
from torch import nn


def never(x):
    y = x.view(-1, x.size(-1))
    return y


def front_first(x):
    n = x.shape[0]
    y = x.reshape(-1, x.shape[-1])
    return y


def against_first(x):
    s = x.size()
    y = x.view(-1, s[-1])
    a = torch.zeros(s[0], s[-1], device=x.device)
    z = y + a
    return z


def two_last(x):
    y = x.reshape(-1, x.shape[-2], x.shape[-1])
    return y


class Flat(nn.Module):
    def forward(self, ids):
        flat = ids.view(-1, ids.size(-1))
        return flat


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.flat = Flat()

    def forward(self, input_ids):
        out = self.flat(input_ids)
        return out


def in_arm(x):
    if x.dim() == 3:
        y = x.view(-1, x.size(-1))
    else:
        y = x
    return y
'''

LINES = {k + 1: ln.strip() for k, ln in enumerate(PROGRAM.splitlines())}
SIZES = [(5,), (3, 5), (2, 3, 4), (2, 1, 3, 2)]


def _values():
    out = {}
    for v in analyze_source(PROGRAM, "product_names.py").infer_json()["values"]:
        out.setdefault((v["function"], LINES[v["line"]]), v)
    return out


def _ns():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "product_names.py", "exec"), ns)
    return torch, ns


class _Size(tuple):
    """A torch.Size stand-in the names are evaluated with: `x.shape[:-1].numel()`."""

    def __getitem__(self, i):
        got = tuple.__getitem__(self, i)
        return _Size(got) if isinstance(i, slice) else got

    def numel(self):
        return math.prod(self)


class _Shaped:
    def __init__(self, shape):
        self.shape = _Size(shape)

    def size(self, *d):
        return self.shape[d[0]] if d else self.shape


def _check(shape, observed, **params):
    assert shape is not None and len(shape) == len(observed), (shape, observed)
    names = {k: _Shaped(v) if isinstance(v, tuple) else v for k, v in params.items()}
    for d, o in zip(shape, observed):
        assert d != "?" and not str(d).startswith("*"), shape
        assert (d if isinstance(d, int) else eval(d, {"max": max}, names)) == o, (d, shape, observed)


@pytest.mark.parametrize("fn, line", [("never", "y = x.view(-1, x.size(-1))"),
                                      ("front_first", "y = x.reshape(-1, x.shape[-1])"),
                                      ("two_last", "y = x.reshape(-1, x.shape[-2], x.shape[-1])"),
                                      ("against_first", "z = y + a")])
def test_flattened_axes_have_a_name_right_for_every_rank(fn, line):
    shape = _values()[(fn, line)]["shape"]
    torch, ns = _ns()
    ran = 0
    for sizes in SIZES:
        x = torch.zeros(sizes, device="meta")
        try:
            got = ns[fn](x)
        except (RuntimeError, IndexError):  # (a rank the function rejects: `z = y + a` broadcasts only some)
            continue
        ran += 1
        _check(shape, tuple(got.shape), x=sizes)
    assert ran >= 2


def test_the_name_is_the_parameters_own():
    values = _values()
    assert values[("never", "y = x.view(-1, x.size(-1))")]["shape"] == ["x.shape[:-1].numel()", "x.shape[-1]"]
    assert values[("two_last", "y = x.reshape(-1, x.shape[-2], x.shape[-1])")]["shape"][0] == "x.shape[:-2].numel()"


def test_a_callers_context_names_the_callers_parameter():
    out = _values()[("Model.forward", "out = self.flat(input_ids)")]["shape"]
    assert out == ["input_ids.shape[:-1].numel()", "input_ids.shape[-1]"]
    torch, ns = _ns()
    for sizes in SIZES:
        got = ns["Model"]()(torch.zeros(sizes, device="meta"))
        _check(out, tuple(got.shape), input_ids=sizes)


def test_a_copy_for_one_arm_is_not_named_after_the_parameter():
    y = _values()[("in_arm", "y = x.view(-1, x.size(-1))")]["shape"]
    assert not any("numel" in str(d) for d in y), y  # (its rank is the arm's: the axes themselves)
    torch, ns = _ns()
    x = torch.zeros(2, 3, 4, device="meta")
    _check(y, tuple(ns["in_arm"](x).shape), x=(2, 3, 4))


BUILT = '''import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.lin = nn.Linear(dim, dim)

    def forward(self, h):
        out = self.lin(h)
        return out


class Embedder(nn.Module):
    def __init__(self, dim: int = 8, scale: bool = False):
        super().__init__()
        self.emb = nn.Embedding(100, dim)
        self.head = Head(dim)
        self.scale = scale

    def forward(self, ids):
        flat = ids.view(-1, ids.size(-1))
        h = self.emb(flat)
        out = self.head(h)
        return out
'''


def test_a_construction_context_names_the_product_too():
    """The construction at the flag's default (flag_defaults.py) runs `forward` on inputs in its
    parameters' names inside the constructor's root analysis, whose names its records are
    printed in: the product was `?` there, though its own analysis named it."""
    lines = {k + 1: ln.strip() for k, ln in enumerate(BUILT.splitlines())}
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(BUILT, "built_names.py", "exec"), ns)
    model = ns["Embedder"]()
    observed = {}
    for sizes in SIZES:
        ids = torch.zeros(sizes, dtype=torch.long, device="meta")
        flat = ids.view(-1, ids.size(-1))
        h = model.emb(flat)
        observed[sizes] = {"flat": flat.shape, "h": h.shape, "out": model(ids).shape}
    checked = 0
    for v in analyze_source(BUILT, "built_names.py").infer_json()["values"]:
        if v["function"] != "Embedder.forward":
            continue
        built = [c for c in v.get("contexts") or [] if c["context"].startswith("Embedder.__init__:")]
        assert built and lines[v["line"]].startswith(v["name"] + " ="), v
        for c in built:
            assert c["shape"][0] == "ids.shape[:-1].numel()", (v["line"], c)
            for sizes, got in observed.items():
                _check(c["shape"], tuple(got[v["name"]]), ids=sizes, dim=8)
            checked += 1
    assert checked == 3
