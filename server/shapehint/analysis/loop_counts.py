"""How many modules a counted loop registers under names not known (issue 27, cause 4): a dense
block's `for i in range(num_layers): self.add_module("denselayer%d" % (i + 1), Layer(...))`.

Such a container held "modules not known" (builtins.add_module), any number of them, so a loop
over `self.items()` had no trip count, and nothing a pass of it grew (grown_lists.py) could be
counted. A registration is counted — `trips` modules — only where each pass surely runs it once:
it is a statement of its own in the body of a loop whose trip count is known, the body has no
`break`, `continue`, `return` or `yield`, no other loop of the same frame is running around it,
and no other run of any loop registers at that site (a loop run twice, or inside another loop,
registers more than one loop's count).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..shapes.expr import Expr
from ..shapes.values import IntV, ListV, ModuleV, NoneV, StrV, TupleV, UnknownV, Value
from .frames import span_of
from .objects import UNKNOWN_MODULES, InstanceObj

BLOCKED = ("blocked",)  # inside a loop whose passes are not counted: nothing is counted inside it
_LEAVES = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)


def enter(fr, st, trips: Optional[Expr]):
    """Mark `fr` as running the body of loop `st`; returns what `leave` restores."""
    saved = fr.loop_count
    fr.loop_count = (IntV(trips), st) if saved is None and trips is not None and every_pass_whole(st) else BLOCKED
    return saved


def every_pass_whole(st) -> bool:
    """Whether each pass of `for` loop `st` runs its body's statements to the end."""
    return isinstance(st, ast.For) and not any(isinstance(n, _LEAVES) for s in st.body for n in ast.walk(s))


def leave(fr, saved) -> None:
    fr.loop_count = saved


def site_marker(fr, span, before: Optional[Value]) -> Value:
    """What a registration site holds after one more registration at `span`: the loop run's
    count (one `IntV` per run of a loop, so both passes of one run agree) where it is counted,
    else None's marker (a number not known)."""
    got = fr.loop_count
    if got is None or got is BLOCKED or span is None:
        return NoneV()
    count, st = got
    if not any(isinstance(s, ast.Expr) and span_of(s.value) == span for s in st.body):
        return NoneV()
    return count if before is None or before is count else NoneV()


def counted(marker: Value) -> Optional[Expr]:
    return marker.expr if isinstance(marker, IntV) else None


def unknown_count(t: InstanceObj, name: str) -> Value:
    """The modules of a container subclass that registers them all from one `add_module` of
    names not known (`add_module("layer%d" % (i + 1), Layer(c + i * g))` in a loop of unknown
    count): any number of them, each the one that site built for the loop's any iteration."""
    sites = [k for k in t.attrs if k.startswith(UNKNOWN_MODULES + " ")]
    others = [k for k, v in t.attrs.items() if k != UNKNOWN_MODULES and (
        isinstance(v, ModuleV) or isinstance(v, InstanceObj) and v.cls.is_module())]
    layer = t.attrs.get(UNKNOWN_MODULES)
    if len(sites) != 1 or others or t.seq or not isinstance(layer, (ModuleV, InstanceObj)):
        return UnknownV(name)
    n = counted(t.attrs[sites[0]])
    if name in ("values", "children"):
        return ListV(None, layer, n)
    return ListV(None, StrV(None) if name == "keys" else TupleV((StrV(None), layer)), n)
