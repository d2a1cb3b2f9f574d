"""`torch.tensor` of a list of numbers whose count is not known item by item
(creation._scalars_of_unknown_count): `[group_size for _ in range(num_stages)]` has num_stages
items, so `torch.tensor` of it is one axis of that many (timm's RegNet builds its groups so);
a count not known at all is an axis of a size of its own. A list of lists, of tensors, or of
values of unknown kind (`cfg.sizes`) may be ragged: no shape. Every shape claimed is evaluated
against torch's for the same function."""

from .shape_eval import evaluated, inferred, run_program

SRC = '''import torch


def counted(n: int, g: int):
    gs = [g for _ in range(n)]
    a = torch.tensor(gs, dtype=torch.int32)
    b = torch.tensor([0.5 for _ in range(n + 1)])
    return a, b


def uncounted(xs: list, g: int):
    kept = [g for x in xs if x > 0]
    c = torch.tensor(kept)
    return c


def nested(n: int, cfg):
    rows = [[1, 2] for _ in range(n)]
    d = torch.tensor(rows)
    e = torch.tensor([torch.zeros(2) for _ in range(n)])
    f = torch.tensor([cfg.sizes for _ in range(n)])
    return d
'''


def test_a_list_of_n_numbers_is_one_axis_of_n():
    got = inferred(SRC, "counted")
    a, b = run_program(SRC)["counted"](3, 8)
    assert evaluated(got["a"], {"n": 3, "g": 8}) == list(a.shape)
    assert evaluated(got["b"], {"n": 3, "g": 8}) == list(b.shape)


def test_a_list_of_numbers_of_unknown_count_is_one_axis_of_some_size():
    got = inferred(SRC, "uncounted")
    c = run_program(SRC)["uncounted"]([1, -1, 2], 8)
    assert len(got["c"]) == len(c.shape) == 1
    assert isinstance(got["c"][0], str) and got["c"][0] not in ("xs", "g")


def test_lists_of_lists_or_tensors_claim_no_axis():
    got = inferred(SRC, "nested")
    # (torch gives [n, 2] here, but an item of unknown length may be ragged: no axis is claimed;
    # nor for an item of unknown kind, which may be a list. A tensor of unknown rank, `[*?]`,
    # claims only that it is a tensor)
    for name in ("d", "e", "f"):
        assert got.get(name) in (None, ["*?"]), (name, got.get(name))
