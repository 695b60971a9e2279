"""Responses of the service endpoints every surface shares (api/system/routes.py)."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from memlane.api.common.responses import closed


@closed
class EmbeddingInfo(TypedDict):
    provider: str
    model: str
    dimension: int


@closed
class Backlog(TypedDict):
    """Due queued jobs (null when the store does not answer) and the bound beyond which writes get 503."""

    jobs: int | None
    limit: int


@closed
class ReplicaHealth(TypedDict):
    """A read replica (``MEMLANE_DATABASE_READ_URLS``): ``host:port``, never credentials; lag
    null when unknown (unreachable, promoted)."""

    name: str
    state: Literal["in_rotation", "lagging", "unreachable", "promoted"]
    lag_ms: float | None


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
    backlog: Backlog
    #: only with read replicas configured (docs/operations.md "Read replicas")
    replicas: NotRequired[list[ReplicaHealth]]


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
