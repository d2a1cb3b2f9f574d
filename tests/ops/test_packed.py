"""Differential tests: packed and padded sequences (torch.nn.utils.rnn) and recurrent layers on
packed input, against PyTorch. On CPU with small zero tensors: packing copies data (sorting
by length), which the meta device refuses."""
import random

import pytest
import torch
from torch.nn.utils import rnn as R

from shapehint.ops.concrete import ConcreteContext, OpFailed, apply, build_module, call_module
from shapehint.shapes.values import PackedV, TupleV

from .diff import T


def cpu(t: T) -> torch.Tensor:
    return torch.zeros(t.dims)


def _packed(p):
    """(batch, max_len, features) of a torch PackedSequence."""
    return (int(p.batch_sizes[0]), len(p.batch_sizes), tuple(p.data.shape[1:]))


def _abstract(v):
    if isinstance(v, PackedV):
        return (v.batch.value, v.max_len.value if v.max_len.value is not None else "sym",
                tuple(f.value for f in v.features))
    if isinstance(v, TupleV):
        return tuple(_abstract(i) for i in v.items)
    return tuple(d.value if d.value is not None else "sym" for d in v.shape.dims)


def _torch(v):
    if isinstance(v, R.PackedSequence):
        return _packed(v)
    if isinstance(v, (tuple, list)):
        return tuple(_torch(i) for i in v)
    return tuple(v.shape)


def _both(torch_fn, rule_fn):
    try:
        want = ("ok", _torch(torch_fn()))
    except (RuntimeError, ValueError, IndexError) as e:
        want = ("error", str(e).splitlines()[0])
    try:
        got = ("ok", _abstract(rule_fn()))
    except OpFailed as e:
        got = ("error", e.message)
    return want, got


def _lengths(r, n, length):
    lens = [r.randint(1, length) for _ in range(n)]
    roll = r.random()
    if roll < 0.1:
        lens[r.randrange(n)] = length + 1  # too long for the padding
    elif roll < 0.2:
        lens = lens + [1]  # one length too many
    elif roll < 0.25:
        lens[0] = 0
    return lens


@pytest.mark.parametrize("k", range(40))
def test_pack_then_pad_with_literal_lengths(k):
    r = random.Random(k)
    n, length, feat = r.randint(1, 4), r.randint(1, 5), r.choice([(), (3,), (2, 3)])
    bf = r.random() < 0.5
    x = T(n, length, *feat) if bf else T(length, n, *feat)
    lens = _lengths(r, n, length)
    total = r.choice([None, None, length, length + 2])
    kw = {} if total is None else {"total_length": total}
    want, got = _both(
        lambda: R.pad_packed_sequence(R.pack_padded_sequence(cpu(x), lens, batch_first=bf, enforce_sorted=False),
                                      batch_first=bf, **kw)[0],
        lambda: apply("torch.nn.utils.rnn.pad_packed_sequence",
                      apply("torch.nn.utils.rnn.pack_padded_sequence", x.abstract(), lens, batch_first=bf,
                            enforce_sorted=False), batch_first=bf, **kw).items[0])
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), (x, lens, bf, total, want, got)


@pytest.mark.parametrize("k", range(30))
def test_recurrent_layers_on_packed_input(k):
    r = random.Random(100 + k)
    kind = r.choice(["RNN", "GRU", "LSTM"])
    fin, h, layers = r.randint(1, 4), r.randint(2, 5), r.randint(1, 2)
    kw = {"num_layers": layers, "bidirectional": r.random() < 0.5, "batch_first": r.random() < 0.5}
    n, length = r.randint(1, 3), r.randint(1, 4)
    feat = (fin,) if r.random() < 0.8 else r.choice([(fin + 1,), (fin, 2)])
    x = T(n, length, *feat) if kw["batch_first"] else T(length, n, *feat)
    lens = [r.randint(1, length) for _ in range(n)]

    def run_torch_side():
        mod = getattr(torch.nn, kind)(fin, h, **kw)
        p = R.pack_padded_sequence(cpu(x), lens, batch_first=kw["batch_first"], enforce_sorted=False)
        out, state = mod(p)
        padded, _ = R.pad_packed_sequence(out, batch_first=kw["batch_first"])
        return padded, out, state

    def run_rule_side():
        m = build_module(f"torch.nn.{kind}", fin, h, **kw)
        p = apply("torch.nn.utils.rnn.pack_padded_sequence", x.abstract(), lens, batch_first=kw["batch_first"],
                  enforce_sorted=False)
        res = call_module(ConcreteContext(kind), m, [p], {})
        out, state = res.items
        padded = apply("torch.nn.utils.rnn.pad_packed_sequence", out, batch_first=kw["batch_first"]).items[0]
        return TupleV((padded, out, state))

    want, got = _both(run_torch_side, run_rule_side)
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), (kind, kw, x, lens, want, got)


@pytest.mark.parametrize("k", range(30))
def test_pad_sequence_and_pack_sequence(k):
    r = random.Random(300 + k)
    feat = r.choice([(), (3,), (2, 2)])
    seqs = [T(r.randint(1, 5), *feat) for _ in range(r.randint(1, 4))]
    if r.random() < 0.2 and feat:
        seqs.append(T(2, *[f + 1 for f in feat]))
    bf = r.random() < 0.5
    want, got = _both(lambda: R.pad_sequence([cpu(s) for s in seqs], batch_first=bf),
                      lambda: apply("torch.nn.utils.rnn.pad_sequence", [s.abstract() for s in seqs], batch_first=bf))
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), (seqs, bf, want, got)
    srt = sorted(seqs, key=lambda s: -s.dims[0])
    want, got = _both(lambda: R.pack_sequence([cpu(s) for s in srt]),
                      lambda: apply("torch.nn.utils.rnn.pack_sequence", [s.abstract() for s in srt]))
    assert want[0] == got[0] and (want[0] == "error" or want[1] == got[1]), (srt, want, got)


@pytest.mark.parametrize("n,count", [(3, 3), (3, 2), (2, 4)])
def test_lengths_tensor_gives_a_bounded_longest_length(n, count):
    x = T(n, 5, 4)
    lens = torch.full((count,), 5, dtype=torch.int64)
    want, got = _both(lambda: R.pack_padded_sequence(cpu(x), lens, batch_first=True),
                      lambda: apply("torch.nn.utils.rnn.pack_padded_sequence", x.abstract(), T(count, dtype="long").abstract(),
                                    batch_first=True))
    assert want[0] == got[0]
    if want[0] == "ok":
        assert got[1] == (n, "sym", (4,)) and want[1] == (n, 5, (4,))
