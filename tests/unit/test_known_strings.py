"""Operations on strings the program knows (strings.py): items and slices, `len`, `float(s)`,
`re.split`, `str.format`; with `split`, `startswith` and `int(s)`, an architecture spelled as a string
(`'ds_r1_k3_s2_e1_c16_se0.25'`) builds the layers it names. A default callers may replace
(DefaultStrV) or a bound not known decides nothing. Checked against torch running the program."""
import torch

from .program_runs import infer, run

PROGRAM = """import re

import torch
import torch.nn as nn


def parse_ksize(ss):
    if ss.isdigit():
        return int(ss)
    return [int(k) for k in ss.split('.')]


def decode(block_str):
    ops = block_str.split('_')
    block_type = ops[0]
    options = {}
    skip = None
    for op in ops[1:]:
        if op == 'noskip':
            skip = False
        elif op.startswith('n'):
            options['n'] = op[1:]
        else:
            splits = re.split(r'(\\d.*)', op)
            if len(splits) >= 2:
                key, value = splits[:2]
                options[key] = value
    args = dict(block_type=block_type, out_chs=int(options['c']), stride=int(options['s']),
                k=parse_ksize(options['k']), se=float(options.get('se', 0.)), noskip=skip is False)
    return args, int(options['r'])


class Stem(nn.Module):
    def __init__(self, arch='ds_r1_k3_s1_c8', kind='deep'):
        super().__init__()
        args, _ = decode(arch)
        self.conv = nn.Conv2d(3, args['out_chs'], args['k'])
        self.side = nn.Conv2d(3, 8 if '{}_stem'.format(kind) == 'deep_stem' else 4, 1)

    def forward(self, x):
        s = self.conv(x)
        t = self.side(x)
        return s, t


class Stages(nn.Module):
    def __init__(self):
        super().__init__()
        for i, c in enumerate((4, 6)):
            self.add_module('s{}'.format(i + 1), nn.Conv2d(3 if i == 0 else 4, c, 1))

    def forward(self, x):
        a = self.s1(x)
        b = self.s2(a)
        return b


def run(x, n):
    args, r = decode('ds_r2_k3_s2_e1_c16_se0.25')
    y = nn.Conv2d(3, args['out_chs'], args['k'], stride=args['stride'])(x)
    z = y[:, :r * len(args['block_type'])]
    w = y[:, :int(float('0.25') * 16)]
    word = 'conv_block'
    v = y[:, :len(word[5:]) + len(word[-3:])]
    u = y[:, :len(word[:n])]
    return y, z, w, v, u, Stages()(x)
"""


def test_an_architecture_string_decoded_builds_its_layers(tmp_path):
    x = torch.randn(2, 3, 10, 10)
    expected = [list(t.shape) for t in run(PROGRAM)["run"](x, 2)]
    assert expected == [[2, 16, 4, 4], [2, 4, 4, 4], [2, 4, 4, 4], [2, 8, 4, 4], [2, 2, 4, 4], [2, 6, 10, 10]]
    vals = {(v["function"], v["name"]): v.get("shape") for v in infer(tmp_path, PROGRAM)["values"]}
    for name, want in zip("yzwv", expected):
        got = vals[("run", name)]
        assert got[:2] == ["x.shape[0]", want[1]], name
    # `word[:n]` with `n` a parameter: not the whole word (10), nor any one length
    assert vals[("Stages.forward", "b")][1] == expected[5][1]  # (stages named by `'s{}'.format(i + 1)`)
    u = vals.get(("run", "u"))
    assert u is None or u[1] not in (2, 10)


def test_a_replaceable_default_decides_nothing(tmp_path):
    vals = {(v["function"], v["name"]): v.get("shape") for v in infer(tmp_path, PROGRAM)["values"]}
    # Stem's `arch` default is one architecture among those callers pass: 8 channels is no fact
    s = vals.get(("Stem.forward", "s"))
    assert s is None or s[1] != 8
    # nor is a name formatted from `kind`'s default: `Stem(kind='flat')` has 4 side channels
    t = vals.get(("Stem.forward", "t"))
    assert t is None or t[1] != 8
    assert [list(o.shape) for o in run(PROGRAM)["Stem"](kind='flat')(torch.randn(1, 3, 6, 6))] == [[1, 8, 4, 4], [1, 4, 6, 6]]


MATCHING = """import re

import torch
import torch.nn as nn

PATTERN = r"^[^/:]+/[^/:]+$"


def is_remote(name):
    return name is not None and re.search(PATTERN, name) is not None


def width(name):
    if is_remote(name):
        return 3
    if re.match(r"wide", name) is None:
        return 5
    return 7


def run(x, name):
    a = nn.Linear(4, width("local"))(x)
    b = nn.Linear(4, width("wide"))(x)
    c = nn.Linear(4, width("org/model"))(x)
    d = nn.Linear(4, width(name))(x)
    return a, b, c, d
"""


def test_a_pattern_not_found_in_a_known_string_is_none(tmp_path):
    x = torch.randn(2, 4)
    expected = [list(t.shape) for t in run(MATCHING)["run"](x, "wide")]
    assert expected == [[2, 5], [2, 7], [2, 3], [2, 7]]
    vals = {(v["function"], v["name"]): v.get("shape") for v in infer(tmp_path, MATCHING)["values"]}
    # nothing found: None, so the name's arm is taken
    assert vals[("run", "a")] == ["*x", 5]
    # something found is a match object: no value, both arms stay (never the wrong width)
    for name in "bc":
        got = vals.get(("run", name))
        assert got is None or got[-1] not in (5,) and got[-1] != (3 if name == "b" else 7), (name, got)
    d = vals.get(("run", "d"))
    assert d is None or not isinstance(d[-1], int)
