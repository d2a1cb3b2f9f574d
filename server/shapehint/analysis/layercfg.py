"""What a torch layer's configuration attributes read as (`conv.stride`, `self.dilation` in a
subclass of `nn.Conv2d`): the value torch stores, which is not always the argument given.
Convolutions store `kernel_size`, `stride`, `padding`, `dilation` and `output_padding` as
tuples of one int per spatial axis (`nn.Conv2d(3, 8, 3, stride=2).stride == (2, 2)`), so code
that indexes them (`self.stride[0]` in a same-padding convolution) needs the tuple; pools keep
what they were given."""
from __future__ import annotations

from ..shapes.expr import Expr
from ..shapes.values import IntV, ModuleV, TupleV, Value
from .objects import OpaqueV

_CONVS = {f"torch.nn.{k}{n}d": n for k in ("Conv", "ConvTranspose", "LazyConv", "LazyConvTranspose")
          for n in (1, 2, 3)}
_PER_AXIS = {"kernel_size", "stride", "padding", "dilation", "output_padding"}


def config_attr(layer: ModuleV, name: str) -> Value:
    """`layer.<name>` for a name among the layer's bound constructor arguments."""
    v = layer.cfg[name]
    n = _CONVS.get(layer.kind)
    if n is None or name not in _PER_AXIS:
        return v
    if isinstance(v, int) and not isinstance(v, bool):
        v = IntV(Expr.const(v))  # a default the rule bound as a plain int
    if isinstance(v, IntV) or isinstance(v, OpaqueV) and v.kind == "int":
        return TupleV(tuple(v for _ in range(n)))
    return v
