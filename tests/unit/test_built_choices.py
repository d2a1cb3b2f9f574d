"""Construction contexts (built.py) of factories whose model another module's builder returns
as one of several: the builder replaces the model when the caller's `**kwargs` ask for it
(`if kwargs.pop('pruned', False): model = Pruned(model)`), or hands it to a function the
analysis does not follow, so the factory's generic analysis returns a choice of the model and
another (objects.ChoiceV), or of the model and something unknown (objects.OpenChoiceV). Each
known model among them is one the factory may build: its forward runs in that construction
context, a claim about that model only. Checked against torch building the same package."""
import torch

from .program_runs import infer_file, run_package, write_package

FILES = {
    "fact/__init__.py": "",
    "fact/builder.py": """import torch
import torch.nn as nn


class Pruned(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)[:, :1]


def build(cls, **kwargs):
    pruned = kwargs.pop('pruned', False)
    model = cls(**kwargs)
    if pruned:
        model = Pruned(model)
    return model


def build_scripted(cls, **kwargs):
    script = kwargs.pop('script', False)
    model = cls(**kwargs)
    if script:
        model = torch.jit.script(model)
    return model
""",
    "fact/m.py": """import torch
import torch.nn as nn
from .builder import build, build_scripted


class Net(nn.Module):
    def __init__(self, width=8, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, width, 3)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        y = self.conv(x)
        z = y.mean((2, 3))
        return self.fc(z)


def net_wide(**kwargs):
    return build(Net, width=16, **kwargs)


def net_scripted(**kwargs):
    return build_scripted(Net, width=12, **kwargs)


def run(x):
    wide, scripted = net_wide(), net_scripted()
    return wide.conv(x), scripted.conv(x), wide(x), scripted(x)
""",
}


def test_each_model_a_builder_may_return_runs_in_its_factory_context(tmp_path):
    path = write_package(tmp_path, FILES)
    x = torch.randn(2, 3, 10, 10)
    wide_y, scripted_y, wide_out, scripted_out = [list(t.shape) for t in run_package(tmp_path, "fact.m", x)]
    values = infer_file(path)["values"]
    y = next(v for v in values if v["function"] == "Net.forward" and v["name"] == "y")
    contexts = {c["context"].split(":")[0]: c["shape"] for c in y.get("contexts") or []}

    def at(shape):
        return [eval(d, {}, {"x": x}) if isinstance(d, str) else d for d in shape]

    assert at(contexts["net_wide"]) == wide_y == [2, 16, 8, 8]
    assert at(contexts["net_scripted"]) == scripted_y == [2, 12, 8, 8]
    out = next(v for v in values if v["function"] == "Net.forward" and v["name"] == "z")
    ctx = {c["context"].split(":")[0]: c["shape"] for c in out.get("contexts") or []}
    assert at(ctx["net_wide"]) == [2, 16] and wide_out == scripted_out == [2, 10]
