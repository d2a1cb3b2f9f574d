"""`dataclasses.replace(cfg, **kwargs)` (library_helpers._replaced): a configuration copied with
the caller's overrides, `__post_init__` run again, as Python does. In a construction context
(built.py) the factory's own overrides are facts; a field the factory's open `**kwargs` may still
change is what a default callers may replace is (a size is a symbol), never the value `cfg` held.
Checked against torch running the same program."""
import torch

from shapehint.devicerun.builders import built_by

from .program_runs import infer, run

PROGRAM = """from dataclasses import dataclass, replace

import torch
import torch.nn as nn


@dataclass
class Cfg:
    width: int = 8
    depth: int = 2
    num_classes: int = 10

    def __post_init__(self):
        self.hidden = self.width * 2


class Net(nn.Module):
    def __init__(self, cfg: Cfg, **kwargs):
        super().__init__()
        cfg = replace(cfg, **kwargs)
        self.conv = nn.Conv2d(3, cfg.hidden, 3)
        self.fc = nn.Linear(cfg.hidden, cfg.num_classes)

    def forward(self, x):
        y = self.conv(x)
        z = y.mean((2, 3))
        return self.fc(z)


def net_wide(**kwargs):
    return Net(Cfg(width=4), width=6, **kwargs)


def net_plain(**kwargs):
    return Net(Cfg(width=5), **kwargs)


def closed(x):
    cfg = replace(Cfg(width=5), depth=3)
    h = nn.Conv2d(3, cfg.width + cfg.depth, 3)(x)
    return h


def opened(x, **kwargs):
    cfg = replace(Cfg(width=5), **kwargs)
    g = nn.Conv2d(3, cfg.width, 3)(x)
    return g


def run(x):
    wide, plain = net_wide(), net_plain()
    return wide.conv(x), plain.conv(x), closed(x), opened(x, width=7), opened(x)
"""


def _values(out):
    return {(v["function"], v["name"]): v for v in out["values"]}


def test_replace_applies_the_overrides_and_runs_post_init_again(tmp_path):
    x = torch.randn(2, 3, 10, 10)
    wide_y, plain_y, h, g7, g5 = [list(t.shape) for t in run(PROGRAM)["run"](x)]
    assert (wide_y, plain_y, h, g7, g5) == ([2, 12, 8, 8], [2, 10, 8, 8], [2, 8, 8, 8], [2, 7, 8, 8], [2, 5, 8, 8])
    out = infer(tmp_path, PROGRAM)
    vals = _values(out)
    y = vals[("Net.forward", "y")]
    contexts = {c["context"].split(":")[0]: c["shape"] for c in y.get("contexts") or []}
    assert contexts["net_wide"][1] == wide_y[1]  # (the factory's own override, after the cfg's)
    assert vals[("closed", "h")]["shape"][1] == h[1]
    assert not any(d["code"] == "SH301" for d in out["diagnostics"])


def test_a_field_open_kwargs_may_change_is_not_the_copied_value(tmp_path):
    vals = _values(infer(tmp_path, PROGRAM))
    # `opened(x)` builds 5 channels, `opened(x, width=7)` 7: the generic analysis claims neither
    assert vals[("opened", "g")]["shape"][1] not in (5, 8)
    y = vals[("Net.forward", "y")]
    contexts = {c["context"].split(":")[0]: c["shape"] for c in y.get("contexts") or []}
    # net_plain's `**kwargs` may hold `width`: its model's channels are claimed as 10 only for the
    # builds its sized context stands for (analysis/sized_kwargs.py), which name no field of the
    # file's dataclasses (devicerun/builders.py): `net_plain()`, 10 as torch ran it, not
    # `net_plain(width=7)`
    x = torch.randn(2, 3, 10, 10)
    assert contexts["net_plain"][1] == list(run(PROGRAM)["run"](x)[1].shape)[1] == 10
    assert "net_plain" in built_by(["net_plain()"], PROGRAM)
    assert "net_plain" not in built_by(["net_plain(width=7)"], PROGRAM)
