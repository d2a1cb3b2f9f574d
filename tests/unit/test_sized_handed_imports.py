"""Where the analysis finds the class an int is handed to (analysis/sized_kwargs._handed) is
where devicerun/builders.py finds it (`deciding_ints.import_target`, one rule): a class of the
file, or one `from M import Name` brings from M's own file. A class a package's `__init__`
re-exports builders.py does not read; had the analysis decided the int there, a build passing
its own value would have been judged by a context holding the default (timm_regnet's head,
`ClassifierHead(num_classes=num_classes)` from `timm.layers`, turned the referee's logits wrong:
the context said 1000 where the build passed 10). So there it stays a size in both."""
import textwrap

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.builders import built_by

BUILDER = '''
from torch import nn


class Builder:
    def __init__(self, output_stride=32):
        self.output_stride = output_stride

    def __call__(self, cin, widths):
        layers, net_stride, dilation = [], 2, 1
        for w in widths:
            nxt = net_stride * 2
            if nxt > self.output_stride:
                stride, dilation = 1, dilation * 2
            else:
                stride, net_stride = 2, nxt
            layers.append(nn.Conv2d(cin, w, 3, stride, padding=dilation, dilation=dilation))
            cin = w
        return layers
'''
MODEL = '''
import torch
from torch import nn
IMPORT


class Net(nn.Module):
    def __init__(self, dim: int = 8, output_stride: int = 16, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, 3, 2, 1)
        self.blocks = nn.Sequential(*Builder(output_stride=output_stride)(dim, (16, 24, 32)))
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.blocks(x)
        return self.head(x.mean((2, 3)))


def net_s(pretrained=False, **kwargs):
    return Net(**kwargs)
'''
BLOCKS = MODEL.splitlines().index("        x = self.blocks(x)") + 1


@pytest.fixture
def pkg(tmp_path):
    (tmp_path / "netpkg").mkdir()
    (tmp_path / "netpkg" / "__init__.py").write_text("from .builder import Builder\n")
    (tmp_path / "netpkg" / "builder.py").write_text(textwrap.dedent(BUILDER))
    return tmp_path


def _run(pkg, imp):
    path = pkg / "netpkg" / "model.py"
    text = MODEL.replace("IMPORT", imp)
    path.write_text(text)
    values = analyze_source(text, str(path)).infer_json()["values"]
    line = next(v for v in values if v["function"] == "Net.forward" and v["line"] == BLOCKS)
    shapes = [c["shape"] for c in line.get("contexts") or [] if c["context"].startswith("net_s:")]
    return shapes, "net_s" in built_by(["net_s(output_stride=8)"], text, str(path))


def _torch(pkg):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(textwrap.dedent(BUILDER) + MODEL.replace("IMPORT", ""), "model.py", "exec"), ns)
    net = ns["net_s"](num_classes=7).to("meta")
    x = torch.empty(2, 3, 64, 40, device="meta")
    return x, net.blocks(net.stem(x)).shape


def test_a_class_from_its_own_module_decides_in_both(pkg):
    shapes, matched = _run(pkg, "from .builder import Builder")
    assert shapes and "?" not in shapes[0] and not any("output_stride" in str(d) for d in shapes[0]), shapes
    x, seen = _torch(pkg)
    assert [d if isinstance(d, int) else eval(d, {"x": x}) for d in shapes[0]] == list(seen) == [2, 32, 4, 3]
    assert not matched  # (the context holds 16: a build passing 8 is not in it)


def test_a_class_a_package_re_exports_decides_in_neither(pkg):
    shapes, matched = _run(pkg, "from netpkg import Builder")
    assert shapes and shapes[0][1] == 32, shapes  # (the builder was read: it made the widths)
    assert shapes[0][2:] == ["?", "?"] or any("output_stride" in str(d) for d in shapes[0]), shapes
    assert matched  # (the context holds it a size: a build passing 8 is in it, and judged so)
