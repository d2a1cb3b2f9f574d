"""Features and conversions without a transport: UTF-16 positions, provider registry."""
from __future__ import annotations

import ast

from lsprotocol import types

from shapehint.lsp.convert import Lines
from shapehint.lsp.features import actions


def test_utf16_round_trip():
    text = "x = 'é𝔘'  # 𝔘\ny = 1"
    lines = Lines(text)
    # code point 7 is after "é𝔘" (𝔘 is two UTF-16 units)
    assert lines.to_lsp(1, 7) == types.Position(line=0, character=8)
    assert lines.from_lsp(types.Position(line=0, character=8)) == (1, 7)
    assert lines.from_lsp(types.Position(line=0, character=999)) == (1, len(text.split("\n")[0]))
    utf32 = Lines(text, types.PositionEncodingKind.Utf32)
    assert utf32.to_lsp(1, 7).character == 7
    utf8 = Lines(text, types.PositionEncodingKind.Utf8)
    assert utf8.to_lsp(1, 7).character == len("x = 'é𝔘".encode())


def test_a_failing_provider_never_fails_the_request():
    from shapehint.analysis.result import AnalysisResult

    def broken(ctx):
        raise RuntimeError("boom")

    def extra(ctx):
        yield actions.Action("Do it", "refactor.rewrite")

    actions.provider(broken)
    actions.provider(extra)
    try:
        ctx = actions.ActionContext(AnalysisResult("m.py", "x = 1\n"), 1, 0, 1, 0, [])
        titles = [a.title for a in actions.code_actions(ctx)]
        assert titles == ["Do it"]
        assert actions.code_actions(ctx, only=["quickfix"]) == []
    finally:
        actions._PROVIDERS.remove(broken)
        actions._PROVIDERS.remove(extra)


def test_annotate_uses_jaxtyping_when_the_file_does():
    from shapehint.analysis.api import analyze_source
    text = ("import torch\nfrom torch import Tensor\nfrom jaxtyping import Float\n\n\n"
            "def f(x: Float[Tensor, \"B 8\"], w: Float[Tensor, \"8 4\"]):\n"
            "    y = x @ w\n    return y\n")
    result = analyze_source(text, "m.py")
    ctx = actions.ActionContext(result, 7, 0, 7, 0, [])
    acts = [a for a in actions.code_actions(ctx) if a.title == "Annotate with inferred shape"]
    assert acts
    e = acts[0].edits[0]
    line = text.split("\n")[6]
    new = line[:e.col] + e.new_text + line[e.end_col:]
    assert new.startswith("    y: Float[Tensor, \"") and new.endswith("\"] = x @ w")
    ast.parse(new.strip())


def test_every_code_has_a_documentation_page_with_an_example():
    import json
    import pathlib
    from importlib import resources

    from shapehint.analysis.codes import docs_url
    codes = json.loads(resources.files("shapehint._shared").joinpath("diagnostics.json").read_text())["codes"]
    docs = pathlib.Path(__file__).resolve().parents[2] / "docs" / "codes"
    for code, info in codes.items():
        page = (docs / f"{code}.md").read_text()
        assert page.startswith(f"# {code}: {info['title']}") and "## Example" in page and "```python" in page
        assert docs_url(code).endswith(f"docs/codes/{code}.md")
