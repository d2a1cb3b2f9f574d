"""`shapehint run FILE ...`: the CLI glue around `api.device_run`.

The lead's cli.py calls `add_arguments(subparser)` and `main(args)`. Invariants: what is about
to run (file, interpreter, device, entries, inputs) is printed on stderr before anything runs,
so stdout stays one JSON object with `--format json`. Exit status: 0 when the run finished and
no mismatch was found, 1 on a mismatch or a runtime error, 2 on bad usage (unreadable file,
malformed --input/--arg, unknown entry, missing constructor arguments, untrusted).
"""
from __future__ import annotations

import argparse
import json
import sys

from .api import device_run
from .inputs import PlanError, parse_input

USAGE_ERRORS = ("UsageError", "SyntaxError", "Untrusted", "InterpreterNotFound")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="the Python module to run")
    p.add_argument("--entry", metavar="QUALNAME", help="class (Net, Net.forward) or top-level function to run; "
                                                        "default: every nn.Module class and function that can run")
    p.add_argument("--device", choices=["auto", "cuda", "cpu", "meta"], default="auto",
                   help="auto = CUDA when available, else CPU; meta = instant dry run (no data)")
    p.add_argument("--input", action="append", default=[], metavar="NAME=2,3,32,32[:dtype]",
                   help="shape (and dtype: long, bool, float16, ...) of an entry argument; NAME=int:5 for an int")
    p.add_argument("--arg", action="append", default=[], metavar="NAME=EXPR",
                   help="constructor argument, a Python expression evaluated in the module (--arg n_classes=10)")
    p.add_argument("--build", metavar="EXPR",
                   help="a Python expression evaluated in the module that builds the --entry class's instance, "
                        "for a model made by a factory (--entry ResNet --build 'resnet18(num_classes=10)')")
    p.add_argument("--python", default=sys.executable, metavar="INTERPRETER",
                   help="interpreter with torch that runs the module (default: this one)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS", help="time limit (default 120)")
    p.add_argument("--memory-limit", type=int, default=None, metavar="MIB",
                   help="memory limit for the run (default: half of physical memory)")
    p.add_argument("--cell", type=int, metavar="N",
                   help="notebooks: run the code cells up to and including cell N (0-based among all cells, "
                        "as `cell` in the JSON; text output numbers cells from 1); magics are skipped")
    p.add_argument("--format", choices=["text", "json"], default="text")


def main(args) -> int:
    try:
        inputs = dict(parse_input(s) for s in args.input)
        ctor = {}
        for s in args.arg:
            name, eq, expr = s.partition("=")
            if not eq or not name.strip().isidentifier() or not expr.strip():
                raise PlanError(f"--arg {s!r}: expected NAME=EXPR")
            compile(expr, "--arg", "eval")
            ctor[name.strip()] = expr
        build = getattr(args, "build", None)
        if build is not None:
            if not args.entry:
                raise PlanError("--build needs --entry: the class whose forward runs on what it builds")
            if ctor:
                raise PlanError("--build and --arg both say how to build the entry: give one of them")
            compile(build, "--build", "eval")
    except (PlanError, SyntaxError, ValueError) as exc:
        print(f"shapehint run: {exc}", file=sys.stderr)
        return 2
    joined, text = None, None
    if args.file.lower().endswith(".ipynb"):  # the code cells, joined and masked (notebook.py)
        from ..notebook import NotebookError, load
        try:
            joined = load(args.file, upto=args.cell)
        except NotebookError as exc:
            print(f"shapehint run: {args.file}: {exc}", file=sys.stderr)
            return 2
        text = joined.text
    elif getattr(args, "cell", None) is not None:
        print("shapehint run: --cell is for notebooks (.ipynb)", file=sys.stderr)
        return 2
    result = device_run(args.file, text=text, entry=args.entry, device=args.device, inputs=inputs, ctor_args=ctor,
                        build=build,
                        interpreter=args.python, timeout=args.timeout, memory_limit_mb=args.memory_limit,
                        on_start=lambda s: print(s, file=sys.stderr, flush=True))
    if joined is not None:
        from ..notebook import map_run
        map_run(joined, result)
    err = result.get("error")
    if err and err["type"] in USAGE_ERRORS and not result.get("lines"):
        print(f"shapehint run: {err['message']}", file=sys.stderr)
        return 2
    if args.format == "json":
        result = {k: v for k, v in result.items() if k != "process"}
        print(json.dumps(result, indent=1))
    else:
        print(format_text(result))
    return 1 if (err or result.get("mismatches")) else 0


cli_run = main


def format_text(r: dict) -> str:
    from ..notebook import place
    out = [f"device: {r['device']}" + (f" ({r['device_name']})" if r.get("device_name") not in (None, r["device"]) else "")]
    for e in r.get("entries", []):
        if "skipped" in e:
            out.append(f"entry {e['entry']}: skipped: {e['skipped']}")
            continue
        ins = ", ".join(f"{k}={v.get('value', v.get('shape'))}" + (f":{v['dtype']}" if v.get("dtype") not in (None, "float32") else "")
                        for k, v in e.get("inputs", {}).items())
        out.append(f"entry {e['entry']}({ins})" + (f"  [{e['note']}]" if e.get("note") else ""))
        for k, v in e.get("inputs", {}).items():
            if v.get("source") == "inferred":  # say which input was chosen, and why
                out.append(f"  input {k}: {v.get('reason')}")
        if e.get("not_observable"):
            out.append(f"  stopped on meta at line {e['not_observable']['line']} (data-dependent): later lines not observable")
    for it in r.get("lines", []):
        obs = _fmt(it["observed"])
        inf = "" if it["inferred"] is None else f"  inferred {_fmt(it['inferred'])}"
        out.append(f"{place(r['file'], it)}: {it['status']} {it['name']} {obs}{inf}  ({it['function']} @ {it['context']})")
    err = r.get("error")
    if err:
        where = (f"{r['file']}:" + (f"cell {err['cell'] + 1}:" if "cell" in err else "") + f"{err['line']}: "
                 if err.get("line") else "")
        out.append(f"{where}error SH502 {err['type']}: {err['message']}")
        for o in err.get("operands") or []:
            out.append(f"  operand {o['expr']}: {_fmt(o['shape'])} {o['dtype']}")
    s = r.get("summary") or {}
    agree = s.get("agreement")
    out.append(f"summary: {s.get('match', 0)} match, {s.get('mismatch', 0)} mismatch, {s.get('not-inferred', 0)} not inferred, "
               f"{s.get('not-observable', 0)} not observable, {s.get('not_executed', 0)} inferred but not executed"
               + (f"; agreement {agree:.0%}" if agree is not None else ""))
    for n in r.get("notes", []):
        out.append(f"note: {n}")
    if r.get("stdout"):
        out.append("module output (bounded):\n" + r["stdout"].rstrip())
    return "\n".join(out)


def _fmt(shape) -> str:
    return "-" if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"


if __name__ == "__main__":  # python -m shapehint.devicerun.run_command FILE ... (until the lead's cli.py wires it)
    ap = argparse.ArgumentParser(prog="shapehint run")
    add_arguments(ap)
    sys.exit(main(ap.parse_args()))
