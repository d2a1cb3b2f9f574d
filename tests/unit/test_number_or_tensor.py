"""A value that is 0 on one path and a tensor on another (number_or_tensor.py), then added to a
tensor: HF T5's relative position buckets start at 0 and gain a tensor under an undecided
`bidirectional`. Before, the join was unknown and so were the buckets and the position bias
built from them. The sum has a shape only where both paths give the same one. Also: `arange` of
a parameter only taken for a tensor has an unknown dtype (it was float32, and an `nn.Embedding`
of it a false error). Shapes are checked against torch at the sizes the program runs with."""

import torch

from .program_runs import infer, run


PROGRAM = '''import torch
from torch import nn


class Cfg:
    def __init__(self, is_decoder=False, buckets=32, heads=4):
        self.is_decoder = is_decoder
        self.buckets = buckets
        self.heads = heads


class Bias(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.is_decoder = config.is_decoder
        self.buckets = config.buckets
        self.emb = nn.Embedding(config.buckets, config.heads)

    @staticmethod
    def bucket(rel, bidirectional=True, num_buckets=32):
        out = 0
        if bidirectional:
            num_buckets //= 2
            out += (rel > 0).to(torch.long) * num_buckets
            rel = torch.abs(rel)
        else:
            rel = -torch.min(rel, torch.zeros_like(rel))
        out += torch.clamp(rel, max=num_buckets - 1)
        return out

    def forward(self, q_len: int, k_len: int):
        rel = torch.arange(k_len)[None, :] - torch.arange(q_len)[:, None]
        b = self.bucket(rel, bidirectional=(not self.is_decoder), num_buckets=self.buckets)
        values = self.emb(b)
        return values


def widened(x, y, flag: bool):
    out = 0
    if flag:
        out = torch.zeros(5, 1, 4)
    total = out + y
    return total


class Positions(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 4)

    def forward(self, n):
        return self.emb(torch.arange(n))


values = Bias(Cfg())(5, 7)
pos = Positions()(torch.tensor(6))
'''


def _result(tmp_path):
    res = infer(tmp_path, PROGRAM)
    return res, {(v["function"], v["name"]): v["shape"] for v in res["values"]}


def _run():
    return run(PROGRAM)


def test_buckets_started_at_zero_have_the_relative_positions_shape(tmp_path):
    res, got = _result(tmp_path)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    assert got[("Bias.forward", "b")] == ["q_len", "k_len"]
    shape = got[("Bias.forward", "values")]
    assert shape == ["q_len", "k_len", "config.heads"]
    sizes = {"q_len": 5, "k_len": 7, "config.heads": 4}
    assert [sizes[d] for d in shape] == list(_run()["values"].shape)


def test_paths_whose_sums_differ_in_shape_give_no_shape(tmp_path):
    res, got = _result(tmp_path)
    assert ("widened", "total") not in got  # [3, 4] from 0, [5, 3, 4] from the zeros
    assert list(_run()["widened"](None, torch.randn(3, 4), False).shape) == [3, 4]
    assert list(_run()["widened"](None, torch.randn(3, 4), True).shape) == [5, 3, 4]


def test_arange_of_a_tensor_parameter_is_no_float_error(tmp_path):
    res, got = _result(tmp_path)
    assert not [d for d in res["diagnostics"] if d["code"] == "SH107"]
    assert list(_run()["pos"].shape) == [6, 4]
