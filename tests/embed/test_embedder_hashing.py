"""HashingEmbedder: the properties other tests rely on when they use it as a stand-in model."""

from __future__ import annotations

import numpy as np

from memlane.config import Settings
from memlane.embed.base import Embedder
from memlane.embed.factory import build_embedder
from memlane.embed.hashing import HashingEmbedder


async def test_same_text_gives_the_same_vector_across_instances() -> None:
    texts = ["The quick brown fox", "jumps over the lazy dog"]
    first = await HashingEmbedder().embed(texts)
    second = await HashingEmbedder().embed(texts)
    np.testing.assert_array_equal(first, second)


async def test_case_and_punctuation_do_not_matter() -> None:
    vectors = await HashingEmbedder().embed(["Hello, World!", "hello world"])
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-7)


async def test_texts_sharing_words_are_closer_than_texts_sharing_none() -> None:
    vectors = await HashingEmbedder().embed(
        ["the user likes green tea", "green tea is what the user drinks", "compile the rust crate"]
    )
    shared = float(vectors[0] @ vectors[1])
    disjoint_words = float(vectors[1] @ vectors[2])
    assert shared > 0.2
    assert shared > disjoint_words


async def test_word_order_changes_the_vector_a_little() -> None:
    vectors = await HashingEmbedder().embed(["dog bites man", "man bites dog"])
    similarity = float(vectors[0] @ vectors[1])
    assert 0.3 < similarity < 0.999


async def test_vectors_are_unit_length_even_for_text_without_words() -> None:
    vectors = await HashingEmbedder(dimension=64).embed(["", "...", "words here"])
    assert vectors.shape == (3, 64)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_identity_reflects_dimension() -> None:
    embedder = HashingEmbedder(dimension=128)
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dimension, embedder.provider) == ("hashing-128", 128, "hashing")


def test_factory_builds_hashing_with_configured_dimension() -> None:
    embedder = build_embedder(Settings(MEMLANE_EMBEDDER="hashing", MEMLANE_HASHING_DIMENSION=96))
    assert isinstance(embedder, HashingEmbedder)
    assert embedder.dimension == 96
