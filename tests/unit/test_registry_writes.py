"""A registry read with a key not known is one of its values (choices.registry_choice) only
while no code outside the module's top-level order can add a value: a function that writes it
(`REG[name] = fn`, `REG.update(...)`) may run before the read at run time, whatever order the
file or the analysis puts them in, so the dict is marked `written_elsewhere` right after the
module's top-level code ran (sealed_dicts.mark_written) and no choice is claimed from it. Here the
registering function comes after the reading class in the file and in analysis order; the
registered `Flat` changes the rank, so a claim of the activations' `*x` would be wrong (checked
with torch)."""
import pytest

from shapehint.analysis.api import analyze_source

READER = '''import torch
import torch.nn as nn

REG = {"a": nn.ReLU, "b": nn.Tanh}


class Block(nn.Module):
    def __init__(self, kind: str):
        super().__init__()
        self.act = REG[kind]()

    def forward(self, x: torch.Tensor):
        y = self.act(x)
        return y


class Flat(nn.Module):
    def forward(self, x):
        return x.flatten(1)
'''
WRITERS = {
    "item": "\n\ndef register(name, fn):\n    REG[name] = fn\n",
    "update": "\n\ndef register(name, fn):\n    REG.update({name: fn})\n",
    "decorator": "\n\ndef register(fn):\n    REG[fn.__name__] = fn\n    return fn\n",
    "alias": "\n\ndef register(name, fn):\n    table = REG\n    table[name] = fn\n",
}


def _y(text):
    values = analyze_source(text, "registry.py").infer_json()["values"]
    hit = [v for v in values if v["function"] == "Block.forward" and v["name"] == "y"]
    return hit[0]["shape"] if hit else None


def test_a_closed_registry_is_a_choice():
    assert _y(READER) == ["*x"]  # (ReLU and Tanh both keep the shape)


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_registry_a_function_fills_is_no_choice(writer):
    assert _y(READER + WRITERS[writer]) is None


def test_the_registered_value_changes_the_shape():
    torch = pytest.importorskip("torch")
    ns: dict = {}
    exec(compile(READER + WRITERS["item"], "registry.py", "exec"), ns)
    ns["register"]("c", ns["Flat"])
    x = torch.empty(2, 3, 4, device="meta")
    assert ns["Block"]("a")(x).shape == (2, 3, 4)
    assert ns["Block"]("c")(x).shape == (2, 12)


def test_an_imported_registry_a_function_fills_is_no_choice(tmp_path):
    (tmp_path / "reg.py").write_text('import torch.nn as nn\n\nREG = {"a": nn.ReLU, "b": nn.Tanh}\n'
                                     + WRITERS["item"])
    main = READER.replace('REG = {"a": nn.ReLU, "b": nn.Tanh}', "from reg import REG")
    path = tmp_path / "main.py"
    path.write_text(main)
    values = analyze_source(main, str(path)).infer_json()["values"]
    assert not [v for v in values if v["function"] == "Block.forward" and v["name"] == "y"]
    plain = tmp_path / "reg.py"
    plain.write_text('import torch.nn as nn\n\nREG = {"a": nn.ReLU, "b": nn.Tanh}\n')
    values = analyze_source(main, str(path)).infer_json()["values"]
    assert [v["shape"] for v in values if v["function"] == "Block.forward" and v["name"] == "y"] == [["*x"]]
