"""What users declare (analysis/contracts.py): return annotations, every annotated variable,
aliases (all forms, `type X = ...` included), unpacking arity, divisions by zero in sizes; and
what is NOT a contract (ordinary typing hints, defaults). The case programs
tests/cases/contract_*.py hold the realistic variants; these pin the edges."""
from __future__ import annotations

import textwrap

from shapehint.analysis.api import analyze_source
from shapehint.lsp.features.declared import declared_at
from shapehint.shapes.values import Span

HEAD = """\
import torch
import torch.nn as nn
from typing import Optional, Tuple, TypeAlias
from jaxtyping import Float
from torch import Tensor
"""


def diags(body: str, path: str = "/tmp/contracts_case.py") -> list:
    res = analyze_source(HEAD + textwrap.dedent(body), path)
    return [(d.line - HEAD.count("\n"), d.code, d.message) for d in res.diagnostics if d.severity == "error"]


def codes(body: str) -> list:
    return [(line, code) for line, code, _ in diags(body)]


def test_every_return_path_is_checked():
    assert codes("""
        def f(x: Float[Tensor, "B T 64"], flag: bool) -> Float[Tensor, "B 64"]:
            if flag:
                return x.mean(1)
            return x
    """) == [(5, "SH110")]


def test_return_annotation_names_are_the_parameters():
    # `T` is the parameter's T: returning a [B, B] value where [B, T] is declared is fine only
    # when B == T is possible (it is: no error), but a literal clash is not
    assert codes("""
        def ok(x: Float[Tensor, "B T"]) -> Float[Tensor, "B T"]:
            return x[:, :1].expand(-1, x.shape[0])
        def bad(x: Float[Tensor, "B 3"]) -> Float[Tensor, "B 4"]:
            return x * 2
    """) == [(5, "SH110")]


def test_declared_result_is_a_fact_for_callers():
    # the body's `@` leaves its last dimension to H; the declaration pins it to 10, so the
    # caller's Linear(12, ...) cannot take it
    found = diags("""
        def project(x: Float[Tensor, "B 64"], w: Float[Tensor, "64 H"]) -> Float[Tensor, "B 10"]:
            return x @ w
        def use(x: Float[Tensor, "B 64"], w: Float[Tensor, "64 H"]):
            y = project(x, w)
            return nn.Linear(12, 3)(y)
    """)
    assert [(line, code) for line, code, _ in found] == [(6, "SH101")], found


def test_ordinary_typing_hints_are_no_contracts():
    assert codes("""
        def f(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
            return x, x, x
        def g(x: torch.Tensor) -> Optional[torch.Tensor]:
            return x.sum()
        def h(x: Float[Tensor, "B 4"]) -> torch.Tensor:
            return x.sum()
    """) == []


def test_tuple_annotation_counts_values():
    found = diags("""
        def f(x: Float[Tensor, "B 4"]) -> tuple[Float[Tensor, "B 4"], Float[Tensor, "B"]]:
            return x, x.sum(1), x
    """)
    assert [(line, code) for line, code, _ in found] == [(3, "SH110")]
    assert "declares 2 values, but this returns 3" in found[0][2]


def test_each_annotated_variable_is_checked_and_a_wrong_one_keeps_the_value():
    found = diags("""
        def f(x: Float[Tensor, "B 8"]):
            a: Float[Tensor, "B 9"] = x
            b: Float[Tensor, "B"] = x
            c = a @ torch.randn(4, 2)
            return c
    """)
    # the third error is the matmul: `a` keeps the value's [B, 8], not the wrong declaration
    assert [(line, code) for line, code, _ in found] == [(3, "SH110"), (4, "SH110"), (5, "SH101")], found
    assert "[B, 8]" in found[2][2]


def test_aliases_in_every_form():
    found = codes("""
        Plain = Float[Tensor, "B 64"]
        Named: TypeAlias = Float[Tensor, "B 64"]
        type Newer = Float[Tensor, "B 64"]
        Nested = Plain
        def a(x: Plain):
            return x @ torch.randn(32, 2)
        def b(x: Named):
            return x @ torch.randn(32, 2)
        def c(x: Newer):
            return x @ torch.randn(32, 2)
        def d(x: Nested) -> Plain:
            return x.sum(1)
    """)
    assert found == [(7, "SH101"), (9, "SH101"), (11, "SH101"), (13, "SH110")], found


def test_unpacking_arity():
    found = diags("""
        def f(x: Float[Tensor, "B C L"]):
            a, *rest = x.shape
            b, c, d, *more = x.shape
            p, q = x.shape
        def g(x: Float[Tensor, "B C L"]):
            a, b, c, d, *rest = x.shape
        def h(x, n: int):
            parts = [x] * n
            u, v = parts
            w, z = x.unbind(0)
            return u, v, w, z
    """)
    assert [(line, code) for line, code, _ in found] == [(5, "SH111"), (7, "SH111")], found
    assert "torch.Size([B, C, L])" in found[0][2] and "at least 4 names" in found[1][2]


def test_division_by_zero_needs_a_zero_that_is_not_only_a_default():
    assert codes("""
        def f(x: Float[Tensor, "B C"], groups: int = 0):
            return x.view(x.shape[0], groups, x.shape[1] // groups)
        class M(nn.Module):
            def __init__(self, window=0):
                super().__init__()
                self.window = window
            def forward(self, x: Float[Tensor, "B H"]):
                return x.view(x.shape[0], x.shape[1] // self.window, self.window)
        def g(x: Float[Tensor, "B 8"]):
            k = 0
            return x.shape[1] % k
    """) == [(12, "SH112")]


def test_hover_declaration_lookup():
    text = HEAD + textwrap.dedent("""
        Alias = Float[Tensor, "B 4"]
        def f(x: Alias) -> Alias:
            y: Float[Tensor, "B 4"] = x * 2
            z: torch.Tensor = y
            return y
    """)
    lines = text.splitlines()

    def at(needle, shift=0):
        n = next(i for i, ln in enumerate(lines, 1) if needle in ln)
        col = lines[n - 1].index(needle) + shift
        return n, col

    line, col = at("y: Float")
    assert declared_at(text, Span(line, col, line, col + 1)) == 'Float[Tensor, "B 4"]'
    line, col = at("z: torch")
    assert declared_at(text, Span(line, col, line, col + 1)) is None  # a hint, not a contract
    line, col = at("return y", 7)
    assert declared_at(text, Span(line, col, line, col + 1)) == "Alias"
    assert declared_at("def broken(:\n", Span(1, 0, 1, 1)) is None


def test_hover_shows_the_declaration_beside_the_inferred_shape():
    from shapehint.lsp.features.hover import hover
    text = HEAD + textwrap.dedent("""
        def f(x: Float[Tensor, "B T 64"]) -> Float[Tensor, "B 64"]:
            wide: Float[Tensor, "B T 32"] = x
            return x
    """)
    res = analyze_source(text, "/tmp/contracts_hover.py")
    lines = text.splitlines()
    n = next(i for i, ln in enumerate(lines, 1) if "wide:" in ln)
    md = hover(res, n, lines[n - 1].index("wide")).markdown
    assert md.startswith("**wide**: `Tensor[B, T, 64]`") and 'declared: `Float[Tensor, "B T 32"]`' in md, md
    n = next(i for i, ln in enumerate(lines, 1) if "return x" in ln)
    md = hover(res, n, lines[n - 1].index("x")).markdown
    assert "`Tensor[B, T, 64]`" in md and 'declared: `Float[Tensor, "B 64"]`' in md, md


def test_quick_fix_writes_the_inferred_shape_into_the_annotation():
    import ast

    from shapehint.lsp.features.actions import ActionContext, code_actions
    text = HEAD + textwrap.dedent("""
        def f(x: Float[Tensor, "B T 64"], w: Float[Tensor, "64 32"]):
            h: Float[Tensor, "B T 64"] = x @ w
            return h
    """)
    res = analyze_source(text, "/tmp/contracts_fix.py")
    d = next(d for d in res.diagnostics if d.code == "SH110")
    acts = [a for a in code_actions(ActionContext(res, d.line, d.col, d.end_line, d.end_col, [d]))
            if a.title.startswith("Update the annotation")]
    assert len(acts) == 1 and acts[0].preferred
    e = acts[0].edits[0]
    line = text.split("\n")[d.line - 1]
    new = line[:e.col] + e.new_text + line[e.end_col:]
    assert new == '    h: Float[Tensor, "B T 32"] = x @ w'
    ast.parse(new.strip())
    fixed = text.replace(line, new)
    assert not [x for x in analyze_source(fixed, "/tmp/contracts_fix.py").diagnostics if x.severity == "error"]


def test_a_tuple_only_a_typing_hint_shapes_is_unpacked_freely():
    # transformers' funnel: `attention_inputs: tuple[torch.Tensor]` holds four tensors
    assert codes("""
        def f(attention_inputs: tuple[torch.Tensor]):
            a, b, c, d = attention_inputs
            return a
        def g(pair: Tuple[torch.Tensor, torch.Tensor]):
            x, y, z = pair
            return x
    """) == []


def test_a_user_function_result_shaped_by_defaults_is_unpacked_freely():
    # the generic analysis takes `if self.output_attentions` with its default False: a 1-tuple,
    # but constructions passing True return two values (defaults are not facts)
    assert codes("""
        class Layer(nn.Module):
            def __init__(self, output_attentions=False):
                super().__init__()
                self.output_attentions = output_attentions
            def forward(self, x: Float[Tensor, "B 4"]):
                if self.output_attentions:
                    return x, x
                return (x,)
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = Layer()
            def forward(self, x: Float[Tensor, "B 4"]):
                h, attn = self.layer(x)
                return h
    """) == []


def test_an_unnamed_declared_dimension_keeps_the_value_s_own():
    res = analyze_source(HEAD + textwrap.dedent("""
        def f(x: Float[Tensor, "B 64"]) -> Float[Tensor, "B _"]:
            return x * 2
        def g(x: Float[Tensor, "B 64"]):
            y = f(x)
            z: Float[Tensor, "_ 64"] = y
            return z
    """), "/tmp/contracts_dyn.py")
    shapes = {v["name"]: v["shape"] for v in res.infer_json()["values"] if v["function"] == "g"}
    assert shapes == {"y": ["B", 64], "z": ["B", 64]}, shapes


def test_zero_defaults_of_config_fields_and_tuple_items_are_no_facts():
    assert codes("""
        from dataclasses import dataclass
        @dataclass
        class Config:
            window: int = 0
        class M(nn.Module):
            def __init__(self, config: Config, strides=(0, 2)):
                super().__init__()
                self.window = config.window
                self.stride = strides[0]
            def forward(self, x: Float[Tensor, "B H"]):
                a = x.shape[1] // self.window
                b = x.shape[1] % self.stride
                return x.view(x.shape[0], a + b, -1)
    """) == []
