"""The referee: executes the benchmark programs to decide who is right where the sides differ.

    python bench/peer/verify.py ANSWERS.json > VERDICTS.json

Programs run in eval mode on the `meta` device (shapes only, no arithmetic), so even
ResNet-50 runs in milliseconds.
  Q1/Q2  every static shape either side proposes is executed: it must run and satisfy the
         constraints. When nobody proposes a runnable shape, inputs drawn from a grid of
         typical sizes (filtered by the constraints) are tried: one that runs refutes a
         "no migration" answer.
  Q3     the branchy program runs on inputs from the grid (plus ShapeHint's witnesses),
         filtered by the constraints; a line tracer records, for every `# Q3:` branch, whether
         its true body ran and whether the test ran without it. The observed outcomes are
         evidence, not proof: "always" means no counterexample among the inputs tried.
"""
from __future__ import annotations

import importlib.util
import itertools
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchmarks import PROGRAMS, by_name, q3_tags  # noqa: E402

import torch  # noqa: E402

GRID = [1, 2, 3, 4, 5, 8, 16, 31, 64, 100, 200, 224, 227, 256, 300, 511, 512, 513, 1999, 2000, 2047, 2048,
        2049, 3000]


class _Shaped:
    def __init__(self, shape):
        self.shape = tuple(shape)
        self.ndim = len(shape)

    def dim(self):
        return len(self.shape)

    def size(self, i=None):
        return self.shape if i is None else self.shape[i]


def satisfies(constraints: list, shapes: dict) -> bool:
    env = {p: _Shaped(s) for p, s in shapes.items()}
    try:
        return all(bool(eval(c, {}, env)) for c in constraints)
    except Exception:
        return False


def load(file: str):
    sys.path.insert(0, PROGRAMS)
    path = os.path.join(PROGRAMS, file)
    spec = importlib.util.spec_from_file_location("verify_" + os.path.splitext(file)[0], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


def make_inputs(bench: dict, shapes: dict) -> list:
    out = []
    for p in bench["params"]:
        dtype = torch.long if p.endswith("ids") else torch.float32
        out.append(torch.zeros(*shapes[p], dtype=dtype, device="meta"))
    return out


def run_once(model, bench: dict, shapes: dict):
    try:
        with torch.no_grad(), torch.device("meta"):  # tensors made inside forward land on meta too
            model(*make_inputs(bench, shapes))
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"


def candidate_shapes(bench: dict, ranks: dict, constraints: list, limit: int, seed: int = 0) -> list:
    r = random.Random(seed)
    combos = []
    for _ in range(limit * 40):
        shapes = {p: [r.choice(GRID) for _ in range(ranks[p])] for p in bench["params"]}
        if satisfies(constraints, shapes):
            combos.append(shapes)
        if len(combos) >= limit:
            break
    return combos


def verify_migration(bench: dict, q: dict, answers: dict, model) -> dict:
    constraints = q.get("constraints", []) if q["kind"] == "Q2" else []
    tried = []
    runnable = None
    for side in ("shapehint", "fx"):
        a = answers.get(side) or {}
        params = a.get("params") or {}
        if a.get("answer") not in ("static", "partial") or not params:
            continue
        shapes = {p: params.get(p, {}).get("shape") for p in bench["params"]}
        if any(s is None or any(not isinstance(d, int) for d in s) for s in shapes.values()):
            continue
        err = run_once(model, bench, shapes)
        ok = err is None and satisfies(constraints, shapes)
        tried.append({"side": side, "shape": shapes, "runs": err is None,
                      "meets_constraints": satisfies(constraints, shapes), "error": err})
        if ok and runnable is None:
            runnable = shapes
    searched = 0
    if runnable is None:
        ranks = {}
        for side in ("shapehint", "fx"):
            for p, v in ((answers.get(side) or {}).get("params") or {}).items():
                rk = v.get("ranks") or ([len(v["shape"])] if v.get("shape") else [])
                if rk:
                    ranks.setdefault(p, rk[0])
        ranks = {p: ranks.get(p, 4) for p in bench["params"]}
        if bench["name"] == "BmmExample":  # annotated fully static: the only candidate is the annotation
            cands = [{"x": [2, 3, 4], "y": [2, 5, 6]}]
        else:
            cands = candidate_shapes(bench, ranks, constraints, limit=60)
        for shapes in cands:
            searched += 1
            if run_once(model, bench, shapes) is None:
                runnable = shapes
                break
    truth = "static" if runnable is not None else "none"
    return {"truth": truth, "witness": runnable, "tried": tried, "searched": searched}


class LineRecorder:
    def __init__(self, path: str):
        self.path = path
        self.counts: dict = {}

    def __enter__(self):
        def local(frame, event, arg):
            if event == "line":
                self.counts[frame.f_lineno] = self.counts.get(frame.f_lineno, 0) + 1
            return local

        def glob(frame, event, arg):
            return local if frame.f_code.co_filename == self.path else None
        sys.settrace(glob)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)


def verify_branches(bench: dict, q: dict, answers: dict, model, path: str) -> dict:
    constraints = q.get("constraints", [])
    tags = q3_tags(path)
    rank = 2
    samples = [{p: list(s) for p, s in zip(bench["params"], combo)}
               for combo in itertools.product(*[[list(c) for c in itertools.product(GRID[:8] + GRID[-9:], repeat=rank)]
                                                for _ in bench["params"]])]
    random.Random(0).shuffle(samples)
    samples = samples[:200]
    for b in ((answers.get("shapehint") or {}).get("branches") or {}).values():
        for w in ((b.get("witnesses") or {}).values()):
            if w and all(p in w for p in bench["params"]):
                samples.append({p: list(w[p]) for p in bench["params"]})
    seen = {t: set() for t in tags}
    used = 0
    for shapes in samples:
        if not satisfies(constraints, shapes):
            continue
        used += 1
        with LineRecorder(path) as rec:
            run_once(model, bench, shapes)
        for t, (if_line, body_line) in tags.items():
            n_if, n_true = rec.counts.get(if_line, 0), rec.counts.get(body_line, 0)
            if n_true:
                seen[t].add(True)
            if n_if > n_true:
                seen[t].add(False)
    out = {}
    for t, s in seen.items():
        out[t] = ("depends" if s == {True, False} else "always-true" if s == {True} else
                  "always-false" if s == {False} else "unreached")
    return {"observed": out, "inputs": used}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    data = json.load(open(argv[0]))
    out = {}
    for name, qs in data.items():
        bench = by_name(name)
        mod, path = load(bench["file"])
        model = getattr(mod, bench["cls"])().to("meta").eval()
        out[name] = {}
        for q in bench["questions"]:
            if q["id"] not in qs:
                continue
            if q["kind"] == "Q3":
                out[name][q["id"]] = verify_branches(bench, q, qs[q["id"]], model, path)
            else:
                out[name][q["id"]] = verify_migration(bench, q, qs[q["id"]], model)
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
