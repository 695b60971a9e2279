"""Webhooks reach public addresses only (SSRF): every spelling of an internal address is refused
at submission, the check holds again at delivery against the address resolved then, no
redirect is followed, and a failed delivery tells the caller a status code and nothing else."""

from __future__ import annotations

import ipaddress
import json
import socket
import socketserver
import sqlite3
import threading
from collections.abc import Iterator

import httpx
import pytest

from memlane.config import Settings
from memlane.jobs.conversation_kinds import CONVERSATION_SUMMARY_CALLBACK
from memlane.services.conversation.webhook_targets import TargetPolicy, TargetRefused, parse_target
from memlane.services.conversation.webhooks import NO_RESPONSE, post_once
from tests.conversation.helpers import msg, wait_task
from tests.support.server import LiveServer, ServerFactory, free_port
from tests.support.webhook_receiver import SCRIPTED_ERROR, ReceiverScript, webhook_receiver

CONVERSATION = [msg("We agreed to ship the billing fix on Friday."), msg("Friday works.", role="assistant")]

#: internal targets, each in spellings a naive check would miss
REFUSED = [
    "http://127.0.0.1/x",
    "http://2130706433/x",
    "http://0x7f.0.0.1/x",
    "http://0177.0.0.1/x",
    "http://127.1/x",
    "http://0x7f000001/x",
    "http://127.0.0.1./x",
    "http://[::1]/x",
    "http://[::ffff:127.0.0.1]/x",
    "http://[::ffff:7f00:1]/x",
    "http://169.254.169.254/latest/meta-data/",
    "http://2852039166/",
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://[::ffff:169.254.169.254]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:a9fe:a9fe::1]/",
    "http://10.0.0.1/x",
    "http://172.16.0.1/x",
    "http://192.168.1.1/x",
    "http://100.64.0.1/x",
    "http://[fd00::1]/x",
    "http://[fe80::1]/x",
    "http://0.0.0.0/x",
    "http://0/x",
    "http://[::]/x",
    "http://224.0.0.1/x",
    "http://[ff02::1]/x",
    "http://240.0.0.1/x",
    "http://255.255.255.255/x",
    "http://192.0.2.10/x",
    "http://localhost/x",
    "http://LOCALHOST./x",
    "http://api.localhost/x",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata.google.internal./computeMetadata/v1/",
    "http://metadata/x",
    "http://printer.local/x",
    "http://router.home.arpa/x",
    "https://user:secret@hooks.example.com/x",
    "http://127.0.0.1:80@hooks.example.com/x",
]


@pytest.fixture(scope="module")
def default_server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    """MEMLANE_WEBHOOK_ALLOWED_HOSTS left at its default (empty)."""
    with live_server_factory() as server:
        yield server


@pytest.mark.parametrize("url", REFUSED)
def test_internal_targets_are_refused_at_submission_in_every_spelling(default_server: LiveServer, url: str) -> None:
    body = {"app_id": "ssrf", "user_id": "u", "messages": CONVERSATION, "callback_url": url}
    with httpx.Client(base_url=default_server.url, timeout=30) as c:
        r = c.post("/api/v1/agent/summaries", json=body)
        assert r.status_code == 400, (url, r.text)
        assert r.json()["detail"].startswith("callback_url")
        header = c.post("/api/v1/agent/summaries", json={**body, "callback_url": None}, headers={"X-Callback-URL": url})
        assert header.status_code == 400 and header.json()["detail"].startswith("X-Callback-URL")


def summary_jobs(server: LiveServer) -> int:
    path = server.settings.storage.resolved_database_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as db:
        return int(
            db.execute("SELECT count(*) FROM jobs WHERE kind = ?", (CONVERSATION_SUMMARY_CALLBACK,)).fetchone()[0]
        )


def test_a_refusal_says_why_and_queues_nothing(default_server: LiveServer) -> None:
    with httpx.Client(base_url=default_server.url, timeout=30) as c:
        before = summary_jobs(default_server)
        r = c.post(
            "/api/v1/agent/summaries",
            json={"app_id": "a", "user_id": "u", "messages": CONVERSATION, "callback_url": "http://0x7f.1/hook"},
        )
        assert r.status_code == 400 and "loopback" in r.json()["detail"]
        assert "MEMLANE_WEBHOOK_ALLOWED_HOSTS" in r.json()["detail"]
        creds = c.post(
            "/api/v1/agent/summaries",
            json={"app_id": "a", "user_id": "u", "messages": CONVERSATION, "callback_url": "http://u:p@1.1.1.1/"},
        )
        assert creds.status_code == 400 and "credentials" in creds.json()["detail"]
        assert summary_jobs(default_server) == before
        # positive control: without a callback the same request is answered at once
        plain = c.post("/api/v1/agent/summaries", json={"app_id": "a", "user_id": "u", "messages": CONVERSATION})
        assert plain.status_code == 200 and plain.json()["summary"]


async def test_public_addresses_pass_and_names_are_judged_by_what_they_resolve_to() -> None:
    answers = {"hooks.example.com": ["93.184.216.34"], "inside.example.com": ["93.184.216.34", "10.1.2.3"]}

    async def resolver(host: str, port: int) -> list[str]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "not found")
        return answers[host]

    policy = TargetPolicy(resolver=resolver)
    assert await policy.addresses(parse_target("https://93.184.216.34/hook")) == [ipaddress.ip_address("93.184.216.34")]
    assert await policy.addresses(parse_target("https://hooks.example.com/hook")) == [
        ipaddress.ip_address("93.184.216.34")
    ]
    with pytest.raises(TargetRefused, match="private"):
        await policy.addresses(parse_target("https://inside.example.com/hook"))  # one bad address is enough
    with pytest.raises(TargetRefused, match="does not resolve"):
        await policy.addresses(parse_target("https://nowhere.example.com/hook"))


async def test_the_allow_list_opens_named_hosts_and_networks_only() -> None:
    async def resolver(host: str, port: int) -> list[str]:
        return {"hooks.corp.example": ["10.20.0.5"], "other.corp.example": ["10.30.0.5"]}[host]

    raw = Settings(
        MEMLANE_WEBHOOK_ALLOWED_HOSTS="hooks.corp.example, 10.40.0.0/16, 127.0.0.1"
    ).conversation.webhook_allowed_hosts
    policy = TargetPolicy.from_setting(raw, resolver=resolver)
    assert await policy.addresses(parse_target("http://hooks.corp.example/x"))  # by name
    assert await policy.addresses(parse_target("http://10.40.7.7/x"))  # in a listed network
    assert await policy.addresses(parse_target("http://127.0.0.1:9/x"))  # a listed address
    for url in ("http://other.corp.example/x", "http://10.41.0.1/x", "http://127.0.0.2/x", "http://[::1]/x"):
        with pytest.raises(TargetRefused):
            await policy.addresses(parse_target(url))
    with pytest.raises(ValueError, match="MEMLANE_WEBHOOK_ALLOWED_HOSTS"):
        Settings(MEMLANE_WEBHOOK_ALLOWED_HOSTS="10.0.0.0/99")


async def test_delivery_connects_to_the_address_it_checked_and_keeps_the_host_name() -> None:
    with webhook_receiver() as (base, script):
        port = httpx.URL(base).port
        asked: list[str] = []

        async def resolver(host: str, p: int) -> list[str]:
            asked.append(host)
            return ["127.0.0.1"]

        policy = TargetPolicy(allowed_networks=(ipaddress.ip_network("127.0.0.1/32"),), resolver=resolver)
        out = await post_once(f"http://hooks.test:{port}/pinned", {"a": 1}, {}, policy=policy, timeout_sec=5)
        assert (out.outcome, out.status_code) == ("delivered", 200)
        [delivery] = script.for_path("/pinned")
        assert delivery.headers["host"] == f"hooks.test:{port}" and delivery.body == {"a": 1}
        assert asked == ["hooks.test"]


async def test_a_name_rebound_to_an_internal_address_after_submission_is_refused_at_delivery() -> None:
    with webhook_receiver() as (base, script):
        port = httpx.URL(base).port
        answers = iter([["93.184.216.34"], ["127.0.0.1"]])

        async def rebinding(host: str, p: int) -> list[str]:
            return next(answers)

        policy = TargetPolicy(resolver=rebinding)
        url = f"http://rebind.example.com:{port}/hook"
        await policy.addresses(parse_target(url))  # what submission sees: a public address
        out = await post_once(url, {"a": 1}, {}, policy=policy, timeout_sec=5)
        assert out.outcome == "permanent" and out.status_code is None
        assert out.error is not None and "loopback" in out.error
        assert script.deliveries == [], "nothing was sent to the rebound address"


def submit(api: httpx.Client, url: str) -> str:
    r = api.post(
        "/api/v1/agent/summaries",
        json={"app_id": "hooks", "user_id": "u", "messages": CONVERSATION, "callback_url": url},
    )
    assert r.status_code == 202, r.text
    return str(r.json()["task_id"])


@pytest.fixture
def receiver() -> Iterator[tuple[str, ReceiverScript]]:
    with webhook_receiver() as r:
        yield r


def test_redirects_are_not_followed_and_reply_bodies_are_not_recorded(
    api: httpx.Client, receiver: tuple[str, ReceiverScript]
) -> None:
    base, script = receiver
    script.statuses = [302]
    task = wait_task(api, submit(api, f"{base}/moved"))
    assert task["status"] == "failed" and "HTTP 302" in task["error"]
    assert [a["status_code"] for a in task["result"]["delivery"]["attempts"]] == [302]
    assert script.for_path("/redirected") == [], "the Location was not followed"
    assert SCRIPTED_ERROR not in json.dumps(task), "the reply's body is never kept"

    script.statuses = [503, 400]
    failed = wait_task(api, submit(api, f"{base}/flaky"), timeout=60)
    assert [a["error"] for a in failed["result"]["delivery"]["attempts"]] == ["HTTP 503", "HTTP 400"]
    assert SCRIPTED_ERROR not in json.dumps(failed)


class _NotHttp(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")
        self.request.recv(1024)


def test_a_closed_port_and_an_open_non_http_port_look_the_same(api: httpx.Client) -> None:
    closed = free_port()
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _NotHttp)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        open_port = server.server_address[1]
        tasks = [submit(api, f"http://127.0.0.1:{port}/x") for port in (closed, open_port)]
        seen = [wait_task(api, t, timeout=60) for t in tasks]
    finally:
        server.shutdown()
        server.server_close()
    views = []
    for task, port in zip(seen, (closed, open_port), strict=True):
        assert task["status"] == "failed"
        delivery = task["result"]["delivery"]
        views.append(
            (
                task["error"].replace(str(port), "PORT"),
                delivery["attempts"],
                delivery["callback_url"].replace(str(port), "PORT"),
            )
        )
    assert views[0] == views[1]
    assert [a["error"] for a in views[0][1]] == [NO_RESPONSE] * 3
    assert all(set(a) == {"attempt", "outcome", "status_code", "error"} for a in views[0][1]), "no timing"
