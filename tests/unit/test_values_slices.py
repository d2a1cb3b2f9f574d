"""Slices of a shape of unknown rank, unpacked (issue 28, cause 1; analysis/shape_slices.py).
The program is tests/unit/values/slices.py; each claimed size is evaluated against torch for
inputs of every rank the unpacking admits."""
import pytest

from .values import answer, program

NAMES = {"batch_size": 0, "seq_length": 1, "h": -2, "w": -1, "channels": 1, "height": 2}


def _values(function):
    return {v["name"]: v["shape"] for v in answer("slices")["values"] if v["function"] == function}


@pytest.mark.parametrize("function, name, lowest", [("heads", "q", 2), ("tail", "grid", 2), ("middle", "plane", 3)])
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 3, 4, 5), (1, 6, 2, 3, 2)])
def test_the_unpacked_sizes_agree_with_torch(function, name, lowest, shape):
    import torch
    claimed = _values(function).get(name)
    assert claimed is not None and "?" not in claimed[:2], claimed
    if len(shape) < lowest:
        return  # (torch raises at the unpacking: no claim to check)
    x = torch.randn(*shape)
    got = list(getattr(program("slices"), function)(x)[name].shape)
    env = {k: shape[a] for k, a in NAMES.items() if -len(shape) <= a < len(shape)}
    env["x"] = x  # (`x.shape[:-1].numel()`: the flattened leading axes, product_names.py)
    assert len(claimed) == len(got)
    for c, g in zip(claimed, got):
        if c != "?":
            assert (eval(c, {}, env) if isinstance(c, str) else c) == g, (claimed, got)


def test_unknown_bounds_claim_nothing():
    # (`a, b`: the names the code unpacked a slice of sizes of a number not known into, sizes.open_slice)
    assert _values("not_understood").get("plane") in (None, ["?", "?"], ["a", "b"])
