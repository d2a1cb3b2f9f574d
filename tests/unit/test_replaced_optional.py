"""An optional tensor parameter that one path replaces with a tensor of its own (`if mask is None
and ...: mask = torch.ones(...)`) and that is tested again afterwards (`if mask is not None:`).

The join of the parameter (None only where the caller omits it) and the new tensor is None only
where the caller omits it *and* the replacing arm was not taken: a later test of it can no longer
continue from the absent side as the callers' default (controlflow._if_optional), which claimed the
absent arm's shape for callers that omit the mask, although their mask is the replacement
(comprehensions._replaced_optional: both sides are followed and joined). Where the rest of the
conjunction is true on every path (a mode query eager execution answers), the test is the `None`
test alone (optional_args.optional_test), and what follows has the replacement; so is a helper
whose every path returns that constant (comprehensions._same_constant_bool: the join of equal
constant bools is that bool). The shapes are
checked against torch by running the program."""
import re

import torch

from shapehint.analysis.api import analyze_source

PROGRAM = '''from typing import Optional

import torch


def compiling():
    # False on every path in eager execution, whichever arm of the `try` runs
    if not torch.cuda.is_available():
        return False
    try:
        return torch.compiler.is_compiling()
    except Exception:
        return False


def sometimes(x):
    if x.shape[0] > 3:
        return True
    return False


def f(x: torch.Tensor, flag: bool, mask: Optional[torch.Tensor] = None):
    if mask is None and CONDITION:
        mask = torch.ones(x.shape[0], x.shape[1])
    if mask is not None:
        y = mask[:, None, None, :]
    else:
        y = x + 0
    out = y * 2
    return out
'''


def _program(condition: str) -> str:
    return PROGRAM.replace("CONDITION", condition)


def _inferred(condition: str) -> str:
    r = analyze_source(_program(condition), "m.py")
    assert not r.stats.get("internal_errors"), r.stats
    got = [str(v.shape) for v in r.values if v.function == "f" and v.name == "out" and v.is_target]
    assert len(got) == 1, got
    return got[0]


def _run(condition: str, x, flag: bool, mask=None):
    scope: dict = {}
    exec(compile(_program(condition), "m.py", "exec"), scope)
    return tuple(scope["f"](x, flag, mask).shape)


def _fits(inferred: str, actual: tuple, x: tuple) -> bool:
    """Whether the inferred shape admits `actual` for an input `x` of two axes."""
    dims = [d.strip() for d in inferred.strip("[]").split(",") if d.strip()]
    pattern = []
    for d in dims:
        if d == "*?":
            pattern.append(r"(\d+,)*")
        elif d == "*x":
            pass  # the axes of x past its first two: none
        elif d == "?":
            pattern.append(r"\d+,")
        else:
            value = eval(d, {"x": torch.zeros(x)})  # `1`, `x.shape[0]`
            pattern.append(f"{int(value)},")
    return re.fullmatch("".join(pattern), "".join(f"{a}," for a in actual)) is not None


def test_a_replacement_under_an_open_condition_is_no_callers_default():
    x = (2, 3)
    inferred = _inferred("flag")
    for flag in (True, False):
        for mask in (None, torch.ones(2, 5)):
            actual = _run("flag", torch.zeros(x), flag, mask)
            assert _fits(inferred, actual, x), (inferred, flag, mask is None, actual)
    # the program really takes both shapes for a caller that omits the mask
    assert _run("flag", torch.zeros(x), True) == (2, 1, 1, 3)
    assert _run("flag", torch.zeros(x), False) == (2, 3)


def test_a_condition_true_on_every_path_is_the_none_test_alone():
    x = (2, 3)
    inferred = _inferred("not torch.jit.is_scripting()")
    assert inferred == "[x.shape[0], 1, 1, x.shape[1]]"
    assert _run("not torch.jit.is_scripting()", torch.zeros(x), True) == (2, 1, 1, 3)
    assert _run("not torch.jit.is_scripting()", torch.zeros(x), True, torch.ones(2, 3)) == (2, 1, 1, 3)


def test_a_conjunction_that_reads_the_name_is_not_taken_apart():
    # `mask is None and mask_ok(mask)` reads the mask again: not a `None` test alone
    inferred = _inferred("(mask is None)")
    x = (2, 3)
    assert _fits(inferred, _run("(mask is None)", torch.zeros(x), True), x)
    assert _fits(inferred, _run("(mask is None)", torch.zeros(x), True, torch.ones(2, 5)), x)


def test_a_helper_false_on_every_path_is_false():
    x = (2, 3)
    inferred = _inferred("not compiling()")
    assert inferred == "[x.shape[0], 1, 1, x.shape[1]]"
    assert _run("not compiling()", torch.zeros(x), True) == (2, 1, 1, 3)


def test_a_helper_true_on_some_paths_stays_open():
    inferred = _inferred("sometimes(x)")
    assert inferred != "[x.shape[0], 1, 1, x.shape[1]]"
    for x in ((2, 3), (5, 3)):  # the replacement for a batch over 3, the input itself else
        for mask in (None, torch.ones(x[0], 7)):
            assert _fits(inferred, _run("sometimes(x)", torch.zeros(x), True, mask), x)
