"""One MCP client session that calls every tool, shared by the stdio and HTTP tests."""

from __future__ import annotations

import json
from typing import Any

from mcp import ClientSession
from memlane.services.tools.schemas import DESCRIPTIONS, SCHEMAS

EXPECTED = ["memory_add", "memory_search", "memory_delete", "knowledge_query", "knowledge_check", "knowledge_show",
            "sync_now", "sync_status"]  # fmt: skip


async def call(session: ClientSession, name: str, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    result = await session.call_tool(name, args)
    payload = result.structured_content
    assert isinstance(payload, dict), result
    # clients that read only text see the same JSON
    assert json.loads(result.content[0].text) == payload  # type: ignore[union-attr]
    return bool(result.is_error), payload


async def exercise_every_tool(session: ClientSession) -> None:
    await session.initialize()
    listed = await session.list_tools()
    assert [t.name for t in listed.tools] == EXPECTED
    for t in listed.tools:
        assert t.description == DESCRIPTIONS[t.name]
        assert t.input_schema == SCHEMAS[t.name]

    err, added = await call(session, "memory_add", {"content": "The user prefers tabs over spaces", "tags": ["style"]})
    assert not err and added["success"] is True
    # both transports act for user-1: the stdio server's option, the HTTP key's binding
    assert added["identity"]["user"] == "user-1" and added["identity"]["source"] in ("options", "credentials")
    err, found = await call(session, "memory_search", {"query": "tabs over spaces", "threshold": 0.3})
    assert not err and found["results"][0]["memoryId"] == added["memoryId"]
    assert found["results"][0]["layer"] == "user"

    err, q = await call(session, "knowledge_query", {"query": "database selection", "type": "adr"})
    assert not err and q["items"][0]["id"] == "adr-042-database-selection"
    err, shown = await call(session, "knowledge_show", {"id": "adr-042-database-selection", "includeHistory": True})
    assert not err and shown["item"]["severity"] == "block" and shown["history"]
    err, check = await call(session, "knowledge_check", {"dependencies": [{"name": "mysql2", "version": "3.0.0"}]})
    assert not err and check["passed"] is False and check["summary"]["block"] == 1

    err, first = await call(session, "sync_now", {})
    assert not err and first["success"] is True and first["result"]["added"] == 3
    err, second = await call(session, "sync_now", {})
    assert not err and second["result"] == {"added": 0, "updated": 0, "deleted": 0, "unchanged": 3, "failures": 0}
    err, status = await call(session, "sync_status", {})
    assert not err and status["healthy"] is True and status["stats"]["totalSyncs"] == 2

    err, deleted = await call(session, "memory_delete", {"memoryId": added["memoryId"]})
    assert not err and deleted["success"] is True

    # failures are tool errors carrying the ToolError envelope
    err, missing = await call(session, "knowledge_show", {"id": "adr-999"})
    assert err and missing["errorCode"] == "NOT_FOUND" and missing["retryable"] is False
    err, bad = await call(session, "memory_search", {"query": "x", "layers": ["workspace"]})
    assert err and bad["errorCode"] == "INVALID_INPUT"
    err, gone = await call(session, "memory_delete", {"memoryId": added["memoryId"]})
    assert err and gone["errorCode"] == "NOT_FOUND"
