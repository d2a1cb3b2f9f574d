"""Broadcasting operands of unknown rank whose segments differ (ops/common.trailing_broadcast), and
the answer of a function whose own analysis lost a rank its calls keep (analysis/contexts.rank_lost).

- `[*x, 8] + torch.zeros(3, 5, 8)`: whatever x's rank, the last axis of both operands meets, so the
  result is `[*?, 8]`; before, no shape at all (a residual `out + x` after a call the analysis could
  not follow lost every shape after it).
- The trailing axes still have to broadcast: `[*x, 8] + torch.zeros(3, 7)` fails for every x.
- An operand naming no last axis leaves a tensor of no axis claimed (it had no value at all, and
  nothing after it had one: an attention's `q * cos` of an unannotated input).
- A function whose own analysis gives `[*?, ...]` (a segment of no parameter) where every call gives a
  known rank shows the calls' join, as when its own analysis gives nothing; its own is a context.
Every claimed shape is checked against PyTorch (small CPU tensors: the programs make their own)."""
import pytest

from shapehint.analysis.api import analyze_source

torch = pytest.importorskip("torch")

HEAD = "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\n\n"


def _analyse(src: str):
    r = analyze_source(src, "m.py")
    return r.infer_json()["values"], [d for d in r.diagnostics if d.severity == "error"]


def _record(values, name: str, function: str):
    got = [v for v in values if v["name"] == name and v["function"] == function]
    return got[0] if got else None


RESIDUAL = HEAD + ("def f(x):\n"
                   "    y = F.linear(x, torch.zeros(8, 4))\n"
                   "    z = y + torch.zeros(3, 5, 8)\n"
                   "    w = torch.zeros(5, 8) + y\n"
                   "    return z, w\n")


def test_the_last_axes_of_operands_of_different_unknown_ranks_broadcast():
    values, errors = _analyse(RESIDUAL)
    assert errors == []
    assert _record(values, "y", "f")["shape"] == ["*x", 8]
    assert _record(values, "z", "f")["shape"] == ["*?", 8]
    assert _record(values, "w", "f")["shape"] == ["*?", 8]
    ns: dict = {}
    exec(compile(RESIDUAL, "m.py", "exec"), ns)
    for lead in ([4], [5, 4], [3, 5, 4], [2, 3, 5, 4], [2, 1, 1, 4]):
        z, w = ns["f"](torch.zeros(lead))
        assert z.shape[-1] == 8 and w.shape[-1] == 8 and z.dim() >= 1 and w.dim() >= 1


def test_last_axes_that_never_broadcast_are_an_error():
    src = HEAD + ("def f(x):\n"
                  "    y = F.linear(x, torch.zeros(8, 4))\n"
                  "    z = y + torch.zeros(3, 7)\n"
                  "    return z\n")
    _, errors = _analyse(src)
    assert [e.code for e in errors] == ["SH106"]
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    for lead in ([4], [3, 4], [2, 3, 4]):
        with pytest.raises(RuntimeError, match="must match"):
            ns["f"](torch.zeros(lead))


def test_an_operand_naming_no_last_axis_leaves_a_tensor_of_no_axis_claimed():
    src = HEAD + ("def f(x, b):\n"
                  "    y = F.linear(x, torch.zeros(8, 4))\n"
                  "    z = y + b\n"
                  "    return z\n")
    values, errors = _analyse(src)
    assert errors == [] and _record(values, "z", "f")["shape"] == ["*?"]
    ns: dict = {}
    exec(compile(src, "m.py", "exec"), ns)
    assert list(ns["f"](torch.zeros(2, 4), torch.zeros(3, 1, 1)).shape) == [3, 2, 8]


CALLED = HEAD + ("class Emb(nn.Module):\n"
                 "    def __init__(self):\n"
                 "        super().__init__()\n"
                 "        self.tok = nn.Embedding(100, 8)\n"
                 "        self.pos = nn.Embedding(16, 8)\n"
                 "\n"
                 "    def forward(self, ids):\n"
                 "        pos = self.pos(torch.arange(ids.shape[-1]).unsqueeze(0))\n"
                 "        e = self.tok(ids) + pos\n"
                 "        return e\n"
                 "\n"
                 "\n"
                 "class Model(nn.Module):\n"
                 "    def __init__(self):\n"
                 "        super().__init__()\n"
                 "        self.emb = Emb()\n"
                 "\n"
                 "    def forward(self, ids):\n"
                 "        ids = ids.view(-1, ids.shape[-1])\n"
                 "        h = self.emb(ids)\n"
                 "        return h\n")


def test_a_rank_lost_by_the_function_itself_yields_to_the_calls_that_keep_it():
    values, errors = _analyse(CALLED)
    assert errors == []
    e = _record(values, "e", "Emb.forward")
    assert e["shape"] == ["ids.shape[0]", "ids.shape[1]", 8]
    own = [c["shape"] for c in e["contexts"] if c["context"] == "in terms of the parameters"]
    assert own == [["*?", "ids.shape[-1]", 8]]
    ns: dict = {}
    exec(compile(CALLED, "m.py", "exec"), ns)
    m = ns["Model"]()
    seen = {}
    m.emb.register_forward_hook(lambda mod, args, out: seen.update(ids=args[0].shape, e=out.shape))
    m(torch.zeros(2, 3, 5, dtype=torch.long))
    assert list(seen["e"]) == [seen["ids"][0], seen["ids"][1], 8]


def test_a_function_with_no_calls_keeps_its_own_answer():
    values, _ = _analyse(CALLED.split("class Model")[0])
    assert _record(values, "e", "Emb.forward")["shape"] == ["*?", "ids.shape[-1]", 8]
