"""`mask[i] if mask is not None else None` on an optional tensor parameter is the omitted side's
`None` (analysis/optional_exprs.py): the callee's `if head_mask is not None:` no longer joins
`weights * head_mask.view(1, -1, 1, 1)` into every later shape (the head axis was `?`). The
program is tests/unit/values/layer_masks.py; the shapes are checked against torch."""
import pytest

from .values import answer, path_of, program, value_at

torch = pytest.importorskip("torch")

HEADS = "heads"  # the view's -1, (heads*head_dim)//head_dim


def _in_stack(line, name):
    v = value_at("layer_masks", "attend", line, name)
    shapes = [c["shape"] for c in v["contexts"] if c["context"].startswith("Stack.forward")]
    assert shapes, v
    return shapes


def test_the_layers_keep_the_head_axis_past_the_mask_test():
    assert _in_stack(13, "weights") == [["b", HEADS, "t", "t"]]
    assert _in_stack(14, "out") == [["b", HEADS, "t", "head_dim"]]
    assert value_at("layer_masks", "Stack.forward", 28, "weights")["shape"] == ["b", HEADS, "t", "t"]


def test_the_shapes_agree_with_torch():
    mod = program("layer_masks")
    heads, head_dim, b, t = 3, 4, 2, 5
    with torch.no_grad():
        stack = mod.Stack(heads, head_dim, 2)
        x = torch.randn(b, t, heads * head_dim)
        out, weights = stack(x)
        masked_out, masked_weights = stack(x, head_mask=torch.ones(2, heads))
    assert list(weights.shape) == [b, (heads * head_dim) // head_dim, t, t]
    assert list(masked_weights.shape) == list(weights.shape)
    assert list(out.shape) == list(masked_out.shape) == [b, t, heads * head_dim]


def test_a_mask_given_in_the_arm_is_still_checked():
    # the given side still runs, with the mask given: an error there is still found
    with open(path_of("layer_masks")) as f:
        src = f.read().replace("head_mask[i] if", "head_mask.view(7, 7, 7)[i, 9, 9, 9] if")
    diags = answer("layer_masks", src)["diagnostics"]
    assert any(d["line"] == 28 for d in diags), diags


def test_another_absent_value_is_joined_as_before():
    # `mask.sum() if mask is not None else x`: the callers that pass a mask get a scalar, so
    # the absent side's `[*x]` is no claim for all of them
    assert value_at("layer_masks", "masked", 34, "kept")["shape"] == ["*?"]
