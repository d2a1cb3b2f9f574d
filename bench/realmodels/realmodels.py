"""Real-model benchmark refereed by execution: torchvision, timm and transformers, line by line.

    python bench/realmodels/realmodels.py                      # set-up (once, cached) + every model, both modes
    python bench/realmodels/realmodels.py --only tv_resnet18,hf_bert --modes raw
    python bench/realmodels/realmodels.py --package timm --jobs 2
    python bench/realmodels/realmodels.py --json bench/realmodels/baseline.json --update-readme
    python bench/realmodels/realmodels.py --from-json bench/realmodels/baseline.json --update-readme  # re-render
    python bench/realmodels/realmodels.py --compare bench/realmodels/baseline.json   # every verdict that changed

Each model's file is analysed in place in its unpacked wheel (`fetch.py`); the same file is
imported and run on CPU (`execute.py`) and every executed tensor assignment gets a verdict
(`score.py`). What the numbers mean: bench/README.md, "Real models".
"""
from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import annotate  # noqa: E402
import fetch  # noqa: E402
import models as model_list  # noqa: E402
import passes  # noqa: E402
import pipeline  # noqa: E402
import report  # noqa: E402
import score  # noqa: E402

MODES = ("raw", "annotated")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def git_commit(root: str = pipeline.ROOT) -> dict:
    def git(*a):
        try:
            return subprocess.run(["git", "-C", root, *a], capture_output=True, text=True, timeout=20).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    server_dirty = bool(git("status", "--porcelain", "--", "server"))
    # the analysis is server/: its tree hash says which ShapeHint answered, whatever the branch
    return {"commit": git("rev-parse", "--short", "HEAD"), "server_dirty": server_dirty,
            "server_tree": git("rev-parse", "--short", "HEAD:server")}


def _stmt_of(path: str):
    """Statement-start line of each line of the shipped file (the runner's SourceMap)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_rm_runner", pipeline.RUNNER)
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    with open(path, encoding="utf-8") as f:
        smap = runner.SourceMap(f.read())
    return lambda n: smap.stmt_of.get(n, n)


def _analyse(path: str, timeout: float, check: bool = True) -> dict:
    """`infer`, and `check` for the false errors (annotated mode takes them from `infer`'s own
    diagnostics instead: the same analysis, and it halves the benchmark's time)."""
    res = {"infer": pipeline.shapehint("infer", path, timeout)}
    if check:
        res["check"] = pipeline.shapehint("check", path, timeout)
    return res


# CPython 3.11's `ast.parse` keeps its recursion count in one per-interpreter state, so two
# threads parsing at once can fail with "SystemError: AST constructor recursion depth mismatch"
# (CI saw it: the main thread scoring while the pool annotated): this process's parses take turns,
# under ShapeHint's one parse lock (the runner's SourceMap parses with `ast` directly)
PARSING = annotate.PARSE_LOCK


def _annotated(model: dict, tree: str, timeout: float) -> dict:
    src_path = os.path.join(tree, model["file"])
    with open(src_path, encoding="utf-8") as f:
        source = f.read()
    with PARSING:
        at, text = annotate.assertion_line(source, model["entry"], model["inputs"])
    if at is None:
        return {"skipped": text}
    with tempfile.TemporaryDirectory(prefix="shapehint-rm-ann-") as tmp:
        path = annotate.symlink_tree(tree, model["file"], tmp, annotate.insert(source, at, text))
        res = _analyse(path, timeout, check=False)
    res["inserted_at"], res["assertion"] = at, text.strip()
    return res


def run_models(models: list, trees: dict, paths: list, jobs: int = 1, timeout: float = 300.0,
               modes=MODES, exec_timeout: float = 600.0) -> dict:
    """Execute, analyse and score `models`; `trees[package]` is the folder its `file` is relative to."""
    results = {}
    pipeline.compile_server()  # the infer times are an installed ShapeHint's, not first imports'
    with cf.ThreadPoolExecutor(max(1, jobs)) as pool:
        truth = {m["id"]: pool.submit(pipeline.execute, m, trees[m["package"]], paths, exec_timeout) for m in models}
        raw = {}
        if "raw" in modes:
            for m in models:
                path = os.path.join(trees[m["package"]], m["file"])
                if path not in raw:
                    raw[path] = pool.submit(_analyse, path, timeout)
        ann = {m["id"]: pool.submit(_annotated, m, trees[m["package"]], timeout) for m in models} \
            if "annotated" in modes else {}
        for m in models:
            path = os.path.join(trees[m["package"]], m["file"])
            t = truth[m["id"]].result()
            entry = {"package": m["package"], "file": m["file"], "entry": m["entry"], "build": m["build"],
                     "inputs": m["inputs"],
                     "execution": {"error": t.get("error"), "seconds": t.get("run_s"), "dropped": t.get("dropped", 0),
                                   "invocations": len(t.get("invocations", []))},
                     "modes": {}}
            got = {mode: raw[path].result() if mode == "raw" else ann[m["id"]].result() for mode in modes}
            with PARSING, open(path, encoding="utf-8") as f:  # (never held while waiting for the pool)
                stmt_of = _stmt_of(path)
                source = f.read()
                built_by = score.confirmed(score.builders(m["build"], source, path), t.get("config_strings"),
                                           m["build"], source)
                by_pass = passes.pass_lines(source)
                for mode in modes:
                    entry["modes"][mode] = _score_mode(t, got[mode], stmt_of, built_by, by_pass)
            results[m["id"]] = entry
            c = entry["modes"].get(modes[0], {}).get("counts", {})
            log("%-24s %s" % (m["id"], " ".join("%s=%s" % (k, c.get(k)) for k in ("lines",) + score.VERDICTS)
                              if not t.get("error") else "EXECUTION FAILED: %s" % t["error"].get("message", "")[:200]))
    return results


def _score_mode(truth: dict, a: dict, stmt_of, built_by=frozenset(), pass_lines=frozenset()) -> dict:
    if "skipped" in a:
        return {"skipped": a["skipped"]}
    inf, chk = a["infer"], a.get("check")
    lmap = annotate.line_map(a.get("inserted_at"))
    lines = score.score(truth.get("invocations", []), inf["data"], lmap, stmt_of, built_by, pass_lines) \
        if not truth.get("error") else {}
    diags = [d for f in ((chk or {}).get("data") or {}).get("files", []) for d in f.get("diagnostics", [])] \
        if chk else (inf["data"] or {}).get("diagnostics", [])
    errors = [{"line": lmap(d.get("line")), "code": d.get("code"), "message": d.get("message", "")[:300]}
              for d in diags if d.get("severity") == "error"]
    out = {"counts": score.counts(lines), "false_errors": errors, "errors_from": "check" if chk else "infer",
           "crash": {k: v["crash"] for k, v in (("infer", inf), ("check", chk)) if v and v["crash"]} or None,
           "infer_s": inf["seconds"], "check_s": chk["seconds"] if chk else None,
           "symbols": bool(inf["data"] and inf["data"].get("symbols")),
           "lines": {k: {"verdict": v["verdict"], "function": v["function"], "observations": v["observations"],
                         "example": v["example"]} for k, v in sorted(lines.items(), key=lambda kv: _line_key(kv[0]))}}
    if a.get("assertion"):
        out["assertion"] = a["assertion"]
    return out


def _line_key(key: str):
    line, name = key.split(":", 1)
    return int(line), name


def select(models: list, only: str | None, package: str | None) -> list:
    chosen = models
    if only:
        want = [s.strip() for s in only.split(",") if s.strip()]
        unknown = [w for w in want if w not in {m["id"] for m in models}]
        if unknown:
            raise SystemExit("unknown model id(s): %s (see bench/realmodels/models.py)" % ", ".join(unknown))
        chosen = [m for m in chosen if m["id"] in want]
    if package:
        if package not in {m["package"] for m in models}:
            raise SystemExit("unknown package %r: one of %s" % (package, ", ".join(sorted({m["package"] for m in models}))))
        chosen = [m for m in chosen if m["package"] == package]
    return chosen


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=fetch.default_cache(), help="wheels, trees and deps (set-up output)")
    ap.add_argument("--only", help="comma-separated model ids (bench/realmodels/models.py)")
    ap.add_argument("--package", help="torchvision, timm or transformers")
    ap.add_argument("--modes", default=",".join(MODES), help="raw, annotated or both (default)")
    ap.add_argument("--jobs", type=int, default=1, help="models analysed/run at once (times are wall-clock: "
                                                        "more jobs, noisier times)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per ShapeHint command per file")
    ap.add_argument("--json", default=os.path.join(pipeline.ROOT, "bench", "results", "realmodels-latest.json"))
    ap.add_argument("--from-json", help="render this earlier result instead of running")
    ap.add_argument("--compare", metavar="OLD.json", help="list every (model, mode, line, name) whose verdict changed")
    ap.add_argument("--update-readme", action="store_true", help="rewrite README.md between the realmodels markers")
    ap.add_argument("--merge-into", metavar="OLD.json", help="write OLD's models with the ones run now replacing "
                    "theirs (re-run a few models of a full result)")
    ap.add_argument("--lines", metavar="ID", help="print every verdict of one model (after running or from JSON)")
    a = ap.parse_args(argv)
    modes = tuple(m.strip() for m in a.modes.split(",") if m.strip())
    if not modes or any(m not in MODES for m in modes):
        ap.error("--modes takes raw, annotated or raw,annotated")
    if a.from_json:
        with open(a.from_json) as f:
            res = json.load(f)
    else:
        chosen = select(model_list.MODELS, a.only, a.package)
        if not fetch.ready(a.cache):
            log("set-up: fetching the pinned wheels and deps into %s" % a.cache)
        fetch.fetch(a.cache)
        trees = {p: fetch.tree(a.cache, p) for p in fetch.PINS}
        paths = list(trees.values()) + [os.path.join(a.cache, "deps")]
        res = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               **git_commit(), "versions": dict(fetch.PINS), "modes": list(modes), "jobs": a.jobs,
               "timeout_s": a.timeout,
               "models": run_models(chosen, trees, paths, a.jobs, a.timeout, modes)}
        if a.merge_into:
            with open(a.merge_into) as f:
                old = json.load(f)
            if (old.get("server_tree"), old.get("modes")) != (res.get("server_tree"), res.get("modes")):
                raise SystemExit("--merge-into: %s was taken on another server/ tree or other modes" % a.merge_into)
            # the header stays the full run's; the models re-run say when they were
            merged = sorted(set(old.get("merged", [])) | {"%s at %s" % (m["id"], res["commit"]) for m in chosen})
            res = dict(res, commit=old.get("commit"), date=old.get("date"), jobs=old.get("jobs"), merged=merged,
                       models=dict(old["models"], **res["models"]))
        res["totals"] = report.totals(res["models"])
        if a.json:
            os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1, sort_keys=True)
            log("wrote %s" % a.json)
    md = report.render(res)
    print(md)
    if a.lines:
        print(report.lines_md(res, a.lines))
    if a.compare:
        with open(a.compare) as f:
            print(report.compare_md(json.load(f), res))
    if a.update_readme:
        log("README.md: real-model table updated" if report.update_readme(report.readme_md(res)) else
            "README.md has no <!-- realmodels:start --> / <!-- realmodels:end --> markers: nothing written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
