"""Re-parse only the top-level statements an edit touched, reusing the rest of the last tree.

While typing, an edit usually changes a few lines inside one function or class and keeps the
line count; parsing the whole 2,000-line module again (`ast.parse` + `compile`) costs tens of
milliseconds, parsing the one class a fraction of a millisecond.

Why the splice equals a full parse: the edited region is widened to whole top-level statements
(from the start of the first, decorators included, to the line before the next untouched
statement). The lines before it are unchanged and ended a complete statement in the last parse,
so the tokenizer enters the segment at top level with no open bracket; the segment must parse and
compile on its own, so it leaves the tokenizer at top level too, and the untouched statement after
it — which stood on its own at column 0 before — parses as it did. Compile-time checks are per
scope (a top-level statement is its own unit), except `from __future__` imports, which must open
the file and can change the grammar: any of them sends the text to a full parse. Anything else
the splice cannot show to be equal (the last parse had errors, a changed line count, a segment
that does not parse alone) returns None, and the caller parses the whole text.
Tests: tests/unit/test_frontend_props.py (splice == fresh parse, random edits).
"""
from __future__ import annotations

import ast
from bisect import bisect_right


def _start(st: ast.stmt) -> int:
    decos = getattr(st, "decorator_list", None)
    return min([st.lineno] + [d.lineno for d in decos]) if decos else st.lineno


def _has_future(body: list) -> bool:
    return any(isinstance(st, ast.ImportFrom) and st.module == "__future__" for st in body)


def splice(old, lines: list, compile_text, fix_columns, scan_comments):
    """The parse of `lines` made from `old` (a ParsedModule of the previous text, without errors)
    by re-parsing the touched top-level statements only; None when that cannot be shown equal."""
    # The result is built as the same class as `old` so this module needs nothing of parse.py
    # (which imports it): no import cycle.
    ParsedModule = type(old)
    if old.errors or len(lines) != len(old.lines):
        return None
    n = len(lines)
    pre = 0
    while pre < n and old.lines[pre] == lines[pre]:
        pre += 1
    if pre == n:
        return ParsedModule(old.tree, [], old.comments, lines)
    suf = 0
    while suf < n - pre and old.lines[n - 1 - suf] == lines[n - 1 - suf]:
        suf += 1
    first, last = pre + 1, n - suf  # the changed lines, 1-based, inclusive
    body = old.tree.body
    if _has_future(body):
        return None
    starts = [_start(st) for st in body]
    i = bisect_right(starts, first) - 1
    j = bisect_right(starts, last) - 1
    # statements sharing a line (`a = 1; b = 2`) go together
    while i > 0 and body[i - 1].end_lineno >= starts[i]:
        i -= 1
    while j + 1 < len(body) and j >= 0 and body[j].end_lineno >= starts[j + 1]:
        j += 1
    lo = max(i, 0)
    seg_start = starts[i] if i >= 0 else 1
    seg_end = starts[j + 1] - 1 if j + 1 < len(body) else n
    if seg_end < seg_start:
        return None
    seg_lines = lines[seg_start - 1:seg_end]
    seg_text = "\n".join(seg_lines)
    if "__future__" in seg_text:
        return None
    seg, _ = compile_text(seg_text)
    if seg is None:
        return None
    fix_columns(seg, seg_lines)
    for st in seg.body:
        ast.increment_lineno(st, seg_start - 1)
    tree = ast.Module(body=body[:lo] + seg.body + body[j + 1:], type_ignores=[])
    comments = {k: v for k, v in old.comments.items() if not seg_start <= k <= seg_end}
    comments.update({k + seg_start - 1: v for k, v in scan_comments(seg_text).items()})
    return ParsedModule(tree, [], dict(sorted(comments.items())), lines)
