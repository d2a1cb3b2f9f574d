"""A callable joined from a known function and a value the analysis cannot see (a registry of
another package) is an open choice (`analysis/open_choices.py`): a call of it runs the known
function in that calling context, so its lines list the call's shapes, and the result stays
unknown (the other option may return anything). Shapes checked against torch."""
import pytest

from .values import answer, in_context, program, value_at

torch = pytest.importorskip("torch")


def _value(function, line, name):
    return value_at("open_choices", function, line, name)


def test_the_known_option_runs_in_the_calling_context():
    assert in_context(_value("local_attention", 13, "w"), "Attn.forward:32") == ["b", "heads", "t", "t"]
    assert in_context(_value("local_attention", 15, "out"), "Attn.forward:32") == ["b", "heads", "t", "c//heads"]


def test_the_result_of_the_call_stays_unknown():
    # the registry's function may return anything: nothing is claimed for its result; the
    # reshape after it gives the sizes it names (unknown_receivers.py)
    assert not [v for v in answer("open_choices")["values"] if v["function"] == "Attn.forward" and v["name"] == "out"]
    assert _value("Attn.forward", 33, "y")["shape"] == ["b", "t", "c"]


def test_the_contexts_agree_with_torch():
    mod = program("open_choices")
    attn = mod.Attn("local", 16, 4)
    x = torch.randn(2, 5, 16)
    seen = {}
    real = mod.local_attention

    def spy(q, k, v):
        w = torch.matmul(q, k.transpose(2, 3))
        seen["w"] = list(w.shape)
        seen["out"] = list(torch.matmul(w.softmax(dim=-1), v).shape)
        return real(q, k, v)
    mod.local_attention = spy
    try:
        with torch.no_grad():
            attn(x)
    finally:
        mod.local_attention = real
    b, t, heads, c = 2, 5, 4, 16
    assert seen["w"] == [b, heads, t, t]
    assert seen["out"] == [b, heads, t, c // heads]
