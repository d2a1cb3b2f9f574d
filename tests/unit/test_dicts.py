"""Dicts as the analysis follows them: literal keys, `d[k] = v`, spreads, `get`/`pop`/`update`,
and *open* dicts — the generic analysis's `**kwargs`, comprehensions, `dict(zip(...))` — that may
hold keys beyond those known: reading a missing key of one is unknown, never its default, and a
parameter such a `**kwargs` may set is not known to take its default (x-transformers' `Encoder`:
`super().__init__(causal=False, **kwargs)` into `assert exists(depth)`)."""
import pytest

from shapehint.analysis.api import analyze_source


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "d.py").diagnostics if d.severity == "error"]


def _value(body: str, name: str = "y"):
    text = "import torch\n\n\ndef f(x: torch.Tensor, **kwargs):\n" + "".join(f"    {l}\n" for l in body.strip().splitlines())
    r = analyze_source(text, "d.py")
    assert not r.stats.get("internal_errors"), r.stats
    got = [v for v in r.values if v.name == name and v.function == "f"]
    return got[-1].text if got and got[-1].kind == "int" else (str(got[-1].shape) if got else None)


@pytest.mark.parametrize("body,want", [
    ("d = {}\nd['n'] = 4\ny = d.get('n', 1)", "4"),
    ("d = {'n': 2}\ny = d.get('m', 3)", "3"),
    ("d = {'n': 2}\ne = {**d, 'm': 5}\ny = e['n'] + e['m']", "7"),
    ("d = dict(n=2)\nd.update({'n': 6})\ny = d['n']", "6"),
    ("d = {'n': 2, 'm': 3}\ny = len(d)", "2"),
    ("d = {'n': 2}\ny = d.pop('n') + len(d)", "2"),
])
def test_a_closed_dict_is_known_key_by_key(body, want):
    assert _value(body) == want


@pytest.mark.parametrize("body", [
    "y = kwargs.get('n', 1)",
    "d = {k: 1 for k in 'ab'}\ny = d.get('n', 1)",
    "d = dict(zip(['n'], [4]))\ny = d.get('n', 1)",
    "d = {**kwargs, 'm': 2}\ny = d.get('n', 1)",
    "d = {}\nd[str(x)] = 2\ny = d.get('n', 1)",
    "y = len(kwargs)",
])
def test_an_open_dict_does_not_give_a_default_for_a_key_it_may_hold(body):
    assert _value(body) is None or _value(body) not in ("1", "0")


ENCODER = '''import torch.nn as nn


class AttentionLayers(nn.Module):
    def __init__(self, dim, depth=None, causal=False):
        super().__init__()
        assert depth is not None, "`depth` must be passed in"
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])


class Encoder(AttentionLayers):
    def __init__(self, **kwargs):
        super().__init__(causal=False, **kwargs)
'''


def test_a_parameter_the_callers_kwargs_may_set_is_not_taken_at_its_default():
    assert _errors(ENCODER) == []


def test_a_call_that_leaves_it_out_explicitly_still_fails():
    text = ENCODER + "\n\ndef build():\n    return AttentionLayers(dim=8, **{'causal': True})\n"
    assert _errors(text) == [(7, "SH108")]
