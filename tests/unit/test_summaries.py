"""Function summaries across files: workspace imports, `.pyi` stubs beside the code, annotated
signatures of external functions, and one SH301 note per unknown callee."""
import textwrap

from shapehint.analysis.api import analyze_source


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def infer(path):
    r = analyze_source(path.read_text(), str(path))
    return r, {(v["function"], v["name"]): v["shape"] for v in r.infer_json()["values"]}


def test_stub_beside_the_code_is_a_summary(tmp_path):
    write(tmp_path, "fastops.pyi", '''
        from jaxtyping import Float
        from torch import Tensor

        def mix(x: Float[Tensor, "b n d"], y: Float[Tensor, "b n e"]) -> Float[Tensor, "b n d+e"]: ...
    ''')
    main = write(tmp_path, "main.py", '''
        import torch
        from fastops import mix
        from jaxtyping import Float
        from torch import Tensor


        def f(x: Float[Tensor, "B N 64"], y: Float[Tensor, "B N 32"]):
            z = mix(x, y)
            return z


        def g(x: Float[Tensor, "B N 64"]):
            w = mix(x, torch.zeros(2, 5, 7))
            return w
    ''')
    r, vals = infer(main)
    assert vals[("f", "z")] == ["B", "N", 96]
    assert vals[("g", "w")] == [2, 5, 71]  # the call pins B and N


def test_stub_mismatch_is_an_error_at_the_call(tmp_path):
    write(tmp_path, "fastops.pyi", '''
        from jaxtyping import Float
        from torch import Tensor

        def mix(x: Float[Tensor, "b n d"], y: Float[Tensor, "b n e"]) -> Float[Tensor, "b n d+e"]: ...
    ''')
    main = write(tmp_path, "main.py", '''
        import torch
        from fastops import mix

        a = torch.zeros(2, 3, 4)
        b = torch.zeros(2, 5, 4)
        c = mix(a, b)
    ''')
    r, _ = infer(main)
    errs = [d for d in r.diagnostics if d.severity == "error"]
    assert [d.line for d in errs] == [7] and "mix" in errs[0].message


def test_cross_file_classes_and_errors_against_the_call(tmp_path):
    write(tmp_path, "blocks.py", '''
        import torch.nn as nn


        class Block(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc = nn.Linear(d, d)

            def forward(self, x):
                return self.fc(x)
    ''')
    main = write(tmp_path, "model.py", '''
        import torch
        import torch.nn as nn
        from blocks import Block


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.a = Block(16)
                self.b = Block(32)

            def forward(self, x):
                h = self.a(x)
                return self.b(h)
    ''')
    r, vals = infer(main)
    # (`[*x, 16]`: nothing in these files calls `Net`, so any rank)
    assert vals[("Net.forward", "h")] == ["*x", 16]
    err = [d for d in r.diagnostics if d.severity == "error"][0]
    assert err.line == 15 and any(rel.file and rel.file.endswith("blocks.py") for rel in err.related)


def test_one_note_per_unknown_callee(tmp_path):
    main = write(tmp_path, "m.py", '''
        import torch
        import mystery

        x = torch.zeros(2, 3)
        a = mystery.blur(x)
        b = mystery.blur(x)
        c = mystery.sharpen(x)
    ''')
    r, vals = infer(main)
    notes = [d for d in r.diagnostics if d.code == "SH301"]
    assert [d.line for d in notes] == [6, 8]
    assert ("<module>", "a") not in vals  # unknown: not known to be a tensor


def test_two_files_that_import_each_others_classes(tmp_path):
    _two_files(tmp_path)


def _two_files(tmp_path):
    write(tmp_path, "layers.py", '''
        import torch.nn as nn


        class Head(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.out = nn.Linear(d, 3)

            def forward(self, x):
                return self.out(x)


        def build():
            from net import Net  # the two modules import each other's classes
            return Net()
    ''')
    main = write(tmp_path, "net.py", '''
        import torch
        import torch.nn as nn
        from layers import Head, build


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(8, 16)
                self.head = Head(16)

            def forward(self, x):
                h = self.body(x)
                return self.head(h)


        model = build()
        y = model(torch.zeros(4, 8))
    ''')
    r, vals = infer(main)
    assert vals[("<module>", "y")] == [4, 3]
    # (its own `[*x, 16]`, the segment filled by its one call, of rank 2: segment_fill.py)
    assert vals[("Net.forward", "h")] == ["x.shape[0]", 16]
    assert not [d for d in r.diagnostics if d.severity == "error"]
    return vals


def test_the_filled_segment_agrees_with_torch(tmp_path):
    import torch
    vals = _two_files(tmp_path)
    scope = {}
    exec(compile((tmp_path / "layers.py").read_text().split("\ndef build")[0], "layers", "exec"), scope)
    net_src = (tmp_path / "net.py").read_text().split("\nmodel = ")[0].replace("from layers import Head, build", "")
    exec(compile(net_src, "net", "exec"), scope)
    with torch.device("meta"):
        net = scope["Net"]()
        seen = []
        net.head.register_forward_hook(lambda m, inp, out: seen.append(list(inp[0].shape)))
        net(torch.zeros(4, 8))
    assert seen == [[4, 16]] and vals[("Net.forward", "h")] == ["x.shape[0]", 16]


def test_an_answer_does_not_depend_on_what_the_process_analysed_before(tmp_path):
    # (the server analyses many files in one process: a warm cache must not carry one into another)
    for d in "abc":
        (tmp_path / d).mkdir()
    first = _two_files(tmp_path / "a")
    test_cross_file_classes_and_errors_against_the_call(tmp_path / "b")
    test_stub_beside_the_code_is_a_summary(tmp_path / "c")
    assert _two_files(tmp_path) == first
