"""A `-1` of a view cancelled against the parts of the elements the facts prove equal to a size
given (ops/cancel.py).

Windows of a padded image: the layer pins the channels (`C == dim`), and the padded height is a
multiple of the window, so viewing the windows back (`w.view(-1, Hp // ws, Wp // ws, ws, ws, C)`,
then `.view(-1, Hp, Wp, C)`) leaves the batch, `B`. Written out, the quotient
(`(B*C*ws*ws*(Hp//ws)*(Wp//ws))//(C*Hp*Wp)`) was a size no reader evaluates, nor the slice back to
`[B, H, W, C]`. A window joined from a flag's arms (an unknown size, `?`) keeps the batch the same
way. Every shape claimed is checked against torch (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.ops.cancel import cancelled
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import eq

PROGRAM = '''import torch
import torch.nn as nn


def part(x, ws):
    B, H, W, C = x.shape
    x = x.view(B, H // ws[0], ws[0], W // ws[1], ws[1], C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws[0], ws[1], C)


def unpart(windows, ws, H: int, W: int):
    C = windows.shape[-1]
    x = windows.view(-1, H // ws[0], W // ws[1], ws[0], ws[1], C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, H, W, C)


class Block(nn.Module):
    def __init__(self, dim: int, window: int = 7, always: bool = False):
        super().__init__()
        self.always = always
        self.window = self._calc(window)
        self.area = self.window[0] * self.window[1]
        self.proj = nn.Linear(dim, dim)

    def _calc(self, window):
        window = (window, window)
        if self.always:
            return window
        return (window[0] - 1, window[1] - 1)

    def forward(self, x):
        B, H, W, C = x.shape
        pad_h = (self.window[0] - H % self.window[0]) % self.window[0]
        pad_w = (self.window[1] - W % self.window[1]) % self.window[1]
        y = torch.nn.functional.pad(x, (0, 0, 0, pad_w, 0, pad_h))
        _, Hp, Wp, _ = y.shape
        w = part(y, self.window)
        w = w.view(-1, self.area, C)
        w = self.proj(w)
        w = w.view(-1, self.window[0], self.window[1], C)
        y = unpart(w, self.window, Hp, Wp)
        y = y[:, :H, :W, :].contiguous()
        return y
'''
FIXED = PROGRAM.replace('''        window = (window, window)
        if self.always:
            return window
        return (window[0] - 1, window[1] - 1)''', '''        return (window, window)''')
PADDED, BACK, SLICED = "w = w.view(-1, self.window[0]", "y = unpart(", "y = y[:, :H"


def _values(text):
    """Block.forward's shapes by the text their line starts with."""
    lines = {k + 1: ln.strip() for k, ln in enumerate(text.splitlines())}
    out = {}
    for v in analyze_source(text, "windows.py").infer_json()["values"]:
        if v["function"] == "Block.forward":
            for start in (PADDED, BACK, SLICED):
                if lines[v["line"]].startswith(start):
                    out[start] = v["shape"]
    return out


def _torch(text, **build):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(text, "windows.py", "exec"), ns)
    net = ns["Block"](**build).to("meta")
    x = torch.empty(2, 10, 13, 8, device="meta")
    return x, net(x)


def _evaluated(shape, env):
    assert shape is not None and all("?" not in str(d) for d in shape), shape
    return [d if isinstance(d, int) else eval(d, dict(env)) for d in shape]


def test_the_windows_viewed_back_keep_the_batch():
    values = _values(FIXED)
    x, y = _torch(FIXED, dim=8, window=4)
    env = {"B": 2, "H": 10, "W": 13, "C": 8, "dim": 8, "window": 4}
    assert values[SLICED] == ["B", "H", "W", "C"]
    assert _evaluated(values[SLICED], env) == list(y.shape)
    assert values[BACK][0] == "B"
    assert _evaluated(values[BACK], env) == [2, 12, 16, 8]  # the padded image
    assert _evaluated(values[PADDED], env) == [2 * 3 * 4, 4, 4, 8]


def test_a_window_joined_from_a_flags_arms_keeps_the_batch_too():
    values = _values(PROGRAM)
    env = {"B": 2, "H": 10, "W": 13, "C": 8}
    for build in ({"always": False}, {"always": True}):
        _, y = _torch(PROGRAM, dim=8, window=4, **build)
        assert _evaluated(values[SLICED], env) == list(y.shape)
    assert values[BACK][0] == "B" and values[BACK][1] == "?"  # the padding: either window's


def test_a_size_cancels_against_a_part_the_facts_prove_equal_only():
    n, dim, c, ws, h = (Expr.sym(s) for s in ("n", "dim", "C", "ws", "H"))

    def proves(*true):
        return lambda pred: pred in true

    assert cancelled(n * dim, [c], proves(eq(c, dim))) == (n, Expr.const(1))
    assert cancelled(n * dim, [c], proves()) == (n * dim, c)  # not proved: left as written
    assert cancelled(n * dim, [c]) == (n * dim, c)
    padded = h + (ws - h % ws) % ws  # rounded up to a multiple of ws, by its form
    blocks = n * (padded // ws) * ws * c
    assert cancelled(blocks, [padded, c], proves()) == (n, Expr.const(1))
    plain = n * (h // ws) * ws * c  # H itself need not be a multiple
    assert cancelled(plain, [h, c], proves())[1] != Expr.const(1)


@pytest.mark.parametrize("form, multiple", [
    (lambda h, w: h + (w - h % w) % w, True),
    (lambda h, w: 2 * w + h + (w - h % w) % w, True),
    (lambda h, w: h - h % w, True),
    (lambda h, w: h + (w - h % w), True),
    (lambda h, w: h + 1, False),
    (lambda h, w: h + (w - h % w) % w + 1, False),
    (lambda h, w: h + (2 * w - h % w) % (2 * w), False),  # a multiple of 2w, not claimed of w's form
])
def test_a_multiple_by_its_form_is_one_for_every_size(form, multiple):
    from shapehint.ops.cancel import _multiple_as_written
    h, w = Expr.sym("H"), Expr.sym("w")
    assert _multiple_as_written(form(h, w), w) == multiple
    if multiple:  # what the form claims holds for every size
        assert all(form(a, b) % b == 0 for a in range(1, 40) for b in range(1, 9))
