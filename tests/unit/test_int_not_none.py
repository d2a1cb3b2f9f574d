"""A number known only by name is not `None` (analysis/compare.py `_identity`).

A patch embedding that can also be built without an image size (`if img_size is None: return
None, None, None`) is built by the model with its own `img_size: int` parameter, a number the
analysis knows by name. `img_size is None` was undecided, so the grid size, the patch count and
the position table made from it were joined with `None`, and the model's `x + self.pos` had no
shape (timm's Beit, ViT, EVA). Its arithmetic and `isinstance` tests already take such a value
for an int; so does `is None` now. The program is our own; the shape is checked against torch."""
import torch

from shapehint.analysis.api import analyze_source

SRC = """\
from typing import Optional, Tuple, Union

import torch
from torch import nn


def pair(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x, x)


class Embed(nn.Module):
    def __init__(self, img_size: Optional[Union[int, Tuple[int, int]]] = 224, patch_size: int = 16,
                 dim: int = 8):
        super().__init__()
        self.patch_size = pair(patch_size)
        self.img_size, self.grid_size, self.num_patches = self._grid(img_size)
        self.proj = nn.Conv2d(3, dim, kernel_size=patch_size, stride=patch_size)

    def _grid(self, img_size):
        if img_size is None:
            return None, None, None
        img_size = pair(img_size)
        grid = (img_size[0] // self.patch_size[0], img_size[1] // self.patch_size[1])
        return img_size, grid, grid[0] * grid[1]

    def forward(self, x):
        B, C, H, W = x.shape
        if self.img_size is not None:
            torch._assert(H == self.img_size[0], "height")
            torch._assert(W == self.img_size[1], "width")
        return self.proj(x).flatten(2).transpose(1, 2)


class Net(nn.Module):
    def __init__(self, img_size: int = 224, patch_size: int = 16, dim: int = 8):
        super().__init__()
        self.embed = Embed(img_size=img_size, patch_size=patch_size, dim=dim)
        self.pos = nn.Parameter(torch.zeros(1, self.embed.num_patches, dim))

    def forward(self, x):
        t = self.embed(x)
        y = t + self.pos
        return y
"""


def inferred_and_run(src: str, function: str) -> tuple:
    """`infer`'s values in `function` by name (no error reported), and the program's names as
    Python runs it."""
    r = analyze_source(src, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    return {v["name"]: v for v in r.infer_json()["values"] if v["function"] == function}, ns


def test_a_number_known_by_name_is_not_none():
    got, ns = inferred_and_run(SRC, "Net.forward")
    x = torch.zeros(2, 3, 32, 32)
    y = ns["Net"](img_size=32, patch_size=8, dim=4)(x)
    env = {"img_size": 32, "patch_size": 8, "dim": 4, "x": x}
    shape = got["y"]["shape"]
    assert "?" not in str(shape), shape
    assert [d if isinstance(d, int) else eval(d, {}, env) for d in shape] == list(y.shape) == [2, 16, 4]
