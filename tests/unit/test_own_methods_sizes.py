"""Methods run again in a construction context (analysis/own_methods.py) given ints the caller
knows only as sizes, and not run again where `forward` wrote the state they read
(analysis/held_state.py).

- `merge(w, size, H, W)` called with the padded height and width (`Hp`, `Wp`, sizes of the
  caller's) runs again with `H`, `W` symbols of its own parameters; `crop(y, (H, W))` with a tuple
  of them, `hw[0]`, `hw[1]`. What they record holds for every call: each shape is checked against
  every real call of the method (meta tensors), two of them with other sizes.
- A method whose real call, mid-`forward`, read a counter `forward` then bumped again is not run
  again after `forward` (the run would take the other arm), nor one reading an attribute a method
  of the model wrote during `forward`; a method reading only what the constructor wrote still is.
- A size the model holds under the parameter's name (a constructor's symbol in the defaults
  context) is not taken for the parameter's.
"""
import importlib
import sys
import textwrap

import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import context_shape, value_at

SOURCE = """\
    import torch
    from torch import nn


    def merge(w, size, H, W):
        C = w.shape[-1]
        t = w.view(-1, H // size, W // size, size, size, C)  # MERGE_VIEW
        y = t.permute(0, 1, 3, 2, 4, 5).reshape(-1, H, W, C)  # MERGE
        return y


    class Net(nn.Module):
        def __init__(self, dim, size):
            super().__init__()
            self.size = size
            self.proj = nn.Linear(dim, dim)

        def crop(self, x, hw):
            z = x[:, :hw[0], :hw[1]] * 2  # CROP
            return z

        def forward(self, x):
            B, H, W, C = x.shape
            ph = (self.size - H % self.size) % self.size
            pw = (self.size - W % self.size) % self.size
            x2 = nn.functional.pad(x, (0, 0, 0, pw, 0, ph))
            _, Hp, Wp, _ = x2.shape
            w = x2.reshape(B, Hp // self.size, self.size, Wp // self.size, self.size, C)
            w = self.proj(w.permute(0, 1, 3, 2, 4, 5).reshape(-1, self.size, self.size, C))
            y = merge(w, self.size, Hp, Wp)
            y2 = merge(torch.cat([w, w]), self.size, Hp * 2, Wp)
            return self.crop(y, (H, W)) + self.crop(y2[:, :Hp], (H, W))


    class Tagged(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
            self.calls = 0
            self.scale = 2

        def tag(self, h):
            self.calls = self.calls + 1
            k = 1
            if self.calls > 1:
                k = 2
            out = h[:, :k]  # TAG
            return out

        def peek(self, h):
            return self.first(h)

        def first(self, h):
            k = 1 if self.seen is None else 3
            out = h[:, :k] * self.scale  # PEEK
            return out

        def widen(self, h):
            out = h.repeat(1, self.scale, 1)  # WIDEN
            return out

        def forward(self, x):
            x = x.reshape(x.shape[0], -1, 8)
            self.seen = None
            a = self.peek(self.proj(x))
            self.seen = a
            return self.tag(self.proj(x)) + a + self.widen(self.proj(x))[:, :1]


    def net():
        return Net(8, 4)


    def tagged():
        return Tagged(8)
    """


def _line(marker: str) -> int:
    return next(i for i, t in enumerate(textwrap.dedent(SOURCE).splitlines(), 1) if t.endswith(f"# {marker}"))


@pytest.fixture(scope="module")
def values(tmp_path_factory):
    path = tmp_path_factory.mktemp("own_sizes") / "m.py"
    path.write_text(textwrap.dedent(SOURCE))
    return analyze_source(path.read_text(), str(path)).infer_json()["values"]


def _context(values, fn, marker, name, factory):
    return context_shape(value_at(values, fn, _line(marker), name), prefix=f"{factory}:")


@pytest.fixture(scope="module")
def calls(tmp_path_factory):
    """Each real call of the marked functions (meta tensors): its arguments by name and the
    locals its marked lines left."""
    torch = pytest.importorskip("torch")
    d = tmp_path_factory.mktemp("own_sizes_run")
    (d / "own_sizes_mod.py").write_text(textwrap.dedent(SOURCE))
    sys.path.insert(0, str(d))
    try:
        mod = importlib.import_module("own_sizes_mod")
    finally:
        sys.path.remove(str(d))
    seen: dict = {}

    def tracer(frame, event, arg):
        if frame.f_code.co_filename.endswith("own_sizes_mod.py") and event == "return":
            seen.setdefault(frame.f_code.co_name, []).append(dict(frame.f_locals))
        return tracer

    sys.settrace(lambda *a: tracer)
    try:
        mod.net().to("meta")(torch.empty(2, 10, 7, 8, device="meta"))
        mod.tagged().to("meta")(torch.empty(2, 5, 8, device="meta"))
    finally:
        sys.settrace(None)
    return seen


def _holds(shape, local: dict, name: str):
    assert shape is not None and "?" not in shape and not any(str(d).startswith("*") for d in shape), shape
    env = dict(local, min=min)
    assert [d if isinstance(d, int) else eval(d, env) for d in shape] == list(local[name].shape), (shape, local)


def test_ints_the_caller_knows_as_sizes_run_again_as_the_parameters_symbols(values, calls):
    view = _context(values, "merge", "MERGE_VIEW", "t", "net")
    merged = _context(values, "merge", "MERGE", "y", "net")
    assert view is not None and view[1:5] == ["H//4", "W//4", 4, 4]  # (`size`: the model's 4)
    assert merged is not None and merged[1:3] == ["H", "W"]
    assert len(calls["merge"]) == 2  # (the second with other sizes: one run holds for both)
    for local in calls["merge"]:
        _holds(view, local, "t")
        _holds(merged, local, "y")


def test_a_tuple_of_sizes_runs_again_as_its_items_symbols(values, calls):
    z = _context(values, "Net.crop", "CROP", "z", "net")
    assert z is not None and "hw[0]" in z[1] and "hw[1]" in z[2]
    assert len(calls["crop"]) == 2
    for local in calls["crop"]:
        _holds(z, local, "z")


def test_a_method_reading_state_forward_wrote_is_not_run_again(values, calls):
    # the real call saw `calls == 1` (k = 1); after `forward` the counter says 1, the run took k = 2
    assert list(calls["tag"][0]["out"].shape) == [2, 1, 8]
    assert _context(values, "Tagged.tag", "TAG", "out", "tagged") is None
    # `first` (through `peek`) read `self.seen` while it was None; `forward` then set it
    assert list(calls["first"][0]["out"].shape) == [2, 1, 8]
    assert _context(values, "Tagged.first", "PEEK", "out", "tagged") is None


def test_a_method_reading_only_what_the_constructor_wrote_still_runs_again(values, calls):
    out = _context(values, "Tagged.widen", "WIDEN", "out", "tagged")
    assert out == ["h.shape[0]", "2*h.shape[1]", "h.shape[2]"]
    _holds(out, calls["widen"][0], "out")


def test_a_size_the_model_holds_under_the_parameters_name_is_not_taken_for_it():
    from types import SimpleNamespace

    from shapehint.analysis.held_state import held_names
    from shapehint.analysis.objects import InstanceObj
    from shapehint.analysis.own_methods import _own_value
    from shapehint.shapes.expr import Expr
    from shapehint.shapes.values import IntV, TupleV

    # (a constructor's symbol `size`, as the defaults context holds it, and a size of the caller's)
    model = InstanceObj(None, {"size": IntV(Expr.sym("size")), "pair": TupleV((IntV(Expr.sym("hw")),))})
    held = held_names(model)
    assert {"size", "hw"} <= held
    it = SimpleNamespace(env=SimpleNamespace(dims={}))
    v = IntV(Expr.sym("x.shape[1]"))
    sizes = (frozenset({id(v)}), held)
    assert _own_value(it, None, "size", v, sizes) is None  # the run would take `size` for the model's
    assert str(_own_value(it, None, "k", v, sizes).expr) == "k"
    assert _own_value(it, None, "k", v, (frozenset(), held)) is None  # not proven a size: not run again
    t = _own_value(it, None, "pq", TupleV((v, IntV(Expr.const(3)))), sizes)
    assert [str(i.expr) for i in t.items] == ["pq[0]", "3"]
    assert _own_value(it, None, "hw", TupleV((v, IntV(Expr.const(3)))), sizes) is None
