"""Differential tests for einops.pack / einops.unpack against einops itself (meta tensors)."""
import random

import einops
import pytest

from .diff import T, check

rng = random.Random(11)

PACK = [
    ([(2, 3, 4), (2, 5, 4)], "b * c"),
    ([(2, 3, 4), (2, 4)], "b * c"),
    ([(2, 3, 4, 5), (2, 7, 5)], "b * c"),
    ([(2, 3, 4), (3, 3, 4)], "b * c"),  # b differs
    ([(2, 3)], "b c *"),  # empty star
    ([(6,), (2, 3)], "*"),
    ([(2, 4), (2, 3, 4)], "* c"),
    ([(2,)], "b c *"),  # too few axes
    ([(2, 3, 4)], "b c"),  # no star
    ([(2, 3, 4)], "b * b"),  # duplicate
    ([(0, 3, 4)], "b * c"),  # a zero outside the star
    ([(2, 0, 4)], "b * c"),
]
for _ in range(40):
    before, after = rng.randint(0, 2), rng.randint(0, 2)
    outer = [rng.randint(1, 4) for _ in range(before + after)]
    shapes = []
    for _ in range(rng.randint(1, 3)):
        mid = [rng.randint(1, 4) for _ in range(rng.randint(0, 2))]
        o = list(outer)
        if rng.random() < 0.1 and o:
            o[0] += 1
        shapes.append(tuple(o[:before] + mid + o[before:]))
    PACK.append((shapes, " ".join([f"a{i}" for i in range(before)] + ["*"] + [f"z{i}" for i in range(after)])))


@pytest.mark.parametrize("shapes,pattern", PACK)
def test_pack(shapes, pattern):
    check("einops.pack", einops.pack, ([T(*s) for s in shapes], pattern))


UNPACK = [
    ((2, 7, 4), [(3,), (4,)], "b * c"),
    ((2, 7, 4), [(3,), (5,)], "b * c"),  # sizes do not add up
    ((2, 7, 4), [(3,), (-1,)], "b * c"),
    ((2, 9, 4), [(1,), (-1, 2)], "b * c"),
    ((2, 8, 4), [(1,), (-1, 2)], "b * c"),  # 7 is not a multiple of 2
    ((2, 7, 4), [(-1,), (-1,)], "b * c"),  # two unknowns
    ((2, 12), [(2, 3), (), (2, 3)], "b *"),
    ((2, 7), [(3,), (4,)], "b * c"),  # wrong rank
    ((2, 6, 4), [(2, 3)], "b * c"),
    ((2, 6, 4), [(0, -1)], "b * c"),
]


@pytest.mark.parametrize("shape,packed,pattern", UNPACK)
def test_unpack(shape, packed, pattern):
    check("einops.unpack", einops.unpack, (T(*shape), packed, pattern))


def test_pack_then_unpack_round_trips():
    from shapehint.ops.concrete import apply, shape_of
    x, y = T(2, 3, 5).abstract(), T(2, 5).abstract()
    packed, ps = apply("einops.pack", [x, y], "b * c").items
    assert shape_of(packed) == (2, 4, 5)
    assert shape_of(apply("einops.unpack", packed, ps, "b * c")) == ((2, 3, 5), (2, 5))
