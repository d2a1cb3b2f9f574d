"""Optional imports (issue 28): a module the analysis' world lacks raises ImportError inside a
`try` whose handler gets on, so the code's own fallback is what runs."""
import torch
from torch import nn


class Norm(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))

    def forward(self, x):
        v = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(v + 1e-6))


try:  # an accelerated norm where one is installed: the class above otherwise
    from no_such_accelerator.norms import FusedNorm

    Norm = FusedNorm
except ImportError:
    pass

try:  # present in the workspace: the import may succeed
    from fused_kernels import HalfNorm as Present
except ImportError:
    Present = Norm


class Model(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.norm = Norm(d_model)
        self.present = Present(d_model)

    def forward(self, x: torch.Tensor):
        assert x.dim() == 3 and x.shape[-1] == 8
        normed = self.norm(x)
        either = self.present(x)
        return {"normed": normed, "either": either}


def kernel_or_plain(x: torch.Tensor):
    assert x.dim() == 2
    try:
        from no_such_accelerator import fused_gelu
    except ImportError:
        fused_gelu = None
    if fused_gelu is None:
        out = x * 2
    else:
        out = fused_gelu(x).sum(0)
    return {"out": out}


def nested(x: torch.Tensor):
    assert x.dim() == 2
    try:
        try:
            from no_such_accelerator import act
        except KeyError:  # does not catch it: the outer handler does
            act = None
    except ImportError:
        act = torch.relu
    out = act(x)
    return {"out": out}


def required(x: torch.Tensor):
    assert x.dim() == 2
    try:
        import no_such_accelerator
    except ImportError:
        raise RuntimeError("this path needs the accelerator")
    kept = x + 1  # a handler that re-raises: the code needs the module, and is read as having it
    return {"kept": kept}
