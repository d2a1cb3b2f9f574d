"""Concrete values for an entry's symbolic input shapes, and the case-file entry comments.

Invariants: the batch symbol (first axis of the first tensor of rank ≥ 2, or a name such as B or
batch) is 2; the other symbols get small values, distinct where the assertions allow (z3 Optimize:
assertions hard, "this ladder value" and "all distinct" soft); candidates come smallest first and
are deduplicated; a constraint that cannot be evaluated never removes a candidate (the runner's
meta dry run decides). Nothing here executes user code.
"""
from __future__ import annotations

import itertools

from .compare import safe_eval

BATCH_NAMES = {"B", "b", "N", "batch", "bs", "batch_size", "nbatch"}
LADDERS = [[3, 5, 7, 11, 13, 17, 19, 23], [4, 6, 10, 12, 14, 18, 20, 22], [8, 16, 24, 40, 48, 56, 72, 80],
           [16, 32, 48, 64, 80, 96, 112, 128]]
EQUAL_LADDERS = [8, 16, 32, 64, 28, 224]



def _symbols(params) -> tuple:
    order, batch = [], None
    for p in params:
        if p.override is not None:
            continue
        if p.is_int and p.name not in order:
            order.append(p.name)
        for i, d in enumerate(p.dims or []):
            if isinstance(d, str) and d not in order:
                order.append(d)
                if batch is None and i == 0 and len(p.dims) >= 2:
                    batch = d
    for d in order:
        if d in BATCH_NAMES:
            batch = d
            break
    return order, batch


def _assignments(order, batch, constraints, hints=()) -> list:
    rest = [s for s in order if s != batch]
    wants = [{s: lad[i % len(lad)] + (len(lad) * (i // len(lad))) for i, s in enumerate(rest)} for lad in LADDERS]
    wants += [{s: v for s in rest} for v in EQUAL_LADDERS]
    for h in hints:  # one symbol at a constructor's size, the others distinct and small
        for s in rest:
            wants.append(dict(wants[0], **{s: h}))
    if 1 < len(rest) <= 3:  # then every symbol at a (different) constructor size
        wants += [dict(zip(rest, combo)) for combo in itertools.permutations(hints, len(rest))][:24]
    out = []
    for want in wants:
        if batch:
            want[batch] = 2
        got = _solve(order, want, constraints) if constraints else want
        if got is not None and got not in out:
            out.append(got)
    return out or [dict.fromkeys(order, 2)]


def _solve(order, want, constraints):
    """Hard: constraints, every symbol ≥ 1; soft: each symbol at its wanted value, then all distinct."""
    ok = all(_holds(c, want) for c in constraints)
    if ok:
        return want
    from ..solver.nearest import nearest_values  # z3 lives under solver/ only
    got = nearest_values(order, want, constraints)
    return got if got is not None and all(_holds(c, got) for c in constraints) else None


def _holds(expr: str, env: dict) -> bool:
    try:
        return bool(safe_eval(expr, env))
    except Exception:  # noqa: BLE001 - undecidable here: the meta dry run will tell
        return True


def make_candidates(params, constraints, hints=()) -> list:
    order, batch = _symbols(params)
    out = []
    for env in _assignments(order, batch, constraints, hints):
        cand = {}
        for p in params:
            if p.override is not None:
                cand[p.name] = p.override
            elif p.is_int and p.dims is None:
                cand[p.name] = {"value": env.get(p.name, 3)}
            else:
                spec = {"shape": [d if isinstance(d, int) else env[d] for d in p.dims], "dtype": p.dtype or "float32"}
                if p.role:
                    spec["role"] = p.role
                if p.high_from:
                    spec["high_from"] = p.high_from
                if p.embedding:
                    spec["embedding"] = p.embedding
                cand[p.name] = spec
        if cand not in out:
            out.append(cand)
    return out[:24]


def comment_entries(text: str) -> list:
    """The case-file convention: `# entry: Net(); inputs: x=[B,3,H,W]:long, ...` and
    `# verify: B=2,H=32; B=3,H=64` -> [(call, {name: (dims, dtype)}, [bindings...])]."""
    entries, bindings = [], []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("# entry:"):
            call, _, ins = s[8:].partition("; inputs:")
            specs = {}
            for part in _split_top(ins):
                name, _, rest = part.partition("=")
                dims, _, dtype = rest.strip().partition(":")
                items = [d.strip() for d in dims.strip().strip("[]()").split(",") if d.strip()]
                specs[name.strip()] = ([int(d) if d.isdigit() else d for d in items],
                                       {"long": "int64", "int": "int32", "float": "float32", "": None}.get(dtype, dtype))
            entries.append((call.strip(), specs))
        elif s.startswith("# verify:"):
            for part in s[9:].split(";"):
                try:
                    b = {k.strip(): int(v) for k, v in (kv.split("=") for kv in part.split(",") if kv.strip())}
                except ValueError:
                    continue
                if b:
                    bindings.append(b)
    return [(c, sp, bindings) for c, sp in entries]


def _split_top(text: str) -> list:
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "[(" and 1 or (ch in "])" and -1 or 0)
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [p.strip() for p in out + [cur] if p.strip()]
