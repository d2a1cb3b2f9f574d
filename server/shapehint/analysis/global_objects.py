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
"""
from __future__ import annotations

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
    return [[(obj, dict(obj.attrs)) for obj, _ in snapshot] for snapshot in snapshots]


def restore(snapshots: list, mutated) -> None:
    """Every object of `snapshots` (`settle`'s) as it was then."""
    for snapshot in snapshots:
        for obj, attrs in snapshot:
            now = obj.attrs
            if len(now) != len(attrs) or any(now.get(k, attrs) is not v for k, v in attrs.items()):
                now.clear()
                now.update(attrs)
                mutated(obj)
