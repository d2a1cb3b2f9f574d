"""The operands `torch.cat` may skip: a 1-D tensor of size 0 (the legacy empty tensor,
`torch.zeros(0)`, `torch.tensor([])`, a cache slot before its first write) is dropped whatever
the other operands' rank. An operand of unknown rank may be that tensor, so it neither takes the
others' rank nor adds to the joined axis; the other axes stay the kept operands' either way."""
from __future__ import annotations

from ..shapes.shape import gt
from ..shapes.values import TensorV
from .context import OpContext


def may_be_skipped(cx: OpContext, t: TensorV) -> bool:
    """Whether operand `t`, of unknown rank, may be the empty 1-D tensor: not where two of its
    axes surely exist (the named axes on either side of its segment may be the same ones), nor
    where the facts say a named one is not 0 — sizes read off a tensor are taken to be at least
    1, so `x.shape[0]` read (a class token expanded to it) says `x` is not empty."""
    s = t.shape
    if s.rank is not None or max(len(s.dims), len(s.suffix)) >= 2:
        return False
    return not any(cx.entails(gt(d, 0)) for d in s.dims + s.suffix)


def kept(ts: list) -> tuple[list, bool]:
    """(the operands `torch.cat` surely keeps, with their positions; whether the joined axis is
    their sum — not where an operand of unknown rank, left so by `may_be_skipped`, may be kept
    or not)."""
    live = [(i, t) for i, t in enumerate(ts)
            if t.shape.rank is not None and not (t.shape.rank == 1 and t.shape.dims[0].value == 0)]
    return live, all(t.shape.rank is not None for t in ts)
