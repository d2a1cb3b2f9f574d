"""Lists a loop grows by the same items each pass (issue 27, cause 4: a dense block's
`features.append(layer(features))` over its layers, then `torch.cat(features, 1)`).

The loop makes such a list one of unknown length whose element joins every item (controlflow's
`_loop_once`): the items before the loop (the block's input, `C0` channels) and those appended
(`growth` each) join to a size not known, so the `cat` of them all had no channel count. Where
the loop's trip count is known and its second pass — run from the loop's joined state, so what
it appends stands for what any pass appends — appended items of exactly the shapes the first
pass appended, the list is the items before the loop followed by `trips` times that block
(`ListV.grown`), and `cat` sums them (`ops/grown.py`: `C0 + trips * growth`). A symbol made
inside the body differs between the passes, so an item whose size depends on the pass is never
taken for a repeated one. Any later write to the list forgets it (`forget`, from
`Interp.mutated`).

The containers a loop can grow are not only the lists in its local names: a `ModuleList` or a
list held in `self`'s attributes (`self.stages.append(Stage(prev, out))`), or in any object the
names reach, grows in place as well (`reachable`). Left with the children of the analysis' two
passes, whatever the real count, a later loop over them unrolled those two and claimed the
first stage's channels for every stage; so they too become containers of unknown length
(`widen`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..frontend.walk import walk as walk_nodes
from ..shapes.expr import Expr
from ..shapes.values import DictV, FloatV, IntV, ListV, ModuleV, TensorV, TupleV, UnknownV, Value
from .loop_counts import every_pass_whole
from .objects import ChoiceV, InstanceObj

_REACH_LIMIT = 4000  # objects visited: a model's whole tree of layers is far smaller
MAX_GROUP = 4  # layers one pass appends, at most (each in an arm doubles the options)


def reachable(env: dict) -> dict:
    """id -> (container, its number of items) for every list of known items and every layer
    container of known children that `env`'s values reach: directly, or through instances'
    attributes, containers' items and children, tuples and dicts."""
    out, seen, todo = {}, set(), list(env.values())
    while todo and len(seen) < _REACH_LIMIT:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        items = _items(v)
        if items is not None:
            out[id(v)] = (v, len(items))
            todo.extend(items)
        elif isinstance(v, InstanceObj):
            todo.extend(v.attrs.values())
            todo.extend(v.seq or ())
        elif isinstance(v, TupleV):
            todo.extend(v.items)
        elif isinstance(v, DictV):
            todo.extend(v.items.values())
    return out


def _items(v) -> Optional[list]:
    if isinstance(v, ListV):
        return v.items
    if isinstance(v, ModuleV):
        return v.children
    return None


def layer_elem(v: Value) -> Optional[Value]:
    """`v` when it is a layer, or one of several (blocks built alike by each pass are distinct
    objects: a choice of them, each called in turn), as a layer container's element; else None
    (layers not known)."""
    if isinstance(v, ChoiceV) and all(isinstance(o, (ModuleV, InstanceObj)) for o in v.options):
        return v
    return v if isinstance(v, (ModuleV, InstanceObj)) else None


def grew(c, n0: int) -> bool:
    items = _items(c)
    return items is not None and len(items) > n0


def widen(c, join) -> list:
    """Container `c` grew in a pass of a loop: of unknown length from now on (the next pass adds
    to it in place), its element the join of every item, those from before the loop too; a
    layer container whose items do not join to one layer, or a choice of layers, holds layers
    not known. Returns the items it had."""
    if isinstance(c, ListV):
        items = c.items
        c.elem = join(items)
        c.items, c.length, c.appends = None, None, []
        return items
    items = c.children
    c.elem = layer_elem(join(items))
    c.children, c.names, c.length = None, None, None
    return items


class Pass(list):
    """What the second pass appends to a list whose items an undecided `if` of the first pass
    erased (arm_lists.py), and the fact depth of its body: an item appended deeper, inside an
    undecided arm, is `InArm` (some passes append it, others not)."""

    def __init__(self, base: int):
        super().__init__()
        self.base = base


@dataclass(frozen=True)
class InArm:
    value: Value


def record(lst: ListV, name: str, args: list, depth: int = 0) -> None:
    """A write by `name` to a list of unknown length while the loop's second pass records it:
    `extend` (and `+=`, executor.s_AugAssign) of a list or tuple of known items as an `append`
    of each (`layers += [stage]`)."""
    if lst.appends is None:
        return
    if name == "extend" and len(args) == 1 and isinstance(args[0], (ListV, TupleV)) and \
            args[0].items is not None:
        for item in list(args[0].items):
            record(lst, "append", [item], depth)
    elif name == "append" and len(args) == 1:
        arm = isinstance(lst.appends, Pass) and depth > lst.appends.base
        lst.appends.append(InArm(args[0]) if arm else args[0])
    else:
        lst.appends.append(None)  # (insert, an iterable not known item by item: no block of known items)


def local_heads(env: dict) -> dict:
    """id -> items of each list of known items a local name holds (before a loop)."""
    return {id(v): list(v.items) for v in env.values() if isinstance(v, ListV) and v.items is not None}


def note_growth(lists: dict, added: dict, mutated, join) -> bool:
    """After a pass: each container of `lists` (reachable) that grew is of unknown length from
    now on (`widen`) and in `added`. Whether one grew."""
    grown = False
    for key, (c, n0) in lists.items():
        if key not in added and grew(c, n0):
            mutated(c)
            items = widen(c, join)
            added[key] = (c, n0, items[n0:], items[:n0])
            grown = True
    return grown


def erased_locals(env0: dict, st, heads: dict, added: dict, base: int) -> bool:
    """Local lists of known items that the pass left of unknown length with no item appended
    where the loop could see it (an undecided `if` in the body appended to them: arm_lists
    joined its arms), each as `added` holds a grown one, its first pass's block unknown: the
    second pass records what it appends (`Pass`). Only a list one local name holds, which the
    body reads only as `NAME.append(x)` statements outside nested loops and functions (each
    pass's appends then all run in the pass itself, once each), and no instance holds."""
    found = False
    for name, v in env0.items():
        key = id(v)
        if not isinstance(v, ListV) or v.items is not None or key in added or key not in heads:
            continue
        if sum(w is v for w in env0.values()) != 1 or not _appends_only(st, name) or \
                any(isinstance(w, InstanceObj) and any(a is v for a in w.attrs.values()) for w in env0.values()):
            continue
        v.length, v.appends = None, Pass(base)
        added[key] = (v, len(heads[key]), None, heads[key])
        found = True
    return found


_NESTED = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.With, ast.Try)


def _appends_only(st, name: str) -> bool:
    ok = set()

    def walk(node, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Expr) and not nested and isinstance(child.value, ast.Call):
                f = child.value.func
                if isinstance(f, ast.Attribute) and f.attr == "append" and isinstance(f.value, ast.Name) and \
                        f.value.id == name and len(child.value.args) == 1 and not child.value.keywords:
                    ok.add(id(f.value))
            walk(child, nested or isinstance(child, _NESTED))
    for s in st.body:
        if isinstance(s, _NESTED):
            walk(ast.Module(body=[s], type_ignores=[]), True)
        else:
            walk(ast.Module(body=[s], type_ignores=[]), False)
    uses = [n for s in st.body for n in walk_nodes(s) if isinstance(n, ast.Name) and n.id == name]
    return bool(uses) and all(id(n) in ok for n in uses)


def numbers_only(prev: dict, cur: dict, exposed) -> bool:
    """Whether the last pass changed only numbers among the names the body reads first (a
    counter, `stage_block_id += depth`): each was already a join, a number standing for any of
    the passes' values, when the pass began, so the layers it built stand for any pass's. A
    value unknown when the pass began and after it (a width `cin = cout` of a product the
    analysis cannot write) stands for any value alike."""
    return all(cur.get(k) is prev.get(k) or (isinstance(prev.get(k), (IntV, FloatV)) and isinstance(cur.get(k), (IntV, FloatV)))
               or isinstance(prev.get(k), UnknownV) and isinstance(cur.get(k), UnknownV)
               for k in exposed)


def settle_all(st, added, env0: dict, trips: Optional[Expr], stable: bool, layers_stable: bool = False) -> None:
    """After loop `st`, each container it grew, (container, length before, what the first pass
    appended, the items before): of `trips` times as many items more, when that is known and
    it is a local name's list — a layer container, or one held elsewhere, may have grown in an
    undecided arm (arm_lists.py follows the lists of local names only): its length stays
    unknown."""
    for lst, n0, items, head in added:
        local = isinstance(lst, ListV) and any(v is lst for v in env0.values())
        if items is None:  # (erased by an `if` of the first pass: erased_locals)
            settle_layers(st, lst, head, layers_stable)
            continue
        lst.length = Expr.const(n0) + len(items) * trips if trips is not None and local else None
        if local:
            settle(st, lst, head, items, trips, stable, layers_stable)
        elif isinstance(lst, ListV):
            lst.appends = None


def settle(st, lst: ListV, head: list, block: list, trips: Optional[Expr], stable: bool,
           layers_stable: bool = False) -> None:
    """After loop `st`: the list is `head` then `trips` times `block` when the second pass
    appended what the first did, shape for shape, the loop reached its fixpoint and each pass
    runs the whole body; or, of layers, when only numbers kept changing (`layers_stable`:
    numbers_only, a stage's width `cin = cout`)."""
    second, lst.appends = lst.appends, None
    if trips is None or not (stable or layers_stable) or second is None or len(second) != len(block) or \
            not block or not every_pass_whole(st):
        return
    if stable and all(_same_shape(a, b) for a, b in zip(block, second)) and all(isinstance(h, TensorV) for h in head):
        lst.grown = (tuple(head), tuple(block), trips)
    elif head and len(second) <= MAX_GROUP and all(layer_elem(v) is not None for v in head + second):
        # layers: the first ones, then one a pass (`layers.append(block(inplanes, planes))` over
        # `range(1, blocks)`) or a group (`layers += [act, conv]`), the second pass's standing for
        # every pass (it ran from the loop's joined state), so `nn.Sequential(*layers)` keeps that
        # layout (layer_tails.py)
        lst.grown = (tuple(head), tuple(second), trips)


def settle_layers(st, lst: ListV, head: list, stable: bool) -> None:
    """After loop `st`, a list of layers the first pass's arms erased: `head` then some number
    of what the second pass appended (it ran from the loop's joined state, so it stands for any
    pass), those appended in an undecided arm optional (layer_tails.grown_layers). Its length
    stays unknown: the trip count counts passes, not layers."""
    second, lst.appends = lst.appends, None
    if not stable or not head or not second or len(second) > MAX_GROUP or not every_pass_whole(st) or \
            any(layer_elem(v) is None for v in head) or \
            any(layer_elem(v.value if isinstance(v, InArm) else v) is None for v in second):
        return
    lst.grown = (tuple(head), tuple(second), None)


def forget(obj) -> None:
    """A write to a list: what a loop made of it no longer holds (its block of items per pass,
    `grown`; its bound, `upto`: an `append` past it adds an item no pass of it made)."""
    if isinstance(obj, ListV):
        obj.grown, obj.or_empty, obj.upto = None, False, ()


def _same_shape(a: Value, b: Value) -> bool:
    return isinstance(a, TensorV) and isinstance(b, TensorV) and a.shape.rank is not None and a.shape == b.shape
