"""Where one `infer --format json` process's CPU time goes, file by file (issue 28).

    python bench/profile_infer.py FILE [FILE ...]

Per file, in a process of its own as the referee runs it (bench/realmodels/pipeline.py): the
process's CPU seconds (user+sys) and, measured inside it (`cli.main` with the cyclic collector
paused, as `cli.entry` pauses it),

  start-up     importing ShapeHint and Python's own start (the process less `main`)
  analysis     the file's analysis (`engine.run` without ranks: one per file)
  signatures   `signatures_json`, of which
    reruns     the rank search's re-analyses (`engine.run` with ranks, questions/migrate.py),
      bodies   of which the module bodies they run again (the file's and its imports')
  rest         answer building and writing (`infer_json`, the JSON)

CPU time is the process's, so a loaded machine changes it less than wall-clock time. cProfile
inflates the interpreter's many small calls several times over (bart: 28 s profiled for 2.4 s)
and so misplaces the shares; these wrappers cost one clock read per call. The server's bytecode
is compiled first, as the referee does: without it each process compiles ~200 modules.
A tool for looking, not a benchmark of record.
"""
from __future__ import annotations

import os
import resource
import sys

from child_measure import answer_as_child, infer_quietly, run_child

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _inside(path: str) -> dict:
    """The shares, measured in this process (the child's side)."""
    import gc
    import time
    gc.disable()
    from shapehint.analysis import engine, interp
    from shapehint.questions import signatures
    clock = time.process_time
    got = {"analysis": 0.0, "signatures": 0.0, "reruns": 0.0, "bodies": 0.0, "reruns_n": 0}
    state = {"ranked": False, "depth": 0}
    run, body, sigs = engine.run, interp.Interp.exec_module_body, signatures.signatures_json

    def timed_run(*a, **k):
        t, ranked = clock(), bool(k.get("ranks"))
        state["ranked"] = ranked
        try:
            return run(*a, **k)
        finally:
            got["reruns" if ranked else "analysis"] += clock() - t
            got["reruns_n"] += ranked
            state["ranked"] = False

    def timed_body(self, stmts, frame):
        t = clock()
        state["depth"] += 1
        try:
            return body(self, stmts, frame)
        finally:
            state["depth"] -= 1
            if state["depth"] == 0 and state["ranked"]:
                got["bodies"] += clock() - t

    def timed_sigs(*a, **k):
        t = clock()
        try:
            return sigs(*a, **k)
        finally:
            got["signatures"] += clock() - t

    engine.run, interp.Interp.exec_module_body, signatures.signatures_json = timed_run, timed_body, timed_sigs
    got["main"] = infer_quietly(path)
    return got


def measure(path: str) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    got = run_child(__file__, path)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    got["process"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    got["start-up"] = got["process"] - got["main"]
    got["rest"] = got["main"] - got["analysis"] - got["signatures"]
    return got


def main(argv: list) -> int:
    answer_as_child(argv, _inside)
    if not argv:
        print(__doc__)
        return 2
    sys.path.insert(0, os.path.join(ROOT, "bench", "realmodels"))
    import pipeline
    pipeline.compile_server()
    cols = ["process", "start-up", "analysis", "signatures", "reruns", "bodies", "rest"]
    print(f"{'file':40} " + " ".join(f"{c:>10}" for c in cols) + "  reruns")
    for path in argv:
        got = measure(path)
        name = os.path.relpath(path, os.path.dirname(os.path.dirname(path)))
        print(f"{name[-40:]:40} " + " ".join(f"{got[c]:10.2f}" for c in cols) + f"  {got['reruns_n']:6d}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
