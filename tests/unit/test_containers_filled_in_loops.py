"""Containers of layers filled in a loop of a size the class analysed on its own does not know
(`for i in range(num_layers)`): a Sequential of some number of those layers, never unknown just
because the loop's passes built two instances, and never the empty identity (issue 24's right
counts: torchvision's ViT encoder). Each program is run under torch to check what is shown."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

ENCODER = '''from collections import OrderedDict
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, hidden_dim):
        super().__init__()
        self.ln = nn.LayerNorm(hidden_dim)
        self.fc = nn.Linear(hidden_dim, hidden_dim)

    def forward(self, input):
        x = self.fc(self.ln(input))
        return x + input


class Encoder(nn.Module):
    def __init__(self, num_layers: int, hidden_dim: int):
        super().__init__()
        FILL
        self.ln = nn.LayerNorm(hidden_dim)

    def forward(self, input: torch.Tensor):
        return self.ln(self.layers(input))


class Net(nn.Module):
    def __init__(self, num_layers: int, hidden_dim: int):
        super().__init__()
        self.encoder = Encoder(num_layers, hidden_dim)
        self.head = nn.Linear(hidden_dim, 10)

    def forward(self, x: torch.Tensor):
        y = self.encoder(x)
        z = y[:, 0]
        out = self.head(z)
        return out
'''

FILLS = {
    "ordered dict": '''layers: OrderedDict[str, nn.Module] = OrderedDict()
        for i in range(num_layers):
            layers[f"encoder_layer_{i}"] = Block(hidden_dim)
        self.layers = nn.Sequential(layers)''',
    "list": '''layers = []
        for i in range(num_layers):
            layers.append(Block(hidden_dim))
        self.layers = nn.Sequential(*layers)''',
}


def _shown(src):
    res = analyze_source(src, "enc.py")
    assert not [d for d in res.diagnostics if d.severity == "error"]
    return {v["name"]: v["shape"] for v in res.infer_json()["values"] if v["function"] == "Net.forward"}


@pytest.mark.parametrize("fill", sorted(FILLS))
def test_a_sequential_of_layers_made_in_a_loop_of_unknown_length_keeps_the_shape(fill):
    src = ENCODER.replace("FILL", FILLS[fill])
    shown = _shown(src)
    scope = {}
    exec(compile(src, "enc.py", "exec"), scope)
    x = torch.zeros(2, 17, 32)
    net = scope["Net"](3, 32)
    y = net.encoder(x)
    # the rank is not known (the input is not annotated), so the sides of its segment may be
    # the same axes: what is shown is the batch, the second axis, then the rest. The second
    # axis is y's last for a 2-D x, the layers' width: named x.shape[1] only where the facts
    # prove that width x's last axis (the list's layers join to a width not known: a size of
    # its own, test_edge_names.py)
    assert shown["y"][0] == "x.shape[0]" and shown["y"][2:] == ["*x"]
    assert shown["y"][1] == ("?" if fill == "list" else "x.shape[1]")
    assert list(y.shape)[:2] == [2, 17]
    assert shown["out"][-1] == 10 and list(net(x).shape)[-1] == 10


def test_a_dict_filled_in_a_loop_then_given_something_not_known_is_unknown():
    fill = FILLS["ordered dict"].replace("        self.layers", "        layers.update(extra)\n        self.layers")
    src = ENCODER.replace("FILL", fill).replace("hidden_dim: int):\n        super().__init__()\n        layers:",
                                               "hidden_dim: int, extra=None):\n        super().__init__()\n        layers:")
    shown = _shown(src)
    assert shown.get("y") is None and shown.get("out") is None
