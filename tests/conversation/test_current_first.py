"""Current first on every surface that ranks memories for a question (services/ranking/
succession.py): when a later message changes a fact in words no conflict rule knows, the old
note stays active, but the new one answers first; both are still returned, and facts that only
add are all kept. Closing by succession (on by default) would close the old note of these
pairs, so the ranking is tested with it off, where it is what stands between the two."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.conversation.helpers import query
from tests.conversation.test_changed_facts import active_documents, say
from tests.support.server import ServerFactory


@pytest.fixture(scope="module")
def api(live_server_factory: ServerFactory) -> Iterator[httpx.Client]:
    """The offline extractor with closing by succession off: only the ranking orders the two."""
    with (
        live_server_factory(MEMLANE_CLOSE_BY_SUCCESSION=False) as server,
        httpx.Client(base_url=server.url, timeout=30) as client,
    ):
        yield client


#: said in words the conflict rules do not read as a change, and less like the question than
#: the old note is, so without the rule the old note answers first on all three surfaces
OLD = "The laptop I use for work is a Dell XPS."
NEW = "My work laptop these days: a Framework 13."
QUESTION = "Which laptop does the user use for work?"


def test_a_changed_fact_no_rule_closes_is_answered_first_and_the_old_one_kept(api: httpx.Client) -> None:
    app = f"app-{uuid.uuid4().hex[:10]}"
    say(api, app, OLD, day=1)
    say(api, app, NEW, day=9)
    assert sum("Dell" in d for d in active_documents(api, app)) == 1  # no rule closed the old note
    documents = [m["document"] for m in query(api, app, QUESTION)]
    assert "Framework" in documents[0] and any("Dell" in d for d in documents[1:]), documents


def test_recall_text_answers_with_the_later_fact_first(api: httpx.Client) -> None:
    app = f"app-{uuid.uuid4().hex[:10]}"
    say(api, app, OLD, day=1)
    say(api, app, NEW, day=9)
    r = api.post("/v1/memory/recall_text", json={"scope": app, "query_text": QUESTION})
    assert r.status_code == 200, r.text
    items = [str(i.get("text_summary") or i.get("title")) for i in r.json()["context"]["items"]]
    assert "Framework" in items[0] and any("Dell" in i for i in items[1:]), items


def test_memory_search_answers_with_the_later_fact_first(api: httpx.Client) -> None:
    headers = {"X-Tenant-Id": f"cf-{uuid.uuid4().hex[:8]}", "X-Agent-Id": "agent-a", "X-User-Id": "user-1"}
    for content in ("User's laptop for work is a Dell XPS.", "User switched laptop for work: Framework 13."):
        r = api.post("/v1/tools/memory_add", json={"content": content}, headers=headers)
        assert r.status_code == 200, r.text
    r = api.post("/v1/tools/memory_search", json={"query": QUESTION, "threshold": 0.0}, headers=headers)
    assert r.status_code == 200, r.text
    contents = [hit["content"] for hit in r.json()["results"]]
    assert "Framework" in contents[0] and any("Dell" in c for c in contents[1:]), contents


def test_a_later_fact_that_answers_another_question_does_not_pass_the_answer(api: httpx.Client) -> None:
    app = f"app-{uuid.uuid4().hex[:10]}"
    say(api, app, "I live in Hackney, in a flat above a bakery in Hackney.", day=1)
    say(api, app, "The office of my team moved to King's Cross this month.", day=9)  # a change, of another thing
    documents = [m["document"] for m in query(api, app, "Where does the user live? In Hackney?")]
    assert "Hackney" in documents[0], documents


def test_facts_that_only_add_are_all_returned(api: httpx.Client) -> None:
    app = f"app-{uuid.uuid4().hex[:10]}"
    say(api, app, "We have a beagle called Biscuit.", day=1)
    say(api, app, "We also adopted a rabbit called Clover last week.", day=9)
    documents = " ".join(m["document"] for m in query(api, app, "What pets does the user have?"))
    assert "Biscuit" in documents and "Clover" in documents
