"""The any-caller memo after writes to what module code made (analysis/callee_world.py, issue
23): a helper of another module is still answered across roots when the write was to something
it cannot reach from its globals (a registry of a third module), and is run again when the
write was to something it reads; a hit is charged the steps of the call it stands for."""
import textwrap

import pytest

from shapehint.analysis.anycaller import _charge
from shapehint.analysis.engine import run
from shapehint.analysis.frames import Budget

from .test_any_caller_memo import _diags, _runs

# `ENV` holds the flags the helpers read; `REGISTRY` (another module) is what registering writes
ENV = """\
    FLAGS = {"mode": "plain"}


    def mode():
        return FLAGS["mode"]


    def switch():
        FLAGS["mode"] = "fused"
    """

REGISTRY = """\
    TABLE = {}


    def register(name):
        TABLE[name] = len(TABLE)
    """

# every function registers (a write to the registry's dict, made by module code) and then asks
# `mode()`: g and h ask it with nothing it reads written since f asked it
MAIN = """\
    import torch
    from env import mode
    from registry import register


    def f(x: torch.Tensor):
        register("f")
        if mode() == "plain":
            return torch.zeros(2, 3) @ torch.zeros(4, 5)
        return x


    def g(y: torch.Tensor):
        register("g")
        if mode() != "plain":
            return torch.zeros(2, 3) @ torch.zeros(4, 5)
        return y


    def h(z: torch.Tensor):
        register("h")
        if mode() == "plain":
            return torch.zeros(6, 7) @ torch.zeros(8, 9)
        return z
    """

# `switch()` writes what `mode()` reads: the later `mode()` must see "fused"
SWITCHED = """\
    import torch
    from env import mode, switch
    from registry import register


    def f(x: torch.Tensor):
        register("f")
        if mode() == "plain":
            return x
        return x


    def g(y: torch.Tensor):
        register("g")
        switch()
        if mode() == "fused":
            return torch.zeros(2, 3) @ torch.zeros(4, 5)
        return y
    """


def _program(tmp_path, main: str) -> str:
    (tmp_path / "env.py").write_text(textwrap.dedent(ENV))
    (tmp_path / "registry.py").write_text(textwrap.dedent(REGISTRY))
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(main))
    return str(path)


def test_a_helper_is_answered_after_a_write_it_cannot_reach(tmp_path, monkeypatch):
    path = _program(tmp_path, MAIN)
    ran = _runs(monkeypatch)
    session = run(open(path).read(), path, records=False)
    memo = session.interp.memo.any_caller
    assert session.interp.global_mutations > 0  # the registry was written: the old test refused here
    assert memo.world_hits == 2 and memo.hits >= 2  # mode() in g and in h
    assert ran["mode"] == 1
    ran.clear()
    without = run(open(path).read(), path, records=False, memo=False)
    assert ran["mode"] == 3
    # the answers are those of running every call: f's and h's products fail, g's is not reached
    assert _diags(session.result) == _diags(without.result) == [(9, "SH101"), (23, "SH101")]


def test_a_helper_runs_again_after_a_write_to_what_it_reads(tmp_path, monkeypatch):
    path = _program(tmp_path, SWITCHED)
    ran = _runs(monkeypatch)
    session = run(open(path).read(), path, records=False)
    assert session.interp.memo.any_caller.world_hits == 0
    assert ran["mode"] == 2  # f's answer ("plain") is not g's: g ran it after `switch()`
    without = run(open(path).read(), path, records=False, memo=False)
    assert _diags(session.result) == _diags(without.result) == [(17, "SH101")]


def test_the_world_of_a_helper_is_walked_once_while_nothing_in_it_is_written(tmp_path):
    path = _program(tmp_path, MAIN)
    session = run(open(path).read(), path, records=False)
    world = session.interp.memo.any_caller.world
    assert world.computed == 1  # g's lookup walked it; h's found it still right
    env = next(ns for p, ns in session.interp.imports.loaded.items() if p.endswith("env.py"))
    registry = next(ns for p, ns in session.interp.imports.loaded.items() if p.endswith("registry.py"))
    reach = world.reach(session.interp, env.attrs["mode"])
    assert id(env.attrs["FLAGS"]) in reach[0] and id(registry.attrs["TABLE"]) not in reach[0]
    assert reach[1] is False  # no tensor of unknown rank among what mode() reaches


def test_a_hit_is_charged_the_steps_of_the_call_it_stands_for(tmp_path):
    # one call of mode() per root (no repeat within a root, which the per-root memo answers
    # free): with every call charged as if it ran, the steps are those of running them all
    path = _program(tmp_path, MAIN)
    session = run(open(path).read(), path, records=False)
    without = run(open(path).read(), path, records=False, memo=False)
    assert session.interp.memo.any_caller.charged > 0
    assert session.result.stats["steps"] == without.result.stats["steps"]


class _Interp:
    def __init__(self, steps: int, limit: int):
        self.steps, self.step_limit = steps, limit


def test_a_charge_past_the_share_stops_where_running_would():
    it = _Interp(100, 150)
    _charge(it, 50)
    assert it.steps == 150  # at the limit, not past it: running would not have stopped
    with pytest.raises(Budget):
        _charge(it, 30)
    assert it.steps == 151  # one step past the share, as Interp.eval stops


def _situation(depth=2, after_return=False, sites=True, foreign="", caught=False):
    from shapehint.analysis.anycaller import _situation as situation
    from shapehint.analysis.frames import Frame
    from shapehint.solver.facts import FactStore
    fr = Frame({}, "f", FactStore(), {}, root="f", depth=depth, after_return=after_return,
               call_sites=[object()] if sites else [], foreign=foreign, caught=caught)
    return situation(fr, {})


def test_a_remembered_call_stands_only_for_calls_it_cannot_tell_apart():
    from shapehint.analysis.anycaller import _within
    here = _situation()
    assert _within(here, _situation())
    assert _within(here, _situation(depth=1)) and not _within(here, _situation(depth=3))  # a deeper one may be cut
    assert _within(here, _situation(after_return=True))  # learns no rank where it learned none
    assert not _within(_situation(after_return=True), here)
    assert _within(_situation(foreign="lib.py"), here)  # both with call sites: the caller's file is not read
    assert not _within(_situation(foreign="lib.py", sites=False), here)
    assert not _within(_situation(foreign="lib.py"), _situation(sites=False))
    assert not _within(here, _situation(caught=True))
