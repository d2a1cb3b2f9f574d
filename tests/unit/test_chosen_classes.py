"""A class chosen on paths the analysis joined (typetests.isinstance_of, imports.read_alike).

A module imported by the analysed file binds a name to a class imported under an availability
test, else to `torch.Tensor` (`if available(): from torch... import Mask` / `else: Mask =
torch.Tensor`): the join is a choice of the two classes (it was unknown: a lazy import joined with
what the other path bound). `isinstance(mask, (torch.Tensor, Mask))` answers when every option of
the choice answers alike: for `None`, False on both paths, so the `len(mask.shape) == 4` arm is
never taken: no early exit (a mask builder's, which returns the mask given as it is), and the
function returns the shape it builds. A tensor is a `torch.Tensor` on both paths. Each shape claimed is checked
against torch (meta tensors), with the module run both ways."""
import importlib.util
import sys

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.typetests import isinstance_of
from shapehint.shapes.values import ExtRef, NoneV, StrV, TupleV
from shapehint.analysis.objects import ChoiceV

MASKS = '''import importlib.util

import torch

if importlib.util.find_spec("no_such_package_here") is not None:
    from torch.nn.attention.flex_attention import BlockMask as Mask
else:
    Mask = torch.Tensor


def prepare(x, mask=None):
    if isinstance(mask, (torch.Tensor, Mask)) and len(mask.shape) == 4:
        return True, mask
    return False, x.shape[1]


def build(x, mask=None):
    early, got = prepare(x, mask)
    if early:
        return got
    return x.new_zeros(x.shape[0], 1, got, got)
'''
MODEL = '''import torch
from masks import build


def whole(x: torch.Tensor):
    assert x.dim() == 3
    m = build(x, None)
    return m
'''


@pytest.fixture(scope="module")
def analysed(tmp_path_factory):
    d = tmp_path_factory.mktemp("chosen_classes")
    (d / "masks.py").write_text(MASKS)
    path = d / "model.py"
    path.write_text(MODEL)
    values = {(v["function"], v["name"]): v["shape"] for v in analyze_source(MODEL, str(path)).infer_json()["values"]}
    sys.path.insert(0, str(d))
    try:
        spec = importlib.util.spec_from_file_location("model_chosen", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(d))
    return values, mod


def test_none_is_no_instance_of_either_chosen_class(analysed):
    import torch
    values, mod = analysed
    claimed = values.get(("whole", "m"))
    assert claimed == ["x.shape[0]", 1, "x.shape[1]", "x.shape[1]"], claimed
    for shape in [(2, 5, 3), (1, 7, 4)]:
        x = torch.empty(shape, device="meta")
        got = mod.whole(x)
        assert [eval(s, {"x": x}) if isinstance(s, str) else s for s in claimed] == list(got.shape)


def test_the_other_path_answers_the_same(tmp_path):
    """Run with the other class bound (torch's flex-attention mask class, where torch has it):
    `None` is no instance of it either, as the analysis assumed for every option."""
    import torch
    flex = pytest.importorskip("torch.nn.attention.flex_attention")
    assert not isinstance(None, (torch.Tensor, flex.BlockMask))
    assert isinstance(torch.empty(1, device="meta"), (torch.Tensor, flex.BlockMask))


def test_options_that_answer_differently_stay_undecided():
    chosen = ChoiceV((ExtRef("torch.Tensor"), StrV("a")))
    assert isinstance_of(NoneV(), TupleV((ExtRef("torch.Tensor"), chosen))) is None  # (an option no class)
    both = ChoiceV((ExtRef("torch.Tensor"), ExtRef("torch.nn.attention.flex_attention.BlockMask")))
    assert isinstance_of(NoneV(), TupleV((ExtRef("torch.Tensor"), both))) is False
    assert isinstance_of(StrV("s"), ChoiceV((ExtRef("torch.Tensor"), _builtin("str")))) is None


def _builtin(name):
    from shapehint.analysis.objects import BuiltinFn
    return BuiltinFn(name)
