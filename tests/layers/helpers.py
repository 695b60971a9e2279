"""Helpers for layered-memory API tests: a fresh tenant per test, headers per agent role."""

from __future__ import annotations

import uuid
from typing import Any

import httpx


def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


def as_role(tenant_id: str, role: str | None, agent_id: str | None = None) -> dict[str, str]:
    headers = {"X-Tenant-Id": tenant_id}
    if role is not None:
        headers["X-Agent-Role"] = role
    if agent_id is not None:
        headers["X-Agent-Id"] = agent_id
    return headers


def post(client: httpx.Client, path: str, headers: dict[str, str], body: dict[str, Any]) -> httpx.Response:
    return client.post(f"/v1/layers/{path}", headers=headers, json=body)


def write_ok(client: httpx.Client, headers: dict[str, str], **body: Any) -> str:
    r = post(client, "write", headers, body)
    assert r.status_code == 200, r.text
    assert r.json()["success"] is True
    return str(r.json()["id"])


def assert_error(r: httpx.Response, status: int, error_type: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["success"] is False
    assert body["error_type"] == error_type, body
    assert body["message"]
    return dict(body)
