"""The explicit package list in pyproject.toml covers every package of the source tree."""
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_subpackage_is_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT / "server").parts)
             for p in (ROOT / "server" / "shapehint").rglob("__init__.py")}
    assert found <= listed, found - listed
