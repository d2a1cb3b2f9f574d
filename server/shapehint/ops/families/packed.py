"""Packed and padded sequences: torch.nn.utils.rnn.pack_padded_sequence / pad_packed_sequence /
pack_sequence / pad_sequence, and the `PackedSequence` value the recurrent layers accept.

A packed sequence keeps the batch size, the longest length and the per-step feature shape
(`PackedV`). The longest length depends on the `lengths` *values*, which shapes do not carry:
it is a fresh dimension at most the padded length, unless the lengths are literal ints.
`pad_packed_sequence(..., total_length=T)` pads back to exactly T.
"""
from __future__ import annotations

from ...shapes.expr import Expr, emax
from ...shapes.shape import eq, ge, le
from ...shapes.values import ListV, PackedV, TensorV, TupleV
from ..context import NotApplicable, OpContext
from ..registry import op


def _max_len(cx: OpContext, lengths, padded_len: Expr, n: Expr) -> Expr:
    if isinstance(lengths, TensorV):
        d = cx.dims(lengths, 1, "lengths")
        cx.require(eq(d[0], n), lambda: f"{cx.opname}: expected len(lengths) to be equal to the batch size {n}, but "
                   f"{cx.label(lengths, 'lengths')} has {d[0]} entries", "SH101")
    else:
        vals = cx.ints_of(lengths)
        if vals is None:
            raise NotApplicable("lengths unknown")
        cx.require(eq(Expr.const(len(vals)), n), lambda: f"{cx.opname}: expected len(lengths) to be equal to the batch "
                   f"size {n}, but got {len(vals)} lengths", "SH101")
        if vals and all(v.value is not None for v in vals):
            top = max(v.value for v in vals)
            if min(v.value for v in vals) <= 0:
                cx.fail(f"{cx.opname}: the length of every sequence has to be greater than 0", "SH107")
            cx.require(le(top, padded_len), lambda: f"{cx.opname}: a length of {top} does not fit the padded length "
                       f"{padded_len}", "SH107")
            return Expr.const(top)
    longest = cx.fresh("max_len")
    cx.require(ge(longest, 1), lambda: f"{cx.opname}: empty sequences cannot be packed", "SH107")
    cx.require(le(longest, padded_len), lambda: f"{cx.opname}: the lengths exceed the padded length {padded_len}", "SH107")
    return longest


@op("torch.nn.utils.rnn.pack_padded_sequence")
def pack_padded_sequence(cx: OpContext, input, lengths, batch_first=False, enforce_sorted=True):
    if not isinstance(input, TensorV):
        raise NotApplicable("input unknown")
    bf = cx.bool_of(batch_first)
    if bf is None:
        raise NotApplicable("batch_first unknown")
    cx.at_least(input, 2)
    # an input of unknown rank is taken as (steps, batch, features): what the recurrent layers
    # that consume packed sequences accept
    d = input.shape.dims if input.shape.rank is not None else cx.learn_rank(input, 3)
    n, length = (d[0], d[1]) if bf else (d[1], d[0])
    return PackedV(n, _max_len(cx, lengths, length, n), tuple(d[2:]), input.dtype, cx.span)


@op("torch.nn.utils.rnn.pad_packed_sequence")
def pad_packed_sequence(cx: OpContext, sequence, batch_first=False, padding_value=0.0, total_length=None):
    if not isinstance(sequence, PackedV):
        raise NotApplicable("not a packed sequence")
    bf = cx.bool_of(batch_first)
    if bf is None:
        raise NotApplicable("batch_first unknown")
    length = sequence.max_len
    if not cx.is_none(total_length):
        t = cx.int_of(total_length)
        if t is None:
            raise NotApplicable("total_length unknown")
        cx.require(ge(t, sequence.max_len), lambda: f"{cx.opname}: total_length {t} is less than the longest sequence "
                   f"({sequence.max_len})", "SH107")
        length = t
    lead = (sequence.batch, length) if bf else (length, sequence.batch)
    return TupleV((cx.tensor(lead + sequence.features, dtype=sequence.dtype),
                   cx.tensor((sequence.batch,), dtype="int64")))


def _stack_rows(cx: OpContext, sequences) -> tuple:
    """(count, longest, per-step feature dims) of a list of [L_i, *features] tensors."""
    if not isinstance(sequences, (ListV, TupleV)) or sequences.items is None or not sequences.items:
        raise NotApplicable("sequences unknown")
    items = list(sequences.items)
    if not all(isinstance(t, TensorV) and t.shape.rank is not None for t in items):
        raise NotApplicable("a sequence unknown")
    first = items[0]
    cx.at_least(first, 1, "sequence")
    feats = first.shape.dims[1:]
    for t in items[1:]:
        cx.at_least(t, 1, "sequence")
        if t.shape.rank != first.shape.rank:
            cx.fail(f"{cx.opname}: every sequence needs the same number of dimensions, but {first.shape} and "
                    f"{t.shape} differ", "SH102")
        for i, (a, b) in enumerate(zip(feats, t.shape.dims[1:])):
            cx.require(eq(a, b), lambda: f"{cx.opname}: sequences must agree after the first dimension, but dimension "
                       f"{i + 1} is {a} in {first.shape} and {b} in {t.shape}", "SH101")
    longest = first.shape.dims[0]
    for t in items[1:]:
        longest = emax(longest, t.shape.dims[0])
    return Expr.const(len(items)), longest, tuple(feats), first.dtype


@op("torch.nn.utils.rnn.pad_sequence")
def pad_sequence(cx: OpContext, sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    bf = cx.bool_of(batch_first)
    if bf is None:
        raise NotApplicable("batch_first unknown")
    n, longest, feats, dtype = _stack_rows(cx, sequences)
    return cx.tensor(((n, longest) if bf else (longest, n)) + feats, dtype=dtype)


@op("torch.nn.utils.rnn.pack_sequence")
def pack_sequence(cx: OpContext, sequences, enforce_sorted=True):
    n, longest, feats, dtype = _stack_rows(cx, sequences)
    return PackedV(n, longest, feats, dtype, cx.span)
