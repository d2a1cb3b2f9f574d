"""A configuration's attribute left at a `None` default (`inner=None` kept as `self.inner`) is a
configured value known by its name (`config.inner`, defaults.open_default_nones), not unknown:
`config.inner if config.inner is not None else 4 * config.width` is then a size a layer of the
program's own can take (`x.size()[:-1] + (self.n_out,)`, then `.view(...)`), so the lines after
it keep their shapes in the generic analysis and in the construction context. On main the join
was unknown and `Block.forward` had no shape past the layer. Every shape claimed is checked
against torch (meta tensors), with the attribute left at `None` and with it given."""
import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
from torch import nn


class TinyConfig:
    def __init__(self, width=8, inner=None):
        self.width = width
        self.inner = inner


class Dense(nn.Module):
    def __init__(self, n_out, n_in):
        super().__init__()
        self.n_out = n_out
        self.weight = nn.Parameter(torch.randn(n_in, n_out))
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        size_out = x.size()[:-1] + (self.n_out,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        x = x.view(size_out)
        return x


class Mlp(nn.Module):
    def __init__(self, inner, config):
        super().__init__()
        self.up = Dense(inner, config.width)
        self.down = Dense(config.width, inner)

    def forward(self, x):
        h = self.up(x)
        h = torch.relu(h)
        h = self.down(h)
        return h


class Block(nn.Module):
    config_class = TinyConfig

    def __init__(self, config, gated=False):
        super().__init__()
        self.gated = gated
        inner = config.inner if config.inner is not None else 4 * config.width
        self.mlp = Mlp(inner, config)

    def forward(self, x: torch.Tensor):
        assert x.dim() == 3
        y = self.mlp(x)
        if self.gated:
            y = y * torch.sigmoid(y)
        z = x + y
        return z
'''


def _line(text):
    return next(i for i, ln in enumerate(SRC.splitlines(), 1) if ln.strip() == text)


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    path = tmp_path_factory.mktemp("config_none") / "config_none.py"
    path.write_text(SRC)
    ns: dict = {}
    exec(compile(SRC, str(path), "exec"), ns)
    return analyze_source(SRC, str(path)).infer_json()["values"], ns


def _claims(values, function, line, name):
    """The shape claimed with no context and in each context listed."""
    hit = [v for v in values if v["function"] == function and v["line"] == line and v["name"] == name]
    assert hit, (function, line, name)
    return [hit[0]["shape"]] + [c["shape"] for c in hit[0].get("contexts") or []]


def _matches(claim, shape, env):
    """Whether `claim` (its `?` any size, a `*name` segment any axes) describes `shape`."""
    def ok(d, size):
        return d == "?" or (eval(d, env) if isinstance(d, str) else d) == size
    stars = [i for i, d in enumerate(claim) if isinstance(d, str) and d.startswith("*")]
    if not stars:
        return len(claim) == len(shape) and all(ok(d, s) for d, s in zip(claim, shape))
    head, tail = claim[:stars[0]], claim[stars[0] + 1:]
    return len(head) + len(tail) <= len(shape) and all(ok(d, s) for d, s in zip(head, shape)) and \
        all(ok(d, s) for d, s in zip(reversed(tail), reversed(shape)))


@pytest.mark.parametrize("inner", [None, 12])
@pytest.mark.parametrize("line,name", [("y = self.mlp(x)", "y"), ("z = x + y", "z")])
def test_the_block_keeps_its_shape_past_a_configured_size(analysed, inner, line, name):
    import torch
    values, ns = analysed
    claims = _claims(values, "Block.forward", _line(line), name)
    assert all(c is not None for c in claims), claims
    config = ns["TinyConfig"](width=8, inner=inner)
    block = ns["Block"](config).to("meta")
    for shape in [(2, 5, 8), (3, 1, 8)]:
        x = torch.empty(shape, device="meta")
        y = block.mlp(x)
        got = {"y": y, "z": x + y}[name]
        for c in claims:
            assert _matches(c, list(got.shape), {"x": x, "config": config}), (c, got.shape)


def test_the_layer_inside_takes_the_size(analysed):
    """`h = self.up(x)` in the block's context: the batch axes known, the configured size a `?`."""
    values, _ = analysed
    claims = _claims(values, "Mlp.forward", _line("h = self.up(x)"), "h")
    assert ["x.shape[0]", "x.shape[1]", "?"] in claims, claims
