"""A method that replaces a layer or tensor of the instance is a reconfiguration: the numbers it
sets beside them keep their constructed values in the class's own analysis
(analysis/reconfiguration.py). Before, a windowed attention whose `set_window_size` rebuilds its
bias table forgot `self.window_area`, and the table's `view(area, area, -1)` had no shape.
Plain values that an ordinary method (a counter, a method `forward` calls) assigns are still
forgotten. The programs are our own; the shapes claimed are checked against torch."""

from shapehint.analysis.api import analyze_source

WINDOW = """\
import torch
from torch import nn


class WinBias(nn.Module):
    def __init__(self, num_heads: int = 2, window_size: int = 4):
        super().__init__()
        self.num_heads = num_heads
        self.window_size = (window_size, window_size)
        win_h, win_w = self.window_size
        self.window_area = win_h * win_w
        self.table = nn.Parameter(torch.zeros((2 * win_h - 1) * (2 * win_w - 1), num_heads))
        self.register_buffer("index", torch.zeros(win_h * win_w, win_h * win_w, dtype=torch.long),
                             persistent=False)

    def set_window_size(self, window_size: int) -> None:
        window_size = (window_size, window_size)
        if window_size == self.window_size:
            return
        self.window_size = window_size
        win_h, win_w = self.window_size
        self.window_area = win_h * win_w
        with torch.no_grad():
            self.table = nn.Parameter(torch.zeros((2 * win_h - 1) * (2 * win_w - 1), self.num_heads))
            self._init_buffers()

    def _init_buffers(self) -> None:
        win_h, win_w = self.window_size
        self.register_buffer("index", torch.zeros(win_h * win_w, win_h * win_w, dtype=torch.long),
                             persistent=False)

    def bias(self) -> torch.Tensor:
        b = self.table[self.index.view(-1)].view(self.window_area, self.window_area, -1)
        b = b.permute(2, 0, 1).contiguous()
        return b.unsqueeze(0)


class Stepper(nn.Module):
    def __init__(self, dim: int = 8, pos: int = 3):
        super().__init__()
        self.pos = int(pos)
        self.table = torch.zeros(pos, dim)

    def resize(self, pos: int) -> None:
        self.pos = pos
        self.table = torch.zeros(pos, self.table.shape[1])

    def tick(self) -> None:
        self.pos = self.pos + 1

    def forward(self) -> torch.Tensor:
        y = torch.cat([self.table, torch.zeros(self.pos, self.table.shape[1])], 0)
        return y


class Refreshed(nn.Module):
    def __init__(self, n: int = 3):
        super().__init__()
        self.n = int(n)
        self.buf = torch.zeros(n)

    def refresh(self, n: int) -> None:
        self.n = n
        self.buf = torch.zeros(n)

    def forward(self, k: int) -> torch.Tensor:
        y = torch.cat([self.buf, torch.zeros(self.n)], 0)
        self.refresh(k)
        return y
"""


def _inferred(function: str) -> dict:
    r = analyze_source(WINDOW, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return {(v["name"], v["line"]): v for v in r.infer_json()["values"] if v["function"] == function}


def _module():
    ns = {}
    exec(compile(WINDOW, "m.py", "exec"), ns)
    return ns


def _eval(shape, env):
    assert shape is not None and "?" not in str(shape), shape
    return [d if isinstance(d, int) else eval(d, {}, dict(env)) for d in shape]


def test_numbers_a_reconfiguration_sets_keep_their_constructed_values():
    got = _inferred("WinBias.bias")
    first, second = sorted(got.values(), key=lambda v: v["line"])[:2]
    m = _module()["WinBias"](num_heads=3, window_size=5)
    b = m.table[m.index.view(-1)].view(m.window_area, m.window_area, -1)
    env = {"num_heads": 3, "window_size": 5}
    assert _eval(first["shape"], env) == list(b.shape) == [25, 25, 3]
    assert _eval(second["shape"], env) == list(b.permute(2, 0, 1).shape)


def test_a_value_an_ordinary_method_also_assigns_is_still_forgotten():
    # `resize` is a reconfiguration, but `tick` changes `pos` without one: after `tick()` the
    # constructed `pos` is stale, so `y` must not claim `2*pos` rows
    ys = list(_inferred("Stepper.forward").values())
    m = _module()["Stepper"](dim=8, pos=3)
    m.tick()
    assert list(m().shape) == [7, 8]
    assert all(y["shape"] is None or y["shape"][0] != "2*pos" for y in ys), ys


def test_a_method_forward_calls_is_no_reconfiguration():
    # `refresh` replaces `buf`, but forward calls it: on the second call `n` is the first's `k`
    ys = list(_inferred("Refreshed.forward").values())
    m = _module()["Refreshed"](n=3)
    m(5)
    assert list(m(5).shape) == [10]
    assert all(y["shape"] is None or y["shape"][0] != "2*n" for y in ys), ys


def test_a_reconfiguration_that_resizes_a_table_from_itself_keeps_it():
    # `self.table = f(self.table)` outside what `forward` reaches resizes the layer's table, as
    # timm's `set_window_size` does: no running state (reconfiguration._grown), the table kept
    program = WINDOW.replace(
        "torch.zeros((2 * win_h - 1) * (2 * win_w - 1), self.num_heads))\n            self._init_buffers()",
        "torch.zeros((2 * win_h - 1) * (2 * win_w - 1), self.table.shape[1]))\n            self._init_buffers()")
    assert program != WINDOW
    r = analyze_source(program, "m.py")
    got = {(v["name"], v["line"]): v for v in r.infer_json()["values"] if v["function"] == "WinBias.bias"}
    first = sorted(got.values(), key=lambda v: v["line"])[0]
    m = _module()["WinBias"](num_heads=3, window_size=5)
    b = m.table[m.index.view(-1)].view(m.window_area, m.window_area, -1)
    assert _eval(first["shape"], {"num_heads": 3, "window_size": 5}) == list(b.shape) == [25, 25, 3]
