"""Items of a configuration's mappings as numbers of a tensor's arithmetic
(tests/unit/test_values_configured_items.py): rotary-embedding frequencies scaled several ways."""
import json
import math
import types

import torch


def inv_frequencies(config, dim: int):
    base = config.rope_theta
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def scaled_linear(config, dim: int):
    inv_freq = inv_frequencies(config, dim)
    factor = config.rope_scaling["factor"]
    inv_freq /= factor
    return inv_freq


def scaled_ntk(config, dim: int, seq_len: int):
    factor = config.rope_scaling["factor"]
    base = config.rope_theta * ((factor * seq_len / config.max_len) - (factor - 1)) ** (dim / (dim - 2))
    ntk = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    return ntk


def scaled_bands(config, dim: int):
    inv_freq = inv_frequencies(config, dim)
    factor = config.rope_scaling["factor"]
    old = config.rope_scaling["original_len"]
    low_wavelen = old / config.rope_scaling["low_freq_factor"]
    wavelen = 2 * math.pi / inv_freq
    banded = torch.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (old / wavelen - 1.0) / 3.0
    mixed = (1 - smooth) * banded / factor + smooth * banded
    return mixed


def loaded(text, x: torch.Tensor):
    assert x.shape == (2, 5)
    config = types.SimpleNamespace(**json.loads(text))  # a configuration the analysis cannot read
    scaled = x * config.scaling["factor"]
    return scaled


def not_a_configuration(outputs, x: torch.Tensor):
    assert x.shape == (2, 5)
    picked = x * outputs["scale"]  # `outputs` may hold tensors: (4, 1, 1) would broadcast x to 3-D
    return picked


def integer_ids(config):
    ids = torch.zeros(2, 5, dtype=torch.int64)
    shifted = ids * config.rope_scaling["factor"]  # int64 or float32: the item's kind decides
    return shifted
