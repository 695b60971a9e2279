"""OpenAI Agents SDK: ``MemlaneSession``, a ``Session`` whose history lives in memlane.

Install with ``pip install 'memlane[openai-agents]'``. How a session is kept (app ``app_id``,
i.e. that scope of the caller's tenant):

- every history item is one node (type ``event``) whose ``slots.agents_item`` holds the item
  as the SDK gave it, and whose text is the item's text, so memlane's recall finds what was
  said; its id is derived from the session and the item's position;
- one index node per session (tier ``cold``: never a recall seed) holds the positions of the
  live items in order; ``add_items`` writes the new items and the index in one commit;
- items are read and deleted through the conversation surface (``GET`` / ``DELETE
  /api/v1/memories/{id}``);
- with ``user_id`` set, the user's and assistant's text messages are also handed to
  ``POST /api/v1/memories``, so memlane's ingestion turns them into long-term notes of that
  user (the conversation surface's notes, found by ``query_memories`` across sessions).

One ``MemlaneSession`` serialises its own changes; two processes changing the same session at
once may lose an index update (the SDK runs one turn of a session at a time).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents.items import TResponseInputItem
from agents.memory.session_settings import SessionSettings

from memlane.client import AsyncMemlaneClient
from memlane.integrations._records import adelete_node, aread_node, client_kwargs, stable_id

#: the roles whose text messages become long-term notes (tool calls and outputs do not)
_REMEMBERED_ROLES = ("user", "assistant")


def item_text(item: Any) -> str | None:
    """The readable text of a history item: a message's content, a tool's output, else None."""
    if not isinstance(item, dict):
        return None
    content = item.get("content", item.get("output"))
    if isinstance(content, str):
        return content or None
    if isinstance(content, list):
        texts = [part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)]
        return "\n".join(texts) or None
    return None


class MemlaneSession:
    """The SDK's ``Session`` protocol (``get_items``, ``add_items``, ``pop_item``,
    ``clear_session``) over a memlane server.

    ``api_key`` (or ``jwt``) authenticates; with auth off, ``tenant_id``, ``agent_id`` and
    ``user_id`` say whom the session acts for. ``client`` reuses an ``AsyncMemlaneClient``
    (its credentials win); without one, each call opens and closes its own.
    """

    session_settings: SessionSettings | None = None

    def __init__(
        self,
        session_id: str,
        *,
        base_url: str = "http://127.0.0.1:8000",
        api_key: str | None = None,
        jwt: str | None = None,
        tenant_id: str | None = None,
        agent_id: str | None = None,
        user_id: str | None = None,
        app_id: str = "openai-agents",
        remember: bool = True,
        timeout: float = 30.0,
        client: AsyncMemlaneClient | None = None,
        session_settings: SessionSettings | None = None,
    ):
        self.session_id = session_id
        self.app_id = app_id
        self.user_id = user_id
        self.remember = remember
        self.session_settings = session_settings
        self._base_url = base_url
        self._client = client
        self._kwargs = client_kwargs(api_key, jwt, tenant_id, agent_id, user_id, timeout)
        self._index_id = stable_id("openai-agents", app_id, session_id)
        self._lock = asyncio.Lock()

    # --- the Session protocol ------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The history, oldest first; with ``limit``, the latest ``limit`` items."""
        async with self._connection() as client:
            positions = (await self._index(client))["positions"]
            if limit is not None:
                positions = positions[-limit:] if limit > 0 else []
            found = await asyncio.gather(*(aread_node(client, self.app_id, self._item_id(p)) for p in positions))
        return [meta["agents_item"] for meta in found if meta is not None and "agents_item" in meta]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        if not items:
            return
        async with self._lock, self._connection() as client:
            index = await self._index(client)
            start = index["next"]
            new = list(range(start, start + len(items)))
            nodes = [self._item_node(p, item) for p, item in zip(new, items, strict=True)]
            index = {"positions": [*index["positions"], *new], "next": start + len(items)}
            await client.write(scope=self.app_id, input_text=f"session {self.session_id}: {len(items)} items",
                               nodes=[*nodes, self._index_node(index)])  # fmt: skip
            await self._remember(client, items)

    async def pop_item(self) -> TResponseInputItem | None:
        """Remove the latest item and return it (None when the session is empty)."""
        async with self._lock, self._connection() as client:
            index = await self._index(client)
            if not index["positions"]:
                return None
            last = index["positions"][-1]
            meta = await aread_node(client, self.app_id, self._item_id(last))
            index["positions"] = index["positions"][:-1]
            await self._write_index(client, index, f"session {self.session_id}: pop")
            await adelete_node(client, self.app_id, self._item_id(last))
        return meta.get("agents_item") if meta is not None else None

    async def clear_session(self) -> None:
        async with self._lock, self._connection() as client:
            index = await self._index(client)
            positions = index["positions"]
            # the index is emptied first: a failure half-way leaves unlisted nodes, never a
            # history that names deleted items; positions keep counting, so ids are never reused
            await self._write_index(client, {"positions": [], "next": index["next"]},
                                    f"session {self.session_id}: clear")  # fmt: skip
            for position in positions:
                await adelete_node(client, self.app_id, self._item_id(position))

    # --- how the session is stored ---------------------------------------------------------
    def _connection(self) -> _Connection:
        return _Connection(self._client, self._base_url, self._kwargs)

    def _item_id(self, position: int) -> str:
        return stable_id("openai-agents", self.app_id, self.session_id, str(position))

    async def _index(self, client: AsyncMemlaneClient) -> dict[str, Any]:
        meta = await aread_node(client, self.app_id, self._index_id)
        stored = (meta or {}).get("agents_session") or {}
        return {"positions": list(stored.get("positions", [])), "next": int(stored.get("next", 0))}

    def _index_node(self, index: dict[str, Any]) -> dict[str, Any]:
        return {"id": self._index_id, "type": "concept", "tier": "cold", "title": f"session {self.session_id}",
                "slots": {"agents_session": {"session_id": self.session_id, **index}}}  # fmt: skip

    async def _write_index(self, client: AsyncMemlaneClient, index: dict[str, Any], why: str) -> None:
        await client.write(scope=self.app_id, input_text=why, nodes=[self._index_node(index)], auto_embed=False)

    def _item_node(self, position: int, item: Any) -> dict[str, Any]:
        role = item.get("role") or item.get("type") if isinstance(item, dict) else None
        # the SDK's items are JSON objects; a round trip makes any model among them plain JSON
        stored = json.loads(json.dumps(item, default=_plain))
        return {"id": self._item_id(position), "type": "event", "title": str(role or "item"),
                "text_summary": item_text(item),
                "slots": {"agents_item": stored, "session_id": self.session_id, "position": position}}  # fmt: skip

    async def _remember(self, client: AsyncMemlaneClient, items: list[TResponseInputItem]) -> None:
        """Hand the text messages to the conversation surface's ingestion (a durable task)."""
        if not self.remember or self.user_id is None:
            return
        messages = []
        for item in items:
            role, text = (item.get("role"), item_text(item)) if isinstance(item, dict) else (None, None)
            if role in _REMEMBERED_ROLES and text:
                messages.append({"role": role, "content": text[:50_000]})
        for start in range(0, len(messages), 30):  # MAX_MESSAGES per request by default
            await client.add_memories(app_id=self.app_id, user_id=self.user_id, session_id=self.session_id,
                                      messages=messages[start : start + 30])  # fmt: skip


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_unset=True)
    raise TypeError(f"a session item holds a {type(value).__name__}, which is not JSON")


class _Connection:
    """The caller's client as it is, or a new one closed at the end of the call."""

    def __init__(self, client: AsyncMemlaneClient | None, base_url: str, kwargs: dict[str, Any]):
        self._given = client
        self._owned: AsyncMemlaneClient | None = None
        self._base_url = base_url
        self._kwargs = kwargs

    async def __aenter__(self) -> AsyncMemlaneClient:
        if self._given is not None:
            return self._given
        self._owned = AsyncMemlaneClient(self._base_url, **self._kwargs)
        return self._owned

    async def __aexit__(self, *exc: object) -> None:
        if self._owned is not None:
            await self._owned.aclose()
