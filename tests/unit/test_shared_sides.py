"""A shape with a variadic segment never claims more axes than are known to exist (issue 25,
item 6): after `x.shape[2]` is read and x meets a `Linear(16, ...)`, x may be [B, T, 16] — the
named leading axes and the known last axis the same axes. Each shape shown for the program
below is checked against what PyTorch computes for x of rank 3, 4 and 5, the way a consumer
reads it (a `*` segment is zero or more axes between the two sides)."""
import pytest

torch = pytest.importorskip("torch")

from shapehint.analysis.api import analyze_source  # noqa: E402
from shapehint.devicerun.compare import align, eval_dim  # noqa: E402

PROGRAM = '''import torch
from torch import nn

lin = nn.Linear(16, 8)


def f(x):
    t = x.shape[2]
    y = lin(x)
    z = x[:, 0]
    s = x.sum(dim=1)
    u = z.sum(dim=1)
    m = z.mean(dim=-2)
    k = x.sum(dim=-1, keepdim=True)
    e = x.unsqueeze(3)
    g = x.unsqueeze(-2)
    w = x + torch.ones(16)
    a = x[:, :, None]
    b = x[..., 0]
    c = y[:, 1]
    return y, z, s, u, m, k, e, g, w, a, b, c
'''

NAMES = ["y", "z", "s", "u", "m", "k", "e", "g", "w", "a", "b", "c"]


def _shown():
    res = analyze_source(PROGRAM, "shared.py")
    assert not [d for d in res.diagnostics if d.severity == "error"]
    return {v["name"]: v["shape"] for v in res.infer_json()["values"] if v["function"] == "f"}


def _observed(x):
    scope = {}
    exec(compile(PROGRAM, "shared.py", "exec"), scope)
    return dict(zip(NAMES, (tuple(v.shape) for v in scope["f"](x))))


@pytest.mark.parametrize("dims", [(2, 3, 16), (2, 3, 5, 16), (2, 3, 5, 7, 16)])
def test_no_shape_shown_claims_axes_the_input_may_lack(dims):
    shown, seen = _shown(), _observed(torch.zeros(*dims))
    env = {f"x.shape[{i}]": d for i, d in enumerate(dims)}
    env.update({f"x.shape[{i - len(dims)}]": d for i, d in enumerate(dims)})
    for name in NAMES:
        shape = shown.get(name)
        if shape is None:
            continue
        pairs = align(shape, list(seen[name]))
        assert pairs is not None, f"{name}: {shape} has more axes than {seen[name]}"
        for d, o in pairs:
            v = eval_dim(d, env)
            assert v in ("?", o), f"{name}: {shape} against {seen[name]}"


def test_what_is_known_is_still_shown():
    text = ("import torch\nfrom torch import nn\n\nlin = nn.Linear(16, 8)\n\n\n"
            "def f(x):\n    t = x.shape[2]\n    y = lin(x)\n    z = x[:, 0]\n    u = z.sum(dim=1)\n"
            "    e = x.unsqueeze(3)\n    return u, e\n")
    res = analyze_source(text, "known.py")
    shown = {v["name"]: v["shape"] for v in res.infer_json()["values"]}
    # the longer side of what may overlap is shown; a reduction that may have taken the last
    # axis does not claim it; a new axis after the named ones is not claimed to precede the 16
    assert shown["z"] == ["x.shape[0]", "x.shape[2]", "*x"]
    assert shown["u"] == ["x.shape[0]", "*?"]
    assert shown["e"][:4] == ["x.shape[0]", "x.shape[1]", "x.shape[2]", 1] and 16 not in shown["e"]


def test_a_shape_whose_sides_cannot_share_axes_keeps_both():
    text = ("import torch\nfrom torch import nn\n\nlin = nn.Linear(16, 8)\n\n\n"
            "def f(x):\n    y = lin(x)\n    z = y.unsqueeze(0)\n    return z\n")
    res = analyze_source(text, "apart.py")
    shapes = {v["name"]: v["shape"] for v in res.infer_json()["values"]}
    assert shapes["y"] == ["*x", 8] and shapes["z"] == [1, "*x", 8]
