"""The table of learned segment expansions (`Environment.stars`), able to say which keys an
undecided arm added without copying the table at every arm.

`close_arm` needs the keys the table held when the arm opened. Copying them at every `open_arm`
cost time in proportion to the whole analysis's learned segments, at every `if` of unknown
outcome: quadratic in the module (qwen3_omni_moe: 27k arms over a table of thousands of keys,
~5% of the file's time). Most arms learn no rank, so the keys are copied only when the table's
key set is about to change while an arm is open (one copy shared by every arm waiting then,
since none of them has seen a change yet); an arm closed without a change gets None: the keys
are the ones it opened with.

Tests: tests/unit/test_star_table.py.
"""
from __future__ import annotations

from typing import Optional

from .journal import Table


class _Watch:
    __slots__ = ("keys",)

    def __init__(self):
        self.keys: Optional[set] = None


class StarTable(Table):
    __slots__ = ("_waiting",)

    def __init__(self, journal, kind: str, items=()):
        super().__init__(journal, kind, items)
        self._waiting: list = []  # watches with no copy yet: the key set has not changed since they began

    def watch(self) -> _Watch:
        w = _Watch()
        self._waiting.append(w)
        return w

    def keys_at(self, w: _Watch) -> Optional[set]:
        """The keys held when `w` began, or None when they are the keys held now; ends `w`."""
        for i in range(len(self._waiting) - 1, -1, -1):
            if self._waiting[i] is w:
                del self._waiting[i]
                break
        return w.keys

    def _changing(self) -> None:
        if self._waiting:
            keys = set(self)
            for w in self._waiting:
                w.keys = keys
            self._waiting.clear()

    def __setitem__(self, key, value) -> None:
        if key not in self:
            self._changing()
        Table.__setitem__(self, key, value)

    def setdefault(self, key, value=None):
        if key not in self:
            self._changing()
        return Table.setdefault(self, key, value)

    def __delitem__(self, key) -> None:
        self._changing()
        Table.__delitem__(self, key)

    def pop(self, key, *default):
        if key in self:
            self._changing()
        return Table.pop(self, key, *default)

    def popitem(self):
        self._changing()
        return Table.popitem(self)

    def clear(self) -> None:
        self._changing()
        Table.clear(self)
