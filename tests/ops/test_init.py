"""Differential tests for init.py: `torch.nn.init` against PyTorch (meta device)."""
import pytest
from torch.nn import init

from .diff import T, check

SHAPES = [(), (5,), (3, 4), (0, 3), (2, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 6)]
NAMES = ["normal_", "uniform_", "zeros_", "ones_", "trunc_normal_", "xavier_uniform_", "xavier_normal_",
         "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "eye_", "dirac_"]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", NAMES)
def test_initialiser(name, shape):
    check(f"torch.nn.init.{name}", getattr(init, name), (T(*shape),))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name,arg", [("constant_", 0.5), ("sparse_", 0.1)])
def test_initialiser_with_a_value(name, arg, shape):
    check(f"torch.nn.init.{name}", getattr(init, name), (T(*shape), arg))
