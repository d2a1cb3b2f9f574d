"""Device run against the real engine: agreement on the built-in examples and the case files,
and a deliberately wrong operator rule caught on its line.

Skipped only while `shapehint.analysis.api.analyze_source` cannot be imported (engine not there)."""
import dataclasses
import glob
import os

import pytest

from shapehint.devicerun import api

from .helpers import FIX, fixture, line_of

try:
    from shapehint.analysis.api import analyze_source
except ImportError:  # pragma: no cover - the engine is not there yet
    analyze_source = None

pytestmark = pytest.mark.skipif(analyze_source is None, reason="shapehint.analysis.api not importable yet")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _corpus():
    files = sorted(glob.glob(os.path.join(ROOT, "shared", "examples", "*.py")))
    files += sorted(f for f in glob.glob(os.path.join(ROOT, "tests", "cases", "*.py"))
                    if not os.path.basename(f).startswith("_"))
    return files + [os.path.join(FIX, n) for n in ("cnn.py", "gpt.py", "relu.py")]


def test_examples_and_cases_agree_wherever_a_shape_is_inferred():
    files = _corpus()
    results = api.device_run_many(files, device="cpu", timeout=120)  # one interpreter, one torch import
    problems, matched = [], 0
    for f, r in zip(files, results):
        name = os.path.relpath(f, ROOT)
        if any("inference unavailable" in n for n in r["notes"]):
            problems.append(f"{name}: {r['notes']}")
        for m in r["mismatches"]:
            problems.append(f"{name}:{m['line']}: {m['name']} observed {m['observed']} inferred {m['inferred']} "
                            f"(= {m['inferred_symbolic']}) in {m['function']} [{m['context']}]")
        if r["error"] and r["error"]["type"] in ("Timeout", "Exited", "SIGSEGV", "OutOfMemory", "UsageError"):
            problems.append(f"{name}: {r['error']}")
        matched += r["summary"]["match"]
    assert not problems, "\n".join(problems)
    assert matched > 0


def test_a_wrong_rule_shows_up_as_a_mismatch_on_its_line(monkeypatch):
    from shapehint.ops import registry
    from shapehint.shapes.expr import Expr
    from shapehint.shapes.shape import Shape

    path, text = fixture("relu.py")
    rule = registry.lookup("torch.nn.functional.relu")
    orig = rule.fn

    def wrong(*args, **kwargs):  # relu "adds" a trailing axis of size 1
        out = orig(*args, **kwargs)
        return dataclasses.replace(out, shape=Shape(tuple(out.shape.dims) + (Expr.lift(1),)))

    good = api.device_run(path, text, device="cpu")
    assert good["mismatches"] == [] and good["summary"]["match"] == 3
    monkeypatch.setattr(rule, "fn", wrong)
    infer = analyze_source(text, path).infer_json()
    bad = api.assemble(path, text, "cpu", _raw(path, text), infer)
    relu = line_of(text, "y = F.relu(h)")
    assert min(m["line"] for m in bad["mismatches"]) == relu
    first = next(m for m in bad["mismatches"] if m["line"] == relu)
    assert first["observed"] == [2, 8] and first["inferred"] == [2, 8, 1]
    diags = api.to_diagnostics(bad, text)
    assert ("SH501", relu) in {(d["code"], d["line"]) for d in diags}


def _raw(path, text):
    from shapehint.devicerun.inputs import plan_entries
    import sys
    (p,) = plan_entries(text, "f")
    return api.execute({"path": path, "source": text, "device": "cpu", "entries": [p.request()]}, sys.executable, 60)
