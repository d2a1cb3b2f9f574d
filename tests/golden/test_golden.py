"""Every program's `infer` and `check` answers equal the committed snapshot (tests/golden/
answers.json, and the interpreter steps each took, steps.json; regenerated with `python tests/golden/snapshot.py` after a reviewed change of
answers)."""
from __future__ import annotations

import importlib.util
import json
import os
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_golden_snapshot", os.path.join(HERE, "snapshot.py"))
snapshot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(snapshot)

with open(snapshot.ANSWERS) as _f:
    GOLDEN = json.load(_f)
with open(snapshot.STEPS) as _f:
    STEPS = json.load(_f)

_TMP = tempfile.mkdtemp(prefix="shapehint-golden-")
PROGRAMS = snapshot.programs() + snapshot.generated(_TMP)


def test_the_snapshot_covers_every_program():
    assert sorted(label for label, _ in PROGRAMS) == sorted(GOLDEN)


@pytest.mark.parametrize("label,path", PROGRAMS, ids=[label for label, _ in PROGRAMS])
def test_answers_and_steps_equal_the_snapshot(label, path):
    answers, steps = snapshot.answers_of(label, path)
    assert answers == GOLDEN[label]
    assert steps == STEPS[label]
