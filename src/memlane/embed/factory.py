"""Turns settings into an embedder, so the server and the CLI pick providers the same way."""

from __future__ import annotations

from memlane.config import Settings
from memlane.embed.base import Embedder


def build_embedder(settings: Settings) -> Embedder:
    """Imports lazily so a deployment using one provider never loads another's dependencies
    (the local model pulls in onnxruntime and reads 22 MB at construction)."""
    if settings.embedder == "local":
        from memlane.embed.local import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder(
            batch_size=settings.embedding_batch_size,
            intra_op_num_threads=settings.embedding_threads,
            background_nice=settings.embedding_background_nice,
        )
    if settings.embedder == "openai":
        if not settings.embedding_base_url:
            raise ValueError(
                "MEMLANE_EMBEDDER=openai needs MEMLANE_EMBEDDING_BASE_URL, the base URL of an "
                "OpenAI-compatible API such as https://api.openai.com/v1 or http://localhost:11434/v1"
            )
        from memlane.embed.openai_http import OpenAIEmbedder

        return OpenAIEmbedder(
            base_url=settings.embedding_base_url,
            model=settings.embedding_model,
            dimension=settings.embedding_dimension,
            api_key=settings.embedding_api_key,
            timeout_sec=settings.embedding_timeout_sec,
            batch_size=settings.embedding_batch_size,
        )
    if settings.embedder == "hashing":
        from memlane.embed.hashing import HashingEmbedder

        return HashingEmbedder(dimension=settings.hashing_dimension)
    raise ValueError(f"unknown MEMLANE_EMBEDDER {settings.embedder!r}; expected 'local', 'openai' or 'hashing'")
