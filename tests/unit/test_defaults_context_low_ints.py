"""The defaults construction context (analysis/flag_defaults.py) with int defaults below 1 fixed.

An int default of 0 (`reg_tokens: int = 0`) is a symbol that may be 0 in the class on its own
(defaults.symbol_noting), so `... if reg_tokens else None` and a later `if self.reg_token is not
None:` are undecided there, and a list the tests fill (`to_cat`) is of unknown length. The
construction with the defaults holds it 0: the register tokens are left out, so `torch.cat(to_cat
+ [x], 1)` has exactly the class token more. devicerun/builders.py binds a build to that context
only when it passes no such int another value (and the class's own answer stays the join, which
holds for `reg_tokens=4` too). Every shape claimed is checked against torch (meta tensors)."""
import pytest

from shapehint.devicerun.builders import built_by

from .test_defaults_context_floats_forwarding import _at, _context, _values
from .test_flag_default_context import _evaluates

PROGRAM = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, n: int = 4, dim: int = 8, class_token: bool = True, reg_tokens: int = 0):
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim)) if class_token else None
        self.reg_token = nn.Parameter(torch.zeros(1, reg_tokens, dim)) if reg_tokens else None
        self.proj = nn.Linear(dim, dim)
        self.n, self.dim = n, dim

    def forward(self, x):
        x = self.proj(x.reshape(x.shape[0], self.n, self.dim))
        to_cat = []
        if self.cls_token is not None:
            to_cat.append(self.cls_token.expand(x.shape[0], -1, -1))
        if self.reg_token is not None:
            to_cat.append(self.reg_token.expand(x.shape[0], -1, -1))
        x = torch.cat(to_cat + [x], dim=1)
        return x


class Child(Net):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    def forward(self, x):
        x = self.proj(x.reshape(x.shape[0], self.n, self.dim))
        to_cat = [self.cls_token.expand(x.shape[0], -1, -1)]
        if self.reg_token is not None:
            to_cat.append(self.reg_token.expand(x.shape[0], -1, -1))
        y = torch.cat(to_cat + [x], dim=1)
        return y
'''
NET, CHILD = "Net.__init__:6", "Child.__init__:25"
CAT, CHILD_CAT = 20, 33


def _torch(cls, **build):
    """The concatenation of `cls.forward` (meta tensors), the class built with `build`."""
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "lowints.py", "exec"), ns)
    net = ns[cls](**build).to("meta")
    x = torch.empty(2, 4, 8, device="meta")
    return x, net(x)


def test_torch_the_int_changes_the_length():
    assert _torch("Net")[1].shape == (2, 5, 8)
    assert _torch("Net", reg_tokens=3)[1].shape == (2, 8, 8)
    assert _torch("Child")[1].shape == (2, 5, 8)


def test_an_int_default_of_zero_is_decided_in_the_context_only():
    values = _values(PROGRAM)
    x, got = _torch("Net")
    _evaluates(_context(_at(values, "Net.forward", CAT, "x"), NET), got.shape, {"x": x, "n": 4, "dim": 8})
    # the class on its own: the register tokens may be there (reg_tokens=3 gives 8, not 5)
    assert _at(values, "Net.forward", CAT, "x")["shape"][1] == "?"


def test_a_forwarding_class_gets_the_bases_int_default():
    values = _values(PROGRAM)
    x, got = _torch("Child")
    _evaluates(_context(_at(values, "Child.forward", CHILD_CAT, "y"), CHILD), got.shape, {"x": x, "n": 4, "dim": 8})
    assert _at(values, "Child.forward", CHILD_CAT, "y")["shape"][1] == "?"


def test_an_int_default_from_one_up_is_no_part_of_the_context():
    # `n: int = 4` stays a symbol there: a build passing its own size is still in the context
    values = _values(PROGRAM)
    assert _context(_at(values, "Net.forward", CAT, "x"), NET)[1] == "n + 1"


@pytest.mark.parametrize("build, label, matched", [
    ("Net()", "Net.__init__", True),
    ("Net(n=16, dim=32)", "Net.__init__", True),
    ("Net(reg_tokens=0)", "Net.__init__", True),
    ("Net(reg_tokens=4)", "Net.__init__", False),  # register tokens: the context says nothing of it
    ("Net(4, 8, True, 2)", "Net.__init__", False),  # positionally
    ("Net(reg_tokens=False)", "Net.__init__", False),  # not an int constant
    ("Child(reg_tokens=0)", "Child.__init__", True),  # the base's signature
    ("Child(reg_tokens=1)", "Child.__init__", False),
])
def test_a_build_is_in_the_context_only_with_the_int_at_its_default(build, label, matched):
    assert (label in built_by([build], PROGRAM)) is matched
