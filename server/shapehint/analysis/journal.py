"""The effects journal: every change an analysis step makes to the analysis's state, counted
in one place with an epoch, as `FactStore.epoch` counts a store's facts.

The parts of an analysis (the interpreter, the sink) keep what they accumulate — diagnostics,
failures, fresh symbols, star expansions, spans, branch records, recorded values, ... — in
journaled containers (`Log`, `Table`, `Tally`, made by `Journal.log/table/tally`) or note it
with `Journal.note`: each change is one entry of its *kind*, and bumps the epoch. What a step
did is then a question to the journal, not a list of attributes someone must keep complete:
the call memo (callmemo.py) takes a call to be quiet when the journal gained, while it ran,
only entries of the kinds the memo knows a repeat may skip (`Journal.mark` / `only_since`). A
kind of effect nobody declared anywhere is thus never skipped by mistake: it makes the call
not quiet. Facts are the one effect kept per store (`FactStore.epoch`: a path's facts come and
go with push/pop), and the memo compares the store's epoch besides.

A part declares which of its attributes are not effects (`FIXED`: set when it is made,
`WORKING`: working state every step puts back, such as the stack of running calls; `CURSOR`:
where the driver stands, such as the step budget of the running function);
`unjournaled_state(part)` lists any other attribute that is not a journaled container, so a
test fails when a part gains state that bypasses the journal.
"""
from __future__ import annotations

from types import FunctionType, MethodType


class Journal:
    __slots__ = ("epoch", "counts")

    def __init__(self):
        self.epoch = 0  # changes with every entry
        self.counts: dict = {}  # kind -> entries of that kind so far

    def note(self, kind: str) -> int:
        """One effect of `kind`; returns how many of that kind there have been (fresh names)."""
        self.epoch += 1
        counts = self.counts
        n = counts[kind] = counts.get(kind, 0) + 1
        return n

    def count(self, kind: str) -> int:
        return self.counts.get(kind, 0)

    def mark(self, skippable: tuple) -> tuple:
        """Where the journal stands, for `only_since`: the epoch and the entries of `skippable` kinds."""
        counts = self.counts
        return self.epoch, sum([counts.get(k, 0) for k in skippable])

    def only_since(self, mark: tuple, skippable: tuple) -> bool:
        """Whether every entry since `mark` is of a `skippable` kind."""
        epoch, before = mark
        counts = self.counts
        return self.epoch - epoch == sum([counts.get(k, 0) for k in skippable]) - before

    def log(self, kind: str, items=()) -> "Log":
        return Log(self, kind, items)

    def table(self, kind: str, items=()) -> "Table":
        return Table(self, kind, items)

    def tally(self, kind: str, items=()) -> "Tally":
        return Tally(self, kind, items)


class Log(list):
    """A list whose every change is an entry of `kind`."""

    __slots__ = ("journal", "kind")

    def __init__(self, journal: Journal, kind: str, items=()):
        super().__init__(items)
        self.journal, self.kind = journal, kind

    def append(self, item) -> None:
        self.journal.note(self.kind)
        list.append(self, item)

    def extend(self, items) -> None:
        items = list(items)
        if items:
            self.journal.note(self.kind)
            list.extend(self, items)

    def __iadd__(self, items):
        self.extend(items)
        return self

    def insert(self, index, item) -> None:
        self.journal.note(self.kind)
        list.insert(self, index, item)

    def pop(self, index=-1):
        self.journal.note(self.kind)
        return list.pop(self, index)

    def remove(self, item) -> None:
        self.journal.note(self.kind)
        list.remove(self, item)

    def clear(self) -> None:
        if self:
            self.journal.note(self.kind)
            list.clear(self)

    def __setitem__(self, index, item) -> None:
        self.journal.note(self.kind)
        list.__setitem__(self, index, item)

    def __delitem__(self, index) -> None:
        self.journal.note(self.kind)
        list.__delitem__(self, index)

    def sort(self, *args, **kwargs) -> None:
        self.journal.note(self.kind)
        list.sort(self, *args, **kwargs)

    def reverse(self) -> None:
        self.journal.note(self.kind)
        list.reverse(self)


class Table(dict):
    """A dict whose every new key (or key removed) is an entry of `kind`. A key written again is
    no entry: tables hold what was found once (a symbol's origin, a star's expansion stays put
    once set except as rank learning extends it, which adds the extension's own key)."""

    __slots__ = ("journal", "kind")

    def __init__(self, journal: Journal, kind: str, items=()):
        super().__init__(items)
        self.journal, self.kind = journal, kind

    def __setitem__(self, key, value) -> None:
        if key not in self:
            self.journal.note(self.kind)
        dict.__setitem__(self, key, value)

    def setdefault(self, key, value=None):
        if key not in self:
            self.journal.note(self.kind)
            dict.__setitem__(self, key, value)
            return value
        return dict.__getitem__(self, key)

    def update(self, *args, **kwargs) -> None:
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def __delitem__(self, key) -> None:
        self.journal.note(self.kind)
        dict.__delitem__(self, key)

    def pop(self, key, *default):
        if key in self:
            self.journal.note(self.kind)
        return dict.pop(self, key, *default)

    def popitem(self):
        self.journal.note(self.kind)
        return dict.popitem(self)

    def clear(self) -> None:
        if self:
            self.journal.note(self.kind)
            dict.clear(self)


class Tally(set):
    """A set whose every new member (or member removed) is an entry of `kind`."""

    __slots__ = ("journal", "kind")

    def __init__(self, journal: Journal, kind: str, items=()):
        super().__init__(items)
        self.journal, self.kind = journal, kind

    def add(self, item) -> None:
        if item not in self:
            self.journal.note(self.kind)
            set.add(self, item)

    def update(self, *others) -> None:
        for o in others:
            for item in o:
                self.add(item)

    def __ior__(self, other):
        self.update(other)
        return self

    def discard(self, item) -> None:
        if item in self:
            self.journal.note(self.kind)
            set.discard(self, item)

    def remove(self, item) -> None:
        self.journal.note(self.kind)
        set.remove(self, item)

    def pop(self):
        self.journal.note(self.kind)
        return set.pop(self)

    def clear(self) -> None:
        if self:
            self.journal.note(self.kind)
            set.clear(self)


JOURNALED = (Log, Table, Tally)


def unjournaled_state(part) -> list:
    """The attributes of `part` that are neither declared (its class's FIXED, WORKING, CURSOR)
    nor journaled containers of its journal (of any, for a part without one that reads
    another's: `Ranks.param_values`)."""
    cls = type(part)
    declared = set(getattr(cls, "FIXED", ())) | set(getattr(cls, "WORKING", ())) | set(getattr(cls, "CURSOR", ()))
    declared |= set(getattr(cls, "_USES", ()))  # what a part calls on the others, wired once
    journal = getattr(part, "journal", None)
    out = []
    for name, value in vars(part).items():
        if name in declared or name == "journal" or isinstance(value, (MethodType, FunctionType)):
            continue  # (a method bound from another part is wiring, not state)
        if isinstance(value, JOURNALED) and (journal is None or value.journal is journal):
            continue
        out.append(name)
    return sorted(out)
