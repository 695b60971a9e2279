"""The debug channel's view of embeddings: a preview and a hash, never the vector itself
(embeddings can be inverted to text). Every surface that shows embeddings shows this."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from memlane.domain.errors import InvalidRequest
from memlane.domain.hashing import sha256_hex
from memlane.domain.model import Node
from memlane.domain.visibility import Viewer
from memlane.services.reading import MemoryReader
from memlane.store.base import Vector

DEBUG_MAX_LIMIT = 20
DEBUG_MAX_SEEDS = 5
DEBUG_PREVIEW_DIMS = 16
DEBUG_MAX_BYTES = 64 * 1024


def check_debug_limit(include_embeddings: bool, limit: int) -> None:
    """Embeddings are shown for small recalls only (``limit`` at most ``DEBUG_MAX_LIMIT``)."""
    if include_embeddings and limit > DEBUG_MAX_LIMIT:
        raise InvalidRequest(
            f"limit must be <= {DEBUG_MAX_LIMIT} when include_embeddings=true (got {limit})",
            code="debug_embeddings_limit_exceeded",
            details={"field": "limit", "max": DEBUG_MAX_LIMIT},
        )


def vector_sha256(vector: Vector) -> str:
    """sha256 of the full vector as JSON text (floats as float32 reads them), for integrity checks."""
    return sha256_hex(json.dumps([float(x) for x in np.asarray(vector, dtype=np.float32)], separators=(",", ":")))


def embedding_preview(vectors: dict[str, Vector], ids: list[str]) -> dict[str, dict[str, Any]]:
    """For at most ``DEBUG_MAX_SEEDS`` of ``ids`` (in order), the length, the first
    ``DEBUG_PREVIEW_DIMS`` values and a sha256 of the whole vector, within ``DEBUG_MAX_BYTES``."""
    out: dict[str, dict[str, Any]] = {}
    for nid in ids:
        vec = vectors.get(nid)
        if vec is None:
            continue
        if len(out) >= DEBUG_MAX_SEEDS:
            break
        out[nid] = {
            "dim": len(vec),
            "preview": [round(float(x), 6) for x in vec[:DEBUG_PREVIEW_DIMS]],
            "sha256": vector_sha256(vec),
        }
    size = len(json.dumps(out).encode())
    if size > DEBUG_MAX_BYTES:
        raise InvalidRequest(
            f"debug embeddings payload is {size} bytes, above the {DEBUG_MAX_BYTES} cap",
            code="debug_embeddings_too_large",
            details={"max_debug_bytes": DEBUG_MAX_BYTES},
        )
    return out


async def debug_embeddings(reader: MemoryReader, viewer: Viewer, nodes: list[Node]) -> list[dict[str, Any]]:
    """The previews of the first seeds' vectors, as recall's ``debug.embeddings`` lists them."""
    previews = embedding_preview(await reader.embeddings(viewer, nodes), [n.id for n in nodes])
    return [{"node_id": nid, **preview} for nid, preview in previews.items()]
