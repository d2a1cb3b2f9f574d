"""Shapes per calling context, in the function's own names, the user's names kept (issue 24,
items 3-6; semantics 3-5 in docs/analysis.md, "Calling contexts and names").

A body reached from calls lists each call as `{"context": "QUALNAME:LINE", "shape": ...}` in the
calling entry's names; its `shape` is the join, in its own parameters' names, never the caller's."""
from shapehint.analysis.api import analyze_source
from shapehint.analysis.contexts import MAX_CONTEXTS
from shapehint.lsp.features.hover import hover
from shapehint.lsp.features.inlay import inlay_hints

SEQ2SEQ = '''import torch
from torch import nn, Tensor
from jaxtyping import Float


class Attend(nn.Module):
    def __init__(self, d_q, d_k):
        super().__init__()
        self.proj = nn.Linear(d_k, d_q)

    def forward(self, query, keys):
        k = self.proj(keys)
        scores = torch.einsum("bd,bsd->bs", query, k)
        w = scores.softmax(-1)
        q = w.unsqueeze(-1) * k
        return q.sum(1)


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.attend = Attend(16, 20)

    def forward(self, state: Float[Tensor, "2 16"], memory: Float[Tensor, "2 9 20"]):
        ctx = self.attend(state, memory)
        return ctx
'''


def _values(src: str, name: str = "m.py") -> dict:
    data = analyze_source(src, name).infer_json()
    return {(v["line"], v["name"]): v for v in data["values"]}


def test_a_helper_shows_its_own_names_and_the_entry_its_concrete_shapes():
    vals = _values(SEQ2SEQ)
    q = vals[(15, "q")]
    assert q["function"] == "Attend.forward"
    assert q["shape"] == ["query.shape[0]", "keys.shape[1]", "query.shape[1]"]
    assert q["contexts"] == [{"context": "Seq2Seq.forward:25", "shape": [2, 9, 16]}]
    for v in vals.values():
        if v["function"] == "Attend.forward":  # never the caller's parameters
            assert not any(isinstance(d, str) and d.startswith(("state", "memory")) for d in v["shape"]), v
    assert vals[(25, "ctx")]["shape"] == [2, 16]


def test_hover_shows_the_generic_shape_and_each_context_and_inlay_the_agreed_one():
    r = analyze_source(SEQ2SEQ, "m.py")
    text = hover(r, 15, 9).markdown
    assert "Tensor[query.shape[0], keys.shape[1], query.shape[1]]" in text
    assert "called from Seq2Seq.forward (line 25): `Tensor[2, 9, 16]`" in text
    hints = {h.line: h.label for h in inlay_hints(r, 1, 30)}
    assert hints[15] == ": [2, 9, 16]"  # the one calling context is concrete


SHARED = '''import torch
from torch import nn, Tensor
from jaxtyping import Float


class Attention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d)

    def forward(self, hidden, kv=None):
        kv = hidden if kv is None else kv
        q = self.q(hidden)
        scores = torch.einsum("btd,bsd->bts", q, kv)
        out = torch.einsum("bts,bsd->btd", scores.softmax(-1), kv)
        return out


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc_attn = Attention(32)
        self.dec_attn = Attention(32)
        self.cross = Attention(32)

    def forward(self, src: Float[Tensor, "2 30 32"], tgt: Float[Tensor, "2 7 32"]):
        memory = self.enc_attn(src)
        h = self.dec_attn(tgt)
        h = self.cross(h, memory)
        return h
'''


def test_attention_shared_by_encoder_and_decoder_has_each_length_per_context():
    scores = _values(SHARED)[(14, "scores")]
    # the join, in the attention's own names: the decoder's calls are not the encoder's 30; the
    # keys' length is the queries' in self-attention (`kv` omitted) and the memory's across
    assert scores["shape"] == ["hidden.shape[0]", "hidden.shape[1]", "?"]
    assert scores["contexts"] == [{"context": "Model.forward:27", "shape": [2, 30, 30]},
                                  {"context": "Model.forward:28", "shape": [2, 7, 7]},
                                  {"context": "Model.forward:29", "shape": [2, 7, 30]}]
    r = analyze_source(SHARED, "m.py")
    hints = {h.line: h.label for h in inlay_hints(r, 1, 40)}
    assert hints[14] == ": [hidden.shape[0], hidden.shape[1], ?]"  # the contexts disagree


MANY = '''import torch


def mix(a, b, n: int):
    z = torch.einsum("bi,bj->bij", a, b)
    w = z.reshape(z.shape[0], n, -1)
    return w


def main():
    a = torch.randn(3, 5)
{calls}
'''


def test_differing_dims_join_to_unknown_and_at_most_max_contexts_are_listed():
    calls = "\n".join(f"    w{k} = mix(a, torch.randn(3, {2 * k + 2}), 1)" for k in range(MAX_CONTEXTS + 2))
    w = _values(MANY.format(calls=calls))[(6, "w")]
    assert w["shape"] == ["a.shape[0]", 1, "?"]  # 10, 20, ...: no parameter's axis
    assert len(w["contexts"]) == MAX_CONTEXTS
    assert w["contexts"][0] == {"context": "main:12", "shape": [3, 1, 10]}
    assert all(c["context"].startswith("main:") for c in w["contexts"])


def test_contexts_are_in_the_calling_entrys_names():
    src = '''import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = self.fc(x)
        return y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head()

    def forward(self, feats):
        N, L, C = feats.shape
        out = self.head(feats)
        return out
'''
    y = _values(src)[(11, "y")]
    # (its own `[*x, 4]`, the segment filled by its one call: segment_fill.py)
    assert y["shape"] == ["x.shape[0]", "x.shape[1]", 4]
    assert y["contexts"] == [{"context": "Net.forward:22", "shape": ["N", "L", 4]}]


BANK = '''import torch
from torch import nn, Tensor
from jaxtyping import Float


class Lookup(nn.Module):
    def __init__(self):
        super().__init__()
        self.key = nn.Linear(16, 8)
        self.query = nn.Linear(16, 8)

    def forward(self, x: Float[Tensor, "B 16"], bank: Float[Tensor, "B S 16"]):
        k = self.key(bank)
        q = self.query(x)
        att = q.unsqueeze(1) @ k
        return att
'''


def test_a_dimension_the_user_named_keeps_its_name_and_the_learned_equality_is_a_fact():
    vals = _values(BANK)
    assert vals[(13, "k")]["shape"] == ["B", "S", 8]  # not [B, 8, 8]: `q @ k` needs S == 8
    r = analyze_source(BANK, "m.py")
    text = hover(r, 13, 9).markdown
    assert "`S == 8`" in text


def test_a_dimension_the_user_fixed_prints_as_the_number():
    src = BANK.replace("        k = self.key(bank)", "        assert bank.shape[1] == 8\n        k = self.key(bank)")
    vals = _values(src)
    assert vals[(14, "k")]["shape"] == ["B", 8, 8]


LAYER_TWICE = '''import torch
from torch import nn, Tensor
from jaxtyping import Float


class Norm(nn.Module):
    def forward(self, x: Float[Tensor, "B D"]) -> Float[Tensor, "B D"]:
        z = x - x.mean(-1, keepdim=True)
        return z


class Block(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)

    def forward(self, x: Float[Tensor, "B D"]):
        return self.fc(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = Norm()
        self.fc = nn.Linear(128, 64)
        self.blocks = nn.ModuleList([Block(64, 32), Block(32, 16)])

    def forward(self, x: Float[Tensor, "4 128"]):
        a = self.norm(x)
        b = self.fc(a)
        c = self.norm(b)
        for blk in self.blocks:
            c = blk(c)
        return c
'''


def test_annotation_names_are_bound_afresh_at_each_call():
    r = analyze_source(LAYER_TWICE, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"]
    vals = {(v["line"], v["name"]): v for v in r.infer_json()["values"]}
    assert vals[(8, "z")]["shape"] == ["B", "D"]
    assert vals[(8, "z")]["contexts"] == [{"context": "Net.forward:29", "shape": [4, 128]},
                                          {"context": "Net.forward:31", "shape": [4, 64]}]
    assert vals[(31, "c")]["shape"] == [4, 64]
    assert vals[(33, "c")]["contexts"][-1]["shape"] == [4, 16]
    # the check (with the call memo on) agrees
    checked = analyze_source(LAYER_TWICE, "m.py", records=False)
    assert not [d for d in checked.diagnostics if d.severity == "error"]


def test_a_size_the_kept_calls_agree_on_is_unknown_when_calls_were_left_out():
    few = "\n".join("    w = mix(a, torch.randn(3, 2), 1)" for _ in range(3))
    assert _values(MANY.format(calls=few))[(6, "w")]["shape"] == ["a.shape[0]", 1, 10]
    # past the observations one line keeps (64), a call not kept may have passed another size
    many = "\n".join("    w = mix(a, torch.randn(3, 2), 1)" for _ in range(70))
    assert _values(MANY.format(calls=many))[(6, "w")]["shape"] == ["a.shape[0]", 1, "?"]


def test_a_call_that_lost_the_value_leaves_the_join_unknown():
    calls = "    w = mix(a, torch.randn(3, 2), 1)\n    w = mix(a, elsewhere.make(), 1)"
    src = MANY.format(calls=calls).replace("import torch\n", "import torch\nimport elsewhere\n", 1)
    w = _values(src)[(7, "w")]
    assert w["shape"] is None  # the second call's `w` may have any shape
    assert w["contexts"] == [{"context": "main:13", "shape": [3, 1, 10]}]


NESTED_INSTANCES = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 1)

    def forward(self, x):
        y = self.conv(x)
        return y


class Stage(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.block = Block(cin, cout)

    def forward(self, x):
        return self.block(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.s1 = Stage(3, 8)
        self.s2 = Stage(8, 16)

    def forward(self, x):
        h = self.s1(x)
        out = self.s2(h)
        return out
'''


def test_instances_reached_from_one_line_are_told_apart_by_the_calls_that_led_there():
    """(issue 24, tv_googlenet) Both Blocks are called from Stage.forward:21; the contexts of
    Net.forward's analysis say through which of its lines (`via`), in Net.forward's names."""
    y = _values(NESTED_INSTANCES)[(11, "y")]
    assert y["shape"] == ["x.shape[0]", "cout", "x.shape[2]", "x.shape[3]"]
    nested = [c for c in y["contexts"] if c.get("via")]
    assert sorted((c["via"], c["shape"][1]) for c in nested) == [
        (["Net.forward:31", "Stage.forward:21"], 8), (["Net.forward:32", "Stage.forward:21"], 16)]
    assert all(c["context"] == "Stage.forward:21" for c in nested)
    assert all(c["shape"][0] == "x.shape[0]" for c in nested)  # Net.forward's x
    # a call the analysed function made itself needs no `via`: its label is the whole path
    assert all(len(c.get("via", [])) != 1 for c in y["contexts"])


def test_a_loss_through_other_sites_leaves_the_context_of_these_sites_listed():
    """(T5's encoder and decoder, two stacks of one class) Both Blocks are called from
    Stage.forward:22; the second Stage's input is unknown, so its Block lost `y`. That loss is
    the call through Net.forward:33, told apart by `via`: the call through Net.forward:32 still
    lists its shape (before, the shared label dropped both), the lost one lists none."""
    src = NESTED_INSTANCES.replace("import torch\n", "import torch\nimport elsewhere\n", 1).replace(
        "out = self.s2(h)", "out = self.s2(elsewhere.make())")
    y = _values(src)[(12, "y")]
    assert y["contexts"] == [{"context": "Stage.forward:22", "shape": ["x.shape[0]", 8, "x.shape[2]", "x.shape[3]"],
                              "via": ["Net.forward:32", "Stage.forward:22"]}]
    # a loss through the same sites still drops the context: the calls are alternatives
    same = "for i in (x, {}):\n            h = self.s1(i)"
    kept = _values(src.replace("h = self.s1(x)", same.format("x")))[(12, "y")]
    assert [c["via"] for c in kept["contexts"]] == [["Net.forward:33", "Stage.forward:22"]]
    lost = _values(src.replace("h = self.s1(x)", same.format("elsewhere.make()")))[(12, "y")]
    assert "contexts" not in lost


def test_the_listed_context_agrees_with_torch():
    import torch
    from torch import nn
    with torch.device("meta"):
        y = nn.Conv2d(3, 8, 1)(torch.empty(2, 3, 5, 7))
    assert list(y.shape) == [2, 8, 5, 7]  # [x.shape[0], 8, x.shape[2], x.shape[3]] with Net's x
