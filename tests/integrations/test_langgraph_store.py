"""memlane.integrations.langgraph: LangGraph's BaseStore over a real memlane server, held to
the semantics of LangGraph's own reference store (InMemoryStore) and used by a compiled graph."""

from __future__ import annotations

import itertools
import time
import uuid
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, Item, PutOp
from langgraph.store.memory import InMemoryStore

from memlane.integrations.langgraph import MemlaneStore
from tests.integrations.helpers import API_KEY, OTHER_TENANT_KEY
from tests.support.server import LiveServer


def store_of(server: LiveServer) -> MemlaneStore:
    """A store of its own: a scope prefix no other test writes under."""
    return MemlaneStore(base_url=server.url, api_key=API_KEY, scope_prefix=f"lg{uuid.uuid4().hex[:8]}")


def shape(item: Item | None) -> tuple[Any, ...] | None:
    return None if item is None else (item.namespace, item.key, item.value)


def searchable(store: BaseStore, namespace: tuple[str, ...], query: str, count: int) -> list[Any]:
    """Search until ``count`` items have a score: the server embeds puts in the background, and
    until then an item is found without one (as LangGraph's store returns unindexed items)."""
    deadline = time.monotonic() + 30
    while True:
        found = store.search(namespace, query=query, limit=10)
        if sum(i.score is not None for i in found) >= count:
            return found
        assert time.monotonic() < deadline, f"fewer than {count} items became searchable"
        time.sleep(0.05)


def fill(store: BaseStore) -> None:
    store.put(("users", "alice", "prefs"), "food", {"likes": "sushi", "level": 3})
    store.put(("users", "alice", "prefs"), "drink", {"likes": "green tea", "level": 1})
    store.put(("users", "bob", "prefs"), "food", {"likes": "pizza", "level": 2})
    store.put(("users", "bob", "notes"), "n1", {"text": "Bob is moving to Lisbon"})
    store.put(("docs",), "readme", {"text": "How to run memlane", "tags": ["ops"]})


def test_put_get_update_and_delete_answer_as_langgraphs_store_does(memlane_server: LiveServer) -> None:
    ours, reference = store_of(memlane_server), InMemoryStore()
    for store in (ours, reference):
        fill(store)
        store.put(("users", "alice", "prefs"), "food", {"likes": "ramen", "level": 4})  # an update
        store.delete(("users", "bob", "prefs"), "food")
        store.delete(("users", "bob", "prefs"), "never-written")  # deleting nothing is no error
    alice, bob = ("users", "alice", "prefs"), ("users", "bob", "prefs")
    for namespace, key in [(alice, "food"), (alice, "drink"), (bob, "food"), (("docs",), "readme"), (("docs",), "no")]:
        assert shape(ours.get(namespace, key)) == shape(reference.get(namespace, key)), (namespace, key)
    updated = ours.get(("users", "alice", "prefs"), "food")
    assert updated is not None and updated.created_at <= updated.updated_at


def test_search_without_a_query_lists_and_filters_as_langgraphs_store_does(memlane_server: LiveServer) -> None:
    ours, reference = store_of(memlane_server), InMemoryStore()
    for store in (ours, reference):
        fill(store)

    def keys(store: BaseStore, prefix: tuple[str, ...], **options: Any) -> set[tuple[Any, ...]]:
        return {(i.namespace, i.key) for i in store.search(prefix, **options)}

    for prefix, options in [
        (("users",), {}),
        (("users", "alice"), {}),
        ((), {}),
        (("users",), {"filter": {"likes": "pizza"}}),
        (("users", "alice"), {"filter": {"level": {"$gte": 2}}}),
        (("users", "alice"), {"filter": {"level": {"$lt": 3}, "likes": "green tea"}}),
        (("users", "bob"), {"filter": {"likes": {"$ne": "sushi"}}}),
        (("docs",), {"filter": {"tags": ["ops"]}}),
        (("nobody",), {}),
    ]:
        assert keys(ours, prefix, **options) == keys(reference, prefix, **options), (prefix, options)
    in_order = [i.key for i in ours.search(("users", "alice", "prefs"))]
    assert in_order == [i.key for i in reference.search(("users", "alice", "prefs"))] == ["food", "drink"]
    assert len(ours.search(("users",), limit=2)) == 2 and len(ours.search(("users",), limit=2, offset=3)) == 1


def test_list_namespaces_matches_langgraphs_store(memlane_server: LiveServer) -> None:
    ours, reference = store_of(memlane_server), InMemoryStore()
    for store in (ours, reference):
        fill(store)
    for options in [
        {},
        {"prefix": ("users",)},
        {"suffix": ("prefs",)},
        {"prefix": ("users", "*", "prefs")},
        {"max_depth": 2},
        {"prefix": ("users",), "max_depth": 2},
        {"limit": 2, "offset": 1},
        {"prefix": ("nobody",)},
    ]:
        assert ours.list_namespaces(**options) == reference.list_namespaces(**options), options
    ours.delete(("docs",), "readme")
    assert ("docs",) not in ours.list_namespaces(), "a namespace whose last item was deleted is gone"


def test_search_with_a_query_ranks_the_matching_item_first(memlane_server: LiveServer) -> None:
    store = store_of(memlane_server)
    fill(store)
    found = searchable(store, ("users",), "Which city is Bob moving to? Lisbon", 4)
    assert (found[0].namespace, found[0].key) == (("users", "bob", "notes"), "n1")
    assert found[0].score is not None and all(a.score >= b.score for a, b in itertools.pairwise(found))
    filtered = store.search(("users",), query="Lisbon", filter={"likes": "sushi"})
    assert [(i.namespace, i.key) for i in filtered] == [(("users", "alice", "prefs"), "food")]


def test_an_item_put_with_index_false_is_never_scored_by_a_query(memlane_server: LiveServer) -> None:
    store = store_of(memlane_server)
    store.put(("s",), "hidden", {"text": "the launch code is 1234"}, index=False)
    store.put(("s",), "shown", {"text": "the launch is on Friday"})
    found = searchable(store, ("s",), "launch", 1)
    # as in LangGraph's store: scored items first, then the unindexed ones without a score
    assert [(i.key, i.score is None) for i in found] == [("shown", False), ("hidden", True)]
    assert store.search(("s",), query="launch", limit=1)[0].key == "shown"
    hidden = store.get(("s",), "hidden")
    assert hidden is not None and hidden.value == {"text": "the launch code is 1234"}


async def test_the_async_store_answers_like_the_sync_one(memlane_server: LiveServer) -> None:
    store = store_of(memlane_server)
    await store.aput(("a", "b"), "k1", {"v": 1})
    await store.aput(("a", "c"), "k2", {"v": 2})
    item = await store.aget(("a", "b"), "k1")
    assert item is not None and item.value == {"v": 1}
    assert await store.alist_namespaces(prefix=("a",)) == [("a", "b"), ("a", "c")]
    assert {i.key for i in await store.asearch(("a",), filter={"v": 2})} == {"k2"}
    await store.adelete(("a", "b"), "k1")
    assert await store.aget(("a", "b"), "k1") is None
    assert store.list_namespaces() == [("a", "c")]


def test_a_ttl_is_refused_because_graph_nodes_do_not_expire(memlane_server: LiveServer) -> None:
    store = store_of(memlane_server)
    with pytest.raises(NotImplementedError):
        store.put(("t",), "k", {"v": 1}, ttl=5)
    assert store.get(("t",), "k") is None


def test_a_namespace_label_with_a_period_is_refused_even_in_a_direct_batch(memlane_server: LiveServer) -> None:
    store = store_of(memlane_server)
    with pytest.raises(InvalidNamespaceError):
        store.batch([PutOp(("a.b",), "k", {"v": 1})])
    with pytest.raises(InvalidNamespaceError):
        store.put(("a.b",), "k", {"v": 1})


def test_another_tenants_key_sees_nothing_of_the_store(memlane_server: LiveServer) -> None:
    store = store_of(memlane_server)
    fill(store)
    outsider = MemlaneStore(base_url=memlane_server.url, api_key=OTHER_TENANT_KEY, scope_prefix=store.scope_prefix)
    assert outsider.get(("docs",), "readme") is None
    assert outsider.list_namespaces() == [] and outsider.search(("users",)) == []
    outsider.delete(("docs",), "readme")
    assert store.get(("docs",), "readme") is not None


class ChatState(TypedDict):
    user_id: str
    message: str
    reply: str


def remember(state: ChatState, *, store: BaseStore) -> dict[str, Any]:
    """A graph node that writes what the user said through the store."""
    if state["message"].startswith("remember "):
        fact = state["message"].removeprefix("remember ")
        store.put(("memories", state["user_id"]), f"fact-{len(fact)}", {"fact": fact})
    return {}


def answer(state: ChatState, *, store: BaseStore) -> dict[str, Any]:
    """A graph node that answers from what the store holds for the user."""
    facts = sorted(item.value["fact"] for item in store.search(("memories", state["user_id"])))
    return {"reply": "I know: " + "; ".join(facts) if facts else "I know nothing yet"}


def test_a_compiled_graph_reads_and_writes_memories_through_the_store(memlane_server: LiveServer) -> None:
    builder = StateGraph(ChatState)
    builder.add_node("remember", remember)
    builder.add_node("answer", answer)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "answer")
    builder.add_edge("answer", END)
    store = store_of(memlane_server)
    graph = builder.compile(store=store)
    assert graph.invoke({"user_id": "u1", "message": "hello", "reply": ""})["reply"] == "I know nothing yet"
    graph.invoke({"user_id": "u1", "message": "remember I like tea", "reply": ""})
    graph.invoke({"user_id": "u2", "message": "remember I like coffee", "reply": ""})
    assert graph.invoke({"user_id": "u1", "message": "what?", "reply": ""})["reply"] == "I know: I like tea"
    again = builder.compile(store=MemlaneStore(base_url=memlane_server.url, api_key=API_KEY,
                                               scope_prefix=store.scope_prefix))  # fmt: skip
    assert again.invoke({"user_id": "u2", "message": "what?", "reply": ""})["reply"] == "I know: I like coffee"
