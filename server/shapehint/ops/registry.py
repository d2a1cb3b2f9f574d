"""The operator registry: one declaration per PyTorch function, Tensor method or `nn` layer.

A rule is a plain Python function `rule(cx, *args, **kwargs) -> Value` whose signature is the
PyTorch signature (so keyword arguments and defaults bind exactly as in PyTorch). It states
preconditions with `cx.require(pred, message)` and builds its result from the domain
(`shapes`), never from Z3. Aliases (`F.relu`, `torch.relu`, `Tensor.relu`) share one rule and
count once. A layer (`nn.Linear`) is a `ModuleRule`: a constructor rule that validates and
returns the configuration, and a forward rule that receives the `ModuleV`.

Names: functions by their public path (`torch.cat`, `torch.nn.functional.conv2d`), methods as
`Tensor.view`, layers as `torch.nn.Linear`. Lookups also accept `torch.Tensor.view`.
Tests: tests/ops/ (differential against PyTorch on the meta device).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable, Optional

VERSION = "2"  # bump when any rule changes meaning: part of every summary cache key


@dataclass
class OpRule:
    name: str
    fn: Callable
    aliases: tuple = ()
    signature: inspect.Signature = field(init=False)

    def __post_init__(self):
        self.signature = inspect.signature(self.fn)


@dataclass
class ModuleRule:
    name: str
    ctor: Callable
    aliases: tuple = ()
    forward_fn: Optional[Callable] = None
    params_fn: Optional[Callable] = None  # cfg -> {"weight": shape dims, ...}
    twin: Optional[Callable] = None  # the functional rule this layer computes: counted once with it
    signature: inspect.Signature = field(init=False)
    _var_positional: Optional[frozenset] = field(init=False, default=None)

    def __post_init__(self):
        self.signature = inspect.signature(self.ctor)

    def forward(self, fn: Optional[Callable] = None, *, twin: Optional[Callable] = None) -> Callable:
        """Declare the forward rule: `@rule.forward`, or `@rule.forward(twin=F)` when the layer
        computes the functional rule `F` (`nn.Linear` and `F.linear`) — the one place a layer is
        linked to its functional form."""
        if fn is None:
            return lambda f: self.forward(f, twin=twin)
        if twin is not None:
            if not isinstance(getattr(twin, "rule", None), OpRule):
                raise TypeError(f"{self.name}: the functional twin {getattr(twin, '__name__', twin)!r} is not a "
                                "registered operator rule (declare it with @op first)")
            self.twin = twin
        self.forward_fn = fn
        return fn

    def params(self, fn: Callable) -> Callable:
        self.params_fn = fn
        return fn

    def config(self, arguments: dict) -> dict:
        """What a layer keeps of its constructor's bound arguments (the context first, then
        {parameter: value}): every named parameter, and a `**kwargs` catch-all as the dict it
        bound (einops' `Rearrange(pattern, h=2)` keeps `axes_lengths={"h": 2}`); `*args` is not
        configuration (`nn.Identity(*args)` ignores them). One place for the analysis and the
        concrete runs of the differential tests."""
        if self._var_positional is None:
            self._var_positional = frozenset(n for n, p in self.signature.parameters.items()
                                             if p.kind == inspect.Parameter.VAR_POSITIONAL)
        return {k: v for k, v in list(arguments.items())[1:] if k not in self._var_positional}


RULES: dict[str, OpRule] = {}
MODULES: dict[str, ModuleRule] = {}
_ALIAS: dict[str, str] = {}
_FOUND: dict = {}  # name as called -> its rule or None: every operation the interpreter runs asks
_MAX_FOUND = 20_000  # names of unknown callees, too, so the table is bounded


def _norm(name: str) -> str:
    if name.startswith("torch.Tensor."):
        return "Tensor." + name[len("torch.Tensor."):]
    return name


def op(name: str, *aliases: str) -> Callable[[Callable], Callable]:
    def deco(fn: Callable) -> Callable:
        rule = OpRule(name, fn, aliases)
        RULES[name] = rule
        for a in (name, *aliases):
            _ALIAS[_norm(a)] = name
        _FOUND.clear()
        fn.rule = rule  # type: ignore[attr-defined]
        return fn
    return deco


def module(name: str, *aliases: str) -> Callable[[Callable], ModuleRule]:
    def deco(ctor: Callable) -> ModuleRule:
        rule = ModuleRule(name, ctor, aliases)
        MODULES[name] = rule
        for a in (name, *aliases):
            _ALIAS[_norm(a)] = name
        _FOUND.clear()
        return rule
    return deco


def lookup(name: str) -> OpRule | ModuleRule | None:
    got = _FOUND.get(name, _FOUND)
    if got is not _FOUND:
        return got
    _ensure_loaded()
    canon = _ALIAS.get(_norm(name))
    rule = None if canon is None else RULES.get(canon) or MODULES.get(canon)
    if len(_FOUND) >= _MAX_FOUND:
        _FOUND.clear()
    _FOUND[name] = rule
    return rule


def has_method(method: str) -> bool:
    _ensure_loaded()
    return ("Tensor." + method) in _ALIAS


def library_roots() -> frozenset:
    """The top-level packages whose names the rules know (`torch`, ...)."""
    _ensure_loaded()
    return frozenset(a.split(".")[0] for a in _ALIAS if not a.startswith("Tensor."))


def distinct_rules() -> list[str]:
    """Canonical rule names (aliases and a layer's functional twin counted once)."""
    _ensure_loaded()
    names = set(RULES)
    names.update(m.name for m in MODULES.values() if m.twin is None)
    return sorted(names)


_loaded = False
_lock = __import__("threading").Lock()
# What fills the table on first use, set by the ops package (ops/__init__.py): the rule families
# import this module to register, so this module does not import them (no import cycle).
_fill: Callable[[], None] = lambda: None


def set_filler(fill: Callable[[], None]) -> None:
    global _fill
    _fill = fill


def _ensure_loaded() -> None:
    # set the flag only once every family is registered: a second thread must not see a
    # half-filled table (that made concurrent analyses lose rules)
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            _fill()  # registers every rule
            _loaded = True
