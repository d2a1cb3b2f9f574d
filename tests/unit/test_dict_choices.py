"""Keyword dicts that are one of several known ones (analysis/dict_choices.py): `kw = {}` on one
path and `kw = {"k": True}` on another, spread into a call with `**kw`, call once per option and
join the results (exact where they agree, `?` where they differ). A dict of that kind written
after the join (`kw[k] = v`, a method, a helper given it) may hold what no option holds: its
spread is unknown. `del kw[k]` drops the key. Each claimed shape is checked against torch on the
meta device, for every value of the flag."""
import pytest

from shapehint.analysis.api import analyze_source

SRC = '''import torch
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def g(x, flat=False, half=False):
    if flat:
        x = x.flatten(1)
    if half:
        x = x[..., :2]
    return x


def agree(q: Float[Tensor, "B H T 16"], k: Float[Tensor, "B H T 16"], c: bool):
    kw = {}
    if c:
        kw = {"enable_gqa": True}
    out = F.scaled_dot_product_attention(q, k, k, **kw)
    return out


def one_axis(x: Float[Tensor, "B 3 4"], c: bool):
    kw = {}
    if c:
        kw = {"half": True}
    out = g(x, **kw)
    return out


def other_rank(x: Float[Tensor, "B 3 4"], c: bool):
    kw = {}
    if c:
        kw = {"flat": True}
    out = g(x, **kw)
    return out


def with_keywords(x: Float[Tensor, "B 3 4"], c: bool):
    kw = {}
    if c:
        kw = {"half": True}
    out = g(x, flat=True, **kw)
    return out


def written_after(x: Float[Tensor, "B 3 4"], c: bool):
    kw = {}
    if c:
        kw = {"half": True}
    kw["flat"] = True
    out = g(x, **kw)
    return out


def updated_after(x: Float[Tensor, "B 3 4"], c: bool):
    kw = {}
    if c:
        kw = {"half": True}
    kw.update(flat=True)
    out = g(x, **kw)
    return out


def fill(d):
    d["flat"] = True


def filled_after(x: Float[Tensor, "B 3 4"], c: bool):
    kw = {}
    if c:
        kw = {"half": True}
    fill(kw)
    out = g(x, **kw)
    return out


def deleted(x: Float[Tensor, "B 3 4"]):
    kw = {"flat": True}
    del kw["flat"]
    out = g(x, **kw)
    return out
'''


@pytest.fixture(scope="module")
def values():
    got = analyze_source(SRC, "kwargs.py").infer_json()["values"]
    return {v["function"]: v["shape"] for v in got if v["name"] == "out"}


@pytest.fixture(scope="module")
def program():
    ns: dict = {}
    exec(compile(SRC, "kwargs.py", "exec"), ns)
    return ns


def _holds(claimed, y, env):
    """Every claimed dim that is not '?' is torch's, under each value of the flag."""
    assert claimed is not None and "*" not in str(claimed) and len(claimed) == len(y.shape), (claimed, y.shape)
    for d, n in zip(claimed, y.shape):
        assert d == "?" or (env[d] if isinstance(d, str) else d) == n, (claimed, y.shape)


def _run(program, name, *shapes, **kw):
    torch = pytest.importorskip("torch")
    return [program[name](*[torch.empty(*s, device="meta") for s in shapes], c, **kw) for c in (False, True)]


def test_options_that_agree_give_the_shape(values, program):
    assert values["agree"] == ["B", "H", "T", 16]
    for y in _run(program, "agree", (2, 4, 5, 16), (2, 4, 5, 16)):
        _holds(values["agree"], y, {"B": 2, "H": 4, "T": 5})


def test_options_that_differ_in_one_axis_give_the_others(values, program):
    assert values["one_axis"] == ["B", 3, "?"]
    ys = _run(program, "one_axis", (2, 3, 4))
    assert ys[0].shape[-1] != ys[1].shape[-1]
    for y in ys:
        _holds(values["one_axis"], y, {"B": 2})


def test_options_of_other_ranks_claim_no_rank(values, program):
    ys = _run(program, "other_rank", (2, 3, 4))
    assert len(ys[0].shape) != len(ys[1].shape)
    claimed = values.get("other_rank")
    assert claimed is None or claimed[-1] == "*?" and all(d == "B" for d in claimed[:-1]), claimed


def test_keywords_given_beside_the_spread_are_kept(values, program):
    assert values["with_keywords"] == ["B", "?"]
    for y in _run(program, "with_keywords", (2, 3, 4)):
        _holds(values["with_keywords"], y, {"B": 2})


@pytest.mark.parametrize("name", ["written_after", "updated_after", "filled_after"])
def test_a_choice_written_after_the_join_is_unknown(values, program, name):
    ys = _run(program, name, (2, 3, 4))
    assert len(ys[0].shape) == 2  # (the write took effect: no option alone says so)
    assert values.get(name) is None, values.get(name)


def test_a_deleted_key_is_not_passed(values, program):
    torch = pytest.importorskip("torch")
    y = program["deleted"](torch.empty(2, 3, 4, device="meta"))
    assert tuple(y.shape) == (2, 3, 4)
    assert values["deleted"] == ["B", 3, 4]
