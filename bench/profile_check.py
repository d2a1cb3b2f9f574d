"""Where one process's `check` time goes, file by file (issue 23): CPU time, interpreter steps,
and the steps and CPU time of the parts that following imports costs.

    python bench/profile_check.py [FILE ...] [--repeat N] [--top K]

Without FILEs: transformers' bert, llama, whisper, t5 and clip modeling files from the tree
`bench/repo.py` unpacks (~/.cache/shapehint/repo-bench). The files are analysed in one process,
in order, as a `check` worker would (`project/analyse.analyse`, then the worker's release); the
first file also pays for parsing the modules every file imports, so `--repeat 2` shows a warm
worker. Per file: CPU seconds, steps, and how many of them went to

  module bodies    imported modules' top-level code (imports.Importer.load, outermost loads)
  imported calls   calls from the analysed file into imported modules' code (costs.imported_call)
  helpers missed   calls the any-caller memo could have answered by their kind (another
                   module's function, constant arguments, a constant result, quiet: anycaller.py)
                   but ran, outermost ones only

and, over all files, the imported callees that cost most. CPU time is the process's, so a loaded
machine changes it less than wall-clock time; the steps do not depend on the machine at all. It
wraps the analysis's functions to measure them: a tool for looking, not a benchmark of record.
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "server"))

TREE = os.path.expanduser("~/.cache/shapehint/repo-bench/src/transformers/models")
DEFAULT = [f"{m}/modeling_{m}.py" for m in ("bert", "llama", "whisper", "t5", "clip")]


class Meter:
    """Steps and CPU seconds of the outermost runs of one wrapped function."""

    def __init__(self):
        self.depth = 0
        self.steps = 0
        self.cpu = 0.0
        self.start = (0, 0.0)

    def enter(self, it) -> None:
        if self.depth == 0:
            self.start = (it.steps, time.process_time())
        self.depth += 1

    def leave(self, it) -> tuple:
        """(steps, seconds) of the run that ended, when it was an outermost one."""
        self.depth -= 1
        if self.depth:
            return None
        used = (it.steps - self.start[0], time.process_time() - self.start[1])
        self.steps += used[0]
        self.cpu += used[1]
        return used

    def take(self) -> tuple:
        out = (self.steps, self.cpu)
        self.steps, self.cpu = 0, 0.0
        return out


def instrument():
    """Wrap the functions measured; returns the meters and the per-callee table."""
    from shapehint.analysis import anycaller, costs, imports

    bodies, calls, helpers = Meter(), Meter(), Meter()
    callees: collections.Counter = collections.Counter()
    counts: collections.Counter = collections.Counter()

    load = imports.Importer.load

    def metered_load(self, path):
        bodies.enter(self.it)
        try:
            return load(self, path)
        finally:
            bodies.leave(self.it)

    imported_call = costs.imported_call

    def metered_call(it, f, run, *rest, **kw):  # (a cap, the instance a constructor builds)
        calls.enter(it)
        try:
            return imported_call(it, f, run, *rest, **kw)
        finally:
            used = calls.leave(it)
            if used is not None:
                callees[getattr(f, "qualname", "?")] += used[1]
                counts[getattr(f, "qualname", "?")] += 1

    memo = anycaller.AnyCallerMemo
    mark, remember = memo.mark, memo.remember
    marks: list = []  # per marked call running: its Meter state

    def metered_mark(it, f, args, kwargs, fr):
        got = mark(it, f, args, kwargs, fr)
        if got is not None:
            marks.append((it.steps, time.process_time()))
        return got

    def metered_remember(self, it, f, args, kwargs, fr, marked, result, dead, assumes_default):
        if marked is not None:
            steps, cpu = marks.pop()
            eligible = anycaller._constant(result, results=True) and \
                it.journal.only_since(marked[0], anycaller.ANY_CALLER_SKIPS)
            if eligible and not marks:
                helpers.steps += it.steps - steps
                helpers.cpu += time.process_time() - cpu
        return remember(self, it, f, args, kwargs, fr, marked, result, dead, assumes_default)

    imports.Importer.load = metered_load
    costs.imported_call = metered_call  # (costs.crossing hands it out by its global name)
    memo.mark = staticmethod(metered_mark)
    memo.remember = metered_remember
    return bodies, calls, helpers, callees, counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--repeat", type=int, default=1, help="analyse the list this many times")
    ap.add_argument("--top", type=int, default=8, help="imported callees listed")
    args = ap.parse_args(argv)
    files = args.files or [os.path.join(TREE, f) for f in DEFAULT]
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        print(f"not a file: {missing[0]} (the default files come from `python bench/repo.py`)", file=sys.stderr)
        return 2

    from shapehint import gc_policy
    from shapehint.analysis.api import warm_up
    from shapehint.project.analyse import analyse
    warm_up()
    gc_policy.settle()
    bodies, calls, helpers, callees, counts = instrument()
    steps_of: dict = {}
    from shapehint.analysis import engine
    run = engine.run

    def keep_steps(text, path="<string>", **kw):
        session = run(text, path, **kw)
        it = getattr(session, "_interp", None)
        memo = getattr(it, "memo", None)
        charged = getattr(getattr(memo, "any_caller", None), "charged", 0)
        steps_of[path] = (session.result.stats.get("steps", 0), charged)
        return session

    engine.run = keep_steps
    print("| file | CPU s | steps | steps run | module bodies (steps, s) | imported calls (steps, s) "
          "| helpers missed (steps, s) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    total = collections.Counter()
    for _ in range(max(1, args.repeat)):
        for path in files:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            start = time.process_time()
            analyse(path, text, None, None)
            gc_policy.release()
            cpu = time.process_time() - start
            parts = [bodies.take(), calls.take(), helpers.take()]
            steps, charged = steps_of.get(path, (0, 0))
            total.update({"cpu": cpu, "steps": steps, "run": steps - charged, "bodies": parts[0][0],
                          "calls": parts[1][0], "helpers": parts[2][0]})
            name = os.path.relpath(path, TREE) if path.startswith(TREE) else path
            print(f"| {name} | {cpu:.2f} | {steps:,} | {steps - charged:,} | "
                  + " | ".join(f"{s:,}, {c:.2f}" for s, c in parts) + " |")
    steps = total["steps"] or 1
    print(f"\nall: {total['cpu']:.2f} CPU s, {total['steps']:,} steps ({total['run']:,} run); module bodies "
          f"{total['bodies'] / steps:.0%}, imported calls {total['calls'] / steps:.0%}, "
          f"helpers missed {total['helpers'] / steps:.0%} of the steps")
    print("\nimported callees by CPU s (calls):")
    for name, cpu in callees.most_common(args.top):
        print(f"  {cpu:6.2f}  {name} ({counts[name]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
