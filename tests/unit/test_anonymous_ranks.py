"""Tensors of a rank nothing names, and what pins it (a rotary embedding's table, chosen among
registered init functions by a configuration string the class on its own does not know).

- `torch.tensor(data)` of data the analysis cannot read (a configuration's list) is a tensor of
  unknown rank, a segment of its own (ops/families/creation.py); before, it was no tensor at all.
- Broadcasting such a tensor (no axis known) gives a tensor of unknown rank (ops/common.py):
  nothing is claimed of its axes, but it stays a tensor, so a join with the other options'
  results keeps what they share.
- `expand` takes no fewer sizes than the tensor has axes, so a tensor of unknown rank with as
  many axes known as sizes given has exactly that rank (ops/families/views.py).
- `math.floor`/`math.ceil` of a float of unknown value is an int of unknown value, maybe negative
  (analysis/library_helpers.py): a number in a tensor's arithmetic, never a float a layer refuses.
Every claimed shape is checked against PyTorch."""
import math

import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

HEAD = "import math\nimport torch\nfrom torch import nn\n\n\n"


def _values(src: str):
    r = analyze_source(src, "m.py")
    errors = [d for d in r.diagnostics if d.severity == "error"]
    return r.infer_json()["values"], errors


def _shape(values, name: str, line: int | None = None):
    got = [v for v in values if v["name"] == name and (line is None or v["line"] == line)]
    return got[0]["shape"] if got else None


def _run(src: str, fn: str, *args):
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    return ns[fn](*args)


def test_a_tensor_of_data_not_read_is_a_tensor_of_unknown_rank():
    src = HEAD + ("def f(config):\n"
                  "    ext = torch.tensor(config.rope_scaling['short_factor'], dtype=torch.float32)\n"
                  "    both = ext * torch.arange(0, 8, 2).float()\n"
                  "    return both\n")
    values, errors = _values(src)
    assert errors == []
    assert _shape(values, "ext") == ["*?"]
    assert _shape(values, "both") == ["*?"]  # a tensor, no axis claimed


def test_a_parameter_of_unknown_rank_broadcast_claims_no_axis():
    # `x` names its rank (a migration may search it, at given ranks): its broadcast with no last
    # axis of x known is a tensor, of no axis claimed (ops/common.trailing_broadcast)
    src = HEAD + "def f(x):\n    y = x * torch.zeros(3)\n    return y\n"
    values, errors = _values(src)
    assert errors == [] and _shape(values, "y") == ["*?"]
    for rank in (1, 2, 3):
        assert _run(src, "f", torch.zeros(*[3] * rank)).dim() == rank


def test_expand_pins_the_rank_when_the_known_axes_fill_the_sizes():
    src = HEAD + ("def f(x, p):\n"
                  "    a = x[None, :, None]\n"
                  "    b = a.expand(p.shape[0], -1, 1)\n"
                  "    return b\n")
    values, errors = _values(src)
    assert errors == []
    assert _shape(values, "b") == ["p.shape[0]", "x.shape[0]", 1]
    out = _run(src, "f", torch.zeros(5), torch.zeros(3, 7))
    assert list(out.shape) == [3, 5, 1]
    with pytest.raises(RuntimeError):  # x of two axes: four axes for three sizes
        _run(src, "f", torch.zeros(5, 2), torch.zeros(3, 7))


def test_expand_with_fewer_known_axes_than_sizes_claims_no_rank():
    src = HEAD + "def f(x):\n    b = x.expand(3, -1)\n    return b\n"
    values, errors = _values(src)
    assert errors == [] and _shape(values, "b") is None
    # (x of 1 axis gives [3, n]; x of 2 axes [3, n] itself)
    assert list(_run(src, "f", torch.zeros(4)).shape) == [3, 4]
    assert list(_run(src, "f", torch.zeros(3, 4)).shape) == [3, 4]


def test_expand_of_more_known_axes_than_sizes_is_an_error():
    src = HEAD + "def f(x):\n    b = x[None, :, None, None].expand(2, -1, 1)\n    return b\n"
    _, errors = _values(src)
    assert [e.code for e in errors] == ["SH102"]
    with pytest.raises(RuntimeError):
        _run(src, "f", torch.zeros(4))


def test_a_floor_of_an_unknown_float_is_an_int_in_tensor_arithmetic():
    src = HEAD + ("def f(n: int, r: float):\n"
                  "    low = math.floor(n * math.log(r) / (2 * math.log(10000.0)))\n"
                  "    high = math.ceil(n * math.log(r * 2) / (2 * math.log(10000.0)))\n"
                  "    ramp = (torch.arange(n, dtype=torch.float32) - low) / (high - low + 1)\n"
                  "    ids = torch.arange(n) - low\n"
                  "    return ramp, ids\n")
    values, errors = _values(src)
    assert errors == []
    assert _shape(values, "ramp") == ["n"] and _shape(values, "ids") == ["n"]
    dtypes = {v["name"]: v.get("dtype") for v in values}
    for n, r in ((8, 0.5), (6, 40.0)):
        ramp, ids = _run(src, "f", n, r)
        assert list(ramp.shape) == [n] and list(ids.shape) == [n]
        assert dtypes["ids"] in (None, str(ids.dtype).replace("torch.", ""))
        assert dtypes["ramp"] in (None, str(ramp.dtype).replace("torch.", ""))
    assert math.floor(8 * math.log(0.5) / (2 * math.log(10000.0))) < 0  # (a floor may be negative)


ROPE = HEAD + '''\
def _plain(config):
    dim = config.hidden_size // config.num_heads
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    return inv_freq, 1.0


def _scaled(config):
    dim = config.hidden_size // config.num_heads
    ext = torch.tensor(config.rope_scaling["short_factor"], dtype=torch.float32)
    inv_freq = 1.0 / (ext * 10000.0 ** (torch.arange(0, dim, 2).float() / dim))
    return inv_freq, 1.0


INITS = {"plain": _plain, "scaled": _scaled}


class Rotary(nn.Module):
    def __init__(self, config):
        super().__init__()
        if isinstance(config.rope_scaling, dict):
            self.kind = config.rope_scaling.get("kind")
        else:
            self.kind = "plain"
        inv_freq, self.scaling = INITS[self.kind](config)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x, position_ids):
        inv_freq_expanded = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        position_ids_expanded = position_ids[:, None, :].float()
        freqs = (inv_freq_expanded @ position_ids_expanded).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos = emb.cos() * self.scaling
        return cos


class Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.rotary = Rotary(config)

    def forward(self, x: "[B, T, C]"):
        pos = torch.arange(x.shape[1]).unsqueeze(0)
        cos = self.rotary(x, pos)
        return cos


class Config:
    def __init__(self, rope_scaling=None):
        self.hidden_size, self.num_heads, self.rope_scaling = 32, 4, rope_scaling
'''


def test_a_table_chosen_among_registered_inits_keeps_its_rank_through_the_forward():
    values, errors = _values(ROPE)
    assert errors == []
    # one option's table has unknown rank; the expand in forward pins it to one axis
    assert _shape(values, "inv_freq_expanded") == ["position_ids.shape[0]", "?", 1]
    cos = [v for v in values if v["name"] == "cos"]
    assert {tuple(v["shape"]) for v in cos} == {(1, "x.shape[1]", "?")}, cos
    ns: dict = {}
    exec(compile(ROPE, "m.py", "exec"), ns)
    x = torch.zeros(2, 16, 32)
    for cfg in (ns["Config"](), ns["Config"]({"kind": "scaled", "short_factor": [1.0] * 4})):
        out = ns["Model"](cfg)(x)
        assert list(out.shape)[:2] == [1, 16] and out.dim() == 3
