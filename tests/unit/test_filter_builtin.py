"""`filter(None, [...])` and `filter(fn, [...])` over known items (builtins.b_filter): a stem
assembled as `nn.Sequential(*filter(None, [conv, aa if aa is not None else None, norm, act]))`
was a Sequential of unknown layers, so nothing after it had a shape (timm's ResNet stem pool,
issue 27). Each item's truth must be decided, else the list stays unknown (a layer more or less
would shift every shape after it); an empty container layer is false, as in Python. Every shape
claimed here is evaluated against torch's for the same module."""
import torch

from .shape_eval import evaluated, inferred, run_program

SRC = '''import torch
import torch.nn as nn


class Stem(nn.Module):
    def __init__(self, cin: int, c: int, aa=None):
        super().__init__()
        self.pool = nn.Sequential(*filter(None, [
            nn.Conv2d(cin, c, 3, stride=1 if aa else 2, padding=1),
            aa if aa is not None else None,
            nn.BatchNorm2d(c),
            nn.ReLU(),
        ]))
        self.picked = nn.Sequential(*filter(lambda m: m is not None, [None, nn.Conv2d(cin, c, 1, stride=2)]))
        self.emptied = nn.Sequential(*filter(None, [nn.Sequential(), nn.Conv2d(cin, c, 3)]))

    def forward(self, x):
        a = self.pool(x)
        b = self.picked(x)
        d = self.emptied[0](x)
        return a, b, d


class Given(nn.Module):
    def __init__(self, c: int, layers: list):
        super().__init__()
        self.layers = nn.Sequential(*filter(None, layers))
        self.head = nn.Conv2d(c, c, 1)

    def forward(self, x):
        y = self.layers(x)
        return y
'''


def test_a_stem_filtered_of_its_nones_has_every_shape_torch_gives():
    got = inferred(SRC, "Stem.forward")
    stem = run_program(SRC)["Stem"](3, 8)
    x = torch.randn(2, 3, 17, 12)
    a, b, d = stem(x)
    env = {"x": x, "cin": 3, "c": 8}
    assert evaluated(got["a"], env) == list(a.shape)
    assert evaluated(got["b"], env) == list(b.shape)
    # the empty Sequential is false, so filtered out: the first layer is the conv
    assert evaluated(got["d"], env) == list(d.shape)
    assert len(stem.emptied) == 1


def test_items_of_undecided_truth_leave_the_list_unknown():
    # `layers` is any list: which of its items are kept is not known, nor how many
    assert "y" not in inferred(SRC, "Given.forward")
