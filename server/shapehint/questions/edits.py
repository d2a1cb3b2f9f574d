"""Text edits for the question code actions: annotate a function, eliminate a branch, fill a hole.

Edits are plain data (1-based lines, 0-based code-point columns, end exclusive); the LSP layer
converts them. Every edit keeps the file parseable; the tests apply them and re-parse.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional


@dataclass
class Edit:
    line: int
    col: int
    end_line: int
    end_col: int
    text: str


def apply_edits(text: str, edits: list) -> str:
    lines = text.split("\n")
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln) + 1)

    def pos(line, col):
        return offsets[line - 1] + col if line - 1 < len(offsets) else len(text)
    out = text
    for e in sorted(edits, key=lambda e: (e.line, e.col), reverse=True):
        out = out[:pos(e.line, e.col)] + e.text + out[pos(e.end_line, e.end_col):]
    return out


def style_of(text: str) -> str:
    if re.search(r"^\s*(from\s+jaxtyping\s+import|import\s+jaxtyping)", text, re.M):
        return "jaxtyping"
    if re.search(r"^\s*from\s+torch\.fx\.tensor_type\s+import", text, re.M):
        return "tensortype"
    return "assert"


def _ident(name) -> str:
    s = re.sub(r"\W+", "_", str(name)).strip("_")
    return s if s and not s[0].isdigit() else f"d_{s}"


def annotate_edits(text: str, fn_node: ast.FunctionDef, migration: dict, fully_static: bool) -> list:
    style = style_of(text)
    params = {p["name"]: p for p in migration["params"] if p["shape"] is not None and not p["dyn_dims"]}
    if not params:
        return []
    edits = []
    args = {a.arg: a for a in fn_node.args.posonlyargs + fn_node.args.args + fn_node.args.kwonlyargs}
    if style in ("jaxtyping", "tensortype"):
        tensor = "Tensor" if re.search(r"from\s+torch\s+import\s+[^\n]*\bTensor\b", text) else "torch.Tensor"
        for name, p in params.items():
            a = args.get(name)
            if a is None or a.annotation is not None:
                continue
            dims = [p["shape"][i] if fully_static or p["forced"][i] is not None else None for i in range(len(p["shape"]))]
            if style == "jaxtyping":
                items = [str(d) if d is not None else _ident(p["names"][i]) for i, d in enumerate(dims)]
                ann = f'Float[{tensor}, "{" ".join(items)}"]'
            else:
                ann = "TensorType([" + ", ".join(str(d) if d is not None else "Dyn" for d in dims) + "])"
            edits.append(Edit(a.lineno, a.end_col_offset, a.lineno, a.end_col_offset, f": {ann}"))
        return edits
    checks = []
    for name, p in params.items():
        checks.append(f"{name}.ndim == {len(p['shape'])}")
        for i, v in enumerate(p["shape"]):
            if fully_static or p["forced"][i] is not None:
                checks.append(f"{name}.shape[{i}] == {v}")
    body0 = fn_node.body[0]
    if isinstance(body0, ast.Expr) and isinstance(body0.value, ast.Constant) and isinstance(body0.value.value, str) \
            and len(fn_node.body) > 1:
        body0 = fn_node.body[1]
    indent = " " * body0.col_offset
    line = f"{indent}assert {' and '.join(checks)}\n"
    if _already(text, line.strip()):
        return []
    return [Edit(body0.lineno, 0, body0.lineno, 0, line)]


def _already(text: str, stmt: str) -> bool:
    return any(l.strip() == stmt for l in text.splitlines())


def eliminate_branch_edits(text: str, node: ast.If, keep_body: bool) -> Optional[list]:
    """Replace the `if` statement with the arm that always runs, re-indented, comments kept."""
    lines = text.split("\n")
    indent = node.col_offset
    start, end = node.lineno, node.end_lineno
    if keep_body:
        first = node.test.end_lineno + 1  # from the line after `if ...:`, so leading comments stay
        if first > node.body[0].lineno:
            first = node.body[0].lineno
        last = node.orelse[0].lineno - 1 if node.orelse else end
        if node.orelse:
            # stop before the `else:`/`elif` header line
            last = _header_line(lines, node.orelse, node.body[-1].end_lineno)
        arm = lines[first - 1:last]
        src_indent = node.body[0].col_offset
    else:
        if not node.orelse:
            return [Edit(start, 0, end + 1 if end < len(lines) else end, 0 if end < len(lines) else len(lines[end - 1]),
                         " " * indent + "pass\n" if _only_stmt(node, text) else "")]
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) and \
                lines[node.orelse[0].lineno - 1].lstrip().startswith("elif"):
            el = node.orelse[0]
            arm = lines[el.lineno - 1:el.end_lineno]
            arm[0] = arm[0].replace("elif", "if", 1)
            src_indent = indent
            return _replace(lines, start, end, arm, src_indent, indent)
        first = _header_line(lines, node.orelse, node.body[-1].end_lineno) + 2  # after `else:`
        if first > node.orelse[0].lineno:
            first = node.orelse[0].lineno
        arm = lines[first - 1:end]
        src_indent = node.orelse[0].col_offset
    return _replace(lines, start, end, arm, src_indent, indent)


def _only_stmt(node, text) -> bool:
    return False


def _header_line(lines, orelse, body_end) -> int:
    for ln in range(body_end, orelse[0].lineno):
        s = lines[ln].strip() if ln < len(lines) else ""
        if s.startswith("else") or s.startswith("elif"):
            return ln
    return orelse[0].lineno - 1


def _replace(lines, start, end, arm, src_indent, indent) -> list:
    shift = src_indent - indent
    out = []
    for ln in arm:
        if ln.strip() == "":
            out.append("")
        elif len(ln) - len(ln.lstrip()) >= shift:
            out.append(ln[shift:])
        else:
            out.append(" " * indent + ln.lstrip())
    while out and out[-1] == "":
        out.pop()
    return [Edit(start, 0, end, len(lines[end - 1]), "\n".join(out))]


def fill_hole_edit(line: int, col: int, value: int) -> Edit:
    return Edit(line, col, line, col + 2, str(value))
