"""How many modules a counted loop registers under names not known (issue 27, cause 4): a dense
block's `for i in range(num_layers): self.add_module("denselayer%d" % (i + 1), Layer(...))`.

Such a container held "modules not known" (builtins.add_module), any number of them, so a loop
over `self.items()` had no trip count, and nothing a pass of it grew (grown_lists.py) could be
counted. A registration is counted — `trips` modules — only where each pass surely runs it once:
it is a statement of its own in the body of a loop whose trip count is known, the body has no
`break`, `continue`, `return` or `yield`, no other loop of the same frame is running around it,
and no other run of any loop registers at that site (a loop run twice, or inside another loop,
registers more than one loop's count). A `nn.Sequential` subclass without a `forward` whose
modules are those of one counted site is called as that module stacked some number of times,
zero included (`stacked_layer`, layers._repeated): torchvision RegNet's stage of `depth` blocks.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..frontend.walk import walk
from ..shapes.expr import Expr
from ..shapes.values import IntV, ListV, ModuleV, NoneV, StrV, TupleV, UnknownV, Value
from .frames import span_of
from .objects import UNKNOWN_MODULES, AlikeCount, AlikeRun, InstanceObj

BLOCKED = ("blocked",)  # inside a loop whose passes are not counted: nothing is counted inside it
_LEAVES = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)


_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem",
                       "add", "discard", "sort", "reverse", "__setitem__", "setattr", "next"})


def enter(fr, st, trips: Optional[Expr], joined: bool = False):
    """Mark `fr` as running the body of loop `st` (`joined`: each pass from the joined state of
    those before, not unrolled); returns what `leave` restores."""
    saved = fr.loop_count
    whole = saved is None and every_pass_whole(st)
    alike = whole and joined and passes_alike(st)
    if whole and trips is not None:
        fr.loop_count = (AlikeCount(trips) if alike else IntV(trips), st)
    elif alike:
        fr.loop_count = (AlikeRun("passes"), st)
    else:
        fr.loop_count = BLOCKED
    return saved


def passes_alike(st) -> bool:
    """Whether a pass of loop `st` carries nothing to the next but local names, which the loop's
    join of its passes covers: its body assigns names only, calls `add_module`, and calls no
    method that writes an object (`self.cur = cout` is the next pass's `Block(self.cur, ...)`,
    and an object's attributes are not joined across passes)."""
    for s in st.body:
        if isinstance(s, ast.Assign):
            ok = all(isinstance(n, (ast.Name, ast.Tuple, ast.Starred)) for t in s.targets for n in ast.walk(t)
                     if isinstance(getattr(n, "ctx", None), ast.Store))
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            ok = isinstance(s.target, ast.Name)
        else:
            ok = isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
                isinstance(s.value.func, ast.Attribute) and s.value.func.attr == "add_module"
        if not ok:
            return False
    return not any(isinstance(n, ast.Call) and (isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS
                                                or isinstance(n.func, ast.Name) and n.func.id in _MUTATORS)
                   for s in st.body for n in ast.walk(s))


def every_pass_whole(st) -> bool:
    """Whether each pass of `for` loop `st` runs its body's statements to the end (kept on the
    node, which never changes: asked at every run of every loop, it walked the body each time)."""
    if not isinstance(st, ast.For):
        return False
    got = getattr(st, "_shapehint_whole", None)
    if got is None:
        got = st._shapehint_whole = not any(isinstance(n, _LEAVES) for s in st.body for n in walk(s))
    return got


def leave(fr, saved) -> None:
    fr.loop_count = saved


def site_marker(fr, span, before: Optional[Value]) -> Value:
    """What a registration site holds after one more registration at `span`: the loop run's
    count (one `IntV` per run of a loop, so both passes of one run agree) where it is counted, or
    the run's own `AlikeRun` where such a loop's count is not known, else None's marker."""
    got = fr.loop_count
    if got is None or got is BLOCKED or span is None:
        return NoneV()
    count, st = got
    if not any(isinstance(s, ast.Expr) and span_of(s.value) == span for s in st.body):
        return NoneV()
    return count if before is None or before is count else NoneV()


def counted(marker: Value) -> Optional[Expr]:
    return marker.expr if isinstance(marker, IntV) else None


def one_site(t: InstanceObj) -> Optional[tuple]:
    """(layer, site marker) of a container subclass that registers all its modules from one
    `add_module` of names not known (`add_module("layer%d" % (i + 1), Layer(c + i * g))` in a
    loop of unknown count): the module that site built last; None for any other."""
    sites = [k for k in t.attrs if k.startswith(UNKNOWN_MODULES + " ")]
    others = [k for k, v in t.attrs.items() if k != UNKNOWN_MODULES and (
        isinstance(v, ModuleV) or isinstance(v, InstanceObj) and v.cls.is_module())]
    layer = t.attrs.get(UNKNOWN_MODULES)
    if len(sites) != 1 or others or t.seq or not isinstance(layer, (ModuleV, InstanceObj)):
        return None
    return layer, t.attrs[sites[0]]


def stacked_layer(t: InstanceObj) -> Optional[Value]:
    """The layer `t` holds some number of (`one_site`), where the site is one run of a loop whose
    every pass runs whole from the joined state and carries nothing else to the next (`enter`,
    `passes_alike`), so the module built last stands for any pass's (`cin if i == 0 else cout`
    undecided); an unrolled loop's last module is its last pass's only."""
    got = one_site(t)
    return got[0] if got is not None and isinstance(got[1], (AlikeCount, AlikeRun)) else None


def unknown_count(t: InstanceObj, name: str) -> Value:
    """The modules of a container subclass that registers them all from one site of names not
    known (`one_site`): any number of them, each the one that site built for the loop's any
    iteration."""
    got = one_site(t)
    if got is None:
        return UnknownV(name)
    layer, n = got[0], counted(got[1])
    if name in ("values", "children"):
        return ListV(None, layer, n)
    return ListV(None, StrV(None) if name == "keys" else TupleV((StrV(None), layer)), n)
