"""Activation tables looked up by name (sealed_dicts.py, torch_names.py): an imported module's
private dict that only its top-level code fills decides `name in d` both ways, so
`if name in _FAST: return _FAST[name]` falls through to the plain table; a torch feature test
(`'silu' in dir(torch.nn.functional)`, `hasattr(nn, 'SiLU')`) is true where a rule exists. A
table that a function fills (a registry), or that top-level code hands to a function the
analysis does not run, stays open: absence decides nothing there. Every shape claimed is
checked against torch running the same package; `x` is [2, 4, 4], so the fallback `Flat`
(flatten) and a torch activation give different shapes and a wrong choice shows."""
import torch

from .program_runs import infer_file, run_package, write_package

FILES = {
    "acts/__init__.py": "",
    "acts/table.py": """import torch
import torch.nn as nn

_has_silu = 'silu' in dir(torch.nn.functional)
_has_nothing = 'no_such_function' in dir(torch.nn.functional)


class Flat(nn.Module):
    def forward(self, x):
        return x.flatten(1)


_FAST = dict(swish=nn.SiLU if _has_silu else Flat, mish=nn.Mish)
_PLAIN = dict(relu=nn.ReLU, gelu=nn.GELU, swish=Flat)
_TABLES = (_FAST, _PLAIN)
for t in _TABLES:
    t.setdefault('hardswish', nn.Hardswish)
_REGISTRY = dict(relu=nn.ReLU)
_FILLED = {}


def register(name, cls):
    _REGISTRY[name] = cls


def _fill(d):
    d['gelu'] = nn.GELU


_fill(_FILLED)
register('gelu', nn.GELU)


def get_layer(name):
    if name in _FAST:
        return _FAST[name]
    return _PLAIN[name]


def get_registered(name):
    if name in _REGISTRY:
        return _REGISTRY[name]
    return Flat


def get_filled(name):
    if name in _FILLED:
        return _FILLED[name]
    return Flat


def guessed():
    return nn.SiLU if _has_nothing else Flat


def by_hasattr():
    return nn.SiLU if hasattr(nn, 'SiLU') else Flat
""",
    "acts/m.py": """import torch
import torch.nn as nn
from .table import by_hasattr, get_filled, get_layer, get_registered, guessed


def run(x):
    assert x.shape == (2, 4, 4)
    relu = get_layer('relu')()(x)
    gelu = get_layer('gelu')()(x)
    swish = get_layer('swish')()(x)
    hard = get_layer('hardswish')()(x)
    registered = get_registered('gelu')()(x)
    filled = get_filled('gelu')()(x)
    fallback = guessed()()(x)
    present = by_hasattr()()(x)
    return relu, gelu, swish, hard, registered, filled, fallback, present
""",
}
NAMES = ("relu", "gelu", "swish", "hard", "registered", "filled", "fallback", "present")


def _shapes(tmp_path):
    path = write_package(tmp_path, FILES)
    got = {v["name"]: v["shape"] for v in infer_file(path)["values"] if v["function"] == "run"}
    want = dict(zip(NAMES, [list(t.shape) for t in run_package(tmp_path, "acts.m", torch.randn(2, 4, 4))]))
    return got, want


def test_private_tables_and_torch_feature_tests_decide_the_layer(tmp_path):
    got, want = _shapes(tmp_path)
    for name in ("relu", "gelu", "swish", "hard", "present"):
        assert got.get(name) == want[name] == [2, 4, 4], name


def test_tables_other_code_fills_and_names_torch_lacks_decide_nothing(tmp_path):
    got, want = _shapes(tmp_path)
    assert want["registered"] == want["filled"] == [2, 4, 4] and want["fallback"] == [2, 16]
    # the registry and the filled table hold 'gelu' at run time: absence must not be assumed
    assert got.get("registered") is None and got.get("filled") is None
    # a name without a rule may or may not exist in the installed torch: no choice is made (the
    # join of both arms at most)
    assert got.get("fallback") in (None, [2, "*?"])
