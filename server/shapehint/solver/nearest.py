"""Concrete sizes for a device run's inputs: positive integers that satisfy the user's assertions
(Python expressions over the symbols), as near as Z3's optimiser finds to the wanted values and
distinct where the assertions allow. Here because z3 is imported under solver/ only."""
from __future__ import annotations

from typing import Optional

# Upper bound of a chosen size: an input this large is still cheap to allocate on a device.
MAX_SIZE = 4096


def nearest_values(order: list, want: dict, constraints: list, timeout_ms: int = 2000) -> Optional[dict]:
    """{symbol: int} or None (no z3, unsatisfiable, or out of time). Constraints z3 cannot take
    (e.g. a `//` on booleans) are left out: the caller re-checks the values it gets."""
    try:
        import z3
    except ImportError:
        return None
    syms = {s: z3.Int(s) for s in order}
    opt = z3.Optimize()
    opt.set("timeout", timeout_ms)
    for s in syms.values():
        opt.add(s >= 1, s <= MAX_SIZE)
    for c in constraints:
        try:
            opt.add(eval(compile(c, "<assert>", "eval"), {"__builtins__": {}}, dict(syms)))  # noqa: S307
        except Exception:  # noqa: BLE001 - a constraint z3 cannot take: skip it
            continue
    for s, v in want.items():
        if s in syms:
            opt.add_soft(syms[s] == v, weight=10)
    vals = list(syms.values())
    for i in range(len(vals)):
        for j in range(i + 1, len(vals)):
            opt.add_soft(vals[i] != vals[j], weight=1)
    if opt.check() != z3.sat:
        return None
    m = opt.model()
    return {s: m.eval(v, model_completion=True).as_long() for s, v in syms.items()}
