"""A function of the analysed file that another module's code calls back (a method passed to a
helper of the package: `run_in_pieces(self.part, x)`) is recorded in the calling context where
this file's call entered that module, so hover shows its shapes there (analysis/calls.py,
frames.Frame.records_back). Checked against torch."""
import textwrap

import pytest

from shapehint.analysis.api import analyze_source

from .program_runs import run_package, write_package

torch = pytest.importorskip("torch")

HELPERS = """\
    import torch


    def run_in_pieces(fn, size: int, dim: int, *tensors):
        if size > 0:
            n = tensors[0].shape[dim] // size
            parts = tuple(t.chunk(n, dim=dim) for t in tensors)
            return torch.cat(tuple(fn(*p) for p in zip(*parts)), dim=dim)
        return fn(*tensors)
    """
MODEL = """\
    import torch
    from torch import nn

    from .helpers import run_in_pieces


    class FF(nn.Module):
        def __init__(self, d: int, h: int, size: int = 0):
            super().__init__()
            self.size = size
            self.a = nn.Linear(d, h)
            self.b = nn.Linear(h, d)

        def forward(self, x):
            return run_in_pieces(self.part, self.size, 1, x)

        def part(self, x):
            y = self.a(x)
            z = self.b(y)
            return z


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.ff = FF(8, 16)

        def forward(self, x):
            assert x.shape == (2, 5, 8)
            return self.ff(x)


    def run():
        # the shapes of y and z when Net runs on a (2, 5, 8) input
        net, x = Net(), torch.zeros(2, 5, 8)
        assert net(x).shape == (2, 5, 8)
        y = net.ff.a(x)
        return {"y": tuple(y.shape), "z": tuple(net.ff.b(y).shape)}
    """


def test_a_method_called_back_from_a_package_helper_has_its_callers_context(tmp_path):
    path = write_package(tmp_path, {"cbpkg/__init__.py": "", "cbpkg/helpers.py": textwrap.dedent(HELPERS),
                                    "cbpkg/model.py": textwrap.dedent(MODEL)})
    values = analyze_source(path.read_text(), str(path)).infer_json()["values"]
    want = run_package(tmp_path, "cbpkg.model")
    x = {"x.shape[0]": 2, "x.shape[1]": 5, "x.shape[2]": 8}  # Net.forward's x
    for name, line in (("y", 18), ("z", 19)):
        v = next(v for v in values if v["name"] == name and v["line"] == line)
        via_net = [c for c in v.get("contexts", []) if c.get("via", [None])[0] == "Net.forward:30"]
        assert via_net, v
        assert via_net[0]["context"] == "FF.forward:15"  # where this file's call entered the helper
        got = tuple(x.get(d, d) for d in via_net[0]["shape"])
        assert got == want[name], (name, via_net, want)
