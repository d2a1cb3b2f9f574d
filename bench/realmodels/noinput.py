"""Run Shapes without `--input` on the benchmark's models (issue 26): does `shapehint run` find an
input for each model by itself, run it on CPU, and agree with the inference wherever it gives a shape?

    python bench/realmodels/noinput.py                       # every torchvision and timm model
    python bench/realmodels/noinput.py --only tv_resnet18,timm_vit --jobs 2

Each model runs as a user would run it: `shapehint run FILE --entry ENTRY --build BUILD --device cpu
--format json`, the file in place in its unpacked wheel (`fetch.py`), no `--input`. The models are
built by the benchmark's own small-configuration expressions (`models.py`), so nothing is
downloaded. A model passes when the run has no error and no line's observed shape contradicts the
inferred one (`mismatch` count 0); `not-inferred` lines (no shape shown) do not count against it.
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import resource
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fetch  # noqa: E402
import models as model_list  # noqa: E402
import pipeline  # noqa: E402

# Imported first by every Python the command starts (PYTHONPATH): the harness's torchvision op
# schemas (execute.py says why the pinned wheel needs them with the dev torch).
SITECUSTOMIZE = """import importlib.util, sys
_spec = importlib.util.spec_from_file_location("_realmodels_execute", {execute!r})
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
if any(__import__("os").path.isdir(__import__("os").path.join(p, "torchvision")) for p in sys.path):
    import torch
    _keep = _mod.stub_torchvision_ops(torch, sys.path)
"""


def command(model: dict, tree: str, timeout: float) -> list:
    return [sys.executable, "-m", "shapehint.cli", "run", os.path.join(tree, model["file"]),
            "--entry", model["entry"], "--build", model["build"], "--device", "cpu", "--format", "json",
            "--timeout", str(int(timeout))]


def run_one(model: dict, tree: str, paths: list, timeout: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "sitecustomize.py"), "w") as f:
            f.write(SITECUSTOMIZE.format(execute=os.path.join(HERE, "execute.py")))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([tmp, pipeline.SERVER] + paths))
        start, cpu = time.monotonic(), _children_cpu()
        try:
            p = subprocess.run(command(model, tree, timeout), capture_output=True, text=True, env=env,
                               timeout=timeout + 60, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {"id": model["id"], "ok": False, "error": "timed out", "seconds": round(time.monotonic() - start, 1)}
        seconds = round(time.monotonic() - start, 1)
        cpu = round(_children_cpu() - cpu, 1)
    try:
        data = json.loads(p.stdout)
    except ValueError:
        return {"id": model["id"], "ok": False, "seconds": seconds,
                "error": "no JSON (exit %d): %s" % (p.returncode, p.stderr[-400:])}
    return dict(summarise(model["id"], data), seconds=seconds, cpu_seconds=cpu)


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (the run and the runner it starts): with
    `--jobs 1`, a model's own; beside its wall time, it tells a slow model from a loaded machine."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def summarise(mid: str, data: dict) -> dict:
    counts = {}
    for it in data.get("lines", []):
        counts[it["status"]] = counts.get(it["status"], 0) + 1
    err = data.get("error")
    inputs = {k: {"shape": v.get("shape"), "source": v.get("source")} for k, v in (data.get("inputs") or {}).items()}
    mismatches = [{"line": m["line"], "name": m["name"], "observed": m["observed"], "inferred": m["inferred"],
                   "context": m.get("context")} for m in data.get("mismatches", [])]
    return {"id": mid, "ok": err is None and not mismatches and bool(data.get("lines")), "inputs": inputs,
            "counts": counts, "error": None if err is None else "%s: %s" % (err.get("type"), err.get("message")),
            "mismatches": mismatches}


def render(results: list) -> str:
    rows = ["| model | ran | input (source) | match | mismatch | not inferred | wall s | CPU s | note |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        ins = ", ".join("%s=%s (%s)" % (k, v["shape"], v["source"]) for k, v in (r.get("inputs") or {}).items())
        c = r.get("counts", {})
        note = r.get("error") or "; ".join("%d:%s observed %s inferred %s" % (m["line"], m["name"], m["observed"],
                                                                             m["inferred"]) for m in r.get("mismatches", [])[:3])
        rows.append("| %s | %s | %s | %d | %d | %d | %s | %s | %s |" % (
            r["id"], "yes" if r.get("error") is None and c else "no", ins or "—", c.get("match", 0),
            c.get("mismatch", 0), c.get("not-inferred", 0), r.get("seconds", "—"), r.get("cpu_seconds", "—"), note.replace("|", "\\|").replace("\n", " ")[:300]))
    ok = sum(1 for r in results if r["ok"])
    ran = sum(1 for r in results if r.get("error") is None and r.get("counts"))
    rows.append("")
    rows.append("%d of %d models ran without `--input`; %d of them with no mismatch." % (ran, len(results), ok))
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=fetch.default_cache())
    ap.add_argument("--only", help="comma-separated model ids (bench/realmodels/models.py)")
    ap.add_argument("--package", default="torchvision,timm", help="comma-separated packages (default torchvision,timm)")
    ap.add_argument("--jobs", type=int, default=1)
    # tv_swin took 600-720 s of wall time on a machine loaded 10-15 deep (2 cores), while the four
    # models of its batch took 2.6 min of CPU together: a limit for loaded machines, so that a
    # timeout means a model that does not finish
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per run (wall time)")
    ap.add_argument("--json", default=os.path.join(pipeline.ROOT, "bench", "results", "noinput-latest.json"))
    a = ap.parse_args(argv)
    wanted = set(a.only.split(",")) if a.only else None
    packages = set(a.package.split(","))
    chosen = [m for m in model_list.MODELS if (m["id"] in wanted if wanted else m["package"] in packages)]
    if wanted and len(chosen) != len(wanted):
        ap.error("unknown model id(s): %s" % ", ".join(sorted(wanted - {m["id"] for m in chosen})))
    fetch.fetch(a.cache)
    trees = {p: fetch.tree(a.cache, p) for p in fetch.PINS}
    paths = list(trees.values()) + [os.path.join(a.cache, "deps")]
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda m: run_one(m, trees[m["package"]], paths, a.timeout), chosen))
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    print(render(results))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
