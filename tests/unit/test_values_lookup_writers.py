"""What may add entries to a mapping class's lookup behind the analysis (analysis/lookup_writers.py):
a lookup read with a key not known is one of the entries the analysis saw only while no code it
does not run may add one. Where all the entries are followed, the shape they agree on is claimed
(the dims they agree on, where they differ in some); a method that writes through its receiver,
a function that writes the table by name or through a helper, a subclass adding to the dict it
shares, or an entry the analysis cannot follow leave the lookup unknown. The program is
tests/unit/values/lookup_writers.py; every claim is checked against torch for every key, and each
unknown case is shown to reach another shape once the write ran."""
import pytest

from .values import answer, program


def _shape(function, name):
    got = [v for v in answer("lookup_writers")["values"] if v["function"] == function and v["name"] == name]
    return got[0]["shape"] if got else None


def _holds(claimed, got, x):
    """Each claimed dim that is not '?' is the observed one."""
    assert claimed is not None and len(claimed) == len(got.shape), (claimed, got.shape)
    for s, n in zip(claimed, got.shape):
        if s != "?":
            assert (eval(s, {"x": x}) if isinstance(s, str) else s) == n, (claimed, got.shape)


def _claims_nothing(shape):
    return shape is None or all(s == "?" or str(s).startswith("*") for s in shape)


def test_entries_that_agree_give_their_shape():
    import torch
    mod = program("lookup_writers")
    claimed = _shape("closed", "y")
    assert claimed is not None and "?" not in claimed, claimed
    x = torch.randn(2, 7, 64)
    for impl in ["fused", "plain"]:
        _holds(claimed, mod.closed(x, impl), x)


def test_entries_that_differ_in_one_axis_give_the_others():
    import torch
    mod = program("lookup_writers")
    claimed = _shape("partly", "y")
    x = torch.randn(2, 7, 64)
    assert mod.partly(x, "fused").shape[-1] != mod.partly(x, "halved").shape[-1]
    assert claimed is not None and claimed[-1] == "?" and claimed.count("?") == 1, claimed
    for impl in ["fused", "halved", "plain"]:
        _holds(claimed, mod.partly(x, impl), x)


def test_an_entry_the_analysis_cannot_follow_gives_none():
    import torch
    mod = program("lookup_writers")
    x = torch.randn(2, 7, 64)
    assert mod.unfollowed(x, "kernel").shape == mod.unfollowed(x, "fused").shape  # (it runs)
    assert _claims_nothing(_shape("unfollowed", "y"))


@pytest.mark.parametrize("function,write", [
    ("by_method", lambda mod: mod.BY_METHOD.add("halved", mod.halved)),
    ("by_later_method", lambda mod: mod.LATER.add("halved", mod.halved)),
    ("by_name", lambda mod: mod.setup()),
    ("by_override", lambda mod: mod.setup()),
    ("by_helper", lambda mod: mod.setup()),
    ("shared", lambda mod: mod.SharedAdder().add("halved", mod.halved)),
])
def test_a_table_written_where_the_analysis_does_not_run_gives_none(function, write):
    import torch
    mod = program("lookup_writers")
    x = torch.randn(2, 7, 64)
    before = getattr(mod, function)(x, "fused").shape
    write(mod)
    assert getattr(mod, function)(x, "halved").shape != before  # (the fused shape would be wrong)
    assert _claims_nothing(_shape(function, "y")), _shape(function, "y")


def test_a_key_read_off_a_configuration_with_a_fallback():
    import torch
    mod = program("lookup_writers")
    claimed = _shape("Attention.forward", "a")
    assert claimed is not None and "?" not in claimed, claimed
    x = torch.randn(3, 5, 64)
    for impl in ["fused", "plain"]:
        _holds([s.replace("b", "x.shape[0]").replace("t", "x.shape[1]") if isinstance(s, str) else s
                for s in claimed], mod.Attention(mod.Config(impl))(x), x)


@pytest.mark.parametrize("src,written", [
    ("def __init__(self):\n    self._overrides = {}", set()),  # (a construction the analysis follows)
    ("def __init__(self, k, f):\n    self._entries[k] = f", {"_entries"}),
    ("def add(self, k, f):\n    type(self)._entries.update({k: f})", {"_entries"}),
    ("def add(self, k, f):\n    d = self._entries\n    e = d\n    e[k] = f", {"_entries"}),
    ("def add(self, k, f):\n    self.table()[k] = f", {"*"}),
    ("def add(self, k, f):\n    setattr(self, k, f)", {"*"}),
    ("def add(self, k, f):\n    self.update({k: f})", {"*"}),
    ("@classmethod\ndef register(cls, k, f):\n    cls._entries[k] = f", {"_entries"}),
    ("def get(self, k):\n    d = self._entries\n    return d[k] if k in d else None", set()),
    ("@staticmethod\ndef add(k, f):\n    k[0] = f", set()),  # (no receiver: a write by name is found apart)
])
def test_what_a_method_writes_through_its_receiver(src, written):
    import ast

    from shapehint.analysis.lookup_writers import _scan_writes
    fn = ast.parse(src).body[0]
    assert _scan_writes(fn) == written


@pytest.mark.parametrize("src,harmless", [
    ("def use(t, k):\n    return t[k]", True),
    ("def use(t, k):\n    t[k] = None", False),
    ("def use(t, k):\n    other(t)", False),  # (passed on: what `other` does is not read)
    ("def use(t, k):\n    return [t.get(k)]", True),
])
def test_what_a_function_does_with_a_table_it_is_given(src, harmless):
    import ast

    from shapehint.analysis.lookup_writers import _scan_writes
    fn = ast.parse(src).body[0]
    assert (not _scan_writes(fn, "t")) == harmless
