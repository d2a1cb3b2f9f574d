"""Views of tensors of unknown rank that infer a size or restore another tensor's leading axes
(issue 28, cause 4). The program is tests/unit/values/flat.py; every claimed size is evaluated
against torch for inputs of several ranks: a `?` claims nothing, a `*x` is x's leading axes."""
import pytest

from .values import answer, path_of, program


def _values(function):
    return {v["name"]: v["shape"] for v in answer("flat")["values"] if v["function"] == function}


def _agrees(claimed, got, env, lead):
    """`claimed` (JSON dims) against torch's `got`: `*name` stands for the axes `lead`."""
    dims = []
    for s in claimed:
        if isinstance(s, str) and s.startswith("*"):
            dims.extend(lead)
        else:
            dims.append(s)
    assert len(dims) == len(got), (claimed, got)
    for c, g in zip(dims, got):
        if c != "?":
            assert (eval(c, env) if isinstance(c, str) else c) == g, (claimed, got)


SHAPES = [(6,), (3, 4), (2, 3, 4), (2, 1, 3, 6)]


@pytest.mark.parametrize("name", ["rows", "prod", "restored"])
@pytest.mark.parametrize("shape", SHAPES)
def test_rows_flattened_and_restored_agree_with_torch(name, shape):
    import torch
    claimed = _values("RowProj.forward").get(name)
    assert claimed is not None, name
    x = torch.randn(*shape)
    layer = program("flat").RowProj(5, shape[-1])
    with torch.no_grad():
        got = list(layer(x)[name].shape)
    _agrees(claimed, got, {"x": x, "n_out": 5, "n_in": shape[-1]}, list(shape[:-1]))


def test_the_restored_shape_is_exact():
    # no axis left unknown: the sizes asked for are the leading axes of `x` and `n_out`
    assert _values("RowProj.forward")["restored"] == ["*x", "n_out"]


@pytest.mark.parametrize("name", ["every", "pairs", "last"])
@pytest.mark.parametrize("shape", SHAPES)
def test_an_inferred_size_is_unknown_and_the_rest_as_asked(name, shape):
    import torch
    claimed = _values("flat").get(name)
    # (unknown, or the flattened axes' product named after x's own: `x.numel()`, product_names.py)
    assert claimed is not None and (claimed[0] == "?" or claimed[0].endswith("numel()")), (name, claimed)
    x = torch.randn(*shape)
    got = list(program("flat").flat(x)[name].shape)
    _agrees(claimed, got, {"x": x}, [])


@pytest.mark.parametrize("shape", SHAPES)
def test_the_given_ids_of_an_optional_entry_are_rows(shape):
    import torch
    # (the ids viewed as rows; `embeds` hinted as an optional tensor is analysed given too, and
    # its arm's `ids` is another record: generic._hinted_tensor)
    with open(path_of("flat")) as f:
        line = next(i for i, text in enumerate(f, 1) if "ids = input_ids.view(" in text)
    claimed = next((v["shape"] for v in answer("flat")["values"]
                    if (v["function"], v["line"], v["name"]) == ("first_given", line, "ids")), None)
    assert claimed is not None
    x = torch.zeros(*shape, dtype=torch.long)
    got = list(program("flat").first_given(x)["ids"].shape)
    _agrees(claimed, got, {"input_ids": x}, [])


def test_no_diagnostic():
    assert answer("flat")["diagnostics"] == []
