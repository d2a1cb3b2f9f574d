"""The ShapeHint side: answers Q1/Q2/Q3 on the benchmark programs (no torch import).

    python bench/peer/run_shapehint.py BENCHMARK_NAME     # one JSON line per question

Each question analyses the program from scratch (`analyze_session`, without the records that
only hover shows and the compiler-only syntax check, as the CLI's questions do) and asks `answer_migration` (Q1; Q2 with the constraints as
`--assume` strings scoped to `Cls.forward`; only that function's own analysis runs, as in
`shapehint migrate --function Cls.forward`) or `answer_branches` (Q3; constraints unscoped;
the branches `Cls.forward` reaches, for its inputs, as `shapehint branches --function Cls.forward`
— the entry torch.fx traces).
Times are wall-clock from the source text to the answer, imports excluded (a warm-up analysis
runs first).
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchmarks import PROGRAMS, answer_all, by_name, q3_tags  # noqa: E402

from shapehint.analysis.api import analyze_session, analyze_source  # noqa: E402
from shapehint.questions.branches import answer_branches  # noqa: E402
from shapehint.questions.migrate import answer_migration  # noqa: E402


def migration(bench: dict, path: str, text: str, constraints: list) -> dict:
    fn = f"{bench['cls']}.forward"
    session = analyze_session(text, path, records=False, functions={fn}, compile_errors=False)  # as `shapehint migrate --function`
    got = answer_migration(session, assume=[f"{fn}: {c}" for c in constraints], only=fn)
    if not got:
        return {"answer": "n/a", "error": f"no migratable function {fn}"}
    a = got[0]
    params = {p["name"]: {"ranks": p["ranks"], "shape": p["shape"], "dyn_dims": p["dyn_dims"], "reason": p["reason"]}
              for p in a["params"]}
    return {"answer": a["status"], "params": params, "clash": [c["message"] for c in a["clash"]]}


def branches(bench: dict, path: str, text: str, constraints: list, tags: dict) -> dict:
    fn = f"{bench['cls']}.forward"  # the entry torch.fx traces: `shapehint branches --function`
    session = analyze_session(text, path, records=False, functions={fn}, compile_errors=False)
    got = answer_branches(session, assume=list(constraints), entry=fn)
    by_line = {b["line"]: b for b in got}
    out = {}
    for tag, (line, _) in tags.items():
        b = by_line.get(line)
        out[tag] = {"status": b["status"] if b else "n/a", "line": line,
                    "witnesses": b["witnesses"] if b else None,
                    "condition": b.get("condition") if b else None}
    return {"answer": "branches", "branches": out}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    bench = by_name(argv[0])
    only = set(argv[1].split(",")) if len(argv) > 1 else None
    path = os.path.join(PROGRAMS, bench["file"])
    text = open(path).read()
    analyze_source("import torch\nx = torch.zeros(2, 3) @ torch.zeros(3, 4)\n", "<warm-up>")
    tags = q3_tags(path)  # the benchmark's own bookkeeping (which line is which tag): not timed

    def answer(q):
        if q["kind"] in ("Q1", "Q2"):
            return migration(bench, path, text, q.get("constraints", []) if q["kind"] == "Q2" else [])
        else:
            return branches(bench, path, text, q.get("constraints", []), tags)

    answer_all(bench, answer, only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
