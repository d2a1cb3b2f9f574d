"""Which file a frame's code is in: a function of the analysed file called from another module's
code (a base class's `forward` calling a layer this file defines) runs as this file's code — its
lines are quoted from this file and its findings stand at its own lines — while a lambda or nested
function written in the other module stays that module's code (analysis/calls.py, executor.py)."""
import textwrap

from shapehint.analysis.api import analyze_source

BASE = """\
    import torch.nn as nn


    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = None

        def forward(self, x):
            y = self.inner(x)
            return y
    """
USER = """\
    import torch
    import torch.nn as nn

    from .base import Layer


    class Inner(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.bias = nn.Parameter(torch.zeros(1, n))

        def forward(self, x):
            b = self.bias.squeeze()
            return x + b


    class Sub(Layer):
        def __init__(self, n):
            super().__init__()
            self.inner = Inner(n)


    class Net(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.sub = Sub(n)

        def forward(self, x):
            return self.sub(x)
    """
NESTED = """\
    import torch
    import torch.nn as nn


    class Layer(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.bias = nn.Parameter(torch.zeros(1, n))

        def forward(self, x):
            flat = lambda t: t.squeeze()
            return x + flat(self.bias)
    """
NESTED_USER = """\
    import torch.nn as nn

    from .base import Layer


    class Net(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.layer = Layer(n)

        def forward(self, x):
            return self.layer(x)
    """


def _diagnostics(tmp_path, base: str, user: str):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "base.py").write_text(textwrap.dedent(base))
    path = pkg / "user.py"
    text = textwrap.dedent(user)
    path.write_text(text)
    return [(d.line, d.code, d.message) for d in analyze_source(text, str(path)).diagnostics]


def test_this_files_layer_called_from_another_modules_code_is_quoted_from_this_file(tmp_path):
    got = _diagnostics(tmp_path, BASE, USER)
    assert got == [(13, "SH202", "self.bias.squeeze() without a dim also removes n of self.bias [1, n] "
                                 "when it is 1; pass the dim to squeeze")], got


def test_a_lambda_written_in_another_module_stays_that_modules_code(tmp_path):
    got = _diagnostics(tmp_path, NESTED, NESTED_USER)
    assert got == [(12, "SH202", "this call fails in base.py, line 11: t.squeeze() without a dim also "
                                 "removes n of t [1, n] when it is 1; pass the dim to squeeze")], got

