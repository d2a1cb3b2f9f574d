"""Where one file's Z3 time goes, by solver and outcome (issue 23): the fact stores' incremental
solver (a check with guard literals as assumptions) against any other solver (a check without),
each as sat / unsat / unknown, with the count of calls and their CPU seconds, grouped by the
number of assertions or assumptions (n<8, n<16, n<30, n>=30).

    python bench/z3_outcomes.py FILE [FILE ...]

The files are analysed in one process, in order, as a `check` worker would
(`project/analyse.analyse`). On transformers' swin (session 13) 42 of the incremental solver's
checks ended undecided, at ~0.6 CPU s each, 25 of the file's 33 CPU s; a solver holding only a
query's slice finds a model for most of them within a tenth of the limit, but asking it first
costs more than it saves on timm's swin (refuted queries: the fresh solver's preprocessing).
The per-check wall-clock guard (`Limits.timeout_ms`) makes the undecided count depend on the
machine's load: compare runs on a quiet machine, or count `unknown` over several runs. It wraps
`z3.Solver.check` to measure it: a tool for looking, not a benchmark of record.
"""
from __future__ import annotations

import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "server"))


def _bucket(n: int) -> str:
    return "n<8" if n < 8 else "n<16" if n < 16 else "n<30" if n < 30 else "n>=30"


def main(files: list) -> None:
    import z3
    from shapehint.project.analyse import analyse
    log: list = []
    real = z3.Solver.check

    def check(self, *assumptions):
        start = time.process_time()
        r = real(self, *assumptions)
        n = len(assumptions) if assumptions else len(self.assertions())
        log.append(("incremental" if assumptions else "other", str(r), _bucket(n), time.process_time() - start))
        return r
    z3.Solver.check = check
    for path in files:
        del log[:]
        start = time.process_time()
        with open(path, encoding="utf-8") as fh:
            out = analyse(path, fh.read(), None, None)
        total = time.process_time() - start
        count: collections.Counter = collections.Counter()
        spent: collections.Counter = collections.Counter()
        for solver, outcome, bucket, dt in log:
            count[(solver, outcome, bucket)] += 1
            spent[(solver, outcome, bucket)] += dt
        print(f"{path}: {total:.2f} CPU s, {len(out['diagnostics'])} diagnostics, "
              f"Z3 {sum(spent.values()):.2f} s in {len(log)} checks")
        for key in sorted(count):
            print(f"  {key[0]:<12} {key[1]:<8} {key[2]:<6} {count[key]:>5}  {spent[key]:7.2f} s")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
