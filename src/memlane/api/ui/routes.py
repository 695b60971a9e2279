"""``/ui``: page shells (no data, served to anyone) and the fragments htmx loads into them.

A fragment is read as the caller: the browser sends the credential entered once (ui.js), the
API's own ``principal_of`` / ``viewer_of`` turn it into a Viewer, and views.py reads through
``MemoryReader``. Errors come back as HTML fragments with the API's status.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel, ConfigDict, Field

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import ServicesDep, admin_authorized, quota, request_viewer, resolve_scope
from memlane.api.common.read_routing import RoutedRead
from memlane.api.common.route_labels import LabelledMount
from memlane.api.ui import views
from memlane.domain.cursors import MAX_CURSOR_LENGTH
from memlane.domain.errors import InvalidRequest, MemlaneError, NotFound
from memlane.domain.inputs import MAX_SCOPE_LENGTH, NAME_PATTERN
from memlane.domain.model import NODE_TYPES, TIERS
from memlane.domain.visibility import Viewer
from memlane.rules.promotion import check_promotion
from memlane.services.layers.roles import LAYERS
from memlane.services.ranking.calibration import DEFAULT_CUT
from memlane.services.recall_audit import audits_for
from memlane.services.tools.schemas import MEMORY_LAYERS
from memlane.store.knowledge import ItemFilter

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=HERE / "templates")
#: what a memory is at the read's instant (``now`` in the fragment's context): expired, ended, valid
templates.env.globals.update(state_of=views.state_of, validity_of=views.validity_of)
#: a value as one path segment of a URL: Jinja's ``urlencode`` keeps ``/``, which would change
#: the path (ids cannot hold one, domain/inputs.py; this is defence in depth)
templates.env.filters["segment"] = lambda value: quote(str(value), safe="")
#: every page of the browser only reads: a read replica may serve them (api/common/read_routing.py)
router = APIRouter(route_class=JsonBodyRoute, prefix="/ui", include_in_schema=False, dependencies=[RoutedRead])

ScopeQ = Annotated[str | None, Query(max_length=MAX_SCOPE_LENGTH, pattern=NAME_PATTERN)]


async def fragment(request: Request, name: str, build: Callable[[Viewer], Awaitable[dict[str, Any]]]) -> HTMLResponse:
    try:
        viewer = request_viewer(request)  # a refusal is a fragment too, not a JSON error
        context = await build(viewer)
    except MemlaneError as exc:
        return templates.TemplateResponse(
            request, "part_error.html", {"status": exc.status, "code": exc.code, "message": exc.message}, exc.status
        )
    return templates.TemplateResponse(request, name, {"viewer": viewer, **context})


def page(request: Request, name: str, **context: Any) -> HTMLResponse:
    return templates.TemplateResponse(request, name, context)


def scoped_page(
    request: Request,
    panel: str,
    title: str,
    scope: str | None,
    *,
    label: str = "Scope (empty: every scope)",
    placeholder: str = "",
) -> HTMLResponse:
    """A page of one panel read for a scope: ``/ui/part/{panel}`` fills it."""
    return page(
        request, "scoped.html", title=title, panel=panel, scope=scope or "", scope_label=label, placeholder=placeholder
    )


@router.get("", response_class=HTMLResponse)
async def home(request: Request) -> HTMLResponse:
    return page(request, "home.html", title="Scopes")


#: the relevance a search result needs to be shown (the default threshold of memory_search)
CutQ = Annotated[float, Query(ge=0.0, le=1.0, allow_inf_nan=False)]


@router.get("/search", response_class=HTMLResponse)
async def search_page(
    request: Request,
    scope: ScopeQ = None,
    q: Annotated[str, Query(max_length=2000)] = "",
    min_relevance: CutQ = DEFAULT_CUT,
) -> HTMLResponse:
    return page(request, "search.html", title="Search", scope=scope or "", q=q, cut=min_relevance)


@router.get("/memory/{node_id}", response_class=HTMLResponse)
async def memory_page(request: Request, node_id: str, scope: ScopeQ = None) -> HTMLResponse:
    return page(request, "memory.html", title="Memory", node_id=node_id, scope=scope or "")


@router.get("/new", response_class=HTMLResponse)
async def new_page(request: Request, scope: ScopeQ = None) -> HTMLResponse:
    """The forms only: each write is a call of the public API from the page."""
    return page(
        request,
        "new.html",
        title="New memory",
        scope=scope or "",
        node_types=NODE_TYPES,
        layered=LAYERS,
        tool_layers=MEMORY_LAYERS,
    )


@router.get("/layers", response_class=HTMLResponse)
async def layers_page(request: Request, scope: ScopeQ = None) -> HTMLResponse:
    return scoped_page(request, "layers", "Layered and tool memories", scope)


@router.get("/knowledge", response_class=HTMLResponse)
async def knowledge_page(request: Request) -> HTMLResponse:
    return page(request, "knowledge.html", title="Knowledge")


@router.get("/rules", response_class=HTMLResponse)
async def rules_page(request: Request, scope: ScopeQ = None) -> HTMLResponse:
    return scoped_page(request, "rules", "Rules", scope)


@router.get("/notes", response_class=HTMLResponse)
async def notes_page(request: Request, scope: ScopeQ = None) -> HTMLResponse:
    return scoped_page(request, "notes", "Conversation notes", scope, label="App (scope)", placeholder="default")


@router.get("/erasure", response_class=HTMLResponse)
async def erasure_page(request: Request) -> HTMLResponse:
    """The form only: the erasure itself is ``POST /v1/erasure``, called by the page's script
    with the session's credential, so it is allowed and refused exactly as through the API."""
    return page(request, "erasure.html", title="Erasure")


@router.get("/part/rules", response_class=HTMLResponse)
async def rules_part(request: Request, svc: ServicesDep, scope: ScopeQ = None) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        found = await views.rules(svc, viewer, scope or None)
        return {"rules": found, "limit": views.RULES_LIMIT, "scope": scope or ""}

    return await fragment(request, "part_rules.html", build)


@router.get("/part/notes", response_class=HTMLResponse)
async def notes_part(request: Request, svc: ServicesDep, scope: ScopeQ = None) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        chosen = resolve_scope(request, scope)
        chains = await views.note_chains(svc, viewer, chosen)
        return {"chains": chains, "scope": chosen, "limit": views.NOTES_LIMIT, "now": svc.clock.now()}

    return await fragment(request, "part_notes.html", build)


@router.get("/part/layers", response_class=HTMLResponse)
async def layers_part(request: Request, svc: ServicesDep, scope: ScopeQ = None) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        return {"layers": await views.by_layer(svc, viewer, scope or None), "per_layer": views.PER_LAYER}

    return await fragment(request, "part_layers.html", build)


@router.get("/part/knowledge", response_class=HTMLResponse)
async def knowledge_part(request: Request, svc: ServicesDep) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        return {"items": await svc.knowledge.list_items(viewer.tenant_id, ItemFilter(), limit=500)}

    return await fragment(request, "part_knowledge.html", build)


@router.get("/part/scopes", response_class=HTMLResponse)
async def scopes_part(
    request: Request, svc: ServicesDep, offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0
) -> HTMLResponse:
    """A page of the scope list; from ``offset`` > 0, only its rows and the next "More
    scopes" row, which replace the row of the button that asked for them."""

    async def build(viewer: Viewer) -> dict[str, Any]:
        found = await views.scope_counts(svc, viewer, offset=offset)
        return {"page": found, "cap": views.COUNT_CAP, "per_page": views.SCOPES_PAGE}

    return await fragment(request, "part_scopes.html" if offset == 0 else "part_scope_rows.html", build)


@router.get("/part/queue", response_class=HTMLResponse)
async def queue_part(request: Request, svc: ServicesDep) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        # the queue is every tenant's: counts only, and only on the admin channel or to an admin
        if not (viewer.admin or admin_authorized(request)):
            return {"allowed": False}
        return {
            "allowed": True,
            "queue": views.queue(await svc.store.job_counts()),
            "backlog": await svc.store.embedding_counts(),
        }

    return await fragment(request, "part_queue.html", build)


@router.get("/part/search", response_class=HTMLResponse)
async def search_part(
    request: Request,
    svc: ServicesDep,
    scope: ScopeQ = None,
    q: Annotated[str, Query(max_length=2000)] = "",
    min_relevance: CutQ = DEFAULT_CUT,
) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        text = q.strip()
        chosen = resolve_scope(request, scope)
        if not text:
            return {"results": None, "scope": chosen, "q": "", "cut": min_relevance}
        await quota(request, "recall", viewer.tenant_id)
        found = await views.search(svc, viewer, chosen, text, cut=min_relevance)
        return {"results": found, "scope": chosen, "q": text, "cut": min_relevance}

    return await fragment(request, "part_search.html", build)


@router.get("/part/memory/{node_id}", response_class=HTMLResponse)
async def memory_part(request: Request, svc: ServicesDep, node_id: str, scope: ScopeQ = None) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        found = await views.memory_page(svc, viewer, resolve_scope(request, scope), node_id)
        if found is None:
            raise NotFound(f"no memory {node_id} that you may see in this scope", code="node_not_found")
        promotion = check_promotion(found.node) if found.node.type == "rule" else None
        return {
            "m": found,
            "n": found.node,
            "promotion": promotion,
            "kind": views.kind_of(found.node),
            "now": svc.clock.now(),
            "size": views.GRAPH_SIZE,
            "hop1_max": views.HOP1_MAX,
            "hop2_max": views.HOP2_MAX,
        }

    return await fragment(request, "part_memory.html", build)


class BrowseQuery(BaseModel):
    """The filters of ``/ui/browse``, from its query string (an empty field: any)."""

    model_config = ConfigDict(extra="forbid")

    scope: str = Field("", max_length=MAX_SCOPE_LENGTH, pattern=f"^$|{NAME_PATTERN}")
    type: Literal["", "event", "entity", "topic", "rule", "evidence", "concept", "procedure", "self_model"] = ""
    tier: Literal["", "hot", "warm", "cold", "archive"] = ""
    layer: str = Field("", max_length=40)
    validity: Literal["current", "as_of", "history"] = "current"
    as_of: str = Field("", max_length=40)
    since: str = Field("", max_length=40)
    until: str = Field("", max_length=40)
    #: the opaque cursor of a next page (``MemoryReader.browse``); checked there, so a bad one
    #: is a 400 fragment naming the field (this bound only keeps a huge one from being read)
    cursor: str = Field("", max_length=4 * MAX_CURSOR_LENGTH)

    def instant(self, name: str) -> datetime | None:
        """A date or datetime field as an aware instant (a date is its midnight UTC); a value
        that is neither is a 400 naming the field."""
        raw = str(getattr(self, name)).strip()
        if not raw:
            return None
        try:
            at = datetime.fromisoformat(raw)
        except ValueError:
            raise InvalidRequest(f"{name}: not a date or ISO 8601 time: {raw!r}", details={"field": name}) from None
        return at if at.tzinfo else at.replace(tzinfo=UTC)

    def browse_filter(self) -> views.BrowseFilter:
        if self.layer and self.layer not in views.LAYER_ORDER:
            raise InvalidRequest(f"layer: not one of {', '.join(views.LAYER_ORDER)}", details={"field": "layer"})
        as_of = self.instant("as_of")
        if self.validity == "as_of" and as_of is None:
            raise InvalidRequest("as_of: give the instant to read validity at", details={"field": "as_of"})
        return views.BrowseFilter(
            type=self.type or None,
            tier=self.tier or None,
            layer=self.layer or None,
            validity=self.validity,
            as_of=as_of,
            since=self.instant("since"),
            until=self.instant("until"),
        )


BrowseQ = Annotated[BrowseQuery, Query()]


@router.get("/browse", response_class=HTMLResponse)
async def browse_page(request: Request, q: BrowseQ) -> HTMLResponse:
    return page(
        request,
        "browse.html",
        title="Browse a scope",
        q=q,
        node_types=NODE_TYPES,
        tiers=TIERS,
        layers=views.LAYER_ORDER,
        query=request.url.query,
    )


@router.get("/part/browse", response_class=HTMLResponse)
async def browse_part(request: Request, svc: ServicesDep, q: BrowseQ) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        chosen = resolve_scope(request, q.scope or None)
        found = await views.browse(svc, viewer, chosen, q.browse_filter(), q.cursor or None)
        following = None
        if found.next_cursor is not None:
            following = urlencode({**q.model_dump(exclude_defaults=True), "cursor": found.next_cursor})
        return {"page": found, "scope": chosen, "next_query": following, "now": svc.clock.now(), "q": q}

    return await fragment(request, "part_browse.html", build)


#: recalls of a scope read per page of the audit view, newest first
AUDIT_LIMIT = 200


@router.get("/audit", response_class=HTMLResponse)
async def audit_page(request: Request, scope: ScopeQ = None) -> HTMLResponse:
    return scoped_page(request, "audit", "Recall audit", scope, label="Scope (empty: default)")


@router.get("/part/audit", response_class=HTMLResponse)
async def audit_part(request: Request, svc: ServicesDep, scope: ScopeQ = None) -> HTMLResponse:
    async def build(viewer: Viewer) -> dict[str, Any]:
        chosen = resolve_scope(request, scope)
        entries = await audits_for(svc.store, svc.reader, viewer, chosen, limit=AUDIT_LIMIT)
        return {"entries": entries, "scope": chosen, "limit": AUDIT_LIMIT}

    return await fragment(request, "part_audit.html", build)


#: a user or session id of the conversation surface
UserQ = Annotated[str | None, Query(max_length=256, pattern=NAME_PATTERN)]


@router.get("/people", response_class=HTMLResponse)
async def people_page(
    request: Request, scope: ScopeQ = None, user: UserQ = None, session: UserQ = None
) -> HTMLResponse:
    return page(request, "people.html", title="Users and sessions", scope=scope or "", user=user or "",
                session=session or "")  # fmt: skip


@router.get("/part/people", response_class=HTMLResponse)
async def people_part(
    request: Request, svc: ServicesDep, scope: ScopeQ = None, user: UserQ = None, session: UserQ = None
) -> HTMLResponse:
    """The app's users and sessions; with ``user`` (and ``session``), their notes and messages."""

    async def build(viewer: Viewer) -> dict[str, Any]:
        chosen = resolve_scope(request, scope)
        found = await views.people(svc, viewer, chosen)
        talk = await views.conversation(svc, viewer, chosen, user, session or None) if user else None
        return {"people": found, "talk": talk, "scope": chosen, "limit": views.NOTES_LIMIT, "now": svc.clock.now()}

    return await fragment(request, "part_people.html", build)


def mount_ui(app: FastAPI) -> None:
    app.include_router(router)
    app.router.routes.append(LabelledMount("/ui/static", StaticFiles(directory=HERE / "static"), name="ui-static"))
