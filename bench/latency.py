"""Editor latency through the real stdio server (`python -m shapehint lsp`).

Measures, on generated modules (bench/gen.py):
  start_s       process spawn -> `initialize` reply (fresh process each time)
  open_s        `didOpen` of the 2,000-line module -> its first publishDiagnostics (fresh server)
  hover_ms      hover round trips on tensor names, warm (the document's analysis is done)
  edit_ms       one-line `didChange` inside one forward -> publishDiagnostics for that version;
                reported raw and minus the server's debounce
  rss_mb        server RSS once 20 files (500 lines each) are open and analysed
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402
from lsp_client import LspClient  # noqa: E402

DEBOUNCE_MS = 250  # the server's default; set explicitly so "after the debounce" is exact


def pct(xs: list, p: float) -> float:
    """Nearest-rank percentile."""
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


def _env() -> dict:
    return {"SHAPEHINT_DEBOUNCE_MS": str(DEBOUNCE_MS), "PYTHONUNBUFFERED": "1"}


def _start(root: str) -> tuple[LspClient, float]:
    c = LspClient(env=_env(), cwd=root)
    t = c.initialize(root)
    return c, t


def _open(c: LspClient, path: Path, text: str, version: int = 1) -> tuple[float, list]:
    uri = path.as_uri()
    mark = c.mark()
    t0 = c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                            "version": version, "text": text}})
    t1, _, p = c.wait_notification(lambda m, p: m == "textDocument/publishDiagnostics" and p["uri"] == uri
                                   and p.get("version") in (version, None), start=mark)
    return t1 - t0, p["diagnostics"]


def measure_startup(root: str, runs: int) -> dict:
    times = []
    for _ in range(runs):
        c, t = _start(root)
        times.append(t)
        c.close()
    return {"runs": runs, "median_s": statistics.median(times), "max_s": max(times), "all_s": times}


def measure_open(root: str, text: str, runs: int) -> dict:
    times, ndiag = [], None
    for i in range(runs):
        c, _ = _start(root)
        path = Path(root) / f"open_{i}.py"
        path.write_text(text)
        t, diags = _open(c, path, text)
        times.append(t)
        ndiag = len(diags)
        c.close()
    return {"runs": runs, "lines": text.count("\n") + 1, "median_s": statistics.median(times),
            "max_s": max(times), "all_s": times, "diagnostics": ndiag}


def measure_hover_and_edit(root: str, text: str, hovers: int, edits: int) -> dict:
    c, _ = _start(root)
    try:
        path = Path(root) / "latency_main.py"
        path.write_text(text)
        uri = path.as_uri()
        _open(c, path, text)
        targets = gen.hover_targets(text, limit=400)
        # warm-up: a few hovers (first-use imports of the hover feature)
        for ln, col in targets[:5]:
            c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": ln, "character": col}})
        hov, empty = [], 0
        for k in range(hovers):
            ln, col = targets[k % len(targets)]
            dt, msg = c.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                       "position": {"line": ln, "character": col}})
            hov.append(dt * 1000)
            if not msg.get("result"):
                empty += 1
        line_no, good, bad = gen.edit_target(text)
        cur = good
        version = 1
        edit_ms, diag_counts = [], []
        for k in range(edits):
            new = bad if cur == good else good
            version += 1
            if c.sync_kind == 2:
                change = {"range": {"start": {"line": line_no, "character": 0},
                                    "end": {"line": line_no, "character": len(cur)}}, "text": new}
            else:
                lines = text.split("\n")
                lines[line_no] = new
                change = {"text": "\n".join(lines)}
            mark = c.mark()
            t0 = c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [change]})
            v = version
            t1, _, p = c.wait_notification(lambda m, p: m == "textDocument/publishDiagnostics"
                                           and p["uri"] == uri and p.get("version") == v, start=mark)
            edit_ms.append((t1 - t0) * 1000)
            diag_counts.append(sum(1 for d in p["diagnostics"] if d.get("severity") == 1))
            cur = new
            time.sleep(0.05)
        after = [x - DEBOUNCE_MS for x in edit_ms]
        return {
            "hover": {"n": len(hov), "empty": empty, "p50_ms": pct(hov, 50), "p95_ms": pct(hov, 95),
                      "p99_ms": pct(hov, 99), "max_ms": max(hov) if hov else float("nan")},
            "edit": {"n": len(edit_ms), "debounce_ms": DEBOUNCE_MS,
                     "raw_p50_ms": pct(edit_ms, 50), "raw_p95_ms": pct(edit_ms, 95),
                     "p50_ms": pct(after, 50), "p95_ms": pct(after, 95),
                     "errors_seen": sorted(set(diag_counts)),
                     "edit_line": line_no + 1},
        }
    finally:
        c.close()


def measure_memory(root: str, files: int, lines: int) -> dict:
    c, _ = _start(root)
    try:
        rss0, _ = c.rss_kb()
        opened = []
        for i in range(files):
            text = gen.generate(lines, seed=100 + i)
            path = Path(root) / f"mem_{i:02d}.py"
            path.write_text(text)
            opened.append((path, text))
        t0 = time.perf_counter()
        mark = c.mark()
        for path, text in opened:
            c.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "python",
                                                               "version": 1, "text": text}})
        pending = {p.as_uri() for p, _ in opened}
        while pending:
            _, idx, p = c.wait_notification(lambda m, p: m == "textDocument/publishDiagnostics"
                                            and p["uri"] in pending, start=mark)
            pending.discard(p["uri"])
        t_all = time.perf_counter() - t0
        rss, hwm = c.rss_kb()
        return {"files": files, "lines_each": lines, "rss_idle_mb": rss0 / 1024, "rss_mb": rss / 1024,
                "peak_mb": hwm / 1024, "analyse_all_s": t_all}
    finally:
        c.close()


def run(quick: bool = False, log=print) -> dict:
    root = tempfile.mkdtemp(prefix="shapehint-bench-lat-")
    text = gen.generate(2000, seed=1)
    out: dict = {"module_lines": text.count("\n") + 1}
    log("  latency: start-up ...")
    out["startup"] = measure_startup(root, 3 if quick else 5)
    log("  latency: open -> first diagnostics (cold) ...")
    out["open"] = measure_open(root, text, 1 if quick else 3)
    log("  latency: hover and edit ...")
    out.update(measure_hover_and_edit(root, text, hovers=100 if quick else 1000, edits=4 if quick else 20))
    log("  latency: memory with 20 files open ...")
    out["memory"] = measure_memory(root, files=20, lines=500)
    return out


if __name__ == "__main__":
    import json
    print(json.dumps(run(quick="--quick" in sys.argv), indent=2))
