"""Optional inputs (issue 28, cause 8), caches and registered buffers (cause 7). The program is
tests/unit/values/optional.py: `forward(self, input_ids=None, ..., inputs_embeds=None)` that
needs one of the two. Its own analysis follows the path where the input it tests first is given
(the others omitted), so every line has a shape in the names the code gives (`batch_size,
seq_length = input_shape`); the callee's lines have it in the caller's context. Each claimed
shape is evaluated against torch for several inputs (a claimed shape must be fully known: a
variadic segment fails the test)."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.compare import eval_dim

from .values import answer, path_of, program

VOCAB, D, MAX_LEN = 50, 16, 12


def _values(function, src=None):
    out = {}
    for v in answer("optional", src)["values"]:
        if v["function"] != function:
            continue
        if function == "Model.forward":
            out[v["name"]] = v["shape"]
        else:  # in the entry's context (its names), as the line reads when the model runs
            ctx = [c["shape"] for c in v.get("contexts", []) if c["context"].startswith("Model.forward:")]
            out[v["name"]] = ctx[0] if len(ctx) == 1 else None
    return out


def _concrete(shape, env):
    assert shape is not None and not any(isinstance(d, str) and d.startswith("*") for d in shape), shape
    return [eval_dim(d, env) for d in shape]


@pytest.mark.parametrize("function,names", [
    ("Model.forward", ["buffered", "segment_ids", "attention_mask", "hidden", "logits"]),
    ("Embeddings.forward", ["position_ids", "inputs_embeds", "pos", "emb"]),
])
@pytest.mark.parametrize("batch,seq", [(2, 7), (3, 12), (1, 4)])
def test_the_path_with_the_input_given_agrees_with_torch(function, names, batch, seq):
    import torch
    mod = program("optional")
    model = mod.Model(VOCAB, D, MAX_LEN)
    ids = torch.randint(0, VOCAB, (batch, seq))
    with torch.no_grad():
        seen = mod.run(model, ids)[function]
        logits = model(input_ids=ids)[0]
    assert list(logits.shape) == list(seen["logits"].shape) if function == "Model.forward" else True
    env = {"batch_size": batch, "seq_length": seq, "vocab": VOCAB, "d": D, "max_len": MAX_LEN,
           "min": min, "max": max}
    claimed = _values(function)
    for name in names:
        assert _concrete(claimed[name], env) == list(seen[name].shape), (name, claimed[name])


def test_the_names_the_code_gives_are_used():
    assert _values("Model.forward")["attention_mask"] == ["batch_size", "seq_length"]


def test_an_assertion_on_the_input_makes_it_given():
    # annotated mode of the benchmark: `assert input_ids.shape == (2, 7)` first; None has no shape,
    # so past it the tensor is given, and the shapes are the asserted ones
    with open(path_of("optional")) as f:
        src = f.read()
    marker = "        if input_ids is not None and inputs_embeds is not None:\n"
    annotated = src.replace(marker, "        assert input_ids.shape == (2, 7)\n" + marker, 1)
    assert annotated != src
    got = _values("Model.forward", annotated)
    assert got["attention_mask"] == [2, 7] and got["logits"] == [2, 7, "vocab"]


def _alone(src):
    res = analyze_source(src, "opt.py")
    return {v["name"]: v["shape"] for v in res.infer_json()["values"]}, res.diagnostics


def test_an_optional_mask_the_code_does_not_need_stays_omitted():
    # nothing gets on only with the mask given: the path after the `if` is the one without it
    src = ("import torch\n\n\ndef f(x, mask=None):\n    b, t = x.shape\n    if mask is not None:\n"
           "        x = x * mask.float()\n    y = x.sum(1)\n    return y\n")
    shapes, diags = _alone(src)
    assert shapes["y"] == ["b"] and diags == []


def test_a_test_of_the_input_inside_an_expression_does_not_make_it_given():
    # `a.shape if a is not None else b.shape`: each side reads its own input only on its arm
    src = ("import torch\n\n\ndef f(a=None, b=None):\n    s = a.size() if a is not None else b.size()\n"
           "    if a is None:\n        a = torch.zeros(3)\n    y = a + 1\n    return y\n")
    shapes, _ = _alone(src)
    assert shapes["y"] == [3]  # `a` was not taken for given by the expression's arm


def test_unpacking_the_sizes_held_in_a_variable_teaches_the_rank():
    src = ("import torch\n\n\ndef f(x):\n    input_shape = x.size()\n    b, t = input_shape\n"
           "    n = input_shape[1]\n    y = torch.ones((b, t + n))\n    z = x.float()\n    return y, z\n")
    shapes, diags = _alone(src)
    assert shapes["y"] == ["b", "2*t"] and shapes["z"] == ["b", "t"] and diags == []


def test_no_diagnostic_on_the_program():
    assert answer("optional")["diagnostics"] == []
