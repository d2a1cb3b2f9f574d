"""Objects that live across calls: a module's global objects (analysis/global_objects.py) and the
objects a class's generic instance holds (generic.forget_state, reconfiguration.forget_held).

A function runs at any point of such an object's life. Each program below keeps rows in a slot
that a method grows by concatenation; the line that reads them claimed the length of the first
call (a fresh slot's), wrong from the second call on:

- GLOBAL: a module-level ledger the layers push to (the line claimed `h`'s length);
- HELD: the generic instance of a memory holding slots (its `add` claimed `h`'s length);
- RESET: a function `start()` resetting every slot of the global ledger to an empty tensor; its
  analysis left them empty for the next function's, which claimed the length of one push;
- GROWN: a slot constructed with one row, grown by `self.rows = torch.cat([self.rows, h], 1)`:
  the tensor kept its constructed length (1 + 5, where torch gives 1 + 5k).

Each claim is checked against torch: a line may claim no shape, or one that every call has. The
lines that do not read the objects keep their shapes, and a global whose methods only read it
keeps its values (CONSTANT)."""
import re

import pytest

from shapehint.analysis.api import analyze_source

SLOT = '''import torch
from torch import nn


class Page:
    def __init__(self):
        self.rows = None

    def push(self, h):
        if self.rows is None:
            self.rows = h
        else:
            self.rows = torch.cat([self.rows, h], dim=1)
        return self.rows


class Ledger:
    def __init__(self, n):
        self.pages = [Page() for _ in range(n)]

    def push(self, h, i):
        return self.pages[i].push(h)
'''

LAYERS = '''

class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16)

    def forward(self, x):
        h = self.proj(x).reshape(2, 5, 16)
        seen = LEDGER.push(h, 0)
        return seen.mean(1, keepdim=True) + h


class Model(nn.Module):
    def __init__(self, depth):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(depth)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
'''

GLOBAL = SLOT + "\n\nLEDGER = Ledger(2)\n" + LAYERS

RESET = SLOT.replace('''    def push(self, h):''', '''    def reset(self):
        self.rows = torch.zeros(2, 0, 16)

    def push(self, h):''') + '''

LEDGER = Ledger(2)


def start():
    for p in LEDGER.pages:
        p.reset()
''' + LAYERS

GROWN = SLOT.replace('''        self.rows = None

    def push(self, h):
        if self.rows is None:
            self.rows = h
        else:
            self.rows = torch.cat([self.rows, h], dim=1)''', '''        self.rows = torch.zeros(2, 1, 16)

    def push(self, h):
        self.rows = torch.cat([self.rows, h], dim=1)''') + "\n\nLEDGER = Ledger(2)\n" + LAYERS

HELD = SLOT.replace("Ledger", "Memory") + '''

class Reader(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.memory = Memory(n)

    def forward(self, x):
        h = x.reshape(2, 5, 16)
        seen = self.memory.push(h, 0)
        return seen.sum(1)
'''

CONSTANT = '''import torch
from torch import nn


class Sizes:
    def __init__(self):
        self.width = 16

    def doubled(self):
        return self.width * 2


SIZES = Sizes()


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, SIZES.doubled())

    def forward(self, x):
        h = self.proj(x.reshape(2, 5, 16))
        return h
'''


def _claims(program: str) -> dict:
    values = analyze_source(program, "m.py").infer_json()["values"]
    return {(v["function"], v["name"]): v["shape"] for v in values}


def _line_shapes(program: str, run) -> list:
    """The shapes a page's `push` returns (`seen`), call by call, when torch runs `run`."""
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(program, "m.py", "exec"), ns)
    got = []
    push = ns["Page"].push

    def recording(self, h):
        out = push(self, h)
        got.append(tuple(out.shape))
        return out
    ns["Page"].push = recording
    with torch.no_grad():
        run(ns, torch)
    return got


def _agrees(claim, shapes: list) -> bool:
    """`claim` (an `infer` shape, or None) holds for every one of `shapes`: each dim is `?` or
    the number every call has there."""
    if claim is None:
        return True
    return all(len(claim) == len(s) and all(c == "?" or (isinstance(c, int) and c == d)
                                            for c, d in zip(claim, s)) for s in shapes)


def _model_twice(ns, torch):
    ns["Model"](2)(torch.randn(2, 5, 16))


@pytest.mark.parametrize("program, run", [
    (GLOBAL, _model_twice),
    (RESET, lambda ns, torch: (ns["start"](), _model_twice(ns, torch))),
    (GROWN, _model_twice),
], ids=["global", "reset", "grown"])
def test_a_global_objects_state_is_that_of_any_call(program, run):
    shapes = _line_shapes(program, run)
    assert len({s[1] for s in shapes}) > 1  # torch: the rows grow from call to call
    claims = _claims(program)
    assert _agrees(claims.get(("Layer.forward", "seen")), shapes), claims.get(("Layer.forward", "seen"))
    assert claims[("Layer.forward", "h")] == [2, 5, 16]  # (a line that does not read the ledger)


def _reader_twice(ns, torch):
    reader = ns["Reader"](1)
    for _ in range(2):
        reader(torch.randn(10, 16))


def test_the_objects_a_generic_instance_holds_are_at_any_point_of_their_lives():
    shapes = _line_shapes(HELD, _reader_twice)
    assert shapes == [(2, 5, 16), (2, 10, 16)]
    claims = _claims(HELD)
    seen = claims.get(("Reader.forward", "seen"))
    assert _agrees(seen, shapes), seen
    # in `Memory.push`'s own analysis, the fresh page's rows were `h` itself
    out = claims.get(("Page.push", "self.rows"))
    assert out is None or not any(re.fullmatch(r"h\.shape\[1\]", str(d)) for d in out), out
    assert claims[("Reader.forward", "h")] == [2, 5, 16]


def test_a_global_that_methods_only_read_keeps_its_values():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(CONSTANT, "m.py", "exec"), ns)
    assert tuple(ns["Layer"]()(torch.randn(10, 16)).shape) == (2, 5, 32)
    assert _claims(CONSTANT)[("Layer.forward", "h")] == [2, 5, 32]
