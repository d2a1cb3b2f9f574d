"""The literal construction contexts' step budget and the guarded literals remembered per module
(analysis/literal_contexts.py: LITERAL_STEPS, guarded_in; flag_defaults._within_literal_share).

Each literal context runs the whole model again; all of one analysis's share LITERAL_STEPS. A
context started with too little left is cut off and is no claim: its records go, deep ones too,
and the analysis is then the one that ran no such context. Shapes claimed are checked against
torch (meta tensors)."""
import ast

import pytest

from shapehint.analysis import flag_defaults, literal_contexts
from shapehint.analysis.api import analyze_source

from .test_defaults_context_floats_forwarding import _at, _context
from .test_literal_contexts import MODEL, _files, _torch
from .program_runs import built_on_meta

# a second configuration-taking model of the same file, after the first: its context runs second
HEAD = MODEL + '''

class Headed(Base):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.attn = Attention(config)
        self.head = nn.Linear(config.hidden, 3)

    def forward(self, x):
        z = self.head(self.attn(x))
        return z
'''
CTX = "Model.__init__:35 assuming config.impl == 'plain'"
HEAD_CTX = "Headed.__init__:46 assuming config.impl == 'plain'"


def _values(path):
    return analyze_source(path.read_text(), str(path)).infer_json()["values"]


def _labels(values) -> set:
    return {c["context"] for v in values for c in v.get("contexts") or []}


def _steps(monkeypatch, path) -> list:
    """The steps each literal context of `path`'s analysis took, in order."""
    taken, run = [], flag_defaults._run_at_defaults

    def counted(it, init, forwarded, param_value, assumed):
        start = it.steps
        try:
            return run(it, init, forwarded, param_value, assumed)
        finally:
            if assumed is not None:
                taken.append(it.steps - start)
    monkeypatch.setattr(flag_defaults, "_run_at_defaults", counted)
    _values(path)
    monkeypatch.setattr(flag_defaults, "_run_at_defaults", run)
    return taken


def test_the_contexts_past_the_budget_do_not_run(tmp_path, monkeypatch):
    path = _files(tmp_path, model=HEAD)
    assert HEAD_CTX in _labels(_values(path)) and CTX in _labels(_values(path))
    first, second = _steps(monkeypatch, path)
    assert first > 0 and second > 0
    monkeypatch.setattr(flag_defaults, "LITERAL_STEPS", first)  # (spent by the first: none starts after)
    values = _values(path)
    assert CTX in _labels(values) and not any(c.startswith(HEAD_CTX[:-len(" assuming config.impl == 'plain'")])
                                              and "assuming" in c for c in _labels(values))
    # the context run keeps its shapes (torch: the model built with the literal)
    x, net, y = _torch(tmp_path, "Model(Settings(hidden=8, heads=2, impl='plain'))")
    got = _context(_at(values, "Model.forward", 41, "y"), CTX)
    assert [eval(d, {"x": x, "config": net.config}) if isinstance(d, str) else d for d in got] == list(y.shape)


def test_a_context_cut_off_is_no_claim(tmp_path, monkeypatch):
    path = _files(tmp_path, model=HEAD)
    first, _ = _steps(monkeypatch, path)
    monkeypatch.setattr(flag_defaults, "LITERAL_STEPS", 0)
    none = analyze_source(path.read_text(), str(path)).infer_json()
    monkeypatch.setattr(flag_defaults, "LITERAL_STEPS", first // 2)  # (the first cut off half way)
    cut = analyze_source(path.read_text(), str(path)).infer_json()
    assert not any("assuming" in c for c in _labels(cut["values"]))
    assert cut["values"] == none["values"] and cut["diagnostics"] == none["diagnostics"]
    assert not any(d["code"] == "SH004" for d in cut["diagnostics"])  # (the function's own analysis stands)


def test_the_budget_is_the_analysis_s_own(tmp_path, monkeypatch):
    # (a file analysed after one that spent it has its own: the account is the analysis's)
    path = _files(tmp_path, model=HEAD)
    first, second = _steps(monkeypatch, path)
    monkeypatch.setattr(flag_defaults, "LITERAL_STEPS", first + second + 1)
    for _ in range(2):
        labels = _labels(_values(path))
        assert CTX in labels and HEAD_CTX in labels


def test_the_headed_models_context_against_torch(tmp_path):
    path = _files(tmp_path, model=HEAD)
    values = _values(path)
    torch = pytest.importorskip("torch")
    net = built_on_meta(tmp_path, HEAD, "Headed(Settings(hidden=8, heads=2, impl='plain'))")
    x = torch.empty(2, 5, 8, device="meta")
    got = _context(_at(values, "Headed.forward", 53, "z"), HEAD_CTX)
    assert got is not None
    assert [eval(d, {"x": x, "config": net.config}) if isinstance(d, str) else d for d in got] == list(net(x).shape)


def test_the_guarded_literals_are_remembered_for_the_same_class_nodes(monkeypatch):
    tree = ast.parse(MODEL)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    asked = []
    walk = literal_contexts.guarded_literals
    monkeypatch.setattr(literal_contexts, "guarded_literals", lambda t: asked.append(t) or walk(t))
    assert literal_contexts.guarded_in(classes) == [("impl", "plain")]
    assert literal_contexts.guarded_in(list(classes)) == [("impl", "plain")]
    assert len(asked) == 1
    # a list taken before the guarding class was defined is another question, answered anew
    assert literal_contexts.guarded_in([c for c in classes if c.name != "Attention"]) == []
    # and the same source parsed again: other nodes, asked again
    again = [n for n in ast.parse(MODEL).body if isinstance(n, ast.ClassDef)]
    assert literal_contexts.guarded_in(again) == [("impl", "plain")]
    assert len(asked) == 3


# a third model building the first (a head over the model: its context runs the model again)
WRAPPED = HEAD + '''

class Wrapped(Base):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.model = Model(config)

    def forward(self, x):
        return self.model(x)
'''


def test_one_context_takes_at_most_its_cap(tmp_path, monkeypatch):
    # (one big model cut off at the cap leaves the file's later models their contexts)
    path = _files(tmp_path, model=HEAD)
    first, second = _steps(monkeypatch, path)
    monkeypatch.setattr(flag_defaults, "LITERAL_STEPS", 10 * (first + second))
    monkeypatch.setattr(flag_defaults, "CONTEXT_STEPS", max(first // 2, second + 1))
    assert second < first // 2 or second + 1 < first  # (the cap cuts the first only)
    labels = _labels(_values(path))
    assert HEAD_CTX in labels and CTX not in labels
    monkeypatch.setattr(flag_defaults, "CONTEXT_STEPS", first + second)
    assert CTX in _labels(_values(path))


def test_a_class_naming_a_cut_model_runs_no_context(tmp_path, monkeypatch):
    path = _files(tmp_path, model=WRAPPED)
    taken = _steps(monkeypatch, path)
    assert len(taken) == 3  # (Model, Headed, Wrapped)
    first, second = taken[0], taken[1]
    monkeypatch.setattr(flag_defaults, "LITERAL_STEPS", 10 * sum(taken))
    monkeypatch.setattr(flag_defaults, "CONTEXT_STEPS", max(first // 2, second + 1))
    assert len(_steps(monkeypatch, path)) == 2  # (Wrapped's would run Model again: not started)
    assert "Wrapped" not in str(_labels(_values(path)))


def test_builds_any_reads_the_class_s_names():
    cls = ast.parse(WRAPPED).body[-1]
    assert literal_contexts.builds_any(cls, {"Model"}) and not literal_contexts.builds_any(cls, {"Headed"})
    assert not literal_contexts.builds_any(cls, set())
