"""A list of Nones repeated a count the analysis lost, under a `-> torch.Tensor` hint
(analysis/sequence_arith.py, analysis/calls.py): tests/unit/values/repeated_lost.py. Before, the
count's loss made the list unknown, the hint made it a tensor of unknown rank, each layer's mask
that tensor, and the stack's output unknown. The claim is checked against torch."""
import pytest

from .values import answer, program


def _out():
    got = [v["shape"] for v in answer("repeated_lost")["values"] if v["function"] == "Stack.forward"
           and v["name"] == "out"]
    assert len(got) == 1, got
    return got[0]


def test_the_mask_of_each_layer_is_none_so_the_stack_keeps_the_input_shape():
    assert _out() == ["*x", "d"]  # the input's leading axes, then the layers' width


def test_a_known_result_overrules_the_return_hint():
    masks = [v for v in answer("repeated_lost")["values"] if v["function"] == "Stack.forward" and v["name"] == "masks"]
    assert masks == []  # a list, no tensor: no record (before: a tensor of unknown rank)


@pytest.mark.parametrize("shape", [(2, 3), (4,), (2, 1, 5)])
def test_the_claim_agrees_with_torch(shape):
    out = program("repeated_lost").run(shape, 6)
    assert list(out.shape) == list(shape) + [6]
