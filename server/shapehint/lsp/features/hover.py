"""Hover: the shape (and dtype) of the innermost tensor expression or name under the cursor,
where each symbolic dimension comes from and what is known about it; an int's value or
expression; a layer's configuration and its input → output shape.

Answers from the warm AnalysisResult only (no solver calls). Tests: tests/lsp/test_hover.py.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...analysis.contexts import describe
from ...shapes.shape import DYN_PREFIX
from .declared import declared_at


@dataclass(frozen=True)
class HoverInfo:
    markdown: str
    span: object  # shapes.values.Span of the hovered expression


def hover(result, line: int, col: int, settings=None) -> Optional[HoverInfo]:
    """Hover text at (1-based line, code-point col), or None when nothing is known there."""
    if result is None:
        return None
    hits = [v for v in result.values_at(line, col)
            if v.shape is not None or v.kind != "tensor" or v.text]
    if not hits:
        return None
    v = hits[0]
    if v.kind == "int":
        body = _int_hover(v)
    elif v.kind == "layer":
        body = _layer_hover(v, result)
    else:
        body = _tensor_hover(v, result)
    return HoverInfo(body, v.span)


HOVER_CONTEXTS = 8  # calling contexts shown; a tooltip is not a table


def tensor_type(shape) -> str:
    return "Tensor" + str(shape) if shape is not None else "Tensor[?]"


def _title(v) -> str:
    return f"**{_md_escape(v.name)}**" if v.name else ""


def _tensor_hover(v, result) -> str:
    head = f"{_title(v)}: `{tensor_type(v.shape)}`".lstrip(": ")
    if v.dtype:
        head += f" · `{v.dtype}`"
    parts = [head]
    declared = declared_at(result.text, v.span) if result.text else None
    if declared:
        parts.append(f"declared: `{declared}`")  # (contracts: the check is analysis/contracts.py)
    if v.contexts:
        lines = list(dict.fromkeys(  # (instances told apart by `via` may read alike)
            f"- {_md_escape(describe(str(label)))}: `{tensor_type(s)}`" for label, s in v.contexts))
        if len(lines) > HOVER_CONTEXTS:  # (a built model lists one shape per kind of block)
            more = len(lines) - HOVER_CONTEXTS
            lines = lines[:HOVER_CONTEXTS] + [f"- … and {more} more (`shapehint infer --format json` lists them)"]
        parts.append("\n".join(lines))
    dims = dims_section(_symbols(v.shape, v.contexts), result)
    if dims:
        parts.append(dims)
    return "\n\n".join(parts)


def _int_hover(v) -> str:
    text = v.text or "int"
    if not text.startswith("int"):
        text = f"int = {text}"
    return f"{_title(v)}: `{text}`".lstrip(": ")


def _layer_hover(v, result) -> str:
    parts = [f"{_title(v)}: `{v.text}`".lstrip(": ") if v.text else _title(v)]
    if v.layer_io:
        parts.append(f"`{v.layer_io}`")
    syms = set()
    if v.shape is not None:
        syms |= v.shape.symbols()
    dims = dims_section(sorted(syms) + _io_symbols(v.layer_io, result), result)
    if dims:
        parts.append(dims)
    return "\n\n".join(p for p in parts if p)


def _io_symbols(io: Optional[str], result) -> list:
    """Known symbols printed in a layer's `in → out` text."""
    if not io:
        return []
    import re
    return sorted(k for k in result.dims if re.search(rf"(?<![\w.]){re.escape(k)}(?![\w\[])", io))


def _symbols(shape, contexts) -> list:
    syms: set = set()
    for s in [shape] + [c[1] for c in contexts or ()]:
        if s is not None:
            syms |= s.symbols()
    return sorted(s for s in syms if not s.startswith(DYN_PREFIX))


def dims_section(symbols, result) -> str:
    """One bullet per symbolic dimension: origin and known facts."""
    lines = []
    seen = set()
    for name in symbols:
        if name in seen:
            continue
        seen.add(name)
        info = result.dims.get(name)
        if info is None:
            lines.append(f"- `{name}`")
            continue
        facts = ", ".join(f"`{f}`" for f in info.facts)
        origin = info.origin or ""  # Markdown already (the engine quotes names in backticks)
        lines.append(f"- `{name}`: {origin}" + (f" — {facts}" if facts else ""))
    return "\n".join(lines)


def _md_escape(text: str) -> str:
    return "".join("\\" + c if c in "*_[]`<>" else c for c in text)
