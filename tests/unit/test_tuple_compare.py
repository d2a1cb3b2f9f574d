"""Comparisons of sizes with tuples, lists and torch.Size, as Python evaluates them, in asserts
and path conditions: a torch.Size equals a tuple of the same length with equal items, never a
list; `!=` is the negation; an item the analysis cannot follow leaves the comparison unknown, but
the known items still constrain the shapes where the comparison must hold."""
from shapehint.analysis.api import analyze_session, analyze_source

HEAD = '''import torch
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "a b"]):
'''


def _session(body: str):
    text = HEAD + "".join(f"    {line}\n" for line in body.strip().splitlines())
    return analyze_session(text, "m.py")


def _run(body: str):
    return _session(body).result


def _shape(r, name):
    vals = [v for v in r.infer_json()["values"] if v["function"] == "f" and v["name"] == name]
    assert vals, name
    return vals[-1]["shape"]


def _errors(r):
    return [d for d in r.diagnostics if d.severity == "error"]


def test_assert_tuple_equality_fixes_every_dimension():
    r = _run("assert x.shape == (4, 3)\ny = x.flatten()\nreturn y")
    assert not _errors(r)
    assert _shape(r, "y") == [12]


def test_assert_torch_size_equality_with_symbols():
    r = _run("n = 3\nassert x.size() == torch.Size([2 * n, n])\ny = x.flatten()\nreturn y")
    assert _shape(r, "y") == [18]


def test_assert_of_a_different_length_always_fails():
    r = _run("assert x.shape == (4, 3, 2)\nreturn x")
    errs = _errors(r)
    assert [d.code for d in errs] == ["SH108"] and errs[0].line == 7


def test_a_size_never_equals_a_list():
    r = _run("assert x.shape == [4, 3]\nreturn x")
    assert [d.code for d in _errors(r)] == ["SH108"]


def test_list_of_a_size_equals_a_list():
    r = _run("assert list(x.shape) == [4, 3]\ny = x.flatten()\nreturn y")
    assert not _errors(r) and _shape(r, "y") == [12]


def test_unknown_item_still_constrains_the_known_ones():
    # `g()` is not something the analysis follows: the first item is still 4
    r = _run("assert x.shape == (4, g())\ny = torch.zeros(5, 7) @ x\nreturn y")
    errs = _errors(r)
    assert len(errs) == 1 and errs[0].line == 8


def test_not_equal_raise_guard_fixes_the_shape_after_it():
    r = _run("if x.size() != (4, 3):\n    raise ValueError('bad')\ny = x.flatten()\nreturn y")
    assert not _errors(r)
    assert _shape(r, "y") == [12]


def test_unknown_comparison_constrains_only_its_true_arm():
    # the condition is unknown (an item is not followed): the true arm learns x.shape[0] == 4,
    # so the matmul there provably fails; the else arm learns nothing (x.shape[0] may still be
    # 4 there, when the other item differs), so its assert is fine
    r = _run("if x.shape == (4, g()):\n    y = torch.zeros(5, 7) @ x\nelse:\n    assert x.shape[0] == 4\n"
             "    y = x\nreturn y")
    errs = _errors(r)
    assert [d.line for d in errs] == [8]


def test_impossible_known_part_decides_the_condition():
    r = _session("assert x.shape[0] == 5\nif x.shape == (4, g()):\n    y = x.flatten()\nelse:\n    y = x\nreturn y")
    branch = r.interp.branches[0]
    assert branch.decided is False


def test_comparing_an_untyped_parameter_with_a_string_is_unknown_not_a_crash():
    """`event == "line"` with `event` a parameter the analysis reads as a tensor: no rule
    applies, so the comparison is unknown; the module's analysis goes on (it used to abort with
    an internal error and lose every diagnostic of the file)."""
    text = ("import torch\n\n"
            "def trace(frame, event, arg):\n"
            "    if event == 'line':\n"
            "        return None\n"
            "    return event\n\n"
            "def g(x):\n"
            "    return torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
    r = analyze_source(text, "m.py")
    assert r.stats["internal_errors"] == []
    assert [d.code for d in _errors(r)] and all(d.line == 9 for d in _errors(r))
