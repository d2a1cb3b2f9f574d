"""The analysis calls rules without `inspect`'s binder when a cheap check says the arguments
bind (analysis/ruleargs.py `binds`): that check must never accept what `Signature.bind` rejects."""
from __future__ import annotations

import inspect
import itertools

from shapehint.analysis.ruleargs import binds
from shapehint.ops import registry


def _signatures():
    registry.lookup("torch.cat")  # loads every family
    sigs = [r.signature for r in registry.RULES.values()] + [m.signature for m in registry.MODULES.values()]
    sigs += [inspect.signature(m.forward_fn) for m in registry.MODULES.values() if m.forward_fn is not None]
    return sigs


def _accepts(sig, npos: int, kwargs: dict) -> bool:
    try:
        sig.bind(*range(npos), **kwargs)
        return True
    except TypeError:
        return False


def test_the_fast_check_never_accepts_what_bind_rejects():
    checked = accepted = 0
    for sig in _signatures():
        names = [p for p in sig.parameters][1:] + ["bogus"]
        for npos in range(1, 6):
            for k in range(0, 3):
                for kws in itertools.combinations(names, k):
                    kwargs = dict.fromkeys(kws, 0)
                    fast = binds(sig, npos, kwargs)
                    checked += 1
                    accepted += fast
                    if fast:
                        assert _accepts(sig, npos, kwargs), (sig, npos, kws)
    assert checked > 1000 and accepted > checked // 10  # the fast path is really taken


def test_it_accepts_the_common_calls():
    def rule(cx, x, dim=0, *, keepdim=False):
        pass
    sig = inspect.signature(rule)
    assert binds(sig, 2, {}) and binds(sig, 3, {"keepdim": True}) and binds(sig, 2, {"dim": 1})
    assert not binds(sig, 4, {}) and not binds(sig, 3, {"dim": 1}) and not binds(sig, 1, {})


def test_layer_arguments_match_inspect():
    from shapehint.analysis.ruleargs import bind_arguments
    for sig in _signatures():
        names = [p for p in sig.parameters][1:] + ["bogus"]
        for npos in range(1, 5):
            for k in range(0, 3):
                for kws in itertools.combinations(names, k):
                    args, kwargs = list(range(npos)), {n: f"kw-{n}" for n in kws}
                    try:
                        bound = sig.bind(*args, **kwargs)
                        bound.apply_defaults()
                        want = dict(bound.arguments)
                    except TypeError:
                        want = None
                    got = bind_arguments(sig, args, kwargs)
                    assert got == want and (got is None or list(got) == list(want)), (sig, npos, kws)


def test_a_remembered_answer_is_per_keyword_set():
    # (binds remembers its answer per signature, count and keywords: a key without the keywords
    # would give the first call's answer to the second)
    def rule(cx, x, dim=0, *, keepdim=False):
        pass
    sig = inspect.signature(rule)
    assert binds(sig, 2, {"keepdim": True})
    assert not binds(sig, 2, {"bogus": True})
    assert binds(sig, 2, {"keepdim": True}) and not binds(sig, 3, {"dim": 1})


def test_a_rule_registered_after_a_miss_is_found():
    # (lookup remembers misses too: an unknown callee is asked for at every call)
    name = "torch.shapehint_test_only_op"
    assert registry.lookup(name) is None
    try:
        @registry.op(name)
        def _rule(cx, x):
            return x
        assert registry.lookup(name) is registry.RULES[name]
    finally:
        registry.RULES.pop(name, None)
        registry._ALIAS.pop(name, None)
        registry._FOUND.clear()
