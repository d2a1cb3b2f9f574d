"""The truth of an object in `if x:` (analysis/object_truth.py): Python asks the class's
`__bool__`, else its `__len__`, else the object is truthy. An empty `ModuleList` / `Sequential`
is falsy (torch defines `__len__` on them); an instance of a class that defines `__len__` or
`__bool__` may be falsy, so both arms are kept; one of a class whose every ancestor is seen and
defines neither is truthy. Each decided case is checked against torch by running the program."""
import pytest
import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
from torch import nn, Tensor
from jaxtyping import Float


class Plain:
    def __init__(self):
        self.rows = []


class Store:
    def __init__(self):
        self.rows = []

    def __len__(self):
        return len(self.rows)


class Flag:
    def __bool__(self):
        return False


class SubStore(Store):
    pass


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([])
        self.full = nn.ModuleList([nn.Linear(4, 4)])
        self.seq = nn.Sequential()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: Float[Tensor, "B 4"]):
        a = torch.cat([x, x], 0) if self.layers else x
        b = torch.cat([x, x], 0) if self.full else x
        c = torch.cat([x, x], 0) if self.seq else x
        d = torch.cat([x, x], 0) if self.lin else x
        e = torch.cat([x, x], 0) if self else x
        return a, b, c, d, e


def objs(x: Float[Tensor, "B 4"]):
    p = torch.cat([x, x], 0) if Plain() else x
    s = torch.cat([x, x], 0) if Store() else x
    f = torch.cat([x, x], 0) if Flag() else x
    u = torch.cat([x, x], 0) if SubStore() else x
    return p, s, f, u
'''

UNSEEN_BASE = '''import torch
from torch import Tensor
from jaxtyping import Float
from elsewhere import Base


class Plain(Base):
    pass


def objs(x: Float[Tensor, "B 4"]):
    p = torch.cat([x, x], 0) if Plain() else x
    return p
'''


def _shapes(program: str) -> dict:
    r = analyze_source(program, "m.py")
    assert not r.stats.get("internal_errors"), r.stats
    return {(v.function, v.name): str(v.shape) for v in r.values}


def _torch():
    scope: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), scope)
    x = torch.zeros(5, 4, device="meta")
    block = scope["Block"]().to("meta")
    got = list(block(x)) + list(scope["objs"](x))
    return dict(zip("abcdepsfu", (tuple(t.shape) for t in got)))


@pytest.mark.parametrize("name, fn, shape, rows", [
    ("a", "Block.forward", "[B, 4]", 5),     # empty ModuleList: falsy
    ("b", "Block.forward", "[2*B, 4]", 10),  # ModuleList of one layer: truthy
    ("c", "Block.forward", "[B, 4]", 5),     # empty Sequential: falsy
    ("d", "Block.forward", "[2*B, 4]", 10),  # a layer (no __len__ / __bool__): truthy
    ("e", "Block.forward", "[2*B, 4]", 10),  # a module of our own: truthy
    ("p", "objs", "[2*B, 4]", 10),           # a class defining neither: truthy
])
def test_decided_truth_is_pythons(name, fn, shape, rows):
    assert _shapes(PROGRAM)[(fn, name)] == shape
    assert _torch()[name] == (rows, 4)


@pytest.mark.parametrize("name", ["s", "f", "u"])
def test_a_class_with_len_or_bool_keeps_both_arms(name):
    # `__len__` (own or inherited) or `__bool__`: here falsy, so the true arm's [2*B, 4] is not claimed
    assert _torch()[name] == (5, 4)
    assert _shapes(PROGRAM)[("objs", name)] == "[?, 4]"


def test_a_base_not_seen_keeps_both_arms():
    assert _shapes(UNSEEN_BASE)[("objs", "p")] == "[?, 4]"
