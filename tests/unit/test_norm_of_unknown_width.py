"""A LayerNorm (or RMSNorm) layer whose `normalized_shape` the analysis lost (`4 * dim`, `dim` a
width a loop of unknown count doubles each pass: `embed_dim * 2 ** i`) still keeps its input's
shape: whether PyTorch was given an int or a sequence, the layer's output has the input's shape.
It was unknown, and so was every layer after it (torchvision's Swin, whose merge layers
normalize `4 * dim` channels: the whole `features` call was lost in the generic context).

No check is made on the lost width, so no error is claimed either."""
from shapehint.analysis.api import analyze_source

SRC = '''import torch
from torch import nn


class Merge(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim)
        self.red = nn.Linear(4 * dim, 2 * dim)

    def forward(self, x):
        x0 = x[..., 0::2, 0::2, :]
        x1 = x[..., 1::2, 0::2, :]
        x2 = x[..., 0::2, 1::2, :]
        x3 = x[..., 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1)
        return self.red(self.norm(x))


class Net(nn.Module):
    def __init__(self, embed_dim: int, depths: list[int]):
        super().__init__()
        layers: list[nn.Module] = []
        layers.append(nn.Conv2d(3, embed_dim, 4, 4))
        for i_stage in range(len(depths)):
            stage: list[nn.Module] = []
            dim = embed_dim * 2 ** i_stage
            for i_layer in range(depths[i_stage]):
                stage.append(nn.Linear(dim, dim))
            layers.append(nn.Sequential(*stage))
            if i_stage < (len(depths) - 1):
                layers.append(Merge(dim))
        self.features = nn.Sequential(*layers)
        self.norm = nn.RMSNorm(embed_dim * 2 ** (len(depths) - 1))

    def forward(self, x):
        y = self.features(x)
        z = self.norm(y)
        return z
'''


def _values():
    res = analyze_source(SRC, "merge.py").infer_json()
    assert not res["diagnostics"]
    return {v["name"]: v["shape"] for v in res["values"] if v["function"] == "Net.forward"}


def test_the_stages_after_a_norm_of_lost_width_are_followed():
    # (was unknown: the merge's LayerNorm(4 * dim) gave nothing)
    assert _values()["y"] == ["x.shape[0]", "?", "?", "?"]


def test_a_norm_of_lost_width_keeps_its_input_shape():
    assert _values()["z"] == ["x.shape[0]", "?", "?", "?"]


def test_torch_the_norms_keep_the_shape():
    torch = __import__("pytest").importorskip("torch")
    ns: dict = {}
    exec(compile(SRC, "merge.py", "exec"), ns)
    with torch.device("meta"):
        m = ns["Net"](16, [2, 2])
        x = torch.empty(1, 3, 32, 64)
        y = m.features(x)
        z = m(x)
    # Conv2d gives [1, 16, 8, 16]; the merge halves the last three axes' first two and doubles
    # the width (2 * dim): the rank and the batch are all a pass of unknown count keeps
    assert list(y.shape) == [1, 8, 4, 32] and list(z.shape) == list(y.shape)


def test_a_known_width_is_still_checked():
    src = "import torch\nfrom torch import nn\n\n\ndef f():\n    y = nn.LayerNorm(7)(torch.zeros(2, 8))\n    return y\n"
    res = analyze_source(src, "known.py").infer_json()
    assert [d["code"] for d in res["diagnostics"]] == ["SH101"], res["diagnostics"]
