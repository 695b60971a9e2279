"""Trying to get in: API keys and JWTs, forged tenants and identities, on a real server."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest

from tests.support.memory_api import new_scope, unit
from tests.support.server import LiveServer, ServerFactory

SECRET = "jwt-test-secret-0123456789abcdef0123456789"
ALICE_KEY = "key-alice-7f3a9"
BOB_KEY = "key-bob-1c2d3"
CAROL_KEY = "key-carol-tenant-b"
HASHED_KEY = "key-stored-as-hash"
KEYS = {
    ALICE_KEY: {"tenant_id": "acme", "agent_id": "alice", "team_id": "red"},
    BOB_KEY: {"tenant_id": "acme", "agent_id": "bob", "team_id": "blue"},
    CAROL_KEY: {"tenant_id": "globex", "agent_id": "carol"},
    "sha256:" + hashlib.sha256(HASHED_KEY.encode()).hexdigest(): {"tenant_id": "acme", "agent_id": "dave"},
}


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture(scope="module")
def logs() -> Iterator[Captured]:
    """Every record at every level: a key logged at INFO or DEBUG must be caught too, and the
    root logger's default level (WARNING) would drop those before any handler saw them."""
    handler = Captured()
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.DEBUG)
    root.addHandler(handler)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture(scope="module")
def server(logs: Captured, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(
        MEMORY_AUTH_MODE="api_key_or_jwt",
        MEMORY_API_KEYS_JSON=json.dumps(KEYS),
        MEMORY_JWT_HS256_SECRET=SECRET,
        MEMORY_JWT_CLOCK_SKEW_SEC=5,
    ) as s:
        yield s


@pytest.fixture
def c(server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def token(claims: dict[str, Any], secret: str = SECRET, alg: str = "HS256") -> str:
    return jwt.encode(claims, secret, algorithm=alg)


def as_key(key: str) -> dict[str, str]:
    return {"X-Api-Key": key}


def as_jwt(tok: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tok}"}


def write_body(scope: str, **extra: Any) -> dict[str, Any]:
    return {
        "scope": scope,
        "input_text": "x",
        "nodes": [{"type": "event", "title": "t", "embedding": unit(1)}],
        **extra,
    }


def recall_body(scope: str, **extra: Any) -> dict[str, Any]:
    return {"scope": scope, "query_embedding": unit(1), **extra}


def test_requests_without_credentials_are_401(c: httpx.Client) -> None:
    for path, body in (
        ("/v1/memory/write", write_body("s")),
        ("/v1/memory/recall", recall_body("s")),
        ("/v1/memory/recall_text", {"query_text": "x"}),
    ):
        r = c.post(path, json=body)
        assert r.status_code == 401, path
        assert r.json()["error"] == "unauthorized"


def test_credentials_are_checked_before_the_body(c: httpx.Client) -> None:
    assert c.post("/v1/memory/recall", json={"limit": "nonsense"}).status_code == 401


def test_unknown_api_key_is_401(c: httpx.Client) -> None:
    r = c.post("/v1/memory/recall", json=recall_body("s"), headers=as_key("key-alice-7f3a"))
    assert r.status_code == 401 and r.json()["error"] == "invalid_api_key"


def test_a_key_stored_as_sha256_authenticates(c: httpx.Client) -> None:
    r = c.post("/v1/memory/recall", json=recall_body("s"), headers=as_key(HASHED_KEY))
    assert r.status_code == 200 and r.json()["tenant_id"] == "acme"


def test_the_bound_tenant_is_used_and_cannot_be_changed(c: httpx.Client) -> None:
    ok = c.post("/v1/memory/recall", json=recall_body("s"), headers=as_key(ALICE_KEY))
    assert ok.json()["tenant_id"] == "acme"
    same = c.post("/v1/memory/recall", json=recall_body("s", tenant_id="acme"), headers=as_key(ALICE_KEY))
    assert same.status_code == 200
    body = c.post("/v1/memory/recall", json=recall_body("s", tenant_id="globex"), headers=as_key(ALICE_KEY))
    assert body.status_code == 403 and body.json()["error"] == "tenant_mismatch"
    header = c.post("/v1/memory/write", json=write_body("s"), headers={**as_key(ALICE_KEY), "X-Tenant-Id": "globex"})
    assert header.status_code == 403


def test_forged_identity_fields_are_403_identity_mismatch(c: httpx.Client) -> None:
    cases = [
        ("/v1/memory/recall", recall_body("s", consumer_agent_id="bob")),
        ("/v1/memory/recall", recall_body("s", consumer_team_id="blue")),
        ("/v1/memory/write", write_body("s", producer_agent_id="bob")),
        ("/v1/memory/write", write_body("s", owner_agent_id="bob")),
        ("/v1/memory/write", {"scope": "s", "input_text": "x", "nodes": [{"type": "event", "owner_team_id": "blue"}]}),
    ]
    for path, body in cases:
        r = c.post(path, json=body, headers=as_key(ALICE_KEY))
        assert r.status_code == 403, (path, body, r.text)
        assert r.json()["error"] == "identity_mismatch"


def test_private_writes_belong_to_the_caller_and_stay_private(c: httpx.Client) -> None:
    scope = new_scope()
    w = c.post("/v1/memory/write", json=write_body(scope), headers=as_key(ALICE_KEY))
    assert w.status_code == 200
    mine = c.post("/v1/memory/recall", json=recall_body(scope, include_meta=True), headers=as_key(ALICE_KEY)).json()
    [node] = mine["subgraph"]["nodes"]
    assert (node["memory_lane"], node["owner_agent_id"], node["producer_agent_id"]) == ("private", "alice", "alice")
    theirs = c.post("/v1/memory/recall", json=recall_body(scope), headers=as_key(BOB_KEY)).json()
    assert theirs["seeds"] == [] and theirs["subgraph"]["nodes"] == []
    other_tenant = c.post("/v1/memory/recall", json=recall_body(scope), headers=as_key(CAROL_KEY)).json()
    assert other_tenant["tenant_id"] == "globex" and other_tenant["seeds"] == []


def test_valid_jwt_binds_tenant_agent_and_team(c: httpx.Client) -> None:
    scope = new_scope()
    tok = token({"tenant": "acme", "sub": "bob", "team_id": "blue", "exp": time.time() + 60})
    r = c.post("/v1/memory/write", json=write_body(scope, owner_team_id="blue"), headers=as_jwt(tok))
    assert r.status_code == 200
    seen = c.post("/v1/memory/recall", json=recall_body(scope, include_meta=True), headers=as_key(BOB_KEY)).json()
    assert seen["subgraph"]["nodes"][0]["producer_agent_id"] == "bob"


@pytest.mark.parametrize(
    "name,claims,secret,alg",
    [
        ("expired", {"tenant_id": "acme", "exp": -60}, SECRET, "HS256"),
        ("not yet valid", {"tenant_id": "acme", "nbf": 60, "exp": 120}, SECRET, "HS256"),
        ("wrong signature", {"tenant_id": "acme", "exp": 60}, "another-secret-0123456789abcdef0123", "HS256"),
        ("no tenant", {"sub": "alice", "exp": 60}, SECRET, "HS256"),
        ("wrong algorithm", {"tenant_id": "acme", "exp": 60}, SECRET, "HS512"),
        ("no expiry", {"tenant_id": "acme", "agent_id": "alice"}, SECRET, "HS256"),
    ],
)
# the "wrong algorithm" token is signed by the test itself with a key too short for HS512
@pytest.mark.filterwarnings("ignore::jwt.warnings.InsecureKeyLengthWarning")
def test_bad_tokens_are_refused(c: httpx.Client, name: str, claims: dict[str, Any], secret: str, alg: str) -> None:
    now = time.time()
    claims = {k: (now + v if k in ("exp", "nbf") else v) for k, v in claims.items()}
    r = c.post("/v1/memory/recall", json=recall_body("s"), headers=as_jwt(token(claims, secret, alg)))
    assert r.status_code == 401, name


def test_alg_none_tokens_are_refused(c: httpx.Client) -> None:
    claims = {"tenant_id": "acme", "agent_id": "alice", "exp": time.time() + 60}
    unsigned = jwt.encode(claims, key=None, algorithm="none")
    r = c.post("/v1/memory/recall", json=recall_body("s"), headers=as_jwt(unsigned))
    assert r.status_code == 401 and r.json()["error"] == "invalid_token"


def test_a_token_without_expiry_is_refused_as_invalid(c: httpx.Client) -> None:
    forever = token({"tenant_id": "acme", "agent_id": "alice"})
    r = c.post("/v1/memory/recall", json=recall_body("s"), headers=as_jwt(forever))
    assert r.status_code == 401
    assert r.json()["error"] == "invalid_token" and "'exp'" in r.json()["message"]


def test_tokens_without_expiry_are_accepted_when_the_operator_turns_the_rule_off(
    tmp_path: Path, live_server_factory: ServerFactory
) -> None:
    forever = token({"tenant_id": "acme", "agent_id": "alice"})
    expired = token({"tenant_id": "acme", "exp": time.time() - 120})
    with live_server_factory(
        f"sqlite:///{tmp_path / 'memlane.db'}",
        MEMORY_AUTH_MODE="jwt",
        MEMORY_JWT_HS256_SECRET=SECRET,
        MEMORY_JWT_REQUIRE_EXP="false",
    ) as live:
        ok = httpx.post(f"{live.url}/v1/memory/recall", json=recall_body("s"), headers=as_jwt(forever))
        late = httpx.post(f"{live.url}/v1/memory/recall", json=recall_body("s"), headers=as_jwt(expired))
    assert ok.status_code == 200, ok.text
    assert late.status_code == 401 and late.json()["error"] == "token_expired"


def test_clock_skew_tolerates_a_token_that_just_expired(c: httpx.Client) -> None:
    tok = token({"tenant_id": "acme", "exp": time.time() - 2})
    assert c.post("/v1/memory/recall", json=recall_body("s"), headers=as_jwt(tok)).status_code == 200


def test_health_stays_open_for_probes(c: httpx.Client) -> None:
    assert c.get("/health").status_code == 200


def test_keys_and_tokens_never_reach_the_logs(c: httpx.Client, logs: Captured) -> None:
    tok = token({"tenant_id": "acme", "agent_id": "alice", "exp": time.time() + 60})
    c.post("/v1/memory/recall", json=recall_body("s"), headers=as_key(ALICE_KEY))
    c.post("/v1/memory/recall", json=recall_body("s"), headers=as_key("wrong-key-xyz"))
    c.post("/v1/memory/recall", json=recall_body("s"), headers=as_jwt(tok))
    logging.getLogger("memlane.api.common.auth").info("capture probe")
    text = "\n".join(logs.lines)
    assert "capture probe" in text, "INFO records reach the capture"
    for secret in (ALICE_KEY, "wrong-key-xyz", tok, SECRET):
        assert secret not in text
