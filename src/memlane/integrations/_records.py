"""What the integrations share: framework objects kept as graph nodes with stable ids.

A key/value item or a session's history needs put/get/delete by a name the framework chooses,
which memlane's node ids give when they are derived from that name (UUID 5): the graph
surface's write creates or updates a node by ``id`` (``POST /v1/memory/write``), and the
conversation surface reads and deletes any node of a scope by id (``GET`` / ``DELETE
/api/v1/memories/{id}?app_id=<scope>``), its ``slots`` coming back in ``metadata``. Ids are
unique per tenant, so two tenants' equal names never meet.
"""

from __future__ import annotations

import uuid
from typing import Any

from memlane.client import AsyncMemlaneClient, MemlaneClient, NotFoundError

#: the UUID 5 namespace of every id an integration derives (fixed: ids must stay stable)
_ID_NAMESPACE = uuid.UUID("5b0f5a3e-8f0e-4c4e-9a57-6d656d6c616e")


def stable_id(*parts: str) -> str:
    """The node id of a framework object named by ``parts`` (the same parts, the same id)."""
    return str(uuid.uuid5(_ID_NAMESPACE, "\x00".join(parts)))


def client_kwargs(
    api_key: str | None, jwt: str | None, tenant_id: str | None, agent_id: str | None, user_id: str | None,
    timeout: float,
) -> dict[str, Any]:  # fmt: skip
    return {"api_key": api_key, "jwt": jwt, "tenant_id": tenant_id, "agent_id": agent_id, "user_id": user_id,
            "timeout": timeout}  # fmt: skip


def read_node(client: MemlaneClient, scope: str, node_id: str) -> dict[str, Any] | None:
    """A node's ``metadata`` (its slots plus ``created_at``, ``updated_at``...), or None."""
    try:
        return client.get_memory(node_id, app_id=scope).metadata
    except NotFoundError:
        return None


async def aread_node(client: AsyncMemlaneClient, scope: str, node_id: str) -> dict[str, Any] | None:
    try:
        return (await client.get_memory(node_id, app_id=scope)).metadata
    except NotFoundError:
        return None


def delete_node(client: MemlaneClient, scope: str, node_id: str) -> bool:
    """Delete a node; False when it was not there (already deleted: the goal is reached)."""
    try:
        client.delete_memory(node_id, app_id=scope)
    except NotFoundError:
        return False
    return True


async def adelete_node(client: AsyncMemlaneClient, scope: str, node_id: str) -> bool:
    try:
        await client.delete_memory(node_id, app_id=scope)
    except NotFoundError:
        return False
    return True
