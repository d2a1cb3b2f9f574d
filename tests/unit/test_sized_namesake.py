"""The sized contexts' budget (analysis/sized_kwargs.py) spent on the factories a file is named
after first (`sized_kwargs.gives_way`): timm's efficientnet.py has 21 factories (`mnasnet_050`
...) before `efficientnet_b0`, and the budget held five reruns, so the models a user opening the
file calls by its name had no context. Here the budget holds three and a half reruns: in
`widenet.py` one of them goes to `wide_net_s`, the file's namesake, past a factory before it that
would have left it too few steps; in a file named after none of them, to the first three. The shapes are checked against
torch (meta tensors). The factories' generic analyses hold `deep` undecided (their callers'
`**kwargs` may pass it), so only a sized context knows the stem's channels."""
import pytest

from shapehint.analysis import costs, sized_kwargs
from shapehint.analysis.api import analyze_source

PROGRAM = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, width: float = 1.0, deep: bool = False, num_classes: int = 10):
        super().__init__()
        self.dim = int(16 * width) * (2 if deep else 1)
        self.stem = nn.Conv2d(3, self.dim, 3, 2, 1)
        self.head = nn.Linear(self.dim, num_classes)

    def forward(self, x):
        x = self.stem(x)
        y = self.head(x.mean((2, 3)))
        return y


def other_a(**kwargs):
    return Net(width=0.5, **kwargs)


def other_b(**kwargs):
    return Net(width=0.75, **kwargs)


def other_c(**kwargs):
    return Net(width=1.5, **kwargs)


def wide_net_s(**kwargs):
    return Net(width=2.0, **kwargs)


def other_d(**kwargs):
    return Net(width=3.0, **kwargs)
'''
STEM = PROGRAM.splitlines().index("        x = self.stem(x)") + 1


def _contexts(path) -> dict:
    values = analyze_source(PROGRAM, path).infer_json()["values"]
    line = next(v for v in values if v["function"] == "Net.forward" and v["line"] == STEM)
    return {c["context"].split(":")[0]: c["shape"] for c in line.get("contexts") or []
            if not c["context"].startswith("Net.") and c["shape"][1] != "?"}


def _torch(factory):
    torch = pytest.importorskip("torch")
    ns = {}
    exec(compile(PROGRAM, "widenet.py", "exec"), ns)
    net = ns[factory]().to("meta")
    return net.stem(torch.empty(2, 3, 32, 24, device="meta")).shape


def test_namesake():
    assert sized_kwargs.namesake("/a/widenet.py", "wide_net_s")
    assert sized_kwargs.namesake("/a/_wide_net.py", "tf_widenet_s")
    assert not sized_kwargs.namesake("/a/widenet.py", "other_a")
    assert not sized_kwargs.namesake("<string>", "other_a")


def _rerun_cost(monkeypatch) -> int:
    """The steps of the dearest rerun of the file's factories (each builds and runs a Net)."""
    seen, run_models = [], sized_kwargs.run_models

    def recording(it, f, fr, run):
        before = costs.account(it).sized
        run_models(it, f, fr, run)
        seen.append(costs.account(it).sized - before)
    monkeypatch.setattr(sized_kwargs, "run_models", recording)
    _contexts("models.py")
    monkeypatch.setattr(sized_kwargs, "run_models", run_models)
    assert len(seen) == 5 and min(seen) > 0, seen
    return max(seen)


def test_the_budget_goes_to_the_namesake_factory(monkeypatch):
    """Three and a half reruns: `other_a` runs (nothing to go by yet), `other_b` as two more fit,
    `other_c` gives way to `wide_net_s`; `other_d` has half a rerun left, cut off."""
    monkeypatch.setattr(sized_kwargs, "SIZED_STEPS", _rerun_cost(monkeypatch) * 7 // 2)
    got = _contexts("widenet.py")
    assert set(got) == {"other_a", "other_b", "wide_net_s"}, got
    assert got["wide_net_s"][:2] == ["x.shape[0]", 32] and list(_torch("wide_net_s"))[:2] == [2, 32]
    assert got["wide_net_s"][2:] == ["(x.shape[2] - 1)//2 + 1", "(x.shape[3] - 1)//2 + 1"] \
        and list(_torch("wide_net_s"))[2:] == [16, 12]
    assert got["other_b"][1] == 12 and _torch("other_b")[1] == 12


def test_without_a_namesake_the_first_factories_have_it(monkeypatch):
    monkeypatch.setattr(sized_kwargs, "SIZED_STEPS", _rerun_cost(monkeypatch) * 7 // 2)
    got = _contexts("models.py")
    assert set(got) == {"other_a", "other_b", "other_c"}, got
    assert got["other_a"][1] == 8 and _torch("other_a")[1] == 8


def test_with_the_budget_every_factory_has_one():
    assert set(_contexts("widenet.py")) == {"other_a", "other_b", "other_c", "wide_net_s", "other_d"}
