import ast
import pathlib

from shapehint.analysis.api import analyze_source

PROGRAMS = pathlib.Path(__file__).parent / "programs"


def load(name):
    path = PROGRAMS / name
    text = path.read_text()
    return text, analyze_source(text, str(path))


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
