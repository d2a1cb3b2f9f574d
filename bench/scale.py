"""Scale: cold `shapehint check` on generated modules of 1k..16k lines.

Each size runs in a fresh process (`shapehint check FILE --format json --no-cache`, through a two-line
launcher that reports the process's VmHWM at exit): wall time from spawn to exit and the peak RSS. The growth exponent is the least-squares slope of log(time) against log(lines),
Each size runs 3 to 7 times (more for small sizes; every run a fresh process), in interleaved
rounds, and the fastest counts. The exponent is fitted both on the raw times and on the times minus a baseline (the same command on a
two-line module: interpreter start-up and imports), which is the honest one for the engine.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

SIZES = (1000, 2000, 4000, 8000, 16000)


# `python -m shapehint check ...` (the same `entry` as the `shapehint` script, so the process ends
# as the user's does: hard_exit, no heap teardown), reporting the process's own peak RSS
# (VmHWM) on stderr just before it exits. (ru_maxrss would not do: it survives exec, so it
# counts the forked image of this process.)
LAUNCH = ("import sys\n"
          "from shapehint import cli\n"
          "def _hwm_then_exit(code, _exit=cli.hard_exit):\n"
          "    for line in open('/proc/self/status'):\n"
          "        if line.startswith('VmHWM:'):\n"
          "            sys.stderr.write('BENCH_HWM_KB=' + line.split()[1] + '\\n')\n"
          "    _exit(code)\n"
          "cli.hard_exit = _hwm_then_exit\n"
          "cli.entry()\n")


def run_check(path: str, timeout: float = 600.0) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", LAUNCH, "check", path, "--format", "json", "--no-cache"],
                          capture_output=True, timeout=timeout)
    dt = time.perf_counter() - t0
    out = proc.stdout
    hwm = [int(l.split("=")[1]) for l in proc.stderr.decode(errors="replace").splitlines()
           if l.startswith("BENCH_HWM_KB=")]
    ndiag = None
    try:
        ndiag = sum(len(f["diagnostics"]) for f in json.loads(out)["files"])
    except Exception:
        pass
    return {"seconds": dt, "peak_rss_mb": hwm[-1] / 1024 if hwm else None, "exit": proc.returncode,
            "diagnostics": ndiag}


def fit_exponent(xs: list, ys: list) -> float:
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in pts)
    return sxy / sxx


def _repetitions(lines: int, quick: bool) -> int:
    """Small modules take well under a second, so the start-up's jitter is a large share of their
    net time (and of the fit, which weighs every size alike in log space): they get more runs."""
    if quick:
        return 3 if lines <= 2000 else 2
    return 7 if lines <= 2000 else 5 if lines <= 4000 else 3


def run(quick: bool = False, log=print) -> dict:
    """Sizes are measured in rounds (each round runs the baseline and every size once), not one
    size after another: this machine's speed drifts over tens of seconds, and measuring the large
    sizes last let a slow spell tilt the fitted exponent (1.0 to 1.15 on the same commit)."""
    sizes = SIZES[:3] if quick else SIZES
    root = tempfile.mkdtemp(prefix="shapehint-bench-scale-")
    base_path = os.path.join(root, "baseline.py")
    with open(base_path, "w") as f:
        f.write("import torch\nx = torch.zeros(2, 3)\n")
    run_check(base_path)  # warm the file-system cache for the interpreter and packages
    texts, paths = {}, {}
    for n in sizes:
        texts[n] = gen.generate(n, seed=0)
        paths[n] = os.path.join(root, f"gen_{n}.py")
        with open(paths[n], "w") as f:
            f.write(texts[n])
    reps = {n: _repetitions(n, quick) for n in sizes}
    base_reps = 3 if quick else 7
    runs: dict = {n: [] for n in sizes}
    base_runs: list = []
    for rnd in range(max([base_reps] + list(reps.values()))):
        log(f"  scale: round {rnd + 1} ...")
        if rnd < base_reps:
            base_runs.append(run_check(base_path)["seconds"])
        for n in sizes:
            if rnd < reps[n]:
                runs[n].append(run_check(paths[n]))
    base = min(base_runs)
    rows = []
    for n in sizes:
        r = dict(min(runs[n], key=lambda x: x["seconds"]))
        r.update(lines=texts[n].count("\n") + 1, net_seconds=max(r["seconds"] - base, 1e-6), runs=reps[n],
                 all_seconds=[x["seconds"] for x in runs[n]],
                 peak_rss_mb=max((x["peak_rss_mb"] or 0) for x in runs[n]))
        rows.append(r)
    xs = [r["lines"] for r in rows]
    return {"baseline_s": base, "rows": rows,
            "exponent_net": fit_exponent(xs, [r["net_seconds"] for r in rows]),
            "exponent_raw": fit_exponent(xs, [r["seconds"] for r in rows]),
            "memory_exponent": fit_exponent(xs, [r["peak_rss_mb"] or 0 for r in rows])}


if __name__ == "__main__":
    print(json.dumps(run(quick="--quick" in sys.argv), indent=2))
