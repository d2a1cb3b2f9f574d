"""A property with a setter (analysis/properties.py): a store to its name runs the setter, and a
read runs the getter, so a later write where the getter reads (`obj._impl_internal = ...`, as a
model's constructor adjusts its configuration) is what the property gives. Stored as a plain
attribute, the read gave the first value: the arm it picked, a wrong shape. Checked against
torch running the program."""
import torch

from .program_runs import infer, run

PROGRAM = """import torch
import torch.nn as nn


class Base:
    def __init__(self, **kwargs):
        self.impl = kwargs.pop("impl", None)

    @property
    def impl(self):
        return self._impl_internal

    @impl.setter
    def impl(self, value):
        self._impl_internal = value if not isinstance(value, dict) else value.get("", "plain")


class Cfg(Base):
    def __init__(self, width=4, **kwargs):
        self.width = width
        super().__init__(**kwargs)


def pick(cfg):
    return 3 if cfg.impl == "a" else 5


def run(x):
    c = Cfg(impl="a")
    first = nn.Linear(4, pick(c))(x)
    c._impl_internal = "b"
    adjusted = nn.Linear(4, pick(c))(x)
    d = Cfg()
    d.impl = "a"
    stored = nn.Linear(4, 3 if d._impl_internal == "a" else 5)(x)
    e = Cfg(impl="a")
    setattr(e, "impl", {"": "b"})
    by_setattr = nn.Linear(4, pick(e))(x)
    return first, adjusted, stored, by_setattr
"""


def test_a_property_store_runs_its_setter_and_a_read_its_getter(tmp_path):
    x = torch.randn(2, 4)
    expected = [list(t.shape) for t in run(PROGRAM)["run"](x)]
    assert expected == [[2, 3], [2, 5], [2, 3], [2, 5]]
    vals = {(v["function"], v["name"]): v.get("shape") for v in infer(tmp_path, PROGRAM)["values"]}
    for name, want in zip(("first", "adjusted", "stored", "by_setattr"), expected):
        assert vals[("run", name)] == ["*x", want[1]], name
