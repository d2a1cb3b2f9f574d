"""A property with a setter (`@property def flag` then `@flag.setter def flag`): reading the
attribute calls the getter (analysis/properties.py). The class body binds the name to the setter
last; taken as a method, the read was a bound method, always true, and `if not cfg.flag` was
decided for every configuration (transformers' configs define `output_attentions` so: the
generic analysis of a model took `not output_attentions` as false and dropped its SDPA mask).
Checked against torch by running the program."""
import torch

from .program_runs import infer, run

PROGRAM = """import torch


class Config:
    def __init__(self, flag):
        self._flag = flag

    @property
    def flag(self):
        return self._flag

    @flag.setter
    def flag(self, value):
        self._flag = value


def pick(x, flag):
    cfg = Config(flag)
    if not cfg.flag:
        y = x.reshape(2, -1)
    else:
        y = x.reshape(4, -1)
    return y


def main():
    x = torch.randn(8)
    off = pick(x, False)
    on = pick(x, True)
    return off, on
"""


def _values(tmp_path):
    return {v["name"]: v["shape"] for v in infer(tmp_path, PROGRAM)["values"] if v["function"] == "main"}


def test_a_property_with_a_setter_reads_its_getter(tmp_path):
    off, on = run(PROGRAM)["main"]()
    got = _values(tmp_path)
    assert got["off"] == list(off.shape) == [2, 4]  # the setter read as a method: [4, 2], wrong
    assert got["on"] == list(on.shape) == [4, 2]


def test_the_setter_still_sets():
    scope = run(PROGRAM)
    cfg = scope["Config"](False)
    cfg.flag = True
    assert cfg.flag is True and torch.is_tensor(scope["pick"](torch.randn(8), cfg.flag))
