"""Side by side: ShapeHint and torch.fx.experimental.migrate_gradual_types on the ECOOP'24
benchmarks, refereed by executing the programs (verify.py).

Each side runs in its own process per benchmark (run_shapehint.py, run_fx.py: one JSON line
per question); a side that runs past its time limit gets 'timeout' for the questions it had
not answered. Ratio = torch.fx time / ShapeHint time.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchmarks import BENCHMARKS  # noqa: E402

SHORT = {"always-true": "T", "always-false": "F", "depends": "D", "unknown": "?", "n/a": "-", "none": "x",
         "unreached": "_"}


def run_side(script: str, name: str, timeout: float, env: dict = None) -> dict:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, os.path.join(HERE, script), name], capture_output=True,
                              text=True, timeout=timeout, env={**os.environ, **(env or {})})
        out, err = proc.stdout, proc.stderr
        timed_out = False
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        err = ""
        timed_out = True
    answers = {}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                a = json.loads(line)
                answers[a["question"]] = a
            except ValueError:
                pass
    return {"answers": answers, "timed_out": timed_out, "wall_s": time.perf_counter() - t0,
            "stderr_tail": "\n".join(l for l in err.splitlines() if "Warning" not in l)[-400:]}


def render(a: dict) -> str:
    if a is None:
        return "timeout"
    kind = a.get("answer")
    if kind == "branches":
        return " ".join(f"{t}:{SHORT.get(b['status'], '?')}" for t, b in sorted(a["branches"].items()))
    if kind in ("static", "partial"):
        shapes = [v.get("shape") for v in (a.get("params") or {}).values()]
        return f"{kind} " + " ".join(json.dumps(s).replace(" ", "") for s in shapes)
    if kind == "none":
        dyn = {p: v.get("dyn_dims") for p, v in (a.get("params") or {}).items() if v.get("dyn_dims")}
        if a.get("ill_typed"):
            return "none (ill-typed)"
        return "none" + (f" (Dyn: {', '.join(f'{p}{d}' for p, d in dyn.items())})" if dyn else "")
    if kind == "n/a":
        return "n/a: " + (a.get("error") or "")[:70]
    if kind == "unknown" and a.get("error"):
        return f"unknown ({a['error']})"
    return str(kind)


def exists(a: dict):
    if a is None or a.get("answer") in (None, "n/a", "unknown"):
        return None
    return a["answer"] in ("static", "partial")


def judge_migration(sh: dict, fx: dict, v: dict) -> dict:
    truth = v["truth"] == "static"

    def side(a, name):
        e = exists(a)
        if e is None:
            return "no answer"
        if e:
            tried = [t for t in v["tried"] if t["side"] == name]
            if tried and not (tried[0]["runs"] and tried[0]["meets_constraints"]):
                return "wrong (its migration fails: " + (tried[0]["error"] or "constraints") + ")"
            return "right" if truth else "wrong"
        return "right" if not truth else "wrong"
    s, f = side(sh, "shapehint"), side(fx, "fx")
    def dyn(a):
        return {p: x.get("dyn_dims") for p, x in ((a or {}).get("params") or {}).items() if x.get("dyn_dims")}
    same = exists(sh) == exists(fx) and (exists(sh) or dyn(sh) == dyn(fx))
    return {"shapehint": s, "fx": f, "same": bool(same),
            "truth": ("static migration exists, e.g. " + json.dumps(v["witness"])) if truth else
                     f"no static migration (annotation/{v['searched']} candidate inputs all fail)"}


def judge_branches(sh: dict, fx: dict, v: dict) -> dict:
    obs = v["observed"]

    def score(a):
        res = {"right": 0, "imprecise": 0, "wrong": 0, "no answer": 0}
        per = {}
        for t, o in obs.items():
            st = ((a or {}).get("branches") or {}).get(t, {}).get("status", "n/a")
            if st in ("unknown", "n/a", "none"):
                k = "no answer"
            elif st == o:
                k = "right"
            elif st == "depends":
                k = "imprecise"  # sampling saw one outcome; "depends" may still be true
            else:
                k = "wrong"
            res[k] += 1
            per[t] = k
        return res, per
    s, sp = score(sh)
    f, fp = score(fx)
    same = all(((sh or {}).get("branches") or {}).get(t, {}).get("status") ==
               ((fx or {}).get("branches") or {}).get(t, {}).get("status") for t in obs)
    return {"shapehint": s, "fx": f, "same": same, "per_branch": {"shapehint": sp, "fx": fp},
            "truth": "observed on %d inputs: %s" % (v["inputs"], " ".join(f"{t}:{SHORT[o]}" for t, o in sorted(obs.items())))}


def better_or_same(j: dict, kind: str) -> bool:
    if kind == "Q3":
        s, f = j["shapehint"], j["fx"]
        return s["wrong"] <= f["wrong"] and s["right"] >= f["right"]
    rank = {"right": 2, "no answer": 1}
    return rank.get(j["shapehint"], 0) >= rank.get(j["fx"].split(" (")[0], 0)


def run(quick: bool = False, log=print, fx_timeout: float = None, names=None) -> dict:
    rows = []
    collected = {}
    for b in BENCHMARKS:
        if names is not None and b["name"] not in names:
            continue
        log(f"  peer: {b['name']} ...")
        sh = run_side("run_shapehint.py", b["name"], timeout=300)
        limit = fx_timeout or (120 if quick else 300)
        fx = run_side("run_fx.py", b["name"], timeout=limit,
                      env={"BENCH_FX_Z3_TIMEOUT_MS": str(30000 if quick else 120000)})
        collected[b["name"]] = (b, sh, fx, limit)
    answers = {name: {q["id"]: {"shapehint": sh["answers"].get(q["id"]), "fx": fx["answers"].get(q["id"])}
                      for q in b["questions"]} for name, (b, sh, fx, _) in collected.items()}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(answers, f)
    log("  peer: executing the programs to referee ...")
    proc = subprocess.run([sys.executable, os.path.join(HERE, "verify.py"), f.name], capture_output=True,
                          text=True, timeout=600)
    try:
        verdicts = json.loads(proc.stdout)
    except ValueError:
        verdicts = {}
        log("  peer: referee failed: " + proc.stderr[-500:])
    for name, (b, sh, fx, limit) in collected.items():
        for q in b["questions"]:
            a_sh, a_fx = sh["answers"].get(q["id"]), fx["answers"].get(q["id"])
            v = verdicts.get(name, {}).get(q["id"])
            j = None
            if v is not None:
                j = (judge_branches if q["kind"] == "Q3" else judge_migration)(a_sh, a_fx, v)
            t_sh = a_sh["seconds"] if a_sh else None
            t_fx = a_fx["seconds"] if a_fx and a_fx.get("answer") != "n/a" else None
            rows.append({
                "benchmark": name, "question": q["id"], "kind": q["kind"],
                "constraints": q.get("constraints", []),
                "shapehint": {"answer": render(a_sh), "seconds": t_sh, "raw": a_sh},
                "fx": {"answer": render(a_fx) if a_fx or not fx["timed_out"] else f"timeout (>{limit:.0f} s)",
                       "seconds": t_fx, "raw": a_fx,
                       "error": fx["stderr_tail"] if not a_fx else None},
                "ratio": (t_fx / t_sh) if t_sh and t_fx else None,
                "judgement": j,
                "same_or_better": better_or_same(j, q["kind"]) if j else None,
            })
    return {"rows": rows}


if __name__ == "__main__":
    print(json.dumps(run(quick="--quick" in sys.argv), indent=1, default=str))
