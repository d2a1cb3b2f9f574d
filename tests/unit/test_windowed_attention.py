"""Windowed attention (Swin-like models, issue 28): the sizes a window partition is computed
from, on small programs written for these tests. Every shape claimed is evaluated against what
torch computes for the same program, and each test failed before its mechanism:
- torch's questions about the execution mode (`torch.jit.is_tracing()`) are False in eager code
  (analysis/eager_mode.py; before, unknown: `torch.min(t) if tracing else min(res)` lost the int);
- an undecided `if a <= b:` whose arms leave a name or attribute at `a` and at `b` joins to
  `min(a, b)` (`max` the other way round; analysis/selection.py; before, a fresh `?` or nothing);
- a nested function reads the enclosing call's names (a to-2-tuple helper made by a factory,
  `def _ntuple(n): def parse(x): ... repeat(x, n)`; analysis/executor.py; before, `n` unknown),
  and `itertools.repeat(x, n)` is `n` copies of `x`;
- a value of unknown kind that the code pairs with itself when it is no sequence
  (`ws if isinstance(ws, Iterable) else (ws, ws)`) reads as an int (analysis/int_reading.py;
  before, the join was nothing, and every relative-position table built from it was lost);
- an undecided `if` that pads a tensor to even sizes joins to the padded sizes, which the other
  arm's condition proves equal to its own (analysis/arm_alignment.py; before, `?`)."""
import types

import torch

from shapehint.analysis.api import analyze_source


def _inferred(src: str, function: str) -> dict:
    r = analyze_source(src, "m.py")
    return {v["name"]: v for v in r.infer_json()["values"] if v["function"] == function}


def _run(src: str, name: str, *args):
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    return ns[name](*args)


def _evaluates(shape, observed, env) -> bool:
    """Every dim of `shape` evaluates, under `env`, to torch's (no `?`, no unbound name)."""
    assert shape is not None and len(shape) == len(observed), (shape, observed)
    assert "?" not in str(shape), shape
    for d, o in zip(shape, observed):
        value = d if isinstance(d, int) else eval(d, {"min": min, "max": max}, dict(env))
        assert value == o, (shape, observed, env)
    return True


MODES = """\
import torch


def f(res: tuple[int, int]):
    a = torch.zeros(3) if torch.jit.is_tracing() else torch.zeros(4)
    if torch.jit.is_scripting() or torch.compiler.is_compiling():
        b = torch.zeros(5)
    else:
        b = torch.zeros(6)
    ws = torch.min(torch.tensor(res)) if torch.jit.is_tracing() else min(res)
    c = torch.zeros(ws, 2)
    return a, b, c
"""


def test_execution_mode_queries_are_false_in_eager_code():
    got = _inferred(MODES, "f")
    outs = _run(MODES, "f", (5, 3))
    assert [got[n]["shape"] for n in "ab"] == [list(t.shape) for t in outs[:2]] == [[4], [6]]
    assert _evaluates(got["c"]["shape"], list(outs[2].shape), {"res": (5, 3), "min": min})


CLAMP = """\
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
    def __init__(self, window_size):
        super().__init__()
        self.window_size = window_size

    def fit(self, res):
        if min(res) <= self.window_size:
            self.window_size = min(res)

    def forward(self, x: torch.Tensor, res: tuple[int, int]):
        self.fit(res)
        h, w = res
        b, _, c = x.shape
        x = x.view(b, h, w, c)
        pad_r = (self.window_size - w % self.window_size) % self.window_size
        pad_b = (self.window_size - h % self.window_size) % self.window_size
        x = nn.functional.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, hp, wp, _ = x.shape
        windows = window_partition(x, self.window_size)
        tokens = windows.view(-1, self.window_size * self.window_size, c)
        back = window_reverse(windows, self.window_size, hp, wp)
        out = back[:, :h, :w, :].contiguous().view(b, h * w, c)
        return windows, tokens, back, out


def f(x, window_size, res):
    return Block(window_size)(x, res)
"""


def test_a_window_clamped_to_the_resolution_is_the_min_of_both():
    got = _inferred(CLAMP, "Block.forward")
    for ws, (h, w) in ((4, (8, 8)), (7, (10, 6)), (4, (3, 5)), (2, (5, 7))):
        x = torch.randn(2, h * w, 3)
        outs = _run(CLAMP, "f", x, ws, (h, w))
        env = {"x": x, "b": 2, "c": 3, "h": h, "w": w, "res": (h, w), "window_size": ws,
               "self": types.SimpleNamespace(window_size=ws)}
        for name, t in zip(("windows", "tokens", "back", "out"), outs):
            shape = got[name]["shape"]
            assert _evaluates(shape, list(t.shape), env)
    assert "min(" in str(got["windows"]["shape"])


SELECT = """\
import torch


def f(a: int, b: int):
    if a <= b:
        lo, hi = a, b
    else:
        lo, hi = b, a
    if a > b:
        big = a
    else:
        big = b
    if a < b:
        other = a + 1
    else:
        other = b
    t_lo, t_hi, t_big, t_other = torch.zeros(lo), torch.zeros(hi), torch.zeros(big), torch.zeros(other)
    return t_lo, t_hi, t_big, t_other
"""


def test_arms_that_select_a_side_of_the_comparison_join_to_min_and_max():
    got = _inferred(SELECT, "f")
    for a, b in ((2, 5), (5, 2), (3, 3)):
        outs = _run(SELECT, "f", a, b)
        for name, t in zip(("t_lo", "t_hi", "t_big"), outs):
            assert _evaluates(got[name]["shape"], list(t.shape), {"a": a, "b": b})
    # arms that are not the comparison's sides join as before: some int, no claim
    assert got["t_other"]["shape"] == ["?"]


NTUPLE = """\
def _ntuple(n):
    def parse(x):
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))
    return parse
"""


TUPLES = """\
import collections.abc
from itertools import repeat

import torch
from torch import nn


""" + NTUPLE + """

to_2tuple = _ntuple(2)


class RelativeBias(nn.Module):
    def __init__(self, config, num_heads):
        super().__init__()
        ws = config.window_size
        self.window_size = ws if isinstance(ws, collections.abc.Iterable) else (ws, ws)
        self.patch = to_2tuple(config.patch_size)
        self.table = nn.Parameter(torch.zeros((2 * self.window_size[0] - 1) * (2 * self.window_size[1] - 1), num_heads))
        coords_h = torch.arange(self.window_size[0])
        coords_w = torch.arange(self.window_size[1])
        coords = torch.stack(torch.meshgrid([coords_h, coords_w], indexing="ij"))
        coords_flatten = torch.flatten(coords, 1)
        relative = coords_flatten[:, :, None] - coords_flatten[:, None, :]
        relative = relative.permute(1, 2, 0).contiguous()
        relative[:, :, 0] += self.window_size[0] - 1
        relative[:, :, 1] += self.window_size[1] - 1
        relative[:, :, 0] *= 2 * self.window_size[1] - 1
        index = relative.sum(-1)
        self.register_buffer("index", index)
        patches = torch.zeros(self.patch[0], self.patch[1])

    def forward(self, scores: torch.Tensor):
        area = self.window_size[0] * self.window_size[1]
        bias = self.table[self.index.view(-1)].view(area, area, -1)
        bias = bias.permute(2, 0, 1).contiguous()
        scores = scores + bias.unsqueeze(0)
        return scores


def f(config, scores):
    return RelativeBias(config, 2)(scores)
"""


def test_a_window_size_of_unknown_kind_paired_with_itself_reads_as_an_int():
    init = _inferred(TUPLES, "RelativeBias.__init__")
    fwd = _inferred(TUPLES, "RelativeBias.forward")
    for ws, patch in ((4, 2), (3, 5)):
        config = types.SimpleNamespace(window_size=ws, patch_size=patch)
        env = {"config": config, "num_heads": 2}
        m = _run(TUPLES, "RelativeBias", config, 2)
        assert _evaluates(init["index"]["shape"], list(m.index.shape), env)
        assert _evaluates(init["patches"]["shape"], [patch, patch], env)
        assert _evaluates(init["coords"]["shape"], [2, ws, ws], env)
        bias = m.table[m.index.view(-1)].view(ws * ws, ws * ws, -1).permute(2, 0, 1)
        assert _evaluates(fwd["bias"]["shape"], list(bias.shape), env)


def test_a_window_size_given_as_a_tuple_is_read_as_one():
    src = TUPLES + "\n\ndef g(scores):\n    cfg = Cfg()\n    return RelativeBias(cfg, 2)(scores)\n" \
        "\n\nclass Cfg:\n    window_size = (3, 5)\n    patch_size = (2, 4)\n"
    got = _inferred(src, "RelativeBias.__init__")  # (the module's config class: its attributes)
    assert got["index"]["shape"] == [15, 15] and got["patches"]["shape"] == [2, 4]
    assert _inferred(src, "RelativeBias.forward")["bias"]["shape"] == ["num_heads", 15, 15]


NESTED = """\
import torch


def make(n):
    def grow(x):
        return torch.zeros(x, n)
    return grow


def twice(k):
    def again(x, depth):
        return torch.zeros(x) if depth == 0 else again(x + k, depth - 1)
    return again(1, 2)


def f(m: int):
    a = make(3)(m)
    b = twice(2)
    return a, b
"""


def test_a_nested_function_reads_the_enclosing_call_and_itself():
    got = _inferred(NESTED, "f")
    a, b = _run(NESTED, "f", 7)
    assert _evaluates(got["a"]["shape"], list(a.shape), {"m": 7})
    assert got["b"]["shape"] == list(b.shape) == [5]


MERGE = """\
import torch
from torch import nn


class Merge(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def maybe_pad(self, x, height, width):
        if (height % 2 == 1) or (width % 2 == 1):
            x = nn.functional.pad(x, (0, 0, 0, width % 2, 0, height % 2))
        return x

    def forward(self, x: torch.Tensor, res: tuple[int, int]):
        height, width = res
        b, _, c = x.shape
        x = x.view(b, height, width, c)
        padded = self.maybe_pad(x, height, width)
        x0 = padded[:, 0::2, 0::2, :]
        x1 = padded[:, 1::2, 0::2, :]
        x2 = padded[:, 0::2, 1::2, :]
        x3 = padded[:, 1::2, 1::2, :]
        merged = torch.cat([x0, x1, x2, x3], -1).view(b, -1, 4 * c)
        out = self.reduction(merged)
        return padded, x1, merged, out


def f(x, res):
    return Merge(x.shape[-1])(x, res)
"""


def test_padding_to_even_sizes_in_one_arm_keeps_the_padded_sizes():
    got = _inferred(MERGE, "Merge.forward")
    for h, w in ((4, 6), (5, 7), (4, 3)):
        x = torch.randn(2, h * w, 3)
        outs = _run(MERGE, "f", x, (h, w))
        env = {"b": 2, "c": 3, "height": h, "width": w, "dim": 3}
        for name, t in zip(("padded", "x1", "merged", "out"), outs):
            assert _evaluates(got[name]["shape"], list(t.shape), env)


def test_a_closure_factory_run_by_an_imported_modules_top_level_code(tmp_path):
    """`to_2tuple = _ntuple(2)` in another module of the package: a call in imported top-level
    code runs when the function makes a function (analysis/costs.py; before, not run, so
    `to_2tuple` was unknown); other top-level calls still do not run."""
    files = {
        "wpkg/__init__.py": "",
        "wpkg/helpers.py": """\
import collections.abc
from itertools import repeat


""" + NTUPLE + """

def probe():
    return 7


to_2tuple = _ntuple(2)
WIDTH = probe()
""",
        "wpkg/m.py": """\
import torch
from .helpers import WIDTH, to_2tuple


def f(window_size: int):
    a = torch.zeros(to_2tuple(window_size))
    b = torch.zeros(WIDTH)
    return a, b
""",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    path = tmp_path / "wpkg" / "m.py"
    r = analyze_source(path.read_text(), str(path))
    got = {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == "f"}
    assert got["a"] == ["window_size", "window_size"]
    assert got["b"] == [7]  # (the module's own helper given constants runs too: module_helpers.py)


SQRT = """\
import math

import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self, heads: int, max_seq_len: int):
        super().__init__()
        self.size = int(math.sqrt(max_seq_len))
        self.table = nn.Parameter(torch.zeros((2 * self.size - 1) * (2 * self.size - 1), heads))


def f(p: int, heads: int):
    attn = Attn(heads, p ** 2)
    table = attn.table
    side = torch.zeros(math.isqrt(4 * p * p))
    return table, side
"""


def test_the_square_root_of_a_sizes_square_is_the_size():
    """`int(math.sqrt(partition_size**2))` is `partition_size` (analysis/arith.exact_root;
    before, a fresh int)."""
    got = _inferred(SQRT, "f")
    for p in (2, 5):
        table, side = _run(SQRT, "f", p, 3)
        assert _evaluates(got["table"]["shape"], list(table.shape), {"p": p, "heads": 3})
        assert _evaluates(got["side"]["shape"], list(side.shape), {"p": p})


JOINED_INT = """\
import torch


def f(n: int, flag: bool):
    shift = 0
    if flag:
        shift = n // 2
    if shift > 0:
        a = torch.zeros(1)
    else:
        b = torch.zeros(2)
    return shift
"""


def test_an_int_that_is_zero_on_one_path_is_not_taken_for_a_size():
    """The join of `0` and `n // 2` is some int that may be 0 (comprehensions._joined_int;
    before, a fresh size of at least 1, so `shift > 0` held on every path and the `else` arm
    of a shifted-window block never ran)."""
    got = _inferred(JOINED_INT, "f")
    assert got["a"]["shape"] == [1] and got["b"]["shape"] == [2]
