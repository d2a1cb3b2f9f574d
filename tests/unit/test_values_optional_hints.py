"""A parameter hinted `Optional[<tensor type>]` with a `None` default is an optional tensor in
its function's own analysis (issue 28, cause 8): the paths where the caller gives it are
analysed, not only the omitted one (where `self.embed_tokens(None)` fails and nothing is shown).
The program is tests/unit/values/optional_hints.py; the shapes are checked against torch."""
import pytest

from .values import answer, program, value_at

torch = pytest.importorskip("torch")


def _value(function, line, name):
    return value_at("optional_hints", function, line, name)


def test_an_input_hinted_as_an_optional_tensor_is_followed_when_given():
    assert _value("Embedder.forward", 17, "inputs_embeds")["shape"] == ["*input_ids", "hidden"]
    assert _value("Embedder.forward", 18, "out")["shape"] == ["*input_ids", "2*hidden"]
    assert _value("shifted", 23, "moved")["shape"] == ["*ids"]


def test_the_shapes_agree_with_torch():
    mod = program("optional_hints")
    ids = torch.randint(0, 11, (2, 5))
    with torch.no_grad():
        emb = mod.Embedder(11, 4)
        out = emb(ids)
        inner = emb.embed_tokens(ids)
    # `*input_ids` is the input's own shape, `hidden` the constructor's argument (4)
    assert list(inner.shape) == [*ids.shape, 4]
    assert list(out.shape) == [*ids.shape, 2 * 4]
    assert list(mod.shifted(ids).shape) == [*ids.shape]


def test_an_unhinted_none_default_is_unchanged():
    # no hint, only multiplied: not taken for a tensor (a flag may be spelled alike)
    assert _value("passed_on", 28, "y")["shape"] == ["*x"]
    assert not [v for v in answer("optional_hints")["values"] if v["name"] == "mask"]
