"""POST /api/v1/agent/summaries: 200 with the summary, or 202 and a durable webhook delivery
(at most 3 attempts, exponential backoff, no retry on a permanent 4xx)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.conversation.helpers import msg, new_app, wait_task
from tests.support.llm_server import ChatScript, Reply
from tests.support.webhook_receiver import ReceiverScript, webhook_receiver

SUMMARY_FIELDS = {
    "app_id",
    "user_id",
    "session_id",
    "summary",
    "key_points",
    "tags",
    "keywords",
    "semantic_queries",
    "metadata",
    "generated_at",
}
CONVERSATION = [
    msg("I keep hitting the API rate limits when I sync my calendar."),
    msg("The limit is 100 requests per minute; batching the sync helps.", role="assistant"),
    msg("I will switch to the batch endpoint next week."),
]


@pytest.fixture
def receiver() -> Iterator[tuple[str, ReceiverScript]]:
    with webhook_receiver() as r:
        yield r


def test_without_a_callback_the_summary_comes_back_at_once(api: httpx.Client) -> None:
    r = api.post("/api/v1/agent/summaries", json={"app_id": "a", "user_id": "u", "messages": CONVERSATION})
    assert r.status_code == 200, r.text
    body = r.json()
    assert set(body) == SUMMARY_FIELDS
    assert "rate limits" in body["summary"] and body["key_points"].startswith("- ")
    assert "limit" in body["keywords"] or "rate" in body["keywords"]
    assert body["semantic_queries"] and body["metadata"]["generator"] == "extractive"
    assert 1 <= body["metadata"]["conversation_complexity"] <= 5
    assert body["generated_at"].endswith("Z")


def test_a_raw_string_is_summarised_too(api: httpx.Client) -> None:
    text = "Customer reported that invoices from March were duplicated. Support refunded the duplicate charge."
    r = api.post("/api/v1/agent/summaries", json={"app_id": "a", "user_id": "u", "messages": text})
    assert r.status_code == 200
    assert "invoices" in r.json()["summary"]


def test_with_an_llm_the_summarizer_agent_writes_the_summary(llm_api: tuple[httpx.Client, ChatScript]) -> None:
    api, script = llm_api
    script.push(
        "summarizer",
        Reply(
            {
                "summary": "User fights API rate limits.",
                "key_points": ["limit is 100/min", "batch endpoint"],
                "tags": ["api"],
                "keywords": ["rate limits"],
                "semantic_queries": ["api rate limits"],
                "conversation_complexity": 2,
            }
        ),
    )
    r = api.post("/api/v1/agent/summaries", json={"app_id": "a", "user_id": "u", "messages": CONVERSATION})
    assert r.status_code == 200
    body = r.json()
    assert body["summary"] == "User fights API rate limits."
    assert body["key_points"] == "- limit is 100/min\n- batch endpoint"
    assert body["metadata"]["generator"] == "llm" and body["metadata"]["conversation_complexity"] == 2
    assert script.calls == 1


def test_a_summary_the_llm_cannot_produce_is_a_502_not_a_500(llm_api: tuple[httpx.Client, ChatScript]) -> None:
    api, script = llm_api
    script.push("summarizer", Reply("nope"), Reply("still nope"))
    r = api.post("/api/v1/agent/summaries", json={"app_id": "a", "user_id": "u", "messages": CONVERSATION})
    assert r.status_code == 502 and "malformed" in r.json()["detail"]


def test_a_webhook_that_fails_twice_gets_the_summary_on_the_third_attempt(
    api: httpx.Client, receiver: tuple[str, ReceiverScript]
) -> None:
    base, script = receiver
    script.statuses = [500, 503]
    app = new_app()
    r = api.post(
        "/api/v1/agent/summaries",
        json={
            "app_id": app,
            "user_id": "u",
            "session_id": "s9",
            "messages": CONVERSATION,
            "callback_url": f"{base}/hook",
            "callback_headers": {"Authorization": "Bearer secret-123", "X-Trace": "t-1"},
        },
    )
    assert r.status_code == 202, r.text
    accepted = r.json()
    assert accepted["status"] == "accepted" and accepted["session_id"] == "s9"
    task = wait_task(api, accepted["task_id"], timeout=60)
    assert task["status"] == "completed", task
    delivery = task["result"]["delivery"]
    assert delivery["status"] == "delivered" and delivery["attempt_count"] == 3
    assert [a["status_code"] for a in delivery["attempts"]] == [500, 503, 200]
    got = script.for_path("/hook")
    assert [d.answered for d in got] == [500, 503, 200]
    last = got[-1]
    assert last.headers["authorization"] == "Bearer secret-123" and last.headers["x-trace"] == "t-1"
    assert last.headers["x-memlane-task-id"] == accepted["task_id"]
    assert last.body["task_id"] == accepted["task_id"] and last.body["app_id"] == app
    assert set(last.body) >= SUMMARY_FIELDS
    assert got[0].body["summary"] == last.body["summary"], "retries send the summary made once"


def test_the_callback_url_may_come_from_the_header(api: httpx.Client, receiver: tuple[str, ReceiverScript]) -> None:
    base, script = receiver
    r = api.post(
        "/api/v1/agent/summaries",
        json={"app_id": "a", "user_id": "u", "messages": "Long conversation text about pricing plans."},
        headers={"X-Callback-URL": f"{base}/from-header"},
    )
    assert r.status_code == 202
    assert wait_task(api, r.json()["task_id"])["status"] == "completed"
    assert len(script.for_path("/from-header")) == 1


def test_a_permanent_rejection_is_not_retried_and_the_task_says_why(
    api: httpx.Client, receiver: tuple[str, ReceiverScript]
) -> None:
    base, script = receiver
    script.statuses = [400]
    r = api.post(
        "/api/v1/agent/summaries",
        json={"app_id": "a", "user_id": "u", "messages": CONVERSATION, "callback_url": f"{base}/reject"},
    )
    task = wait_task(api, r.json()["task_id"])
    assert task["status"] == "failed"
    assert "HTTP 400" in task["error"] and "not retried" in task["error"]
    assert task["result"]["delivery"]["attempt_count"] == 1
    assert len(script.for_path("/reject")) == 1


def test_a_webhook_that_never_accepts_gets_exactly_three_attempts(
    api: httpx.Client, receiver: tuple[str, ReceiverScript]
) -> None:
    base, script = receiver
    script.statuses = [503, 429, 500, 500, 500]
    r = api.post(
        "/api/v1/agent/summaries",
        json={"app_id": "a", "user_id": "u", "messages": CONVERSATION, "callback_url": f"{base}/down"},
    )
    task = wait_task(api, r.json()["task_id"], timeout=60)
    assert task["status"] == "failed" and "3 times" in task["error"]
    assert len(script.for_path("/down")) == 3


@pytest.mark.parametrize(
    ("extra", "headers", "field"),
    [
        ({"callback_url": "ftp://example.com/x"}, {}, "callback_url"),
        ({"callback_url": "not a url"}, {}, "callback_url"),
        ({}, {"X-Callback-URL": "file:///etc/passwd"}, "X-Callback-URL"),
        ({"callback_url": "http://127.0.0.1:9/x", "callback_headers": {"Host": "evil"}}, {}, "callback_headers"),
        ({"callback_url": "http://127.0.0.1:9/x", "callback_headers": {"bad name": "v"}}, {}, "callback_headers"),
    ],
)
def test_bad_callbacks_are_refused_up_front(
    api: httpx.Client, extra: dict[str, object], headers: dict[str, str], field: str
) -> None:
    body = {"app_id": "a", "user_id": "u", "messages": CONVERSATION, **extra}
    r = api.post("/api/v1/agent/summaries", json=body, headers=headers)
    assert r.status_code == 400, r.text
    assert field in r.json()["detail"]


def test_summaries_validate_messages(api: httpx.Client) -> None:
    cases: list[object] = ["", "   ", [], 42]
    for messages in cases:
        r = api.post("/api/v1/agent/summaries", json={"app_id": "a", "user_id": "u", "messages": messages})
        assert r.status_code == 400, (messages, r.text)
        assert "messages" in r.json()["detail"]


def test_retried_deliveries_send_the_summary_made_once_without_new_llm_calls(
    llm_api: tuple[httpx.Client, ChatScript], receiver: tuple[str, ReceiverScript]
) -> None:
    api, script = llm_api
    base, hooks = receiver
    hooks.statuses = [503, 500]
    summary = {
        "summary": "Calendar sync hits the rate limit.",
        "key_points": ["100 requests per minute"],
        "tags": ["api"],
        "keywords": ["rate limit"],
        "semantic_queries": ["calendar sync limits"],
        "conversation_complexity": 2,
    }
    # a second answer would differ: a regenerated summary could not pass unnoticed
    script.push("summarizer", Reply(summary), Reply({**summary, "summary": "A different summary."}))
    r = api.post(
        "/api/v1/agent/summaries",
        json={"app_id": new_app(), "user_id": "u", "messages": CONVERSATION, "callback_url": f"{base}/llm-hook"},
    )
    assert r.status_code == 202, r.text
    task = wait_task(api, r.json()["task_id"], timeout=60)
    assert task["status"] == "completed" and task["result"]["delivery"]["attempt_count"] == 3
    assert script.calls_by_agent["summarizer"] == 1, "one LLM call for three delivery attempts"
    assert task["result"]["llm_calls"] == 1
    bodies = [d.body["summary"] for d in hooks.for_path("/llm-hook")]
    assert bodies == ["Calendar sync hits the rate limit."] * 3
