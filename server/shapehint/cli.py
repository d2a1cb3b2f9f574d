"""`shapehint check | infer | migrate | holes | branches | run | lsp` (contracts: DESIGN §4).

Exit status: 0 no error diagnostics; 1 an error diagnostic was reported; 2 bad usage or a
path that cannot be read (one line on stderr each, never a traceback).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Iterable, Optional

from . import __version__

DEFAULT_MAX_KB = 2048
# A notebook file carries its outputs (plots as base64): the size cap applies to its code cells,
# and the file itself may be this large.
NOTEBOOK_FILE_MAX_KB = 256 * 1024


class UsageError(Exception):
    pass


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
        from .devicerun import cli as run_cli
        run_cli.add_arguments(r)
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


def entry() -> None:
    """The `shapehint` script and `python -m shapehint`. After an analysis command has written
    its answer, the process ends without tearing its heap down: finalising a large module's
    analysis (a web of cyclic objects) cost 1.4 s of a 16,000-line check's 5.2 s and grew faster
    than the module (bench/scale.py). The operating system reclaims it all at once instead, as
    mypy's `hard_exit` does. `main` itself always returns, for callers in the same process."""
    argv = sys.argv[1:]
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
    try:
        if args.cmd == "check":
            return cmd_check(args)
        if args.cmd == "infer":
            return cmd_infer(args)
        if args.cmd in ("migrate", "branches", "holes"):
            from .questions import cli as qcli
            return qcli.run(args)
        if args.cmd == "run":
            from .devicerun import cli as run_cli
            return run_cli.main(args)
        if args.cmd == "lsp":
            from .lsp.server import main as lsp_main
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


# ---- reading inputs ---------------------------------------------------------------

def load_config_for(path: str):
    try:
        from .config import load_config
    except ImportError:
        return None
    try:
        return load_config(os.path.dirname(os.path.abspath(path)) or ".")
    except Exception as e:  # an invalid pyproject must not stop the check
        sys.stderr.write(f"shapehint: ignoring configuration: {e}\n")
        return None


def read_source(path: str, max_kb: int = DEFAULT_MAX_KB) -> Optional[str]:
    """The file's text; raises UsageError with one clear line; None when over the size cap."""
    if os.path.islink(path) and not os.path.exists(path):
        raise UsageError(f"{path}: broken or looping symbolic link")
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such file")
    if os.path.isdir(path):
        raise UsageError(f"{path}: is a directory (shapehint check accepts directories)")
    try:
        size = os.path.getsize(path)
        if size > max_kb * 1024:
            return None
        with open(path, "rb") as fh:
            data = fh.read()
    except PermissionError:
        raise UsageError(f"{path}: permission denied")
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror or e})")
    if b"\x00" in data[:8192]:
        raise UsageError(f"{path}: looks like a binary file, not Python source")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"{path}: not valid UTF-8 (byte {e.start})")


def expand_paths(paths: Iterable[str], errors: list) -> list:
    out = []
    for p in paths:
        if os.path.isdir(p):
            found = []
            for root, dirs, files in os.walk(p, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("node_modules", "__pycache__"))
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith((".py", ".pyi", ".ipynb"))]
            out.extend(found)
        elif os.path.islink(p) and not os.path.exists(p):
            errors.append(f"{p}: broken or looping symbolic link")
        elif not os.path.exists(p):
            errors.append(f"{p}: no such file or directory")
        else:
            out.append(p)
    return out


def analyze_path(path: str, text: str, config, records: bool = True, functions=None, compile_errors: bool = True):
    from .analysis.api import analyze_source
    result = analyze_source(text, path, config=config, records=records, functions=functions,
                            compile_errors=compile_errors)
    try:
        from .config import apply_config
        result.diagnostics = apply_config(result.diagnostics, text, config)
    except ImportError:
        pass
    return result


def analyze_notebook(path: str, text: str, config, records: bool = True, max_kb: int = DEFAULT_MAX_KB):
    """(result, joined): the notebook's code cells analysed as one module (notebook.py); the
    result's diagnostics are in module lines, `joined` maps them to cells. None when the code
    cells together are over the size cap."""
    from . import notebook
    try:
        joined = notebook.load(path, text)
    except notebook.NotebookError as e:
        raise UsageError(f"{path}: {e}")
    if len(joined.text.encode("utf-8")) > max_kb * 1024:
        return None
    result = analyze_path(path, joined.text, config, records=records)
    result.diagnostics = sorted(notebook.cell_diagnostics(joined) + list(result.diagnostics),
                                key=lambda d: (d.line, d.col))
    return result, joined


# ---- check / infer -----------------------------------------------------------------

def cmd_check(args) -> int:
    from .project.check import run_check
    return run_check(args)


def emit_check(report: list, fmt: str) -> None:
    if fmt == "json":
        json.dump({"files": report}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif fmt == "sarif":
        from .sarif import to_sarif
        json.dump(to_sarif(report), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from .notebook import place
        n = 0
        for f in report:
            for d in f["diagnostics"]:
                n += 1
                sys.stdout.write(f"{place(f['file'], d)}: {d['severity']} {d['code']} {d['message']}\n")
                for r in d["related"]:
                    sys.stdout.write(f"    {place(r.get('file', f['file']), r)}: note: {r['message']}\n")
        errs = sum(d["severity"] == "error" for f in report for d in f["diagnostics"])
        sys.stdout.write(f"{len(report)} file{'s' if len(report) != 1 else ''} checked, {errs} error"
                         f"{'s' if errs != 1 else ''}, {n - errs} other diagnostic{'s' if n - errs != 1 else ''}\n")


def cmd_infer(args) -> int:
    config = load_config_for(args.file)
    is_notebook = args.file.lower().endswith(".ipynb")
    text = read_source(args.file, NOTEBOOK_FILE_MAX_KB if is_notebook else DEFAULT_MAX_KB)
    analysed = analyze_notebook(args.file, text, config) if is_notebook and text is not None else None
    if text is None or (is_notebook and analysed is None):
        raise UsageError(f"{args.file}: larger than the size cap")
    from .project.deps import uses_torch
    result = None
    if is_notebook:
        from .notebook import map_infer
        result, joined = analysed
        data = map_infer(joined, result.infer_json(), args.file)
    elif uses_torch(args.file, text):
        result = analyze_path(args.file, text, config)
        data = result.infer_json()
    else:  # not PyTorch code: no shape analysis (project/deps.py)
        from .analysis.result import AnalysisResult
        data = AnalysisResult(args.file, text).infer_json()
    from .notebook import place
    if args.format == "json":
        from .questions.signatures import signatures_json
        data["signatures"] = signatures_json(result) if result is not None else []
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
    sys.exit(main())
