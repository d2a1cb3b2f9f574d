"""A record's shape in a call's names is computed once per call, shape and function
(sink.finish_values, `in_names`): the same caller-side shape seen through another call has other
own names. Here the blocks of one Sequential share their input shape symbols, and only the block
built with a `down` layer reaches line 15: a memo that forgot which call it translated for gave
that line the first block's `x` ([x.shape[0], cin, x.shape[2], x.shape[3]]), a wrong shape
(channels 8 where torch gives 16, sizes not halved). The program is our own; the claim is
checked against torch."""
import torch

from shapehint.analysis.api import analyze_source

SRC = """\
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int = 1, down=None):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride, 1)
        self.down = down

    def forward(self, x):
        identity = x
        out = self.conv(x)
        if self.down is not None:
            identity = self.down(x)
        return out + identity


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, 1, 1)
        self.blocks = nn.Sequential(Block(8, 8), Block(8, 16, 2, nn.Conv2d(8, 16, 1, 2)), Block(16, 16))

    def forward(self, x):
        x = self.stem(x)
        x = self.blocks(x)
        return x
"""


def _holds(shape, observed, env) -> bool:
    return len(shape) == len(observed) and all(
        d == "?" or (d if isinstance(d, int) else eval(d, {}, env)) == o for d, o in zip(shape, observed))


def test_the_downsampled_identity_is_in_the_blocks_own_names():
    r = analyze_source(SRC, "m.py")
    (rec,) = [v for v in r.infer_json()["values"] if v["line"] == 15 and v["name"] == "identity"]
    ns = {}
    exec(compile(SRC, "m.py", "exec"), ns)
    net = ns["Net"]()
    x = net.blocks[0](net.stem(torch.zeros(2, 3, 9, 11)))  # the input of the block with `down`
    observed = list(net.blocks[1].down(x).shape)
    assert observed == [2, 16, 5, 6]
    env = {"x": x, "cin": 8, "cout": 16, "stride": 2}
    assert _holds(rec["shape"], observed, env), rec["shape"]
    assert rec["shape"][1] == 16  # not the first block's `cin`
    for c in rec.get("contexts") or ():
        assert _holds(c["shape"], observed, {"x": torch.zeros(2, 3, 9, 11)}), c
