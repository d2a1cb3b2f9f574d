"""Objects that a module's top-level code leaves in its globals (`STORE = Store(cfg)`, a registry
of caches), as the module's functions read them.

A function runs at any point of such an object's life, after any number of calls of any
function: a slot's `keys` that `update` fills, `None` as constructed, are as long as every earlier
`update` made them. So, when a module's top-level code has run, what the methods of the objects
it leaves (and of the objects they hold, `reconfiguration.held_objects`) assign is forgotten, as
in a class's generic instance (`reconfiguration.forget_held`): a line that reads such an object
claimed the shape of its first use only.

Each root analysis (one function's, in engine.analyze_function) then starts from that state:
what one analysis writes into those objects (`start()` resetting every slot to an empty tensor)
is undone when it ends, where it had stood for the state the next function's analysis starts
from (a line claimed the length of a store just reset, wrong after one `update`).

So it is for a module dict its functions write (`TABLE["w"] = ...`: `settle_tables`).
"""
from __future__ import annotations

from ..shapes.values import DictV, ListV, ModuleV, TensorV, TupleV, UnknownV
from .reconfiguration import forget_held, held_objects


def settle(namespace: dict, mutated) -> list:
    """After a module's top-level code: its objects' state forgotten (`mutated(obj)` for each
    object changed); the snapshot `restore` returns them to."""
    for v in list(namespace.values()):
        for obj in forget_held(v):
            mutated(obj)
    return [(obj, dict(obj.attrs)) for v in list(namespace.values()) for obj in held_objects(v)]


def now(snapshots: list) -> list:
    """The objects of `snapshots` as they are now: a snapshot `restore` returns them to (a
    factory's sized rerun starts from the settled state, and a failed one gives the generic
    analysis back its own: sized_kwargs.run_models)."""
    return [[(obj, _table_state(obj) if isinstance(obj, DictV) else dict(obj.attrs)) for obj, _ in snapshot]
            for snapshot in snapshots]


def settle_tables(tables: list, mutated) -> list:
    """After a module's top-level code, the dicts (`tables`) that its functions may write
    (sealed_dicts.mark_written): the tensors and layers they hold unknown — a function's
    `TABLE["w"] = torch.zeros(4, 16)` runs at any point, so a read of `TABLE["w"]` is the
    top-level tensor or that one (a function's analysis claimed the shape
    another function's analysis had stored); the snapshot `restore` returns them to, as what one
    analysis stores (through any path: `TABLE.update(...)` too) stood for the next one's start."""
    for d in tables:
        for k, v in list(d.items.items()):
            if _holds_tensors(v):
                d.items[k] = UnknownV(k)
                mutated(d)
        if _holds_tensors(d.elem):
            d.elem = UnknownV("")
    return [(d, _table_state(d)) for d in tables]


def _table_state(d) -> tuple:
    """What `_restore_table` puts back: the items, whether more may be added, the rest's value."""
    return dict(d.items), d.open, d.elem


def _holds_tensors(v) -> bool:
    """A tensor or layer, or a list or tuple holding one. (A flag or a mode string a function
    switches is kept: read as unknown, it left arms the program never takes undecided, their
    errors reported on working code; a registry's entries are choices.registry_choice's.)"""
    if isinstance(v, (TensorV, ModuleV)):
        return True
    if isinstance(v, (ListV, TupleV)):
        return any(_holds_tensors(i) for i in (v.items if v.items is not None else ())) or \
            isinstance(v, ListV) and _holds_tensors(v.elem)
    return False


def restore(snapshots: list, mutated) -> None:
    """Every object of `snapshots` (`settle`'s) as it was then, and every dict (`settle_tables`')."""
    for snapshot in snapshots:
        for obj, attrs in snapshot:
            if isinstance(obj, DictV):
                _restore_table(obj, attrs, mutated)
                continue
            now = obj.attrs
            if len(now) != len(attrs) or any(now.get(k, attrs) is not v for k, v in attrs.items()):
                now.clear()
                now.update(attrs)
                mutated(obj)


def _restore_table(d: DictV, state: tuple, mutated) -> None:
    items, open_, elem = state
    if d.open is not open_ or d.elem is not elem or len(d.items) != len(items) or \
            any(d.items.get(k, items) is not v for k, v in items.items()):
        d.items.clear()
        d.items.update(items)
        d.open, d.elem = open_, elem
        mutated(d)
