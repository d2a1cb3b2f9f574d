"""A factory's sized rerun starts from the module objects' settled state (analysis/sized_kwargs.py,
global_objects.py), not from what the factory's generic analysis left in them.

The factory hands a configuration from a module-level table to an imported builder. In the
generic analysis the builder's `features_only` flag is undecided, its costly arm runs past the
imported call's share, and the call, cut off, may have written any attribute the builder stores
by name (cut_writes.py): the table's configuration forgets `extra`. The rerun, with the flag at
its default, runs the builder to its end; reading the configuration as the generic analysis left
it, its `if cfg.extra` was undecided and the head's channels unknown. Every shape claimed is
checked against torch by running the same package."""
import importlib
import os
import sys

import pytest

from shapehint.analysis.api import analyze_source

COSTLY = "\n".join(f"        n = n * 3 + {i}" for i in range(400))  # (past costs.IMPORTED_CALL_STEPS)
BUILDER = f'''def build(cls, cfg, **kwargs):
    n = 0
    if kwargs.pop('features_only', False):
{COSTLY}
    model = cls(cfg, **kwargs)
    model.extra = n
    return model
'''
MODEL = '''from dataclasses import dataclass, replace

import torch
from torch import nn

from .builder import build


@dataclass
class Cfg:
    width: int = 8
    extra: int = 0


CFGS = dict(small=Cfg(width=16), big=Cfg(width=32, extra=64))


class Net(nn.Module):
    def __init__(self, cfg, in_chans: int = 3, **kwargs):
        super().__init__()
        cfg = replace(cfg, **kwargs)
        self.conv = nn.Conv2d(in_chans, cfg.width, 3)
        self.head = nn.Conv2d(cfg.width, cfg.extra, 1) if cfg.extra else nn.Identity()

    def forward(self, x):
        x = self.conv(x)
        y = self.head(x)
        return y


def net_small(**kwargs):
    return build(Net, CFGS['small'], **kwargs)
'''
LINE = MODEL.splitlines().index("        y = self.head(x)") + 1


def _package(tmp_path):
    os.makedirs(tmp_path / "rg")
    for name, text in (("__init__.py", ""), ("builder.py", BUILDER), ("m.py", MODEL)):
        (tmp_path / "rg" / name).write_text(text)
    return tmp_path / "rg" / "m.py"


def _torch(root, x):
    sys.path.insert(0, str(root))
    try:
        for name in [m for m in sys.modules if m == "rg" or m.startswith("rg.")]:
            del sys.modules[name]
        return list(importlib.import_module("rg.m").net_small()(x).shape)
    finally:
        sys.path.remove(str(root))


def test_the_rerun_reads_the_table_as_the_module_left_it(tmp_path):
    torch = pytest.importorskip("torch")
    path = _package(tmp_path)
    r = analyze_source(path.read_text(), str(path))
    got = [c["shape"] for v in r.infer_json()["values"] if v["line"] == LINE
           for c in v.get("contexts", []) if c["context"].startswith("net_small:")]
    assert got, "no context of the factory"
    x = torch.randn(2, 3, 9, 7)
    want = _torch(tmp_path, x)
    assert want == [2, 16, 7, 5]
    assert [d if isinstance(d, int) else eval(d, {}, {"x": x}) for d in got[0]] == want, got
