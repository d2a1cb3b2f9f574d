"""The referee counts a construction context that assumes something of the build only where it
checks the assumption true itself (bench/realmodels/assumptions.py): labels made by the server's
own label functions, each form kept when true, dropped when false or uncheckable."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "bench", "realmodels"))
import score  # noqa: E402
from shapehint.analysis import literal_contexts, param_lengths, param_literals  # noqa: E402

SOURCE = '''
class Net:
    def __init__(self, block, layers, stem_type='', depth=2, **kwargs):
        pass

def net18(**kwargs):
    return Net(None, [2, 2], stem_type='deep', **kwargs)
'''

STEM = param_literals.label("Net.__init__", "stem_type", "deep")
LAYERS = param_lengths.label("Net.__init__", "layers", 2)
IMPL = literal_contexts.label("Net.__init__", "impl", "plain")


def keep(label, build, config=None):
    return label in score.confirmed(frozenset({label, "Net.__init__"}), config or {}, build, SOURCE)


def test_the_server_labels_parse_to_the_names_the_referee_checks():
    for lab in (STEM, LAYERS, IMPL):
        assert score.parse_context(lab.replace(" assuming", ":12 assuming", 1) + " via Top.forward:3") == (lab, 12)


def test_an_unassuming_context_is_always_kept():
    assert score.confirmed(frozenset({"Net.__init__", "net18"}), {}, "", "") == {"Net.__init__", "net18"}


def test_a_configuration_literal_is_checked_against_the_built_configuration():
    assert keep(IMPL, "Net(None, [1])", {"impl": "plain"})
    assert not keep(IMPL, "Net(None, [1])", {"impl": "fast"})
    assert not keep(IMPL, "Net(None, [1])", {})


@pytest.mark.parametrize("build,kept", [
    ("Net(None, [1, 1], stem_type='deep')", True),
    ("Net(None, [1, 1], 'deep')", True),                    # by position, through the file's __init__
    ("models.Net(None, [1], stem_type='deep')", True),
    ("Net(None, [1, 1], stem_type='deep_tiered')", False),
    ("Net(None, [1, 1])", False),                           # the default: not what the label assumes
    ("Net(None, [1, 1], stem_type=STEM)", False),           # a name the referee does not evaluate
    ("Net(None, [1, 1], **{'stem_type': 'deep'})", False),
    ("Net(*args)", False),
    ("net18()", False),                                     # a factory passes it: not the build's own
    ("Net(None, [1], stem_type='deep', head=Net(None, [1]))", False),  # every call of the class
])
def test_a_keyword_literal_is_kept_only_where_the_build_passes_it(build, kept):
    assert keep(STEM, build) is kept


@pytest.mark.parametrize("build,kept", [
    ("Net(None, depth=3)", True),
    ("Net(None, depth=2)", False),
    ("Net(None, depth=True)", False),   # a bool is not the int the label quotes
    ("Net(None, depth='3')", False),
])
def test_an_int_literal_is_checked_by_value_and_type(build, kept):
    label = "Net.__init__ assuming depth == 3"
    assert (label in score.confirmed(frozenset({label}), {}, build, SOURCE)) is kept


@pytest.mark.parametrize("build,kept", [
    ("Net(None, [1, 1])", True),
    ("Net(None, layers=(3, 4))", True),
    ("Net(block=None, layers=[1, 1, 1])", False),
    ("Net(None, [*more, 1])", False),
    ("Net(None, LAYERS)", False),
    ("Net(None)", False),                 # a default is not what the build passes
    ("net18()", False),
])
def test_a_length_is_kept_only_where_the_build_passes_a_literal_of_that_length(build, kept):
    assert keep(LAYERS, build) is kept


def test_a_position_needs_the_class_s_own_init_in_the_file():
    assert not score.confirmed(frozenset({STEM}), {}, "Net(None, [1, 1], 'deep')", "")
    assert score.confirmed(frozenset({STEM}), {}, "Net(None, [1, 1], stem_type='deep')", "") == {STEM}


@pytest.mark.parametrize("label", [
    "Net.__init__ assuming config.depth == 3",        # a configuration int: not among the strings
    "Net.__init__ assuming len(config.layers) == 2",
    "Net.__init__ assuming stem.kind == 'deep'",
    "Net.__init__ assuming stem_type != 'deep'",
    "net18 assuming stem_type == 'deep'",             # no class whose call could be read
])
def test_any_other_form_is_dropped(label):
    assert score.confirmed(frozenset({label}), {"depth": 3, "layers": [1, 1]},
                           "Net(None, [1, 1], stem_type='deep', depth=3)", SOURCE) == frozenset()


BOTH = param_lengths.both(STEM, "layers", 2)  # a string's literal and the required sequence's length


def test_a_label_of_two_assumptions_parses_whole():
    assert score.parse_context(BOTH.replace(" assuming", ":12 assuming", 1) + " via Top.forward:3") == (BOTH, 12)


@pytest.mark.parametrize("build,kept", [
    ("Net(None, [1, 1], stem_type='deep')", True),
    ("Net(None, layers=(3, 4), stem_type='deep')", True),
    ("Net(None, [1, 1])", False),                         # the literal is not passed
    ("Net(None, [1, 1, 1], stem_type='deep')", False),    # another length
    ("Net(None, LAYERS, stem_type='deep')", False),
])
def test_two_assumptions_are_kept_only_where_both_hold(build, kept):
    assert keep(BOTH, build) is kept
