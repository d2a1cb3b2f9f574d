"""The join of an undecided comparison's arms that select one of its sides: past

    if min(res) <= self.window_size:
        self.window_size = min(res)

the attribute is `min(res)` where the test held and `self.window_size` where it did not —
exactly `min(min(res), self.window_size)`. Joined as two unrelated ints it became a fresh
symbol (or nothing, when one side was a config attribute of unknown kind), and every window
size computed from it was lost. Only ints (and values of unknown kind the comparison itself
read as ints) qualify: a value the test compared is a number."""
from __future__ import annotations

from typing import Callable, Optional

from ..shapes.expr import emax, emin
from ..shapes.shape import Pred
from ..shapes.values import IntV, Value
from .objects import OpaqueV


def selected_join(test: Optional[Pred], true_arm: Value, false_arm: Value,
                  int_value: Callable) -> Optional[IntV]:
    """min/max of the test's sides when the true arm leaves one side and the false arm the other
    (`test`: the undecided condition as a predicate); None when they are anything else."""
    if test is None or test.op not in ("<=", "<"):
        return None
    ints = []
    for v in (true_arm, false_arm):
        if not (isinstance(v, IntV) or isinstance(v, OpaqueV) and v.kind in (None, "int")):
            return None
        ints.append(int_value(v))
    lo, hi = test.args  # the test is `lo <= hi` (or `lo < hi`)
    if (ints[0], ints[1]) == (lo, hi):
        return IntV(emin(lo, hi))  # lo where lo is the smaller, hi elsewhere
    if (ints[0], ints[1]) == (hi, lo):
        return IntV(emax(lo, hi))
    return None
