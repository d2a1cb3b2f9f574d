"""Code actions through a small provider registry.

A provider is a plain function `(ActionContext) -> iterable of Action`, registered with
`@provider`; later features (migration, holes, branch elimination) plug in the same way, from
their own modules, and may return an Action carrying a `command` instead of edits. Providers
run independently: one that raises is logged and skipped, never failing the request.

Built in:
  refactor.rewrite  "Insert inferred shape as comment"   `y = f(x)  # [B, 10]`
  refactor.rewrite  "Annotate with inferred shape"       in the file's style: jaxtyping when the
                    file imports it, TensorType when it imports torch.fx's, else an
                    `assert y.shape == (B, 10)` after the statement (needs no import)
  quickfix          "Update shape comment" for SH204, "Update the annotation" for SH110 on an
                    annotated variable, and "Ignore SHxxx on this line".
Edits are in code points (1-based lines). Tests: tests/lsp/test_code_actions.py.
"""
from __future__ import annotations

import io
import logging
import re
import tokenize
from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

log = logging.getLogger(__name__)

QUICKFIX = "quickfix"
REWRITE = "refactor.rewrite"


@dataclass(frozen=True)
class Edit:
    line: int
    col: int
    end_line: int
    end_col: int
    new_text: str


@dataclass
class Action:
    title: str
    kind: str
    edits: list = field(default_factory=list)
    command: Optional[tuple] = None  # (command name, [arguments])
    preferred: bool = False
    diagnostics: list = field(default_factory=list)  # domain diagnostics this action fixes


@dataclass
class ActionContext:
    result: object  # AnalysisResult
    line: int
    col: int
    end_line: int
    end_col: int
    diagnostics: list  # domain diagnostics overlapping the range (after config)
    settings: object = None
    uri: str = ""
    session: object = None  # AnalysisSession: the live analysis (questions); None without one

    @property
    def lines(self) -> list:
        return self.result.text.split("\n")

    def line_text(self, line: int) -> str:
        lines = self.lines
        return lines[line - 1] if 0 < line <= len(lines) else ""


_PROVIDERS: list = []


def provider(fn: Callable[[ActionContext], Iterable[Action]]):
    """Register a code-action provider (a decorator)."""
    _PROVIDERS.append(fn)
    return fn


def code_actions(ctx: ActionContext, only: Optional[list] = None) -> list:
    out = []
    for fn in list(_PROVIDERS):
        try:
            for a in fn(ctx) or ():
                if not only or any(a.kind == k or a.kind.startswith(k + ".") for k in only):
                    out.append(a)
        except Exception:
            log.exception("code action provider %s failed", getattr(fn, "__name__", fn))
    return out


# ---- helpers ------------------------------------------------------------------

def _targets(ctx: ActionContext) -> list:
    """Tensor targets with a known shape on the lines of the range."""
    return [v for v in ctx.result.values
            if v.is_target and v.kind == "tensor" and v.shape is not None and v.shape.known
            and ctx.line <= v.span.line <= ctx.end_line]


def _comment_col(text: str) -> Optional[int]:
    """Column of the `#` starting the line's comment, if any (strings are skipped)."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text + "\n").readline):
            if tok.type == tokenize.COMMENT:
                return tok.start[1]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return text.index("#") if "#" in text and text.count('"') == 0 and text.count("'") == 0 else None


_ASSIGN = re.compile(r"^[\w\s,()\[\]*.]+?(:[^=]+)?\s*[-+*/@%&|^<>]{0,2}=(?!=)")


def _is_assignment(text: str) -> bool:
    return bool(_ASSIGN.match(text.strip())) and not text.strip().startswith(("for ", "with ", "def "))


def _statement_end(lines: list, line: int) -> int:
    """Last physical line (1-based) of the statement that starts on `line`."""
    src = "\n".join(lines[line - 1:]) + "\n"
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif tok.type in (tokenize.NEWLINE,) and depth <= 0:
                return line + tok.start[0] - 1
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return line


# ---- insert shape comment ---------------------------------------------------------

@provider
def insert_shape_comment(ctx: ActionContext):
    by_line: dict = {}
    for v in _targets(ctx):
        by_line.setdefault(v.span.line, []).append(v)
    for line, vs in by_line.items():
        text = ctx.line_text(line)
        if len(vs) != 1 or _comment_col(text) is not None or not _is_assignment(text):
            continue
        end = len(text.rstrip())
        yield Action("Insert inferred shape as comment", REWRITE,
                     [Edit(line, end, line, len(text), f"  # {vs[0].shape}")])


@provider
def update_shape_comment(ctx: ActionContext):
    for d in ctx.diagnostics:
        if d.code != "SH204":
            continue
        text = ctx.line_text(d.line)
        col = _comment_col(text)
        vs = [v for v in _targets(ctx) if v.span.line == d.line] or [
            v for v in ctx.result.values if v.is_target and v.span.line == d.line and v.shape is not None]
        if col is None or len(vs) != 1:
            continue
        prefix = "# shape: " if re.match(r"#\s*shape\s*:", text[col:]) else "# "
        yield Action(f"Update shape comment to {vs[0].shape}", QUICKFIX,
                     [Edit(d.line, col, d.line, len(text.rstrip()), f"{prefix}{vs[0].shape}")],
                     preferred=True, diagnostics=[d])


@provider
def update_annotation(ctx: ActionContext):
    """SH110 on `h: Float[Tensor, "B T 64"] = x @ w`: write the inferred shape into the
    annotation's dims string (only where the whole shape is known and the string is on the line)."""
    for d in ctx.diagnostics:
        if d.code != "SH110":
            continue
        text = ctx.line_text(d.line)
        vs = [v for v in _targets(ctx) if v.span.line == d.line and v.span.col == d.col]
        m = re.match(r"\s*[A-Za-z_][\w.]*\s*:[^=]*?(\"[^\"\n]*\"|'[^'\n]*')[^=]*=(?!=)", text)
        if len(vs) != 1 or m is None or vs[0].name not in text[:m.start(1)]:
            continue
        items = ["_" if i == "?" else i.replace(" ", "") for i in _items(vs[0].shape)]
        q = m.group(1)[0]
        yield Action(f"Update the annotation to {vs[0].shape}", QUICKFIX,
                     [Edit(d.line, m.start(1), d.line, m.end(1), f"{q}{' '.join(items)}{q}")],
                     preferred=True, diagnostics=[d])


# ---- suppress ----------------------------------------------------------------------

_IGNORE = re.compile(r"#\s*shapehint\s*:\s*ignore\s*(\[([^\]]*)\])?", re.IGNORECASE)


@provider
def suppress(ctx: ActionContext):
    seen = set()
    for d in ctx.diagnostics:
        if (d.line, d.code) in seen:
            continue
        seen.add((d.line, d.code))
        text = ctx.line_text(d.line)
        m = _IGNORE.search(text)
        if m and m.group(1) is None:
            continue  # a bare ignore already covers every code
        if m:
            codes = [c.strip() for c in m.group(2).split(",") if c.strip()]
            if d.code in codes:
                continue
            edit = Edit(d.line, m.start(1), d.line, m.end(1), "[" + ", ".join(codes + [d.code]) + "]")
        else:
            end = len(text.rstrip())
            edit = Edit(d.line, end, d.line, len(text), f"  # shapehint: ignore[{d.code}]")
        yield Action(f"Ignore {d.code} on this line", QUICKFIX, [edit], diagnostics=[d])


# ---- annotate ------------------------------------------------------------------------

@provider
def annotate(ctx: ActionContext):
    text = ctx.result.text
    for v in _targets(ctx):
        line_text = ctx.line_text(v.span.line)
        if v.has_annotation or not _is_assignment(line_text):
            continue
        edit = _jaxtyping_edit(ctx, v, text, line_text) or _tensortype_edit(v, text, line_text) \
            or _assert_edit(ctx, v)
        if edit is not None:
            yield Action("Annotate with inferred shape", REWRITE, [edit])


def _simple_target(v, line_text: str) -> bool:
    """`name = ...` (one plain name, not yet annotated)."""
    rest = line_text[v.span.end_col:]
    return line_text[:v.span.col].strip() == "" and re.match(r"\s*=(?!=)", rest) is not None


def _imports(text: str, module: str, name: str) -> bool:
    pat = rf"^\s*from\s+{re.escape(module)}\s+import\s+[^\n]*\b{name}\b"
    return re.search(pat, text, re.M) is not None


def _jaxtyping_edit(ctx, v, text: str, line_text: str) -> Optional[Edit]:
    if not _simple_target(v, line_text) or not re.search(r"^\s*(from|import)\s+jaxtyping\b", text, re.M):
        return None
    cls = _jax_class(v.dtype)
    if not _imports(text, "jaxtyping", cls):
        return None
    tensor = "Tensor" if _imports(text, "torch", "Tensor") else "torch.Tensor"
    items = []
    for d in _items(v.shape):
        items.append("_" if d == "?" else d.replace(" ", ""))
    return Edit(v.span.end_line, v.span.end_col, v.span.end_line, v.span.end_col,
                f": {cls}[{tensor}, \"{' '.join(items)}\"]")


def _jax_class(dtype: Optional[str]) -> str:
    d = (dtype or "").replace("torch.", "")
    if d.startswith(("float", "half", "double", "bfloat")):
        return "Float"
    if d.startswith(("int", "long", "short", "uint")):
        return "Int"
    if d == "bool":
        return "Bool"
    return "Shaped"


def _items(shape) -> list:
    from ...shapes.shape import dim_str
    return [dim_str(d) for d in shape.dims]


def _tensortype_edit(v, text: str, line_text: str) -> Optional[Edit]:
    if not _simple_target(v, line_text) or not _imports(text, "torch.fx.tensor_type", "TensorType"):
        return None
    items = [d if re.fullmatch(r"\d+", d) else "Dyn" for d in _items(v.shape)]
    if "Dyn" in items and not _imports(text, "torch.fx.tensor_type", "Dyn"):
        return None
    inner = ", ".join(items) + ("," if len(items) == 1 else "")
    return Edit(v.span.end_line, v.span.end_col, v.span.end_line, v.span.end_col,
                f": TensorType(({inner}))")


def _assert_edit(ctx: ActionContext, v) -> Optional[Edit]:
    lines = ctx.lines
    end = _statement_end(lines, v.span.line)
    first = lines[v.span.line - 1]
    indent = first[:len(first) - len(first.lstrip())]
    name = v.name
    if not re.fullmatch(r"[A-Za-z_]\w*", name or ""):
        return None
    exprs = [_dim_expr(ctx, v, d) for d in v.shape.dims]
    if all(e is not None for e in exprs):
        tup = ", ".join(exprs) + ("," if len(exprs) == 1 else "")
        cond = f"{name}.shape == ({tup})"
    else:
        parts = [f"{name}.dim() == {len(exprs)}"]
        parts += [f"{name}.shape[{i}] == {e}" for i, e in enumerate(exprs) if e is not None]
        cond = " and ".join(parts)
    end_text = lines[end - 1]
    return Edit(end, len(end_text), end, len(end_text), f"\n{indent}assert {cond}")


def _dim_expr(ctx: ActionContext, v, dim) -> Optional[str]:
    """A Python expression for a dimension (an Expr), or None when a symbol is not in scope."""
    from ...shapes.shape import dim_str, is_dyn
    if is_dyn(dim):
        return None
    out = dim_str(dim)
    for sym in sorted(dim.symbols(), key=len, reverse=True):
        repl = _symbol_expr(ctx, v, sym)
        if repl is None:
            return None
        if repl != sym:
            out = re.sub(rf"(?<![\w.]){re.escape(sym)}(?![\w\[])", repl, out)
    return out


def _symbol_expr(ctx: ActionContext, v, sym: str) -> Optional[str]:
    """How to write symbol `sym` in Python at the value's line: itself when it is a name bound
    in the function (or `p.shape[i]` of a parameter p), else from its origin, else None."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\.shape\[(\d+)\]", sym)
    if m:
        return sym if _bound(ctx, v, m.group(1)) else None
    if re.fullmatch(r"[A-Za-z_]\w*", sym) and _bound(ctx, v, sym):
        return sym
    info = ctx.result.dims.get(sym)
    m = re.match(r"parameter `?(\w+)`?, axis (\d+)", getattr(info, "origin", "") or "")
    if m and _bound(ctx, v, m.group(1)):
        return f"{m.group(1)}.shape[{m.group(2)}]"
    return None


def _bound(ctx: ActionContext, v, name: str) -> bool:
    """Whether `name` is a parameter of the value's function or assigned before its line."""
    fn_span = ctx.result.functions.get(v.function) if v.function != "<module>" else None
    start = fn_span.line if fn_span is not None else 1
    lines = ctx.lines
    if fn_span is not None and re.search(rf"\b{re.escape(name)}\b", _signature(lines, start)):
        return True
    for i in range(start, v.span.line):
        code = lines[i - 1].split("#", 1)[0]
        m = re.match(r"\s*([\w\s,()]+?)\s*=(?!=)", code)
        if m and name in re.split(r"[\s,()]+", m.group(1)):
            return True
    return False


def _signature(lines: list, def_line: int) -> str:
    end = _statement_end(lines, def_line)
    return " ".join(lines[def_line - 1:end])
