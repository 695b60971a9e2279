"""The requests OmniMemory's REST example client (its "customer support via REST API"
walkthrough) sends, one method per call, with the same paths, bodies and query parameters.

OmniMemory cannot be installed here, so this is a reconstruction, written for memlane from
the conversation spec (conversation-memory-api.md), issue 17 and a reading of the public
example's requests; no code was copied. Faithful details that matter: messages carry only
``role`` and ``content`` (no timestamp); ``session_id`` and ``similarity_threshold`` are sent
only when truthy; every response goes through ``raise_for_status`` (any 4xx/5xx fails a step);
the batcher is fed one message per request.
"""

from __future__ import annotations

from typing import Any

import httpx


class OmniMemoryExampleClient:
    def __init__(self, base_url: str):
        self.base_url = base_url
        self.client = httpx.AsyncClient(timeout=30.0)

    async def close(self) -> None:
        await self.client.aclose()

    async def _json(self, response: httpx.Response) -> Any:
        response.raise_for_status()
        return response.json()

    @staticmethod
    def _body(app_id: str, user_id: str, messages: Any, session_id: str | None) -> dict[str, Any]:
        payload: dict[str, Any] = {"app_id": app_id, "user_id": user_id, "messages": messages}
        if session_id:
            payload["session_id"] = session_id
        return payload

    async def health_check(self) -> Any:
        return await self._json(await self.client.get(f"{self.base_url}/health"))

    async def add_memory(self, app_id: str, user_id: str, messages: list[Any], session_id: str | None = None) -> Any:
        body = self._body(app_id, user_id, messages, session_id)
        return await self._json(await self.client.post(f"{self.base_url}/api/v1/memories", json=body))

    async def add_agent_memory(self, app_id: str, user_id: str, messages: Any, session_id: str | None = None) -> Any:
        body = self._body(app_id, user_id, messages, session_id)
        return await self._json(await self.client.post(f"{self.base_url}/api/v1/agent/memories", json=body))

    async def query_memory(
        self,
        app_id: str,
        query: str,
        user_id: str | None = None,
        session_id: str | None = None,
        n_results: int = 5,
        similarity_threshold: float | None = None,
    ) -> Any:
        params: dict[str, Any] = {"app_id": app_id, "query": query}
        if user_id:
            params["user_id"] = user_id
        if session_id:
            params["session_id"] = session_id
        if n_results:
            params["n_results"] = n_results
        if similarity_threshold:
            params["similarity_threshold"] = similarity_threshold
        return await self._json(await self.client.get(f"{self.base_url}/api/v1/memories/query", params=params))

    async def get_memory(self, app_id: str, memory_id: str) -> Any:
        url = f"{self.base_url}/api/v1/memories/{memory_id}"
        return await self._json(await self.client.get(url, params={"app_id": app_id}))

    async def delete_memory(self, app_id: str, memory_id: str) -> Any:
        url = f"{self.base_url}/api/v1/memories/{memory_id}"
        return await self._json(await self.client.delete(url, params={"app_id": app_id}))

    async def traverse_evolution(self, app_id: str, memory_id: str) -> Any:
        url = f"{self.base_url}/api/v1/memories/{memory_id}/evolution"
        return await self._json(await self.client.get(url, params={"app_id": app_id}))

    async def summarize_conversation(
        self,
        app_id: str,
        user_id: str,
        messages: Any,
        callback_url: str | None = None,
        session_id: str | None = None,
    ) -> Any:
        body = self._body(app_id, user_id, messages, session_id)
        if callback_url:
            body["callback_url"] = callback_url
        return await self._json(await self.client.post(f"{self.base_url}/api/v1/agent/summaries", json=body))

    async def batch_add_messages(
        self, app_id: str, user_id: str, messages: list[Any], session_id: str | None = None
    ) -> Any:
        body = self._body(app_id, user_id, messages, session_id)
        return await self._json(await self.client.post(f"{self.base_url}/api/v1/memory-batcher/messages", json=body))

    async def get_pool_stats(self) -> Any:
        return await self._json(await self.client.get(f"{self.base_url}/api/v1/system/pool-stats"))


#: the example's customer-support conversation (role and content only, as it sends them)
BILLING_CONVERSATION: list[dict[str, str]] = [
    {"role": "user", "content": "Hi, I need help with billing"},
    {"role": "assistant", "content": "I'd be happy to help with your billing question"},
    {"role": "user", "content": "Why was I charged twice this month?"},
    {"role": "assistant", "content": "Let me look into your billing history"},
    {"role": "user", "content": "I'm on the annual plan, not monthly"},
    {"role": "assistant", "content": "I see the issue - there was a duplicate charge"},
    {"role": "user", "content": "Can you refund the extra charge?"},
    {"role": "assistant", "content": "Absolutely, I'm processing the refund now"},
    {"role": "user", "content": "Thanks! Also, please update my payment method to the new card ending in 4567"},
    {"role": "assistant", "content": "Done! Your payment method has been updated"},
]

#: streamed to the batcher one message per request
STREAM: list[dict[str, str]] = [
    {"role": "user", "content": "The refund appeared in my account!"},
    {"role": "assistant", "content": "Wonderful! I'm glad it was processed quickly"},
    {"role": "user", "content": "Yes, thank you for the excellent service"},
    {"role": "assistant", "content": "You're welcome! Is there anything else?"},
    {"role": "user", "content": "I also want to know when my subscription expires"},
    {"role": "assistant", "content": "Your subscription is valid until December 2025."},
    {"role": "user", "content": "That's great news, thank you."},
    {"role": "assistant", "content": "You're welcome! Do you have any other questions?"},
    {"role": "user", "content": "No, that's all for now."},
    {"role": "assistant", "content": "Have a wonderful day!"},
    {"role": "user", "content": "Goodbye!"},
]
