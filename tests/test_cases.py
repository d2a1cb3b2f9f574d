"""The data-driven test: every program in tests/cases/*.py and shared/examples/*.py is analysed
and its inline expectations are checked (syntax: tests/cases/_expect.py).

(a) every `# expect:` line has a value record for each named target whose shape equals the
    expectation (dimensions compared by evaluating both sides under random bindings of the
    symbols, never as strings);
(b) every `# E[code]` / `# W[code]` / `# bug: ... (code)` marker has a diagnostic with that code
    on that line; no error diagnostic appears on an unmarked line; in programs without error
    markers every warning is marked.

`pytest tests/test_cases.py --update-cases` rewrites the expectations from the current
inference (the committed ones are the ground truth checked against torch by
`python tests/cases/_verify.py`; review the diff before keeping a rewrite).
"""
from __future__ import annotations

import glob
import importlib.util
import os
import sys

import pytest

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
CASES_DIR = os.path.join(TESTS, "cases")
EXAMPLES_DIR = os.path.join(ROOT, "shared", "examples")


def _load_expect():
    name = "_shapehint_case_expect"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(CASES_DIR, "_expect.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up while the class is created
    spec.loader.exec_module(mod)
    return mod


expect = _load_expect()


def case_files() -> list:
    cases = sorted(f for f in glob.glob(os.path.join(CASES_DIR, "*.py"))
                   if not os.path.basename(f).startswith("_"))
    return cases + sorted(glob.glob(os.path.join(EXAMPLES_DIR, "*.py")))


def _id(path: str) -> str:
    return os.path.relpath(path, ROOT)


def analyse(case) -> dict:
    """The `infer` JSON, plus (`defaults`) each symbol that stands for a constructor parameter's
    or config attribute's default and that default: the expectations describe the program as its
    `# entry:` builds it, with the defaults, while the analysis keeps them symbolic (defaults are
    not facts), so an answer meets an expectation when it does with the defaults bound."""
    from shapehint.analysis.api import analyze_source
    res = analyze_source(case.text, case.path)
    out = res.infer_json()
    out["defaults"] = _with_equal_names({n: i.default for n, i in res.dims.items() if i.default is not None},
                                        [f for i in res.dims.values() for f in i.facts])
    return out


def _with_equal_names(fixed: dict, facts: list) -> dict:
    """`fixed` plus the names a proven `NAME == EXPR` fact equates with what `fixed` binds (`C ==
    cfg.n_embd` after `B, T, C = x.size()` fed a Linear(cfg.n_embd)): the user's name is kept in
    the answer, and with the defaults it is the default's value."""
    fixed = dict(fixed)
    pairs = [tuple(s.strip() for s in f.split(" == ")) for f in facts if f.count(" == ") == 1]
    grew = True
    while grew:
        grew = False
        for a, b in pairs + [(b, a) for a, b in pairs]:
            if a in fixed or not a.isidentifier():
                continue
            try:
                fixed[a] = expect.evaluate(b, {expect.normalise(k): v for k, v in fixed.items()})
                grew = True
            except (ValueError, SyntaxError, ZeroDivisionError, NameError):
                pass
    return fixed


# ---- checking ---------------------------------------------------------------------------------

def check_values(case, result) -> list:
    """(line, what, expected, got) rows for expectations the inference does not meet."""
    by_key = {}
    for v in result.get("values", []):
        by_key.setdefault((v["line"], v["name"]), []).append(v)
    rows = []
    for line in sorted(case.expectations):
        for name, want in case.expectations[line].shapes.items():
            recs = by_key.get((line, name))
            if not recs:
                rows.append((line, name, expect.fmt(want), "no value record"))
                continue
            shapes = [r.get("shape") for r in recs]
            if not any(expect.dims_equal(want, s, result.get("defaults")) for s in shapes):
                rows.append((line, name, expect.fmt(want), " | ".join(expect.fmt(s) for s in shapes)))
    return rows


def check_diagnostics(case, result) -> list:
    diags = result.get("diagnostics", [])
    by_line = {}
    for d in diags:
        by_line.setdefault(d["line"], []).append(d)
    rows = []
    marked = {}  # line -> set of codes (None: any error code, from a `bug:` comment without one)
    for m in case.markers:
        marked.setdefault(m.line, set()).add(m.code)
        here = by_line.get(m.line, [])
        if m.kind == "bug" and m.code is None:
            ok = any(d["severity"] == "error" for d in here)
        else:
            ok = any(d["code"] == m.code for d in here)
        if not ok:
            got = ", ".join(f"{d['code']} {d['message']}" for d in here) or "no diagnostic on this line"
            label = f"bug({m.code or 'any error'})" if m.kind == "bug" else f"{m.kind}[{m.code}]"
            rows.append((m.line, label, f"diagnostic {m.code or 'error'}", got))
    has_errors = any(m.kind in ("E", "bug") for m in case.markers)
    for d in diags:
        codes = marked.get(d["line"], set())
        allowed = d["code"] in codes or (None in codes and d["severity"] == "error")
        if allowed:
            continue
        if d["severity"] == "error" or (d["severity"] == "warning" and not has_errors):
            rows.append((d["line"], f"unmarked {d['severity']}", "nothing", f"{d['code']} {d['message']}"))
    return rows


def render(path, rows) -> str:
    rows = sorted(rows, key=lambda r: r[0])
    w = max(len(str(r[1])) for r in rows)
    lines = [f"{_id(path)}: {len(rows)} disagreement(s) with the inline expectations"]
    for line, what, want, got in rows:
        lines.append(f"  line {line:>4}  {what:<{w}}  expected {want}\n"
                     f"  {'':>9}  {'':<{w}}  got      {got}")
    return "\n".join(lines)


# ---- --update-cases ---------------------------------------------------------------------------

def _spec_for(names, got) -> str | None:
    parts = []
    for name in names:
        shape = got.get(name)
        if shape is None:
            return None
        parts.append((name, expect.fmt(shape)))
    if len(parts) == 1:
        return parts[0][1]
    return "; ".join(f"{n}={s}" for n, s in parts)


def rewrite(case, result) -> int:
    got = {}
    for v in result.get("values", []):
        if v.get("shape") is not None:
            got.setdefault(v["line"], {}).setdefault(v["name"], v["shape"])
    lines = case.text.splitlines(keepends=True)
    changed = 0
    for line, exp in case.expectations.items():
        new = _spec_for(list(exp.shapes), got.get(line, {}))
        if new is None or new == exp.spec:
            continue
        text = lines[line - 1]
        old = "expect: " + exp.spec
        at = text.rfind(old)
        if at < 0:
            continue
        lines[line - 1] = text[:at] + "expect: " + new + text[at + len(old):]
        changed += 1
    if changed:
        with open(case.path, "w", encoding="utf-8") as fh:
            fh.write("".join(lines))
    return changed


@pytest.mark.parametrize("path", case_files(), ids=_id)
def test_case(path, request):
    case = expect.parse_case(path)
    assert not case.errors, "malformed expectations:\n" + "\n".join(case.errors)
    result = analyse(case)
    if request.config.getoption("--update-cases"):
        n = rewrite(case, result)
        pytest.skip(f"--update-cases: {n} expectation(s) rewritten in {_id(path)}")
    rows = check_values(case, result) + check_diagnostics(case, result)
    if rows:
        pytest.fail(render(path, rows), pytrace=False)
