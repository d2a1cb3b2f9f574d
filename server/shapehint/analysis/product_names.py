"""A name a reader can evaluate for the product of a parameter's axes (issue 28, cause 1).

`ids.view(-1, ids.size(-1))` of an unannotated `ids` flattens its leading axes into one size, the
product of a segment of unknown rank (Environment.segment_product): one symbol per segment, the
same whenever it is asked again, written as the product of the axes once the rank is learned.
Until then it was shown as `?`. Where the segment is a parameter's own axes between known ends
(`Environment.star_owner`), the function the parameter belongs to shows it as what it is, in the
code's terms: `ids.shape[:-1].numel()`, torch's own value for every rank (1 for a 1-D `ids`).
Only the name shown changes (the rename table of that function, as `b, t = ids.size()` renames
`ids.shape[0]`, executor.name_symbol): the symbol stays an unnamed size for everything else. A
segment that is one arm's copy, or whose two sides may share axes, gets no name.
"""
from __future__ import annotations

from typing import Optional

from ..shapes.expr import Expr


def named_product(env, renames_of, star: str, owner: str = "") -> Expr:
    """The product of segment `star`'s axes (env.segment_product), named in its function, and in
    the root analysis `owner` running it, whose records of the calls it makes are in its names."""
    p = env.segment_product(star)
    got = _name(env, star)
    if got is not None:
        function, name = got
        old = next(iter(p.symbols()))
        for where in dict.fromkeys((function, owner) if owner else (function,)):
            table = renames_of(where)
            if old not in table:  # (each analysis of the function has its own segment: all show the name)
                table[old] = name
    return p


def _name(env, star: str) -> Optional[tuple]:
    """(the function, `x.shape[a:-b].numel()`) for segment `star` of that function's parameter x,
    its axes a .. -b-1; None where the segment is not surely those axes alone."""
    owner = env.star_owner.get(star)
    if owner is None or "~" in star or env.sides_shared(star) or "*" not in star:
        return None
    head = star[:star.index("*")]
    param, start, after = owner
    if ":" not in head or not head.endswith(":" + param):
        return None
    function = head[:-len(param) - 1]
    lo = str(start) if start else ""
    hi = str(-after) if after else ""
    return function, (f"{param}.shape[{lo}:{hi}].numel()" if lo or hi else f"{param}.numel()")
