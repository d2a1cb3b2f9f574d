"""Parts run in a construction context (built.py `_parts`) when a container of unknown length
holds one of several layers: `layers += [MaxPool2d(..)]` on one arm of a loop over a
configuration the context does not know, `[Conv2d(..), ReLU()]` on the other, leave a Sequential
whose item is the choice of those layers. Its possible children are those options, none of them
a class of the file, so the head built after it still runs there as a part; before, the unknown
container left every part out, and the head's lines had no shape in that context. A container
whose item is not known at all still leaves the parts out (a block of the file may be in it).
The program is our own; the context's shapes are checked against torch (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, in_features, out_features=64, kernel_size=3, mlp_ratio=1.0):
        super().__init__()
        mid = int(out_features * mlp_ratio)
        self.fc1 = nn.Conv2d(in_features, mid, kernel_size)
        self.fc2 = nn.Conv2d(mid, out_features, 1)

    def forward(self, x):
        x = self.fc1(x)
        x = self.fc2(x)
        return x


class Net(nn.Module):
    def __init__(self, cfg, in_chans=3, mlp_ratio=1.0, pool="avg"):
        super().__init__()
        prev = in_chans
        layers = []
        for v in cfg:
            if v == 'M':
                layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
            else:
                layers += [nn.Conv2d(prev, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
                prev = v
        self.features = nn.Sequential(*layers)
        self.head = Head(prev, 64, 3, mlp_ratio=mlp_ratio)

    def forward(self, x):
        x = self.features(x)
        x = self.head(x)
        return x
'''
LABEL = "Net.__init__:19"


def _context_shapes(text):
    values = analyze_source(text, "openparts.py").infer_json()["values"]
    return {v["line"]: c["shape"] for v in values if v["function"] == "Head.forward"
            for c in v.get("contexts") or [] if c["context"] == LABEL}


def test_a_part_after_a_container_of_layer_choices_runs_in_the_context():
    got = _context_shapes(PROGRAM)
    assert got == {13: ["x.shape[0]", 64, "x.shape[2] - 2", "x.shape[3] - 2"],
                   14: ["x.shape[0]", 64, "x.shape[2] - 2", "x.shape[3] - 2"]}
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "openparts.py", "exec"), ns)
    net = ns["Net"]([8, "M", 16]).to("meta")
    x = torch.empty(2, 16, 10, 11, device="meta")  # the head's own input
    h = net.head.fc1(x)
    assert tuple(h.shape) == (2, 64, 10 - 2, 11 - 2)
    assert tuple(net.head.fc2(h).shape) == (2, 64, 10 - 2, 11 - 2)


def test_a_container_of_unknown_items_still_leaves_the_parts_out():
    # an item the analysis cannot read (a layer from a parameter): a Head may be among them
    text = PROGRAM.replace("layers += [nn.MaxPool2d(kernel_size=2, stride=2)]", "layers += [v.make()]")
    assert _context_shapes(text) == {}
