"""With an LLM configured, a write without a layer is routed by the model (an OpenAI-compatible
chat server on loopback); when the model fails, the offline rules decide and the reason says so."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.layers.helpers import as_role, post, tenant
from tests.support.llm_server import ChatScript, Reply, chat_server
from tests.support.server import LiveServer, ServerFactory

AGENT = "layer-router"


@pytest.fixture(scope="module")
def llm() -> Iterator[tuple[str, ChatScript]]:
    with chat_server() as s:
        yield s


@pytest.fixture(scope="module")
def server(llm: tuple[str, ChatScript], live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(MEMLANE_LLM_BASE_URL=llm[0], MEMLANE_LLM_MODEL="router") as s:
        yield s


@pytest.fixture
def script(llm: tuple[str, ChatScript]) -> Iterator[ChatScript]:
    llm[1].reset()
    yield llm[1]
    llm[1].reset()


def test_the_model_decides_the_layer_and_its_reason_is_returned(server: LiveServer, script: ChatScript) -> None:
    script.push(AGENT, Reply({"layer": "project", "reason": "describes how the billing system is deployed"}))
    with httpx.Client(base_url=server.url) as c:
        r = post(
            c, "write", as_role(tenant(), "manager"), {"title": "Billing", "content": "Billing runs nightly at 2am"}
        )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["layer"] == "project"
    assert body["routing"] == {
        "layer": "project",
        "reason": "describes how the billing system is deployed",
        "classifier": "llm",
    }
    [request] = script.requests
    assert "Billing runs nightly at 2am" in request["body"]["messages"][1]["content"]
    assert request["body"]["model"] == "router"


def test_a_failing_model_falls_back_to_the_rules(server: LiveServer, script: ChatScript) -> None:
    script.push(AGENT, Reply(status=503))
    with httpx.Client(base_url=server.url) as c:
        r = post(
            c, "write", as_role(tenant(), "manager"), {"title": "Profile", "content": "The user prefers short answers"}
        )
    assert r.status_code == 200, r.text
    routing = r.json()["routing"]
    assert routing["layer"] == "identity"
    assert routing["classifier"] == "rules"
    assert routing["reason"].startswith("LLM routing failed")


def test_a_model_answer_outside_the_layers_is_not_trusted(server: LiveServer, script: ChatScript) -> None:
    script.push(AGENT, Reply({"layer": "global", "reason": "x"}), Reply({"layer": "everything", "reason": "y"}))
    with httpx.Client(base_url=server.url) as c:
        r = post(
            c,
            "write",
            as_role(tenant(), "planner"),
            {"title": "Run", "content": "Currently executing step 2 of the task"},
        )
    assert r.status_code == 200, r.text
    assert r.json()["layer"] == "workspace"
    assert r.json()["routing"]["classifier"] == "rules"
    assert script.calls_by_agent[AGENT] == 2
