"""Parsing with error recovery: parso finds what is broken, Python's `ast` is the IR.

parso parses anything (incrementally, with its diff parser, while the user types) and marks
broken code as `error_node`/`error_leaf`. Each broken region is cut back to whole lines and
replaced by a `pass` at its indentation — so the statement that holds the error disappears and
everything around it (the rest of the function, the other methods) parses. The repaired text is
lowered with `ast`; a compile-time error parso does not see (`f() = 1`, `return` outside a
function) is repaired the same way from `ast`'s own report. Lines are never added or removed,
so every position of untouched code is exact; columns are converted from `ast`'s UTF-8 byte
offsets to code points.

Invariants: `parse_module` never raises; `tree` is always a well-formed module; `errors` has one entry per
broken region, in source order. Tests: tests/unit/test_frontend.py.
"""
from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field
from typing import Optional

import parso

MAX_REPAIRS = 64


@dataclass
class SyntaxProblem:
    line: int
    col: int
    end_line: int
    end_col: int
    message: str


@dataclass
class ParsedModule:
    tree: ast.Module
    errors: list = field(default_factory=list)
    comments: dict = field(default_factory=dict)  # line -> trailing comment text (without '#')
    lines: list = field(default_factory=list)


_GRAMMAR = None


def _grammar():
    global _GRAMMAR
    if _GRAMMAR is None:
        _GRAMMAR = parso.load_grammar()
    return _GRAMMAR


def parse_module(text: str, path: Optional[str] = None) -> ParsedModule:
    return _parse(text, path, diff_cache=False)


class IncrementalParser:
    """Re-parses a document after an edit with parso's diff parser (only the changed region)."""

    def parse(self, text: str, path: str) -> ParsedModule:
        return _parse(text, path, diff_cache=True)


def _parse(text: str, path: Optional[str], diff_cache: bool) -> ParsedModule:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", " ")
    lines = text.split("\n")
    # Fast path: most keystrokes leave the file valid, and then `ast` alone is exact and ~20x
    # faster than parso's parse; parso's error recovery is needed only for broken text.
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    if tree is not None:
        _code_point_columns(tree, lines)
        return ParsedModule(tree, [], _comments(text), lines)
    try:
        if diff_cache and path:
            module = _grammar().parse(text, path=path, diff_cache=True, cache=False)
        else:
            module = _grammar().parse(text)
        regions = _error_regions(module)
    except Exception:  # parso itself failed: fall back to ast's own reports below
        regions = []
    errors: list[SyntaxProblem] = []
    fixed = list(lines)
    for (l0, c0, l1, c1, msg) in regions:
        _blank(fixed, l0, _block_end(fixed, l0, l1))
        errors.append(SyntaxProblem(l0, c0, l1, c1, msg))
    tree = None
    for _ in range(MAX_REPAIRS):
        try:
            tree = ast.parse("\n".join(fixed))
            break
        except SyntaxError as e:
            line = max(1, min(e.lineno or 1, len(fixed)))
            start, end = _statement_lines(fixed, line)
            end = _block_end(fixed, start, end)
            indent = _prev_indent(fixed, start) if "indent" in str(e.msg) else None
            if not _blank(fixed, start, end, indent):
                start, end = 1, len(fixed)  # nothing left to cut: give up on the whole text
                _blank(fixed, start, end)
            col = max((e.offset or 1) - 1, 0)
            errors.append(SyntaxProblem(line, col, line, max(col + 1, len(lines[line - 1]) if line <= len(lines) else 0),
                                        f"SyntaxError: {e.msg}"))
    if tree is None:
        tree = ast.Module(body=[], type_ignores=[])
    _code_point_columns(tree, fixed)
    errors.sort(key=lambda p: (p.line, p.col))
    return ParsedModule(tree, _dedupe(errors), _comments("\n".join(fixed)), lines)


def _error_regions(module) -> list:
    """(line, col, end_line, end_col, message) of each error node, outermost only."""
    out = []

    def visit(node):
        t = getattr(node, "type", "")
        if t in ("error_node", "error_leaf"):
            (l0, c0), (l1, c1) = node.start_pos, node.end_pos
            if t == "error_leaf" and node.token_type == "INDENT" or (t == "error_leaf" and not node.value.strip()):
                msg = "SyntaxError: unexpected indentation" if "INDENT" in str(getattr(node, "token_type", "")) \
                    else "SyntaxError: invalid syntax"
            else:
                snippet = node.get_code(include_prefix=False).strip().splitlines()
                first = snippet[0][:40] if snippet else ""
                msg = f"SyntaxError: cannot parse `{first}`" if first else "SyntaxError: invalid syntax"
            if l1 > l0 and c1 == 0:
                l1 -= 1  # the region ends at the start of the next line
            out.append((l0, c0, l1, c1, msg))
            return
        for child in getattr(node, "children", ()):
            visit(child)
    visit(module)
    return out


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


COMPOUND = ("def ", "async def ", "class ", "if ", "elif ", "else", "for ", "async for ", "while ", "with ",
            "async with ", "try", "except", "finally", "@")


def _block_end(lines: list, l0: int, l1: int) -> int:
    """A broken compound-statement header takes its indented block with it."""
    if not (1 <= l0 <= len(lines)) or not lines[l0 - 1].lstrip().startswith(COMPOUND):
        return l1
    base = len(_indent(lines[l0 - 1]))
    end = l1
    for i in range(l1, len(lines)):
        ln = lines[i]
        if ln.strip() and len(_indent(ln)) <= base:
            break
        end = i + 1
    while end > l1 and not lines[end - 1].strip():
        end -= 1
    return end


def _prev_indent(lines: list, line: int) -> str:
    for i in range(line - 2, -1, -1):
        if lines[i].strip():
            ind = _indent(lines[i])
            return ind + "    " if lines[i].rstrip().endswith(":") else ind
    return ""


def _blank(lines: list, l0: int, l1: int, indent: Optional[str] = None) -> bool:
    """Replace lines l0..l1 (1-based) with a `pass` at l0's indentation; False if already blank."""
    l0, l1 = max(1, l0), min(len(lines), l1)
    if l0 > l1:
        return False
    region = lines[l0 - 1:l1]
    if indent is None:
        indent = _indent(next((ln for ln in region if ln.strip()), ""))
    if all(ln.strip() in ("", "pass") for ln in region) and _indent(region[0]) == indent:
        return False
    lines[l0 - 1] = indent + "pass"
    for i in range(l0, l1):
        lines[i] = ""
    return True


def _statement_lines(lines: list, line: int) -> tuple:
    """The lines of the logical statement around `line` (joined by open brackets or backslashes)."""
    start = line
    while start > 1 and (lines[start - 2].rstrip().endswith(("\\", ",", "(", "[", "{"))):
        start -= 1
    end = line
    depth = sum(lines[start - 1].count(o) - lines[start - 1].count(c) for o, c in ("()", "[]", "{}"))
    while depth > 0 and end < len(lines):
        end += 1
        depth += sum(lines[end - 1].count(o) - lines[end - 1].count(c) for o, c in ("()", "[]", "{}"))
    return start, end


def _code_point_columns(tree: ast.AST, lines: list) -> None:
    """ast's columns are UTF-8 byte offsets; ours are code points."""
    cache: dict = {}

    def fix(line, col):
        if line is None or col is None or not (1 <= line <= len(lines)):
            return col
        text = lines[line - 1]
        if text.isascii():
            return col
        key = (line, col)
        if key not in cache:
            cache[key] = len(text.encode("utf-8")[:col].decode("utf-8", "replace"))
        return cache[key]
    for node in ast.walk(tree):
        if getattr(node, "col_offset", None) is not None:
            node.col_offset = fix(node.lineno, node.col_offset)
        if getattr(node, "end_col_offset", None) is not None:
            node.end_col_offset = fix(node.end_lineno, node.end_col_offset)


def _comments(text: str) -> dict:
    out = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.string[1:].strip()
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return out


def _dedupe(errors: list) -> list:
    seen, out = set(), []
    for e in errors:
        if e.line not in seen:
            seen.add(e.line)
            out.append(e)
    return out
