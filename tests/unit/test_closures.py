"""Nested functions reading the enclosing function's names (analysis/closures.py).

Attention layers split and merge heads with small closures (`def shape(x): return x.view(bs, -1,
heads, dph).transpose(1, 2)` inside `forward`). Before, a nested function saw only the module's
names, so every value it returned was unknown (or, worse, a module-level name of the same
spelling). Each program here is our own; the shapes claimed are checked against PyTorch."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

HEAD = "import torch\nfrom torch import nn\n\n\n"

HEADS = HEAD + '''class Heads(nn.Module):
    def __init__(self, dim: int = 32, n_heads: int = 2):
        super().__init__()
        self.dim = dim
        self.n_heads = n_heads
        self.q_lin = nn.Linear(dim, dim)

    def forward(self, query: torch.Tensor):
        bs, q_length, _ = query.size()
        dim_per_head = self.dim // self.n_heads

        def shape(x):
            return x.view(bs, -1, self.n_heads, dim_per_head).transpose(1, 2)

        def unshape(x):
            return x.transpose(1, 2).contiguous().view(bs, -1, self.n_heads * dim_per_head)

        q = shape(self.q_lin(query))
        scores = torch.matmul(q, q.transpose(2, 3))
        ctx = unshape(torch.matmul(scores.softmax(-1), q))
        return ctx


def run(x):
    assert x.shape == (3, 5, 32)
    m = Heads(32, 4)
    y = m(x)
    return y
'''


def _values(src: str) -> dict:
    r = analyze_source(src, "m.py")
    assert not [d for d in r.diagnostics if d.severity == "error"], r.diagnostics
    out = {}
    for v in r.infer_json()["values"]:
        out[(v["function"], v["name"], v["line"])] = v
    return out


def _by_name(vals: dict, function: str, name: str) -> dict:
    got = [v for (f, n, _), v in vals.items() if f == function and n == name]
    assert len(got) == 1, (function, name, got)
    return got[0]


def _eval(shape, env):
    return [d if isinstance(d, int) else eval(d, {"min": min, "max": max}, dict(env)) for d in shape]


def test_closures_split_and_merge_heads_with_the_enclosing_calls_sizes():
    vals = _values(HEADS)
    q = _by_name(vals, "Heads.forward", "q")
    ctx = _by_name(vals, "Heads.forward", "ctx")
    assert "?" not in q["shape"] and "?" not in ctx["shape"], (q, ctx)
    scope = {}
    exec(compile(HEADS, "m.py", "exec"), scope)
    m = scope["Heads"](dim=24, n_heads=3)
    for bs, t in ((1, 1), (2, 7), (4, 5)):
        x = torch.zeros(bs, t, 24)
        qq = m.q_lin(x).view(bs, -1, 3, 24 // 3).transpose(1, 2)
        env = {"bs": bs, "q_length": t, "dim": 24, "n_heads": 3}
        assert _eval(q["shape"], env) == list(qq.shape)
        assert _eval(ctx["shape"], env) == list(m(x).shape)
    # the call in view (`run`) passes concrete sizes: its context is exact
    ys = _by_name(vals, "run", "y")
    assert ys["shape"] == [3, 5, 32]


def test_a_name_rebound_after_the_def_is_read_as_the_call_finds_it():
    # Python reads a closure's free names when it runs: `n` is 6 at the call, not 2
    src = HEAD + '''def f(x):
    assert x.shape == (4, 12)
    n = 2

    def split(t):
        return t.view(n, -1)

    n = 6
    y = split(x)
    return y
'''
    scope = {}
    exec(compile(src, "m.py", "exec"), scope)
    observed = list(scope["f"](torch.zeros(4, 12)).shape)
    assert observed == [6, 8]
    assert _by_name(_values(src), "f", "y")["shape"] == observed


def test_a_module_name_of_the_same_spelling_is_not_the_enclosing_local():
    src = HEAD + '''k = 3


def f(x):
    assert x.shape == (2, 8)
    k = 4

    def split(t):
        return t.view(k, -1)

    y = split(x)
    return y
'''
    assert _by_name(_values(src), "f", "y")["shape"] == [4, 4]


def test_functions_nested_two_deep_read_both_enclosing_scopes():
    src = HEAD + '''def f(x):
    assert x.shape == (6, 10)
    a = 3

    def outer(t):
        b = 5

        def inner(u):
            return u.reshape(a, b, -1)

        return inner(t)

    y = outer(x)
    return y
'''
    scope = {}
    exec(compile(src, "m.py", "exec"), scope)
    observed = list(scope["f"](torch.zeros(6, 10)).shape)
    assert _by_name(_values(src), "f", "y")["shape"] == observed == [3, 5, 4]


def _twice(second: int) -> str:
    """A closure called with the same argument before and after its free name is rebound."""
    return HEAD + f'''def f(x):
    assert x.shape == (4, 6)
    n = 2

    def split(t):
        return t.reshape(n, -1)

    y = split(x)
    n = {second}
    z = split(x)
    return y, z
'''


def test_a_closure_called_twice_reads_the_names_of_each_call():
    # no memoised answer across calls whose enclosing names differ
    vals = _values(_twice(3))
    assert _by_name(vals, "f", "y")["shape"] == [2, 12]
    assert _by_name(vals, "f", "z")["shape"] == [3, 8]


def test_a_closure_called_again_after_a_rebinding_is_judged_again():
    # `shapehint check` answers repeated calls from a memo; a closure's repeat reads other
    # enclosing values (n = 5: 24 elements do not split in 5 rows), so it must run again
    src = _twice(5)
    errors = [d for d in analyze_source(src, "m.py", records=False).diagnostics if d.severity == "error"]
    assert [d.line for d in errors] == [14], errors
    with pytest.raises(RuntimeError):
        scope = {}
        exec(compile(src, "m.py", "exec"), scope)
        scope["f"](torch.zeros(4, 6))
