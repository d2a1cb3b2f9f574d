"""Line-level repair of broken source: find the broken statements, blank them, say what is wrong.

parso marks broken code as `error_node`/`error_leaf`. Each broken region is widened to whole
statements (a broken compound-statement header takes its indented block with it) and those
lines are replaced by a placeholder at the statement's indentation (`pass`, or nothing at
module level), so the text around it parses with `ast` unchanged.

Invariants: the number of lines never changes and lines outside a blanked region are never
touched, so every position in the kept code is exact; a region is reported once (a region that
starts inside an already blanked one is part of the same problem). Messages come from CPython's
own parser run on the broken statement alone ("'(' was never closed", "unmatched ')'", …), with
parso's view as the fallback when CPython has nothing more specific than "invalid syntax".
"""
from __future__ import annotations

import ast
import re
import warnings
from typing import Optional

from .pyast import parse as parse_ast

PLACEHOLDER = "pass"
COMPOUND = ("def ", "async def ", "class ", "if ", "elif ", "else", "for ", "async for ", "while ", "with ",
            "async with ", "try", "except", "finally", "@", "match ", "case ")
_NEW_STATEMENT = re.compile(r"\s*(?:[^\W\d]|@)")  # a name or keyword (any script) or a decorator
_LINE_REF = re.compile(r"\bline (\d+)")


def error_regions(module) -> list:
    """(line, col, end_line, end_col, fallback message) of each outermost error node, in source order."""
    out: list = []
    stack = [module]
    while stack:  # iterative: deeply nested broken code must not hit the recursion limit
        node = stack.pop()
        t = getattr(node, "type", "")
        if t in ("error_node", "error_leaf"):
            out.append(_region(node))
        else:
            stack.extend(reversed(getattr(node, "children", ())))
    return out


def _region(node) -> tuple:
    (l0, c0), (l1, c1) = node.start_pos, node.end_pos
    token = str(getattr(node, "token_type", ""))
    if token == "INDENT":
        msg = "unexpected indent"
    elif token == "ERROR_DEDENT":
        msg = "unindent does not match any outer indentation level"
    else:
        code = node.get_code(include_prefix=False).strip().splitlines()
        msg = f"invalid syntax in `{code[0][:40]}`" if code else "invalid syntax"
    if l1 > l0 and c1 == 0:
        l1 -= 1  # the region ends at the start of the next line
    return l0, c0, l1, c1, msg


def indent_of(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def is_header(line: str) -> bool:
    return line.lstrip().startswith(COMPOUND)


def trim_region(lines: list, l0: int, l1: int) -> int:
    """An unclosed bracket makes parso swallow the next lines; a later line that starts a new
    statement at the same or a lower indentation is kept (the repair loop cuts it if it is broken too)."""
    if l1 <= l0 or not (1 <= l0 <= len(lines)) or is_header(lines[l0 - 1]):
        return l1
    base = len(indent_of(lines[l0 - 1]))
    for k in range(l0 + 1, min(l1, len(lines)) + 1):
        ln = lines[k - 1]
        if ln.strip() and len(indent_of(ln)) <= base and _NEW_STATEMENT.match(ln):
            return k - 1
    return l1


def block_end(lines: list, l0: int, l1: int) -> int:
    """A broken compound-statement header takes its indented block with it."""
    if not (1 <= l0 <= len(lines)) or not is_header(lines[l0 - 1]):
        return l1
    base = len(indent_of(lines[l0 - 1]))
    end = l1
    for i in range(l1, len(lines)):
        ln = lines[i]
        if ln.strip() and not ln.lstrip().startswith("#") and len(indent_of(ln)) <= base:
            break
        end = i + 1
    while end > l1 and not lines[end - 1].strip():
        end -= 1
    return end


def prev_indent(lines: list, line: int) -> str:
    """The indentation a statement at `line` should have, judged from the line before it."""
    for i in range(line - 2, -1, -1):
        if lines[i].strip() and not lines[i].lstrip().startswith("#"):
            ind = indent_of(lines[i])
            return ind + "    " if lines[i].rstrip().endswith(":") else ind
    return ""


def blank(lines: list, l0: int, l1: int, indent: Optional[str] = None) -> bool:
    """Replace lines l0..l1 (1-based) with a placeholder at l0's indentation; False if nothing changed."""
    l0, l1 = max(1, l0), min(len(lines), l1)
    if l0 > l1:
        return False
    region = lines[l0 - 1:l1]
    if indent is None:
        indent = indent_of(next((ln for ln in region if ln.strip()), ""))
    first = indent + PLACEHOLDER if indent else ""  # a module body may be empty: no placeholder needed
    if region[0] == first and all(not ln for ln in region[1:]):
        return False
    lines[l0 - 1] = first
    for i in range(l0, l1):
        lines[i] = ""
    return True


def statement_lines(lines: list, line: int) -> tuple:
    """The lines of the logical statement around `line` (joined by open brackets or backslashes)."""
    start = line
    while start > 1 and lines[start - 2].rstrip().endswith(("\\", ",", "(", "[", "{")):
        start -= 1
    end, depth = line, 0
    base = len(indent_of(lines[start - 1]))
    for i in range(start, len(lines) + 1):
        ln = lines[i - 1]
        if i > line and ln.strip() and len(indent_of(ln)) <= base and _NEW_STATEMENT.match(ln):
            break  # an unclosed bracket: the next statement is not part of this one
        depth += sum(ln.count(o) - ln.count(c) for o, c in ("()", "[]", "{}"))
        end = i
        if i >= line and depth <= 0:
            break
    return start, end


def describe(lines: list, l0: int, l1: int, fallback: str) -> tuple:
    """(message, accepted): CPython's message for the broken statement on its own, with line
    numbers mapped back; `accepted` when CPython parses the statement alone — then the error is
    contextual (indentation, `return` outside a function) or parso's grammar lags CPython's
    (`match`, parenthesised `with` items, `x[*a]`), and the caller leaves it to CPython.
    An unclosed bracket or string says "never closed"/"unterminated" (callers rely on it)."""
    chunk = lines[l0 - 1:l1]
    if not chunk:
        return "SyntaxError: " + fallback, False
    strip = len(indent_of(chunk[0]))
    body = [ln[strip:] if not ln[:strip].strip() else ln.lstrip() for ln in chunk]
    if body[-1].rstrip().endswith(":"):
        body.append("    pass")  # judge the header, not its (elsewhere) body
    msg, accepted = None, False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parse_ast("\n".join(body))
        accepted = True
    except SyntaxError as e:
        msg = e.msg
    except (ValueError, RecursionError, MemoryError):
        pass
    if not msg or msg == "invalid syntax" or "indent" in msg and "indent" not in fallback:
        msg = fallback
    msg = _LINE_REF.sub(lambda m: f"line {int(m.group(1)) + l0 - 1}", msg)
    return "SyntaxError: " + msg, accepted


def drop_placeholders(tree: ast.Module, lines: set) -> None:
    """Remove the `pass` placeholders on `lines` where the block keeps another statement."""
    if not lines:
        return
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if not isinstance(block, list) or not block or not isinstance(block[0], ast.stmt):
                continue
            kept = [s for s in block if not (isinstance(s, ast.Pass) and s.lineno in lines)]
            if kept or name == "orelse":
                block[:] = kept
            else:
                block[:] = block[:1]
