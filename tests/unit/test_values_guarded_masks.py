"""An optional tensor tested with more than `is not None` (issue 28, cause 8; GPT-2's
`if attention_mask is not None and attention_mask.ndim < 4`, a mask helper's
`isinstance(mask, torch.Tensor) and len(mask.shape) == 4` early return), and a `.view` of a value
the analysis lost to sizes one of which it lost too (a transposed projection whose width is a
configuration's `None`-defaulted attribute). The programs are tests/unit/values/guarded_masks.py
and lost_sizes.py; the shapes are checked against torch."""
import pytest

from .values import answer, in_context, program, value_at

torch = pytest.importorskip("torch")


def _agrees(shape, observed, env):
    """Every dim of `shape` that evaluates under `env` is torch's; `?` is skipped."""
    assert len(shape) == len(observed), (shape, observed)
    for d, o in zip(shape, observed):
        if d != "?":
            assert eval(str(d), {}, env) == o, (shape, observed, d)


def test_a_mask_the_callers_omit_keeps_the_shape_made_for_it():
    # (before: `[*?]` from the mask's own line on, the given 4-D mask joined with the one made)
    made = value_at("guarded_masks", "Inner.forward", 36, "m")
    added = value_at("guarded_masks", "Inner.forward", 38, "w")
    assert in_context(made, "Outer.forward:49") == ["ids.shape[0]", 1, "ids.shape[1]", "ids.shape[1]"]
    assert in_context(added, "Outer.forward:49") == ["ids.shape[0]", "heads", "ids.shape[1]", "ids.shape[1]"]
    assert value_at("guarded_masks", "Outer.forward", 49, "w")["shape"] == [2, "heads", 5, 5]


def test_the_mask_shapes_agree_with_torch():
    mod = program("guarded_masks")
    outer = mod.Outer()
    ids = torch.randint(0, 11, (2, 5))
    with torch.no_grad():
        h = outer.inner.emb(ids)
        m = mod.causal(h, None)
        w = outer(ids)
    env = {"ids": ids, "heads": outer.inner.heads}
    _agrees(in_context(value_at("guarded_masks", "Inner.forward", 36, "m"), "Outer.forward:49"), list(m.shape), env)
    _agrees(value_at("guarded_masks", "Outer.forward", 49, "w")["shape"], list(w.shape), env)


def test_an_or_test_continues_with_the_mask_omitted_as_a_plain_none_test_does():
    # `mask is None or mask.ndim != 2`: the body is the omitted mask's (before: `[3, ?]`)
    assert value_at("guarded_masks", "either", 60, "z")["shape"] == [3, 4]
    mod = program("guarded_masks")
    assert list(mod.either(torch.ones(3, 4)).shape) == [3, 4]


def test_a_class_list_that_may_hold_none_is_no_test_of_the_mask():
    # `isinstance(mask, (torch.Tensor, type(None)))` is true for an omitted mask too: both arms
    z = value_at("guarded_masks", "tuple_class", 71, "z")
    assert z["shape"] == ["*?", 4]
    mod = program("guarded_masks")
    assert list(mod.tuple_class(torch.ones(3, 4)).shape) == [3, 4]


def test_a_view_of_a_lost_value_to_sizes_partly_lost_keeps_the_rank():
    # (before: no shape for `a`, nor for the projection's lines in that call)
    a = value_at("lost_sizes", "Block.forward", 43, "a")
    b = value_at("lost_sizes", "Block.forward", 44, "b")
    assert a["shape"] == ["x.shape[:-2].numel()", "x.shape[-2]", "?"]  # (product_names.py)
    assert b["shape"] == ["x.shape[:-2].numel()", "x.shape[-2]", "config.hidden_size"]
    mod = program("lost_sizes")
    for cfg in (mod.TinyConfig(), mod.TinyConfig(n_inner=24)):
        block = mod.Block(cfg)
        block.inner = 24  # (the lone size below; torch needs one)
        x = torch.randn(2, 5, 8)
        with torch.no_grad():
            xs = x.view(-1, 5, 8)
            got_a = block.up(xs)
            got_b, _ = block(x)
        env = {"x": x, "config": cfg}
        _agrees(a["shape"], list(got_a.shape), env)
        _agrees(b["shape"], list(got_b.shape), env)


def test_a_lone_lost_size_claims_no_rank():
    # `view(n)` with `n` a value the analysis lost may be `view((2, 12))`: nothing shown
    assert not [v for v in answer("lost_sizes")["values"] if v["name"] == "c"]
