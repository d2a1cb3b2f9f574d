"""Do two versions of the analyser give byte-identical answers on the referee's model files?

    python bench/same_answers.py record DIR [--server PATH] [--only SUBSTR,...]
    python bench/same_answers.py diff DIR_A DIR_B

Performance work must not change what any analysis answers (issue 23/28). `record` runs
`shapehint.cli infer FILE --format json` on every distinct model file of bench/realmodels/models.py
(analysed in place, one process per file, like the referee) with the given server tree on
PYTHONPATH, and writes each output, its exit status, its CPU seconds (user+sys of the child, less
noisy than wall time on a shared machine) and its peak memory under DIR. `diff` compares two such records byte by
byte and prints the CPU time of each file side by side; it exits 1 when any answer differs.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "realmodels"))
TREES = os.path.expanduser("~/.cache/shapehint/realmodels/trees")


def files(only: list[str]) -> list[str]:
    from models import MODELS
    paths = sorted({os.path.join(TREES, m["package"], m["file"]) for m in MODELS})
    return [p for p in paths if not only or any(o in p for o in only)]


def name(path: str) -> str:
    return os.path.relpath(path, TREES).replace("/", "__")


def record(out: str, server: str, only: list[str]) -> None:
    os.makedirs(out, exist_ok=True)
    from pipeline import compile_server
    compile_server(server)  # the CPU times are the analyses', not the first imports' (pipeline.py)
    times, peaks = {}, {}
    for path in files(only):
        with open(os.path.join(out, name(path) + ".out"), "w") as f:
            p = subprocess.Popen([sys.executable, "-m", "shapehint.cli", "infer", path, "--format", "json"],
                                 stdout=f, stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=server))
            _, status, use = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
        times[name(path)] = round(use.ru_utime + use.ru_stime, 2)
        peaks[name(path)] = use.ru_maxrss // 1024
        with open(os.path.join(out, name(path) + ".exit"), "w") as f:
            f.write("exit %d\n" % p.returncode)
        print("%7.2f s %5d MB  %s" % (times[name(path)], peaks[name(path)], name(path)), flush=True)
    with open(os.path.join(out, "cpu.json"), "w") as f:
        json.dump(times, f, indent=1, sort_keys=True)
    with open(os.path.join(out, "peak_mb.json"), "w") as f:
        json.dump(peaks, f, indent=1, sort_keys=True)


def diff(a: str, b: str) -> int:
    ta, tb = (json.load(open(os.path.join(d, "cpu.json"))) for d in (a, b))
    bad = 0
    for key in sorted(set(ta) & set(tb)):
        same = all(open(os.path.join(a, key + ext)).read() == open(os.path.join(b, key + ext)).read()
                   for ext in (".out", ".exit") if os.path.exists(os.path.join(a, key + ext)))
        bad += not same
        print("%7.2f %7.2f  %s  %s" % (ta[key], tb[key], "same" if same else "DIFFERENT", key))
    common = sorted(set(ta) & set(tb))
    if common:
        med = lambda t: sorted(t[k] for k in common)[len(common) // 2]
        print("total CPU %.1f -> %.1f s; median %.2f -> %.2f s; %d of %d answers differ"
              % (sum(ta[k] for k in common), sum(tb[k] for k in common), med(ta), med(tb), bad, len(common)))
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("dir")
    r.add_argument("--server", default=os.path.join(ROOT, "server"))
    r.add_argument("--only", default="")
    d = sub.add_parser("diff")
    d.add_argument("a")
    d.add_argument("b")
    args = ap.parse_args()
    if args.cmd == "record":
        record(args.dir, os.path.abspath(args.server), [o for o in args.only.split(",") if o])
        return 0
    return diff(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
