"""A function's own analysis reads a float default as any float (generic._unpinned), as a
constructor's does (defaults.default_symbol): a private factory `_create(variant, width=1.0)`
that public factories call with `width=0.5` builds `int(16 * width)` channels, and its own
construction context (`_create:LINE`, which devicerun/builders.py counts for every build through
it) claimed 16 where `tiny()`'s model has 8. The public factories' contexts keep their sizes:
`tiny` passes 0.5, `base` leaves the default (its context holds its `**kwargs` to sizes, and the
callee's defaults stand, sized_kwargs.py), `wide` passes its own `width=1.5`, which its context
holds at that default as builders.py matches a build. Checked against torch."""
import pytest

from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, chans, num_classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, chans[0], 3, padding=1)
        self.body = nn.Conv2d(chans[0], chans[1], 3, padding=1)
        self.head = nn.Linear(chans[1], num_classes)

    def forward(self, x):
        x = self.stem(x)
        x = self.body(x)
        x = x.mean((2, 3))
        return self.head(x)


def _create(variant, width=1.0, **kwargs):
    chans = [int(16 * width), int(32 * width)]
    return Net(chans, **kwargs)


def tiny(**kwargs):
    return _create("tiny", width=0.5, **kwargs)


def base(**kwargs):
    return _create("base", **kwargs)


def wide(width=1.5, **kwargs):
    return _create("wide", width=width, **kwargs)
'''
STEM, BODY = 13, 14  # the lines of `x = self.stem(x)` and `x = self.body(x)`


def _contexts(line: int) -> dict:
    values = analyze_source(PROGRAM, "m.py").infer_json()["values"]
    hit = [v for v in values if v["function"] == "Net.forward" and v["line"] == line and v["name"] == "x"]
    return {c["context"].split(":")[0]: c["shape"] for c in hit[0].get("contexts", [])}


def _torch_channels() -> dict:
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(PROGRAM, "m.py", "exec"), ns)
    out = {}
    for name, build in (("tiny", ns["tiny"]), ("base", ns["base"]), ("wide", ns["wide"]), ("_create", lambda: ns["_create"]("x"))):
        net = build()
        out[name] = (net.stem(torch.zeros(1, 3, 4, 4)).shape[1], net.body(torch.zeros(1, net.stem.out_channels, 4, 4)).shape[1])
    return out


def test_torch_builds_other_widths_through_the_private_factory():
    assert _torch_channels() == {"tiny": (8, 16), "base": (16, 32), "wide": (24, 48),
                                "_create": (16, 32)}


@pytest.mark.parametrize("line, axis", [(STEM, 0), (BODY, 1)])
def test_the_private_factorys_context_claims_no_width_of_one_call(line, axis):
    got = _contexts(line)["_create"]
    assert not isinstance(got[1], int), got  # 16 (32) held only where `width` is left at 1.0


@pytest.mark.parametrize("line, axis", [(STEM, 0), (BODY, 1)])
def test_the_public_factories_contexts_keep_their_widths(line, axis):
    got = _contexts(line)
    channels = _torch_channels()
    assert got["tiny"][1] == channels["tiny"][axis]
    assert got["base"][1] == channels["base"][axis]
    assert got["wide"][1] == channels["wide"][axis]  # (its own float at its default: sized_kwargs)
