"""A model's methods called in its construction context with tensors not its inputs run again
there on inputs in their own names (analysis/own_methods.py, built.recorded_in_built).

- A class whose `forward` is its base's, imported from another module, and which overrides the
  methods that `forward` calls (`_embed`, `forward_head`), gets the defaults context
  (flag_defaults.py) and those methods' lines are listed there, in the methods' own names: the
  base's code is never recorded, and the tensors it hands them are not the model's inputs.
- A method of a model in the file given a tensor its `forward` computed (`self.head_of(h)`) too,
  and a module-level function of the file such a method calls (`first_token(h)`).
- A call that passes a size in the caller's names (`self.keep(x, x.shape[1])`) runs again with
  `k` a symbol of the parameter's (own_methods.py; more in test_own_methods_sizes.py).
Every shape claimed is checked against torch (meta tensors): each method's recorded arguments
bind the names."""
import textwrap

import pytest

from shapehint.analysis.api import analyze_source

from .infer_values import context_shape, value_at

BASE = """\
    import torch
    from torch import nn


    class Base(nn.Module):
        def __init__(self, n: int = 4, dim: int = 8, class_token: bool = True):
            super().__init__()
            self.cls_token = nn.Parameter(torch.zeros(1, 1, dim)) if class_token else None
            self.proj = nn.Linear(dim, dim)
            self.n, self.dim = n, dim

        def _embed(self, x):
            return x

        def forward_head(self, x):
            return x[:, 0]

        def forward(self, x):
            x = self.proj(x.reshape(x.shape[0], self.n, self.dim))
            x = self._embed(x)
            return self.forward_head(x)
    """
USER = """\
    import torch
    from torch import nn

    from .base import Base


    class Distilled(Base):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.dist_token = nn.Parameter(torch.zeros(1, 1, self.dim))
            self.head = nn.Linear(self.dim, 3)

        def _embed(self, x):
            x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), self.dist_token.expand(x.shape[0], -1, -1), x), dim=1)  # EMBED
            return x

        def forward_head(self, x):
            y = self.head(x[:, 0])  # HEAD
            return y


    def first_token(t):
        u = t[:, 0]  # FIRST
        return u


    class Net(nn.Module):
        def __init__(self, dim: int = 8, class_token: bool = True):
            super().__init__()
            self.cls_token = nn.Parameter(torch.zeros(1, 1, dim)) if class_token else None
            self.proj = nn.Linear(dim, dim)
            self.head = nn.Linear(dim, 5)

        def head_of(self, h):
            z = self.head(first_token(h))  # HEAD_OF
            return z

        def keep(self, h, k):
            w = h[:, :k] * 2  # KEEP
            return w

        def forward(self, x):
            h = self.proj(x)
            if self.cls_token is not None:
                h = torch.cat((self.cls_token.expand(h.shape[0], -1, -1), h), dim=1)
            h = self.keep(h, x.shape[1])
            return self.head_of(h)
    """


def _line(marker: str) -> int:
    return next(i for i, t in enumerate(textwrap.dedent(USER).splitlines(), 1) if t.endswith(f"# {marker}"))


def _package(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(textwrap.dedent(BASE))
    path = pkg / "user.py"
    path.write_text(textwrap.dedent(USER))
    return path


def _values(tmp_path):
    path = _package(tmp_path)
    return analyze_source(path.read_text(), str(path)).infer_json()["values"]


def _at(values, fn, marker, name):
    return value_at(values, fn, _line(marker), name)


def _context(value, cls):
    return context_shape(value, prefix=f"{cls}.__init__:")


def _torch_calls(tmp_path, cls, x_shape):
    """The first argument each method of `cls` got, and what its marked line gave (meta tensors)."""
    torch = pytest.importorskip("torch")
    import importlib
    import sys
    _package(tmp_path)
    sys.path.insert(0, str(tmp_path))
    try:
        for m in [m for m in sys.modules if m == "pkg" or m.startswith("pkg.")]:
            del sys.modules[m]
        mod = importlib.import_module("pkg.user")
    finally:
        sys.path.remove(str(tmp_path))
    net = getattr(mod, cls)().to("meta")
    seen = {}
    for name in ("_embed", "forward_head", "head_of", "keep"):
        if hasattr(type(net), name):
            real = getattr(net, name)

            def spy(h, *rest, _real=real, _name=name):
                out = _real(h, *rest)
                seen[_name] = (h, out)
                return out
            setattr(net, name, spy)
    net(torch.empty(2, 4, 8, device="meta"))
    return seen


def _evaluates(shape, arg, got):
    assert shape is not None and "?" not in shape and not any(str(d).startswith("*") for d in shape), shape
    env = {"x": arg, "h": arg, "dim": 8}
    assert [d if isinstance(d, int) else eval(d, env) for d in shape] == list(got.shape)


def test_methods_another_modules_forward_calls_are_listed_in_the_context(tmp_path):
    values = _values(tmp_path)
    seen = _torch_calls(tmp_path, "Distilled", (2, 4, 8))
    embed = _context(_at(values, "Distilled._embed", "EMBED", "x"), "Distilled")
    head = _context(_at(values, "Distilled.forward_head", "HEAD", "y"), "Distilled")
    assert embed == ["x.shape[0]", "x.shape[1] + 2", "x.shape[2]"] or embed == ["x.shape[0]", "x.shape[1] + 2", "dim"]
    _evaluates(embed, *seen["_embed"])
    _evaluates(head, *seen["forward_head"])
    # the method on its own: its input's rank is not known
    assert any(str(d).startswith("*") or d == "?" for d in _at(values, "Distilled.forward_head", "HEAD", "y")["shape"])


def test_a_method_given_a_tensor_its_forward_computed_is_listed_in_its_own_names(tmp_path):
    values = _values(tmp_path)
    seen = _torch_calls(tmp_path, "Net", (2, 4, 8))
    z = _context(_at(values, "Net.head_of", "HEAD_OF", "z"), "Net")
    assert z == ["h.shape[0]", 5]
    _evaluates(z, *seen["head_of"])


def test_a_module_level_function_a_method_calls_is_listed_in_its_own_names(tmp_path):
    values = _values(tmp_path)
    seen = _torch_calls(tmp_path, "Net", (2, 4, 8))
    u = _context(_at(values, "first_token", "FIRST", "u"), "Net")
    assert u == ["t.shape[0]", "t.shape[2]"]
    h = seen["head_of"][0]  # (what `head_of` hands it)
    assert [eval(d, {"t": h}) for d in u] == list(h[:, 0].shape)


def test_a_call_passing_a_size_in_the_callers_names_runs_again_with_the_parameters_symbol(tmp_path):
    values = _values(tmp_path)
    w = _context(_at(values, "Net.keep", "KEEP", "w"), "Net")
    assert w == ["h.shape[0]", "min(h.shape[1], k)", "h.shape[2]"]
    h, got = seen = _torch_calls(tmp_path, "Net", (2, 4, 8))["keep"]
    assert seen and [eval(d, {"h": h, "k": 4, "min": min}) for d in w] == list(got.shape)  # (k: x.shape[1])
