"""A function declared `-> int` whose result the analysis cannot compute (issue 28, cause 7).

`past_seen = cache.get_seq_length() if cache is not None else 0` then
`torch.arange(past_seen, past_seen + x.shape[1])`: the cache's length comes from code the analysis
does not follow to a number, so the result was unknown, and with it every position, embedding and
hidden state after it. Declared `int`, it is an int of unknown value (a `?` size, never named, with
no bound assumed), which is all the arange needs: its length is `x.shape[1]` whatever the offset.
The declaration is a hint, as every ordinary annotation is: it only replaces a result that is
unknown, never one the analysis computed, and is no source of diagnostics.
"""
from __future__ import annotations

import ast

from ..shapes.values import IntV, NoneV, UnknownV, Value


def call_result(f, returns: list, joined, fresh_dyn) -> Value:
    """What a call of `f` gives: the join of the values its paths returned (`joined()`, asked only
    when there are several; None without a `return`), or an int of unknown value when `f`
    declares `-> int` and that is unknown."""
    if not returns:
        return NoneV()
    v = returns[0] if len(returns) == 1 else joined()
    node = f.node.returns
    if isinstance(v, UnknownV) and isinstance(node, ast.Name) and node.id == "int":
        return IntV(fresh_dyn())
    return v
