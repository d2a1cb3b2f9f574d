"""A tensor torch made is no numpy array (typetests.FOREIGN_ARRAYS): with the test for a torch
tensor undecided (`is_torch(b)` asks whether torch is installed), `elif isinstance(b,
np.ndarray)` used to run the numpy arm on the layer's tensor, and `.T` on its three axes gave a
false SH203 warning (HF OWL-ViT's box conversion). A plain function's parameter is only taken
for a tensor: a numpy array may be passed, so `isinstance(image * 2, np.ndarray)` stays undecided
and its assertion is no error."""

import numpy as np
import torch

from .program_runs import infer, run


PROGRAM = '''import importlib.util

import numpy as np
import torch
from torch import nn


def torch_ready():
    return importlib.util.find_spec("torch") is not None


def is_torch(x):
    return False if not torch_ready() else isinstance(x, torch.Tensor)


def _corners_torch(b):
    cx, cy, w, h = b.unbind(-1)
    return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=-1)


def _corners_numpy(b):
    cx, cy, w, h = b.T
    return np.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], axis=-1)


def corners(b):
    if is_torch(b):
        return _corners_torch(b)
    elif isinstance(b, np.ndarray):
        return _corners_numpy(b)
    raise ValueError("unsupported")


class Head(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Linear(dim, 4)

    def forward(self, x):
        boxes = self.proj(x).sigmoid()
        return corners(boxes)


out = Head()(torch.randn(2, 7, 16))


def scaled(image):
    image = image * 2
    assert isinstance(image, np.ndarray)
    return image
'''


def _infer(tmp_path):
    return infer(tmp_path, PROGRAM)


def _run():
    return run(PROGRAM)


def test_a_layers_tensor_takes_the_torch_arm_not_the_numpy_one(tmp_path):
    res = _infer(tmp_path)
    assert res["diagnostics"] == []
    got = [v for v in res["values"] if v["name"] == "out"]
    assert got and got[0]["shape"] == list(_run()["out"].shape)


def test_an_array_a_plain_function_may_be_passed_is_no_error(tmp_path):
    res = _infer(tmp_path)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    assert _run()["scaled"](np.zeros((3, 4))).shape == (3, 4)  # the assertion holds for an array
    assert isinstance(_run()["corners"](torch.zeros(5, 4)), torch.Tensor)
