"""`len(obj)` of an instance whose class defines `__len__` is what that method returns
(analysis/instance_len.py): a store that keeps its slots in a list answers `len(store)` with
`len(self.slots)`, so a loop over `range(len(store))` of a fresh, empty store runs zero times. The
method is taken only where the class's whole resolution order is seen (a base the analysis does
not see may define `__len__`). Shapes are checked against torch by running the programs."""
import pytest
import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
from jaxtyping import Float
from torch import Tensor


class Bank:
    def __init__(self, n):
        self.rows = [i for i in range(n)]

    def __len__(self):
        return len(self.rows)


class Empty(Bank):
    def __init__(self):
        super().__init__(0)


def sized(x: Float[Tensor, "B 4"]):
    bank = Bank(3)
    out = x.new_zeros(len(bank), 4)
    return out


def counted(x: Float[Tensor, "B 4"]):
    y = x
    for _ in range(len(Empty())):
        y = torch.cat([y, x], 0)
    z = y
    return z


def grown(x: Float[Tensor, "B 4"]):
    y = x
    for _ in range(len(Bank(2))):
        y = torch.cat([y, x], 0)
    z = y
    return z
'''

UNSEEN_BASE = '''import torch
from jaxtyping import Float
from torch import Tensor
from elsewhere import Base


class Bank(Base):
    def __init__(self, n):
        self.rows = [i for i in range(n)]

    def __len__(self):
        return len(self.rows)


def sized(x: Float[Tensor, "B 4"]):
    bank = Bank(3)
    out = x.new_zeros(len(bank), 4)
    return out
'''


def _shapes(program: str) -> dict:
    r = analyze_source(program, "m.py")
    assert not r.stats.get("internal_errors"), r.stats
    return {(v.function, v.name): str(v.shape) for v in r.values}


def _torch(fn: str, *args):
    scope: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), scope)
    return scope[fn](torch.zeros(5, 4, device="meta"), *args)


def test_len_of_an_instance_is_its_classes_len():
    assert _shapes(PROGRAM)[("sized", "out")] == "[3, 4]"
    assert tuple(_torch("sized").shape) == (3, 4)


def test_a_loop_over_the_length_of_an_empty_store_runs_no_pass():
    assert _shapes(PROGRAM)[("counted", "z")] == "[B, 4]"
    assert tuple(_torch("counted").shape) == (5, 4)


def test_a_loop_over_the_length_of_a_store_runs_its_passes():
    assert _shapes(PROGRAM)[("grown", "z")] == "[3*B, 4]"
    assert tuple(_torch("grown").shape) == (15, 4)


def test_a_base_not_seen_leaves_len_unknown():
    # `Base` (another module, absent) may define `__len__` first in the order: nothing claimed
    assert _shapes(UNSEEN_BASE)[("sized", "out")] != "[3, 4]"


@pytest.mark.parametrize("base, claimed", [("object", True), ("abc.ABC", True), ("list", False)])
def test_builtin_bases(base, claimed):
    # `object` and `ABC` define no `__len__`; any other base not seen (a builtin such as `list`)
    # is refused, even where the class's own method comes first in the order: no claim
    src = "import abc\n" + PROGRAM.replace("class Bank:", "class Bank(%s):" % base)
    assert (_shapes(src)[("sized", "out")] == "[3, 4]") is claimed
    scope: dict = {}
    exec(compile(src, "m.py", "exec"), scope)
    assert tuple(scope["sized"](torch.zeros(5, 4, device="meta")).shape) == (3, 4)
