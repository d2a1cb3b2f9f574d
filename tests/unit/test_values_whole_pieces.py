"""Pieces of an unknown count are whole again when concatenated along their axis (ops/pieces.py:
`ListV.whole`, kept by `zip` of the pieces alone, `tuple` of them and a comprehension without a
filter, forgotten on a write; `whole_again` in `torch.cat`). The program is
tests/unit/values/whole_pieces.py; each claimed shape is compared with torch's, and the lists
that are not one item per piece (a piece repeated, filtered, appended, doubled) keep the axis
unknown — where torch's answer differs from the input's."""
import pytest

from shapehint.ops.pieces import each_piece, forget, whole_again
from shapehint.shapes.expr import Expr
from shapehint.shapes.shape import Shape
from shapehint.shapes.values import ListV, TensorV, TupleV

from .values import answer, program


def _y(function):
    got = [v for v in answer("whole_pieces")["values"] if v["function"] == function and v["name"] == "y"]
    assert len(got) == 1, got
    return got[0]["shape"]


def _run(function, *args):
    import torch
    return list(getattr(program("whole_pieces"), function)(torch.randn(2, 7, 3), *args).shape)


@pytest.mark.parametrize("function,arg,claimed,observed", [
    ("through_helper", 2, ["b", "t", "2*d"], [2, 7, 6]),
    ("through_helper", 0, ["b", "t", "2*d"], [2, 7, 6]),
    ("mapped", 3, ["b", "t", "2*d"], [2, 7, 6]),
    ("split_again", 2, ["b", "t", "d"], [2, 7, 3]),
    ("moved_axis", 3, ["b", "d", "t"], [2, 3, 7])])
def test_the_pieces_concatenated_are_as_long_as_the_whole(function, arg, claimed, observed):
    assert _y(function) == claimed
    assert _run(function, arg) == observed


@pytest.mark.parametrize("function,observed", [
    ("first_repeated", [2, 9, 3]), ("filtered", [2, 6, 3]), ("appended", [2, 10, 3]), ("doubled", [2, 14, 3])])
def test_a_list_that_is_not_one_item_per_piece_is_not_whole(function, observed):
    # chunk(3) of 7: pieces of 3, 3 and 1; none of these lists concatenates to 7
    assert _y(function)[1] == "?"
    assert _run(function, 3) == observed


class _Cx:
    def const_int(self, v):
        return v

    def tensor(self, dims, like=None):
        return TensorV(Shape(tuple(dims)))


def _pieces(total="t"):
    p = Expr.sym("piece_1")
    return ListV(None, TensorV(Shape((Expr.sym("b"), p))), whole=(p, Expr.sym(total)))


def test_whole_again_needs_the_piece_alone_on_the_axis():
    assert whole_again(_Cx(), _pieces(), 1).shape.dims[1] == Expr.sym("t")
    assert whole_again(_Cx(), _pieces(), -1).shape.dims[1] == Expr.sym("t")
    assert whole_again(_Cx(), _pieces(), 0) is None  # (the axis holding the piece is 1)
    twice = _pieces()
    twice.elem = TensorV(Shape((Expr.sym("piece_1"), Expr.sym("piece_1"))))
    assert whole_again(_Cx(), twice, 1) is None
    plain = ListV(None, _pieces().elem)
    assert whole_again(_Cx(), plain, 1) is None


def test_a_comprehension_item_gets_a_piece_of_its_own_and_a_write_forgets():
    src = _pieces()
    src.elem = TupleV((src.elem,))  # (zip of the pieces alone)
    elem, whole = each_piece(src, src.elem, lambda: Expr.sym("piece_9"))
    assert elem.items[0].shape.dims[1] == Expr.sym("piece_9") and whole == (Expr.sym("piece_9"), Expr.sym("t"))
    forget(src)
    assert src.whole is None and each_piece(src, src.elem, lambda: Expr.sym("piece_10")) == (src.elem, None)
