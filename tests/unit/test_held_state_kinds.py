"""A call's arguments are alike only if the objects they hold are too (reconfiguration.call_kinds).
A store given to every block holds a list of slots, each of one class or another, whose `update`
appends to the slot's own `keys`; every block updates slot 0, so the second block's `k2` is twice
as long as the first's. The store's own class assigns nothing outside `__init__`: only the state
of the slots it holds tells the two calls apart. The line claimed the first block's shape for both
(`[x.shape[0], 4, x.shape[1], 8]`). Checked against torch on the meta device."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
from torch import nn


class Slot:
    def __init__(self):
        self.keys = None
        self.ready = False

    def _start(self, k):
        self.keys = torch.zeros(k.shape[0], k.shape[1], 0, k.shape[3], device=k.device)
        self.ready = True

    def update(self, k):
        if not self.ready:
            self._start(k)
        self.keys = torch.cat([self.keys, k], dim=-2)
        return self.keys


class WindowSlot(Slot):
    def __init__(self, width):
        super().__init__()
        self.width = width

    def update(self, k):
        if not self.ready:
            self._start(k)
        both = torch.cat([self.keys, k], dim=-2)
        self.keys = both[:, :, -self.width + 1:, :]
        return both


class Store:
    def __init__(self, cfg):
        self.slots = []
        for _ in range(cfg.depth):
            if getattr(cfg, "width", None) is not None:
                self.slots.append(WindowSlot(cfg.width))
            else:
                self.slots.append(Slot())

    def update(self, k, idx):
        return self.slots[idx].update(k)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.idx = 0

    def forward(self, x, store):
        k = x.view(x.shape[0], x.shape[1], 4, 8).transpose(1, 2)
        k2 = store.update(k, self.idx)
        return k2.transpose(1, 2).reshape(x.shape[0], -1, 32)


class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.blocks = nn.ModuleList([Block() for _ in range(cfg.depth)])

    def forward(self, x: "Tensor[B, T, 32]"):
        store = Store(self.cfg)
        for block in self.blocks:
            x = block(x, store)
        return x
'''
K2 = 54


def _k2():
    values = analyze_source(PROGRAM, "store.py").infer_json()["values"]
    hit = [v for v in values if v["function"] == "Block.forward" and v["line"] == K2 and v["name"] == "k2"]
    return hit[0] if hit else None


@pytest.mark.parametrize("width", [None, 4])
def test_torch_gives_the_two_blocks_different_lengths(width):
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "store.py", "exec"), ns)
    seen = []
    cfg = type("Cfg", (), {"depth": 2, "width": width})()
    net = ns["Net"](cfg).to("meta")
    for b in net.blocks:
        b.register_forward_hook(lambda m, i, o: seen.append(o.shape[1]))
    net(torch.empty(2, 5, 32, device="meta"))
    assert seen[0] == 5 and seen[1] != 5  # k2's length: 5, then 10 (or 3 + 5 with the window)


def test_the_line_claims_no_one_length_for_both_blocks():
    got = _k2()
    assert got is not None and (got["shape"] is None or got["shape"][2] != "x.shape[1]")


def test_the_line_before_keeps_its_shape():
    values = analyze_source(PROGRAM, "store.py").infer_json()["values"]
    k = [v for v in values if v["function"] == "Block.forward" and v["line"] == K2 - 1 and v["name"] == "k"]
    assert k and k[0]["shape"] == ["x.shape[0]", 4, "x.shape[1]", 8]
