"""A rank learned of a join is each joined path's (environment._learn_joins), and a view's `-1`
over a tensor whose rank is learned later is written once it is (ops/families/views
`_segment_quotient`).

An encoder-decoder's `forward` builds the decoder's ids from the encoder's when neither optional
decoder input is given (`if dec_ids is None and dec_embeds is None: dec_ids = shift(ids)`): past
that `if`, `dec_ids` is the join of the given input and the shifted one, of a segment of its own,
and the decoder's `b, t = e.shape[:-1]` learned the rank of that segment only, so `ids` kept its
unknown rank and the encoder's lines showed `[?, ...]` (issue 28, causes 1 and 8). Every path
past the join hands the decoder one of the joined tensors, so each has the rank learned there.
The encoder's `ids.view(-1, ids.shape[-1])`, read before that rank is learned, is the elements
over the last axis (exact, the view holds them all), written once the rank is known
(`B*T//ids.shape[-1]`), where it was a `?` of its own. Every shape claimed is checked against
torch (meta tensors)."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''from typing import Optional

import torch
from torch import nn


def shift(ids):
    out = ids.new_zeros(ids.shape)
    out[:, 1:] = ids[:, :-1].clone()
    out[:, 0] = 0
    return out


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.pos = nn.Embedding(64, 16)

    def forward(self, ids):
        flat = ids.view(-1, ids.shape[-1])
        e = self.emb(flat)
        bsz, seq = ids.shape[:2]
        p = self.pos(torch.arange(seq).expand(bsz, -1))
        h = e + p
        return h


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)

    def forward(self, ids, enc):
        e = self.emb(ids)
        b, t = e.shape[:-1]
        return e + enc.mean(1, keepdim=True)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()

    def forward(self, ids: Optional[torch.Tensor] = None, dec_ids: Optional[torch.Tensor] = None,
                dec_embeds: Optional[torch.Tensor] = None):
        if dec_ids is None and dec_embeds is None:
            dec_ids = shift(ids)
        enc = self.encoder(ids)
        out = self.decoder(dec_ids, enc)
        return out


def either(x, y, flag: bool):
    if flag:
        z = x
    else:
        z = y
    a, b = z.shape
    u = x + 1
    v = y + 1
    return u, v
'''


def _values():
    lines = {k + 1: ln.strip() for k, ln in enumerate(PROGRAM.splitlines())}
    out = {}
    for v in analyze_source(PROGRAM, "joined.py").infer_json()["values"]:
        out[(v["function"], lines[v["line"]])] = v
    return out


def _model_shapes(value):
    """The shapes `value` has in the calls from Model.forward."""
    return [c["shape"] for c in value.get("contexts") or []
            if c["context"].startswith("Model.forward:") and not c.get("via")]


def _observed():
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "joined.py", "exec"), ns)
    seen = {}

    def keep(name):
        def hook(module, args, out):
            seen[name] = (tuple(args[0].shape), tuple(out.shape))
        return hook
    m = ns["Model"]()
    m.encoder.register_forward_hook(keep("enc"))
    m.decoder.register_forward_hook(keep("dec"))
    m(torch.randint(0, 100, (3, 7)))
    return torch, ns, seen


def test_the_rank_learned_past_the_join_is_the_shifted_inputs():
    values = _values()
    # the decoder's unpacking learned the join's rank; the shifted ids are 2-D, so are the ids
    assert values[("Model.forward", "dec_ids = shift(ids)")]["shape"] == ["ids.shape[0]", "ids.shape[1]"]
    enc = values[("Encoder.forward", "h = e + p")]
    assert ["max((ids.shape[0]*ids.shape[1])//ids.shape[-1], ids.shape[0])", "max(ids.shape[-1], ids.shape[1])",
            16] in _model_shapes(enc)


def test_the_flattened_ids_are_written_once_the_rank_is_learned():
    values = _values()
    flat = values[("Encoder.forward", "flat = ids.view(-1, ids.shape[-1])")]
    assert ["(ids.shape[0]*ids.shape[1])//ids.shape[-1]", "ids.shape[-1]"] in _model_shapes(flat)
    # the encoder's own analysis learns no rank: the flattened size is the leading axes' product
    # there, named after them (product_names.py), right for every rank
    assert flat["shape"][0] == "ids.shape[:-1].numel()"
    torch = pytest.importorskip("torch")
    for sizes in [(7,), (3, 7), (2, 3, 7)]:
        assert torch.zeros(sizes).view(-1, sizes[-1]).shape[0] == torch.Size(sizes[:-1]).numel()


def test_the_shapes_claimed_are_torchs():
    torch, ns, seen = _observed()
    B, T = 3, 7
    # what the context shapes claim, evaluated at the call's ids [B, T]
    assert seen["enc"] == ((B, T), (max(B * T // T, B), max(T, T), 16))
    assert seen["dec"][0] == (B, T)
    assert ns["shift"](torch.zeros(B, T, dtype=torch.long)).shape == (B, T)
    flat = torch.zeros(B, T).view(-1, T)
    assert flat.shape == ((B * T) // T, T)


def test_each_joined_tensor_takes_the_rank_learned_past_the_join():
    # as a rank an arm's operation needs is taken for the tensor's past the branch
    # (Environment.join_arms), the rank the join shows past it is each joined path's
    values = _values()
    assert values[("either", "u = x + 1")]["shape"] == ["x.shape[0]", "x.shape[1]"]
    assert values[("either", "v = y + 1")]["shape"] == ["y.shape[0]", "y.shape[1]"]
    torch, ns, _ = _observed()
    x, y = torch.zeros(2, 3), torch.zeros(4, 5)
    for flag in (True, False):
        u, v = ns["either"](x, y, flag)
        assert u.shape == x.shape and v.shape == y.shape
