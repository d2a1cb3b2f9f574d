"""Tensors a constructor builds only for a given argument, and the attributes of a configuration
parameter whose class does not set them (issue 28, ViT/BERT family).

- A layer scale (`self.gamma = nn.Parameter(torch.ones(dim)) if init_values is not None else
  None`, then `if self.gamma is not None: x = self.gamma * x` in `forward`): in the class's own
  analysis the parameter is an optional tensor (analysis/optional_parts.py), so both arms keep
  their shapes. Before, the arm that read it lost the value, and the residual sum after it too.
- `config: BaseConfig` read as `config.dim` where `BaseConfig` sets no `dim`: the size is named
  after the parameter (`config.dim`), as the attributes the class sets are, so a reader binds it
  to the argument; before, it was named after the class (`baseConfig.dim`), which nothing binds.

Programs are our own; claimed shapes are checked against PyTorch."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

HEAD = "import torch\nfrom torch import nn\n\n\n"

SCALED = HEAD + '''class Block(nn.Module):
    def __init__(self, dim: int = 16, init_values=None):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.gamma = nn.Parameter(torch.ones(dim)) if init_values is not None else None

    def forward(self, x):
        B, T, C = x.shape
        y = self.proj(x)
        if self.gamma is not None:
            y = self.gamma * y
        z = x + y
        return z
'''


def _values(src: str) -> dict:
    r = analyze_source(src, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return {(v["function"], v["name"], v["line"]): v for v in r.infer_json()["values"]}


def _shape_of(vals: dict, function: str, name: str, last: bool = True):
    got = sorted((line, v) for (f, n, line), v in vals.items() if f == function and n == name)
    return got[-1 if last else 0][1]["shape"] if got else None


def _eval(shape, env):
    return [d if isinstance(d, int) else eval(d, {}, dict(env)) for d in shape]


def test_a_layer_scale_built_for_a_given_argument_keeps_both_arms_shapes():
    vals = _values(SCALED)
    z = _shape_of(vals, "Block.forward", "z")
    y = _shape_of(vals, "Block.forward", "y")  # the arm that scales
    assert z is not None and y is not None and "?" not in z + y and len(z) == len(y) == 3, (y, z)
    scope = {}
    exec(compile(SCALED, "m.py", "exec"), scope)
    for init_values in (None, 1e-5):
        m = scope["Block"](dim=8, init_values=init_values)
        x = torch.zeros(3, 5, 8)
        env = {"B": 3, "T": 5, "C": 8, "dim": 8}
        assert _eval(z, env) == _eval(y, env) == list(m(x).shape)


def test_a_constructor_refusing_every_given_argument_at_once_falls_back():
    # with both optional arguments given, every path raises: the parts are found as before
    # (unknown), never taken for absent, and nothing is reported
    src = HEAD + '''class Pair(nn.Module):
    def __init__(self, dim: int = 8, a=None, b=None):
        super().__init__()
        if a is not None and b is not None:
            raise ValueError("a or b, not both")
        self.ka = nn.Parameter(torch.ones(dim)) if a is not None else None
        self.kb = nn.Parameter(torch.ones(dim)) if b is not None else None

    def forward(self, x):
        B, C = x.shape
        parts = [p for p in (self.ka, self.kb) if p is not None]
        s = torch.stack(parts + [x[0]])
        return s
'''
    vals = _values(src)
    s = _shape_of(vals, "Pair.forward", "s")
    assert s is None or "?" in str(s) or s[0] != 1, s  # never "only x's row": a part may be there
    scope = {}
    exec(compile(src, "m.py", "exec"), scope)
    assert list(scope["Pair"](a=1.0)(torch.zeros(2, 8)).shape) == [2, 8]


CONFIG = HEAD + '''class BaseConfig:
    def __init__(self, **kwargs):
        self.extra = kwargs


class Attn(nn.Module):
    def __init__(self, config: BaseConfig):
        super().__init__()
        self.n_heads = config.n_heads
        self.dim = config.dim
        self.q = nn.Linear(config.dim, config.dim)

    def forward(self, x):
        bs, t, _ = x.size()
        q = self.q(x).view(bs, -1, self.n_heads, self.dim // self.n_heads)
        return q
'''


def test_a_configuration_parameters_unset_attribute_is_named_after_the_parameter():
    q = _shape_of(_values(CONFIG), "Attn.forward", "q")
    names = " ".join(str(d) for d in q)
    assert "config.n_heads" in names and "config.dim" in names and "baseConfig" not in names, q
    scope = {}
    exec(compile(CONFIG, "m.py", "exec"), scope)

    class Cfg:
        n_heads, dim = 4, 24
    m = scope["Attn"](Cfg())
    x = torch.zeros(2, 5, 24)
    env = {"bs": 2, "t": 5, "config": Cfg}
    assert _eval(q, env) == list(m(x).shape)
