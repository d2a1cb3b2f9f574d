"""Recurrent layers: nn.RNN / nn.GRU / nn.LSTM and nn.RNNCell / nn.GRUCell / nn.LSTMCell.

Sequence layers take (L, N, H_in) — (N, L, H_in) with batch_first — or an unbatched (L, H_in),
and return (output, h_n) or, for LSTM, (output, (h_n, c_n)). With D = 2 if bidirectional and
H_out = proj_size or hidden_size: output (L, N, D*H_out), h_n (num_layers*D, N, H_out),
c_n (num_layers*D, N, hidden_size); unbatched drops N everywhere.
"""
from __future__ import annotations

from ...shapes.shape import Shape, eq
from ...shapes.values import ListV, PackedV, TensorV, TupleV
from ..arguments import need_int
from ..context import NotApplicable, OpContext
from ..registry import module

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _ctor_checks(cx: OpContext, kind, hidden_size, num_layers, dropout, proj_size=0, nonlinearity="tanh"):
    h, n, p = cx.int_of(hidden_size), cx.int_of(num_layers), cx.int_of(proj_size)
    if h is not None and h.value is not None and h.value <= 0:
        cx.fail(f"{cx.opname}: hidden_size must be greater than zero, got {h}", "SH107")
    if n is not None and n.value is not None and n.value <= 0:
        cx.fail(f"{cx.opname}: num_layers must be greater than zero, got {n}", "SH107")
    dp = cx.float_of(dropout)
    if dp is not None and not 0 <= dp <= 1:
        cx.fail(f"{cx.opname}: dropout must be a number in [0, 1], got {dp}", "SH107")
    if p is not None and p.value is not None:
        if p.value < 0:
            cx.fail(f"{cx.opname}: proj_size must be non-negative, got {p}", "SH107")
        if p.value > 0 and h is not None and h.value is not None and p.value >= h.value:
            cx.fail(f"{cx.opname}: proj_size ({p}) has to be smaller than hidden_size ({h})", "SH107")
    nl = cx.str_of(nonlinearity)
    if nl is not None and nl not in ("tanh", "relu"):
        cx.fail(f"{cx.opname}: unknown nonlinearity {nl!r} (expected 'tanh' or 'relu')", "SH107")


def _cfg(cx: OpContext, m):
    c = m.cfg
    h = need_int(cx, c["hidden_size"], "hidden_size")
    proj = cx.int_of(c.get("proj_size", 0))
    if proj is None:
        raise NotApplicable("proj_size unknown")
    bi, bf = cx.bool_of(c["bidirectional"]), cx.bool_of(c["batch_first"])
    if bi is None or bf is None:
        raise NotApplicable("flags unknown")
    return (need_int(cx, c["input_size"], "input_size"), h, need_int(cx, c["num_layers"], "num_layers"),
            2 if bi else 1, bf, proj if proj.value != 0 else h)


def _check_state(cx: OpContext, t, want: tuple, what: str, batched: bool) -> None:
    if not isinstance(t, TensorV):
        raise NotApplicable(f"{what} unknown")
    rank = 3 if batched else 2
    if t.shape.rank is not None and t.shape.rank != rank:
        cx.fail(f"{cx.opname}: for {'batched 3-D' if batched else 'unbatched 2-D'} input, {what} should also be "
                f"{rank}-D, but {cx.label(t, what)} is {t.shape.rank}-D {t.shape}", "SH102")
    d = cx.dims(t, rank, what)
    shown = "(" + ", ".join(str(x) for x in want) + ")"
    for a, b in zip(d, want):
        cx.require(eq(a, b), lambda: f"{cx.opname} expects {what} of size {shown}, but {cx.label(t, what)} is {t.shape}",
                   "SH101")


def _packed_forward(cx: OpContext, kind: str, m, seq: PackedV, hx):
    """A PackedSequence in: its data must be [total, input_size]; a PackedSequence out, with
    the states batched as for a 3-D input."""
    fin, h, layers, D, bf, hout = _cfg(cx, m)
    if len(seq.features) != 1:
        cx.fail(f"{cx.opname}: a packed input must hold 2-D data (steps × features), but its steps have shape "
                f"[{', '.join(map(str, seq.features))}]", "SH102")
    cx.require(eq(seq.features[0], fin), lambda: f"{cx.opname} expects input_size {fin}, but the packed sequence has "
               f"{seq.features[0]} features per step", "SH101")
    h_shape, c_shape = (layers * D, seq.batch, hout), (layers * D, seq.batch, h)
    _check_states(cx, kind, hx, h_shape, c_shape, True)
    out = PackedV(seq.batch, seq.max_len, (D * hout,), seq.dtype, cx.span)
    hn = cx.tensor(h_shape, dtype=seq.dtype)
    if kind == "LSTM":
        return TupleV((out, TupleV((hn, cx.tensor(c_shape, dtype=seq.dtype)))))
    return TupleV((out, hn))


def _check_states(cx: OpContext, kind: str, hx, h_shape, c_shape, batched: bool) -> None:
    if cx.is_none(hx):
        return
    if kind == "LSTM":
        if not isinstance(hx, (TupleV, ListV)) or hx.items is None or len(hx.items) != 2:
            raise NotApplicable("hx is not a known pair")
        _check_state(cx, hx.items[0], h_shape, "h_0", batched)
        _check_state(cx, hx.items[1], c_shape, "c_0", batched)
    else:
        _check_state(cx, hx, h_shape, "h_0", batched)


def _seq_forward(kind: str):
    def fwd(cx: OpContext, m, input, hx=None):
        if isinstance(input, PackedV):
            return _packed_forward(cx, kind, m, input, hx)
        if not isinstance(input, TensorV):
            raise NotApplicable("input unknown")
        fin, h, layers, D, bf, hout = _cfg(cx, m)
        d = cx.dims(input, (3, 2))
        batched = len(d) == 3
        cx.require(eq(d[-1], fin), lambda: f"{cx.opname} expects input_size {fin} in the last dimension, but "
                   f"{cx.label(input)} has {d[-1]} here", "SH101")
        if batched:
            n, seq = (d[0], d[1]) if bf else (d[1], d[0])
            nb = (n,)
        else:
            seq, nb = d[0], ()
        h_shape = (layers * D,) + nb + (hout,)
        c_shape = (layers * D,) + nb + (h,)
        _check_states(cx, kind, hx, h_shape, c_shape, batched)
        out_dims = ((n, seq) if bf else (seq, n)) if batched else (seq,)
        out = cx.tensor(out_dims + (D * hout,), like=input)
        hn = cx.tensor(h_shape, like=input)
        if kind == "LSTM":
            return TupleV((out, TupleV((hn, cx.tensor(c_shape, like=input)))))
        return TupleV((out, hn))
    return fwd


def _seq_params(kind: str):
    def params(cx: OpContext, m):
        fin, h, layers, D, bf, hout = _cfg(cx, m)
        g = GATES[kind]
        out = {}
        if layers.value is None:
            raise NotApplicable("num_layers unknown")
        for layer in range(layers.value):
            for sfx in ("", "_reverse")[:D]:
                s = f"_l{layer}{sfx}"
                out["weight_ih" + s] = [g * h, fin if layer == 0 else D * hout]
                out["weight_hh" + s] = [g * h, hout]
                if cx.bool_of(m.cfg["bias"]) is not False:
                    out["bias_ih" + s] = [g * h]
                    out["bias_hh" + s] = [g * h]
                if hout is not h:
                    out["weight_hr" + s] = [hout, h]
        return out
    return params


@module("torch.nn.RNN")
def RNN(cx: OpContext, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
        dropout=0.0, bidirectional=False, device=None, dtype=None):
    _ctor_checks(cx, "RNN", hidden_size, num_layers, dropout, nonlinearity=nonlinearity)


@module("torch.nn.GRU")
def GRU(cx: OpContext, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
        bidirectional=False, device=None, dtype=None):
    _ctor_checks(cx, "GRU", hidden_size, num_layers, dropout)


@module("torch.nn.LSTM")
def LSTM(cx: OpContext, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
         bidirectional=False, proj_size=0, device=None, dtype=None):
    _ctor_checks(cx, "LSTM", hidden_size, num_layers, dropout, proj_size)


for _rule, _kind in ((RNN, "RNN"), (GRU, "GRU"), (LSTM, "LSTM")):
    _rule.forward(_seq_forward(_kind))
    _rule.params(_seq_params(_kind))


# ---- cells -------------------------------------------------------------------------------------------

def _cell_forward(kind: str):
    def fwd(cx: OpContext, m, input, hx=None):
        if not isinstance(input, TensorV):
            raise NotApplicable("input unknown")
        fin = need_int(cx, m.cfg["input_size"], "input_size")
        h = need_int(cx, m.cfg["hidden_size"], "hidden_size")
        d = cx.dims(input, (2, 1))
        cx.require(eq(d[-1], fin), lambda: f"{cx.opname} expects input_size {fin} in the last dimension, but "
                   f"{cx.label(input)} has {d[-1]} here", "SH101")
        shape = (d[0], h) if len(d) == 2 else (h,)
        states = []
        if not cx.is_none(hx):
            if kind == "LSTMCell":
                if not isinstance(hx, (TupleV, ListV)) or hx.items is None or len(hx.items) != 2:
                    raise NotApplicable("hx is not a known pair")
                states = list(hx.items)
            else:
                states = [hx]
        for t, what in zip(states, ("h_0", "c_0")):
            if not isinstance(t, TensorV):
                raise NotApplicable("state unknown")
            sd = cx.dims(t, len(shape), what)
            for a, b in zip(sd, shape):
                cx.require(eq(a, b), lambda: f"{cx.opname} expects {what} of size {Shape.of(shape)}, but "
                           f"{cx.label(t, what)} is {t.shape}", "SH101")
        out = cx.tensor(shape, like=input)
        if kind == "LSTMCell":
            return TupleV((out, cx.tensor(shape, like=input)))
        return out
    return fwd


def _cell_params(kind: str):
    g = {"RNNCell": 1, "GRUCell": 3, "LSTMCell": 4}[kind]

    def params(cx: OpContext, m):
        fin, h = cx.int_of(m.cfg["input_size"]), cx.int_of(m.cfg["hidden_size"])
        out = {"weight_ih": [g * h, fin], "weight_hh": [g * h, h]}
        if cx.bool_of(m.cfg["bias"]) is not False:
            out.update(bias_ih=[g * h], bias_hh=[g * h])
        return out
    return params


def _cell_ctor_checks(cx: OpContext, hidden_size, nonlinearity="tanh"):
    _ctor_checks(cx, "cell", hidden_size, 1, 0.0, nonlinearity=nonlinearity)


@module("torch.nn.RNNCell")
def RNNCell(cx: OpContext, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
    _cell_ctor_checks(cx, hidden_size, nonlinearity)


@module("torch.nn.GRUCell")
def GRUCell(cx: OpContext, input_size, hidden_size, bias=True, device=None, dtype=None):
    return None


@module("torch.nn.LSTMCell")
def LSTMCell(cx: OpContext, input_size, hidden_size, bias=True, device=None, dtype=None):
    return None


for _rule, _kind in ((RNNCell, "RNNCell"), (GRUCell, "GRUCell"), (LSTMCell, "LSTMCell")):
    _rule.forward(_cell_forward(_kind))
    _rule.params(_cell_params(_kind))
