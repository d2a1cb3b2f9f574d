"""`x.dtype in [torch.int32, torch.long]` is decided when x's dtype is known: the arm for other
dtypes is not run with an int64 tensor (issue 25, ovis2's embedding table)."""
from shapehint.analysis.api import analyze_source


TABLE = '''import torch
import torch.nn as nn


class Table(nn.Embedding):
    def forward(self, tokens):
        if tokens.dtype in [torch.int8, torch.int16, torch.int32, torch.long]:
            return super().forward(tokens)
        return torch.matmul(tokens, self.weight)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = Table(10, 4)

    def forward(self, x):
        ind = torch.arange(2, 5, dtype=torch.{dtype})
        return self.table(ind)
'''


def _errors(text):
    return [(d.line, d.code) for d in analyze_source(text, "table.py").diagnostics if d.severity == "error"]


def test_an_int64_tensor_takes_the_integer_arm():
    assert _errors(TABLE.format(dtype="int64")) == []


def test_a_dtype_outside_the_list_takes_the_other_arm():
    # float64 tokens against a float32 weight: matmul refuses the mix
    assert _errors(TABLE.format(dtype="float64")) == [(19, "SH107")]
