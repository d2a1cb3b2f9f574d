"""Operations on values of unknown rank (issue 28, cause 1). The program is
tests/unit/values/rank.py: an unannotated block whose values are `[*hidden_states, ...]`, and a
function over declared `*batch` segments. Each shape the analysis claims is checked against
PyTorch on the meta device for inputs of several ranks and dtypes: the axes it claims (around the
`*` segment, which stands for zero or more axes) are the ones torch computes. Each of these
lines gave no shape before (`EXPECTED`)."""
import pytest

from shapehint.analysis.api import analyze_source
from shapehint.devicerun.compare import align, eval_dim

from .values import answer, program

D_IN, D, HEADS = 8, 12, 4

# what each line must claim: the known trailing axes after the unknown leading ones
EXPECTED = {
    "Block.forward": {
        "res": ["*hidden_states", "d"], "padded": ["*hidden_states", "d + 3"],
        "left": ["*hidden_states", 1], "right": ["*hidden_states", 1],
        "first": ["*hidden_states", 2], "rest": ["*hidden_states", "d - 2"],
        "k": ["*hidden_states", "d//heads", "heads"], "scores": ["*hidden_states", "heads", "heads"],
        "probs": ["*hidden_states", "heads", "heads"], "ctx": ["*hidden_states", "heads", "d//heads"],
        "merged": ["*hidden_states", "heads*(d//heads)"], "both": ["*hidden_states", "2*d"],
        "stacked": ["*hidden_states", "d", 2], "unit": ["*hidden_states", "d"],
    },
    "typed": {"prod": ["*batch", 6, 5], "summed": ["*batch", 6, 5], "swapped": ["*batch", 5, 6],
              "halves": ["*batch", 6, 1], "joined": ["*batch", 12, 5]},
}


def _claimed(function):
    return {v["name"]: v["shape"] for v in answer("rank")["values"] if v["function"] == function}


def _agrees(shape, seen, env):
    pairs = align(shape, list(seen))
    assert pairs is not None, f"{shape} claims more axes than {list(seen)}"
    for d, o in pairs:
        assert eval_dim(d, env) == o, f"{shape} against {list(seen)}"


@pytest.mark.parametrize("function", sorted(EXPECTED))
def test_each_line_claims_its_known_trailing_axes(function):
    claimed = _claimed(function)
    for name, want in EXPECTED[function].items():
        assert claimed.get(name) == want, (name, claimed.get(name))


def _block_values(x):
    import torch
    import torch.nn.functional as F
    mod = program("rank")
    m = mod.Block(D_IN, D, HEADS).to(device="meta", dtype=x.dtype).eval()
    h = m.drop(m.dense(x))
    res = m.norm(h + h)
    q = h.view(*h.shape[:-1], HEADS, -1)
    k = q.transpose(-1, -2)
    scores = torch.matmul(q, k)
    probs = scores.softmax(dim=-1)
    ctx = probs @ q
    first, rest = h.split([2, h.shape[-1] - 2], dim=-1)
    left, right = first.chunk(2, dim=-1)
    return {"h": h, "res": res, "padded": F.pad(h, (1, 2)), "left": left, "right": right, "first": first,
            "rest": rest, "q": q, "k": k, "scores": scores, "probs": probs, "ctx": ctx, "merged": ctx.flatten(-2),
            "both": torch.cat([h, res], dim=-1), "stacked": torch.stack([h, res], dim=-1),
            "unit": F.normalize(h, dim=-1)}


@pytest.mark.parametrize("lead", [(5,), (2, 5), (2, 3, 5)])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_block_agrees_with_torch_at_several_ranks(lead, dtype):
    import torch
    x = torch.empty(*lead, D_IN, device="meta", dtype=getattr(torch, dtype))
    seen = _block_values(x)
    env = {"d": D, "heads": HEADS, "d_in": D_IN}
    for name, shape in _claimed("Block.forward").items():
        if shape is not None and name in seen:
            _agrees(shape, seen[name].shape, env)


@pytest.mark.parametrize("batch", [(), (3,), (2, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64"])
def test_declared_segments_agree_with_torch(batch, dtype):
    import torch
    dt = getattr(torch, dtype)
    x, y = torch.empty(*batch, 6, 4, device="meta", dtype=dt), torch.empty(*batch, 4, 5, device="meta", dtype=dt)
    prod = x @ y
    summed = prod + prod
    seen = {"prod": prod, "summed": summed, "swapped": prod.transpose(-1, -2), "halves": prod.chunk(5, dim=-1)[0],
            "joined": torch.cat([prod, summed], dim=-2)}
    for name, shape in _claimed("typed").items():
        if shape is not None:
            _agrees(shape, seen[name].shape, {})


SRC = "import torch\nfrom torch import nn\n\nlin = nn.Linear(8, 16)\n\n\ndef f(x, y):\n    h = lin(x)\n"


def _alone(body):
    src = SRC + "".join(f"    {line}\n" for line in body) + "    return z\n"
    res = analyze_source(src, "t.py")
    assert not [d for d in res.diagnostics if d.severity == "error"]
    return {v["name"]: v["shape"] for v in res.infer_json()["values"]}.get("z"), src


XS = [(5, 8), (2, 5, 8), (2, 3, 5, 8)]
YS = [(16,), (1,), (5, 16), (2, 5, 16), (3, 1, 16), (16, 4), (2, 16, 4), (2, 5, 4)]


@pytest.mark.parametrize("body", [
    ["z = h + y"],  # another tensor's unknown axes: how they broadcast depends on how many
    ["z = h.chunk(2, dim=1)[0]"],  # axis 1 may be the last one (x may be 2-D)
    ["t = x.shape[2]", "z = h.transpose(0, -1)"],  # axes on both sides of the unknown ones
    ["z = torch.matmul(h, y)"],  # y's rank unknown: a vector or a batch of matrices
    ["z = torch.cat([h, y], dim=-1)"],  # not the same unknown axes
    ["z = h.transpose(1, 2)"],  # positive axes of `[*x, 16]`
])
def test_what_depends_on_how_many_unknown_axes_there_are_is_not_claimed(body):
    import torch
    z, src = _alone(body)
    scope = {}
    exec(compile(src, "t.py", "exec"), scope)
    checked = 0
    for xs in XS:
        for ys in YS:
            try:
                with torch.no_grad():
                    got = scope["f"](torch.zeros(*xs), torch.zeros(*ys)).shape
            except (RuntimeError, IndexError):
                continue
            env = {f"x.shape[{i}]": v for i, v in enumerate(xs)}
            env.update({f"x.shape[{i - len(xs)}]": v for i, v in enumerate(xs)})
            env.update({f"y.shape[{i}]": v for i, v in enumerate(ys)})
            env.update({f"y.shape[{i - len(ys)}]": v for i, v in enumerate(ys)})
            if z is not None:
                _agrees(z, got, env)
            checked += 1
    assert checked


def test_no_diagnostic_on_the_program():
    assert answer("rank")["diagnostics"] == []


HEADS_SRC = '''import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.head_size = int(d / heads)
        self.all_head_size = self.heads * self.head_size
        self.query = nn.Linear(d, self.all_head_size)

    def forward(self, x):
        q = self.query(x)
        q = q.view(*q.shape[:-1], self.heads, self.head_size)
        return q


def shifted(x):
    n = x.shape[0] - 5
    k = int(n / 2)
    z = torch.zeros(k)
    return z
'''


@pytest.mark.parametrize("d,heads", [(12, 4), (32, 2), (10, 3)])
def test_int_of_a_true_division_of_sizes_is_their_floor_division(d, heads):
    # `int(config.hidden_size / config.num_attention_heads)`: the sizes are positive, so int()
    # truncates as // does
    import torch
    res = analyze_source(HEADS_SRC, "heads.py")
    shapes = {(v["function"], v["line"]): v["shape"] for v in res.infer_json()["values"]}
    claimed = shapes[("Attention.forward", 15)]
    assert claimed == ["*x", "heads", "d//heads"]
    scope = {}
    exec(compile(HEADS_SRC, "heads.py", "exec"), scope)
    with torch.no_grad():
        got = scope["Attention"](d, heads)(torch.zeros(2, 5, d)).shape
    _agrees(claimed, got, {"d": d, "heads": heads})


def test_int_of_a_quotient_that_may_be_negative_is_not_a_floor_division():
    res = analyze_source(HEADS_SRC, "heads.py")
    z = [v["shape"] for v in res.infer_json()["values"] if v["function"] == "shifted" and v["name"] == "z"]
    assert z and "//" not in str(z[0])  # int(-3 / 2) is -1, (-3) // 2 is -2
