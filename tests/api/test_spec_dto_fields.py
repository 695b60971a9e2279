"""Every DTO the four specs list, against what the real server returns over HTTP.

``DTOS`` is the table: a DTO of a spec (/work/shared/spec/*.md) -> the fields the spec lists
for it (``required``; ``optional`` for the ones it marks optional or conditional). The
``responses`` fixture drives a live server through a realistic request of every endpoint, with
the defaults, and files each object it gets back under its DTO. Each object must hold exactly
the documented keys: every required one, no other than the optional ones, unless the project
adds a field on purpose. Such a field is an *extension*: it must be named in the surface's own
doc (``docs/api-*.md``), which the test checks, and the list below is what a client validating
the spec's shape has to allow. A spec field memlane deliberately withholds (a layered
MemoryObject's ``embeddings``, only with ``include_embeddings``) is listed the same way.

Some objects the specs leave open (``metadata: {}``, ``"..."``, ``any``): their DTO says
``open=True`` and only the listed keys are checked to be there.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conversation.helpers import wait_task
from tests.knowledge.helpers import ADR_DIR
from tests.support.backends import BACKENDS, fresh_url
from tests.support.memory_api import unit, wait_until_recallable
from tests.support.server import ServerFactory
from tests.support.settings import RECEIVER_HOSTS

DOCS = Path(__file__).resolve().parents[2] / "docs"


def fields(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Dto:
    spec: str
    required: frozenset[str]
    optional: frozenset[str] = frozenset()
    #: fields memlane adds on purpose -> the doc (docs/...) that documents each
    extensions: dict[str, str] = field(default_factory=dict)
    #: spec fields memlane withholds by default on purpose -> the doc that says so
    withheld: dict[str, str] = field(default_factory=dict)
    #: the spec leaves the object open ("...", "any", an example object): extra keys are allowed
    open: bool = False


G, C, L, T = "graph-memory-api.md", "conversation-memory-api.md", "layered-memory-api.md", "agent-tools.md"
GR = "graph-memory-requests.md"
API_GRAPH, API_CONV, API_LAYERS, API_TOOLS = "api-graph.md", "api-conversation.md", "api-layers.md", "api-tools.md"
INTERVAL = {"valid_at": API_GRAPH, "invalid_at": API_GRAPH, "expired_at": API_GRAPH}
NODE_META = fields(
    "raw_ref evidence_ref embedding_status embedding_model memory_lane producer_agent_id owner_agent_id "
    "owner_team_id created_at updated_at last_activated salience importance confidence commit_id"
)
RECALL = fields("tenant_id scope seeds ranked subgraph context")
VISIBILITY_RULE_SCOPE = fields(
    "scanned filtered_by_scope filtered_by_lane filtered_by_condition skipped_invalid_then "
    "matched_active matched_shadow"
)

DTOS: dict[str, Dto] = {
    # --- graph: /v1/memory/* -------------------------------------------------------------
    "graph write response": Dto(
        GR, fields("tenant_id scope commit_id commit_hash nodes edges"), fields("embedding_backfill")
    ),
    "graph written node": Dto(GR, fields("id type"), fields("client_id")),
    "graph written edge": Dto(GR, fields("id type src_id dst_id")),
    "graph embedding_backfill": Dto(GR, fields("enqueued pending")),
    "recall response": Dto(G, RECALL, fields("rules debug")),
    "recall_text response": Dto(G, RECALL | {"query"}, fields("rules debug")),
    "recall_text query": Dto(G, fields("text embedding_provider")),
    "seed (defaults)": Dto(G, fields("id type title text_summary tier salience confidence similarity")),
    "seed (include_meta)": Dto(
        G,
        fields("id type title text_summary tier salience confidence similarity"),
        extensions={"relevance": API_GRAPH, **INTERVAL},
    ),
    "seed (include_invalid)": Dto(
        G, fields("id type title text_summary tier salience confidence similarity"), extensions=INTERVAL
    ),
    "ranked": Dto(G, fields("id activation score")),
    "subgraph": Dto(G, fields("nodes edges")),
    "NodeDTO (defaults)": Dto(G, fields("id type title text_summary"), fields("topic_state member_count")),
    "NodeDTO (include_meta, include_slots, include_slots_preview)": Dto(
        G,
        fields("id type title text_summary slots slots_preview") | NODE_META,
        fields("topic_state member_count"),
        extensions=INTERVAL,
    ),
    "NodeDTO (include_invalid)": Dto(
        G, fields("id type title text_summary"), fields("topic_state member_count"), extensions=INTERVAL
    ),
    "EdgeDTO (defaults)": Dto(G, fields("from_id to_id type weight")),
    "EdgeDTO (include_meta)": Dto(G, fields("from_id to_id type weight commit_id"), extensions=INTERVAL),
    "EdgeDTO (include_invalid)": Dto(G, fields("from_id to_id type weight"), extensions=INTERVAL),
    "recall context": Dto(G, fields("text items citations")),
    "recall rules": Dto(G, fields("scope considered matched skipped_invalid_then invalid_then_sample applied")),
    "recall debug": Dto(G, fields("neighborhood_counts"), fields("embeddings")),
    "recall debug neighborhood_counts": Dto(G, fields("nodes edges")),
    "rules/evaluate response": Dto(
        G,
        fields(
            "tenant_id scope considered matched skipped_invalid_then agent_visibility_summary active shadow applied"
        ),
        extensions={"invalid_then_sample": API_GRAPH},
    ),
    "agent_visibility_summary": Dto(G, fields("agent rule_scope lane")),
    "agent_visibility_summary.agent": Dto(G, fields("id team_id")),
    "agent_visibility_summary.rule_scope": Dto(G, VISIBILITY_RULE_SCOPE),
    "agent_visibility_summary.lane": Dto(
        G, fields("applied reason legacy_unowned_private_visible legacy_unowned_private_detected")
    ),
    "RuleMatchDTO": Dto(
        G,
        fields(
            "rule_node_id state summary rule_scope if_json then_json exceptions_json stats rank match_detail commit_id"
        ),
        fields("target_agent_id target_team_id"),
    ),
    "RuleMatchDTO.stats": Dto(G, fields("positive negative")),
    "RuleMatchDTO.rank": Dto(G, fields("score evidence_score priority weight specificity")),
    "RuleMatchDTO.match_detail": Dto(G, fields("condition_paths condition_path_count")),
    "rules applied": Dto(
        G,
        fields("policy sources conflicts conflict_explain tool_explain"),
        fields("shadow_policy shadow_sources shadow_conflicts shadow_tool_explain"),
    ),
    "tools/select response": Dto(G, fields("tenant_id scope candidates selection rules")),
    "tools/select selection": Dto(
        G, fields("candidates allowed denied preferred ordered selected"), fields("fallback")
    ),
    "tools/select rules": Dto(
        G,
        fields(
            "considered matched skipped_invalid_then invalid_then_sample agent_visibility_summary applied "
            "tool_conflicts_summary"
        ),
        fields("shadow_selection shadow_tool_conflicts_summary"),
    ),
    "tools/feedback response": Dto(G, fields("ok tenant_id scope updated_rules rule_node_ids commit_id commit_hash")),
    "rehydrate response": Dto(G, fields("tenant_id scope target_tier commit_id commit_hash rehydrated")),
    "rehydrate counters": Dto(
        G,
        fields("requested resolved moved noop missing"),
        # the spec says "counters + ids"; their names are docs/api-graph.md's
        extensions=dict.fromkeys(("node_ids", "noop_node_ids", "missing_node_ids", "missing_client_ids"), API_GRAPH),
    ),
    "activate response": Dto(G, fields("tenant_id scope commit_id commit_hash activated")),
    "activate counters": Dto(
        G,
        fields("requested resolved found updated missing"),
        extensions=dict.fromkeys(("node_ids", "missing_node_ids", "missing_client_ids"), API_GRAPH),
    ),
    "graph error": Dto(G, fields("error message"), fields("details")),
    # --- conversation: /api/v1/*, /health, / ---------------------------------------------
    "add memory 202": Dto(C, fields("task_id status message app_id user_id session_id error result")),
    "query response": Dto(C, fields("memories count")),
    "query memory": Dto(
        C,
        fields("document metadata composite_score similarity_score recency_score importance_score query_status"),
        extensions={"memory_id": API_CONV, "cosine_similarity": API_CONV},
    ),
    "get memory": Dto(C, fields("memory_id document metadata")),
    "delete memory": Dto(C, fields("success message data")),
    "evolution response": Dto(
        C, fields("memories count"), extensions={"cycle_detected": API_CONV, "missing_link": API_CONV}
    ),
    "evolution memory": Dto(C, fields("memory_id document metadata")),
    "evolution metadata": Dto(C, fields("next_id created_at updated_at status"), open=True),
    "agent memory 202": Dto(C, fields("task_id status message app_id user_id session_id")),
    "summary 200": Dto(
        C, fields("app_id user_id session_id summary key_points tags keywords semantic_queries metadata generated_at")
    ),
    "summary 202": Dto(C, fields("task_id status message app_id user_id session_id")),
    "health": Dto(
        C,
        fields("status sdk_initialized service"),
        extensions=dict.fromkeys(("version", "backend", "embedding", "worker", "backlog"), API_CONV),
    ),
    "api information": Dto(C, fields("name version description endpoints")),
    "api information endpoints": Dto(
        C,
        fields("docs health api"),
        extensions=dict.fromkeys(("redoc", "openapi", "graph", "conversation", "metrics"), API_CONV),
    ),
    "pool stats": Dto(C, fields("max_connections created_handlers active_handlers available_handlers initialized")),
    "conversation error": Dto(C, fields("detail")),
    # --- layered: /v1/layers/* -----------------------------------------------------------
    "layers write": Dto(L, fields("success id"), extensions={"layer": API_LAYERS, "routing": API_LAYERS}),
    "layers read": Dto(L, fields("success results"), extensions={"mode": API_LAYERS}),
    "layers update": Dto(L, fields("success")),
    "layers delete": Dto(L, fields("success")),
    "layers search": Dto(L, fields("results"), extensions={"success": API_LAYERS}),
    "MemoryObject": Dto(
        L,
        fields("id layer title content metadata"),
        extensions={"score": API_LAYERS},
        withheld={"embeddings": API_LAYERS},
    ),
    "MemoryObject.metadata": Dto(
        L,
        fields("timestamp"),
        fields("agent task_id user_visible expiry tags"),
        extensions={"updated_at": API_LAYERS, **dict.fromkeys(INTERVAL, API_LAYERS)},
    ),
    "layers error": Dto(L, fields("success error_type message"), extensions={"details": API_LAYERS}),
    # --- agent tools: /v1/tools/* --------------------------------------------------------
    "memory_add": Dto(T, fields("success memoryId message"), extensions={"identity": API_TOOLS}),
    "memory_search": Dto(
        T,
        fields("success results totalCount searchedLayers"),
        extensions={"skippedLayers": API_TOOLS, "identity": API_TOOLS},
    ),
    "memory_search result": Dto(
        T,
        fields("content layer score memoryId"),
        fields("tags"),
        extensions={"similarity": API_TOOLS, "validAt": API_TOOLS, "invalidAt": API_TOOLS},
    ),
    "memory_delete": Dto(T, fields("success message"), extensions={"identity": API_TOOLS}),
    "knowledge_query": Dto(T, fields("success items totalCount"), extensions={"identity": API_TOOLS}),
    "knowledge_query item": Dto(
        T, fields("id type layer title summary status tags hasConstraints"), extensions={"score": API_TOOLS}
    ),
    "knowledge_check": Dto(
        T, fields("passed violations summary"), extensions={"checked": API_TOOLS, "identity": API_TOOLS}
    ),
    "knowledge_check violation": Dto(
        T, fields("knowledgeItemId knowledgeItemTitle constraint severity message"), fields("location")
    ),
    "knowledge_check constraint": Dto(T, fields("operator target pattern")),
    "knowledge_check summary": Dto(T, fields("info warn block")),
    "knowledge_show": Dto(T, fields("success item"), fields("history"), extensions={"identity": API_TOOLS}),
    "knowledge_show item": Dto(
        T,
        fields("id type layer title summary content status severity tags metadata createdAt updatedAt"),
        fields("constraints supersedes supersededBy"),
    ),
    "knowledge_show history": Dto(T, fields("version timestamp author message")),
    "sync_now": Dto(
        T, fields("success result durationMs message"), extensions={"jobId": API_TOOLS, "identity": API_TOOLS}
    ),
    "sync_now result": Dto(T, fields("added updated deleted unchanged failures")),
    "sync_status": Dto(
        T,
        fields("healthy lastSyncAt timeSinceSync failedItems stats"),
        extensions={"pendingChanges": API_TOOLS, "identity": API_TOOLS},
    ),
    "sync_status stats": Dto(T, fields("totalSyncs totalItemsSynced avgSyncDurationMs")),
    "ToolError": Dto(T, fields("success errorCode message retryable"), fields("details")),
}


# --- the realistic requests ------------------------------------------------------------------
class Seen:
    """Objects of the responses, filed by DTO name."""

    def __init__(self) -> None:
        self.by_dto: dict[str, list[dict[str, Any]]] = {name: [] for name in DTOS}

    def add(self, dto: str, *objects: Any) -> None:
        assert dto in DTOS, dto
        for obj in objects:
            assert isinstance(obj, dict), f"{dto}: {obj!r} is not an object"
            self.by_dto[dto].append(obj)


def ok(r: httpx.Response, status: int = 200) -> Any:
    assert r.status_code == status, f"{r.request.method} {r.request.url}: {r.status_code} {r.text[:500]}"
    return r.json()


def graph(c: httpx.Client, seen: Seen) -> None:
    scope = f"dto-{uuid.uuid4().hex[:8]}"
    nodes = [
        {"client_id": "hike", "type": "event", "title": "Alice hikes", "text_summary": "Alice hiked in the Alps"},
        {"client_id": "alps", "type": "entity", "title": "Alps", "text_summary": "mountains in Europe"},
        {"client_id": "trips", "type": "topic", "title": "Trips", "text_summary": "Alice's trips",
         "slots": {"member_count": 1}},
        {"client_id": "paris", "type": "event", "title": "Alice lives in Paris", "text_summary": "Alice lived in Paris",
         "valid_at": "2019-01-01T00:00:00Z", "invalid_at": "2023-06-01T00:00:00Z"},
        {"client_id": "rule", "type": "rule", "title": "No shell in prod", "text_summary": "deny shell in prod",
         "slots": {"if": {"env": "prod"}, "then": {"tool": {"deny": ["shell"], "prefer": ["python"]}}}},
    ]  # fmt: skip
    edges = [
        {"type": "related_to", "src": {"client_id": "hike"}, "dst": {"client_id": "alps"}},
        {"type": "part_of", "src": {"client_id": "hike"}, "dst": {"client_id": "trips"}},
        {"type": "related_to", "src": {"client_id": "alps"}, "dst": {"client_id": "paris"},
         "invalid_at": "2023-06-01T00:00:00Z"},
    ]  # fmt: skip
    body = {"scope": scope, "input_text": "dto check", "memory_lane": "shared", "nodes": nodes, "edges": edges}
    written = ok(c.post("/v1/memory/write", json=body))
    seen.add("graph write response", written)
    seen.add("graph written node", *written["nodes"])
    seen.add("graph written edge", *written["edges"])
    if "embedding_backfill" in written:
        seen.add("graph embedding_backfill", written["embedding_backfill"])
    ids = {n["client_id"]: n["id"] for n in written["nodes"]}
    wait_until_recallable(c, scope, "Alice hiked", {ids["hike"], ids["alps"], ids["paris"]}, include_invalid=True)
    rule = ids["rule"]
    for state in ("shadow", "active"):
        ok(c.post("/v1/memory/rules/state", json={"scope": scope, "rule_node_id": rule, "state": state,
                                                  "input_text": "promote"}))  # fmt: skip

    def recall_text(**extra: Any) -> dict[str, Any]:
        return dict(ok(c.post("/v1/memory/recall_text", json={"scope": scope, "query_text": "Alice hiked", **extra})))

    def file_recall(out: dict[str, Any], kind: str) -> None:
        seen.add("subgraph", out["subgraph"])
        seen.add("ranked", *out["ranked"])
        seen.add("recall context", out["context"])
        seen.add(f"seed ({kind})", *out["seeds"])
        seen.add(f"EdgeDTO ({'include_meta' if kind == 'include_meta' else kind})", *out["subgraph"]["edges"])

    plain = recall_text()
    seen.add("recall_text response", plain)
    seen.add("recall_text query", plain["query"])
    seen.add("NodeDTO (defaults)", *plain["subgraph"]["nodes"])
    file_recall(plain, "defaults")
    meta = recall_text(include_meta=True, include_slots=True, include_slots_preview=True)
    seen.add("NodeDTO (include_meta, include_slots, include_slots_preview)", *meta["subgraph"]["nodes"])
    file_recall(meta, "include_meta")
    history = recall_text(include_invalid=True)
    seen.add("NodeDTO (include_invalid)", *history["subgraph"]["nodes"])
    file_recall(history, "include_invalid")
    with_rules = recall_text(rules_context={"env": "prod"}, return_debug=True)
    seen.add("recall_text response", with_rules)
    seen.add("recall rules", with_rules["rules"])
    seen.add("rules applied", with_rules["rules"]["applied"])
    seen.add("recall debug", with_rules["debug"])
    seen.add("recall debug neighborhood_counts", with_rules["debug"]["neighborhood_counts"])
    by_vector = ok(c.post("/v1/memory/recall", json={"scope": scope, "query_embedding": unit(1)}))
    seen.add("recall response", by_vector)
    seen.add("seed (defaults)", *by_vector["seeds"])

    context = {"env": "prod", "agent": {"id": "planner-1", "team_id": "core"}}
    evaluated = ok(c.post("/v1/memory/rules/evaluate", json={"scope": scope, "context": context}))
    seen.add("rules/evaluate response", evaluated)
    visibility = evaluated["agent_visibility_summary"]
    seen.add("agent_visibility_summary", visibility)
    seen.add("agent_visibility_summary.agent", visibility["agent"])
    seen.add("agent_visibility_summary.rule_scope", visibility["rule_scope"])
    seen.add("agent_visibility_summary.lane", visibility["lane"])
    seen.add("rules applied", evaluated["applied"])
    matches = [*evaluated["active"], *evaluated["shadow"]]
    assert matches, "the active rule matches the context"
    seen.add("RuleMatchDTO", *matches)
    seen.add("RuleMatchDTO.stats", *(m["stats"] for m in matches))
    seen.add("RuleMatchDTO.rank", *(m["rank"] for m in matches))
    seen.add("RuleMatchDTO.match_detail", *(m["match_detail"] for m in matches))

    select = {"scope": scope, "context": context, "candidates": ["shell", "python", "curl"]}
    selected = ok(c.post("/v1/memory/tools/select", json=select))
    seen.add("tools/select response", selected)
    seen.add("tools/select selection", selected["selection"])
    seen.add("tools/select rules", selected["rules"])
    seen.add("agent_visibility_summary", selected["rules"]["agent_visibility_summary"])
    feedback = {**select, "selected_tool": "python", "outcome": "positive", "input_text": "ran python"}
    seen.add("tools/feedback response", ok(c.post("/v1/memory/tools/feedback", json=feedback)))

    archive = [{"client_id": "alps", "type": "entity", "tier": "archive"}]
    ok(c.post("/v1/memory/write", json={"scope": scope, "input_text": "archive", "nodes": archive}))
    move = {"scope": scope, "client_ids": ["alps", "nope"], "target_tier": "warm", "input_text": "bring back"}
    rehydrated = ok(c.post("/v1/memory/archive/rehydrate", json=move))
    seen.add("rehydrate response", rehydrated)
    seen.add("rehydrate counters", rehydrated["rehydrated"])
    activate = {"scope": scope, "node_ids": [ids["hike"]], "outcome": "positive", "input_text": "useful"}
    activated = ok(c.post("/v1/memory/nodes/activate", json=activate))
    seen.add("activate response", activated)
    seen.add("activate counters", activated["activated"])
    bad = c.post("/v1/memory/recall", json={"scope": scope, "query_embedding": [0.1, 0.2]})
    seen.add("graph error", ok(bad, 400))


def conversation(c: httpx.Client, seen: Seen) -> None:
    app = f"dto-app-{uuid.uuid4().hex[:8]}"
    messages = [
        {"role": "user", "content": "I live in Porto and I work as a nurse.", "timestamp": "2024-03-01T10:00:00Z"},
        {"role": "assistant", "content": "Nice, how long have you been there?", "timestamp": "2024-03-01T10:00:05Z"},
    ]
    accepted = ok(c.post("/api/v1/memories", json={"app_id": app, "user_id": "u1", "messages": messages}), 202)
    seen.add("add memory 202", accepted)
    wait_task(c, accepted["task_id"])
    moved = [{"role": "user", "content": "I moved to Lisbon, I don't live in Porto anymore.",
              "timestamp": "2024-05-01T10:00:00Z"}]  # fmt: skip
    again = ok(c.post("/api/v1/memories", json={"app_id": app, "user_id": "u1", "messages": moved}), 202)
    wait_task(c, again["task_id"])
    found = ok(c.get("/api/v1/memories/query", params={"app_id": app, "query": "Where does the user live?"}))
    seen.add("query response", found)
    seen.add("query memory", *found["memories"])
    first = found["memories"][0]["memory_id"]
    seen.add("get memory", ok(c.get(f"/api/v1/memories/{first}", params={"app_id": app})))
    history = ok(c.get("/api/v1/memories/query", params={"app_id": app, "query": "Porto", "include_invalid": "true"}))
    for m in history["memories"]:
        chain = ok(c.get(f"/api/v1/memories/{m['memory_id']}/evolution", params={"app_id": app}))
        seen.add("evolution response", chain)
        seen.add("evolution memory", *chain["memories"])
        seen.add("evolution metadata", *(x["metadata"] for x in chain["memories"]))
    agent = {"app_id": app, "user_id": "u1", "messages": "User completed onboarding and selected premium plan"}
    agent_accepted = ok(c.post("/api/v1/agent/memories", json=agent), 202)
    seen.add("agent memory 202", agent_accepted)
    wait_task(c, agent_accepted["task_id"])
    summary = {"app_id": app, "user_id": "u1", "session_id": "s1", "messages": messages}
    seen.add("summary 200", ok(c.post("/api/v1/agent/summaries", json=summary)))
    callback = {**summary, "callback_url": "http://127.0.0.1:9/hook"}
    seen.add("summary 202", ok(c.post("/api/v1/agent/summaries", json=callback), 202))
    seen.add("health", ok(c.get("/health")))
    root = ok(c.get("/"))
    seen.add("api information", root)
    seen.add("api information endpoints", root["endpoints"])
    seen.add("pool stats", ok(c.get("/api/v1/system/pool-stats")))
    seen.add("delete memory", ok(c.delete(f"/api/v1/memories/{first}", params={"app_id": app})))
    seen.add("conversation error", ok(c.get(f"/api/v1/memories/{first}", params={"app_id": app}), 404))


def layers(c: httpx.Client, seen: Seen) -> None:
    manager = {"X-Agent-Role": "manager", "X-Agent-Id": "mgr-1"}
    identity = {"layer": "identity", "title": "Language", "content": "The user prefers answers in British English",
                "metadata": {"tags": ["language"], "expiry": "2999-01-01T00:00:00Z"}}  # fmt: skip
    written = ok(c.post("/v1/layers/write", headers=manager, json=identity))
    seen.add("layers write", written)
    routed = {"title": "Auth", "content": "The gateway service validates JWTs before any API call"}
    seen.add("layers write", ok(c.post("/v1/layers/write", headers=manager, json=routed)))
    task = {"layer": "workspace", "title": "Step 2", "content": "Waiting for the invoice export",
            "metadata": {"task_id": "t-7", "valid_at": "2024-01-01T00:00:00Z"}}  # fmt: skip
    ok(c.post("/v1/layers/write", headers=manager, json=task))
    reads = [
        ok(c.post("/v1/layers/read", headers=manager, json={"layer": "identity", "query": "language"})),
        ok(c.post("/v1/layers/read", headers=manager, json={"layer": "workspace", "task_id": "t-7"})),
        ok(c.post("/v1/layers/read", headers=manager, json={"layer": "identity", "id": written["id"]})),
    ]
    for read in reads:
        seen.add("layers read", read)
        seen.add("MemoryObject", *read["results"])
        seen.add("MemoryObject.metadata", *(m["metadata"] for m in read["results"]))
    searched = ok(c.post("/v1/layers/search", headers=manager, json={"query": "British English", "top_k": 5}))
    seen.add("layers search", searched)
    seen.add("MemoryObject", *searched["results"])
    seen.add("MemoryObject.metadata", *(m["metadata"] for m in searched["results"]))
    update = {"id": written["id"], "new_content": "The user prefers British English", "user_confirmed": True}
    seen.add("layers update", ok(c.post("/v1/layers/update", headers=manager, json=update)))
    delete = {"id": written["id"], "user_instruction": True}
    seen.add("layers delete", ok(c.post("/v1/layers/delete", headers=manager, json=delete)))
    user_agent = {"X-Agent-Id": "chat-1"}
    refused = c.post("/v1/layers/read", headers=user_agent, json={"layer": "workspace", "task_id": "t-7"})
    seen.add("layers error", ok(refused, 403))


def tools(c: httpx.Client, seen: Seen) -> None:
    who = {"X-Agent-Id": "agent-a", "X-User-Id": "user-1", "X-Session-Id": "sess-1"}

    def tool(name: str, args: dict[str, Any], status: int = 200) -> dict[str, Any]:
        return dict(ok(c.post(f"/v1/tools/{name}", json=args, headers=who), status))

    added = tool("memory_add", {"content": "User prefers functional programming patterns over OOP",
                                "tags": ["preferences"]})  # fmt: skip
    seen.add("memory_add", added)
    tool("memory_add", {"content": "The user's dog is called Rex"})
    tool("memory_add", {"content": "User was on the night shift in 2023", "validAt": "2023-01-01T00:00:00Z",
                        "invalidAt": "2023-12-31T00:00:00Z"})  # fmt: skip
    for args in (
        {"query": "What are the user's coding preferences?"},
        {"query": "What are the user's coding preferences?", "threshold": 0, "limit": 5, "layers": ["user", "agent"]},
        {"query": "night shift", "threshold": 0, "includeInvalid": True},
    ):
        found = tool("memory_search", args)
        seen.add("memory_search", found)
        seen.add("memory_search result", *found["results"])
    seen.add("memory_delete", tool("memory_delete", {"memoryId": added["memoryId"]}))
    synced = tool("sync_now", {"force": True})
    seen.add("sync_now", synced)
    seen.add("sync_now result", synced["result"])
    status = tool("sync_status", {})
    seen.add("sync_status", status)
    seen.add("sync_status stats", status["stats"])
    queried = tool("knowledge_query", {"query": "database selection"})
    seen.add("knowledge_query", queried)
    seen.add("knowledge_query item", *queried["items"])
    checked = tool("knowledge_check", {"dependencies": [{"name": "mysql2", "version": "3.0.0"}]})
    seen.add("knowledge_check", checked)
    seen.add("knowledge_check violation", *checked["violations"])
    seen.add("knowledge_check constraint", *(v["constraint"] for v in checked["violations"]))
    seen.add("knowledge_check summary", checked["summary"])
    shown = tool("knowledge_show", {"id": "adr-042-database-selection", "includeHistory": True})
    seen.add("knowledge_show", shown)
    seen.add("knowledge_show item", shown["item"])
    seen.add("knowledge_show history", *shown.get("history", []))
    seen.add("ToolError", tool("knowledge_show", {"id": "adr-999"}, 404))


@pytest.fixture(scope="module", params=BACKENDS)
def responses(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[Seen]:
    seen = Seen()
    with (
        live_server_factory(
            fresh_url(request), MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR), MEMLANE_WEBHOOK_ALLOWED_HOSTS=RECEIVER_HOSTS
        ) as server,
        httpx.Client(base_url=server.url, timeout=60) as c,
    ):
        c.headers["X-Tenant-Id"] = f"dto-{uuid.uuid4().hex[:8]}"
        started = time.monotonic()
        graph(c, seen)
        conversation(c, seen)
        layers(c, seen)
        tools(c, seen)
        assert time.monotonic() - started < 600
        yield seen


CODE = re.compile(r"```.*?```|`[^`]+`", re.DOTALL)


def documents(doc: str, name: str) -> bool:
    """Whether docs/<doc> names the field as a word of its code (an inline code span or a block)."""
    word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    return any(word.search(span) for span in CODE.findall((DOCS / doc).read_text()))


@pytest.mark.parametrize("name", sorted(DTOS))
def test_every_spec_dto_has_exactly_its_documented_fields(responses: Seen, name: str) -> None:
    dto = DTOS[name]
    objects = responses.by_dto[name]
    assert objects, f"{name}: no realistic request returned one (the table names a DTO nothing checks)"
    allowed = dto.required | dto.optional | set(dto.extensions)
    for obj in objects:
        keys = set(obj)
        missing = dto.required - set(dto.withheld) - keys
        assert not missing, f"{name} ({dto.spec}): missing {sorted(missing)} in {sorted(keys)}"
        extra = keys - allowed
        assert dto.open or not extra, f"{name} ({dto.spec}): undocumented {sorted(extra)} in {sorted(keys)}"


def test_every_extension_and_withheld_field_is_documented_by_its_surface() -> None:
    for name, dto in DTOS.items():
        for key, doc in {**dto.extensions, **dto.withheld}.items():
            assert documents(doc, key), f"{name}: {key!r} is not documented in docs/{doc}"
        assert not (set(dto.extensions) & (dto.required | dto.optional)), f"{name}: an extension the spec lists"
