"""What a callee's path learns past an undecided `if` that returned holds only for the rest of
that call (executor._continue_past): the caller must not believe that no input takes the early
return. Past a `raise` the fact holds for every admissible input, callers included."""
from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.branches import answer_branches

HEAD = '''import torch
from jaxtyping import Float
from torch import Tensor


def g(x):
    if x.shape[1] == 4:
        return x.sum(1)
    return x


'''


def _codes(src: str) -> list:
    return [(d.line, d.code) for d in analyze_source(src, "m.py").diagnostics]


def test_an_early_return_in_a_helper_does_not_decide_the_callers_assert():
    src = HEAD + '''def f(x: Float[Tensor, "B N"]):
    a = g(x)
    assert x.shape[1] == 4
    return a
'''
    assert _codes(src) == []  # was: SH108, "fails for every admissible input given line 7"


def test_an_early_return_in_a_helper_does_not_decide_the_callers_branch():
    src = HEAD + '''def f(x: Float[Tensor, "B N"]):
    a = g(x)
    if x.shape[1] == 4:
        return a
    return x
'''
    result = analyze_session(src, "m.py", records=False, functions={"f"})
    [b] = [b for b in answer_branches(result, entry="f") if b["function"] == "f"]
    assert b["status"] == "depends"


def test_a_guard_that_raises_still_teaches_the_caller():
    src = '''import torch
from jaxtyping import Float
from torch import Tensor


def check(x):
    if x.shape[1] != 4:
        raise ValueError("4 features")
    return x


def f(x: Float[Tensor, "B N"]):
    y = check(x)
    assert x.shape[1] == 5
    return y
'''
    assert (14, "SH108") in _codes(src)


def test_early_returns_nested_in_undecided_arms_keep_the_store_balanced():
    src = '''import torch
from jaxtyping import Float
from torch import Tensor


def h(x, flag: bool):
    if flag:
        if x.shape[1] == 2:
            return x
        y = x * 2
    else:
        if x.shape[0] == 3:
            return x
        y = x + 1
    for _ in range(3):
        if x.shape[1] == 7:
            return y
    return y


def f(x: Float[Tensor, "B N"], flag: bool):
    a = h(x, flag)
    assert x.shape[1] == 2
    assert x.shape[0] == 3
    assert x.shape[1] != 7
    return a
'''
    result = analyze_session(src, "m.py")
    assert [(d.line, d.code) for d in result.result.diagnostics] == []
    assert all(st.depth == 0 for st in result.interp.env.stores)  # every mark pushed was popped
