"""Layers built with sizes known only at run time (issue 27: RegNet's widths), on
tests/unit/assembled/run_widths.py, against torch. Before: nothing after the stem had a shape
(a linear or batch norm of an unknown size had no rule result; a comprehension over a
list of unknown length lost its items; an OrderedDict of such pairs lost its values)."""
import importlib.util
import os

import torch

from shapehint.analysis.api import analyze_source

PATH = os.path.join(os.path.dirname(__file__), "assembled", "run_widths.py")


def _lines():
    with open(PATH) as f:
        values = analyze_source(f.read(), PATH).infer_json()["values"]
    return {(v["line"], v["name"]): v["shape"] for v in values if v["function"] == "Net.forward"}


def _agrees(shape, observed, env):
    """Every dim is `?` or evaluates under `env` to torch's; returns how many evaluated."""
    assert shape is not None and len(shape) == len(observed), (shape, observed)
    known = 0
    for d, o in zip(shape, observed):
        if isinstance(d, str) and "?" in d:
            continue
        assert (d if isinstance(d, int) else eval(d, dict(env))) == o, (shape, observed)
        known += 1
    return known


def test_every_line_after_stages_of_run_time_widths_has_a_shape():
    got = _lines()
    spec = importlib.util.spec_from_file_location("run_widths", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x0 = torch.randn(4, 3)
    for widths in ([8, 24], [5], []):
        net = mod.Net(widths).eval()
        with torch.no_grad():
            x = net.stem(x0)
            y = net.same_trunk(x)
            t = net.trunk(x)
            out = net.fc(t)
        env = {"x": x0, "batch": 4, "stem": 16, "num_classes": 10, "self": net}  # (held sizes: `self.fc.in_features`)
        want = {36: y, 37: t, 38: out}
        counts = {line: _agrees(got[(line, "y" if line == 36 else "x")], list(t.shape), env)
                  for line, t in want.items()}
        assert counts == {36: 1, 37: 2, 38: 2}, counts  # (37: the trunk's width, `self.fc.in_features`)


def test_a_layer_of_an_unknown_size_still_checks_what_is_known():
    src = ("import torch\nfrom torch import nn\n\n\n"
           "def f(widths: list):\n"
           "    for w in widths:\n"
           "        c = w\n"
           "    y = nn.BatchNorm2d(c)(torch.zeros(2, 3, 4))\n"
           "    return y\n")
    r = analyze_source(src, "m.py")
    # a 3-D input is no batch of images, whatever the channels: still an error
    assert [(d.line, d.code) for d in r.diagnostics if d.severity == "error"] == [(8, "SH102")]
    ns = {}
    exec(compile(src, "m.py", "exec"), ns)
    try:
        ns["f"]([3])
    except (RuntimeError, ValueError):
        pass
    else:
        raise AssertionError("torch accepted it")
