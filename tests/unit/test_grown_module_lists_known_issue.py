"""Was unsound on main (found in session 11, engineer V2; fixed by grown_lists.reachable/widen): a ModuleList of user
blocks appended in a loop of unknown trip count, then run in a loop, claims the first stage's
output channels (`2*sizes[0]`) for every iteration's `h`; torch gives 8, 16, 32 for
`Enc([4], 3)`. The cause: `controlflow._loop_once` makes lists of unknown length only of the
ListV values of local names that grew; a ModuleList held in an attribute (`self.stages`) keeps
the children both passes appended (two, whatever `n` is), and the forward's loop unrolls over
them. Now any container the environment reaches that a loop of unknown trip count grows
becomes one of unknown length (tests/unit/test_grown_containers.py)."""
from shapehint.analysis.api import analyze_source

SRC = 'import torch\nimport torch.nn as nn\n\n\nclass Stage(nn.Module):\n    def __init__(self, cin: int, cout: int, stride: int = 2):\n        super().__init__()\n        if cin != cout or stride > 1:\n            self.down = nn.ModuleList([nn.BatchNorm2d(cin), nn.Conv2d(cin, cout, kernel_size=2, stride=stride)])\n        else:\n            self.down = nn.ModuleList()\n\n    def forward(self, x):\n        for layer in self.down:\n            x = layer(x)\n        return x\n\n\nclass Enc(nn.Module):\n    def __init__(self, sizes: list[int], n: int):\n        super().__init__()\n        self.stages = nn.ModuleList()\n        prev = sizes[0]\n        for i in range(n):\n            out = prev * 2\n            self.stages.append(Stage(prev, out, stride=2 if i > 0 else 1))\n            prev = out\n\n    def forward(self, h):\n        for st in self.stages:\n            h = st(h)\n        y = h\n        return y\n'


def test_a_stage_loop_claims_no_single_pass_channels():
    got = {(v["function"], v["name"]): v["shape"] for v in analyze_source(SRC, "enc.py").infer_json()["values"]}
    assert got.get(("Enc.forward", "h"), ["?", "?"])[1] in ("?", None)


def test_torch_gives_a_channel_count_per_stage():
    torch = __import__("pytest").importorskip("torch")
    ns: dict = {}
    exec(compile(SRC, "enc.py", "exec"), ns)
    with torch.device("meta"):
        m = ns["Enc"]([4], 3)
        h = torch.empty(2, 4, 32, 32)
        chans = []
        for st in m.stages:
            h = st(h)
            chans.append(h.shape[1])
    assert chans == [8, 16, 32]
