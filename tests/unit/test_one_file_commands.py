"""`python -m shapehint.cli infer FILE` (how the referee and scripts run it) goes through `entry`:
the cyclic collector stays paused for the whole one-file command, signatures included, and the
process ends without tearing its heap down (cli.py). Collections after the analysis walked the
whole live analysis again and again: about a third of `infer`'s CPU on a transformers modeling
file. The answer is the one `main` gives in-process, and a shape it prints matches torch's."""
import gc
import json
import os
import runpy
import sys

import pytest

from shapehint import cli, sources

PROGRAM = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2)

    def forward(self, x):
        y = self.conv(x)
        return y.flatten(1)
'''


pytestmark = pytest.mark.filterwarnings("ignore:'shapehint.cli' found in sys.modules")


class Exited(Exception):
    pass


def _run_as_script(tmp_path, monkeypatch, capsys):
    path = tmp_path / "net.py"
    path.write_text(PROGRAM)
    collector = []
    real = sources.analyze_path

    def watched(*a, **k):
        collector.append(gc.isenabled())
        return real(*a, **k)

    def exit_(code):
        raise Exited(code)

    monkeypatch.setattr(sources, "analyze_path", watched)
    monkeypatch.setattr(os, "_exit", exit_)
    monkeypatch.setattr(sys, "argv", ["shapehint.cli", "infer", str(path), "--format", "json"])
    with pytest.raises(Exited) as ended:
        runpy.run_module("shapehint.cli", run_name="__main__", alter_sys=False)
    return str(path), collector, ended.value.args[0], json.loads(capsys.readouterr().out)


def test_the_module_run_as_a_script_pauses_the_collector_and_exits_hard(tmp_path, monkeypatch, capsys):
    assert gc.isenabled()
    path, collector, code, data = _run_as_script(tmp_path, monkeypatch, capsys)
    assert collector == [False]
    assert code == 0
    assert gc.isenabled()  # the pause ends with the command
    cli.main(["infer", path, "--format", "json"])
    assert json.loads(capsys.readouterr().out) == data


def test_the_printed_shape_is_torchs(tmp_path, monkeypatch, capsys):
    torch = pytest.importorskip("torch")
    _, _, _, data = _run_as_script(tmp_path, monkeypatch, capsys)
    shape = next(v["shape"] for v in data["values"] if v["line"] == 11 and v["name"] == "y")
    space: dict = {}
    exec(compile(PROGRAM, "net.py", "exec"), space)
    for dims in ((2, 3, 32, 32), (1, 3, 17, 40)):
        sizes = {f"x.shape[{i}]": str(n) for i, n in enumerate(dims)}
        claimed = []
        for d in shape:
            for name, n in sizes.items():
                d = str(d).replace(name, n)
            claimed.append(eval(d))
        assert claimed == list(space["Net"]().conv(torch.randn(*dims)).shape)
