"""The agent-tools spec's examples in the order an agent would send them, shared by every
transport (``POST /v1/tools/{name}``, MCP over streamable HTTP, MCP over stdio).

The server runs the default embedding model (all-MiniLM-L6-v2) so the default threshold
(0.7) is tested on the scores users get, and the spec's ADR from examples/adr is loaded.
No identity is sent: the calls act for the configured defaults and say so in ``identity``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tests.spec_examples import agent_tools_examples as ex
from tests.spec_examples import shapes

Call = Callable[[str, dict[str, Any]], Awaitable[tuple[bool, dict[str, Any]]]]
DEFAULT_IDENTITY = {"agent": "default", "user": "default", "session": "default", "team": None}


async def send(call: Call, example: ex.ToolExample) -> dict[str, Any]:
    """Send an example as written; it must succeed and have the documented shape."""
    failed, out = await call(example.tool, dict(example.args))
    assert not failed, f"{example.label}: {out}"
    shapes.TOOL_SHAPES[example.tool](out)
    return out


async def seed(call: Call, content: str, layer: str, tags: list[str]) -> str:
    failed, out = await call("memory_add", {"content": content, "layer": layer, "tags": tags})
    assert not failed, out
    return str(out["memoryId"])


async def run_every_example(call: Call, *, source: str = "defaults") -> None:
    # Principle 2: the minimal call works with no identifiers, in the user layer of the default user
    added = await send(call, ex.MINIMAL_ADD)
    assert {k: added["identity"][k] for k in DEFAULT_IDENTITY} == DEFAULT_IDENTITY
    assert added["identity"]["source"] == source

    # memories the searches below must tell apart (not spec examples: what a real store holds)
    unrelated = await seed(call, "The office plants are watered on Mondays", "user", ["office"])
    infra = await seed(call, "Our preferred database is PostgreSQL", "project", ["infrastructure"])
    untagged = await seed(call, "The team prefers PostgreSQL as its database", "project", ["team-notes"])

    # Principle 3, basic: every layer the default identity reaches is searched (team needs a team)
    basic = await send(call, ex.BASIC_SEARCH)
    assert basic["searchedLayers"] == ["agent", "session", "user", "project", "org", "company"]
    found = [r["memoryId"] for r in basic["results"]]
    assert infra in found and untagged in found and unrelated not in found

    # Principle 3, advanced: layers, threshold and filter.tags all apply
    advanced = await send(call, ex.ADVANCED_SEARCH)
    assert advanced["searchedLayers"] == ["project", "org"]
    assert [r["memoryId"] for r in advanced["results"]] == [infra]
    assert all(r["score"] >= 0.8 and "infrastructure" in r["tags"] for r in advanced["results"])

    # Principle 5: no identifiers, the context (configured defaults) is used
    context = await send(call, ex.CONTEXT_SEARCH)
    assert "user" in context["searchedLayers"] and "session" in context["searchedLayers"]
    assert context["identity"]["defaulted"] == ["agent", "user", "session"]

    # memory_add and memory_search examples: the default threshold finds the example memory
    stored = await send(call, ex.ADD)
    assert set(stored) == {"success", "memoryId", "message", "identity"}
    search = await send(call, ex.SEARCH)
    assert search["searchedLayers"] == ["user", "project"]
    top = search["results"][0]
    assert top["content"] == "User prefers functional programming patterns over OOP"
    assert top["memoryId"] == stored["memoryId"] and top["layer"] == "user"
    assert top["tags"] == ["preferences", "coding-style"] and top["score"] >= 0.7
    assert unrelated not in [r["memoryId"] for r in search["results"]]
    assert search["totalCount"] >= len(search["results"]) and len(search["results"]) <= 5

    # knowledge examples against the spec's ADR (examples/adr)
    query = await send(call, ex.KNOWLEDGE_QUERY)
    item = query["items"][0]
    assert item["id"] == "adr-042-database-selection" and item["layer"] == "org" and item["status"] == "accepted"
    assert item["title"] == "Database Selection for New Services" and item["hasConstraints"] is True
    assert item["tags"] == ["database", "infrastructure"]

    check = await send(call, ex.KNOWLEDGE_CHECK)
    assert check["passed"] is False and check["summary"]["block"] >= 1
    violation = check["violations"][0]
    assert violation["knowledgeItemId"] == "adr-042-database-selection"
    assert violation["constraint"]["operator"] == "must_not_use" and violation["constraint"]["target"] == "dependency"
    assert "mysql2" in violation["constraint"]["pattern"].split("|") and violation["severity"] == "block"
    assert violation["message"] == "MySQL not allowed for new services per ADR-042. Use PostgreSQL instead."

    failed, error = await call(ex.ERROR_SHOW.tool, dict(ex.ERROR_SHOW.args))
    assert failed
    shapes.tool_error(error, "NOT_FOUND")
    assert error["message"] == "Knowledge item 'adr-999' not found" and error["retryable"] is False
    assert error["details"]["requestedId"] == "adr-999"

    shown = await send(call, ex.SHOW)
    assert shown["item"]["constraints"] and shown["item"]["supersedes"] == "adr-017-mysql-default"

    synced = await send(call, ex.SYNC_NOW)
    assert synced["success"] is True and synced["result"]["added"] >= 1
    status = await send(call, ex.SYNC_STATUS)
    assert status["healthy"] is True and status["lastSyncAt"] is not None

    removed = await send(call, ex.ToolExample(ex.DELETE.label, "memory_delete", ex.DELETE.text,
                                              {"memoryId": stored["memoryId"]}))  # fmt: skip
    assert removed["success"] is True
    again = await send(call, ex.SEARCH)
    assert stored["memoryId"] not in [r["memoryId"] for r in again["results"]]
