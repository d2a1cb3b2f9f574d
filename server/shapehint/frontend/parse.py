"""Parsing with error recovery: parso finds what is broken, Python's `ast` is the IR.

parso parses anything (incrementally, with its diff parser, while the user types) and marks
broken code as `error_node`/`error_leaf`. Each broken region is cut back to whole statements and
blanked (see `repair`) — so the statement that holds the error disappears and everything around
it (the rest of the function, the other methods) parses. A region CPython accepts on its own is
not cut (parso's grammar lags CPython's: `match`, parenthesised `with` items), and after an
unclosed bracket parso's later regions are ignored; CPython's own reports, one reparse per
remaining error, decide those. The repaired text is lowered with
`ast`, which makes valid code lower *exactly* as `ast.parse` does, f-strings and all. Errors that
only the compiler sees (`f() = 1`, `return` outside a function, a duplicate parameter) are
repaired the same way from CPython's own report, so `compile(tree, ...)` always accepts the tree.

Source written for a newer Python than the host's (PEP 695 type parameters, PEP 701 f-strings,
...) is rewritten in place before `ast` or parso sees it (`newsyntax`), so it parses too.

Invariants: `parse_module` never raises; `tree` is always a module `compile` accepts; lines are
never added or removed, so every position of untouched code is exact; columns are Unicode code
points (converted from `ast`'s UTF-8 byte offsets); `errors` are in source order, at most one per
line; a dropped statement leaves no node behind unless its block would otherwise be empty (then
a `pass` on its first line). Tests: tests/unit/test_frontend.py, tests/unit/test_frontend_props.py.
"""
from __future__ import annotations

import ast
import bisect
import re
import warnings
from dataclasses import dataclass, field
from typing import Optional

import parso

from . import newsyntax, repair
from .pyast import LOCK as PARSE_LOCK, parse as parse_ast

MAX_REPAIRS = 64
KEEP_TREES = 4  # documents whose last tree IncrementalParser keeps for splicing


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
    errors: list = field(default_factory=list)     # [SyntaxProblem], source order
    comments: dict = field(default_factory=dict)   # line -> comment text on that line (without '#', stripped)
    lines: list = field(default_factory=list)      # the source lines (newlines normalised to "\n")


_GRAMMAR = None


def _grammar():
    global _GRAMMAR
    if _GRAMMAR is None:
        _GRAMMAR = parso.load_grammar()
    return _GRAMMAR


def parse_module(text: str, path: Optional[str] = None, compile_errors: bool = True) -> ParsedModule:
    """`compile_errors=False`: valid syntax is all that is checked — not the errors only CPython's
    compiler finds (`return` outside a function, `break` outside a loop), whose second pass over
    the tree costs a third of the parse. For callers that print no diagnostics (the questions)."""
    return _parse(text, path, diff_cache=False, compile_errors=compile_errors)


class IncrementalParser:
    """Re-parses a document after an edit: valid text re-parses only the touched top-level
    statements (`splice`); broken text goes through parso's diff parser (only the changed region)."""

    def __init__(self):
        # One grammar for all documents; parso keeps each path's last tree for its diff parser.
        self.grammar = _grammar()
        # path -> the last ParsedModule without errors (trees are never mutated), for the few
        # documents edited last: a 500-line tree is ~1 MB, and only the edited file needs one
        self._last: dict = {}

    def parse(self, text: str, path: str) -> ParsedModule:
        from .splice import splice
        norm = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", " ")
        old = self._last.get(path)
        out = None
        if old is not None and not norm.startswith("\ufeff"):
            out = splice(old, norm.split("\n"), _compile, _code_point_columns, _comments)
        if out is None:
            out = _parse(text, path, diff_cache=True)
        self._last.pop(path, None)
        if not out.errors:
            self._last[path] = out
            while len(self._last) > KEEP_TREES:
                del self._last[next(iter(self._last))]
        return out

    def forget(self, path: str) -> None:
        self._last.pop(path, None)


def _parse(text: str, path: Optional[str], diff_cache: bool, compile_errors: bool = True) -> ParsedModule:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", " ")
    if text.startswith("\ufeff"):  # CPython rejects a BOM in a str: parse without it, shift line 1
        return _shift_first_line(_parse_normalised(text[1:], path, diff_cache, compile_errors))
    return _parse_normalised(text, path, diff_cache, compile_errors)


def _shift_first_line(p: ParsedModule) -> ParsedModule:
    for node in ast.walk(p.tree):
        if getattr(node, "lineno", None) == 1:
            node.col_offset += 1
        if getattr(node, "end_lineno", None) == 1:
            node.end_col_offset += 1
    for e in p.errors:
        e.col, e.end_col = e.col + (e.line == 1), e.end_col + (e.end_line == 1)
    p.lines[0] = "\ufeff" + p.lines[0]
    return p


def _parse_normalised(text: str, path: Optional[str], diff_cache: bool, compile_errors: bool = True) -> ParsedModule:
    lines = text.split("\n")
    # Fast path: most keystrokes leave the file valid, and then `ast` alone is exact and ~20x
    # faster than parso's parse; parso's error recovery is needed only for broken text.
    tree, _ = _compile(text, compile_errors)
    source = text
    if tree is None:  # syntax newer than the host's (PEP 695, 701, ...), rewritten in place
        source = newsyntax.mask(text)
        if source is not text:
            tree, _ = _compile(source, compile_errors)
    if tree is not None:
        newsyntax.restore(tree, text, source)
        if not text.isascii():  # (one scan of the text; the per-line test is for repaired text)
            _code_point_columns(tree, source.split("\n") if source is not text else lines)
        return ParsedModule(tree, [], _comments(text), lines)
    fixed, errors, placeholders = source.split("\n"), [], set()
    # parso 0.8.7 rejects PEP 695 in every grammar: it gets those masked whatever the host
    _cut_parso_regions(newsyntax.mask(source, for_parso=True), path, diff_cache, fixed, errors, placeholders)
    tree = _repair_loop(lines, fixed, errors, placeholders)
    newsyntax.restore(tree, text, source)
    repair.drop_placeholders(tree, placeholders)
    _code_point_columns(tree, fixed)
    errors.sort(key=lambda p: (p.line, p.col))
    return ParsedModule(tree, _dedupe(errors), _comments("\n".join(fixed)), lines)


def _compile(text: str, compile_errors: bool = True):
    """(tree, None) when CPython accepts the text — parser and compiler both, or the parser alone
    without `compile_errors` — else (None, error)."""
    try:
        with warnings.catch_warnings(), PARSE_LOCK:  # SyntaxWarnings turned into errors must not drop valid code
            warnings.simplefilter("ignore")
            tree = parse_ast(text)  # (the lock held on through `compile`: it reads the tree under the same count)
            if compile_errors:
                compile(tree, "<shapehint>", "exec", dont_inherit=True)
        return tree, None
    except SyntaxError as e:
        return None, e
    except (ValueError, TypeError, RecursionError, MemoryError) as e:  # too deep / too big: no line to cut
        return None, SyntaxError(f"cannot parse: {type(e).__name__}")


def _cut_parso_regions(text, path, diff_cache, fixed, errors, placeholders) -> None:
    try:
        if diff_cache and path:
            module = _grammar().parse(text, path=path, diff_cache=True, cache=False)
        else:
            module = _grammar().parse(text)
        regions = repair.error_regions(module)
    except Exception:  # parso itself failed: the repair loop works from CPython's reports alone
        return
    _cut_regions(regions, fixed, errors, placeholders)


def _cut_regions(regions, fixed, errors, placeholders) -> None:
    """Cut parso's regions in order. After an unclosed bracket or string parso reads the rest of
    the file as its continuation, so its later regions are noise: CPython's repair loop (a
    reparse per remaining error, ~10x cheaper than parso's) takes over from there."""
    cut_until = 0
    for (l0, c0, l1, c1, fallback) in regions:
        if l0 <= cut_until:
            continue  # inside a statement already cut: the same problem
        trimmed = repair.trim_region(fixed, l0, l1)
        end = repair.block_end(fixed, l0, trimmed)
        message, accepted = repair.describe(fixed, l0, end, fallback)
        if accepted:  # not broken on its own: the repair loop asks CPython about it in context
            cut_until = max(cut_until, end)
            continue
        stop = trimmed < l1 or any(w in message for w in ("never closed", "unterminated", "does not match"))
        cut_until = max(cut_until, end)
        if l1 > end:
            l1, c1 = end, len(fixed[end - 1])
        elif (l1, c1) == (l0, c0) and l0 <= len(fixed):
            c1 = len(fixed[l0 - 1])  # an empty region (a bad indent) still needs a visible range
        if repair.blank(fixed, l0, end):
            placeholders.add(l0)
        errors.append(SyntaxProblem(l0, c0, l1, c1, message))
        if stop:
            return


def _repair_loop(lines, fixed, errors, placeholders) -> ast.Module:
    """Cut whatever CPython still rejects, one statement at a time."""
    for _ in range(MAX_REPAIRS):
        tree, e = _compile("\n".join(fixed))
        if tree is not None:
            return tree
        line = e.lineno if e.lineno and 1 <= e.lineno <= len(fixed) else None
        if line is None:
            break
        start, end = repair.statement_lines(fixed, line)
        end = repair.block_end(fixed, start, end)
        indent = repair.prev_indent(fixed, start) if "indent" in str(e.msg) else None
        if not repair.blank(fixed, start, end, indent):
            break
        placeholders.add(start)
        text = lines[line - 1] if line <= len(lines) else ""
        # CPython points at the end of a badly indented line: point at its indentation instead
        col = len(repair.indent_of(text)) if "indent" in str(e.msg) else max((e.offset or 1) - 1, 0)
        col = min(col, len(text))
        msg = e.msg if e.msg != "invalid syntax" else f"invalid syntax in `{text.strip()[:40]}`"
        errors.append(SyntaxProblem(line, col, line, max(col + 1, len(text)), f"SyntaxError: {msg}"))
    # Nothing left to cut (or too many cuts): give up on the whole text rather than raise.
    fixed[:] = [""] * len(fixed)
    if not errors:
        errors.append(SyntaxProblem(1, 0, 1, len(lines[0]) if lines else 0, "SyntaxError: cannot parse this file"))
    placeholders.clear()
    return ast.Module(body=[], type_ignores=[])


def _code_point_columns(tree: ast.AST, lines: list) -> None:
    """ast's columns are UTF-8 byte offsets; ours are code points (ASCII lines need nothing).
    Only statements that span a non-ASCII line are walked: a whole-tree walk was a tenth of a
    repository check (transformers' files have a few non-ASCII docstring lines each)."""
    bad = [i for i, line in enumerate(lines, 1) if not line.isascii()]
    if not bad:
        return  # the common case: no walk at all
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

    def spans_bad(st: ast.stmt) -> bool:
        # a statement's nodes lie within its lines, its decorators (above the `def`) included
        start = min([st.lineno] + [d.lineno for d in getattr(st, "decorator_list", ())])
        i = bisect.bisect_left(bad, start)
        return i < len(bad) and bad[i] <= (st.end_lineno or st.lineno)

    todo = [tree]
    while todo:
        node = todo.pop()
        if getattr(node, "col_offset", None) is not None:
            node.col_offset = fix(node.lineno, node.col_offset)
        if getattr(node, "end_col_offset", None) is not None:
            node.end_col_offset = fix(node.end_lineno, node.end_col_offset)
        todo.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.stmt) or spans_bad(c))


# A string (triple or single quoted) or a comment; strings come first in the alternation so
# that a '#' inside one is never taken for a comment. A prefix (`rb'...'`) changes neither where
# a string starts nor where it ends, so the scan starts at quotes and `#` only: a pattern opening
# with an optional prefix was tried at every character (3.7x slower). One C-level scan instead of
# the pure-Python tokenizer; tests compare it with `tokenize` on the whole corpus.
_STRING_OR_COMMENT = re.compile(
    r"'''(?:\\.|[^\\])*?'''"
    r'|"""(?:\\.|[^\\])*?"""'
    r"|'(?:\\.|[^'\\\n])*'"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|#[^\n]*", re.S)


def _comments(text: str) -> dict:
    """line -> comment text (without '#', stripped) for every comment in the text."""
    out, line, pos = {}, 1, 0
    for m in _STRING_OR_COMMENT.finditer(text):
        if text[m.start()] != "#":
            continue
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out[line] = m.group()[1:].strip()
    return out


def _dedupe(errors: list) -> list:
    seen, out = set(), []
    for e in errors:
        if e.line not in seen:
            seen.add(e.line)
            out.append(e)
    return out


def repaired_lines(text: str) -> tuple:
    """(lines, errors): the text's lines with each broken statement blanked exactly as
    `parse_module` blanks it (lines never move), so the result parses on its own. For callers
    that join separately parsed texts (notebook cells, see notebook.py): a cell's unclosed bracket
    must not swallow the next cell."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", " ")
    lines = text.split("\n")
    if _compile(text)[0] is not None:
        return lines, []
    fixed, errors, placeholders = list(lines), [], set()
    _cut_parso_regions(text, None, False, fixed, errors, placeholders)
    _repair_loop(lines, fixed, errors, placeholders)
    errors.sort(key=lambda p: (p.line, p.col))
    return fixed, _dedupe(errors)
