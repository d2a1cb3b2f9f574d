"""The operands `torch.cat` may skip: a 1-D tensor of size 0 (the legacy empty tensor,
`torch.zeros(0)`, `torch.tensor([])`, a cache slot before its first write) is dropped whatever
the other operands' rank. An operand of unknown rank may be that tensor, so it neither takes the
others' rank nor adds to the joined axis; the other axes stay the kept operands' either way.
A named axis says nothing here: sizes are taken to be at least 1, yet `p.shape[-1]` of
`torch.zeros(0)` is 0, so only two axes that surely exist rule the empty tensor out."""
from __future__ import annotations

from ..shapes.values import TensorV


def may_be_skipped(t: TensorV) -> bool:
    """Whether operand `t`, of unknown rank, may be the empty 1-D tensor (the named axes on
    either side of its segment may be the same ones)."""
    s = t.shape
    return s.rank is None and max(len(s.dims), len(s.suffix)) < 2


def kept(ts: list) -> tuple[list, bool]:
    """(the operands `torch.cat` surely keeps, with their positions; whether the joined axis is
    their sum — not where an operand of unknown rank, left so by `may_be_skipped`, may be kept
    or not)."""
    live = [(i, t) for i, t in enumerate(ts)
            if t.shape.rank is not None and not (t.shape.rank == 1 and t.shape.dims[0].value == 0)]
    return live, all(t.shape.rank is not None for t in ts)
