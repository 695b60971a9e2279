"""Free-form JSON (a node's ``slots``, tool and knowledge ``metadata``) has limits: depth 32,
1,000 keys, 64 KiB as compact JSON (``MEMLANE_JSON_MAX_*``). Beyond them a request is a 400
naming the field, on both backends; a body nested beyond what the JSON parser reads is a 400
``invalid_json`` on every operation, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.backends import BACKENDS, fresh_url
from tests.support.server import LiveServer, ServerFactory


def nested(depth: int) -> Any:
    """``depth`` objects in each other: ``{"a": {"a": ... {}}}``."""
    value: Any = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


def write(client: httpx.Client, slots: Any, **more: Any) -> httpx.Response:
    body = {"input_text": "x", "scope": "limits", "nodes": [{"type": "event", "title": "t", "slots": slots}], **more}
    return client.post("/v1/memory/write", json=body)


def refused_field(r: httpx.Response) -> tuple[str, str]:
    assert r.status_code == 400, r.text
    first = r.json()["details"]["errors"][0]
    return first["field"], first["message"]


def test_slots_within_the_limits_are_written(client: httpx.Client) -> None:
    assert write(client, nested(32)).status_code == 200
    assert write(client, {f"k{i}": i for i in range(1000)}).status_code == 200
    assert write(client, {"text": "x" * (64 * 1024 - 20)}).status_code == 200


@pytest.mark.parametrize(
    ("slots", "why"),
    [
        (nested(33), "nested deeper than 32 levels"),
        ({f"k{i}": i for i in range(1001)}, "more than 1000 keys"),
        ({f"k{i}": {"k": i} for i in range(600)}, "more than 1000 keys"),  # keys count over the whole value
        ({"text": "x" * (64 * 1024)}, "more than 65536 bytes"),
        ({"list": [0] * 40_000}, "more than 65536 bytes"),
        ({f"k{i}": 0 for i in range(400_000)}, "more than 1000 keys"),
    ],
)
def test_slots_beyond_the_limits_are_a_400_naming_the_field(client: httpx.Client, slots: Any, why: str) -> None:
    field, message = refused_field(write(client, slots))
    assert field == "nodes[0].slots" and why in message, message


def test_slots_must_be_an_object(client: httpx.Client) -> None:
    for slots in ([1, 2], "text", 3):
        assert refused_field(write(client, slots))[0] == "nodes[0].slots"


def test_a_body_nested_100000_deep_is_invalid_json_on_every_operation(client: httpx.Client) -> None:
    deep = b'{"slots": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    doc = client.get("/openapi.json").json()
    tried = 0
    for template, item in doc["paths"].items():
        for method, op in item.items():
            if "application/json" not in op.get("requestBody", {}).get("content", {}):
                continue
            url = template.replace("{item_id}", "x")
            r = client.request(method, url, content=deep, headers={"content-type": "application/json"})
            assert r.status_code == 400, (method, template, r.text)
            body = r.json()
            assert body.get("error") == "invalid_json" or "not valid JSON" in str(body), (method, template, body)
            tried += 1
    r = client.post("/v1/tools/memory_add", content=deep, headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["errorCode"] == "INVALID_INPUT", r.text
    mcp = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    r = client.post("/mcp", content=deep, headers=mcp)
    assert r.status_code == 400, r.text  # the MCP SDK's JSON-RPC parse error
    assert tried >= 23


def test_tool_metadata_is_held_to_the_same_limits(client: httpx.Client) -> None:
    headers = {"X-User-Id": "u-limits"}
    ok = client.post("/v1/tools/memory_add", headers=headers, json={"content": "c", "metadata": nested(31)})
    assert ok.status_code == 200, ok.text
    for metadata in (nested(32), {f"k{i}": i for i in range(1001)}):
        r = client.post("/v1/tools/memory_add", headers=headers, json={"content": "c", "metadata": metadata})
        assert r.status_code == 400 and r.json()["errorCode"] == "INVALID_INPUT", r.text
        assert r.json()["details"]["field"] == "metadata"
    r = client.post("/v1/tools/memory_add", headers=headers, json={"content": "c", "tags": ["x\ty"]})
    assert r.status_code == 400 and r.json()["details"]["field"] == "tags[0]", r.text


def test_knowledge_metadata_is_held_to_the_same_limits(client: httpx.Client) -> None:
    item = {"id": "adr-limits", "type": "adr", "layer": "team", "title": "Limits", "metadata": nested(33)}
    r = client.post("/v1/knowledge/items", json=item)
    assert r.status_code == 400 and "metadata" in r.json()["message"], r.text
    front = "---\nid: adr-front\ntype: adr\nlayer: team\nmetadata:\n" + "".join(
        "  " * (i + 1) + f"k{i}:\n" for i in range(40)
    )
    doc = {"documents": [{"path": "adr-front.md", "content": front + "  " * 41 + "v: 1\n---\n# Front\n"}]}
    r = client.post("/v1/knowledge/import", json=doc)
    assert r.status_code == 400 and "metadata" in r.json()["message"], r.text


@pytest.fixture(scope="module", params=BACKENDS)
def small_limits(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(
        fresh_url(request), MEMLANE_JSON_MAX_DEPTH="3", MEMLANE_JSON_MAX_KEYS="5", MEMLANE_JSON_MAX_BYTES="300"
    ) as server:
        yield server


def test_the_limits_are_settings(small_limits: LiveServer, tmp_path: Path) -> None:
    with httpx.Client(base_url=small_limits.url, timeout=30) as c:
        assert write(c, {f"k{i}": i for i in range(5)}).status_code == 200
        assert "more than 5 keys" in refused_field(write(c, {f"k{i}": i for i in range(6)}))[1]
        assert "deeper than 3" in refused_field(write(c, nested(4)))[1]
        assert "more than 300 bytes" in refused_field(write(c, {"t": "x" * 300}))[1]
        r = c.post("/v1/tools/memory_add", headers={"X-User-Id": "u"}, json={"content": "c", "metadata": nested(3)})
        assert r.status_code == 400 and r.json()["details"]["field"] == "metadata", r.text
