"""Whether two words name one topic by meaning, not spelling: "insulin jab" and "injections",
"broadband" and "fibre", "manager" and "boss" (the topic test of closing by succession,
topic_change.py; issue #27).

Two words are one topic when the server's own sentence embedder (local MiniLM) puts them at a
cosine of at least :data:`WORD_COSINE`. The embedder is the write path's bottleneck, so a word
is embedded once (an LRU cache of :data:`CAPACITY` words per ingestion service), and only the
words the topic test asks about after its cheaper tests left the question open: the test runs
with what is cached (:func:`looking_up`), notes the words it missed, and the caller embeds
those in one batch (:meth:`WordVectors.learn`) and runs the test again.

The topic test is synchronous (pure text); the cache reaches it through a context variable
set for the length of one comparison, so the rule's callers in between (succession.py) need
not carry it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np

from memlane.store.base import Vector

#: the least cosine of two words' MiniLM vectors for one topic; chosen on the tune split and
#: the seen sets (BENCHMARKS.md, "Memory truth", topic by meaning)
WORD_COSINE = 0.35
#: words kept per ingestion service (a 384-float vector each: 1.5 kB)
CAPACITY = 4096
#: the embedder whose word cosines :data:`WORD_COSINE` was chosen for
MODEL_ID = "all-MiniLM-L6-v2"

Embed = Callable[[Sequence[str]], Awaitable[Sequence[Vector]]]


class WordVectors:
    """Word vectors of one embedder, the least recently used left out past ``capacity``."""

    def __init__(self, embed: Embed, *, capacity: int = CAPACITY, threshold: float = WORD_COSINE) -> None:
        self._embed = embed
        self._capacity = capacity
        self.threshold = threshold
        self._cache: OrderedDict[str, Vector] = OrderedDict()

    def get(self, word: str) -> Vector | None:
        vec = self._cache.get(word)
        if vec is not None:
            self._cache.move_to_end(word)
        return vec

    async def learn(self, words: set[str]) -> None:
        """Embed the words not cached yet, in one batch."""
        todo = sorted(w for w in words if w not in self._cache)
        if not todo:
            return
        for word, vec in zip(todo, await self._embed(todo), strict=True):
            self._cache[word] = np.asarray(vec, dtype=np.float32)
            if len(self._cache) > self._capacity:
                self._cache.popitem(last=False)


@dataclass
class Lookup:
    """One run of the topic test: the cache it reads and the words it found missing."""

    vectors: WordVectors
    missing: set[str] = field(default_factory=set)


_LOOKUP: ContextVar[Lookup | None] = ContextVar("memlane_word_lookup", default=None)


@contextmanager
def looking_up(vectors: WordVectors) -> Iterator[Lookup]:
    """Let the topic test compare words by meaning while the block runs; the words it could
    not compare (not cached) are in the lookup's ``missing`` afterwards."""
    lookup = Lookup(vectors)
    token = _LOOKUP.set(lookup)
    try:
        yield lookup
    finally:
        _LOOKUP.reset(token)


def related(old: Mapping[str, str], new: Mapping[str, str]) -> set[tuple[str, str]]:
    """The pairs (a key of ``old``, a key of ``new``) whose words (the values) are one topic
    by meaning; empty outside :func:`looking_up` (then words match by spelling only)."""
    lookup = _LOOKUP.get()
    if lookup is None or not old or not new:
        return set()
    vectors = {w: lookup.vectors.get(w) for w in {*old.values(), *new.values()}}
    missed = {w for w, v in vectors.items() if v is None}
    if missed:
        lookup.missing |= missed
        return set()
    out = set()
    for a, wa in old.items():
        for b, wb in new.items():
            va, vb = vectors[wa], vectors[wb]
            if va is not None and vb is not None and float(va @ vb) >= lookup.vectors.threshold:
                out.add((a, b))
    return out
