"""Names a nested function reads from the functions around it (its closure).

`def shape(x): return x.view(bs, -1, self.n_heads, dim_per_head)` inside `forward` reads `bs`,
`self` and `dim_per_head`, the enclosing call's locals. Python reads such a name from a cell when
the nested function runs, not when it is defined: so the function made by a `def` inside a
function keeps the enclosing frame's environment itself (a live dict, which `if` arms update in
place), not a copy, and a call of it reads each name as the enclosing call holds it then (a name
rebound between the `def` and the call reads the new value, as in Python). Functions nested two
deep read their own enclosing environment first, then the next one out.

Only calls made in view of the `def` see the closure: the nested function's own analysis (its
generic analysis, in terms of its parameters) reads no enclosing call's values, whose symbols are
another function's names. Calls of a closure are not memoised (callmemo.py): the memo's key is the
function and its arguments, and a closure's result also depends on the enclosing names it reads,
which may change between two calls with the same arguments.
"""
from __future__ import annotations

from collections import ChainMap
from typing import Optional


def enclosing_scope(fr) -> Optional[ChainMap]:
    """What a function defined by a `def` running in frame `fr` reads its free names from:
    `fr`'s environment (live), then what `fr`'s own function closes over; None at module level
    (a module's names are the function's globals)."""
    if fr.qualname == "<module>" or fr.env is fr.globals:
        return None
    outer = fr.closure.maps if fr.closure is not None else []
    return ChainMap(fr.env, *outer)
