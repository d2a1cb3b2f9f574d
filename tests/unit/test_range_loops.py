"""The element of a `range` loop the analysis does not unroll: its bounds follow the step.
A descending `range(k, -1, -1)` was read as k <= i < -1 (no such i), so every check in the body
was "provably" failing: a false SH105 on torch's own `_expanded_weights/conv_utils.py`."""
import pytest

from shapehint.analysis.api import analyze_source


def _errors(body: str, params: str = "k: int, x"):
    text = f"import torch\n\n\ndef f({params}):\n" + "".join(f"    {line}\n" for line in body.split("\n"))
    return [(d.code, d.message) for d in analyze_source(text, "loops.py").diagnostics if d.severity == "error"]


@pytest.mark.parametrize("header", ["for i in range(k, -1, -1):", "for i in range(k):", "for i in range(1, k, 2):",
                                    "for i in range(k, 0, -2):"])
def test_indexing_in_a_symbolic_loop_is_not_an_error(header):
    assert _errors(f"{header}\n    y = x[i]") == []


@pytest.mark.parametrize("header,holds,fails", [
    ("for i in range(k - 1, -1, -1):", "assert 0 <= i <= k - 1", "assert i < 0"),
    ("for i in range(k - 1, -1, -1):", "assert i >= 0", "assert i >= k"),
    ("for i in range(3, k):", "assert i >= 3", "assert i >= k"),
    ("for i in range(-4, k):", "assert i >= -4", "assert i < -4"),
])
def test_the_element_has_the_range_bounds(header, holds, fails):
    assert _errors(f"{header}\n    {holds}") == []
    assert [c for c, _ in _errors(f"{header}\n    {fails}")] == ["SH108"]


def test_an_unknown_step_bounds_nothing():
    assert _errors("for i in range(0, k, s):\n    assert i < 0", "k: int, s: int") == []
