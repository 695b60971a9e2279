"""Feature-hashing embedder: instant, deterministic and dependency-free, for tests only.

It has no notion of meaning, only of shared words, which is exactly what tests of storage and
ranking need: "texts that share words are closer" is predictable without loading a model.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence

import numpy as np

from memlane.embed.base import Vectors, l2_normalise

_WORD = re.compile(r"\w+")
#: hashed for texts without a single word, so every vector still has unit length (a zero
#: vector has no cosine, and pgvector answers NaN for it)
_EMPTY_FEATURE = "\x00empty"


def _features(text: str) -> list[str]:
    """Unigrams carry the shared-word signal; bigrams make word order matter a little, so
    "dog bites man" and "man bites dog" are close but not identical. Prefixes keep a unigram
    from ever hashing like a bigram with the same characters."""
    words = _WORD.findall(text.lower())
    if not words:
        return [_EMPTY_FEATURE]
    return [f"u:{w}" for w in words] + [f"b:{a} {b}" for a, b in itertools.pairwise(words)]


class HashingEmbedder:
    """blake2b picks the dimension and the sign of each feature; the sign keeps unrelated
    features' collisions from adding up to a spurious positive similarity."""

    provider = "hashing"

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 1:
            raise ValueError("dimension must be at least 1")
        self.dimension = dimension
        self.model_id = f"hashing-{dimension}"

    def embed_sync(self, texts: Sequence[str]) -> Vectors:
        """Synchronous twin of :meth:`embed` for tests that are not async."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature in _features(text):
                digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self.dimension
                out[row, index] += 1.0 if digest[4] & 1 else -1.0
            if not out[row].any():
                # every feature cancelled out (possible only in tiny dimensions)
                digest = hashlib.blake2b(_EMPTY_FEATURE.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self.dimension] = 1.0
        return l2_normalise(out)

    async def embed(self, texts: Sequence[str]) -> Vectors:
        return self.embed_sync(texts)

    async def aclose(self) -> None:
        """Holds no resources."""
