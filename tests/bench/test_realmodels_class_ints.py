"""The real-model referee's record of a class passed as an argument (bench/realmodels/execute.py
`_class_ints`): the int class attributes the run reads on it (`block.expansion` of
`ResNet(Bottleneck, ...)`), inherited ones included, and nothing else of the class, so a shape
written `64*block.expansion` is judged by the class actually passed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "bench", "realmodels"))
import execute  # noqa: E402
import score  # noqa: E402


class Base:
    expansion = 1
    depth = 3
    _hidden = 7
    scale = 0.5
    strict = True
    name = "base"

    def forward(self):
        return self.expansion


class Wide(Base):
    expansion = 4


def test_only_the_int_class_attributes_are_recorded_as_the_run_reads_them():
    assert execute._class_ints(Base) == {"expansion": 1, "depth": 3}
    assert execute._class_ints(Wide) == {"expansion": 4, "depth": 3}  # (inherited `depth` too)


def test_a_shape_named_by_the_class_attribute_binds_to_the_class_passed():
    look = score.ObjProxy({"block": {"attrs": execute._class_ints(Wide)}}).get
    assert score.evaluate("64*block.expansion", look) == 256


def test_a_modules_parts_ints_are_recorded_a_few_levels_down():
    """`self.dw.conv.in_channels` (analysis/held_sizes.py names a width by a part's attribute)."""
    import torch.nn as nn

    class ConvBn(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv = nn.Conv2d(c, c, 3, groups=c)
            self.bn = nn.BatchNorm2d(c)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.exp = nn.Conv2d(4, 12, 1)
            self.dw = ConvBn(12)
            self.skip = None

    got = execute._part_ints(Block(), execute.PART_DEPTH)
    assert got["exp"]["attrs"]["out_channels"] == 12 and "skip" not in got
    look = score.ObjProxy(got).get
    assert score.evaluate("dw.conv.in_channels", look) == 12
    assert score.evaluate("dw.bn.num_features", look) == 12
    assert "training" not in got["exp"]["attrs"]  # (bools are not sizes)
    assert execute._part_ints(object.__new__(Block), 2) == {}  # before nn.Module.__init__ ran


def test_a_finite_float_argument_or_attribute_is_recorded_as_a_float_never_as_an_int():
    assert execute._scalar(4.0) == {"float": 4.0} and execute._scalar(0.1) == {"float": 0.1}
    assert execute._scalar(3) == 3 and execute._scalar((2, 3)) == [2, 3]
    for v in (float("nan"), float("inf"), True, "4", None):
        assert execute._scalar(v) is None
    assert score.evaluate("int(r*d)", score.ObjProxy({"r": execute._scalar(4.0), "d": 6}).get) == 24
