"""The defaults construction context (analysis/flag_defaults.py) with float defaults decided, a
class that forwards `*args, **kwargs` to its base's `__init__`, and lists a flag's arm fills
(flags.arm_gets_on, arm_lists.join_lists).

- A float default (`drop_rate: float = 0.`) decides `if drop_rate > 0:` there: the part that
  drops tokens is left out, so the sequence keeps its length (the class on its own joins both).
- `Child.__init__(self, *args, **kwargs)` handing them to `super().__init__` gets the base's
  flags, strings and floats at their defaults through its open `**kwargs`.
- A list a flag's `if` fills (`to_cat.append(cls)`) is, past it, of unknown length with the
  join of either arm's items, so `torch.cat(to_cat + [x], 1)` keeps the batch and width axes.
- devicerun/builders.py binds a build to such a context only when it passes every bool, string
  and float the context decides its default (the base's signature for a forwarding class).
Every shape claimed is checked against torch (meta tensors) for the class built that way."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

from .infer_values import context_shape, value_at

from .test_flag_default_context import _evaluates

PROGRAM = '''import torch
from torch import nn


class Drop(nn.Module):
    def __init__(self, keep: int = 2):
        super().__init__()
        self.keep = keep

    def forward(self, x):
        return x[:, :self.keep]


class Net(nn.Module):
    def __init__(self, n: int = 4, dim: int = 8, class_token: bool = True, drop_rate: float = 0.):
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim)) if class_token else None
        self.proj = nn.Linear(dim, dim)
        self.n, self.dim = n, dim
        if drop_rate > 0:
            self.drop = Drop()
        else:
            self.drop = nn.Identity()

    def forward(self, x):
        x = self.proj(x.reshape(x.shape[0], self.n, self.dim))
        to_cat = []
        if self.cls_token is not None:
            to_cat.append(self.cls_token.expand(x.shape[0], -1, -1))
        x = torch.cat(to_cat + [x], dim=1)
        x = self.drop(x)
        return x


class Child(Net):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.head = nn.Linear(self.dim, 3)

    def forward(self, x):
        x = self.proj(x.reshape(x.shape[0], self.n, self.dim))
        to_cat = []
        if self.cls_token is not None:
            to_cat.append(self.cls_token.expand(x.shape[0], -1, -1))
        x = torch.cat(to_cat + [x], dim=1)
        x = self.drop(x)
        y = self.head(x[:, 0])
        return y
'''
NET, CHILD = "Net.__init__:15", "Child.__init__:36"
CAT, DROP = 30, 31  # Net.forward's lines
CHILD_LINES = ((45, "x"), (46, "x"), (47, "y"))


def _values(text=PROGRAM):
    return analyze_source(text, "floatdefaults.py").infer_json()["values"]


_at = value_at
_context = context_shape


def _torch(cls, **build):
    """The values after the lines of `cls.forward` (meta tensors), the class built with `build`."""
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "floatdefaults.py", "exec"), ns)
    net = ns[cls](**build).to("meta")
    x = torch.empty(2, 4, 8, device="meta")
    h = net.proj(x.reshape(x.shape[0], net.n, net.dim))
    toks = [net.cls_token.expand(2, -1, -1)] if net.cls_token is not None else []
    cat = torch.cat(toks + [h], dim=1)
    out = {"cat": cat, "drop": net.drop(cat)}
    if cls == "Child":
        out["y"] = net.head(out["drop"][:, 0])
    return x, out


def test_torch_the_float_and_the_flag_change_the_length():
    assert _torch("Net")[1]["drop"].shape[1] == 5
    assert _torch("Net", drop_rate=0.1)[1]["drop"].shape[1] == 2
    assert _torch("Net", class_token=False)[1]["cat"].shape[1] == 4


def test_a_float_default_is_decided_in_the_context_only():
    values = _values()
    x, seen = _torch("Net")
    env = {"x": x, "n": 4, "dim": 8}
    for line, key in ((CAT, "cat"), (DROP, "drop")):
        _evaluates(_context(_at(values, "Net.forward", line, "x"), NET), seen[key].shape, env)
    # the class on its own: the dropout may be there, and the token too
    for line in (CAT, DROP):
        assert _at(values, "Net.forward", line, "x")["shape"][1] == "?"


def test_a_flags_arm_list_keeps_its_items_axes():
    v = _at(_values(), "Net.forward", CAT, "x")
    # either arm's list: batch and width known, the length not (the default's `n + 1` would be
    # wrong for class_token=False)
    assert v["shape"] == ["x.shape[0]", "?", "dim"]
    for build in ({}, {"class_token": False}):
        x, seen = _torch("Net", **build)
        assert [seen["cat"].shape[0], seen["cat"].shape[2]] == [x.shape[0], 8]


def test_a_class_forwarding_its_arguments_has_its_bases_defaults_context():
    values = _values()
    x, seen = _torch("Child")
    env = {"x": x, "n": 4, "dim": 8}
    for (line, name), key in zip(CHILD_LINES, ("cat", "drop", "y")):
        _evaluates(_context(_at(values, "Child.forward", line, name), CHILD), seen[key].shape, env)


def test_no_forwarding_context_without_the_bases_flags():
    text = PROGRAM.replace("class_token: bool = True, drop_rate: float = 0.", "class_token=1, drop_rate=0")
    assert all(_context(v, CHILD) is None and _context(v, NET) is None for v in _values(text))


@pytest.mark.parametrize("build, label, matched", [
    ("Net()", "Net.__init__", True),
    ("Net(drop_rate=0.)", "Net.__init__", True),
    ("Net(drop_rate=0.1)", "Net.__init__", False),  # another float: the dropout is there
    ("Net(drop_rate=0)", "Net.__init__", False),  # not a float constant
    ("Child(n=4, dim=16)", "Child.__init__", True),  # the base's signature
    ("Child(class_token=False)", "Child.__init__", False),
    ("Child(drop_rate=0.5)", "Child.__init__", False),
    ("Child(4, 8, False)", "Child.__init__", False),  # positionally
    ("Child(**kw)", "Child.__init__", False),
])
def test_a_build_is_in_the_context_only_with_every_decided_default(build, label, matched):
    assert (label in built_by([build], PROGRAM)) is matched


def test_a_base_imported_from_the_package_is_read_from_its_file(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    base = PROGRAM[:PROGRAM.index("class Child")]
    (pkg / "base.py").write_text(base)
    child = "from pkg.base import Net\n\n\n" + PROGRAM[PROGRAM.index("class Child"):]
    (pkg / "child.py").write_text(child)
    path = str(pkg / "child.py")
    assert "Child.__init__" in built_by(["Child(dim=16)"], child, path)
    assert "Child.__init__" not in built_by(["Child(class_token=False)"], child, path)
    assert "Child.__init__" not in built_by(["Child(dim=16)"], child)  # the base not found: no match
