"""Items of a value known only by name (evaluator.subscript): `config.hidden_sizes[0]` of an
unannotated `config` is a size named by that expression, as `config.hidden_size` is. It was
unknown, so a convolution built with it (a patch embedding's output channels) had no shape and
nothing after it did either."""
import types

import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from torch import nn


class Embeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.patch = nn.Conv2d(config.num_channels, config.hidden_sizes[0], kernel_size=4, stride=4)
        self.head = nn.Linear(config.hidden_sizes[0], config.hidden_sizes[-1])

    def forward(self, pixel_values: torch.Tensor):
        emb = self.patch(pixel_values)
        pooled = self.head(emb.mean([-2, -1]))
        return emb, pooled


def pick(cfg, x: torch.Tensor):
    width = cfg.widths[1]
    out = x.new_zeros(x.shape[0], width)
    return out
'''


def _values(src=SRC):
    return {v["name"]: v["shape"] for v in analyze_source(src, "emb.py").infer_json()["values"]}


def test_an_item_of_an_opaque_value_is_named_by_its_expression():
    got = _values()
    assert got["emb"] == ["pixel_values.shape[0]", "config.hidden_sizes[0]",
                          "pixel_values.shape[2]//4", "pixel_values.shape[3]//4"]
    assert got["pooled"] == ["pixel_values.shape[0]", "config.hidden_sizes[-1]"]
    assert got["out"] == ["x.shape[0]", "cfg.widths[1]"]


def test_an_index_not_known_gives_no_name():
    got = _values(SRC.replace("cfg.widths[1]", "cfg.widths[x.shape[1]]"))
    assert "cfg.widths" not in str(got.get("out"))


@pytest.mark.parametrize("sizes", [[8, 16, 32], [5, 7]])
def test_the_shapes_are_torchs(sizes):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(SRC, "emb.py", "exec"), ns)
    cfg = types.SimpleNamespace(num_channels=3, hidden_sizes=sizes)
    m = ns["Embeddings"](cfg).to("meta")
    px = torch.empty(2, 3, 20, 24, device="meta")
    emb, pooled = m(px)
    env = {"pixel_values": types.SimpleNamespace(shape=px.shape), "config": cfg}
    for got, want in ((emb, _values()["emb"]), (pooled, _values()["pooled"])):
        assert list(got.shape) == [eval(d, {}, env) for d in want]
