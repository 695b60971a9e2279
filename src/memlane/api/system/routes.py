"""Service endpoints every surface shares: health, index, metrics."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from memlane import __version__
from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import ServicesDep
from memlane.api.system import responses as s

router = APIRouter(route_class=JsonBodyRoute, tags=["system"])


@router.get(
    "/health",
    response_model=s.Health,
    responses={503: {"model": s.Health, "description": "the store does not answer"}},
    summary="Liveness and store health",
)
async def health(svc: ServicesDep) -> JSONResponse:
    db_ok = await svc.store.ping()
    body: dict[str, Any] = {
        "status": "healthy" if db_ok else "unhealthy",
        "sdk_initialized": db_ok,
        "service": "memlane",
        "version": __version__,
        "backend": svc.store.backend,
        "embedding": {
            "provider": svc.embedder.provider,
            "model": svc.embedder.model_id,
            "dimension": svc.embedder.dimension,
        },
        "worker": "in-process" if svc.settings.worker.in_process else "external",
        # due queued jobs (as of at most 0.25 s ago) and the bound beyond which writes get 503
        "backlog": {
            "jobs": await svc.backlog.backlog() if db_ok else None,
            "limit": svc.settings.writes.backlog_max,
        },
    }
    if svc.reads is not None and svc.reads.has_replicas:
        # a replica out of rotation leaves the service healthy: its reads go to the primary
        body["replicas"] = [{"name": r.name, "state": r.state, "lag_ms": r.lag_ms} for r in svc.reads.replicas()]
    return JSONResponse(body, status_code=200 if db_ok else 503)


@router.get("/", response_model=s.Index, summary="API information")
async def index() -> s.Index:
    return {
        "name": "memlane",
        "version": __version__,
        "description": "Self-hosted long-term memory server for AI agents",
        "endpoints": {
            "docs": "/docs",
            "redoc": "/redoc",
            "openapi": "/openapi.json",
            "health": "/health",
            "metrics": "/metrics",
            "graph": ["/v1/memory/write", "/v1/memory/recall", "/v1/memory/recall_text"],
            "api": "/api/v1",
            "conversation": [
                "/api/v1/memories",
                "/api/v1/memories/query",
                "/api/v1/memories/{memory_id}",
                "/api/v1/memories/{memory_id}/evolution",
                "/api/v1/agent/memories",
                "/api/v1/agent/summaries",
                "/api/v1/memory-batcher/messages",
                "/api/v1/tasks/{task_id}",
                "/api/v1/system/pool-stats",
            ],
        },
    }
