"""Comparing observed shapes (the runner's JSON) with inferred ones (`shapehint infer` JSON).

Invariants:
- Symbolic dims are evaluated, never compared as strings, under bindings built per invocation of
  each function (so a helper is checked with each call's own arguments): first the parameters'
  declared dims unified with the observed argument shapes (`x.shape[i]`/`x.size(i)` are always
  bound), then int arguments by name, then, in source order, a dim that is a bare unbound symbol
  is bound to what was observed there (a fresh symbol: it cannot disagree the first time), and an
  int assigned to a name binds that name when still unbound.
- `safe_eval` accepts only names, ints, + - * // % ** and unary minus, comparisons, and/or/not,
  and calls of max/min; anything else (or an unbound name) makes that dim unknown, never an error.
- A line's status is `match` when rank and every evaluable dim agree (a variadic `*name` matches
  any run of dims), `mismatch` otherwise, `not-inferred` when the engine has no shape for it, and
  `not-observable` on meta for what a data-dependent op kept from running.
- A model built by a factory of the file (`--build small()`) is also judged by the construction
  contexts of the factories its build runs (builders.py; one shape per kind of block): one of
  them must hold, so where the class on its own has no shape they decide the line.
"""
from __future__ import annotations

import ast
import operator
from typing import Optional

from ..frontend.pyast import parse as parse_ast
from .builders import built_by

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod, ast.Pow: operator.pow}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge}


class Unbound(Exception):
    """The expression mentions a symbol without a binding."""


def safe_eval(expr, env: dict):
    node = parse_ast(expr, mode="eval").body if isinstance(expr, str) else expr
    return _ev(node, env)


def _ev(n, env):
    if isinstance(n, ast.Constant) and type(n.value) in (int, bool):
        return n.value
    if isinstance(n, ast.Name):
        if n.id in env:
            return env[n.id]
        raise Unbound(n.id)
    if isinstance(n, (ast.Attribute, ast.Subscript, ast.Call)) and not (
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("max", "min")):
        key = ast.unparse(n)  # `x.shape[0]`-style symbol names are looked up by their text
        if key in env:
            return env[key]
        raise Unbound(key)
    if isinstance(n, ast.Call):
        vals = [_ev(a, env) for a in n.args]
        return max(vals) if n.func.id == "max" else min(vals)
    if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
        a, b = _ev(n.left, env), _ev(n.right, env)
        if isinstance(n.op, ast.Pow) and abs(b) > 64:
            raise ValueError("exponent too large")
        return _BIN[type(n.op)](a, b)
    if isinstance(n, ast.UnaryOp):
        v = _ev(n.operand, env)
        if isinstance(n.op, ast.USub):
            return -v
        if isinstance(n.op, ast.UAdd):
            return v
        if isinstance(n.op, ast.Not):
            return not v
    if isinstance(n, ast.BoolOp):
        vals = [_ev(v, env) for v in n.values]
        return all(vals) if isinstance(n.op, ast.And) else any(vals)
    if isinstance(n, ast.Compare):
        left = _ev(n.left, env)
        for op, right in zip(n.ops, n.comparators):
            r = _ev(right, env)
            if type(op) not in _CMP or not _CMP[type(op)](left, r):
                return False
            left = r
        return True
    raise ValueError(f"unsupported expression: {ast.unparse(n)}")


def _is_symbol(d) -> bool:
    return isinstance(d, str) and d.isidentifier()


def eval_dim(d, env: dict):
    """An inferred dim under bindings: int, or "?" when unknown or not evaluable."""
    if isinstance(d, bool):
        return "?"
    if isinstance(d, int):
        return d
    if not isinstance(d, str) or d == "?" or d.startswith("*"):
        return "?"
    try:
        v = safe_eval(d, env)
        return int(v) if isinstance(v, (int, bool)) else "?"
    except Exception:  # noqa: BLE001 - Unbound, syntax, ZeroDivision: unknown, not an error
        return "?"


def align(inferred: list, observed: list) -> Optional[list]:
    """Pairs (inferred dim, observed int) with a variadic segment absorbing the difference;
    None when the ranks cannot agree."""
    stars = [i for i, d in enumerate(inferred) if isinstance(d, str) and d.startswith("*")]
    if not stars:
        return list(zip(inferred, observed)) if len(inferred) == len(observed) else None
    k = stars[0]
    pre, post = inferred[:k], inferred[k + 1:]
    if len(pre) + len(post) > len(observed):
        return None
    tail = observed[len(observed) - len(post):] if post else []
    return list(zip(pre, observed[:len(pre)])) + list(zip(post, tail))


def unify(dims: list, observed: list, env: dict) -> None:
    """Bind the bare symbols of `dims` from `observed` (first binding wins)."""
    pairs = align(dims, observed) or []
    for d, o in pairs:
        if _is_symbol(d) and d not in env:
            env[d] = o


def status_of(inferred: Optional[list], observed: list, env: dict, bind: bool = True) -> tuple:
    """(status, concrete inferred list) for one observation; binds fresh bare symbols when `bind`."""
    if inferred is None or all(isinstance(d, str) and d.startswith("*") for d in inferred):
        return "not-inferred", None  # a bare variadic says nothing about this tensor
    pairs = align(inferred, observed)
    if pairs is None:
        return "mismatch", [eval_dim(d, env) if not (isinstance(d, str) and d.startswith("*")) else "?"
                            for d in inferred]
    if bind:
        for d, o in pairs:
            if _is_symbol(d) and d not in env:
                env[d] = o
    concrete = []
    ok = True
    for d, o in pairs:
        v = eval_dim(d, env)
        concrete.append(v)
        if v != "?" and v != o:
            ok = False
    if len(concrete) != len(observed):  # a variadic segment: its observed dims show as unknown
        k = _star(inferred)
        concrete = concrete[:k] + ["?"] * (len(observed) - len(concrete)) + concrete[k:]
    return ("match" if ok else "mismatch"), concrete


def _star(dims):
    return next(i for i, d in enumerate(dims) if isinstance(d, str) and d.startswith("*"))


def _code_point_col(text_lines: list, line: int, col: int) -> int:
    """ast gives UTF-8 byte offsets; the contract wants code points."""
    if 0 < line <= len(text_lines):
        return len(text_lines[line - 1].encode("utf-8")[:col].decode("utf-8", "replace"))
    return col


def index_inferred(infer_json: Optional[dict]) -> dict:
    """(function, line, name) -> list of value items."""
    out: dict = {}
    for v in (infer_json or {}).get("values", []):
        out.setdefault((v.get("function", "<module>"), v["line"], v["name"]), []).append(v)
    return out


def compare(run: dict, infer_json: Optional[dict], param_dims: dict, text: str, path: str) -> dict:
    """Lines, mismatches, summary and observed shapes for one runner result.

    `param_dims`: {qualname: {param: dims}} declared parameter shapes (annotations, assertions)."""
    text_lines = text.splitlines()
    inferred = index_inferred(infer_json)
    built = built_by([e["ctor_expr"] for e in run.get("entries", []) if e.get("ctor_expr")], text, path)
    items, seen, observed_keys = [], set(), set()
    hints: dict = {}
    envs: dict = {}  # function -> [env of each invocation], for judging helpers in the caller's terms
    pending = []  # (item, cand, observed shape, caller context) judged mismatching in the helper's own terms
    for call in run.get("calls", []):
        func = call["function"]
        env: dict = {}
        envs.setdefault(func, []).append(env)
        for name, a in call.get("args", {}).items():
            if "shape" in a:
                for i, d in enumerate(a["shape"]):
                    env[f"{name}.shape[{i}]"] = env[f"{name}.size({i})"] = d
                unify(param_dims.get(func, {}).get(name) or [], a["shape"], env)
                for v in inferred.get((func, _def_line(param_dims, func), name), []):
                    unify(v.get("shape") or [], a["shape"], env)
        for name, a in call.get("args", {}).items():
            if "int" in a:
                env.setdefault(name, a["int"])
        for rec in call.get("lines", []):
            col = _code_point_col(text_lines, rec["line"], rec["col"])
            cands = inferred.get((func, rec["line"], rec["name"]), [])
            cand = next((c for c in cands if c.get("col") == col), cands[0] if cands else None)
            for obs in rec["observed"]:
                if "int" in obs:
                    env.setdefault(rec["name"], obs["int"])
                    continue
                status, concrete = _judge(cand, obs["shape"], env, call["context"], built=built)
                observed_keys.add((func, rec["line"], rec["name"]))
                item = {"file": path, "line": rec["line"], "col": col, "name": rec["name"], "function": func,
                        "context": call["context"] + (f"#{call['invocation']}" if call.get("invocation") else ""),
                        "observed": obs["shape"], "dtype": obs.get("dtype"), "inferred": concrete,
                        "inferred_symbolic": cand.get("shape") if cand else None, "status": status}
                key = (rec["line"], col, rec["name"], func, item["context"], tuple(obs["shape"]), status)
                if key in seen:
                    continue
                seen.add(key)
                items.append(item)
                if status == "mismatch":
                    pending.append((item, cand, obs["shape"], call["context"]))
                h = hints.setdefault((rec["line"], col, rec["name"]), {"line": rec["line"], "col": col,
                                                                        "end_col": col + len(rec["name"]),
                                                                        "name": rec["name"], "shapes": []})
                if obs["shape"] not in h["shapes"]:
                    h["shapes"].append(obs["shape"])
    for item, cand, obs, context in pending:
        # A helper's inferred shape may be written in its caller's symbols (the engine analysed it
        # inline): it agrees when some invocation of a caller up the chain gives the observed shape.
        for env in _caller_envs(context, envs, run):
            status, concrete = _judge(cand, obs, dict(env), context, bind=False, built=built)
            if status == "match":
                item["status"], item["inferred"] = "match", concrete
                break
    meta_stop = _meta_stop(run)
    not_executed = 0
    for (func, line, name), vals in inferred.items():
        if (func, line, name) in observed_keys or any(v.get("shape") is None for v in vals):
            continue
        if meta_stop:
            v = vals[0]
            items.append({"file": path, "line": line, "col": v.get("col", 0), "name": name, "function": func,
                          "context": "meta", "observed": None, "dtype": None,
                          "inferred": [d if isinstance(d, int) else "?" for d in v["shape"]],
                          "inferred_symbolic": v["shape"], "status": "not-observable"})
        else:
            not_executed += 1
    items.sort(key=lambda it: (it["line"], it["col"], it["context"]))
    counts = {s: sum(1 for it in items if it["status"] == s)
              for s in ("match", "mismatch", "not-inferred", "not-observable")}
    decided = counts["match"] + counts["mismatch"]
    summary = dict(counts, not_executed=not_executed, observed=sum(1 for it in items if it["observed"] is not None),
                   agreement=(counts["match"] / decided) if decided else None)
    return {"lines": items, "mismatches": [it for it in items if it["status"] == "mismatch"],
            "summary": summary, "observed": sorted(hints.values(), key=lambda h: (h["line"], h["col"]))}


def _caller_envs(context: str, envs: dict, run: dict, depth: int = 3) -> list:
    """Envs of the invocations of the function named in a `CALLER:LINE` context, and of theirs."""
    out, todo = [], [context]
    for _ in range(depth):
        nxt = []
        for ctx in todo:
            caller = ctx.rsplit(":", 1)[0] if ":" in ctx and not ctx.startswith("entry:") else None
            if caller is None:
                continue
            out += envs.get(caller, [])
            nxt += [c["context"] for c in run.get("calls", []) if c["function"] == caller]
        todo = nxt
    return out


def _context_shape(cand, context: str):
    """The engine's per-context shape whose label names the same call site (`Net.forward:25`),
    when that names one shape: contexts of several instances reached from that line (one
    Sequential's blocks) cannot be told apart here. One with `via` is in the names of a function
    further up, which this call's bindings do not give."""
    if ":" not in context or context.startswith("entry:"):
        return None
    shapes = [c["shape"] for c in _own_contexts(cand) if str(c.get("context", "")) == context]
    return shapes[0] if shapes and all(s == shapes[0] for s in shapes) else None


def _own_contexts(cand) -> list:
    """The contexts whose dims are in the caller's names (no `via`), with a shape."""
    return [c for c in cand.get("contexts") or [] if c.get("shape") is not None and not c.get("via")]


def _judge(cand, observed, env, context="", bind=True, built=frozenset()):
    if cand is None:
        return "not-inferred", None
    as_built = _judge_built(cand, observed, env, built) if built else None
    if cand.get("shape") is None:
        return as_built or ("not-inferred", None)
    status, concrete = _judge_generic(cand, observed, env, context, bind)
    if status == "match" and as_built is not None and as_built[0] == "mismatch":
        return as_built  # the class's shape holds, the one for the model as built does not
    return status, concrete


def _judge_generic(cand, observed, env, context, bind):
    own = _context_shape(cand, context)
    if own is not None:
        s2, c2 = status_of(own, observed, env, bind)
        if s2 == "match":
            return s2, c2
    status, concrete = status_of(cand["shape"], observed, env, bind)
    if status == "mismatch":  # a join: any per-branch/iteration shape may hold
        for c in _own_contexts(cand):
            if status_of(c["shape"], observed, dict(env), bind=False)[0] == "match":
                return "match", concrete
    return status, concrete


def _built_name(context: str) -> str:
    """`Q:LINE` -> `Q`; an assumption after the line stays (`Q:LINE assuming len(p) == 4` ->
    `Q assuming len(p) == 4`: another context, which builders.built_by names only for the builds
    that satisfy it)."""
    where, sep, rest = context.partition(" assuming ")
    return where.rsplit(":", 1)[0] + (sep + rest if sep else "")


def _judge_built(cand, observed, env, built: frozenset):
    """The line judged by the construction contexts of the factories that built the model: a
    match when one holds, a mismatch when each is decided and none holds, else None."""
    shapes = [c["shape"] for c in cand.get("contexts") or [] if c.get("shape") is not None
              and _built_name(str(c.get("context", ""))) in built]
    judged = [status_of(s, observed, dict(env), bind=False) for s in shapes]
    hit = next((j for j in judged if j[0] == "match"), None)
    if hit is not None:
        return hit
    if judged and all(j[0] == "mismatch" for j in judged):
        return judged[0]
    return None


def _def_line(param_dims: dict, func: str):
    return (param_dims.get("__lines__") or {}).get(func)


def _meta_stop(run: dict) -> bool:
    if run.get("device") != "meta":
        return False
    errs = [e.get("error") for e in run.get("entries", [])] + [run.get("error")]
    return any(e and e.get("data_dependent") for e in errs)
