"""Messages speak the user's language: no rule's failure message shows an internal object
(`Expr(2)`, `TensorV(...)`, `<shapehint... object at 0x...>`). Every registered rule — function,
method and layer — is driven with many argument combinations, chosen to break its preconditions
(ranks, sizes, dtypes, negative and huge ints, strings, empty lists), and every message of an
`OpFailed` is scanned."""
import inspect
import itertools
import random
import re

import pytest

import shapehint.ops.families  # noqa: F401  (registers the rules)
from shapehint.ops.concrete import ConcreteContext, OpFailed, build_module, call_module, tensor, wrap
from shapehint.ops.registry import MODULES, RULES

LEAK = re.compile(r"\b(Expr|TensorV|Shape|IntV|FloatV|BoolV|ListV|TupleV|StrV|NoneV|UnknownV|ModuleV|Pred|DtypeV|"
                  r"SliceV|EllipsisV)\(|<[\w.]+ object at 0x|\bdim_list\b|<function ")

TENSORS = [tensor(*dims, dtype=dt) for dims in [(), (3,), (2, 3), (2, 3, 5), (2, 3, 5, 7), (4, 1, 6, 6, 2)]
           for dt in ("float32", "int64")] + [tensor(3, 3, dtype="bool")]
SCALARS = [-3, -1, 0, 1, 2, 5, 1000, 0.5, 2.0, True, "bad", "mean", "nearest", None, (2, 3), (1, -1), [0, 5],
           (2, 3, 4, 5, 6), [], ()]


def _candidates(rng: random.Random):
    pool = TENSORS + SCALARS + [[TENSORS[2], TENSORS[5]], (TENSORS[3], TENSORS[7])]
    while True:
        yield rng.choice(pool)


def _arity(sig: inspect.Signature, skip: int) -> tuple:
    ps = list(sig.parameters.values())[skip:]
    required = sum(1 for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty)
    positional = sum(1 for p in ps if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    var = any(p.kind == p.VAR_POSITIONAL for p in ps)
    return required, max(positional, required) + (2 if var else 0)


def _messages(call, sig, skip, rng, tries):
    lo, hi = _arity(sig, skip)
    gen = _candidates(rng)
    out = []
    for _ in range(tries):
        n = rng.randint(lo, max(lo, min(hi, lo + 3)))
        args = [next(gen) for _ in range(n)]
        try:
            call(args)
        except OpFailed as e:
            out.append(e.message)
        except Exception:  # NotApplicable, bad Python argument types: not a message to the user
            pass
    return out


def _leaks(messages):
    return [m for m in messages if LEAK.search(m)]


@pytest.mark.parametrize("name", sorted(RULES))
def test_function_messages(name):
    rule = RULES[name]
    rng = random.Random(name)

    def call(args):
        return rule.fn(ConcreteContext(name), *[wrap(a) for a in args])
    msgs = _messages(call, rule.signature, 1, rng, 300)
    assert not _leaks(msgs), _leaks(msgs)[:3]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_layer_messages(name):
    rule = MODULES[name]
    rng = random.Random(name)
    msgs = []

    def build(args):
        return build_module(name, *args)
    msgs += _messages(build, rule.signature, 1, rng, 150)
    if rule.forward_fn is not None:
        layers = []
        for args in itertools.islice(itertools.product([1, 2, 3, 4, 6], repeat=2), 12):
            try:
                layers.append(build_module(name, *args))
            except Exception:
                pass
        fsig = inspect.signature(rule.forward_fn)
        for m in layers:
            msgs += _messages(lambda a: call_module(ConcreteContext(name), m, list(a), {}), fsig, 2, rng, 40)
    assert not _leaks(msgs), _leaks(msgs)[:3]


def test_the_scan_sees_a_leak():
    assert _leaks(["torch.nn.functional.nll_loss expects targets of shape [Expr(2), Expr(4)]"])
    assert _leaks(["got <shapehint.shapes.values.TensorV object at 0x7f00>"])
    assert not _leaks(["torch.matmul: [B, 3] has 3 columns but [4, 5] has 4 in its first dimension"])
