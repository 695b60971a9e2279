"""Turns settings into an embedder, so the server and the CLI pick providers the same way."""

from __future__ import annotations

from memlane.config import Settings
from memlane.embed.base import Embedder


def build_embedder(settings: Settings) -> Embedder:
    """Imports lazily so a deployment using one provider never loads another's dependencies
    (the local model pulls in onnxruntime and reads 22 MB at construction)."""
    embedding = settings.embedding
    if embedding.embedder == "local":
        from memlane.embed.local import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder(
            batch_size=embedding.batch_size,
            intra_op_num_threads=embedding.threads,
            background_nice=embedding.background_nice,
        )
    if embedding.embedder == "openai":
        if not embedding.base_url:
            raise ValueError(
                "MEMLANE_EMBEDDER=openai needs MEMLANE_EMBEDDING_BASE_URL, the base URL of an "
                "OpenAI-compatible API such as https://api.openai.com/v1 or http://localhost:11434/v1"
            )
        from memlane.embed.openai_http import OpenAIEmbedder

        return OpenAIEmbedder(
            base_url=embedding.base_url,
            model=embedding.model,
            dimension=embedding.dimension,
            api_key=embedding.api_key,
            timeout_sec=embedding.timeout_sec,
            batch_size=embedding.batch_size,
        )
    if embedding.embedder == "hashing":
        from memlane.embed.hashing import HashingEmbedder

        return HashingEmbedder(dimension=embedding.hashing_dimension)
    raise ValueError(f"unknown MEMLANE_EMBEDDER {embedding.embedder!r}; expected 'local', 'openai' or 'hashing'")
