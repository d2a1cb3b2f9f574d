"""Newer syntax for an older host: source valid for any Python from 3.8 to 3.14 parses whatever
Python (3.10+) runs the server.

`ast` only knows its own Python's grammar, and parso 0.8.7 rejects PEP 695 in every grammar. So
before either sees the text, what the host (or parso) cannot read is masked or rewritten in
place — every line keeps its length, so every position outside a masked span is unchanged:

- PEP 695/696 type parameters (`def f[T](...)`, `class C[T: int = str]`): blanked; a line
  break inside them gets a `\\` continuation.
- `type X[T] = ...` (PEP 695): the soft keyword becomes `0;  `, an expression statement, so the
  line is the assignment `X = ...`.
- PEP 701 f-strings the host's tokenizer cannot read (the enclosing quote, a backslash, a
  comment or a line break inside a replacement field) and PEP 750 t-strings: the literal
  becomes a plain string of spaces (line breaks kept) — its value matters to no shape.
- `except*` on a host older than 3.11: the star is blanked.
- PEP 758 `except A, B:` (3.14): the top-level commas become `|`, one expression, and
  `restore` turns that expression back into the tuple `(A, B)` in the tree.

Only what the host rejects is rewritten (an f-string with a real error stays an error); parso
gets every PEP 695 construct masked (`for_parso=True`). The scan never raises and tolerates
broken text (unclosed brackets or strings end at the end of the text or line).
Tests: tests/unit/test_newsyntax.py (each construct, positions, every interpreter installed).
"""
from __future__ import annotations

import ast
import re
import sys
from typing import Optional

_PREFIX = re.compile(r"([rRbBuUfFtT]{1,2})?('''|\"\"\"|'|\")")
_OPENERS, _CLOSERS = "([{", ")]}"


class _Tok:
    __slots__ = ("kind", "start", "end", "text", "depth", "stmt_start", "mask")

    def __init__(self, kind: str, start: int, end: int, text: str, depth: int, stmt_start: bool = False):
        self.kind = kind              # "name", "op", "str", "newline"
        self.start, self.end, self.text = start, end, text
        self.depth = depth            # bracket depth before the token
        self.stmt_start = stmt_start  # first token of a statement
        self.mask = False             # a string literal to blank (f-string the host cannot read, t-string)


# Text that may hold syntax to rewrite (a superset): most text has none and is not scanned.
_MAYBE = re.compile(r"\b(?:def|class)\s+\w+\s*\[|^[ \t]*type[ \t]+\w|\bexcept\b[^:\n]*[*,]|"
                    r"(?<![\w.])(?:[fFtT][rR]?|[rR][fFtT])['\"]", re.M)


def mask(text: str, version: Optional[tuple] = None, for_parso: bool = False) -> str:
    """`text` with the syntax that `version` (the host's, by default) cannot parse rewritten in
    place; the text itself when there is none."""
    if not _MAYBE.search(text):
        return text
    v = tuple(version or sys.version_info[:2])
    toks = _tokens(text, v)
    edits: list = []  # (start, end, replacement of the same length)
    for i, t in enumerate(toks):
        if t.kind == "str" and t.mask:
            edits.append((t.start, t.end, _blank_string(text, t)))
        elif t.kind != "name":
            continue
        elif t.text in ("def", "class") and _is(toks, i + 1, "name") and _is(toks, i + 2, "op", "["):
            _type_params(text, toks, i + 2, v, for_parso, edits)
        elif t.text == "type" and t.stmt_start and _is(toks, i + 1, "name") and \
                (_is(toks, i + 2, "op", "=") or _is(toks, i + 2, "op", "[")):
            _type_alias(text, toks, i, v, for_parso, edits)
        elif t.text == "except" and t.stmt_start:
            _except(toks, i, v, edits)
    if not edits:
        return text
    out, pos = [], 0
    for start, end, rep in sorted(edits):
        if start < pos:
            continue  # nested in an edit already made
        out.append(text[pos:start])
        out.append(rep)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def restore(tree: ast.Module, text: str, masked: str) -> None:
    """Undo, in the tree, what the rewriting changed in meaning: an `except A, B:` handler whose
    commas became `|` catches the tuple (A, B) again."""
    if masked is text:
        return
    lines, mlines = text.split("\n"), masked.split("\n")
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and isinstance(node.type, ast.BinOp) and \
                isinstance(node.type.op, ast.BitOr) and lines[node.type.lineno - 1] != mlines[node.type.lineno - 1]:
            elts = _or_operands(node.type, lines)
            if elts is not None:
                t = node.type
                node.type = ast.Tuple(elts=elts, ctx=ast.Load(), lineno=t.lineno, col_offset=t.col_offset,
                                      end_lineno=t.end_lineno, end_col_offset=t.end_col_offset)


def _or_operands(e: ast.expr, lines: list):
    """The operands of `A | B | C` when every `|` between them was a comma in the source."""
    if not (isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitOr)):
        return [e]
    left = _or_operands(e.left, lines)
    if left is None or e.left.end_lineno != e.right.lineno:
        return None
    between = lines[e.right.lineno - 1][e.left.end_col_offset:e.right.col_offset]
    return left + [e.right] if "," in between else None


def _is(toks: list, i: int, kind: str, text: Optional[str] = None) -> bool:
    return i < len(toks) and toks[i].kind == kind and (text is None or toks[i].text == text)


def _closing(toks: list, i: int) -> Optional[int]:
    """Index of the bracket closing the one at `i`."""
    depth = toks[i].depth
    for j in range(i + 1, len(toks)):
        if toks[j].kind == "op" and toks[j].text in _CLOSERS and toks[j].depth == depth + 1:
            return j
    return None


def _type_params(text, toks, i, v, for_parso, edits) -> Optional[int]:
    """Blank the type-parameter list opening at token `i` when the host or parso cannot read it."""
    j = _closing(toks, i)
    if j is None:
        return None
    has_default = any(t.kind == "op" and t.text == "=" and t.depth == toks[i].depth + 1 for t in toks[i + 1:j])
    if for_parso or v < (3, 12) or (has_default and v < (3, 13)):
        edits.append((toks[i].start, toks[j].end, _blank(text[toks[i].start:toks[j].end], continued=True)))
    return j


def _type_alias(text, toks, i, v, for_parso, edits) -> None:
    """`type X[T] = v` -> `0;   X    = v` (an expression statement, then an assignment)."""
    j = i + 2
    if toks[j].text == "[":
        close = _closing(toks, j)
        if close is None or not _is(toks, close + 1, "op", "="):
            return
        _type_params(text, toks, j, v, for_parso, edits)
    if for_parso or v < (3, 12):
        edits.append((toks[i].start, toks[i].end, "0;  "))


def _except(toks, i, v, edits) -> None:
    j = i + 1
    if _is(toks, j, "op", "*"):
        if v < (3, 11):
            edits.append((toks[j].start, toks[j].end, " "))
        j += 1
    if v >= (3, 14):
        return
    depth, commas = toks[i].depth, []
    for t in toks[j:]:
        if t.kind == "newline" or (t.kind == "op" and t.text == ":" and t.depth == depth):
            break
        if t.depth == depth and t.kind == "name" and t.text == "as":
            return  # `except A, B as e:` is an error in every version: leave it one
        if t.depth == depth and t.kind == "op" and t.text == ",":
            commas.append(t)
    edits.extend((c.start, c.end, "|") for c in commas)


def _blank(s: str, continued: bool) -> str:
    """Spaces for `s`, its line breaks kept; with `continued`, each broken line ends in `\\`."""
    out = [ch if ch == "\n" else " " for ch in s]
    if continued:
        for k, ch in enumerate(out):
            if ch == "\n" and k > 0 and out[k - 1] != "\n":
                out[k - 1] = "\\"
    return "".join(out)


def _blank_string(text: str, t: _Tok) -> str:
    """A plain string literal of spaces in place of an f/t-string literal."""
    m = _PREFIX.match(text, t.start)
    prefix, quote = len(m.group(1) or ""), m.group(2)
    body = text[t.start + prefix + len(quote):t.end - len(quote)] if t.end - t.start >= prefix + 2 * len(quote) else ""
    if not text.startswith(quote, t.end - len(quote)) or len(body) + prefix + 2 * len(quote) != t.end - t.start:
        return text[t.start:t.end]  # unterminated: leave it to the parser to report
    single = len(quote) == 1
    return " " * prefix + quote + _blank(body, continued=single) + quote


# ---- the scan ------------------------------------------------------------------------------------

# One token per match (a regex scan; only f/t-strings are walked character by character).
_TOKEN = re.compile(r"""[ \t\f\r]*(?:
    (?P<cont>\\\n)
  | (?P<nl>\n)
  | (?P<comment>\#[^\n]*)
  | (?P<str>[rRbBuUfFtT]{0,2}['"])
  | (?P<name>[^\W\d]\w*|\d[\w.]*|\.\d[\w.]*)
  | (?P<op>.)
  | (?P<end>$))""", re.S | re.X)
_PLAIN = {
    "'''": re.compile(r"'''(?:\\.|[^\\])*?'''", re.S),
    '"""': re.compile(r'"""(?:\\.|[^\\])*?"""', re.S),
    "'": re.compile(r"'(?:\\.|[^'\\\n])*'"),
    '"': re.compile(r'"(?:\\.|[^"\\\n])*"'),
}


def _tokens(text: str, v: tuple) -> list:
    toks: list = []
    i, n, depth, stmt_start = 0, len(text), 0, True
    while i < n:
        m = _TOKEN.match(text, i)
        kind, i = m.lastgroup, m.start(m.lastgroup)
        if kind == "name":
            toks.append(_Tok("name", i, m.end(), m.group(kind), depth, stmt_start))
            i, stmt_start = m.end(), False
        elif kind == "cont" or kind == "comment" or kind == "end":
            i = m.end()
        elif kind == "nl":
            if depth == 0 and toks and toks[-1].kind != "newline":
                toks.append(_Tok("newline", i, i + 1, "\n", depth))
            stmt_start = stmt_start or depth == 0
            i += 1
        elif kind == "str":
            end, fmt, needs = _string(text, i)
            t = _Tok("str", i, end, "", depth, stmt_start)
            t.mask = fmt == "t" and v < (3, 14) or fmt == "f" and needs and v < (3, 12)
            toks.append(t)
            i, stmt_start = end, False
        else:
            c = m.group(kind)
            toks.append(_Tok("op", i, i + 1, c, depth, stmt_start))
            if c in _OPENERS:
                depth += 1
            elif c in _CLOSERS:
                depth = max(depth - 1, 0)
            stmt_start = depth == 0 and c in ";:"
            i += 1
    return toks


def _string(text: str, i: int, enclosing: tuple = ()) -> tuple:
    """(end, kind, needs_pep701) of the string literal at `i`; kind "f", "t" or "" (plain).
    `enclosing`: the quotes of the f-strings this one is nested in."""
    m = _PREFIX.match(text, i)
    prefix, quote = (m.group(1) or "").lower(), m.group(2)
    kind = "t" if "t" in prefix else "f" if "f" in prefix else ""
    j = m.end()
    # before 3.12 an f-string was first read as a plain string: a nested literal must not end it
    needs = any(q == quote or len(q) == 1 and q == quote[0] for q in enclosing)
    if not kind:
        return _plain_end(text, j, quote), kind, needs
    end, needs = _fstring_end(text, j, quote, enclosing + (quote,), needs)
    return end, kind, needs


def _plain_end(text: str, j: int, quote: str) -> int:
    m = _PLAIN[quote].match(text, j - len(quote))
    if m:
        return m.end()
    n = len(text)  # unterminated: to the end of the line (or of the text, for a triple quote)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
        elif text.startswith(quote, j):
            return j + len(quote)
        elif c == "\n" and len(quote) == 1:
            return j  # unterminated
        else:
            j += 1
    return n


def _fstring_end(text: str, j: int, quote: str, quotes: tuple, needs: bool) -> tuple:
    """Scan an f/t-string body from `j` (PEP 701 rules) to past its closing quote."""
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
        elif text.startswith(quote, j):
            return j + len(quote), needs
        elif c == "\n" and len(quote) == 1:
            return j, needs
        elif c == "{" and text.startswith("{{", j):
            j += 2
        elif c == "{":
            j, field_needs = _field(text, j + 1, quote, quotes)
            needs = needs or field_needs
        else:
            j += 1
    return n, needs


def _field(text: str, j: int, quote: str, quotes: tuple) -> tuple:
    """Scan a replacement field's expression (and format spec) from `j` to past its `}`."""
    n, depth, needs = len(text), 0, False
    while j < n:
        c = text[j]
        if c in _OPENERS:
            depth += 1
        elif c in _CLOSERS:
            if depth == 0:
                return j + 1, needs
            depth -= 1
        elif c == ":" and depth == 0:
            return _format_spec(text, j + 1, quote, quotes, needs)
        elif c in "\\#" or (c == "\n" and len(quote) == 1):
            needs = True  # PEP 701 only
            if c == "#":
                end = text.find("\n", j)
                j = n if end < 0 else end
                continue
        elif _PREFIX.match(text, j) and (c in "'\"" or not (text[j - 1].isalnum() or text[j - 1] == "_")):
            end, _, inner = _string(text, j, quotes)
            needs = needs or inner or "\\" in text[j:end]  # no backslash in an expression before 3.12
            j = end
            continue
        j += 1
    return n, needs


def _format_spec(text: str, j: int, quote: str, quotes: tuple, needs: bool) -> tuple:
    n = len(text)
    while j < n:
        c = text[j]
        if c == "}":
            return j + 1, needs
        if text.startswith(quote, j) or (c == "\n" and len(quote) == 1):
            return j, needs  # the string ends: leave the closing quote to the caller
        if c == "{":
            j, inner = _field(text, j + 1, quote, quotes)
            needs = needs or inner
            continue
        j += 1
    return n, needs
