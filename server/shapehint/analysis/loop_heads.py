"""When a loop of unknown count has settled (controlflow `_loop_once`): what its body reads at
its head is what the last pass started from, and reads as it did then.

A pass may learn the rank of a tensor the head reads (`hidden_states` of `[B, T, *ids, C]` going
into a decoder layer whose attention learns `ids` empty): the values are the same objects, but
they now read `[B, T, C]`, and what the pass recorded before it learned that is in the
segment's terms (`[B, *?]` for the heads' transpose). Another pass, from the values as they now
read, records the shapes every pass has (issue 28: Mistral's and Llama's attention lines)."""
from __future__ import annotations

from ..shapes.values import TensorV


def shapes_read(it, env: dict, exposed) -> dict:
    """name -> the shape each tensor the head reads has now."""
    return {k: it.resolve(v) for k in exposed if isinstance(v := env.get(k), TensorV)}


def start_pass(it, env: dict, cur: dict, exposed) -> dict:
    """The frame's `env` set to `cur`, where a pass starts; `shapes_read` there."""
    env.clear()
    env.update(cur)
    return shapes_read(it, cur, exposed)


def settled(it, grew: bool, joined: dict, cur: dict, exposed, read: dict) -> bool:
    """Whether another pass would start from what this one did (`read`: `shapes_read` of `cur`
    when it began)."""
    return not grew and all(joined.get(k) is cur.get(k) for k in exposed) \
        and shapes_read(it, cur, exposed) == read
