"""One dispatcher behind every transport (MCP stdio, MCP HTTP, ``POST /v1/tools/{name}``):
count the call against the tenant's quota, validate the arguments against the tool's JSON
Schema, run the tool, return its output. Quotas live here, not in a transport, so no
transport can skip them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator

from memlane.domain.clock import Clock, new_id
from memlane.domain.errors import InvalidRequest, NotFound, UpstreamError
from memlane.domain.inputs import find_unstorable
from memlane.domain.model import Job
from memlane.jobs.layers_kinds import KNOWLEDGE_SYNC
from memlane.services.knowledge.check import CheckedFile, Dependency
from memlane.services.knowledge.service import KnowledgeService, QueryInput
from memlane.services.knowledge.sync import SyncService, SyncStatusView
from memlane.services.knowledge.views import item_view, version_view
from memlane.services.quotas import QuotaGuard
from memlane.services.tools.context import ToolContext
from memlane.services.tools.errors import ToolTimeout
from memlane.services.tools.memory import MemoryTools
from memlane.services.tools.results import (
    KnowledgeChecked,
    KnowledgeFound,
    KnowledgeHit,
    KnowledgeShown,
    MemoryAdded,
    MemoryDeleted,
    MemoryFound,
    SyncDone,
    ToolResult,
)
from memlane.services.tools.schemas import SCHEMAS, TOOL_NAMES
from memlane.store.contracts.jobs import JobSubmitOps

VALIDATORS = {name: Draft202012Validator(schema) for name, schema in SCHEMAS.items()}
MAX_CHECK_FILES = 500
MAX_CHECK_DEPENDENCIES = 5000
SYNC_POLL_SEC = 0.05
#: tools that change memory count against the write quota; the others against recall
WRITE_TOOLS = frozenset({"memory_add", "memory_delete", "sync_now"})


def validate(name: str, args: Any) -> dict[str, Any]:
    if name not in VALIDATORS:
        raise NotFound(
            f"unknown tool {name!r}; available: {', '.join(TOOL_NAMES)}",
            code="NOT_FOUND",
            details={"requestedTool": name, "tools": list(TOOL_NAMES)},
        )
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise InvalidRequest(
            "tool arguments must be a JSON object", code="INVALID_INPUT", details={"field": "arguments"}
        )
    found = find_unstorable(args)
    if found is not None:
        path, why = found
        field = ".".join(str(p) for p in path) or "(arguments)"
        raise InvalidRequest(
            f"{field}: contains {why}, which memlane does not store",
            code="INVALID_INPUT",
            details={"field": field, "errors": [{"field": field, "message": f"contains {why}"}]},
        )
    errors = sorted(VALIDATORS[name].iter_errors(args), key=lambda e: list(e.absolute_path))
    if errors:
        described = [
            {"field": ".".join(str(p) for p in e.absolute_path) or "(arguments)", "message": e.message} for e in errors
        ]
        first = described[0]
        more = f" (and {len(described) - 1} more)" if len(described) > 1 else ""
        raise InvalidRequest(
            f"{first['field']}: {first['message']}{more}", code="INVALID_INPUT", details={"errors": described}
        )
    return args


class ToolService:
    def __init__(
        self,
        store: JobSubmitOps,
        memory: MemoryTools,
        knowledge: KnowledgeService,
        sync: SyncService,
        *,
        clock: Clock,
        quotas: QuotaGuard,
        sync_timeout_sec: float,
        job_max_attempts: int,
        notify: Callable[[], None] | None = None,
    ):
        self.store = store
        self.memory = memory
        self.knowledge = knowledge
        self.sync = sync
        self.clock = clock
        self.quotas = quotas
        self.sync_timeout_sec = sync_timeout_sec
        self._notify = notify
        self.job_max_attempts = job_max_attempts

    async def call(self, name: str, args: Any, ctx: ToolContext) -> dict[str, Any]:
        await self.quotas.hit("write" if name in WRITE_TOOLS else "recall", ctx.tenant_id)
        checked = validate(name, args)
        handler = getattr(self, f"_{name}")
        result: ToolResult = await handler(ctx, checked)
        return {**result, "identity": ctx.identity_view()}

    async def _memory_add(self, ctx: ToolContext, args: dict[str, Any]) -> MemoryAdded:
        return await self.memory.add(ctx, args)

    async def _memory_search(self, ctx: ToolContext, args: dict[str, Any]) -> MemoryFound:
        return await self.memory.search(ctx, args)

    async def _memory_delete(self, ctx: ToolContext, args: dict[str, Any]) -> MemoryDeleted:
        return await self.memory.delete(ctx, args)

    async def _knowledge_query(self, ctx: ToolContext, args: dict[str, Any]) -> KnowledgeFound:
        q = QueryInput(
            query=args.get("query"),
            type=args.get("type"),
            layer=args.get("layer"),
            tags=list(args.get("tags") or []),
            statuses=list(args.get("status") or ["accepted"]),
            limit=int(args.get("limit", 10)),
        )
        hits, total = await self.knowledge.query(ctx.tenant_id, q)
        items: list[KnowledgeHit] = [
            {
                "id": i.id,
                "type": i.type,
                "layer": i.layer,
                "title": i.title,
                "summary": i.summary,
                "status": i.status,
                "tags": list(i.tags),
                "hasConstraints": bool(i.constraints),
                "score": score,
            }
            for i, score in hits
        ]
        return {"success": True, "items": items, "totalCount": total}

    async def _knowledge_check(self, ctx: ToolContext, args: dict[str, Any]) -> KnowledgeChecked:
        files = [CheckedFile(f["path"], f["content"]) for f in args.get("files") or []]
        deps = [Dependency(d["name"], d.get("version")) for d in args.get("dependencies") or []]
        if len(files) > MAX_CHECK_FILES or len(deps) > MAX_CHECK_DEPENDENCIES:
            raise InvalidRequest(
                f"at most {MAX_CHECK_FILES} files and {MAX_CHECK_DEPENDENCIES} dependencies per check",
                code="INVALID_INPUT",
                details={"field": "files" if len(files) > MAX_CHECK_FILES else "dependencies"},
            )
        result = await self.knowledge.check(
            ctx.tenant_id,
            files,
            deps,
            min_severity=str(args.get("minSeverity", "warn")),
            item_ids=list(args["knowledgeItemIds"]) if args.get("knowledgeItemIds") else None,
        )
        return {
            "passed": result.passed,
            "violations": result.violations,
            "summary": result.summary,
            "checked": result.checked,
        }

    async def _knowledge_show(self, ctx: ToolContext, args: dict[str, Any]) -> KnowledgeShown:
        rec = await self.knowledge.get(ctx.tenant_id, str(args["id"]))
        view = item_view(rec, include_constraints=bool(args.get("includeConstraints", True)))
        item: dict[str, Any] = {
            **view,
            "metadata": {**view["metadata"], "version": str(rec.version), "source": rec.source},
        }
        if rec.superseded_by:
            item["supersededBy"] = list(rec.superseded_by)
        out: KnowledgeShown = {"success": True, "item": item}
        if args.get("includeHistory", False):
            out["history"] = [version_view(v) for v in await self.knowledge.history(ctx.tenant_id, rec.id)]
        return out

    async def _sync_now(self, ctx: ToolContext, args: dict[str, Any]) -> SyncDone:
        """Enqueue a durable sync job and wait for it; on timeout the job keeps running."""
        job = Job(
            tenant_id=ctx.tenant_id,
            id=new_id(),
            kind=KNOWLEDGE_SYNC,
            payload={
                "force": bool(args.get("force", False)),
                "types": list(args.get("types") or []),
                "layers": list(args.get("layers") or []),
                "requested_by": ctx.actor,
            },
            max_attempts=self.job_max_attempts,
        )
        await self.store.enqueue([job], now=self.clock.now())
        if self._notify is not None:
            self._notify()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.sync_timeout_sec
        while True:
            stored = await self.store.get_job(ctx.tenant_id, job.id)
            if stored is not None and stored.status == "done" and stored.result is not None:
                res = stored.result
                counts = res["result"]
                ok = counts["failures"] == 0
                message = (
                    f"Sync complete: {counts['added']} added, {counts['updated']} updated, "
                    f"{counts['deleted']} deleted, "
                    f"{counts['unchanged']} unchanged" + ("" if ok else f", {counts['failures']} failed")
                )
                out: SyncDone = {
                    "success": ok,
                    "result": counts,
                    "durationMs": res["durationMs"],
                    "message": message,
                    "jobId": job.id,
                }
                if res.get("failedItems"):
                    out["failedItems"] = res["failedItems"]
                return out
            if stored is not None and stored.status == "failed":
                raise UpstreamError(
                    f"sync job {job.id} failed: {stored.last_error}", code="PROVIDER_ERROR", details={"jobId": job.id}
                )
            if loop.time() >= deadline:
                raise ToolTimeout(
                    f"sync did not finish within {self.sync_timeout_sec:g}s (MEMLANE_SYNC_TIMEOUT_SEC); job {job.id} "
                    "is queued and continues: check sync_status",
                    details={"jobId": job.id, "status": stored.status if stored else "queued"},
                )
            await asyncio.sleep(SYNC_POLL_SEC)

    async def _sync_status(self, ctx: ToolContext, args: dict[str, Any]) -> SyncStatusView:
        return await self.sync.status(ctx.tenant_id)
