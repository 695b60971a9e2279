"""Responses of the service endpoints every surface shares (api/system.py)."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

from memlane.api.responses_common import closed


@closed
class EmbeddingInfo(TypedDict):
    provider: str
    model: str
    dimension: int


@closed
class Health(TypedDict):
    """200 when the store answers, 503 (same body, ``unhealthy``) when it does not."""

    status: Literal["healthy", "unhealthy"]
    sdk_initialized: bool
    service: str
    version: str
    backend: str
    embedding: EmbeddingInfo
    worker: Literal["in-process", "external"]


@closed
class Endpoints(TypedDict):
    docs: str
    redoc: str
    openapi: str
    health: str
    metrics: str
    graph: list[str]
    api: str
    conversation: list[str]


@closed
class Index(TypedDict):
    name: str
    version: str
    description: str
    endpoints: Endpoints
