"""torch's questions about the mode the code runs in, answered for eager execution: the analysis
follows a model as it runs in Python (what `shapehint run` compares with), never under tracing,
scripting, compilation or ONNX export. Code branches on them to pick a tensor form of a size
(`torch.min(torch.tensor(res)) if torch.jit.is_tracing() else min(res)`); unknown, the join
of that tensor and the int lost the size."""
from __future__ import annotations

from typing import Optional

from ..shapes.shape import FALSE
from ..shapes.values import BoolV, NoneV, Value

# each is False in eager execution
EAGER_FALSE = frozenset({
    "torch.jit.is_tracing", "torch.jit.is_scripting", "torch._C._is_tracing",
    "torch.compiler.is_compiling", "torch.compiler.is_dynamo_compiling", "torch.compiler.is_exporting",
    "torch._dynamo.is_compiling", "torch._utils.is_compiling", "torch.onnx.is_in_onnx_export",
    "torch.fx._symbolic_trace.is_fx_tracing",
})
# each is None in eager execution
EAGER_NONE = frozenset({"torch._C._get_tracing_state"})


def eager_answer(path: str, args: list) -> Optional[Value]:
    """What the mode query `path` answers in eager execution (None: not a mode query)."""
    if args:
        return None  # (they take no argument: something else of that name)
    if path in EAGER_FALSE:
        return BoolV(FALSE)
    if path in EAGER_NONE:
        return NoneV()
    return None
