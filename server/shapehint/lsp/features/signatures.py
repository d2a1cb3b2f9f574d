"""Inferred input signatures in the editor: hover on `def forward` / a class name, a code lens
with the typical input, and a quick fix that writes the signature as an annotation.

Plain functions of the analysis session (no protocol types). Signatures may query the solver and
re-analyse a function (the rank search), so the handlers call these on the analysis thread;
each is kept with the session (`AnalysisSession.memo`). The annotation is written in the file's
own style (`questions.edits.style_of`): jaxtyping where the file imports it (symbolic names
where the code leaves a dimension free), else an `assert` of the rank, the fixed dimensions and
the constraints, over `x.shape[i]`. Tests: tests/lsp/test_signatures.py.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional

from ...frontend.pyast import parse as parse_ast
from .actions import QUICKFIX, Action, ActionContext, Edit, provider


SIGNATURE_STEPS = 100_000  # interpreter steps (the migration's per-answer budget)


@dataclass
class SigLens:
    line: int
    col: int
    entry: str  # the device-run entry (class name or function qualname)
    title: str
    inputs: dict  # {param: "2,1,28,28[:dtype]"} for shapehint.deviceRun


def signature_of(session, qualname: str):
    from ...questions.signatures import signature
    # one step budget for all the rank searches of a session's signatures: the editor asks for
    # lenses after every change, on the thread that analyses the next version
    budget = session.memo("signature budget", lambda: [SIGNATURE_STEPS])
    return session.memo(f"signature {qualname}", lambda: signature(session, qualname, budget))


def _takes_tensors(session, qualname: str) -> bool:
    from ...questions import sigsource
    return session.memo(f"takes tensors {qualname}", lambda: sigsource.takes_tensors(session, qualname))


def qualname_at(session, line: int, col: Optional[int]) -> Optional[str]:
    """The function whose `def` name, or the class (its `forward`) whose name, is at the position
    (anywhere on that line when `col` is None)."""
    for start, end, q in session.memo("def names", lambda: _def_names(session.result.text)).get(line, ()):
        if (col is None or start <= col <= end) and _takes_tensors(session, q):
            return q
    return None


def _def_names(text: str) -> dict:
    """line -> [(name start, end, qualname)] of classes (as their `forward`) and functions."""
    try:
        tree = parse_ast(text)
    except SyntaxError:
        return {}
    out: dict = {}

    def visit(body, prefix):
        for n in body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = prefix + n.name
                start = n.col_offset + (6 if isinstance(n, ast.ClassDef) else 4 if isinstance(n, ast.FunctionDef) else 10)
                target = q + ".forward" if isinstance(n, ast.ClassDef) else q
                out.setdefault(n.lineno, []).append((start, start + len(n.name), target))
                if isinstance(n, ast.ClassDef):
                    visit(n.body, q + ".")
    visit(tree.body, "")
    return out


def signature_hover(session, line: int, col: int) -> Optional[tuple]:
    """(markdown, (line, col, end_col)) for a signature at the position, or None."""
    if session is None or not session.live():
        return None
    q = qualname_at(session, line, col)
    if q is None:
        return None
    return markdown(signature_of(session, q)), q


def markdown(sig) -> str:
    parts = [f"**{sig.function}** takes"]
    for p in sig.params:
        shape = "Tensor[?]" if p.shape is None else "Tensor[" + ", ".join(map(str, p.shape)) + "]"
        line = f"- `{p.name}`: `{shape}`" + (f" · `{p.dtype}`" if p.dtype else "") + (" (optional)" if p.optional else "")
        if p.constraints:
            line += " where " + ", ".join(f"`{c}`" for c in p.constraints)
        if p.requires:
            line += " for a model built with " + ", ".join(f"`{c}`" for c in p.requires)
        if p.example is not None:
            line += f" — typical `{p.example}`"
        parts.append(line)
    if sig.problem:
        parts.append(f"No typical input: {sig.problem}")
    return "\n".join(parts)


def signature_lenses(session) -> list:
    """A lens above each entry (top-level module class, top-level function) with a typical input."""
    if session is None or not session.live():
        return []
    return session.memo("signature lenses", lambda: _lenses(session))


def _lenses(session) -> list:
    out = []
    try:
        tree = parse_ast(session.result.text)
    except SyntaxError:
        return out
    for n in tree.body:
        if isinstance(n, ast.ClassDef):
            q, entry = n.name + ".forward", n.name
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            q, entry = n.name, n.name
        else:
            continue
        if not _takes_tensors(session, q):
            continue
        sig = signature_of(session, q)
        example = sig.example()
        if not example:
            continue
        shown = ", ".join(f"{k}=[{', '.join(map(str, s))}]" + ("" if d == "float32" else f":{d}")
                          for k, (s, d) in example.items())
        out.append(SigLens(n.lineno, n.col_offset, entry, f"Typical input: {shown}",
                           {k: ",".join(map(str, s)) + ("" if d == "float32" else f":{d}")
                            for k, (s, d) in example.items()}))
    return out


def annotation_edits(session, qualname: str) -> list:
    """Edits writing the signature of `qualname` as an annotation in the file's style."""
    from ...questions.edits import style_of
    sig = signature_of(session, qualname)
    fn = _def_node(session.result.text, qualname)
    if fn is None:
        return []
    args = {a.arg: a for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    params = [p for p in sig.params if p.shape is not None and not p.optional and p.name in args
              and args[p.name].annotation is None]
    if not params:
        return []
    if style_of(session.result.text) == "jaxtyping":
        tensor = "Tensor" if re.search(r"from\s+torch\s+import\s+[^\n]*\bTensor\b", session.result.text) else "torch.Tensor"
        edits = []
        for p in params:
            a = args[p.name]
            kind = "Int" if p.dtype == "int64" else "Bool" if p.dtype == "bool" else "Float"
            edits.append(Edit(a.lineno, a.end_col_offset, a.lineno, a.end_col_offset,
                              f': {kind}[{tensor}, "{" ".join(map(str, p.shape))}"]'))
        return edits
    checks = []
    for p in params:
        checks.append(f"{p.name}.ndim == {len(p.shape)}")
        axis = {}
        for i, d in enumerate(p.shape):
            if isinstance(d, int):
                checks.append(f"{p.name}.shape[{i}] == {d}")
            elif re.fullmatch(r"\w+", d):
                axis.setdefault(d, f"{p.name}.shape[{i}]")
        for c in p.constraints:
            checks.append(re.sub(r"\b\w+\b", lambda m: axis.get(m.group(0), m.group(0)), c))
    body0 = fn.body[0]
    if isinstance(body0, ast.Expr) and isinstance(body0.value, ast.Constant) and isinstance(body0.value.value, str) \
            and len(fn.body) > 1:
        body0 = fn.body[1]
    text = " " * body0.col_offset + f"assert {' and '.join(checks)}\n"
    return [Edit(body0.lineno, 0, body0.lineno, 0, text)]


def _def_node(text: str, qualname: str):
    try:
        tree = parse_ast(text)
    except SyntaxError:
        return None
    body, node = tree.body, None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


@provider
def annotate_inputs(ctx: ActionContext):
    """On the `def` line (or a class's name): write the inferred input signature."""
    if ctx.session is None or not ctx.session.live():
        return
    q = qualname_at(ctx.session, ctx.line, None)
    if q is None:
        return
    edits = annotation_edits(ctx.session, q)
    if edits:
        yield Action(f"Annotate {q.split('.')[-1]}'s inputs with their inferred signature", QUICKFIX, edits)
