"""LangChain: ``MemlaneRetriever``, a ``BaseRetriever`` over memlane's ``recall_text``.

Install with ``pip install 'memlane[langchain]'``. Each query is one ``POST
/v1/memory/recall_text`` in ``scope``; every seed becomes a ``Document`` (its text summary,
else its title), in the server's ranking order, at most ``k`` of them.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from memlane.client import AsyncMemlaneClient, MemlaneClient
from memlane.client import models as m


class MemlaneRetriever(BaseRetriever):
    """Documents for a query from one memlane scope, sync (``invoke``) and async (``ainvoke``).

    ``api_key`` (or ``jwt``) authenticates; with auth off, ``tenant_id``, ``agent_id`` and
    ``user_id`` say whom the recall acts for. ``recall_options`` are passed to
    ``recall_text`` as they are (``as_of``, ``consumer_agent_id``...).
    """

    base_url: str = "http://127.0.0.1:8000"
    api_key: str | None = None
    jwt: str | None = None
    tenant_id: str | None = None
    agent_id: str | None = None
    user_id: str | None = None
    scope: str | None = None
    k: int = 4
    timeout: float = 30.0
    recall_options: dict[str, Any] = {}

    def _client_kwargs(self) -> dict[str, Any]:
        return {"api_key": self.api_key, "jwt": self.jwt, "tenant_id": self.tenant_id, "agent_id": self.agent_id,
                "user_id": self.user_id, "timeout": self.timeout}  # fmt: skip

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        with MemlaneClient(self.base_url, **self._client_kwargs()) as client:
            result = client.recall_text(query_text=query, scope=self.scope, limit=self.k, **self.recall_options)
        return self._documents(result)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        async with AsyncMemlaneClient(self.base_url, **self._client_kwargs()) as client:
            result = await client.recall_text(query_text=query, scope=self.scope, limit=self.k, **self.recall_options)
        return self._documents(result)

    def _documents(self, result: m.RecallResult) -> list[Document]:
        return [_document(seed, result.scope) for seed in result.seeds[: self.k]]


def _document(seed: m.Seed, scope: str) -> Document:
    metadata = {"id": seed.id, "type": seed.type, "title": seed.title, "similarity": seed.similarity, "scope": scope}
    return Document(page_content=seed.text_summary or seed.title or "", metadata=metadata, id=seed.id)
