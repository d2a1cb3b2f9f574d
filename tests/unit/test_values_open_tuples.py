"""Tuples whose length differs between paths (analysis/open_tuples.py). The program is
tests/unit/values/open_tuples.py: an attention returns its weights as a third item only when a
flag the analysis cannot know asks for it. Each claimed shape is evaluated against torch with
the flag true and false; reading past the items every path has claims nothing."""
import pytest

from shapehint.devicerun.compare import eval_dim

from .values import answer, program

BATCH, T, D = 2, 5, 8


def _claims():
    return {v["name"]: v["shape"] for v in answer("open_tuples")["values"] if v["function"] == "Layer.forward"}


def _concrete(claim, seen):
    """The claim on an input [BATCH, T, D]: its variadic segment stands for the leading axes (filled
    from the file's one call, it names them: x.shape[0])."""
    env = {"d": D, "x": None}
    dims = []
    for c in claim:
        if isinstance(c, str) and c.startswith("*"):
            dims.extend(seen[:len(seen) - (len(claim) - 1)])
        else:
            text = c.replace("x.shape[-2]", str(T)).replace("x.shape[0]", str(BATCH)) if isinstance(c, str) else c
            dims.append(eval_dim(text, env))
    return dims


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("name", ["first", "again", "out", "weights"])
def test_the_items_every_path_has_agree_with_torch(flag, name):
    seen = program("open_tuples").run(flag, BATCH, T, D)
    claim = _claims().get(name)
    assert claim is not None, name
    assert _concrete(claim, list(seen[name])) == list(seen[name]), (name, claim)


def test_past_the_common_items_nothing_is_claimed():
    from shapehint.analysis.objects import OpenTupleV
    from shapehint.analysis.open_tuples import item, unpacked
    from shapehint.shapes.expr import Expr
    from shapehint.shapes.values import IntV, SliceV, TupleV, UnknownV
    t = OpenTupleV("", (IntV(Expr.const(1)), IntV(Expr.const(2))))
    assert type(item(t, IntV(Expr.const(2)))) is UnknownV  # the third item: only some paths have it
    assert type(item(t, IntV(Expr.const(-1)))) is UnknownV  # the last item: which one depends on the path
    assert isinstance(item(t, SliceV(IntV(Expr.const(1)))), OpenTupleV)
    assert isinstance(item(t, SliceV(None, IntV(Expr.const(2)))), TupleV)
    assert type(item(t, SliceV(None, IntV(Expr.const(3))))) is UnknownV
    assert unpacked(t, 1) is None and len(unpacked(t, 3)) == 3
