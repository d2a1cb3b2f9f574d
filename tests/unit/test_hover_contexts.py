"""Hover lists a few calling contexts, not a table: a model built by a factory lists one shape per
kind of block at a block's line (analysis/built.py), which infer's JSON keeps whole."""
import os

from shapehint.analysis.api import analyze_source
from shapehint.lsp.features.hover import HOVER_CONTEXTS, hover

PROGRAM = os.path.join(os.path.dirname(__file__), "assembled", "factories.py")


def test_hover_shows_at_most_eight_contexts_and_says_how_many_more():
    with open(PROGRAM, encoding="utf-8") as f:
        result = analyze_source(f.read(), PROGRAM)
    v = max(result.values, key=lambda r: len(r.contexts))
    assert len(v.contexts) > HOVER_CONTEXTS + 1
    text = hover(result, v.span.line, v.span.col).markdown
    listed = [ln for ln in text.splitlines() if ln.startswith("- called from")]
    assert len(listed) == HOVER_CONTEXTS
    more = len({(str(lbl), str(s)) for lbl, s in v.contexts}) - HOVER_CONTEXTS
    assert f"- … and {more} more" in text
