"""A live server whose knowledge folder is examples/adr, and per-test tenants."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx

ADR_DIR = Path(__file__).resolve().parents[2] / "examples" / "adr"


def tenant() -> str:
    return f"k-{uuid.uuid4().hex[:10]}"


def tool(client: httpx.Client, t: str, name: str, args: dict[str, Any], **headers: str) -> httpx.Response:
    return client.post(f"/v1/tools/{name}", json=args, headers={"X-Tenant-Id": t, **headers})
