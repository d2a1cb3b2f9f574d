"""`dict(zip(names, values))` and `dict(pairs)` of known pairs hold exactly those keys
(analysis/dicts.of_pairs): a stage's arguments built so (`dict(zip(arg_names, params))` for each
stage, timm's RegNet) give each stage its own width. A pair not known, or a key not a known
string, leaves the keys unknown. Shapes checked against torch."""
import sys

import torch

from shapehint.analysis.api import analyze_source

SOURCE = '''import torch
import torch.nn as nn


def stages(widths):
    names = ['out_chs', 'stride']
    return [dict(zip(names, p)) for p in zip(widths, [1, 2, 2])]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        layers, cin = [], 3
        for a in stages([8, 16, 32]):
            layers.append(nn.Conv2d(cin, a['out_chs'], 3, a['stride'], 1))
            cin = a['out_chs']
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        y = self.body(x)
        return y


def pairs():
    d = dict([('a', 1), ('b', 2)])
    e = dict(zip(['a', 'b'], [3, 4]), c=5)
    t = torch.zeros(d['a'], d['b'], e['a'], e['c'])
    return t


def unknown(keys):
    d = dict(zip(keys, [3, 4]))
    t = torch.zeros(d['a'])
    return t
'''


def _shapes(tmp_path):
    path = tmp_path / "pairs.py"
    path.write_text(SOURCE)
    r = analyze_source(SOURCE, str(path))
    return {v["name"]: v for v in r.infer_json()["values"]}, path


def test_known_pairs_make_known_keys(tmp_path):
    got, path = _shapes(tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        import pairs as mod
        x = torch.randn(2, 3, 19, 13)
        want_y = list(mod.Net()(x).shape)
        want_t = list(mod.pairs().shape)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pairs", None)
    y = [d if isinstance(d, int) else eval(d, {}, {"x": x}) for d in got["y"]["shape"]]
    assert y == want_y
    ts = [v for v in got.values() if v["name"] == "t"]
    assert any(v["shape"] == want_t for v in ts)


def test_a_key_not_known_leaves_the_keys_unknown(tmp_path):
    r = analyze_source(SOURCE, str(tmp_path / "pairs.py"))
    t = [v for v in r.infer_json()["values"] if v["name"] == "t" and v["line"] == SOURCE.splitlines().index(
        "    t = torch.zeros(d['a'])") + 1]
    assert not t or t[0]["shape"] != [3]
