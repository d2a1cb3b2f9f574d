"""`shapehint check | infer | migrate | holes | branches | run | lsp` (contracts: DESIGN §4).

Exit status: 0 no error diagnostics; 1 an error diagnostic was reported; 2 bad usage or a
path that cannot be read (one line on stderr each, never a traceback).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Optional

from . import __version__, gc_policy
# Re-exported: the commands' input reading lives in sources.py (below the commands that share it).
from .sources import (DEFAULT_MAX_KB, NOTEBOOK_FILE_MAX_KB, UsageError, analyze_notebook,  # noqa: F401
                      analyze_path, expand_paths, load_config_for, read_source)

class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one clear line, exit 2
        sys.stderr.write(f"shapehint: {message}\n(see `shapehint {self.prog.split()[-1]} --help`)\n"
                         if " " in self.prog else f"shapehint: {message}\n")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="shapehint", description="Symbolic tensor shapes for PyTorch code.")
    p.add_argument("--version", action="version", version=f"shapehint {__version__}")
    sub = p.add_subparsers(dest="cmd", parser_class=_Parser)
    c = sub.add_parser("check", help="report provable shape errors and warnings")
    c.add_argument("paths", nargs="+")
    c.add_argument("--format", choices=["text", "json", "sarif"], default="text")
    _add_repository_options(c)
    i = sub.add_parser("infer", help="print the inferred shape of every tensor-valued name")
    i.add_argument("file")
    i.add_argument("--format", choices=["json", "text"], default="json")
    for name, helptext in (("migrate", "static migration (Q1/Q2)"), ("branches", "shape-dependent branches (Q3)")):
        q = sub.add_parser(name, help=helptext)
        q.add_argument("file")
        q.add_argument("--assume", action="append", default=[], metavar="EXPR")
        q.add_argument("--format", choices=["json", "text"], default="text")
        q.add_argument("--function", metavar="QUALNAME",
                       help="only this function (e.g. Net.forward)" if name == "migrate" else
                       "only the branches this function reaches, for its inputs (e.g. Net.forward)")
    h = sub.add_parser("holes", help="values of shape holes (__)")
    h.add_argument("file")
    h.add_argument("--format", choices=["json", "text"], default="text")
    r = sub.add_parser("run", help="execute the module and compare observed shapes with inferred ones")
    try:
        from .devicerun import run_command
        run_command.add_arguments(r)
    except ImportError:
        r.add_argument("file")
    sub.add_parser("lsp", help="start the language server on stdio")
    return p


def _add_repository_options(c) -> None:
    """check's options for whole repositories (project/check.py)."""
    from .project.analyse import DEFAULT_BUDGET_S
    c.add_argument("--jobs", type=_positive_int, metavar="N", help="worker processes (default: the number of cores)")
    c.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    c.add_argument("--cache-dir", metavar="DIR", help="the cache folder (default: .shapehint_cache in the project root)")
    c.add_argument("--quiet", action="store_true", help="no progress on stderr")
    c.add_argument("--statistics", action="store_true",
                   help="files, time, cache hits and the slowest files on stderr")
    c.add_argument("--timings", metavar="FILE",
                   help="write each file's fate as JSON: analysis seconds by path, and the files skipped or cached")
    c.add_argument("--time-budget", type=float, default=DEFAULT_BUDGET_S, metavar="SECONDS",
                   help=f"per-file analysis time before it stops with an SH005 note (default {DEFAULT_BUDGET_S:g}; 0: none)")
    c.add_argument("--worker-memory-mb", type=_positive_int, metavar="MB",
                   help="a worker whose memory passes this after a file is replaced by a fresh one")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


# Commands whose process ends holding a whole analysis: see `entry`.
HARD_EXIT_COMMANDS = {"check", "infer", "migrate", "branches", "holes"}


# One file's analysis and its questions, in a process of its own: see `entry`.
ONE_FILE_COMMANDS = {"infer", "migrate", "branches", "holes"}


def entry() -> None:
    """The `shapehint` script, `python -m shapehint` and `python -m shapehint.cli`. A one-file
    command runs with the cyclic collector paused throughout (gc_policy.py pauses it only inside
    each analysis): the signatures and rank searches that follow the analysis allocate enough to
    trigger collections that walk the whole live analysis again and again — about a third of
    `infer`'s CPU on a transformers modeling file — while the cyclic garbage they leave is tens of
    MB at most (referee files: peak +3 % median, +55 MB at most, 212 MB), and the process ends
    right after. After an analysis command has written its answer, the process ends without
    tearing its heap down: finalising a large module's
    analysis (a web of cyclic objects) cost 1.4 s of a 16,000-line check's 5.2 s and grew faster
    than the module (bench/scale.py). The operating system reclaims it all at once instead, as
    mypy's `hard_exit` does. `main` itself always returns, for callers in the same process."""
    argv = sys.argv[1:]
    if argv and argv[0] in ONE_FILE_COMMANDS:
        with gc_policy.paused():
            code = main(argv)
    else:
        code = main(argv)
    if argv and argv[0] in HARD_EXIT_COMMANDS:
        hard_exit(code)
    sys.exit(code)


def hard_exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or a closed stream: nothing to add
            pass
    os._exit(code)


def main(argv: Optional[list] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.cmd is None:
        build_parser().print_help()
        return 2
    from .dependencies import problem
    lacking = problem(args.cmd)
    if lacking:
        sys.stderr.write(f"shapehint: {lacking}\n")
        return 2
    try:
        if args.cmd == "check":
            return cmd_check(args)
        if args.cmd == "infer":
            return cmd_infer(args)
        if args.cmd in ("migrate", "branches", "holes"):
            from .questions import question_commands
            return question_commands.run(args)
        if args.cmd == "run":
            from .devicerun import run_command
            return run_command.main(args)
        if args.cmd == "lsp":
            from .lsp.handlers import main as lsp_main
            lsp_main()
            return 0
    except UsageError as e:
        sys.stderr.write(f"shapehint: {e}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `shapehint check . | head`
        sys.stderr.close()
        return 0
    return 2


# ---- check / infer -----------------------------------------------------------------

def cmd_check(args) -> int:
    from .project.check import run_check
    return run_check(args)


def cmd_infer(args) -> int:
    config = load_config_for(args.file)
    is_notebook = args.file.lower().endswith(".ipynb")
    text = read_source(args.file, NOTEBOOK_FILE_MAX_KB if is_notebook else DEFAULT_MAX_KB)
    analysed = analyze_notebook(args.file, text, config) if is_notebook and text is not None else None
    if text is None or (is_notebook and analysed is None):
        raise UsageError(f"{args.file}: larger than the size cap")
    from .project.deps import uses_torch
    session = None  # None: not PyTorch code, no shape analysis and so no signatures (project/deps.py)
    if is_notebook:
        from .notebook import map_infer
        session, joined = analysed
        data = map_infer(joined, session.result.infer_json(), args.file)
    elif uses_torch(args.file, text):
        session = analyze_path(args.file, text, config)
        data = session.result.infer_json()
    else:
        from .analysis.result import AnalysisResult
        data = AnalysisResult(args.file, text).infer_json()
    from .notebook import place
    if args.format == "json":
        from .questions.signatures import signatures_json
        data["signatures"] = signatures_json(session) if session is not None else []
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for v in data["values"]:
            shape = "?" if v["shape"] is None else "[" + ", ".join(map(str, v["shape"])) + "]"
            sys.stdout.write(f"{place(args.file, v)}: {v['function']}: {v['name']} = Tensor{shape}\n")
        for d in data["diagnostics"]:
            sys.stdout.write(f"{place(args.file, d)}: {d['severity']} {d['code']} {d['message']}\n")
    return 1 if any(d["severity"] == "error" for d in data["diagnostics"]) else 0


if __name__ == "__main__":
    entry()
