"""An imported module's top-level `if` the analysis cannot decide, one arm of which reads an
import (`BlockMask = torch.Tensor` where a feature is missing, transformers' masking_utils):
reading resolves the lazy import in that arm's names only, so the arms leave the import and
what it resolved to. Their join is that value (imports.read_alike), not unknown — which had made
every `torch.X` in the module's functions unknown. An arm that binds the name to something else
still joins as before. Checked against torch by running the same package."""
import torch

from shapehint.analysis.api import analyze_source

from .program_runs import run_package, write_package


def _files(other_arm: str) -> dict:
    return {
        "lazy/__init__.py": "",
        "lazy/env.py": "def feature():\n    return False\n",
        "lazy/helpers.py": f"""import torch
from .env import feature

if feature():
    from torch.nn.functional import relu as act
else:
    {other_arm}


def twice(x):
    return torch.cat([x, x])
""",
        "lazy/m.py": """import torch
from .helpers import twice


def run(x):
    assert x.shape == (3, 4)
    y = twice(x)
    return y
""",
    }


def _y(path):
    r = analyze_source(path.read_text(), str(path))
    return {v["name"]: v["shape"] for v in r.infer_json()["values"] if v["function"] == "run"}.get("y")


def test_an_import_read_on_one_arm_only_is_still_the_import_after_the_if(tmp_path):
    path = write_package(tmp_path, _files("act = torch.Tensor"))
    want = list(run_package(tmp_path, "lazy.m", torch.randn(3, 4)).shape)
    assert _y(path) == want == [6, 4]


def test_an_import_no_arm_reads_is_followed_as_before(tmp_path):
    path = write_package(tmp_path, _files("act = None"))
    assert _y(path) == [6, 4]
