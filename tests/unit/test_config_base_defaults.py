"""A configuration's attributes set by its base class's `__init__` (analysis/config_bases.py,
analysis/config_defaults.py, devicerun/builders.py).

The configuration class takes its own sizes and hands the rest to its base
(`super().__init__(**kwargs)`, last, after its own assignments); the base sets `is_decoder` from a
keyword default and `mode` from `kwargs.pop("mode", "sum")`, after a loop that sets every other
keyword as an attribute. The model branches on both: the defaults construction context decides
them (the class on its own joins both arms), and a build binds it only when it leaves them at
their defaults and passes no keyword the chain does not name. The shapes claimed are checked
against torch (meta tensors)."""
import ast

import pytest

from shapehint.analysis.api import analyze_source
from shapehint.analysis.config_bases import decided, mro
from shapehint.devicerun.builders import built_by

from .test_defaults_context_floats_forwarding import _at, _context

BASE = '''class BaseSettings:
    def __init__(self, *, is_decoder: bool = False, chunk: int = 0, label=None, **kwargs):
        self.is_decoder = is_decoder
        self.chunk = chunk
        self.label = label
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.mode = kwargs.pop("mode", "sum")
'''
SETTINGS = '''from base_settings import BaseSettings


class Settings(BaseSettings):
    def __init__(self, hidden=8, act="gelu", **kwargs):
        self.hidden = hidden
        self.act = act
        super().__init__(**kwargs)
'''
MODEL = '''import torch
from jaxtyping import Float
from torch import Tensor, nn
from settings import Settings


class Base(nn.Module):
    config: Settings


class Model(Base):
    def __init__(self, config, with_out=True):
        super().__init__()
        self.config = config
        self.dense = nn.Linear(config.hidden, config.hidden)
        self.out = nn.Linear(config.hidden, 4) if with_out else nn.Identity()

    def forward(self, x: Float[Tensor, "B T 8"]):
        h = self.dense(x)
        if self.config.is_decoder:
            h = h[:, -1:]
        y = self.out(h)
        if self.config.mode == "sum":
            y = y.sum(1)
        return y
'''
CTX = "Model.__init__:12"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "base_settings.py").write_text(BASE)
    (tmp_path / "settings.py").write_text(SETTINGS)
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    return model


def _torch(tmp_path, build):
    torch = pytest.importorskip("torch")
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        ns = {}
        exec(compile(MODEL, str(tmp_path / "model.py"), "exec"), ns)
        net = eval(build, ns).to("meta")
        x = torch.empty(2, 5, 8, device="meta")
        h = net.dense(x)
        return net.out(h[:, -1:] if net.config.is_decoder else h), net(x)
    finally:
        sys.path.remove(str(tmp_path))
        for m in ("settings", "base_settings"):
            sys.modules.pop(m, None)


def test_the_context_decides_what_the_base_sets(files, tmp_path):
    pytest.importorskip("jaxtyping")
    values = analyze_source(MODEL, str(files)).infer_json()["values"]
    y, out = _torch(tmp_path, "Model(Settings())")
    assert _context(_at(values, "Model.forward", 22, "y"), CTX) == ["B", "T", 4] and tuple(y.shape) == (2, 5, 4)
    assert _context(_at(values, "Model.forward", 24, "y"), CTX) == ["B", 4] and tuple(out.shape) == (2, 4)
    assert _context(_at(values, "Model.forward", 21, "h"), CTX) is None  # (`is_decoder` is False there)
    # the class on its own: either arm
    assert _at(values, "Model.forward", 24, "y")["shape"] != ["B", 4]


def test_torch_another_flag_changes_the_shape(files, tmp_path):
    # (so a build passing it must not be bound, below)
    y, out = _torch(tmp_path, "Model(Settings(is_decoder=True, mode='last'))")
    assert tuple(y.shape) == (2, 1, 4) and tuple(out.shape) == (2, 1, 4)


@pytest.mark.parametrize("build, matched", [
    ("Model(Settings())", True),
    ("Model(Settings(hidden=16))", True),
    ("Model(Settings(is_decoder=False, mode='sum'))", True),
    ("Model(Settings(label='x'))", True),  # (a `None` default: nothing decided of it)
    ("Model(Settings(is_decoder=True))", False),
    ("Model(Settings(mode='last'))", False),
    ("Model(Settings(chunk=4))", False),
    ("Model(Settings(extra=1))", False),  # (reaches the `setattr` loop: might be any attribute)
    ("Model(Settings(act='relu'))", False),
])
def test_a_build_binds_only_the_bases_defaults(files, build, matched):
    assert ("Model.__init__" in built_by([build], MODEL, str(files))) is matched


def _decided(src: str, complete: bool = True) -> dict:
    classes = {c.name: c for c in ast.parse(src).body if isinstance(c, ast.ClassDef)}
    order = mro(classes["C"], lambda c: [classes[b.id] for b in c.bases if b.id in classes])
    return decided(order, complete)


BASE_OF = '''class A:
    def __init__(self, flag=False, **kwargs):
        self.flag = flag
        self.kind = kwargs.pop("kind", "x")
'''


def test_through_the_super_call():
    assert _decided(BASE_OF + '''
class C(A):
    def __init__(self, size=3, **kwargs):
        super().__init__(**kwargs)
        self.size = size
''') == {"flag": False, "kind": "x"}


def test_a_parameter_the_call_passes_is_not_decided():
    assert _decided(BASE_OF + '''
class C(A):
    def __init__(self, on=True, **kwargs):
        super().__init__(flag=on, **kwargs)
''') == {"kind": "x"}


def test_the_base_overwrites_what_the_class_set_before_calling_it():
    got = _decided(BASE_OF + '''
class C(A):
    def __init__(self, flag=True, other="y", **kwargs):
        self.flag = flag
        self.other = other
        super().__init__(**kwargs)
''')
    assert got == {"flag": False, "kind": "x", "other": "y"}


def test_what_a_later_statement_or_method_writes_is_not_decided():
    got = _decided(BASE_OF + '''
class C(A):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._reset()

    def _reset(self):
        self.flag = bool(self.kind)
''')
    assert got == {"kind": "x"}


def test_names_the_class_defines_or_its_tables_mention_are_not_decided():
    got = _decided(BASE_OF + '''
class C(A):
    names = {"other": "kind"}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    @property
    def flag(self):
        return True
''')
    assert got == {}


def test_a_base_not_seen_decides_nothing_after_it():
    src = '''class C(Unknown):
    def __init__(self, a=True, b=False, **kwargs):
        self.a = a
        super().__init__(**kwargs)
        self.b = b
'''
    classes = [n for n in ast.parse(src).body if isinstance(n, ast.ClassDef)]
    assert decided(classes, complete=False) == {"b": False}


def test_a_setattr_of_names_not_known_decides_nothing_before_it():
    assert _decided('''class C:
    def __init__(self, a=True, names=(), **kwargs):
        self.a = a
        for n in names:
            setattr(self, n, 1)
''') == {}


def test_a_setattr_over_a_literal_table():
    src = '''class C:
    def __init__(self, a=True, b=False, **kwargs):
        self.a = a
        self.b = b
        for n, d in self.table().items():
            setattr(self, n, kwargs.pop(n, d))

    @staticmethod
    def table():
        return {"b": 1}
'''
    assert _decided(src) == {"a": True}


def test_a_base_init_not_read_as_a_method_decides_nothing_before_its_call():
    # (its first parameter is not `self`: what it writes is not seen)
    assert _decided('''class A:
    def __init__(this, **kwargs):
        this.a = False


class C(A):
    def __init__(self, a=True, b=True, **kwargs):
        self.a = a
        super().__init__(**kwargs)
        self.b = b
''') == {"b": True}


def test_a_decorated_class_decides_nothing():
    # (a decorator may write its `__init__` anew)
    assert _decided('''@wrap
class C:
    def __init__(self, a=True):
        self.a = a
''') == {}


def test_a_chain_is_read_once_and_each_caller_gets_its_own_copy(monkeypatch):
    """Every construction context of a file's models asks what its configuration's chain decides:
    read once per chain of class nodes (the trees are shared), the same answer each time, one a
    caller may change without changing the next one's; another chain (a new tree: an edit, or
    `complete` otherwise) is read on its own."""
    from shapehint.analysis import config_bases

    read = []
    chain = config_bases._Chain
    monkeypatch.setattr(config_bases, "_Chain", lambda classes, complete, resolve=None: read.append(complete) or
                        chain(classes, complete, resolve))
    src = BASE_OF + '''

class C(A):
    def __init__(self, act=True, **kwargs):
        self.act = act
        super().__init__(**kwargs)
'''
    classes = {c.name: c for c in ast.parse(src).body if isinstance(c, ast.ClassDef)}
    order = [classes["C"], classes["A"]]
    want = chain(order, True).decided()
    assert want == {"act": True, "flag": False, "kind": "x"}
    first = decided(order)
    assert first == want
    first["act"] = False
    assert decided(list(order)) == want and read == [True]
    assert decided(order, complete=False) == {"kind": "x"} and read == [True, False]  # (a base not seen may write the others)
    again = [c for c in ast.parse(src).body if isinstance(c, ast.ClassDef)][::-1]
    assert decided(again) == want and read == [True, False, True]
