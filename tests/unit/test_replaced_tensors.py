"""A tensor that a method of an object that is no layer replaces without reading it
(`Page.fill(x)` storing `self.buf = x`) is what the last call gave it, not what `__init__` made
(reconfiguration._replaced, forget_held): such a method runs on inputs, at any point of the
object's life. So is a layer such a method replaces (`Holder.swap(n)` storing
`self.net = nn.Linear(8, n)`: `Holder.run` claimed the constructed layer's 16 features, where
torch gives 32 after `swap(32)`: SWAP). Kept as constructed, a module-level ledger's `LEDGER.pages[0].last()` claimed
`[2, 1, 16]` in `read`'s own analysis, where torch gives `[2, 5, 16]` after `write(x)`; so did the
generic instance of a layer holding such a page.

A layer's tensors and parameters keep their constructed shapes (a reconfiguration,
tests/unit/test_reconfiguration.py), and a page's tensor that only `__init__` sets keeps its
shape (CONTROL). Each claim is checked against torch on the meta device."""
import pytest

from shapehint.analysis.api import analyze_source

PAGE = '''import torch
from torch import nn


class Page:
    def __init__(self):
        self.buf = torch.zeros(2, 1, 16)
        self.head = torch.zeros(2, 3, 16)

    def fill(self, x):
        self.buf = x

    def last(self):
        out = self.buf
        return out

    def first(self):
        top = self.head
        return top


class Ledger:
    def __init__(self):
        self.pages = [Page()]
'''

GLOBAL = PAGE + '''

LEDGER = Ledger()


def write(x):
    LEDGER.pages[0].fill(x)


def read():
    y = LEDGER.pages[0].last()
    return y


def control():
    c = LEDGER.pages[0].first()
    return c


def run():
    write(torch.zeros(2, 5, 16))
    return read()
'''

HELD = PAGE + '''

class Reader(nn.Module):
    def __init__(self):
        super().__init__()
        self.ledger = Ledger()

    def forward(self, x):
        self.ledger.pages[0].fill(x)
        seen = self.peek()
        return seen

    def peek(self):
        got = self.ledger.pages[0].last()
        return got
'''

SWAP = '''import torch
from torch import nn


class Holder:
    def __init__(self):
        self.net = nn.Linear(8, 16)

    def swap(self, n):
        self.net = nn.Linear(8, n)

    def run(self, x):
        y = self.net(x)
        return y


HOLDER = Holder()


def go(x):
    HOLDER.swap(32)
    out = HOLDER.run(x)
    return out
'''


def _claims(program: str) -> dict:
    values = analyze_source(program, "m.py").infer_json()["values"]
    return {(v["function"], v["name"]): v["shape"] for v in values}


def _agrees(claim, shape: tuple) -> bool:
    """`claim` (an `infer` shape, or None) holds for `shape`: each dim `?`, a symbol, or that
    number; a variadic segment (`*x`) stands for any number of dims."""
    if claim is None:
        return True
    star = next((i for i, c in enumerate(claim) if isinstance(c, str) and c.startswith("*")), None)
    if star is None:
        return len(claim) == len(shape) and all(not isinstance(c, int) or c == d for c, d in zip(claim, shape))
    head, tail = claim[:star], claim[star + 1:]
    return len(head) + len(tail) <= len(shape) and _agrees(head, shape[:len(head)]) and \
        _agrees(tail, shape[len(shape) - len(tail):])


def _run(program: str, call):
    torch = pytest.importorskip("torch")
    ns: dict = {}
    torch.set_default_device("meta")
    try:
        exec(compile(program, "m.py", "exec"), ns)
        return tuple(call(ns, torch).shape)
    finally:
        torch.set_default_device(None)


def test_a_global_objects_replaced_tensor_is_that_of_the_last_call():
    assert _run(GLOBAL, lambda ns, torch: ns["run"]()) == (2, 5, 16)
    claims = _claims(GLOBAL)
    y = claims.get(("read", "y"))
    assert y != [2, 1, 16] and _agrees(y, (2, 5, 16)), y  # (main: [2, 1, 16])


def test_a_tensor_only_init_sets_keeps_its_shape():
    assert _run(GLOBAL, lambda ns, torch: ns["control"]()) == (2, 3, 16)
    assert _claims(GLOBAL)[("control", "c")] == [2, 3, 16]


def test_the_generic_instance_holds_the_page_at_any_point_of_its_life():
    got = _run(HELD, lambda ns, torch: ns["Reader"]()(torch.zeros(2, 5, 16)))
    assert got == (2, 5, 16)
    claims = _claims(HELD)
    for key in (("Reader.peek", "got"), ("Reader.forward", "seen"), ("Page.last", "out")):
        assert claims.get(key) != [2, 1, 16], (key, claims.get(key))  # (main: each [2, 1, 16])
        assert _agrees(claims.get(key), got), (key, claims.get(key))


def test_a_layer_a_method_of_an_object_that_is_no_layer_replaces_is_that_of_the_last_call():
    got = _run(SWAP, lambda ns, torch: ns["go"](torch.zeros(2, 8)))
    assert got == (2, 32)
    claims = _claims(SWAP)
    for key in (("Holder.run", "y"), ("go", "out")):
        assert claims.get(key) is None or claims[key][-1] != 16, (key, claims.get(key))  # (main: 16 features)
        assert _agrees(claims.get(key), got), (key, claims.get(key))
