"""bench/realmodels/noinput.py (Run Shapes without --input on the benchmark's models), on the small
offline package written for the benchmark's tests: the model is found in its package, built by
its build expression, given an inferred input, run, and compared."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "realmodels"))
import noinput  # noqa: E402

FIXTURES = os.path.join(HERE, "realmodels_fixtures")
CONVNET = dict(id="tiny_convnet", package="fixture", file="tinypkg/models/convnet.py", entry="TinyNet",
               build="TinyNet()", inputs={"x": {"shape": [2, 3, 32, 32]}})


def test_a_package_model_runs_without_input_and_is_compared():
    r = noinput.run_one(CONVNET, FIXTURES, [FIXTURES], timeout=120)
    assert r["error"] is None, r
    assert r["inputs"]["x"]["source"] == "inferred" and len(r["inputs"]["x"]["shape"]) == 4
    assert r["counts"].get("match", 0) > 0
    assert r["ok"] == (r["counts"].get("mismatch", 0) == 0)


def test_a_mismatch_or_an_error_fails_the_model():
    line = {"line": 3, "name": "y", "observed": [2, 4], "inferred": [2, 5], "context": "f", "status": "mismatch"}
    bad = noinput.summarise("m", {"lines": [line], "mismatches": [line], "error": None, "inputs": {}})
    assert not bad["ok"] and bad["counts"] == {"mismatch": 1}
    crashed = noinput.summarise("m", {"lines": [], "mismatches": [], "error": {"type": "RuntimeError", "message": "x"},
                                      "inputs": {}})
    assert not crashed["ok"] and crashed["error"] == "RuntimeError: x"
    assert "0 of 2 models ran" not in noinput.render([bad, crashed]) and "0 of them with no mismatch" in \
        noinput.render([bad, crashed])
