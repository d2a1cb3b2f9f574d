"""Results that only rearrange the axes of a tensor of unknown rank (`transpose`, `unsqueeze`)
keep their tie to it (analysis/environment.py `derived`, shapes/rearranged.py): once either
rank is learned, both are written out.

- An attention splits heads with `x.view(*x.shape[:-1], -1, d).transpose(1, 2)` of an input of
  unknown rank, and a helper unpacks the four axes of the result (`b, h, t, d = v.shape`): the
  input has two axes fewer, so the view, the transposed heads and the input's own lines are
  exact. Before, the transposed tensor was a segment of its own (`[*?]`): its rank learned
  nothing of the input's, and a model fed token ids of unknown rank (a raw transformers entry)
  showed no rank on any line.
- The other way round: the input's rank learned after the transpose writes the result out.
- `unsqueeze` past the known leading axes, the same.
- An axis of the result read before any rank is learned (`v.shape[0]`) names that axis alone:
  the tie is given up there, and nothing claimed is wrong.
- A tensor whose axis past its segment was read first (`seq = embeds.shape[1]` of `[*ids, d]`:
  `[ids0, ids1, *ids, d]`, sides that may be the same axes) is laid out around the segment that
  axis was learned from (`[ids0, *ids, d]`, Environment.view_base) where its own layout would
  drop axes: its last axis replaced by a Linear (ops/common.apart), `x.shape[:-1]` (evaluator,
  sizes.sliced: on sides surely apart a slice cuts one side and keeps the other), and a view
  around that segment (`view(*lead, -1, 8)`, ops/families/views: sizes on sides surely apart
  cancel), and a broadcast with a tensor laid out around that segment (an RMS norm's
  `e * torch.rsqrt(e.pow(2).mean(-1, keepdim=True))`, ops/common.broadcast_shapes: the same
  rest, where it was a tensor of no axis claimed but the last). A rank learned through another layout of its own segment (`e.unsqueeze(-1)`
  unpacked) is learned of that segment too (Environment._learn_viewed). Before, the Linear gave
  `[*?, d]` and the heads nothing, so the rank an attention's unpacking needs never reached the
  entry of a model that reads its sequence length first.
Every shape claimed is evaluated on the run of the same program in PyTorch."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

HEAD = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\nfrom typing import Optional\n\n\n"


def _analyse(src: str):
    r = analyze_source(src, "m.py")
    return r.infer_json()["values"], [d for d in r.diagnostics if d.severity == "error"]


def _shape(values, name: str, function: str, context: str | None = None):
    got = [v for v in values if v["name"] == name and v["function"] == function]
    assert got, (name, function)
    if context is None:
        return got[0]["shape"]
    return next(c["shape"] for c in got[0]["contexts"] if c["context"] == context)


def _evaluated(shape, names: dict) -> list:
    assert not any(isinstance(d, str) and d.startswith("*") for d in shape), shape
    return [d if isinstance(d, int) else eval(d, {}, names) for d in shape]


HEADS = HEAD + ("def split(v):\n"
                "    b, h, t, d = v.shape\n"
                "    return v.reshape(b * h, t, d)\n"
                "\n\n"
                "def heads(x):\n"
                "    y = x.view(*x.shape[:-1], -1, 8)\n"
                "    v = y.transpose(1, 2)\n"
                "    w = split(v)\n"
                "    z = x * 2\n"
                "    return v, w, z\n")


def test_a_rank_learned_of_the_transposed_heads_is_the_inputs():
    values, errors = _analyse(HEADS)
    assert errors == []
    ns: dict = {}
    exec(compile(HEADS, "m.py", "exec"), ns)
    x = torch.zeros(2, 5, 16)
    v, w, z = ns["heads"](x)
    names = {"x": x, "b": 2, "h": 2, "t": 5, "d": 8}
    assert _evaluated(_shape(values, "y", "heads"), names) == list(x.view(2, 5, -1, 8).shape)
    assert _evaluated(_shape(values, "v", "heads"), names) == list(v.shape)
    assert _evaluated(_shape(values, "z", "heads"), names) == list(z.shape)
    assert len(_shape(values, "w", "heads")) == 3


LATER = HEAD + ("def f(x):\n"
                "    y = F.linear(x, torch.zeros(8, 4)).view(*x.shape[:-1], 2, 4)\n"
                "    v = y.transpose(1, 2)\n"
                "    n, t, c = x.shape\n"
                "    return v\n")


def test_the_inputs_rank_learned_later_writes_the_transposed_result_out():
    values, errors = _analyse(LATER)
    assert errors == []
    ns: dict = {}
    exec(compile(LATER, "m.py", "exec"), ns)
    x = torch.zeros(3, 7, 4)
    names = {"x": x, "n": 3, "t": 7, "c": 4}
    assert _evaluated(_shape(values, "v", "f"), names) == list(ns["f"](x).shape) == [3, 2, 7, 4]


UNSQUEEZED = HEAD + ("def f(x):\n"
                     "    y = F.linear(x, torch.zeros(8, 4)).unsqueeze(2)\n"
                     "    b, t, one, d = y.shape\n"
                     "    z = x + 1\n"
                     "    return y, z\n")


def test_an_unsqueeze_past_the_known_axes_keeps_its_tie_to_the_input():
    values, errors = _analyse(UNSQUEEZED)
    assert errors == []
    ns: dict = {}
    exec(compile(UNSQUEEZED, "m.py", "exec"), ns)
    x = torch.zeros(2, 6, 4)
    y, z = ns["f"](x)
    names = {"x": x, "b": 2, "t": 6, "one": 1, "d": 8}
    assert _evaluated(_shape(values, "y", "f"), names) == list(y.shape) == [2, 6, 1, 8]
    assert _evaluated(_shape(values, "z", "f"), names) == list(z.shape)


MODEL = HEAD + ("def split(v):\n"
                "    b, h, t, d = v.shape\n"
                "    return v.reshape(b * h, t, d)\n"
                "\n\n"
                "class Attention(nn.Module):\n"
                "    def __init__(self, dim, heads):\n"
                "        super().__init__()\n"
                "        self.head_dim = dim // heads\n"
                "        self.v = nn.Linear(dim, dim)\n"
                "\n"
                "    def forward(self, x):\n"
                "        lead = x.shape[:-1]\n"
                "        v = self.v(x).view(*lead, -1, self.head_dim).transpose(1, 2)\n"
                "        w = split(v)\n"
                "        return x + 1\n"
                "\n\n"
                "class Model(nn.Module):\n"
                "    def __init__(self):\n"
                "        super().__init__()\n"
                "        self.embed = nn.Embedding(100, 32)\n"
                "        self.layers = nn.ModuleList([Attention(32, 4) for _ in range(2)])\n"
                "\n"
                "    def forward(self, input_ids: Optional[torch.LongTensor] = None):\n"
                "        h = self.embed(input_ids)\n"
                "        for layer in self.layers:\n"
                "            h = layer(h)\n"
                "        return h\n")


def test_token_ids_of_unknown_rank_get_the_rank_the_attention_needs():
    values, errors = _analyse(MODEL)
    assert errors == []
    ns: dict = {}
    exec(compile(MODEL, "m.py", "exec"), ns)
    model = ns["Model"]()
    ids = torch.zeros(2, 5, dtype=torch.long)
    names = {"input_ids": ids}
    assert _evaluated(_shape(values, "h", "Model.forward"), names) == list(model(ids).shape) == [2, 5, 32]
    x = model.embed(ids)
    v = model.layers[0].v(x).view(2, 5, -1, 8).transpose(1, 2)
    got = _shape(values, "v", "Attention.forward", "Model.forward:34")
    assert _evaluated(got, names) == list(v.shape) == [2, 4, 5, 8]


EDGE_FIRST = HEAD + ("def f(x):\n"
                     "    v = F.linear(x, torch.zeros(8, 4)).view(*x.shape[:-1], 2, 4).transpose(1, 2)\n"
                     "    n = v.shape[0]\n"
                     "    a, b, c, d = v.shape\n"
                     "    z = x + 1\n"
                     "    return v, z\n")


def test_an_axis_read_before_the_rank_is_learned_claims_nothing_wrong():
    values, errors = _analyse(EDGE_FIRST)
    assert errors == []
    ns: dict = {}
    exec(compile(EDGE_FIRST, "m.py", "exec"), ns)
    x = torch.zeros(3, 7, 4)
    v, z = ns["f"](x)
    names = {"x": x, "n": 3, "a": 3, "b": 2, "c": 7, "d": 4}
    for name, got in (("v", v), ("z", z)):
        shape = _shape(values, name, "f")
        if any(isinstance(d, str) and d.startswith("*") for d in shape):
            continue  # (no rank claimed)
        assert len(shape) == got.dim()
        for d, o in zip(shape, got.shape):
            if not (isinstance(d, str) and "?" in d):
                assert (d if isinstance(d, int) else eval(d, {}, names)) == o, (name, shape)


SEQ_FIRST = MODEL.replace("        h = self.embed(input_ids)\n",
                          "        h = self.embed(input_ids)\n        pos = torch.arange(0, h.shape[1])\n")


def test_a_sequence_length_read_first_leaves_the_tie_to_the_ids():
    values, errors = _analyse(SEQ_FIRST)
    assert errors == []
    ns: dict = {}
    exec(compile(SEQ_FIRST, "m.py", "exec"), ns)
    model = ns["Model"]()
    ids = torch.zeros(2, 5, dtype=torch.long)
    names = {"input_ids": ids}
    out = model(ids)
    for v in values:
        if v["function"] == "Model.forward" and v["name"] == "h":
            assert _evaluated(v["shape"], names) == list(out.shape) == [2, 5, 32]
    assert _evaluated(_shape(values, "pos", "Model.forward"), names) == [5]
    x = model.embed(ids)
    v = model.layers[0].v(x).view(2, 5, -1, 8).transpose(1, 2)
    contexts = [c for r in values if r["name"] == "v" and r["function"] == "Attention.forward"
                for c in r["contexts"]]
    assert contexts and all(_evaluated(c["shape"], names) == list(v.shape) for c in contexts)


LEAD = HEAD + ("def k(ids):\n"
               "    e = F.embedding(ids, torch.zeros(100, 32))\n"
               "    t = e.shape[1]\n"
               "    a = F.linear(e, torch.zeros(32, 32))\n"
               "    lead = e.shape[:-1]\n"
               "    b = a.view(*lead, -1, 8)\n"
               "    return a, b\n")


def _agrees(shape, names: dict, observed) -> bool:
    """A shape with one segment (`[x.shape[0], *x, 4, 8]`) against a run: the sizes written
    before and after it evaluate to the observed ones."""
    star = [i for i, d in enumerate(shape) if isinstance(d, str) and d.startswith("*")]
    assert len(star) == 1, shape
    pre, suf = shape[:star[0]], shape[star[0] + 1:]
    obs = list(observed)
    if len(pre) + len(suf) > len(obs):
        return False
    ev = [d if isinstance(d, int) else eval(d, {}, names) for d in pre + suf]
    return ev == obs[:len(pre)] + obs[len(obs) - len(suf):]


def test_sizes_around_a_segment_whose_sides_are_apart_are_kept():
    values, errors = _analyse(LEAD)
    assert errors == []
    assert _shape(values, "a", "k") == ["ids.shape[0]", "*ids", 32]
    assert _shape(values, "b", "k") == ["ids.shape[0]", "*ids", 4, 8]
    ns: dict = {}
    exec(compile(LEAD, "m.py", "exec"), ns)
    for lead in ([5], [2, 5], [2, 3, 5]):
        ids = torch.zeros(lead, dtype=torch.long)
        a, b = ns["k"](ids)
        assert _agrees(_shape(values, "a", "k"), {"ids": ids}, a.shape)
        assert _agrees(_shape(values, "b", "k"), {"ids": ids}, b.shape)


OTHER_LAYOUT = HEAD + ("def g(ids):\n"
                       "    e = F.embedding(ids, torch.zeros(100, 32))\n"
                       "    t = e.shape[1]\n"
                       "    z = F.linear(e, torch.zeros(16, 32))\n"
                       "    y = e.unsqueeze(-1)\n"
                       "    a, b, c, d = y.shape\n"
                       "    return z, y\n")


def test_a_rank_learned_through_another_layout_of_the_segment_is_learned_of_its_source():
    values, errors = _analyse(OTHER_LAYOUT)
    assert errors == []
    ns: dict = {}
    exec(compile(OTHER_LAYOUT, "m.py", "exec"), ns)
    ids = torch.zeros(2, 5, dtype=torch.long)
    z, y = ns["g"](ids)
    names = {"ids": ids, "a": 2, "b": 5, "c": 32, "d": 1}
    assert _evaluated(_shape(values, "z", "g"), names) == list(z.shape) == [2, 5, 16]
    assert _evaluated(_shape(values, "y", "g"), names) == list(y.shape)


RMS = HEAD + ("def k(ids):\n"
              "    e = F.embedding(ids, torch.zeros(100, 32))\n"
              "    t = e.shape[1]\n"
              "    v = e.pow(2).mean(-1, keepdim=True)\n"
              "    h = e * torch.rsqrt(v + 1e-6)\n"
              "    w = torch.ones(32) * h\n"
              "    return v, h, w\n")


def test_a_broadcast_with_the_segment_the_axes_were_learned_from_keeps_it():
    values, errors = _analyse(RMS)
    assert errors == []
    for name, want in (("v", ["ids.shape[0]", "*ids", 1]), ("h", ["ids.shape[0]", "*ids", 32]),
                       ("w", ["ids.shape[0]", "*ids", 32])):
        assert _shape(values, name, "k") == want
    ns: dict = {}
    exec(compile(RMS, "m.py", "exec"), ns)
    for lead in ([5], [2, 5], [2, 3, 5]):
        ids = torch.zeros(lead, dtype=torch.long)
        for name, got in zip("vhw", ns["k"](ids)):
            assert _agrees(_shape(values, name, "k"), {"ids": ids}, got.shape)
