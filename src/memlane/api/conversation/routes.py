"""The conversation surface (``/api/v1``): ingestion, ranked query, notes, evolution chains,
agent fast path, summaries with webhooks, tasks and pool stats. Errors are ``{"detail": ...}``.

``app_id`` is a scope inside the caller's tenant (``X-Tenant-Id`` or the credentials' tenant);
a memory id is the note's node id.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query, Request
from fastapi.responses import JSONResponse

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import ServicesDep, admit_queued_write, authenticated, quota, resolve_tenant
from memlane.api.common.identity import Claims, header_claims, viewer_of
from memlane.api.common.instants import Instant, one_time_question
from memlane.api.common.read_routing import RoutedRead
from memlane.api.conversation import responses as c
from memlane.api.conversation.requests import (
    AddMemoryRequest,
    AgentMemoryRequest,
    BatcherRequest,
    SummaryRequest,
)
from memlane.domain.errors import InvalidRequest
from memlane.domain.inputs import ID_PATTERN, NAME_PATTERN
from memlane.domain.validity import ValidTime
from memlane.domain.visibility import Viewer
from memlane.services.conversation.intake import Callback, Submission, parse_idempotency_key
from memlane.services.conversation.memories import QueryParams, memory_view
from memlane.services.ranking.calibration import CONVERSATION_CUT

router = APIRouter(
    route_class=JsonBodyRoute, prefix="/api/v1", tags=["conversation memory"], dependencies=[Depends(authenticated)]
)

AppId = Annotated[
    str,
    Query(min_length=1, max_length=200, pattern=NAME_PATTERN, description="Application id (a scope in your tenant)"),
]
MemoryId = Annotated[str, Path(min_length=1, max_length=200, pattern=ID_PATTERN)]
#: a user or session id in a query (domain/inputs.py: a name)
NameQ = Annotated[str | None, Query(max_length=200, pattern=NAME_PATTERN)]
#: the user a credential bound to no user acts for (admin or manager role); a key bound to a
#: user may repeat its own
ActingUser = Annotated[
    str | None,
    Query(
        max_length=200,
        pattern=NAME_PATTERN,
        description="The user the request acts for; with auth on, your credentials' user, or any user "
        "with the admin or manager role (docs/security.md)",
    ),
]


def _viewer(request: Request, user_id: str | None = None, session_id: str | None = None) -> Viewer:
    """The caller; ``app_id`` is a scope inside its tenant. The ``user_id`` and ``session_id``
    a body or query names are who the request acts for, claims like ``X-User-Id`` and
    ``X-Session-Id`` (api/common/identity.py): with auth on, a user the credentials do not carry is
    ``403 identity_mismatch`` naming the field (unless the admin or manager role acts for it)."""
    headers = header_claims(request)
    claims = Claims(
        agent_id=headers.agent_id,
        team_id=headers.team_id,
        user_id={"user_id": user_id, **headers.user_id},
        session_id={"session_id": session_id, **headers.session_id},
    )
    return viewer_of(request, resolve_tenant(request, None), claims)


def _submission(body: AddMemoryRequest | AgentMemoryRequest) -> Submission:
    messages = body.messages if isinstance(body.messages, str) else [m.to_task() for m in body.messages]
    return Submission(body.app_id, body.user_id, body.session_id, messages, body.model_dump(mode="json"))


def _accepted(job_id: str, message: str, body: AddMemoryRequest | AgentMemoryRequest, spec_nulls: bool) -> JSONResponse:
    content: dict[str, Any] = {
        "task_id": job_id,
        "status": "accepted",
        "message": message,
        "app_id": body.app_id,
        "user_id": body.user_id,
        "session_id": body.session_id,
    }
    if spec_nulls:
        content.update(error=None, result=None)
    return JSONResponse(content, status_code=202, headers={"location": f"/api/v1/tasks/{job_id}"})


@router.post(
    "/memories",
    response_model=c.Accepted,
    status_code=202,
    summary="Create memories from conversation messages (async)",
)
async def add_memory(
    body: AddMemoryRequest,
    request: Request,
    svc: ServicesDep,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> JSONResponse:
    viewer = _viewer(request, body.user_id, body.session_id)
    key = parse_idempotency_key(idempotency_key)
    await quota(request, "write", viewer.tenant_id)
    await admit_queued_write(request, viewer.tenant_id)
    job = await svc.conversation.intake.submit_memories(viewer, _submission(body), idempotency_key=key)
    return _accepted(job.id, "Memory creation task submitted successfully", body, spec_nulls=True)


@router.get(
    "/memories/query",
    response_model=c.QueryReply,
    summary="Query memories with composite ranking",
    dependencies=[RoutedRead],
)
async def query_memories(
    request: Request,
    svc: ServicesDep,
    app_id: AppId,
    query: Annotated[str, Query(min_length=1, max_length=4000, description="Natural language query")],
    user_id: NameQ = None,
    session_id: NameQ = None,
    n_results: Annotated[int, Query(ge=1, le=100)] = 10,
    similarity_threshold: Annotated[
        float | None,
        Query(
            ge=0.0,
            le=1.0,
            allow_inf_nan=False,
            description=(
                "least relevance (calibrated, docs/retrieval.md) a note needs; 0 returns every note. "
                f"Default MEMLANE_CONVERSATION_SIMILARITY_THRESHOLD ({CONVERSATION_CUT})"
            ),
        ),
    ] = None,
    as_of: Annotated[Instant | None, Query(description="ISO-8601: the notes valid then (default: now)")] = None,
    include_invalid: Annotated[bool, Query(description="every note, with its validity interval")] = False,
) -> c.QueryReply:
    viewer = _viewer(request, user_id or None, session_id or None)
    await quota(request, "recall", viewer.tenant_id)
    if not query.strip():
        raise InvalidRequest("query: must not be blank", details={"field": "query"})
    try:
        one_time_question(as_of, include_invalid)
    except ValueError as exc:
        raise InvalidRequest(f"include_invalid: {exc}", details={"field": "include_invalid"}) from None
    memories = await svc.conversation.memories.query(
        QueryParams(
            viewer=viewer,
            app_id=app_id,
            query=query,
            user_id=user_id or None,
            session_id=session_id or None,
            n_results=n_results,
            similarity_threshold=(
                svc.settings.conversation.similarity_threshold if similarity_threshold is None else similarity_threshold
            ),
            when=ValidTime(as_of=as_of, include_invalid=include_invalid),
        )
    )
    return {"memories": memories, "count": len(memories)}


@router.get("/memories/{memory_id}", response_model=c.Memory, summary="Get one memory", dependencies=[RoutedRead])
async def get_memory(
    request: Request, svc: ServicesDep, memory_id: MemoryId, app_id: AppId, user_id: ActingUser = None
) -> c.Memory:
    viewer = _viewer(request, user_id or None)
    await quota(request, "recall", viewer.tenant_id)
    return memory_view(await svc.conversation.memories.get(viewer, app_id, memory_id))


@router.delete("/memories/{memory_id}", response_model=c.Deleted, summary="Delete one memory")
async def delete_memory(
    request: Request, svc: ServicesDep, memory_id: MemoryId, app_id: AppId, user_id: ActingUser = None
) -> c.Deleted:
    viewer = _viewer(request, user_id or None)
    await quota(request, "write", viewer.tenant_id)
    await svc.conversation.memories.delete(viewer, app_id, memory_id)
    return {"success": True, "message": f"Memory {memory_id} deleted successfully", "data": None}


@router.get(
    "/memories/{memory_id}/evolution",
    response_model=c.EvolutionReply,
    summary="Follow a memory's evolution chain (oldest to newest)",
    dependencies=[RoutedRead],
)
async def memory_evolution(
    request: Request, svc: ServicesDep, memory_id: MemoryId, app_id: AppId, user_id: ActingUser = None
) -> c.EvolutionReply:
    viewer = _viewer(request, user_id or None)
    await quota(request, "recall", viewer.tenant_id)
    chain = await svc.conversation.memories.evolution(viewer, app_id, memory_id)
    return {
        "memories": [memory_view(n) for n in chain.nodes],
        "count": len(chain.nodes),
        "cycle_detected": chain.cycle_at is not None,
        "missing_link": chain.missing,
    }


@router.post(
    "/agent/memories", response_model=c.Accepted, status_code=202, summary="Store an agent's memory (fast path, async)"
)
async def add_agent_memory(
    body: AgentMemoryRequest,
    request: Request,
    svc: ServicesDep,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> JSONResponse:
    viewer = _viewer(request, body.user_id, body.session_id)
    key = parse_idempotency_key(idempotency_key)
    await quota(request, "write", viewer.tenant_id)
    await admit_queued_write(request, viewer.tenant_id)
    job = await svc.conversation.intake.submit_agent_memory(viewer, _submission(body), idempotency_key=key)
    return _accepted(job.id, "Agent memory creation task submitted successfully", body, spec_nulls=False)


@router.post(
    "/agent/summaries",
    response_model=c.Summary,
    summary="Summarise a conversation: 200 with the summary, or 202 and a webhook delivery",
    responses={202: {"model": c.Accepted, "description": "accepted for callback delivery"}},
)
async def summarize_conversation(
    body: SummaryRequest,
    request: Request,
    svc: ServicesDep,
    x_callback_url: Annotated[str | None, Header(alias="X-Callback-URL")] = None,
    idempotency_key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> JSONResponse:
    viewer = _viewer(request, body.user_id, body.session_id)
    await quota(request, "write", viewer.tenant_id)
    callback = None
    if body.callback_url is not None:
        callback = Callback(body.callback_url, "callback_url", body.callback_headers or {})
    elif x_callback_url:
        callback = Callback(x_callback_url, "X-Callback-URL", body.callback_headers or {})
    outcome = await svc.conversation.intake.summarize(
        viewer, _submission(body), callback, idempotency_key=idempotency_key
    )
    if outcome.job is None:
        who = {"app_id": body.app_id, "user_id": body.user_id, "session_id": body.session_id}
        return JSONResponse({**who, **(outcome.summary or {})})
    return _accepted(outcome.job.id, "Conversation summary scheduled for callback delivery", body, spec_nulls=False)


@router.post(
    "/memory-batcher/messages",
    response_model=c.BatcherReply,
    summary="Buffer streamed messages; full or idle buffers become tasks",
)
async def batcher_messages(body: BatcherRequest, request: Request, svc: ServicesDep) -> c.BatcherReply:
    viewer = _viewer(request, body.user_id, body.session_id)
    await quota(request, "write", viewer.tenant_id)
    messages = [{"role": m.role, "content": m.content, "timestamp": m.timestamp} for m in body.messages]
    outcome = await svc.conversation.batcher.append(viewer, body.app_id, body.user_id, body.session_id, messages)
    return outcome.view()


@router.get("/memory-batcher/buffers", response_model=c.BatcherReply, summary="State of one memory batcher buffer")
async def batcher_buffer(
    request: Request,
    svc: ServicesDep,
    app_id: AppId,
    user_id: Annotated[str, Query(min_length=1, max_length=200, pattern=NAME_PATTERN)],
    session_id: NameQ = None,
) -> c.BatcherReply:
    viewer = _viewer(request, user_id, session_id or None)
    await quota(request, "recall", viewer.tenant_id)
    return (await svc.conversation.batcher.status(viewer, app_id, user_id, session_id or None)).view()


@router.get("/tasks/{task_id}", response_model=c.Task, summary="Status, error and result of a background task")
async def get_task(
    request: Request,
    svc: ServicesDep,
    task_id: Annotated[str, Path(min_length=1, max_length=64, pattern=ID_PATTERN)],
    user_id: ActingUser = None,
) -> c.Task:
    return await svc.conversation.tasks.view(_viewer(request, user_id or None), task_id)


@router.get("/system/pool-stats", response_model=c.PoolStats, summary="Connection pool of the store")
async def pool_stats(svc: ServicesDep) -> c.PoolStats:
    store = svc.store
    stats = await store.pool_stats()
    created = int(stats.get("created_connections", 0))
    active = int(stats.get("checked_out", 0))
    return {
        "max_connections": int(stats.get("max_connections", 0)),
        "created_handlers": created,
        "active_handlers": active,
        "available_handlers": int(stats.get("idle", max(created - active, 0))),
        "initialized": await store.ping(),
    }
