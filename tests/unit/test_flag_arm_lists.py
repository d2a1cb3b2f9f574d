"""A list a flag's arm fills in place (arm_lists.py; dicts: arm_dicts.py): `to_cat = []`, then
`to_cat.append(cls_token)` under `if self.cls_token is not None:` (the token built only when the
bool constructor flag keeps its default). The class on its own may be built with the flag off,
where `to_cat` stays empty and `x` keeps its length, so the generic analysis must not claim the
default's `x.shape[1] + 1` after `if to_cat:` (it did: the empty list was recorded by reference,
so the arm's append looked like no change). The construction context with the flag at its
default (`Emb.__init__:LINE`, flag_defaults.py) still claims the default's exact shape. Every
claim is checked against torch on the meta device, with the flag at both values."""
import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import value_at

PROGRAM = '''import torch
import torch.nn as nn


class Emb(nn.Module):
    def __init__(self, dim: int = 8, class_token: bool = True):
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim)) if class_token else None
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        x = self.proj(x)
        to_cat = []
        if self.cls_token is not None:
            to_cat.append(self.cls_token.expand(x.shape[0], -1, -1))
        if to_cat:
            x = torch.cat(to_cat + [x], dim=1)
        x = x * 2
        return x
'''
LABEL = "Emb.__init__:6"
AFTER = (17, 18)  # the `cat` and the line after the `if`


def _values():
    return analyze_source(PROGRAM, "flagarmlists.py").infer_json()["values"]


def _at(values, line):
    return value_at(values, "Emb.forward", line, "x")


def _torch_lengths(class_token: bool) -> int:
    """x.shape[1] after the `if`, for an input of length 5, the class built with `class_token`."""
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "flagarmlists.py", "exec"), ns)
    net = ns["Emb"](class_token=class_token).to("meta")
    return net(torch.empty(2, 5, 8, device="meta")).shape[1]


def test_torch_gives_each_arm_its_length():
    assert _torch_lengths(True) == 6
    assert _torch_lengths(False) == 5


def test_generic_answer_is_not_the_default_arms():
    values = _values()
    for line in AFTER:
        v = _at(values, line)
        shape = v["shape"] if v is not None else None
        # (the default's arm alone would be `x.shape[1] + 1`, wrong for class_token=False)
        assert shape is None or all("+ 1" not in str(d) for d in shape), (line, shape)


def test_default_context_keeps_its_exact_shape():
    values = _values()
    for line in AFTER:
        v = _at(values, line)
        got = [c["shape"] for c in (v or {}).get("contexts") or [] if c["context"] == LABEL]
        assert got == [["x.shape[0]", "x.shape[1] + 1", "dim"]], (line, v)
