"""A configuration that builds its parts' configurations (analysis/nested_configs.py).

`self.text_config = TextCfg(**text_config)` in a configuration's `__init__`: the generic
configuration holds the part's generic instance, sized `config.text_config.hidden`, never the
part's defaults (before: 512 wide for every build, wrong for `text_config=dict(hidden=32)`), nor
unknown where the dict spread into the call is (an `update` from an open `**kwargs`). A part
built with it (`TextModel(config.text_config)`) reads `config.hidden` in its own names: the calls'
join is in them."""
import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
import torch.nn as nn


class TextCfg:
    def __init__(self, hidden=512, vocab=100, **kwargs):
        self.hidden = hidden
        self.vocab = vocab


class BigCfg:
    def __init__(self, text_config=None, proj=16, **kwargs):
        extra = kwargs.pop("text_config_dict", None)
        if text_config is None:
            text_config = {}
        if extra is not None:
            text_config.update(extra)
        self.text_config = TextCfg(**text_config)
        self.proj = proj


class TextPart(nn.Module):
    def __init__(self, config: TextCfg):
        super().__init__()
        self.embed = nn.Embedding(config.vocab, config.hidden)
        self.bias = nn.Parameter(torch.zeros(1, 1, config.hidden))

    def forward(self, ids):
        h = self.embed(ids) + self.bias
        return h


class Net(nn.Module):
    def __init__(self, config: BigCfg):
        super().__init__()
        self.text = TextPart(config.text_config)
        self.fc = nn.Linear(config.text_config.hidden, config.proj)

    def forward(self, ids):
        h = self.text(ids)
        out = self.fc(h)
        return out
'''

TWO_PARTS = '''import torch
import torch.nn as nn


class PartCfg:
    def __init__(self, hidden=64, **kwargs):
        self.hidden = hidden


class PairCfg:
    def __init__(self, enc_config=None, dec_config=None):
        self.enc_config = PartCfg(**(enc_config or {}))
        self.dec_config = PartCfg(**(dec_config or {}))


class Part(nn.Module):
    def __init__(self, config: PartCfg):
        super().__init__()
        self.fc = nn.Linear(4, config.hidden)
        self.bias = nn.Parameter(torch.zeros(1, config.hidden))

    def forward(self, x):
        y = self.fc(x) + self.bias
        return y


class Mixed(Part):
    def __init__(self, config, other):
        super().__init__(other)
        self.own = nn.Linear(4, config.hidden)

    def forward(self, x):
        w = self.fc(x) + self.bias
        return w


class Pair(nn.Module):
    def __init__(self, config: PairCfg):
        super().__init__()
        self.enc = Part(config.enc_config)
        self.dec = Part(config.dec_config)
        self.mixed = Mixed(config.enc_config, config.dec_config)

    def forward(self, x):
        bsz, _ = x.shape
        a = self.enc(x)
        b = self.dec(x)
        c = self.mixed(x)
        return a, b, c
'''


def _records(source: str):
    r = analyze_source(source, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    return r.values


def _shape(values, function: str, name: str) -> str:
    return next(str(v.shape) for v in values if v.function == function and v.name == name)


def _run(source: str, model: str, cfg: str, x):
    scope: dict = {}
    exec(compile(source, "m.py", "exec"), scope)
    return eval(f"{model}({cfg})", scope)(x)


def test_a_part_configuration_is_sized_by_its_path_not_its_defaults():
    ids = torch.zeros(2, 8, dtype=torch.long)
    assert _run(PROGRAM, "Net", "BigCfg(text_config=dict(hidden=32, vocab=10))", ids).shape == (2, 8, 16)
    assert _run(PROGRAM, "Net", "BigCfg()", ids).shape == (2, 8, 16)
    values = _records(PROGRAM)
    h = _shape(values, "Net.forward", "h")
    assert "512" not in h and h.endswith("config.text_config.hidden]"), h
    assert _shape(values, "Net.forward", "out").endswith("config.proj]")


def test_a_part_reads_its_own_configuration_names():
    values = _records(PROGRAM)
    rec = next(v for v in values if v.function == "TextPart.forward" and v.name == "h")
    assert str(rec.shape).endswith("config.hidden]"), rec.shape  # (the join of its calls, in its own names)
    assert any("config.text_config.hidden" in str(s) for _, s in rec.contexts), rec.contexts


def test_two_parts_of_one_class_keep_their_own_paths():
    x = torch.zeros(3, 4)
    a, b, c = _run(TWO_PARTS, "Pair", "PairCfg(enc_config=dict(hidden=8), dec_config=dict(hidden=5))", x)
    assert (a.shape, b.shape, c.shape) == ((3, 8), (3, 5), (3, 5))
    values = _records(TWO_PARTS)
    assert _shape(values, "Pair.forward", "a").endswith("config.enc_config.hidden]")
    assert _shape(values, "Pair.forward", "b").endswith("config.dec_config.hidden]")
    assert _shape(values, "Pair.forward", "c").endswith("config.dec_config.hidden]")


def test_parts_called_alike_join_in_their_own_names():
    values = _records(TWO_PARTS)
    # (its own analysis lost the rank: the calls' join, each part's `hidden` its own `config.hidden`)
    assert _shape(values, "Part.forward", "y") == "[x.shape[0], config.hidden]"


def test_an_instance_built_with_two_parts_names_neither_as_its_own():
    values = _records(TWO_PARTS)
    # `Mixed` took `enc_config` and handed `dec_config` to its base: in its own names `config` is
    # the first, so the base's `dec_config`-wide output is no `config.hidden` of its own
    w = _shape(values, "Mixed.forward", "w")
    assert w.rsplit(", ", 1)[-1] != "config.hidden]", w
