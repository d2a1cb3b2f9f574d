"""Shapes held in variables when the rank is unknown (issue 28, cause 4): `x.shape[:-1]`,
`(*input_shape, -1, d)`, `x.size()[:-1] + (h, -1)`, `.view(shape)`, `.view(*shape)`,
`.reshape(*input_shape, -1)`. The program is tests/unit/values/sizes.py; each claimed shape is
evaluated against torch for inputs of several ranks (the unknown segment is the input's
leading axes)."""
import pytest

from shapehint.analysis.api import analyze_source

from .values import answer, program


def _answer():
    return answer("sizes")


def _values(answer=None):
    return {v["name"]: v["shape"] for v in (answer or _answer())["values"] if v["function"] == "Attention.forward"}


def _claimed(shape, x, d, head_dim):
    assert shape[0] == "*hidden_states", shape
    rest = [s if isinstance(s, int) else eval(s, {"d": d, "head_dim": head_dim}) for s in shape[1:]]
    return list(x.shape[:-1]) + rest


@pytest.mark.parametrize("name", ["heads", "heads2", "merged", "split"])
@pytest.mark.parametrize("lead", [(5,), (2, 5), (2, 3, 5)])
@pytest.mark.parametrize("d,head_dim", [(32, 8), (12, 4)])
def test_sizes_around_the_unknown_leading_axes_agree_with_torch(name, lead, d, head_dim):
    import torch
    shape = _values()[name]
    mod = program("sizes")
    x = torch.randn(*lead, d)
    with torch.no_grad():
        got = list(mod.upto(mod.Attention(d, head_dim), x)[name].shape)
    assert _claimed(shape, x, d, head_dim) == got


def _alone(body):
    src = ("import torch\n\n"
           "def f(x, y):\n" + "".join(f"    {line}\n" for line in body) + "    return z\n")
    return {v["name"]: v["shape"] for v in analyze_source(src, "t.py").infer_json()["values"]}


def _alone_with(params, body):
    src = ("import torch\n\n"
           f"def f({params}):\n" + "".join(f"    {line}\n" for line in body) + "    return z\n")
    answer = analyze_source(src, "t.py").infer_json()
    return {v["name"]: v["shape"] for v in answer["values"]}, answer["diagnostics"]


def _lead_and_rest(shape, y, sizes):
    """`shape` claimed as y's leading axes then `sizes` (`?` where anything goes): a check."""
    assert shape[0] == "*y", shape
    return list(y.shape[:-1]), [None if d == "?" else d for d in shape[1:]] == sizes


@pytest.mark.parametrize("lead", [(), (5,), (2, 5), (2, 3, 5)])
def test_a_view_around_another_tensors_leading_axes_has_them_and_a_size_for_the_minus_one(lead):
    # `x.view(*y.shape[:-1], -1)`: whatever x's elements, a view that returns has the sizes asked
    # for, the -1 one of its own (not derived from x's elements, which y's axes do not cancel)
    import torch
    values, diags = _alone_with("x, y", ["s = y.shape[:-1]", "z = x.view(*s, -1)"])
    assert diags == [] and values["z"] == ["*y", "?"]
    y = torch.randn(*lead, 3)
    x = torch.randn(*lead, 4, 2)
    got = list(x.view(*y.shape[:-1], -1).shape)
    expected_lead, rest_ok = _lead_and_rest(values["z"], y, [None])
    assert got[:-1] == expected_lead and rest_ok and len(got) == len(lead) + 1


@pytest.mark.parametrize("lead", [(5,), (2, 5), (2, 3, 5)])
def test_reshape_of_a_lost_kernel_result_around_the_inputs_leading_axes(lead):
    # the attention kernel of another package is a call the analysis cannot follow: its result
    # is unknown, but `out.reshape(*input_shape, -1)` still has the leading axes given
    import torch
    values, diags = _alone_with("kernel, y", ["s = y.shape[:-1]", "out = kernel(y)", "z = out.reshape(*s, 4, -1)"])
    assert diags == [] and values["z"] == ["*y", 4, "?"]
    y = torch.randn(*lead, 3)
    got = list(torch.nn.Linear(3, 8)(y).reshape(*y.shape[:-1], 4, -1).shape)
    expected_lead, rest_ok = _lead_and_rest(values["z"], y, [4, None])
    assert got[:-1] == expected_lead + [4] and rest_ok


def test_two_inferred_sizes_or_a_bad_size_around_another_segment_give_nothing():
    assert _alone(["s = y.shape[:-1]", "z = x.view(*s, -1, -1)"]).get("z") is None
    assert _alone(["s = y.shape[:-1]", "z = x.reshape(*s, -2)"]).get("z") is None


def test_a_slice_into_the_unknown_axes_gives_nothing():
    # `x.shape[1:]` of `[*x]`: where the unknown axes start is not known, so no size is claimed
    # (sizes of a number not known, sizes.open_slice: the view's rank is open, its sizes `?`)
    for lines in (["s = x.shape[1:]", "z = x.view(*s, -1)"], ["s = x.shape[:-1]", "t = s + s", "z = x.view(t)"]):
        z = _alone(lines).get("z")
        assert z is None or all(d == "?" or str(d).startswith("*") for d in z), (lines, z)


def test_no_diagnostic_from_a_view_the_facts_allow():
    assert _answer()["diagnostics"] == []
