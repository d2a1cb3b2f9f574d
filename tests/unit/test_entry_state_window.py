"""Ints a part's `forward` rewrites, in its construction context (analysis/entry_state.py).

A construction context runs each part's `forward` again on inputs in its own names after the
model's `forward` (built.py). A part that fits its window to each input (`if min(size) <=
self.window: self.window = min(size)`) has, after the model's run, the window of whichever of
its calls wrote last — joined over the stages a loop stands for, unknown; nor is that the window
its first call saw. The part's run takes the attribute's value at the call's entry as a symbol of
its name, `self.window`, and prints its records in its own program names (`height` for
`size[0]`). Every claimed shape is checked against torch for a block called several times, with
sizes that change its window between calls; a method the part calls after rewriting the window
(`grid`) does not print the entry symbol, which would read as the window it sees."""
import sys

import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import context_shape, named_dims_agree, value_at

PROGRAM = '''import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, dim, window=4, shift=0):
        super().__init__()
        self.window = window
        self.shift = shift
        self.norm = nn.LayerNorm(dim)

    def fit(self, size):
        if min(size) <= self.window:
            self.shift = 0
            self.window = min(size)

    def grid(self, h, w):
        cells = torch.zeros(1, h // self.window, w // self.window, 1)
        return cells

    def forward(self, x: torch.Tensor, size: tuple[int, int], keep: bool = False):
        if not keep:
            self.fit(size)
        height, width = size
        b, n, c = x.shape
        grid_in = self.norm(x).view(b, height, width, c)
        pad_w = (self.window - width % self.window) % self.window
        pad_h = (self.window - height % self.window) % self.window
        padded = F.pad(grid_in, (0, 0, 0, pad_w, 0, pad_h))
        _, hp, wp, _ = padded.shape
        cells = self.grid(hp, wp)
        windows = padded.view(b, hp // self.window, self.window, wp // self.window, self.window, c)
        merged = windows.reshape(b, hp, wp, c)[:, :height, :width]
        return merged.reshape(b, height * width, c)


class Net(nn.Module):
    def __init__(self, dims=(8, 16), window=4, pool: bool = True):
        super().__init__()
        self.stages = nn.ModuleList([nn.ModuleList([Block(d, window, 0 if i % 2 == 0 else window // 2)
                                                    for i in range(2)]) for d in dims])
        self.grow = nn.ModuleList([nn.Linear(4 * d, 2 * d) for d in dims])
        self.pool = pool

    def forward(self, x: torch.Tensor, size: tuple[int, int]):
        for blocks, grow in zip(self.stages, self.grow):
            for blk in blocks:
                x = blk(x, size)
            h, w = size
            x = x.view(x.shape[0], h // 2, 2, w // 2, 2, -1).permute(0, 1, 3, 2, 4, 5).flatten(3).flatten(1, 2)
            x = grow(x)
            size = (h // 2, w // 2)
        if self.pool:
            x = x.mean(1)
        return x
'''
LABEL = "Net.__init__:"
NAMES = ("grid_in", "padded", "windows")


def _line(text):
    return next(i for i, ln in enumerate(PROGRAM.splitlines(), 1) if ln.strip().startswith(text))


@pytest.fixture(scope="module")
def values():
    return analyze_source(PROGRAM, "fitwindow.py").infer_json()["values"]


def _claims(values):
    out = {}
    for name in NAMES:
        v = value_at(values, "Block.forward", _line(name + " ="), name, required=True)
        out[name] = context_shape(v, prefix=LABEL)
    return out


def test_the_part_run_names_the_window_at_entry(values):
    claims = _claims(values)
    assert claims["windows"] == ["b", "-((-height)//min(min(height, width), self.window))",
                                 "min(min(height, width), self.window)",
                                 "-((-width)//min(min(height, width), self.window))",
                                 "min(min(height, width), self.window)", "c"], claims


def _observed_calls(sizes):
    """Each call of one Block, called with each of `sizes` in turn: the names the claims use
    (`self.window` as it was at the call's entry) and the shapes torch gave each local."""
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "fitwindow.py", "exec"), ns)
    blk = ns["Block"](8, 4, 2).to("meta")
    calls = []

    def tracer(frame, event, arg):
        if frame.f_code.co_name == "forward" and frame.f_code.co_filename == "fitwindow.py":
            if event == "call":
                calls.append({"self.window": frame.f_locals["self"].window})
            elif event == "return":
                loc = frame.f_locals
                env = calls[-1]
                env.update({k: loc[k] for k in ("b", "c", "height", "width", "hp", "wp")})
                env["shapes"] = {k: list(loc[k].shape) for k in NAMES}
            return tracer
        return None

    sys.settrace(tracer)
    try:
        for h, w in sizes:
            blk(torch.empty(2, h * w, 8, device="meta"), (h, w))
    finally:
        sys.settrace(None)
    return calls


def test_the_claims_hold_for_every_call_whatever_the_window_was(values):
    claims = _claims(values)
    # (the window shrinks to 2 on the second call and stays there: the third call starts at 2)
    calls = _observed_calls([(8, 8), (2, 3), (8, 8), (5, 7)])
    assert [c["self.window"] for c in calls] == [4, 4, 2, 2]
    for env in calls:
        for name in NAMES:
            assert named_dims_agree(claims[name], env["shapes"][name], env) == len(claims[name])


def test_a_method_called_after_the_rewrite_does_not_print_the_entry_window(values):
    v = value_at(values, "Block.grid", _line("cells = torch.zeros"), "cells", required=True)
    built = [c for c in v.get("contexts") or [] if c["context"].startswith(LABEL)]
    assert built
    for c in built:
        assert not any("self.window" in str(d) for d in c["shape"]), c


def test_without_the_rewrite_nothing_changes():
    """A part whose `forward` writes none of its ints: its run is as before (no entry symbol)."""
    text = PROGRAM.replace("        if not keep:\n            self.fit(size)\n", "")
    vals = analyze_source(text, "fitwindow.py").infer_json()["values"]
    v = value_at(vals, "Block.forward", _line("windows =") - 2, "windows", required=True)
    shape = context_shape(v, prefix=LABEL)
    assert shape is not None and not any("self.window" in str(d) for d in shape), shape
