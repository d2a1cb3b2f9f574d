"""The code-point column fix walks only statements spanning non-ASCII lines (frontend/parse.py):
it must give every node the columns a whole-tree walk gives, decorators and nested blocks too."""
import ast

from shapehint.frontend.parse import _code_point_columns

PROGRAM = '''
import torch

@decorate("é")
def f(x):
    """A docstring with ü."""
    y = x  # plain
    if True:
        z = "ñ" + "a"
    return y

class C:
    def g(self, s="∑"):
        return s
'''


def _full_walk(tree, lines):
    for node in ast.walk(tree):
        for attr, line_attr in (("col_offset", "lineno"), ("end_col_offset", "end_lineno")):
            col, line = getattr(node, attr, None), getattr(node, line_attr, None)
            if col is not None and line is not None and 1 <= line <= len(lines):
                setattr(node, attr, len(lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace")))


def test_pruned_walk_matches_a_whole_tree_walk():
    lines = PROGRAM.split("\n")
    pruned, full = ast.parse(PROGRAM), ast.parse(PROGRAM)
    _code_point_columns(pruned, lines)
    _full_walk(full, lines)
    assert ast.dump(pruned, include_attributes=True) == ast.dump(full, include_attributes=True)
    s = next(n for n in ast.walk(pruned) if isinstance(n, ast.Constant) and n.value == "a")
    assert (s.col_offset, s.end_col_offset) == (18, 21)  # after "ñ": code points (bytes would give 19)
