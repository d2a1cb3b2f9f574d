"""Optional inputs a function makes when omitted and hands back (analysis/optional_args.py
`fed_back`, `usage.handed_back`), and flags holding a `None` test (`held_none_test`). The program
is tests/unit/values/fed_back.py, run under torch: every shape the function's own analysis
claims must hold for every call, including the later layer that passes the bias back and the
cross-attention call that passes `key_value_states`."""
import pytest

from shapehint.devicerun.compare import eval_dim

from .values import answer, program

D, HEADS, BATCH, T, S = 16, 4, 2, 5, 7
ENV = {"batch_size": BATCH, "seq_length": T, "heads": HEADS, "d": D, "t": T, "b": BATCH}


def _own(function):
    return {v["name"]: v["shape"] for v in answer("fed_back")["values"] if v["function"] == function}


def _agrees(claim, seen) -> bool:
    """No axis the claim evaluates differs from the observed one, and it claims no more axes."""
    stars = [i for i, d in enumerate(claim) if isinstance(d, str) and d.startswith("*")]
    if not stars:
        pairs = list(zip(claim, seen)) if len(claim) == len(seen) else None
    else:
        head, tail = claim[:stars[0]], claim[stars[0] + 1:]
        fits = len(head) + len(tail) <= len(seen)
        pairs = list(zip(head, seen)) + list(zip(tail, seen[len(seen) - len(tail):])) if fits else None
    return pairs is not None and all(eval_dim(c, ENV) in ("?", s) for c, s in pairs)


@pytest.mark.parametrize("name", ["current", "masked", "scores"])
def test_every_claim_of_the_own_analysis_holds_for_every_call(name):
    seen = program("fed_back").run(D, HEADS, BATCH, T, S)[:3]
    claim = _own("Attention.forward").get(name)
    for call in seen:
        assert claim is None or _agrees(claim, list(call[name])), (name, claim, call[name])


def test_an_optional_tensor_made_when_omitted_and_handed_back_holds_for_callers_passing_it():
    seen = program("fed_back").run(D, HEADS, BATCH, T, S)[3:]
    assert [list(c["kept"]) for c in seen] == [[1, HEADS, T, T], [BATCH, HEADS, T, T]]
    claim = _own("add_bias").get("kept")
    for call in seen:
        assert claim is None or _agrees(claim, list(call["kept"])), (claim, call["kept"])


def test_the_bias_fed_back_is_not_the_omitted_arms():
    # the omitted arm's [1, heads, seq_length, k] would be wrong for the layer passing its bias
    claim = _own("Attention.forward")["masked"]
    assert claim == ["*?"] or claim[0] != 1


def test_the_shapes_the_bias_does_not_reach_stay_known():
    assert _own("Attention.forward")["scores"][:2] == ["batch_size", "heads"]


def test_a_default_the_function_only_uses_itself_keeps_the_omitted_arms_shape():
    # `position_ids` is not handed back: what follows holds for the calls that omit it
    assert _own("Embeddings.forward")["pos"] == [1, "t", "d"]
