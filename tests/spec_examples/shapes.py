"""The response shapes the specs document, as checks: every documented field is there with
its documented type (memlane may add fields beside them, e.g. ``identity``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NUMBER = (int, float)


def has(obj: Any, fields: Mapping[str, type | tuple[type, ...]], where: str) -> None:
    assert isinstance(obj, dict), f"{where}: not an object: {obj!r}"
    for name, kind in fields.items():
        assert name in obj, f"{where}: missing {name!r} in {obj!r}"
        assert isinstance(obj[name], kind), f"{where}.{name}: {obj[name]!r} is not {kind}"


def tool_error(body: dict[str, Any], code: str) -> None:
    has(body, {"success": bool, "errorCode": str, "message": str, "retryable": bool}, "ToolError")
    assert body["success"] is False and body["errorCode"] == code


def memory_add(out: dict[str, Any]) -> None:
    has(out, {"success": bool, "memoryId": str, "message": str}, "MemoryAddOutput")
    assert out["success"] is True and out["message"] == "Memory stored successfully"


def memory_search(out: dict[str, Any]) -> None:
    has(out, {"success": bool, "results": list, "totalCount": int, "searchedLayers": list}, "MemorySearchOutput")
    assert out["success"] is True
    for r in out["results"]:
        has(r, {"content": str, "layer": str, "score": NUMBER, "memoryId": str, "tags": list}, "results[]")
        assert 0.0 <= r["score"] <= 1.0


def knowledge_query(out: dict[str, Any]) -> None:
    has(out, {"success": bool, "items": list, "totalCount": int}, "KnowledgeQueryOutput")
    for item in out["items"]:
        has(item, {"id": str, "type": str, "layer": str, "title": str, "summary": str, "status": str, "tags": list,
                   "hasConstraints": bool}, "items[]")  # fmt: skip


def knowledge_check(out: dict[str, Any]) -> None:
    has(out, {"passed": bool, "violations": list, "summary": dict}, "KnowledgeCheckOutput")
    has(out["summary"], {"info": int, "warn": int, "block": int}, "summary")
    for v in out["violations"]:
        has(v, {"knowledgeItemId": str, "knowledgeItemTitle": str, "constraint": dict, "severity": str,
                "message": str}, "violations[]")  # fmt: skip
        has(v["constraint"], {"operator": str, "target": str, "pattern": str}, "constraint")
        assert v["severity"] in ("info", "warn", "block")


def knowledge_show(out: dict[str, Any]) -> None:
    has(out, {"success": bool, "item": dict}, "KnowledgeShowOutput")
    has(out["item"], {"id": str, "type": str, "layer": str, "title": str, "summary": str, "content": str,
                      "status": str, "severity": str, "tags": list, "metadata": dict, "createdAt": str,
                      "updatedAt": str}, "item")  # fmt: skip


def sync_now(out: dict[str, Any]) -> None:
    has(out, {"success": bool, "result": dict, "durationMs": NUMBER, "message": str}, "SyncNowOutput")
    has(out["result"], dict.fromkeys(("added", "updated", "deleted", "unchanged", "failures"), int), "result")


def sync_status(out: dict[str, Any]) -> None:
    has(out, {"healthy": bool, "timeSinceSync": str, "failedItems": int, "stats": dict}, "SyncStatusOutput")
    assert "lastSyncAt" in out and (out["lastSyncAt"] is None or isinstance(out["lastSyncAt"], str))
    has(out["stats"], {"totalSyncs": int, "totalItemsSynced": int, "avgSyncDurationMs": NUMBER}, "stats")


def memory_delete(out: dict[str, Any]) -> None:
    has(out, {"success": bool, "message": str}, "MemoryDeleteOutput")
    assert out["success"] is True


TOOL_SHAPES = {
    "memory_add": memory_add,
    "memory_search": memory_search,
    "memory_delete": memory_delete,
    "knowledge_query": knowledge_query,
    "knowledge_check": knowledge_check,
    "knowledge_show": knowledge_show,
    "sync_now": sync_now,
    "sync_status": sync_status,
}
