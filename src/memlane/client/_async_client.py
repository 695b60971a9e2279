"""The async client. ``_sync_client.py`` is generated from this file by
``scripts/generate_sync_client.py`` (a test fails when they differ): edit this one."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import httpx

from memlane.client import models as m
from memlane.client._core import (
    Call,
    M,
    RetryPolicy,
    WritePositions,
    auth_headers,
    body,
    checked,
    parse,
    retry_after_of,
    with_idempotency_key,
)
from memlane.client.errors import MemlaneConnectionError

Messages = str | list[dict[str, Any]]


class _AsyncTransport:
    """Sends calls, retrying rate-limited ones (honouring ``Retry-After``) and, for calls safe
    to repeat, lost connections and 502/503/504; raises the error of the last answer.

    Credentials and identity headers go on each request, never onto the httpx client (a
    caller's client keeps its own headers for its own requests), and redirects are never
    followed, whatever the client says: a redirect is raised as ``MemlaneRedirectError``, so
    credentials only ever go to the client's ``base_url``. The position of each write's
    answer is noted and sent back on later requests (``WritePositions``)."""

    def __init__(self, http: httpx.AsyncClient, retry: RetryPolicy, headers: dict[str, str], positions: WritePositions):
        self.http = http
        self.retry = retry
        self.headers = headers
        self.positions = positions

    async def send(self, call: Call) -> httpx.Response:
        attempt = 0
        while True:
            try:
                response = await self.http.request(
                    call.method,
                    call.path,
                    json=call.json,
                    params=call.params,
                    headers={**self.headers, **self.positions.headers(), **call.headers},
                    timeout=call.timeout if call.timeout is not None else httpx.USE_CLIENT_DEFAULT,
                    follow_redirects=False,
                )
            except httpx.TransportError as exc:
                if not self.retry.retry_transport(call, attempt):
                    raise MemlaneConnectionError(f"{call.method} {call.path}: {exc}") from exc
                await asyncio.sleep(self.retry.wait(attempt, None))
                attempt += 1
                continue
            if response.status_code >= 400 and self.retry.retry_status(call, response.status_code, attempt):
                await asyncio.sleep(self.retry.wait(attempt, retry_after_of(response)))
                attempt += 1
                continue
            self.positions.note(response)
            return checked(response)

    async def result(self, call: Call, model: type[M]) -> M:
        return parse(model, await self.send(call))


class AsyncLayers:
    """The layered surface (``/v1/layers``): identity, project and workspace memory."""

    def __init__(self, transport: _AsyncTransport):
        self._t = transport

    async def write(
        self,
        *,
        title: str,
        content: str,
        layer: str | None = None,
        metadata: dict[str, Any] | None = None,
        user_instruction: bool | None = None,
        tenant_id: str | None = None,
        scope: str | None = None,
    ) -> m.LayerWriteResult:
        payload = body(title=title, content=content, layer=layer, metadata=metadata,
                       user_instruction=user_instruction, tenant_id=tenant_id, scope=scope)  # fmt: skip
        return await self._t.result(Call("POST", "/v1/layers/write", payload), m.LayerWriteResult)

    async def read(
        self,
        *,
        layer: str,
        query: str | None = None,
        id: str | None = None,
        task_id: str | None = None,
        agent: str | None = None,
        mode: str | None = None,
        limit: int | None = None,
        tags: list[str] | None = None,
        tenant_id: str | None = None,
        scope: str | None = None,
    ) -> m.LayerReadResult:
        payload = body(layer=layer, query=query, id=id, task_id=task_id, agent=agent, mode=mode, limit=limit,
                       tags=tags, tenant_id=tenant_id, scope=scope)  # fmt: skip
        return await self._t.result(Call("POST", "/v1/layers/read", payload, safe_to_repeat=True), m.LayerReadResult)

    async def search(
        self,
        *,
        query: str,
        layer: str | None = None,
        top_k: int | None = None,
        task_id: str | None = None,
        agent: str | None = None,
        tags: list[str] | None = None,
        tenant_id: str | None = None,
        scope: str | None = None,
    ) -> m.LayerSearchResult:
        payload = body(query=query, layer=layer, top_k=top_k, task_id=task_id, agent=agent, tags=tags,
                       tenant_id=tenant_id, scope=scope)  # fmt: skip
        call = Call("POST", "/v1/layers/search", payload, safe_to_repeat=True)
        return await self._t.result(call, m.LayerSearchResult)

    async def update(
        self,
        *,
        id: str,
        new_title: str | None = None,
        new_content: str | None = None,
        new_metadata: dict[str, Any] | None = None,
        user_instruction: bool | None = None,
        user_confirmed: bool | None = None,
        system_refinement: bool | None = None,
        tenant_id: str | None = None,
    ) -> m.Success:
        payload = body(id=id, new_title=new_title, new_content=new_content, new_metadata=new_metadata,
                       user_instruction=user_instruction, user_confirmed=user_confirmed,
                       system_refinement=system_refinement, tenant_id=tenant_id)  # fmt: skip
        return await self._t.result(Call("POST", "/v1/layers/update", payload), m.Success)

    async def delete(self, *, id: str, user_instruction: bool | None = None, tenant_id: str | None = None) -> m.Success:
        payload = body(id=id, user_instruction=user_instruction, tenant_id=tenant_id)
        return await self._t.result(Call("POST", "/v1/layers/delete", payload, safe_to_repeat=True), m.Success)

    async def complete_task(self, task_id: str) -> m.TaskCompletion:
        call = Call("POST", f"/v1/layers/tasks/{task_id}/complete", {}, safe_to_repeat=True)
        return await self._t.result(call, m.TaskCompletion)


class AsyncTools:
    """The agent tools over HTTP (``/v1/tools/{name}``), one method per tool, named after it.
    A tool's failure raises with the ToolError envelope (``errorCode``, ``retryable``)."""

    #: sync_now waits for its job on the server (MEMLANE_SYNC_TIMEOUT_SEC, 60 s by default)
    SYNC_TIMEOUT_SEC = 120.0

    def __init__(self, transport: _AsyncTransport):
        self._t = transport

    async def list_tools(self) -> m.ToolList:
        return await self._t.result(Call("GET", "/v1/tools", safe_to_repeat=True), m.ToolList)

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Any tool by name, its raw output (for tools this client does not know yet)."""
        response = await self._t.send(Call("POST", f"/v1/tools/{name}", arguments or {}))
        result: dict[str, Any] = response.json()
        return result

    async def memory_add(
        self,
        content: str,
        *,
        layer: str | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> m.MemoryAddResult:
        payload = body(content=content, layer=layer, tags=tags, metadata=metadata)
        return await self._t.result(Call("POST", "/v1/tools/memory_add", payload), m.MemoryAddResult)

    async def memory_search(
        self,
        query: str,
        *,
        layers: list[str] | None = None,
        limit: int | None = None,
        threshold: float | None = None,
        tags: list[str] | None = None,
        filter: dict[str, Any] | None = None,
    ) -> m.MemorySearchResult:
        payload = body(query=query, layers=layers, limit=limit, threshold=threshold, tags=tags, filter=filter)
        call = Call("POST", "/v1/tools/memory_search", payload, safe_to_repeat=True)
        return await self._t.result(call, m.MemorySearchResult)

    async def memory_delete(self, memory_id: str) -> m.MemoryDeleteResult:
        call = Call("POST", "/v1/tools/memory_delete", {"memoryId": memory_id}, safe_to_repeat=True)
        return await self._t.result(call, m.MemoryDeleteResult)

    async def knowledge_query(
        self,
        query: str | None = None,
        *,
        type: str | None = None,
        layer: str | None = None,
        tags: list[str] | None = None,
        status: list[str] | None = None,
        limit: int | None = None,
    ) -> m.KnowledgeQueryResult:
        payload = body(query=query, type=type, layer=layer, tags=tags, status=status, limit=limit)
        call = Call("POST", "/v1/tools/knowledge_query", payload, safe_to_repeat=True)
        return await self._t.result(call, m.KnowledgeQueryResult)

    async def knowledge_check(
        self,
        *,
        files: list[dict[str, str]] | None = None,
        dependencies: list[dict[str, str]] | None = None,
        min_severity: Literal["info", "warn", "block"] | None = None,
        knowledge_item_ids: list[str] | None = None,
    ) -> m.KnowledgeCheckResult:
        payload = body(files=files, dependencies=dependencies, minSeverity=min_severity,
                       knowledgeItemIds=knowledge_item_ids)  # fmt: skip
        call = Call("POST", "/v1/tools/knowledge_check", payload, safe_to_repeat=True)
        return await self._t.result(call, m.KnowledgeCheckResult)

    async def knowledge_show(
        self, id: str, *, include_constraints: bool | None = None, include_history: bool | None = None
    ) -> m.KnowledgeShowResult:
        payload = body(id=id, includeConstraints=include_constraints, includeHistory=include_history)
        call = Call("POST", "/v1/tools/knowledge_show", payload, safe_to_repeat=True)
        return await self._t.result(call, m.KnowledgeShowResult)

    async def sync_now(
        self, *, force: bool | None = None, types: list[str] | None = None, layers: list[str] | None = None
    ) -> m.SyncNowResult:
        payload = body(force=force, types=types, layers=layers)
        call = Call("POST", "/v1/tools/sync_now", payload, safe_to_repeat=True, timeout=self.SYNC_TIMEOUT_SEC)
        return await self._t.result(call, m.SyncNowResult)

    async def sync_status(self) -> m.SyncStatus:
        return await self._t.result(Call("POST", "/v1/tools/sync_status", {}, safe_to_repeat=True), m.SyncStatus)


class AsyncKnowledge:
    """The knowledge repository's CRUD (``/v1/knowledge``): ADRs, policies, patterns, specs."""

    def __init__(self, transport: _AsyncTransport):
        self._t = transport

    async def list_items(
        self,
        *,
        type: list[str] | None = None,
        layer: list[str] | None = None,
        status: list[str] | None = None,
        limit: int | None = None,
    ) -> m.KnowledgeItemList:
        params = body(type=type, layer=layer, status=status, limit=limit)
        call = Call("GET", "/v1/knowledge/items", params=params, safe_to_repeat=True)
        return await self._t.result(call, m.KnowledgeItemList)

    async def create_item(
        self,
        *,
        id: str,
        type: str,
        layer: str,
        title: str,
        summary: str | None = None,
        content: str | None = None,
        status: str | None = None,
        severity: str | None = None,
        tags: list[str] | None = None,
        constraints: list[dict[str, Any]] | None = None,
        metadata: dict[str, Any] | None = None,
        supersedes: str | None = None,
        message: str | None = None,
    ) -> m.KnowledgeItemResult:
        payload = body(id=id, type=type, layer=layer, title=title, summary=summary, content=content, status=status,
                       severity=severity, tags=tags, constraints=constraints, metadata=metadata,
                       supersedes=supersedes, message=message)  # fmt: skip
        return await self._t.result(Call("POST", "/v1/knowledge/items", payload), m.KnowledgeItemResult)

    async def get_item(self, item_id: str) -> m.KnowledgeItemResult:
        call = Call("GET", f"/v1/knowledge/items/{item_id}", safe_to_repeat=True)
        return await self._t.result(call, m.KnowledgeItemResult)

    async def update_item(self, item_id: str, *, message: str | None = None, **changes: Any) -> m.KnowledgeItemResult:
        """Change fields (``title=...``, ``status=...``...); the item gets a new version."""
        payload = body(message=message, **changes)
        return await self._t.result(Call("PATCH", f"/v1/knowledge/items/{item_id}", payload), m.KnowledgeItemResult)

    async def delete_item(self, item_id: str) -> m.Success:
        call = Call("DELETE", f"/v1/knowledge/items/{item_id}", safe_to_repeat=True)
        return await self._t.result(call, m.Success)

    async def history(self, item_id: str) -> m.KnowledgeHistory:
        call = Call("GET", f"/v1/knowledge/items/{item_id}/history", safe_to_repeat=True)
        return await self._t.result(call, m.KnowledgeHistory)

    async def import_documents(self, documents: list[dict[str, str]]) -> m.ImportResult:
        """Markdown documents with YAML front matter: ``[{"path": ..., "content": ...}]``."""
        payload = {"documents": documents}
        return await self._t.result(Call("POST", "/v1/knowledge/import", payload, safe_to_repeat=True), m.ImportResult)


class AsyncMemlaneClient:
    """A memlane server: the graph and conversation surfaces as methods, the layered surface as
    ``.layers``, the agent tools as ``.tools`` and the knowledge repository as ``.knowledge``.

    ``api_key`` is sent as ``X-Api-Key``, ``jwt`` as ``Authorization: Bearer``. With auth off
    the server takes ``tenant_id``, ``agent_id``, ``team_id``, ``user_id`` and ``session_id``
    (sent as ``X-Tenant-Id``, ``X-Agent-Id``... headers) at their word; with auth on they come
    from the credentials. Use it as a context manager, or call ``aclose()``.

    ``read_your_writes`` (on by default): the client remembers the position the server
    answers its writes with (``X-Memlane-Position``, PostgreSQL only) and sends the latest as
    ``X-Memlane-Read-After``, so a read served by a read replica always sees this client's own
    writes (docs/operations.md "Read replicas"). Off: reads may be served by a replica that
    has not caught up yet.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        api_key: str | None = None,
        jwt: str | None = None,
        tenant_id: str | None = None,
        agent_id: str | None = None,
        team_id: str | None = None,
        user_id: str | None = None,
        session_id: str | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        headers: dict[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
        read_your_writes: bool = True,
    ):
        default_headers = auth_headers(api_key, jwt)
        identity = {"X-Tenant-Id": tenant_id, "X-Agent-Id": agent_id, "X-Team-Id": team_id, "X-User-Id": user_id,
                    "X-Session-Id": session_id}  # fmt: skip
        default_headers.update({k: v for k, v in identity.items() if v})
        default_headers.update(headers or {})
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout)
        self._t = _AsyncTransport(self._http, retry or RetryPolicy(), default_headers, WritePositions(read_your_writes))
        self.layers = AsyncLayers(self._t)
        self.tools = AsyncTools(self._t)
        self.knowledge = AsyncKnowledge(self._t)

    async def __aenter__(self) -> AsyncMemlaneClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    # --- system ------------------------------------------------------------------------------
    async def health(self) -> m.Health:
        return await self._t.result(Call("GET", "/health", safe_to_repeat=True), m.Health)

    async def info(self) -> dict[str, Any]:
        info: dict[str, Any] = (await self._t.send(Call("GET", "/", safe_to_repeat=True))).json()
        return info

    # --- graph (/v1/memory) ------------------------------------------------------------------
    async def write(
        self,
        *,
        nodes: list[dict[str, Any]] | None = None,
        edges: list[dict[str, Any]] | None = None,
        tenant_id: str | None = None,
        scope: str | None = None,
        input_text: str | None = None,
        memory_lane: Literal["private", "shared"] | None = None,
        auto_embed: bool | None = None,
        **fields: Any,
    ) -> m.WriteResult:
        """Write nodes and edges in one commit; other request fields (``actor``,
        ``producer_agent_id``, ``parent_commit_id``...) go in ``fields``."""
        payload = body(nodes=nodes or [], edges=edges or [], tenant_id=tenant_id, scope=scope, input_text=input_text,
                       memory_lane=memory_lane, auto_embed=auto_embed, **fields)  # fmt: skip
        return await self._t.result(Call("POST", "/v1/memory/write", payload), m.WriteResult)

    async def recall(self, *, query_embedding: list[float], **options: Any) -> m.RecallResult:
        """Recall by vector; ``options`` are the request's other fields (``scope``, ``limit``,
        ``max_nodes``, ``consumer_agent_id``, ``rules_context``...)."""
        payload = body(query_embedding=query_embedding, **options)
        return await self._t.result(Call("POST", "/v1/memory/recall", payload, safe_to_repeat=True), m.RecallResult)

    async def recall_text(self, *, query_text: str, scope: str | None = None, **options: Any) -> m.RecallResult:
        """Recall by text (embedded by the server); ``options`` as for ``recall``."""
        payload = body(query_text=query_text, scope=scope, **options)
        call = Call("POST", "/v1/memory/recall_text", payload, safe_to_repeat=True)
        return await self._t.result(call, m.RecallResult)

    async def evaluate_rules(self, *, context: Any, **options: Any) -> m.RulesEvaluation:
        payload = body(context=context, **options)
        call = Call("POST", "/v1/memory/rules/evaluate", payload, safe_to_repeat=True)
        return await self._t.result(call, m.RulesEvaluation)

    async def select_tools(self, *, context: Any, candidates: list[str], **options: Any) -> m.ToolSelection:
        payload = body(context=context, candidates=candidates, **options)
        call = Call("POST", "/v1/memory/tools/select", payload, safe_to_repeat=True)
        return await self._t.result(call, m.ToolSelection)

    async def tool_feedback(
        self, *, context: Any, candidates: list[str], selected_tool: str, outcome: str, **options: Any
    ) -> m.FeedbackResult:
        payload = body(context=context, candidates=candidates, selected_tool=selected_tool, outcome=outcome,
                       **options)  # fmt: skip
        return await self._t.result(Call("POST", "/v1/memory/tools/feedback", payload), m.FeedbackResult)

    async def feedback(self, *, rule_node_id: str, outcome: str, **options: Any) -> m.FeedbackResult:
        payload = body(rule_node_id=rule_node_id, outcome=outcome, **options)
        return await self._t.result(Call("POST", "/v1/memory/feedback", payload), m.FeedbackResult)

    async def set_rule_state(
        self, *, rule_node_id: str, state: Literal["draft", "shadow", "active", "disabled"], **options: Any
    ) -> m.FeedbackResult:
        payload = body(rule_node_id=rule_node_id, state=state, **options)
        call = Call("POST", "/v1/memory/rules/state", payload, safe_to_repeat=True)
        return await self._t.result(call, m.FeedbackResult)

    async def activate(
        self, *, node_ids: list[str] | None = None, client_ids: list[str] | None = None, **options: Any
    ) -> m.LifecycleResult:
        payload = body(node_ids=node_ids, client_ids=client_ids, **options)
        return await self._t.result(Call("POST", "/v1/memory/nodes/activate", payload), m.LifecycleResult)

    async def rehydrate(
        self, *, node_ids: list[str] | None = None, client_ids: list[str] | None = None, **options: Any
    ) -> m.LifecycleResult:
        payload = body(node_ids=node_ids, client_ids=client_ids, **options)
        call = Call("POST", "/v1/memory/archive/rehydrate", payload, safe_to_repeat=True)
        return await self._t.result(call, m.LifecycleResult)

    # --- conversation (/api/v1) --------------------------------------------------------------
    async def add_memories(
        self,
        *,
        app_id: str,
        user_id: str,
        messages: list[dict[str, Any]],
        session_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> m.TaskAccepted:
        """Messages (``role``, ``content``, optional ``timestamp``) -> a durable ingestion task.
        An ``Idempotency-Key`` (yours, else a new one) makes retries safe."""
        payload = body(app_id=app_id, user_id=user_id, session_id=session_id, messages=messages)
        call = with_idempotency_key(Call("POST", "/api/v1/memories", payload), idempotency_key)
        return await self._t.result(call, m.TaskAccepted)

    async def query_memories(
        self,
        *,
        app_id: str,
        query: str,
        user_id: str | None = None,
        session_id: str | None = None,
        n_results: int | None = None,
        similarity_threshold: float | None = None,
    ) -> m.MemoryQueryResult:
        params = body(app_id=app_id, query=query, user_id=user_id, session_id=session_id, n_results=n_results,
                      similarity_threshold=similarity_threshold)  # fmt: skip
        call = Call("GET", "/api/v1/memories/query", params=params, safe_to_repeat=True)
        return await self._t.result(call, m.MemoryQueryResult)

    async def get_memory(self, memory_id: str, *, app_id: str) -> m.Memory:
        call = Call("GET", f"/api/v1/memories/{memory_id}", params={"app_id": app_id}, safe_to_repeat=True)
        return await self._t.result(call, m.Memory)

    async def delete_memory(self, memory_id: str, *, app_id: str) -> m.DeleteResult:
        call = Call("DELETE", f"/api/v1/memories/{memory_id}", params={"app_id": app_id}, safe_to_repeat=True)
        return await self._t.result(call, m.DeleteResult)

    async def memory_evolution(self, memory_id: str, *, app_id: str) -> m.EvolutionChain:
        call = Call("GET", f"/api/v1/memories/{memory_id}/evolution", params={"app_id": app_id}, safe_to_repeat=True)
        return await self._t.result(call, m.EvolutionChain)

    async def add_agent_memory(
        self,
        *,
        app_id: str,
        user_id: str,
        messages: Messages,
        session_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> m.TaskAccepted:
        payload = body(app_id=app_id, user_id=user_id, session_id=session_id, messages=messages)
        call = with_idempotency_key(Call("POST", "/api/v1/agent/memories", payload), idempotency_key)
        return await self._t.result(call, m.TaskAccepted)

    async def summarize(
        self,
        *,
        app_id: str,
        user_id: str,
        messages: Messages,
        session_id: str | None = None,
        callback_url: str | None = None,
        callback_headers: dict[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> m.Summary | m.TaskAccepted:
        """The summary now (no ``callback_url``), or a task delivering it to the webhook."""
        payload = body(app_id=app_id, user_id=user_id, session_id=session_id, messages=messages,
                       callback_url=callback_url, callback_headers=callback_headers)  # fmt: skip
        call = Call("POST", "/api/v1/agent/summaries", payload, safe_to_repeat=callback_url is None)
        if callback_url is not None:
            call = with_idempotency_key(call, idempotency_key)
        response = await self._t.send(call)
        if response.status_code == 202:
            return parse(m.TaskAccepted, response)
        return parse(m.Summary, response)

    async def get_task(self, task_id: str) -> m.Task:
        return await self._t.result(Call("GET", f"/api/v1/tasks/{task_id}", safe_to_repeat=True), m.Task)

    async def wait_for_task(self, task_id: str, *, timeout: float = 60.0, poll_sec: float = 0.1) -> m.Task:
        """Poll a task until it is completed or failed (``TimeoutError`` after ``timeout``)."""
        waited = 0.0
        while True:
            task = await self.get_task(task_id)
            if task.status in ("completed", "failed"):
                return task
            if waited >= timeout:
                raise TimeoutError(f"task {task_id} is still {task.status} after {timeout:g}s")
            await asyncio.sleep(poll_sec)
            waited += poll_sec

    async def batch_add_messages(
        self, *, app_id: str, user_id: str, messages: list[dict[str, Any]], session_id: str | None = None
    ) -> m.BatcherState:
        """Append to the memory batcher's buffer; full (or idle) buffers become ingestion tasks."""
        payload = body(app_id=app_id, user_id=user_id, session_id=session_id, messages=messages)
        return await self._t.result(Call("POST", "/api/v1/memory-batcher/messages", payload), m.BatcherState)

    async def batcher_buffer(self, *, app_id: str, user_id: str, session_id: str | None = None) -> m.BatcherState:
        params = body(app_id=app_id, user_id=user_id, session_id=session_id)
        call = Call("GET", "/api/v1/memory-batcher/buffers", params=params, safe_to_repeat=True)
        return await self._t.result(call, m.BatcherState)

    async def pool_stats(self) -> m.PoolStats:
        return await self._t.result(Call("GET", "/api/v1/system/pool-stats", safe_to_repeat=True), m.PoolStats)
