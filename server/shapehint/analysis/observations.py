"""The observations of one record (sink.py): each value a name at a span took, with its calling
context, kept up to a cap; a construction context's repeated shapes once each."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ..shapes.values import Span, TensorV
from .frames import BuiltContext
from .journal import Journal

MAX_OBSERVATIONS = 64  # kept per record (past it, a join claims no size: `contexts.sizes_unknown`)
MAX_BUILT_OBSERVATIONS = 256  # distinct ones of construction contexts kept besides


@dataclass
class Observations:
    """What one record (a name at a span, of one kind) observed: each execution's value and
    context, up to a cap."""

    span: Span
    name: str
    function: str
    is_target: bool
    kind: str
    # [(context, is_entry, value, iteration label, the call's parameters: contexts.own_names)]
    obs: list = field(default_factory=list)
    owners: list = field(default_factory=list)  # root analysis that made each observation
    layer_io: Optional[str] = None
    layer_io_owner: str = ""  # the root analysis that set layer_io
    dropped: bool = False  # observations past the cap were not kept
    dropped_built: set = field(default_factory=set)  # construction contexts that lost some
    built_seen: set = field(default_factory=set)  # (context, iteration, shape, dtype) kept

    def span_key(self) -> tuple:
        return self.span, self.function, self.name, self.is_target

    def observed(self, journal: Journal, o: tuple, owner: str) -> bool:
        """Keep `o`; False when it is past the cap (and was not kept)."""
        if isinstance(o[0], BuiltContext) and isinstance(o[2], TensorV):
            # the parts of a model built alike in several factories (built.py) repeat shapes:
            # each once, so that every factory's stays whole within the cap
            key = (o[0], o[3], o[2].shape, o[2].dtype)
            if key in self.built_seen:
                return True
            journal.note("record")
            self.built_seen.add(key)
            if len(self.built_seen) <= MAX_BUILT_OBSERVATIONS:
                self.obs.append(o)
                self.owners.append(owner)
                return True
        elif len(self.obs) - min(len(self.built_seen), MAX_BUILT_OBSERVATIONS) < MAX_OBSERVATIONS:
            journal.note("record")
            self.obs.append(o)
            self.owners.append(owner)
            return True
        if not self.dropped:
            journal.note("record")
            self.dropped = True
        if isinstance(o[0], BuiltContext) and o[0] not in self.dropped_built:
            journal.note("record")
            self.dropped_built.add(o[0])
        return False

    def forget_built(self, prefix: str) -> bool:
        """Forget the observations of the construction contexts labelled `prefix...`: whether any went."""
        def theirs(context) -> bool:
            return isinstance(context, BuiltContext) and context.startswith(prefix)
        if not any(theirs(o[0]) for o in self.obs):
            return False
        kept = [(o, w) for o, w in zip(self.obs, self.owners) if not theirs(o[0])]
        self.obs, self.owners = [o for o, _ in kept], [w for _, w in kept]
        self.built_seen = {k for k in self.built_seen if not theirs(k[0])}
        return True
