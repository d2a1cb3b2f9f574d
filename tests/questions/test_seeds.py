"""The seeds' own examples (ECOOP'24 Listings 1-8, Tensors Fitting Perfectly Listing 1 and
holes, Relax Tests A, B, C, E). Migrations and branch decisions are judged by executing them
with PyTorch, not by matching the paper's particular values."""
import random

import torch

from shapehint.questions.branches import answer_branches
from shapehint.questions.edits import apply_edits, eliminate_branch_edits
from shapehint.questions.holes import answer_holes
from shapehint.questions.migrate import answer_migration

from .helpers import line_of, load, namespace


def errors(session):
    return [d for d in session.result.diagnostics if d.severity == "error"]


def test_listing1_rank_two_input_to_conv_is_an_error():
    text, r = load("ecoop_listing1.py")
    errs = errors(r)
    assert [d.line for d in errs] == [line_of(text, "self.conv1(x)")]
    assert errs[0].code == "SH102" and "2D" in errs[0].message
    mig = answer_migration(r)[0]
    assert mig["status"] == "none"


def test_listing2_no_static_migration_and_dim1_only_dyn():
    text, r = load("ecoop_listing2.py")
    errs = errors(r)
    assert [d.line for d in errs] == [line_of(text, "return self.conv2(x)")]
    assert "4" in errs[0].message and "2" in errs[0].message
    assert line_of(text, "self.conv1(x)") in [rel.line for rel in errs[0].related]
    mig = answer_migration(r)[0]
    assert mig["status"] == "none"
    x = mig["params"][0]
    assert x["dyn_dims"] == [1] and x["reason"]
    with torch.no_grad():  # executing confirms: no channel count satisfies both convolutions
        model = namespace(text)["ConvExample"]()
        for c in (2, 4):
            try:
                model(torch.randn(1, c, 8, 8))
            except RuntimeError:
                continue
            raise AssertionError("a static migration exists after all")


def test_listing3_static_migration_runs():
    text, r = load("ecoop_listing3.py")
    mig = answer_migration(r)[0]
    assert mig["status"] == "static"
    shape = mig["params"][0]["shape"]
    assert shape[1] == 4 and all(isinstance(d, int) for d in shape)
    namespace(text)["ConvExample"]()(torch.randn(*shape))


def test_listing4_migration_under_range_constraints_runs():
    text, r = load("ecoop_listing3.py")
    assume = ["ConvExample.forward: 5 <= x.shape[0] <= 20", "5 <= x.shape[2] <= 20", "5 <= x.shape[3] <= 20"]
    mig = answer_migration(r, assume)[0]
    assert mig["status"] == "static"
    shape = mig["params"][0]["shape"]
    assert 5 <= shape[0] <= 20 and shape[1] == 4 and 5 <= shape[2] <= 20 and 5 <= shape[3] <= 20
    namespace(text)["ConvExample"]()(torch.randn(*shape))


def test_migration_under_impossible_constraints_shows_the_clash():
    text, r = load("ecoop_listing3.py")
    mig = answer_migration(r, ["x.shape[1] == 3"])[0]
    assert mig["status"] == "none"
    assert mig["clash"] and "x.shape[1] == 3" in mig["clash"][-1]["message"]


def _decision(text, r, needle):
    line = line_of(text, needle)
    return next(b for b in answer_branches(r) if b["line"] == line)


def test_listing5_rank_branch_is_always_true_and_eliminates():
    text, r = load("ecoop_listing5.py")
    b = _decision(text, r, "if self.conv(x).dim() == 4")
    assert b["status"] == "always-true" and b["witnesses"]["false"] is None
    import ast
    node = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.If))
    new = apply_edits(text, eliminate_branch_edits(text, node, keep_body=True))
    assert "if self.conv" not in new and "# the convolution keeps the rank" in new
    model = namespace(new)["ConvControlFlow"]()
    x = torch.randn(1, 512, 5, 5)
    assert torch.equal(model(x), torch.relu(x))


def test_listing7_reshape_branch_is_always_false_for_admissible_inputs():
    text, r = load("ecoop_listing7.py")
    b = _decision(text, r, "if x.reshape(100)")
    assert b["status"] == "always-false"
    rng = random.Random(7)
    for _ in range(5):  # every admissible input (100 elements) takes the else arm
        dims = rng.choice([(100,), (4, 25), (2, 5, 10), (10, 10)])
        x = torch.randn(*dims)
        assert not (x.reshape(100).size()[0] < 100)
    import ast
    node = next(n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.If))
    new = apply_edits(text, eliminate_branch_edits(text, node, keep_body=False))
    assert "return torch.relu(x)" in new and "dropout" not in new
    compile(new, "<listing8>", "exec")


def test_tfp_listing1_failing_assert_and_hole_320():
    text, r = load("tfp_listing1.py")
    errs = errors(r)
    assert line_of(text, "# !!!!") in [d.line for d in errs]
    assert next(d for d in errs if d.line == line_of(text, "# !!!!")).code == "SH108"
    holes = answer_holes(r)
    assert [(h["status"], h["value"]) for h in holes] == [("unique", 320)]
    # filling the hole makes the model run (with the provably failing assert set aside)
    fixed = text.replace("nn.Linear(__, 10)", "nn.Linear(320, 10)").replace(
        "assert m.shape == (batch_size, 5, 16, 16)  # !!!!", "pass")
    ns = namespace(fixed)
    assert ns["Model"]()(torch.zeros(12, 3, 32, 32)).shape == (12, 10)


def test_tfp_holes_unique_and_unbounded():
    text, r = load("tfp_holes.py")
    holes = answer_holes(r)
    assert holes[0]["status"] == "unique" and holes[0]["value"] == 10
    assert holes[1]["status"] == "range" and holes[1]["lo"] == 1 and holes[1]["hi"] is None
    for k in holes[1]["examples"]:
        torch.matmul(torch.randn(20, 10), torch.randn(10, k))


def _value(r, function, name):
    vals = [v for v in r.result.infer_json()["values"] if v["function"] == function and v["name"] == name]
    assert vals, (function, name)
    return vals[-1]["shape"]


def test_relax_a_ground_shapes_propagate_across_calls():
    text, r = load("relax_ff.py")
    assert _value(r, "test_a", "b") == [32]
    assert tuple(namespace(text)["test_a"]().shape) == (32,)


def test_relax_b_ill_shaped_call_is_an_error_with_the_call_related():
    text, r = load("relax_ff.py")
    errs = errors(r)
    assert len(errs) == 1
    err = errs[0]
    assert err.line == line_of(text, "assert m4 % 4 == 0")
    assert "15" in err.message
    call = line_of(text, "b = ff(a)", line_of(text, "def test_b"))
    assert call in [rel.line for rel in err.related]


def test_relax_c_symbolic_shapes_propagate_simplified():
    text, r = load("relax_ff.py")
    assert _value(r, "test_c", "b") == ["4*k"]


def test_relax_e_asserted_form_names_the_result():
    text, r = load("relax_ff.py")
    assert _value(r, "test_e", "b") == ["64*k"]


def test_branch_kinds_with_executed_witnesses():
    text, r = load("branchy.py")
    got = {b["condition"]: b for b in answer_branches(r)}
    assert got["x.dim() == 3"]["status"] == "always-true"
    assert got["x.size(1) < 1000"]["status"] == "always-true"  # implied by the assert
    for cond in ("x.size(1) < 100", "T % 2 == 0", "x.shape[1] == y.shape[1]"):
        assert got[cond]["status"] == "depends", cond
    model = namespace(text)["Branchy"]()
    for cond, b in got.items():
        for outcome, shapes in b["witnesses"].items():
            if shapes is None:
                continue
            x = torch.randn(*shapes["x"])
            y = torch.randn(*shapes["y"])
            T = x.shape[1]
            assert bool(eval(cond, {"x": x, "y": y, "T": T})) == (outcome == "true"), (cond, outcome, shapes)
            model(x, y)  # the witness is an admissible input: the model runs on it
    rng = random.Random(3)
    for _ in range(20):  # decided branches hold for random admissible inputs
        x = torch.randn(rng.randint(1, 3), rng.randint(1, 512), 64)
        assert x.dim() == 3 and x.size(1) < 1000


def test_assume_decides_a_depending_branch():
    text, r = load("branchy.py")
    got = {b["condition"]: b for b in answer_branches(r, ["Branchy.forward: x.shape[1] >= 200"])}
    assert got["x.size(1) < 100"]["status"] == "always-false"
