"""memlane.integrations.langchain: a LangChain retriever over recall_text, against a real server."""

from __future__ import annotations

import time
import uuid

import pytest
from langchain_core.documents import Document

from memlane.client import AuthenticationError, MemlaneClient
from memlane.integrations.langchain import MemlaneRetriever
from tests.integrations.helpers import API_KEY
from tests.support.server import LiveServer

FACTS = {
    "db": "The staging database is PostgreSQL 16 on port 5433",
    "lang": "The billing service is written in Go",
    "cache": "Sessions are cached in Redis for thirty minutes",
}


def written_scope(server: LiveServer) -> tuple[str, dict[str, str]]:
    """A scope of its own holding FACTS, each embedded (searchable) before the test reads."""
    scope = f"lc-{uuid.uuid4().hex[:8]}"
    with MemlaneClient(server.url, api_key=API_KEY) as client:
        written = client.write(
            scope=scope,
            input_text="facts",
            memory_lane="shared",
            nodes=[{"client_id": k, "type": "concept", "text_summary": v} for k, v in FACTS.items()],
        )
        ids = {n.client_id or "": n.id for n in written.nodes}
        deadline = time.monotonic() + 30
        while len(client.recall_text(query_text="service database sessions", scope=scope).seeds) < len(FACTS):
            assert time.monotonic() < deadline, "the facts were never embedded"
            time.sleep(0.05)
    return scope, ids


def test_the_retriever_returns_the_matching_memory_first_as_a_document(memlane_server: LiveServer) -> None:
    scope, ids = written_scope(memlane_server)
    retriever = MemlaneRetriever(base_url=memlane_server.url, api_key=API_KEY, scope=scope, k=2)
    documents = retriever.invoke("Which database does staging use?")
    assert 1 <= len(documents) <= 2 and all(isinstance(d, Document) for d in documents)
    assert documents[0].page_content == FACTS["db"]
    assert documents[0].id == ids["db"] and documents[0].metadata["scope"] == scope


async def test_the_async_retriever_answers_like_the_sync_one(memlane_server: LiveServer) -> None:
    scope, _ = written_scope(memlane_server)
    retriever = MemlaneRetriever(base_url=memlane_server.url, api_key=API_KEY, scope=scope, k=3)
    sync_docs = retriever.invoke("What language is billing written in?")
    async_docs = await retriever.ainvoke("What language is billing written in?")
    assert [d.page_content for d in async_docs] == [d.page_content for d in sync_docs]
    assert async_docs[0].page_content == FACTS["lang"]


def test_the_retriever_sees_nothing_of_another_scope(memlane_server: LiveServer) -> None:
    written_scope(memlane_server)
    empty = f"lc-empty-{uuid.uuid4().hex[:8]}"
    retriever = MemlaneRetriever(base_url=memlane_server.url, api_key=API_KEY, scope=empty)
    assert retriever.invoke("Which database does staging use?") == []


def test_a_wrong_api_key_is_an_authentication_error(memlane_server: LiveServer) -> None:
    retriever = MemlaneRetriever(base_url=memlane_server.url, api_key="not-a-key", scope="anything")
    with pytest.raises(AuthenticationError):
        retriever.invoke("anything")
