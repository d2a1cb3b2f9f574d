"""Scale factors a configuration decides, as numbers of a tensor's arithmetic
(tests/unit/test_values_scaled_factors.py): a factor chosen by a key the configuration names,
computed by one of several functions of a table, read from the configuration's mapping by `.get`
(None when absent), or computed with `math` from such an item."""
import math

import torch


def _plain(config, dim: int):
    return torch.arange(0, dim, 2).float(), 1.0


def _logged(config, dim: int):
    factor = config.scaling["factor"]
    return torch.arange(0, dim, 2).float(), 0.1 * math.log(factor) + 1.0


def _given(config, dim: int):
    scale = config.scaling.get("scale")
    if scale is None:
        scale = math.sqrt(1 + math.log(config.scaling["factor"]) / math.log(config.max_len))
    return torch.arange(0, dim, 2).float(), scale


INIT_FUNCTIONS = {"plain": _plain, "logged": _logged, "given": _given}


class Rotary(torch.nn.Module):
    def __init__(self, config, dim: int):
        super().__init__()
        if isinstance(config.scaling, dict):
            self.kind = config.scaling.get("kind", "plain")
        else:
            self.kind = "plain"
        inv_freq, self.scaling = INIT_FUNCTIONS[self.kind](config, dim)
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    def forward(self, x: torch.Tensor):
        assert x.dim() == 3
        emb = torch.cat((x, x), dim=-1)
        cos = emb.cos() * self.scaling
        return cos


def logged(config, x: torch.Tensor):
    assert x.shape == (2, 5)
    scaled = x * (0.1 * math.log(config.scaling["factor"]) + 1.0)
    return scaled


def given_or_none(config, x: torch.Tensor):
    assert x.shape == (2, 5)
    scaled = x * config.scaling.get("scale")  # None: a TypeError, so past it a number
    return scaled


def given_or_default(config, x: torch.Tensor):
    assert x.shape == (2, 5)
    scaled = config.scaling.get("scale", 2) * x
    return scaled


def not_a_configuration(outputs, x: torch.Tensor):
    assert x.shape == (2, 5)
    scale = outputs.get("scale")  # `outputs` may hold tensors: (4, 1, 1) would broadcast x to 3-D
    if scale is None:
        scale = 1.0
    picked = x * scale
    return picked


def either_unknown(outputs, x: torch.Tensor, flag: bool):
    assert x.shape == (2, 5)
    scale = 1.0 if flag else outputs.scale
    picked = x * scale
    return picked


def _mscale(scale, mscale=1):
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def mscaled(config, x: torch.Tensor):
    assert x.shape == (2, 5)
    factor = config.scaling["factor"]
    scale = _mscale(factor, config.scaling.get("mscale"))
    scaled = x * scale
    return scaled
