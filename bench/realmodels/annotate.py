"""Annotated mode: a temporary tree where the entry's `forward` starts with shape assertions.

The copy is a symlink farm: only the directories on the way to the model file are real, every
sibling is a link to the original, and the model file is rewritten with ONE inserted line
(`assert x.shape == (2, 3, 64, 64); assert ...`) before the first statement of the entry's
`forward` (after its docstring). So imports resolve exactly as in the shipped tree, the copy
costs a few hundred links, and the answer's lines map back by one (`line_map`).
"""
from __future__ import annotations

import ast
import importlib.util
import os


def server_file(module: str, *parts: str):
    """A file of this tree's server/shapehint loaded by path (no install): `parts` under it."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "server", "shapehint", *parts)
    spec = importlib.util.spec_from_file_location(module, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ShapeHint's one parse function: CPython 3.11 can fail `ast.parse` run in two threads at once
# ("SystemError: AST constructor recursion depth mismatch"), and its lock is the process's, shared
# with the builders' reading however each loaded it (server/shapehint/frontend/pyast.py)
_PYAST = server_file("_shapehint_pyast", "frontend", "pyast.py")
PARSE_LOCK = _PYAST.LOCK  # re-entrant: held around a longer read that parses inside it
parse = _PYAST.parse


def assertion_line(source: str, entry: str, inputs: dict):
    """(line number to insert at, text of the line) or (None, why not)."""
    tree = parse(source)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == entry), None)
    if cls is None:
        return None, "no class %s in the file" % entry
    fwd = next((n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "forward"),
               None)
    if fwd is None:
        return _inherited_forward(cls, inputs)
    params = {a.arg for a in fwd.args.args + fwd.args.kwonlyargs}
    names = [n for n in inputs if n in params]
    if not names:
        return None, "none of the inputs %s is a parameter of %s.forward" % (sorted(inputs), entry)
    body = fwd.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str) \
            and len(body) > 1:
        first = body[1]
    if first.lineno == fwd.lineno:
        return None, "%s.forward has its body on the def line" % entry
    indent = " " * first.col_offset
    text = indent + _asserts(inputs, names)
    return first.lineno, text


def _asserts(inputs: dict, names: list) -> str:
    return "; ".join("assert %s.shape == (%s)" % (n, ", ".join(str(d) for d in inputs[n]["shape"]) +
                                                  ("," if len(inputs[n]["shape"]) == 1 else ""))
                     for n in names)


def _inherited_forward(cls, inputs: dict):
    """An entry that inherits `forward` from an imported class (timm's
    `VisionTransformerDistilled(VisionTransformer)`) gets ONE line at the end of its body: a
    `forward` that asserts the inputs and hands them on, by keyword as the benchmark passes
    them (`execute.py` calls `model(**inputs)`)."""
    last = cls.body[-1]
    if last.end_lineno == cls.lineno:
        return None, "%s has its body on the class line" % cls.name
    names = list(inputs)
    keywords = ", ".join("%s=%s" % (n, n) for n in names)
    text = " " * cls.body[0].col_offset + "def forward(self, *args, %s, **kwargs): %s; return super().forward(" \
        "*args, %s, **kwargs)" % (", ".join(names), _asserts(inputs, names), keywords)
    return last.end_lineno + 1, text


def insert(source: str, line: int, text: str) -> str:
    lines = source.splitlines(keepends=True)
    return "".join(lines[:line - 1] + [text + "\n"] + lines[line - 1:])


def line_map(inserted_at: int | None):
    """Answer line in the copy -> line in the shipped file (None for the inserted line)."""
    if inserted_at is None:
        return lambda n: n
    return lambda n: n if n is None or n < inserted_at else (None if n == inserted_at else n - 1)


def symlink_tree(tree: str, rel_file: str, dest: str, text: str) -> str:
    """Make `dest` a view of `tree` where `rel_file` has the content `text`; the new file's path."""
    parts = rel_file.split("/")
    src_dir, dst_dir = tree, dest
    os.makedirs(dst_dir, exist_ok=True)
    for i, part in enumerate(parts):
        for name in os.listdir(src_dir):
            if name != part and not os.path.lexists(os.path.join(dst_dir, name)):
                os.symlink(os.path.join(src_dir, name), os.path.join(dst_dir, name))
        if i == len(parts) - 1:
            path = os.path.join(dst_dir, part)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return path
        src_dir, dst_dir = os.path.join(src_dir, part), os.path.join(dst_dir, part)
        os.makedirs(dst_dir, exist_ok=True)
    raise ValueError("empty file path")
