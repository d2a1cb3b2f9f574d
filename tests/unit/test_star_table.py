"""StarTable.keys_at (analysis/star_table.py): the keys an arm opened with, without a copy at
every arm: checked against a copy taken at every watch, over random nested arms."""
import random

from shapehint.analysis.journal import Journal
from shapehint.analysis.star_table import StarTable


def test_no_change_is_none_and_a_change_gives_the_keys_at_the_start():
    t = StarTable(Journal(), "star")
    t["a"] = 1
    w = t.watch()
    t["a"] = 2  # a value written again: the key set is unchanged
    assert t.keys_at(w) is None
    w = t.watch()
    t["b"] = 3
    del t["a"]
    assert t.keys_at(w) == {"a"}
    assert set(t) == {"b"}


def test_nested_watches_agree_with_copies():
    rng = random.Random(7)
    for _ in range(200):
        t = StarTable(Journal(), "star")
        open_: list = []  # (watch, the keys copied when it began)
        for step in range(60):
            r = rng.random()
            if r < 0.25:
                open_.append((t.watch(), set(t)))
            elif r < 0.45 and open_:
                w, copied = open_.pop()  # arms close innermost first
                got = t.keys_at(w)
                assert (set(t) if got is None else got) == copied
            elif r < 0.75:
                t[f"k{rng.randrange(12)}"] = step
            elif r < 0.85:
                t.setdefault(f"k{rng.randrange(12)}", step)
            elif r < 0.95 and t:
                del t[rng.choice(sorted(t))]
            else:
                t.pop(f"k{rng.randrange(12)}", None)
        while open_:
            w, copied = open_.pop()
            got = t.keys_at(w)
            assert (set(t) if got is None else got) == copied
