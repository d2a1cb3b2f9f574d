"""Where one `infer --format json` process's CPU time goes, construction context by context
(issues 23 and 28): each context's CPU seconds, interpreter steps, and its Z3 checks by outcome.

    python bench/profile_contexts.py [--all] FILE [FILE ...]

A construction context (analysis/built.py: a factory's model, the defaults construction, one
assuming a literal or a sequence's length) runs the whole model again; what it costs is hidden
in `profile_infer.py`'s `analysis` share. Per file, in a process of its own, this lists every
context run (`run_in_context`; the rest of the analysis as
`(outside contexts)`), and a factory's rerun with sizes (sized_kwargs.run_models) with its
models' forwards as one row; each row's time and steps exclusive of the rows run inside it;
and the Z3 checks made meanwhile (`FactStore._solve`): sat, unsat and
unknown, the last split by the resource limit it was asked at — `full` (the first
UNDECIDED_AT_FULL of a job, each up to the whole limit: timm swin's ~3 CPU s apiece) or the
reduced one after them (solver/contexts.Session.rlimit). Z3 runs in this process, so its CPU
seconds are the process's too. The signatures' re-analyses (questions/migrate.py) count
outside contexts. Rows under MIN_SHOWN_S are left out unless `--all`. A tool for looking, not a benchmark of record.
"""
from __future__ import annotations

import collections
import sys
import time

from child_measure import answer_as_child, infer_quietly, run_child

OUTSIDE = "(outside contexts)"


def _inside(path: str) -> dict:
    """The table, measured in this process (the child's side)."""
    import gc
    gc.disable()
    from shapehint.analysis import built, flag_defaults, sized_kwargs
    from shapehint.solver.facts import FactStore
    clock = time.process_time
    rows: dict = collections.defaultdict(lambda: collections.Counter())
    stack = [OUTSIDE]
    run_in_context, run_models, solve = built.run_in_context, sized_kwargs.run_models, FactStore._solve

    def timed(label: str, it, run):
        """`run()`, its CPU and steps charged to `label` less those of the contexts it ran."""
        stack.append(label)
        t, steps = clock(), it.steps
        try:
            return run()
        finally:
            stack.pop()
            row, cpu, n = rows[label], clock() - t, it.steps - steps
            row["runs"] += 1
            row["cpu"] += cpu
            row["steps"] += n
            if stack[-1] != OUTSIDE:  # (times are exclusive: the enclosing one is charged less)
                rows[stack[-1]]["cpu"] -= cpu
                rows[stack[-1]]["steps"] -= n

    def timed_context(it, v, fr, label, span, param_value):
        return timed(str(label), it, lambda: run_in_context(it, v, fr, label, span, param_value))

    def timed_models(it, f, fr, run):
        return timed(f"{f.qualname} (sized rerun and forwards)", it, lambda: run_models(it, f, fr, run))

    def timed_solve(self, s, assumptions, rlimit):
        t = clock()
        r = solve(self, s, assumptions, rlimit)
        kind = str(r)
        if kind == "unknown":
            kind += "@full" if rlimit == self.limits.rlimit else "@reduced"
        row = rows[stack[-1]]
        row[kind] += 1
        row[kind + " s"] += clock() - t
        return r

    # (flag_defaults imports the function by name; engine calls sized_kwargs.run_models)
    built.run_in_context = flag_defaults.run_in_context = timed_context
    sized_kwargs.run_models = timed_models
    FactStore._solve = timed_solve
    total = infer_quietly(path)
    rows[OUTSIDE]["cpu"] = total - sum(r["cpu"] for k, r in rows.items() if k != OUTSIDE)
    return {"total": total, "rows": {k: dict(v) for k, v in rows.items()}}


MIN_SHOWN_S = 0.05
KINDS = ("sat", "unsat", "unknown@full", "unknown@reduced")


def main(argv: list) -> int:
    answer_as_child(argv, _inside)
    every = "--all" in argv
    argv = [a for a in argv if a != "--all"]
    if not argv:
        print(__doc__)
        return 2
    for path in argv:
        got = run_child(__file__, path)
        print(f"{path}: {got['total']:.2f} CPU s in `main`")
        print(f"  {'cpu s':>7} {'steps':>8}  " + " ".join(f"{k + ' (n, s)':>22}" for k in KINDS) + "  context")
        shown = [(k, r) for k, r in got["rows"].items() if every or r.get("cpu", 0.0) >= MIN_SHOWN_S]
        for label, r in sorted(shown, key=lambda kv: -kv[1].get("cpu", 0.0)):
            z3 = " ".join(f"{r.get(k, 0):>13d}, {r.get(k + ' s', 0.0):6.2f}" for k in KINDS)
            print(f"  {r.get('cpu', 0.0):7.2f} {r.get('steps', 0):8d}  {z3}  {label}")
        if len(shown) < len(got["rows"]):
            print(f"  ({len(got['rows']) - len(shown)} rows under {MIN_SHOWN_S} s left out)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
