"""A layer class imported from another module of the file's own package (GPT-2's
`pytorch_utils.Conv1D` shape: a weight `[nx, nf]`, `addmm` on the input viewed to 2-D, then
`view(x.size()[:-1] + (nf,))`), chosen in `__init__` by a constructor flag and called from a block
inside a `ModuleList` loop: the imported `forward` runs with the caller's shapes, so the
`split(..., dim=2)` after it is known in every calling context (issue 28, cause 6;
analysis/imports.py, analysis/costs.py). A regression guard for the imported path: GPT-2's
attention lines are lost for another cause (its attention kernel is chosen from a registry by a
configuration string, so a block's output, and the loop's next iteration, stay unknown).

The package is our own, and every shape claimed is checked against torch running it."""
import sys
import textwrap

from .program_runs import infer_file

LAYERS = """\
    import torch
    from torch import nn


    class Conv1D(nn.Module):
        def __init__(self, nf, nx):
            super().__init__()
            self.nf = nf
            self.weight = nn.Parameter(torch.empty(nx, nf))
            self.bias = nn.Parameter(torch.zeros(nf))

        def forward(self, x):
            size_out = x.size()[:-1] + (self.nf,)
            x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
            x = x.view(size_out)
            return x
    """

MODEL = """\
    import torch
    from torch import nn

    from .layers import Conv1D


    class Attn(nn.Module):
        def __init__(self, dim, cross=False):
            super().__init__()
            self.dim = dim
            if cross:
                self.c_attn = Conv1D(2 * dim, dim)
            else:
                self.c_attn = Conv1D(3 * dim, dim)

        def forward(self, x):
            q, k, v = self.c_attn(x).split(self.dim, dim=2)
            return q * k + v


    class Block(nn.Module):
        def __init__(self, dim, layer_idx=None):
            super().__init__()
            self.attn = Attn(dim)
            self.proj = Conv1D(dim, dim)

        def forward(self, x):
            return self.proj(self.attn(x)) + x


    class Net(nn.Module):
        def __init__(self, dim, n):
            super().__init__()
            self.dim = dim
            self.h = nn.ModuleList([Block(dim, layer_idx=i) for i in range(n)])

        def forward(self, ids):
            x = ids.view(-1, ids.shape[-1]).unsqueeze(-1).expand(-1, -1, self.dim).float()
            for block in self.h:
                x = block(x)
            return x


    def main():
        net = Net(8, 2)
        ids = torch.zeros(2, 3, 5, dtype=torch.long)
        out = net(ids)
        return out
    """


def _package(tmp_path):
    pkg = tmp_path / "g2pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "layers.py").write_text(textwrap.dedent(LAYERS))
    (pkg / "model.py").write_text(textwrap.dedent(MODEL))
    return pkg


def _torch_run(tmp_path):
    """main()'s output and the q/k/v shapes each Attn call really makes."""
    sys.path.insert(0, str(tmp_path))
    try:
        from g2pkg import model
        seen = []
        orig = model.Attn.forward

        def spy(self, x):
            seen.append([tuple(t.shape) for t in self.c_attn(x).split(self.dim, dim=2)])
            return orig(self, x)
        model.Attn.forward = spy
        out = model.main()
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("g2pkg.model", "g2pkg.layers", "g2pkg"):
            sys.modules.pop(name, None)
    return tuple(out.shape), seen


def test_imported_layer_runs_with_the_callers_shapes(tmp_path):
    pkg = _package(tmp_path)
    res = infer_file(pkg / "model.py")
    out_shape, seen = _torch_run(tmp_path)
    vals = {(v["line"], v["name"]): v for v in res["values"]}
    assert tuple(vals[(47, "out")]["shape"]) == out_shape == (6, 5, 8)
    # every Attn call torch made saw the same q/k/v, and the concrete calling context claims it
    assert seen and all(s == seen[0] for s in seen)
    for i, name in enumerate(("q", "k", "v")):
        concrete = [c["shape"] for c in vals[(17, name)]["contexts"]
                    if all(isinstance(d, int) for d in c["shape"])]
        assert concrete == [list(seen[0][i])]
