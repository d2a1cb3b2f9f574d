"""A window clipped to its input, padded to, partitioned and merged back (Swin-like models,
issue 28), on small programs written for these tests; every shape claimed is evaluated against
what torch computes for the same program. Each test failed before its mechanism:
- `min`/`max` absorb a side whose operands the other side already takes (`min(m, min(w, m))` is
  `min(w, m)`, shapes/expr.py): a layer read from a list of unknown length joins what its
  `forward` wrote with what it held, the window clipped once and clipped again, which printed
  differently and so joined to nothing;
- an int expression is measured with each shared operand counted once
  (`shapes/expr.py`'s `expr_nodes`): the padding to a clipped window, `(k - W % k) % k` with
  `k = min(ws, min(H, W))`, counted per occurrence passed the limit of shape-sized arithmetic
  and was not tracked, and every size after the padding was lost."""
import itertools
import random
import types

import torch

from shapehint.analysis.api import analyze_source
from shapehint.analysis.evaluator import MAX_INT_EXPR_NODES
from shapehint.shapes.expr import expr_nodes
from shapehint.shapes.expr import Expr, emax, emin, floordiv, mod


def _run(src: str, name: str, *args):
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    return ns[name](*args)


def _value(dim, env) -> int:
    return dim if isinstance(dim, int) else eval(dim, {"min": min, "max": max}, dict(env))


def _evaluates(shape, observed, env) -> bool:
    """Every dim of `shape` evaluates, under `env`, to torch's (no `?`, no unbound name)."""
    assert shape is not None and len(shape) == len(observed), (shape, observed)
    assert "?" not in str(shape), shape
    assert [_value(d, env) for d in shape] == list(observed), (shape, observed)
    return True


def test_min_and_max_absorb_a_side_the_other_already_takes():
    m, w, a = Expr.sym("m"), Expr.sym("w"), Expr.sym("a")
    assert emin(m, emin(w, m)) == emin(w, m) == emin(emin(m, w), emin(w, m))
    assert emax(emax(a, w), a) == emax(a, w)
    assert emin(emin(a, w), emin(w, m)) != emin(a, w)  # neither side's operands within the other's
    rng = random.Random(7)
    exprs = [m, w, a, m + 1, emin(w, m), emax(a, m), emin(a, emin(w, m)), emax(emin(a, w), m)]
    for x, y in itertools.product(exprs, repeat=2):
        for op, py in ((emin, min), (emax, max)):
            got = op(x, y)
            for _ in range(20):
                env = {s: rng.randint(-5, 9) for s in ("m", "w", "a")}
                assert _value(_str(got), env) == py(_value(_str(x), env), _value(_str(y), env)), (x, y, got)


def _str(e: Expr) -> str:
    from shapehint.shapes.expr import to_str
    return to_str(e)


def test_shared_operands_count_once():
    h0, w0, p, ws = (Expr.sym(n) for n in ("h0", "w0", "p", "ws"))
    h, w = floordiv(h0 - p, p) + 1, floordiv(w0 - p, p) + 1
    k = emin(ws, emin(h, w))
    padded = w + mod(k - mod(w, k), k)
    assert expr_nodes(padded, MAX_INT_EXPR_NODES) <= MAX_INT_EXPR_NODES
    squares = Expr.sym("n")
    for _ in range(8):  # a polynomial of degree 256 is still too large
        squares = squares * squares + Expr.sym("n")
    assert expr_nodes(squares, MAX_INT_EXPR_NODES) > MAX_INT_EXPR_NODES


PAD = """\
import torch
from torch import nn


def f(x, ws: int, p: int):
    b, c, h0, w0 = x.shape
    h = (h0 - p) // p + 1
    w = (w0 - p) // p + 1
    k = min(ws, min(h, w))
    y = x[:, :, :h, :w]
    pr = (k - w % k) % k
    pb = (k - h % k) % k
    z = nn.functional.pad(y, (0, pr, 0, pb))
    return z
"""


def test_padding_to_a_clipped_window_is_tracked():
    got = {v["name"]: v for v in analyze_source(PAD, "m.py").infer_json()["values"] if v["function"] == "f"}
    for h0, w0, ws, p in ((32, 32, 4, 4), (9, 20, 4, 2), (7, 5, 7, 1), (30, 13, 5, 3)):
        x = torch.empty(2, 3, h0, w0, device="meta")
        z = _run(PAD, "f", x, ws, p)
        env = {"b": 2, "c": 3, "h0": h0, "w0": w0, "ws": ws, "p": p}
        assert _evaluates(got["z"]["shape"], list(z.shape), env)


SWIN = """\
import torch
from torch import nn


def window_partition(x, ws):
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, c)


def window_reverse(windows, ws, h, w):
    c = windows.shape[-1]
    x = windows.view(-1, h // ws, w // ws, ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, h, w, c)


class Block(nn.Module):
    def __init__(self, cfg, dim, shift):
        super().__init__()
        self.window_size = cfg.window_size
        self.shift = shift
        self.norm = nn.LayerNorm(dim)

    def fit(self, res):
        if min(res) <= self.window_size:
            self.shift = 0
            self.window_size = min(res)

    def forward(self, x, res):
        self.fit(res)
        h, w = res
        b, _, c = x.size()
        x = self.norm(x).view(b, h, w, c)
        pr = (self.window_size - w % self.window_size) % self.window_size
        pb = (self.window_size - h % self.window_size) % self.window_size
        x = nn.functional.pad(x, (0, 0, 0, pr, 0, pb))
        _, hp, wp, _ = x.shape
        if self.shift > 0:
            x = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        windows = window_partition(x, self.window_size)
        tokens = windows.view(-1, self.window_size * self.window_size, c)
        back = window_reverse(tokens.view(-1, self.window_size, self.window_size, c), self.window_size, hp, wp)
        out = back[:, :h, :w, :].contiguous().view(b, h * w, c)
        return windows, tokens, back, out


class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Conv2d(3, cfg.dim, cfg.patch, cfg.patch)
        self.blocks = nn.ModuleList([Block(cfg, cfg.dim, 0 if i % 2 == 0 else cfg.window_size // 2)
                                     for i in range(cfg.depth)])

    def forward(self, pixels):
        e = self.embed(pixels)
        _, _, h, w = e.shape
        x = e.flatten(2).transpose(1, 2)
        for blk in self.blocks:
            outs = blk(x, (h, w))
            x = outs[3]
        return outs
"""


def test_blocks_of_a_list_of_unknown_length_clip_and_pad_their_windows():
    """The blocks' context under Net.forward: the window is `min(cfg.window_size, min(h, w))`
    whether the block ran before or not, so its partition, tokens, merge and crop keep sizes."""
    values = analyze_source(SWIN, "m.py").infer_json()["values"]
    got = {}
    for v in values:
        if v["function"] == "Block.forward" and v["name"] in ("windows", "tokens", "back", "out"):
            ctx = [c for c in v.get("contexts", []) if c["context"].startswith("Net.forward:")]
            assert len({str(c["shape"]) for c in ctx}) == 1, (v["name"], ctx)
            got[v["name"]] = ctx[0]["shape"]
    for size, patch, ws, depth in ((32, 4, 4, 2), (28, 4, 4, 3), (20, 2, 7, 2), (12, 4, 7, 2), (30, 3, 3, 1)):
        cfg = types.SimpleNamespace(window_size=ws, dim=8, patch=patch, depth=depth)
        net = _run(SWIN, "Net", cfg)
        pixels = torch.randn(2, 3, size, size + patch)
        outs = net(pixels)
        env = {"pixels": pixels, "cfg": cfg}
        for name, t in zip(("windows", "tokens", "back", "out"), outs):
            assert _evaluates(got[name], list(t.shape), env)
