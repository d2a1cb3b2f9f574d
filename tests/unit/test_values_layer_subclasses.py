"""A torch layer's subclass whose own forward calls `super().forward(...)` (issue 28;
analysis/builtins.py): the call is the layer's, built by the subclass's `super().__init__`. The
program is tests/unit/values/layer_subclasses.py; each shape claimed is evaluated against torch."""
import pytest

from .values import answer, program


@pytest.mark.parametrize("shape", [(2, 7), (1, 3)])
def test_the_layers_own_forward_is_called(shape):
    import torch
    got = {v["name"]: v["shape"] for v in answer("layer_subclasses")["values"] if v["function"] == "Encoder.forward"}
    ids = torch.randint(0, 10, shape)
    with torch.no_grad():
        out = program("layer_subclasses").Encoder(10, 8, 5)(ids)
    env = {"ids": ids, "d": 8, "out": 5}
    for name in ("embedded", "placed", "logits"):
        claimed = got.get(name)
        assert claimed is not None and "?" not in claimed, (name, claimed)
        assert [eval(c, {}, env) if isinstance(c, str) else c for c in claimed] == list(out[name].shape)
