import ast
import pathlib

from shapehint.analysis.api import analyze_session

PROGRAMS = pathlib.Path(__file__).parent / "programs"


def load(name):
    """(text, the AnalysisSession of the program)."""
    path = PROGRAMS / name
    text = path.read_text()
    return text, analyze_session(text, str(path))


def line_of(text, needle, start=1):
    for i, line in enumerate(text.splitlines(), 1):
        if i >= start and needle in line:
            return i
    raise AssertionError(f"{needle!r} not in program")


def namespace(text, **extra):
    """Execute a program's definitions (not its module-level run) and return its namespace."""
    tree = ast.parse(text)
    tree.body = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom, ast.ClassDef, ast.FunctionDef))]
    ns = dict(extra)
    exec(compile(tree, "<program>", "exec"), ns)
    return ns


def branch_outcomes(call, if_line: int, body_line: int) -> set:
    """The outcomes (True/False) the `if` on `if_line` of a `namespace` program takes while
    `call()` runs: its line counted more often than its first body line means a false outcome."""
    import sys
    counts: dict = {}

    def local(frame, event, arg):
        if event == "line":
            counts[frame.f_lineno] = counts.get(frame.f_lineno, 0) + 1
        return local

    def glob(frame, event, arg):
        return local if frame.f_code.co_filename == "<program>" else None
    sys.settrace(glob)
    try:
        call()
    finally:
        sys.settrace(None)
    n_if, n_true = counts.get(if_line, 0), counts.get(body_line, 0)
    return ({True} if n_true else set()) | ({False} if n_if > n_true else set())
