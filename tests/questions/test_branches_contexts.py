"""Q3 for branches in helper methods and submodules: decided in the calling contexts that reach
them from the entry functions (with the caller's shapes and the instance the enclosing model
builds), judged by executing the programs."""
import random

import torch

from shapehint.analysis.api import analyze_session, analyze_source
from shapehint.questions.branches import answer_branches

from .helpers import branch_outcomes, line_of, namespace

HELPER = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def prepare(self, mask):
        if mask.dim() == 3:
            mask = mask[:, 0]
        elif mask.dim() == 2:
            mask = mask + 0
        return mask

    def scale(self, h: Float[Tensor, "B D"]):
        if h.shape[1] > 8:
            h = h * 0.5
        return h

    def forward(self, x: Float[Tensor, "B 16"]):
        mask = torch.ones(x.shape[0], 16)
        h = self.scale(x * self.prepare(mask))
        if x.shape[0] > 1:
            h = h + 1
        return self.fc(h)


Net()(torch.randn(2, 16))
'''

SUBMODULES = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        if dim % heads != 0:
            raise ValueError("dim must be divisible by heads")
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x):
        B, T, C = x.shape
        if self.head_dim * self.heads != C:
            raise ValueError("dim must be divisible by heads")
        q, k, v = self.qkv(x).split(C, dim=-1)
        q = q.view(B, T, self.heads, self.head_dim)
        if q.size() != (B, T, self.heads, self.head_dim):
            raise ValueError("wrong size")
        if T > 1:
            q = q * 2
        return q.reshape(B, T, C) + v


class Block(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.proj = nn.Linear(cin, cout)

    def forward(self, x):
        if x.shape[-1] == 32:
            x = x * 2
        return self.proj(x)


class Model(nn.Module):
    def __init__(self, dim: int = 64, heads: int = 8):
        super().__init__()
        self.layers = nn.ModuleList([Attention(dim, heads) for _ in range(2)])
        self.blocks = nn.Sequential(Block(dim, 32), Block(32, 16))

    def forward(self, x: Float[Tensor, "B T 64"]):
        for layer in self.layers:
            x = layer(x)
        return self.blocks(x)


def solo(x: Float[Tensor, "B T"]):
    if x.shape[1] > 4:
        return x[:, :4]
    return x
'''


def _by_condition(got):
    return {b["condition"]: b for b in got}


def test_helper_method_branches_decided_by_the_caller():
    r = analyze_session(HELPER, "m.py")
    got = _by_condition(answer_branches(r))
    assert got["mask.dim() == 3"]["status"] == "always-false"
    assert got["mask.dim() == 2"]["status"] == "always-true"
    assert got["h.shape[1] > 8"]["status"] == "always-true"  # forward passes 16 columns
    # witnesses are inputs of the entry whose context decided the branch
    b = got["mask.dim() == 2"]
    assert b["witness_function"] == "Net.forward" and b["witnesses"]["false"] is None
    model = namespace(HELPER)["Net"]()
    x = torch.randn(*b["witnesses"]["true"]["x"])
    for cond, line_text, body_text in (("mask.dim() == 3", "if mask.dim() == 3", "mask = mask[:, 0]"),
                                       ("mask.dim() == 2", "elif mask.dim() == 2", "mask = mask + 0")):
        seen = branch_outcomes(lambda: model(x), line_of(HELPER, line_text), line_of(HELPER, body_text))
        assert seen == {got[cond]["status"] == "always-true"}


def test_module_level_calls_do_not_narrow_an_entry():
    # the demo call at the end passes a batch of 2, but forward is judged for every batch size
    r = analyze_session(HELPER, "m.py")
    b = _by_condition(answer_branches(r))["x.shape[0] > 1"]
    assert b["status"] == "depends" and b["witness_function"] == "Net.forward"
    model = namespace(HELPER)["Net"]()
    for outcome in ("true", "false"):
        x = torch.randn(*b["witnesses"][outcome]["x"])
        assert bool(x.shape[0] > 1) == (outcome == "true")
        model(x)


def test_assumption_scoped_to_a_helper_asks_about_its_own_inputs():
    r = analyze_session(HELPER, "m.py")
    b = _by_condition(answer_branches(r, ["Net.scale: h.shape[1] == 4"]))["h.shape[1] > 8"]
    assert b["status"] == "always-false" and b["witness_function"] == "Net.scale"
    # unscoped, it names no parameter of the entry: the callers' answer stands
    b = _by_condition(answer_branches(r, ["h.shape[1] == 4"]))["h.shape[1] > 8"]
    assert b["status"] == "always-true"


def test_constructor_values_of_the_enclosing_model_reach_submodule_branches():
    r = analyze_session(SUBMODULES, "m.py")
    got = _by_condition(answer_branches(r))
    assert got["self.head_dim * self.heads != C"]["status"] == "always-false"
    assert got["dim % heads != 0"]["status"] == "always-false"  # in __init__, as Model builds it
    assert got["q.size() != (B, T, self.heads, self.head_dim)"]["status"] == "always-false"
    assert got["T > 1"]["status"] == "depends"
    # Block(64, 32) gets 64 columns, Block(32, 16) gets 32: the two executions disagree, so the
    # line takes both outcomes for every input
    assert got["x.shape[-1] == 32"]["status"] == "depends"
    model = namespace(SUBMODULES)["Model"]()
    rng = random.Random(5)
    lines = {cond: (line_of(SUBMODULES, f"if {cond}"), line_of(SUBMODULES, f"if {cond}") + 1) for cond in got
             if cond in ("self.head_dim * self.heads != C", "T > 1", "x.shape[-1] == 32")}
    seen = {cond: set() for cond in lines}
    for _ in range(6):
        x = torch.randn(rng.randint(1, 3), rng.randint(1, 5), 64)
        for cond, (if_line, body_line) in lines.items():
            seen[cond] |= branch_outcomes(lambda: model(x), if_line, body_line)
    assert seen["self.head_dim * self.heads != C"] == {False}
    assert seen["x.shape[-1] == 32"] == {True, False}


def test_generic_analysis_when_no_entry_reaches_the_function():
    r = analyze_session(SUBMODULES, "m.py")
    b = _by_condition(answer_branches(r))["x.shape[1] > 4"]
    assert b["function"] == "solo" and b["status"] == "depends" and b["witness_function"] == "solo"
    assert b["witnesses"]["true"]["x"][1] > 4 >= b["witnesses"]["false"]["x"][1]


def test_different_instances_of_a_class_in_one_model():
    # the same submodule class built with two head counts: its check holds in both
    text = SUBMODULES.replace("[Attention(dim, heads) for _ in range(2)]", "[Attention(dim, heads), Attention(dim, 4)]")
    got = _by_condition(answer_branches(analyze_session(text, "m.py")))
    assert got["self.head_dim * self.heads != C"]["status"] == "always-false"
    # a head count that does not divide the width makes the check fire in that layer only
    text = SUBMODULES.replace("[Attention(dim, heads) for _ in range(2)]", "[Attention(dim, heads), Attention(dim, 6)]")
    got = _by_condition(answer_branches(analyze_session(text, "m.py")))
    assert got["self.head_dim * self.heads != C"]["status"] == "depends"


def test_branches_of_an_imported_module_are_not_this_files(tmp_path):
    (tmp_path / "layers.py").write_text(
        "import torch.nn as nn\n\n\n"
        "class Gate(nn.Module):\n"
        "    def forward(self, x):\n"
        "        if x.dim() == 2:\n"
        "            x = x * 2\n"
        "        return x\n")
    main = ("import torch\nimport torch.nn as nn\nfrom jaxtyping import Float\nfrom torch import Tensor\n"
            "from layers import Gate\n\n\n"
            "class Net(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.gate = Gate()\n\n"
            "    def forward(self, x: Float[Tensor, 'B 8']):\n"
            "        if x.shape[0] > 2:\n"
            "            x = x + 1\n"
            "        return self.gate(x)\n")
    (tmp_path / "main.py").write_text(main)
    got = answer_branches(analyze_session(main, str(tmp_path / "main.py")))
    assert [(b["line"], b["condition"], b["status"]) for b in got] == [(14, "x.shape[0] > 2", "depends")]


def test_branch_on_a_list_grown_in_a_loop_is_not_decided_by_the_first_iteration():
    text = ("import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n\n"
            "def collect(x, limit: int):\n"
            "    outs = []\n"
            "    for _ in range(limit * 40):\n"
            "        outs.append(x)\n"
            "        if len(outs) >= limit:\n"
            "            break\n"
            "    return torch.stack(outs)\n\n\n"
            "def main(x: Float[Tensor, 'B 8']):\n"
            "    return collect(x, 60)\n")
    r = analyze_session(text, "m.py")
    b = _by_condition(answer_branches(r))["len(outs) >= limit"]
    assert b["status"] != "always-false"  # the 60th iteration takes it
    out = namespace(text)["main"](torch.randn(2, 8))
    assert out.shape == (60, 2, 8)


def test_a_context_the_analysis_cannot_follow_leaves_the_functions_own_answer():
    text = ("import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n\n"
            "def helper(h: Float[Tensor, 'B 16']):\n"
            "    if h.shape[1] == 16:\n"
            "        h = h * 2\n"
            "    return h\n\n\n"
            "def main(x: Float[Tensor, 'B 16']):\n"
            "    return helper(mystery(x))\n")
    b = _by_condition(answer_branches(analyze_session(text, "m.py")))["h.shape[1] == 16"]
    assert b["status"] == "always-true" and b["witness_function"] == "helper"


OPTIONAL = '''import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Model(nn.Module):
    def extend(self, mask):
        if mask.dim() == 3:
            return mask[:, None]
        return mask[:, None, None]

    def forward(self, ids: Float[Tensor, "B T"], mask=None):
        if ids.shape[0] > 8:
            ids = ids[:8]
        if mask is None:
            mask = torch.ones(ids.shape[0], ids.shape[1])
        ext = self.extend(mask)
        if ids.shape[1] > 4:
            ext = ext * 2
        if ids.dim() == 2:
            ext = ext + 0
        return ext
'''


def test_an_omitted_optional_argument_does_not_decide_what_follows():
    got = _by_condition(answer_branches(analyze_session(OPTIONAL, "m.py")))
    # the analysis saw only calls without a mask; callers may pass a 3-D one: `extend`'s own
    # analysis, where the mask's rank is open, answers (both outcomes occur, as run below)
    assert got["mask.dim() == 3"]["status"] == "depends"
    assert got["mask.dim() == 3"]["witness_function"] == "Model.extend"
    assert [len(got["mask.dim() == 3"]["witnesses"][k]["mask"]) for k in ("true", "false")] == [3, 1]
    assert got["ids.dim() == 2"]["status"] == "unknown"  # after the decision: not "always"
    assert got["ids.shape[1] > 4"]["status"] == "depends"  # both outcomes do occur
    assert got["ids.shape[0] > 8"]["status"] == "depends"  # before it: unaffected
    model = namespace(OPTIONAL)["Model"]()
    if_line, body_line = line_of(OPTIONAL, "if mask.dim() == 3"), line_of(OPTIONAL, "return mask[:, None]")
    ids = torch.randn(2, 5)
    assert branch_outcomes(lambda: model(ids), if_line, body_line) == {False}
    assert branch_outcomes(lambda: model(ids, torch.ones(2, 5, 5)), if_line, body_line) == {True}


def test_an_optional_flag_is_not_an_optional_tensor():
    text = ("import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n\n"
            "def forward(ids: Float[Tensor, 'B T'], verbose=None):\n"
            "    if verbose is None:\n"
            "        verbose = False\n"
            "    if ids.dim() == 2:\n"
            "        ids = ids * 2\n"
            "    return ids\n")
    got = _by_condition(answer_branches(analyze_session(text, "m.py")))
    assert got["ids.dim() == 2"]["status"] == "always-true"


def test_a_condition_is_shown_as_written_and_a_multiline_one_as_python_prints_it():
    src = '''import torch
def f(x: torch.Tensor):
    if x.size(0)==2:  # no spaces, as the user wrote it
        return x
    if (x.shape[0] > 3 and
            x.shape[1] == 4):
        return x
    return x
'''
    got = {b["line"]: b["condition"] for b in answer_branches(analyze_session(src, "c.py", records=False))}
    assert got == {3: "x.size(0)==2", 5: "x.shape[0] > 3 and x.shape[1] == 4"}
