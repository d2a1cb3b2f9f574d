"""Ordinary typing hints (issue 28, cause 3): `hidden_states: Optional[tuple[torch.FloatTensor]]`
on a parameter the body uses as a tensor is the tensor its callers pass — the function's own
analysis follows it like an unannotated parameter, and the hint is never a source of
diagnostics; a hint the body reads as a sequence keeps its meaning. The program is
tests/unit/values/hints.py."""
from .values import answer, path_of, program

PROGRAM = path_of("hints")


def _answer(src=None):
    return answer("hints", src)


def _shape(function, line, name):
    got = [v["shape"] for v in _answer()["values"] if (v["function"], v["line"], v["name"]) == (function, line, name)]
    assert len(got) == 1, got
    return got[0]


def test_a_tuple_hint_on_a_tensor_is_followed_as_the_tensor_in_the_functions_own_analysis():
    # in terms of its own parameter (`*hidden_states`), the segment filled by what its calls
    # agree on (segment_fill.py): not the tuple the hint names
    assert _shape("MLP.forward", 20, "h") == ["hidden_states.shape[0]", "hidden_states.shape[1]", "d"]
    assert _shape("MLP.forward", 21, "out") == ["hidden_states.shape[0]", "hidden_states.shape[1]", "d"]


def test_the_hinted_function_agrees_with_torch():
    import torch
    mod = program("hints")
    with torch.no_grad():
        out = mod.MLP(8)(torch.randn(2, 5, 8))
    claimed = _shape("MLP.forward", 21, "out")
    assert claimed[-1] == "d" and out.shape[-1] == 8  # d is MLP's `d` (8 here); the star is the input's


def test_the_same_as_without_the_hint():
    with open(PROGRAM) as f:
        src = f.read()
    plain = src.replace("hidden_states: Optional[tuple[torch.FloatTensor]]", "hidden_states")
    assert plain != src
    strip = lambda a: [(v["line"], v["name"], v["shape"]) for v in a["values"] if v["function"] == "MLP.forward"]
    assert strip(_answer(plain)) == strip(_answer())


def test_a_hint_the_body_reads_as_a_sequence_keeps_its_meaning():
    assert _shape("first_of", 27, "s") == ["*states[0]"]  # the tuple's item, not a row of a tensor


def test_a_hint_is_never_a_source_of_diagnostics():
    assert _answer()["diagnostics"] == []
