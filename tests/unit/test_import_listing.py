"""Workspace modules are found from directory listings shared by analyses (imports._listing),
valid while a directory's mtime is unchanged; a listing made within RACY_S of that mtime is not
kept, since a coarse timestamp may hide a file made in the same tick."""
import os
import time

from shapehint.analysis import imports
from shapehint.analysis.api import analyze_source

USE = '''import torch
from helpers import widen


def f(x: "torch.Tensor"):
    return widen(torch.zeros(2, 3)) @ torch.zeros(5, 4)
'''


def _age(path, seconds: float = 10.0) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def _codes(main) -> list:
    return [d.code for d in analyze_source(main.read_text(), str(main)).diagnostics]


def test_a_module_made_after_an_analysis_is_found_by_the_next(tmp_path):
    main = tmp_path / "main.py"
    main.write_text(USE)
    _age(tmp_path)
    assert "SH102" not in _codes(main) and "SH103" not in _codes(main)  # helpers unknown: no error
    assert str(tmp_path) in imports._LISTINGS  # an old directory's listing is kept
    (tmp_path / "helpers.py").write_text("import torch\n\n\ndef widen(t):\n    return torch.cat([t, t], dim=1)\n")
    _age(tmp_path, 5.0)  # the new entry changed the mtime
    # widen gives [2, 6], which does not fit [5, 4]
    assert "SH103" in _codes(main) or "SH101" in _codes(main)


def test_a_listing_made_right_after_a_change_is_not_kept(tmp_path):
    (tmp_path / "main.py").write_text("x = 1\n")
    os.utime(tmp_path, None)  # changed just now
    imports._LISTINGS.pop(str(tmp_path), None)
    assert "main.py" in imports._listing(str(tmp_path))
    assert str(tmp_path) not in imports._LISTINGS


def test_names_match_case_sensitively(tmp_path):
    (tmp_path / "Helpers.py").write_text("x = 1\n")
    main = tmp_path / "main.py"
    main.write_text("import helpers\n")
    _age(tmp_path)
    it = imports.Importer(None, str(main), {})
    assert it.find("helpers", 0) is None and it.find("Helpers", 0) == str(tmp_path / "Helpers.py")
