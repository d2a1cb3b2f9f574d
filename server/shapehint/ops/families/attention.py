"""Attention: F.scaled_dot_product_attention, nn.MultiheadAttention and the Transformer layers.

SDPA follows its math path: scores = q @ k.mT broadcast over batch dims ([..., L, S]), the mask
is added in place (so it must broadcast *into* the score shape), out = scores @ v ([..., L, Ev]).
MultiheadAttention keeps (L, N, E) (or (N, L, E) with batch_first, or unbatched (L, E)) and
returns (out, weights | None); many of PyTorch's checks there are `assert`s, which still reject.
A query of unknown rank comes out in its own shape (all three layouts do), the weights unknown.
Transformer layers map their input to the same shape once d_model and the batch agree.
"""
from __future__ import annotations

from ...shapes.shape import Shape, divides, eq
from ...shapes.values import ModuleV, NoneV, TensorV, TupleV
from ..arguments import need_int, opt_int
from ..common import broadcast_shapes
from ..context import NotApplicable, OpContext
from ..registry import module, op


def _known(cx: OpContext, *ts) -> None:
    for t in ts:
        if not isinstance(t, TensorV) or t.shape.rank is None:
            raise NotApplicable("operand unknown")


@op("torch.nn.functional.scaled_dot_product_attention")
def scaled_dot_product_attention(cx: OpContext, query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    _known(cx, query, key, value)
    q, k, v = query.shape.dims, key.shape.dims, value.shape.dims
    if min(len(q), len(k), len(v)) < 2:
        cx.fail(f"{cx.opname} expects query, key and value of at least 2 dimensions, got {query.shape}, "
                f"{key.shape} and {value.shape}", "SH102")
    cx.require(eq(q[-1], k[-1]), lambda: f"{cx.opname}: query and key must have the same embedding size, but "
               f"{cx.label(query, 'query')} has {q[-1]} and {cx.label(key, 'key')} has {k[-1]}", "SH101")
    cx.require(eq(k[-2], v[-2]), lambda: f"{cx.opname}: key and value must have the same sequence length, but "
               f"{cx.label(key, 'key')} has {k[-2]} and {cx.label(value, 'value')} has {v[-2]}", "SH101")
    kb, vb = k[:-2], v[:-2]
    if cx.bool_of(enable_gqa) and len(q) >= 3 and len(k) >= 3 and len(v) >= 3:
        for t, what in ((k, "key"), (v, "value")):
            cx.require(divides(t[-3], q[-3]), lambda: f"{cx.opname}: the {t[-3]} heads of {what} must divide the "
                       f"{q[-3]} heads of query (enable_gqa)", "SH101")
        kb, vb = kb[:-1] + (q[-3],), vb[:-1] + (q[-3],)
    scores = broadcast_shapes(cx, Shape(q[:-2]), Shape(kb))
    score_shape = Shape(scores.dims + (q[-2], k[-2]))
    if not cx.is_none(attn_mask):
        if cx.bool_of(is_causal):
            cx.fail(f"{cx.opname}: an explicit attn_mask should not be given with is_causal=True", "SH107")
        if isinstance(attn_mask, TensorV) and attn_mask.shape.rank is not None:
            m = attn_mask.shape
            joined = broadcast_shapes(cx, score_shape, m)
            if m.rank > score_shape.rank:
                cx.fail(f"{cx.opname}: attn_mask {m} has more dimensions than the attention scores {score_shape}",
                        "SH106")
            for a, b in zip(joined.dims, score_shape.dims):
                cx.require(eq(a, b), lambda: f"{cx.opname}: attn_mask {m} does not broadcast to the attention "
                           f"scores {score_shape}", "SH106")
        # (a mask the analysis lost, or of unknown rank, is not checked: it only has to broadcast
        # to the scores, and the output's shape is query's and value's either way)
    out = broadcast_shapes(cx, scores, Shape(vb))
    return cx.tensor(out.dims + (q[-2], v[-1]), like=query)


# ---- multi-head attention ----------------------------------------------------------------------------

@module("torch.nn.MultiheadAttention")
def MultiheadAttention(cx: OpContext, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                       add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
    e, h = cx.int_of(embed_dim), cx.int_of(num_heads)
    if e is not None and h is not None:
        if e.value is not None and e.value <= 0 or h.value is not None and h.value <= 0:
            cx.fail(f"{cx.opname}: embed_dim and num_heads must be greater than 0, got {e} and {h}", "SH107")
        cx.require(divides(h, e), lambda: f"{cx.opname}: embed_dim={e} must be divisible by num_heads={h}", "SH107")


def mha(cx: OpContext, m: ModuleV, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
        average_attn_weights=True, is_causal=False):
    if isinstance(query, TensorV) and query.shape.rank is None and isinstance(key, TensorV) \
            and isinstance(value, TensorV):
        return _mha_open_rank(cx, m, query, key, value, need_weights)
    _known(cx, query, key, value)
    c = m.cfg
    E, H = need_int(cx, c["embed_dim"], "embed_dim"), need_int(cx, c["num_heads"], "num_heads")
    kdim, vdim = opt_int(cx, c["kdim"], "kdim") or E, opt_int(cx, c["vdim"], "vdim") or E
    bf, extra = cx.bool_of(c["batch_first"]), 0
    for flag in ("add_bias_kv", "add_zero_attn"):
        b = cx.bool_of(c[flag])
        if b is None or bf is None:
            raise NotApplicable("flags unknown")
        extra += int(b)
    qd, kd, vd = query.shape.dims, key.shape.dims, value.shape.dims
    if len(qd) not in (2, 3):
        cx.fail(f"{cx.opname}: query should be unbatched 2-D or batched 3-D, but {cx.label(query, 'query')} is "
                f"{len(qd)}-D {query.shape}", "SH102")
    if len(kd) != len(qd) or len(vd) != len(qd):
        cx.fail(f"{cx.opname}: for a {len(qd)}-D query, key and value must be {len(qd)}-D too, got {key.shape} "
                f"and {value.shape}", "SH102")
    batched = len(qd) == 3
    if batched and bf:  # (N, L, E) -> (L, N, E)
        qd, kd, vd = (qd[1], qd[0], qd[2]), (kd[1], kd[0], kd[2]), (vd[1], vd[0], vd[2])
    L, S = qd[0], kd[0]
    for t, want, what in ((qd, E, "query"), (kd, kdim, "key"), (vd, vdim, "value")):
        cx.require(eq(t[-1], want), lambda: f"{cx.opname} expects {what} with embedding size {want}, but "
                   f"{cx.label({'query': query, 'key': key, 'value': value}[what], what)} has {t[-1]} here", "SH101")
    cx.require(eq(vd[0], S), lambda: f"{cx.opname}: key and value must have the same sequence length, got {S} and {vd[0]}",
               "SH101")
    if batched:
        cx.require(eq(kd[1], qd[1]), lambda: f"{cx.opname}: key batch size {kd[1]} does not match the query's {qd[1]}",
                   "SH101")
        cx.require(eq(vd[1], qd[1]), lambda: f"{cx.opname}: value batch size {vd[1]} does not match the query's {qd[1]}",
                   "SH101")
    nb = (qd[1],) if batched else ()
    if isinstance(key_padding_mask, TensorV) and key_padding_mask.shape.rank is not None:
        kp = key_padding_mask.shape
        want = nb + (S,)
        if kp.rank != len(want):
            cx.fail(f"{cx.opname}: key_padding_mask must be {len(want)}-D {Shape.of(want)}, got {kp}", "SH102")
        for a, b in zip(kp.dims, want):
            cx.require(eq(a, b), lambda: f"{cx.opname}: key_padding_mask must have shape {Shape.of(want)}, got {kp}",
                       "SH101")
    if isinstance(attn_mask, TensorV) and attn_mask.shape.rank is not None:
        am = attn_mask.shape
        if am.rank == 2:
            want = (L, S)
        elif am.rank == 3:
            want = ((qd[1] * H) if batched else H, L, S)
        else:
            cx.fail(f"{cx.opname}: attn_mask must be 2-D or 3-D, got {am}", "SH102")
        for a, b in zip(am.dims, want):
            cx.require(eq(a, b), lambda: f"{cx.opname}: attn_mask must have shape {Shape.of(want)}, got {am}", "SH101")
    elif cx.bool_of(is_causal):
        cx.fail(f"{cx.opname}: is_causal=True needs an attn_mask", "SH107")
    out_dims = ((qd[1], L, E) if bf else (L, qd[1], E)) if batched else (L, E)
    out = cx.tensor(out_dims, like=query)
    nw = cx.bool_of(need_weights)
    if nw is None:
        raise NotApplicable("need_weights unknown")
    if not nw:
        return TupleV((out, NoneV()))
    avg = cx.bool_of(average_attn_weights)
    if avg is None:
        raise NotApplicable("average_attn_weights unknown")
    w = ((L, S + extra) if avg else (H, L, S + extra))
    return TupleV((out, cx.tensor(nb + w, like=query)))


def _mha_open_rank(cx: OpContext, m: ModuleV, query, key, value, need_weights):
    """A query of unknown rank (DETR's encoder layer: `src` unannotated): batched (L, N, E),
    batch-first (N, L, E) or unbatched (L, E), the output has the query's shape whichever it is,
    once its last dimension is the embedding; the weights' rank depends on which: unknown."""
    c = m.cfg
    E = need_int(cx, c["embed_dim"], "embed_dim")
    kdim, vdim = opt_int(cx, c["kdim"], "kdim") or E, opt_int(cx, c["vdim"], "vdim") or E
    for t, want, what in ((query, E, "query"), (key, kdim, "key"), (value, vdim, "value")):
        last = cx.last_dim(t)
        cx.require(eq(last, want), lambda: f"{cx.opname} expects {what} with embedding size {want}, but "
                   f"{cx.label(t, what)} has {last} here", "SH101")
    nw = cx.bool_of(need_weights)
    if nw is None:
        raise NotApplicable("need_weights unknown")
    out = cx.tensor(query.shape, like=query)
    return TupleV((out, NoneV() if not nw else cx.unknown("attention weights of a query of unknown rank")))


MultiheadAttention.forward(mha)


@MultiheadAttention.params
def _mha_params(cx: OpContext, m):
    E = cx.int_of(m.cfg["embed_dim"])
    out = {"out_proj.weight": [E, E]}
    if cx.is_none(m.cfg["kdim"]) and cx.is_none(m.cfg["vdim"]):
        out["in_proj_weight"] = [3 * E, E]
    if cx.bool_of(m.cfg["bias"]) is not False:
        out["in_proj_bias"] = [3 * E]
    return out


# ---- transformer layers -----------------------------------------------------------------------------------

def _layer_ctor_checks(cx: OpContext, d_model, nhead, activation) -> None:
    d, h = cx.int_of(d_model), cx.int_of(nhead)
    if d is not None and h is not None:
        cx.require(divides(h, d), lambda: f"{cx.opname}: d_model={d} must be divisible by nhead={h}", "SH107")
    act = cx.str_of(activation)
    if act is not None and act not in ("relu", "gelu"):
        cx.fail(f"{cx.opname}: activation should be 'relu' or 'gelu', not {act!r}", "SH107")


def _seq(cx: OpContext, x, d_model, what: str):
    """(rank, batch index or None) of an (L, N, E) / (N, L, E) / (L, E) sequence, checking E."""
    _known(cx, x)
    d = cx.dims(x, (3, 2), what)
    cx.require(eq(d[-1], d_model), lambda: f"{cx.opname} expects {what} with d_model={d_model} features, but "
               f"{cx.label(x, what)} has {d[-1]} here", "SH101")
    return d


def _self_mask(cx: OpContext, mask, L, n, H, what: str) -> None:
    if isinstance(mask, TensorV) and mask.shape.rank is not None:
        want = (L, L) if mask.shape.rank == 2 else ((n * H) if n is not None else H, L, L)
        if mask.shape.rank not in (2, 3):
            cx.fail(f"{cx.opname}: {what} must be 2-D or 3-D, got {mask.shape}", "SH102")
        for a, b in zip(mask.shape.dims, want):
            cx.require(eq(a, b), lambda: f"{cx.opname}: {what} must have shape {Shape.of(want)}, got {mask.shape}", "SH101")


def _split(d, bf):
    if len(d) == 2:
        return d[0], None
    return (d[1], d[0]) if bf else (d[0], d[1])


@module("torch.nn.TransformerEncoderLayer")
def TransformerEncoderLayer(cx: OpContext, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                            layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True, device=None,
                            dtype=None):
    _layer_ctor_checks(cx, d_model, nhead, activation)


@TransformerEncoderLayer.forward
def encoder_layer(cx: OpContext, m, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
    D, H = need_int(cx, m.cfg["d_model"], "d_model"), need_int(cx, m.cfg["nhead"], "nhead")
    d = _seq(cx, src, D, "src")
    L, n = _split(d, cx.bool_of(m.cfg["batch_first"]))
    _self_mask(cx, src_mask, L, n, H, "src_mask")
    return cx.tensor(d, like=src)


@module("torch.nn.TransformerDecoderLayer")
def TransformerDecoderLayer(cx: OpContext, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                            layer_norm_eps=1e-05, batch_first=False, norm_first=False, bias=True, device=None,
                            dtype=None):
    _layer_ctor_checks(cx, d_model, nhead, activation)


@TransformerDecoderLayer.forward
def decoder_layer(cx: OpContext, m, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
    D, H = need_int(cx, m.cfg["d_model"], "d_model"), need_int(cx, m.cfg["nhead"], "nhead")
    bf = cx.bool_of(m.cfg["batch_first"])
    t, mem = _seq(cx, tgt, D, "tgt"), _seq(cx, memory, D, "memory")
    if len(t) != len(mem):
        cx.fail(f"{cx.opname}: tgt {tgt.shape} and memory {memory.shape} must both be batched (3-D) or both "
                f"unbatched (2-D)", "SH102")
    L, n = _split(t, bf)
    S, nm = _split(mem, bf)
    if n is not None:
        cx.require(eq(n, nm), lambda: f"{cx.opname}: the batch size of memory ({nm}) does not match tgt's ({n})",
                   "SH101")
    _self_mask(cx, tgt_mask, L, n, H, "tgt_mask")
    return cx.tensor(t, like=tgt)


def _inner(cx: OpContext, layer, kind: str) -> ModuleV:
    if not isinstance(layer, ModuleV) or layer.kind != kind:
        raise NotApplicable("layer unknown")
    return layer


@module("torch.nn.TransformerEncoder")
def TransformerEncoder(cx: OpContext, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                       mask_check=True):
    return None


@TransformerEncoder.forward
def _enc_fwd(cx: OpContext, m, src, mask=None, src_key_padding_mask=None, is_causal=None):
    out = encoder_layer(cx, _inner(cx, m.cfg["encoder_layer"], "torch.nn.TransformerEncoderLayer"), src, mask)
    # every copy of the layer keeps the shape, so one application stands for num_layers
    return out if cx.is_none(m.cfg["norm"]) else cx.call(m.cfg["norm"], [out])


@module("torch.nn.TransformerDecoder")
def TransformerDecoder(cx: OpContext, decoder_layer, num_layers, norm=None):
    return None


@TransformerDecoder.forward
def _dec_fwd(cx: OpContext, m, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
             memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
    out = decoder_layer(cx, _inner(cx, m.cfg["decoder_layer"], "torch.nn.TransformerDecoderLayer"), tgt, memory,
                        tgt_mask)
    return out if cx.is_none(m.cfg["norm"]) else cx.call(m.cfg["norm"], [out])


@module("torch.nn.Transformer")
def Transformer(cx: OpContext, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-05,
                batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
    _layer_ctor_checks(cx, d_model, nhead, activation)


@Transformer.forward
def _tr_fwd(cx: OpContext, m, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
            tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
            memory_is_causal=False):
    _known(cx, src, tgt)
    D = need_int(cx, m.cfg["d_model"], "d_model")
    bf = cx.bool_of(m.cfg["batch_first"])
    s, t = src.shape.dims, tgt.shape.dims
    if len(s) == 3 and len(t) >= 2:
        bi = 0 if bf else 1
        if len(t) > bi:
            cx.require(eq(s[bi], t[bi]), lambda: f"{cx.opname}: the batch number of src ({s[bi]}) and tgt ({t[bi]}) "
                       f"must be equal", "SH101")
    for x, what in ((src, "src"), (tgt, "tgt")):
        cx.require(eq(cx.last_dim(x), D), lambda: f"{cx.opname}: the feature number of {what} must be equal to "
                   f"d_model={D}, but {cx.label(x, what)} has {cx.last_dim(x)}", "SH101")
    enc = encoder_layer(cx, ModuleV("torch.nn.TransformerEncoderLayer", m.cfg), src, src_mask)
    return decoder_layer(cx, ModuleV("torch.nn.TransformerDecoderLayer", m.cfg), tgt, enc, tgt_mask)
