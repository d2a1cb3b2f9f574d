"""ShapeHint benchmarks: editor latency, scale, and torch.fx side by side.

    python bench/run.py [--quick] [--only latency,scale,peer] [--json bench/results/latest.json]
                        [--update-readme]

Prints Markdown tables and writes every number (and the raw answers) as JSON. With
--update-readme the tables replace what lies between `<!-- perf:start -->` and
`<!-- perf:end -->` in the repository's README.md (printed instead when there is no README
or no markers). What each number means: bench/README.md. Never a test: nothing here asserts
a time.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peer"))

TARGETS = {
    "hover_p99_ms": 5.0,
    "edit_p95_ms": 100.0,
    "start_s": 1.0,
    "rss_mb": 150.0,
    "exponent": 1.1,
    "peer_speedup": 10.0,
    "resnet_constrained_s": 5.0,
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---- machine --------------------------------------------------------------------------------

def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024
    except OSError:
        pass
    versions = {}
    for mod in ("shapehint", "z3", "torch", "pygls"):
        try:
            m = __import__(mod)
            versions[mod] = getattr(m, "__version__", None) or (m.get_version_string() if mod == "z3" else "?")
        except Exception:
            versions[mod] = None
    try:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=5).stdout.strip() or None
        dirty = bool(subprocess.run(["git", "-C", ROOT, "status", "--porcelain"], capture_output=True,
                                    text=True, timeout=5).stdout.strip())
    except Exception:
        commit, dirty = None, None
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_mb": mem, "os": platform.platform(),
            "python": platform.python_version(), "versions": versions, "commit": commit, "dirty": dirty,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


# ---- formatting -----------------------------------------------------------------------------

def f(x, nd=1, unit=""):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{nd}f}{unit}"


def duration(seconds) -> str:
    """Milliseconds under a second (the micro-benchmarks answer in well under one), else seconds."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return "–"
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"


def yes(ok) -> str:
    return "–" if ok is None else ("**met**" if ok else "not met")


def table(head: list, rows: list) -> str:
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(out)


def latency_md(L: dict) -> str:
    h, e, m = L["hover"], L["edit"], L["memory"]
    rows = [
        [f"hover p50 / p95 / p99, warm ({L['module_lines']:,}-line module, {h['n']} requests)",
         f"{f(h['p50_ms'])} / {f(h['p95_ms'])} / {f(h['p99_ms'])} ms", "p99 ≤ 5 ms",
         yes(h["p99_ms"] <= TARGETS["hover_p99_ms"])],
        [f"one-line edit → published diagnostics, p50 / p95 after the {e['debounce_ms']} ms debounce ({e['n']} edits)",
         f"{f(e['p50_ms'], 0)} / {f(e['p95_ms'], 0)} ms", "p95 ≤ 100 ms", yes(e["p95_ms"] <= TARGETS["edit_p95_ms"])],
        ["open → first diagnostics, cold (median)", f"{f(L['open']['median_s'], 2)} s", "–", "–"],
        [f"process start → initialize reply (median of {L['startup']['runs']})", f"{f(L['startup']['median_s'], 2)} s",
         "≤ 1 s", yes(L["startup"]["median_s"] <= TARGETS["start_s"])],
        [f"server RSS, {m['files']} files × {m['lines_each']} lines open and analysed (idle: {f(m['rss_idle_mb'], 0)} MB)",
         f"{f(m['rss_mb'], 0)} MB", "≤ 150 MB", yes(m["rss_mb"] <= TARGETS["rss_mb"])],
    ]
    return table(["editor latency (real stdio server)", "measured", "target", ""], rows)


def scale_md(S: dict) -> str:
    rows = [[f"{r['lines']:,}", f(r["seconds"], 2), f(r["net_seconds"], 2), f(r["peak_rss_mb"], 0),
             r["diagnostics"]] for r in S["rows"]]
    t = table(["lines", "`shapehint check` s (cold)", "minus start-up s", "peak RSS MB", "diagnostics"], rows)
    return (t + f"\n\nGrowth exponent (time ∝ lines^k, least squares): **k = {f(S['exponent_net'], 2)}** "
            f"net of the {f(S['baseline_s'], 2)} s start-up (raw: {f(S['exponent_raw'], 2)}); target ≤ 1.1: "
            f"{yes(S['exponent_net'] <= TARGETS['exponent'])}. Memory grows as lines^{f(S['memory_exponent'], 2)}.")


def peer_md(P: dict) -> str:
    rows = []
    for r in P["rows"]:
        j = r["judgement"] or {}
        if r["kind"] == "Q3" and j:
            s, x = j["shapehint"], j["fx"]
            verdict = (f"ShapeHint {s['right']} right/{s['imprecise']} imprecise/{s['wrong']} wrong/{s['no answer']} none; "
                       f"torch.fx {x['right']}/{x['imprecise']}/{x['wrong']}/{x['no answer']} ({j['truth']})")
        elif j:
            verdict = ("same verdict; " if j["same"] else "") + f"ShapeHint {j['shapehint']}, torch.fx {j['fx']}"
        else:
            verdict = "–"
        cons = ", ".join(r["constraints"]) or "–"
        rows.append([r["benchmark"], r["question"], cons, r["shapehint"]["answer"], duration(r["shapehint"]["seconds"]),
                     r["fx"]["answer"], duration(r["fx"]["seconds"]), f(r["ratio"], 1, "×"), verdict])
    return table(["benchmark", "Q", "constraints", "ShapeHint", "time", "torch.fx", "time", "fx/SH", "who is right (by execution)"],
                 rows)


def targets(res: dict) -> list:
    out = []
    L, S, P = res.get("latency"), res.get("scale"), res.get("peer")
    if L:
        out.append(("hover p99 ≤ 5 ms warm", f"{f(L['hover']['p99_ms'])} ms", L["hover"]["p99_ms"] <= 5))
        out.append(("edit → diagnostics p95 ≤ 100 ms after the debounce", f"{f(L['edit']['p95_ms'], 0)} ms",
                    L["edit"]["p95_ms"] <= 100))
        out.append(("start → initialize ≤ 1 s", f"{f(L['startup']['median_s'], 2)} s", L["startup"]["median_s"] <= 1))
        out.append(("≤ 150 MB with 20 files open", f"{f(L['memory']['rss_mb'], 0)} MB", L["memory"]["rss_mb"] <= 150))
    if S:
        out.append(("growth exponent ≤ 1.1", f(S["exponent_net"], 2), S["exponent_net"] <= 1.1))
    if P:
        rows = [r for r in P["rows"]]
        fast = [r for r in rows if r["ratio"] is not None]
        slow = [r for r in rows if r["ratio"] is None or r["ratio"] < 10]
        worse = [r for r in rows if r["same_or_better"] is False]
        ok = not slow and not worse
        detail = (f"{sum(1 for r in fast if r['ratio'] >= 10)}/{len(rows)} questions ≥ 10× "
                  f"(ratios {', '.join(f(r['ratio'], 1) for r in fast)}); answers worse on "
                  f"{', '.join(r['benchmark'] + ' ' + r['question'] for r in worse) or 'none'}")
        out.append(("≥ 10× faster than torch.fx with same-or-better answers", detail, ok))
        res50 = [r for r in rows if r["benchmark"] == "ResNet-50" and r["question"] == "Q2"]
        if res50 and res50[0]["shapehint"]["seconds"] is not None:
            t = res50[0]["shapehint"]["seconds"]
            out.append(("ResNet-50 under constraints < 5 s", f"{f(t, 2)} s", t < 5))
    return out


def render(res: dict) -> str:
    m = res["machine"]
    parts = [f"Measured {m['date']} with `python bench/run.py{' --quick' if res['quick'] else ''}` on {m['cpu']} "
             f"({m['cores']} cores, {m['memory_mb']} MB), Python {m['python']}, z3 {m['versions'].get('z3')}, "
             f"torch {m['versions'].get('torch')}, commit {m['commit']}{' (with local changes)' if m['dirty'] else ''}."]
    t = targets(res)
    if t:
        parts.append(table(["target", "measured", ""], [[a, b, yes(c)] for a, b, c in t]))
    if res.get("latency"):
        parts.append(latency_md(res["latency"]))
    if res.get("scale"):
        parts.append(scale_md(res["scale"]))
    if res.get("peer"):
        parts.append(peer_md(res["peer"]) + "\n\nAnswers: `static [shape]` = a static migration (one example), "
                     "`none (Dyn: x[1])` = no static migration, dimension 1 of x can only be Dyn; branches "
                     "T/F/D = always-true / always-false / depends, ? = unknown, - = could not run. Times "
                     "exclude imports; under 1 s they are the minimum of up to 100 runs within about 1 s. See bench/README.md.")
    return "\n\n".join(parts)


def update_readme(md: str, path: str = os.path.join(ROOT, "README.md")) -> bool:
    if not os.path.exists(path):
        return False
    text = open(path, encoding="utf-8").read()
    a, b = "<!-- perf:start -->", "<!-- perf:end -->"
    i, j = text.find(a), text.find(b)
    if i < 0 or j < i:
        return False
    new = text[:i + len(a)] + "\n" + md.strip() + "\n" + text[j:]
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(new)
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and sizes (a smoke run)")
    ap.add_argument("--only", default="latency,scale,peer", help="comma-separated: latency,scale,peer")
    ap.add_argument("--json", default=os.path.join(HERE, "results", "latest.json"), help="where to write the JSON")
    ap.add_argument("--update-readme", action="store_true", help="write the tables into README.md's perf markers")
    ap.add_argument("--from-json", metavar="PATH", help="render (and --update-readme) from an earlier run's JSON "
                                                        "instead of measuring")
    a = ap.parse_args(argv)
    if a.from_json:
        res = json.load(open(a.from_json))
        md = render(res)
        print(md)
        if a.update_readme:
            log("README.md: performance table updated" if update_readme(md) else
                "README.md or its perf markers are missing; the table is printed above")
        return 0
    parts = [p.strip() for p in a.only.split(",") if p.strip()]
    bad = [p for p in parts if p not in ("latency", "scale", "peer")]
    if bad:
        ap.error(f"unknown part(s): {', '.join(bad)}")
    res: dict = {"machine": machine(), "quick": a.quick, "parts": parts}
    t0 = time.perf_counter()
    if "latency" in parts:
        log("latency ...")
        import latency
        try:
            res["latency"] = latency.run(quick=a.quick, log=log)
        except Exception as exc:  # the server may be unfinished: report, do not hide the rest
            res["latency_error"] = f"{type(exc).__name__}: {exc}"
            log(f"latency failed: {res['latency_error']}")
    if "scale" in parts:
        log("scale ...")
        import scale
        res["scale"] = scale.run(quick=a.quick, log=log)
    if "peer" in parts:
        log("peer ...")
        import peer
        res["peer"] = peer.run(quick=a.quick, log=log)
    res["total_s"] = time.perf_counter() - t0
    md = render(res)
    print(md)
    if a.json:
        os.makedirs(os.path.dirname(os.path.abspath(a.json)), exist_ok=True)
        with open(a.json, "w") as fh:
            json.dump(res, fh, indent=1, default=str)
        log(f"wrote {a.json} ({res['total_s']:.0f} s in all)")
    if a.update_readme:
        if update_readme(md):
            log("README.md: performance table updated")
        else:
            log("README.md or its perf markers are missing; the table is printed above")
    return 0


if __name__ == "__main__":
    sys.exit(main())
