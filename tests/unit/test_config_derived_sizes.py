"""A configuration's size derived from others when not given (`self.head_dim = head_dim if
head_dim is not None else hidden_size // num_heads`, as llama's and mistral's configurations
write it) is the configuration's own attribute (`config.head_dim`) in a layer analysed on its
own, never the derivation: a configuration built with `head_dim=16` beside 32 // 4 holds 16.
The claims are evaluated on such a configuration and checked against torch."""

from .program_runs import infer
from .shape_eval import evaluated, run_program

PROGRAM = '''import torch
from torch import nn


class TinyConfig:
    def __init__(self, hidden_size=32, num_heads=4, head_dim=None):
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_dim = head_dim if head_dim is not None else hidden_size // num_heads


class Attn(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.head_dim = config.head_dim
        self.q = nn.Linear(config.hidden_size, config.num_heads * config.head_dim)

    def forward(self, x):
        q = self.q(x)
        freqs = torch.arange(0, self.head_dim, 2)
        return q, freqs
'''


def test_a_derived_default_is_the_configurations_attribute(tmp_path):
    res = infer(tmp_path, PROGRAM)
    assert [d for d in res["diagnostics"] if d["severity"] == "error"] == []
    got = {v["name"]: v["shape"] for v in res["values"] if v["function"] == "Attn.forward"}
    ns = run_program(PROGRAM)
    for kwargs in ({}, {"head_dim": 16}):  # derived, and given apart from the derivation
        config = ns["TinyConfig"](**kwargs)
        q, freqs = ns["Attn"](config)(ns["torch"].randn(2, 5, 32))
        assert evaluated(got["q"][-1:], {"config": config}) == [q.shape[-1]]
        assert evaluated(got["freqs"], {"config": config}) == list(freqs.shape)
