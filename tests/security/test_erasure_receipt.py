"""An erasure receipt names its subject by an HMAC under a server secret, not a plain hash.

A plain sha256 of ``{"tenant_id": ..., "user": ...}`` let anyone holding a receipt confirm a
guessed user id by hashing it. The HMAC's key is ``MEMLANE_ERASURE_HASH_KEY`` or, unset, a key
the server generates once and keeps in the database, so every replica and every restart
names the same subject the same way, and another database names it differently.
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from memlane.domain.hashing import canonical_json
from tests.support.backends import BACKENDS, database_url
from tests.support.pg import run_sync
from tests.support.server import LiveServer
from tests.support.settings import make_settings

TENANT = "acme"
USER = "alice@example.com"
MESSAGE = canonical_json({"tenant_id": TENANT, "user": USER}).encode()


def erase_user(db_url: str, **env: Any) -> str:
    """Start a server on ``db_url``, erase USER, stop it; the receipt's subject digest."""
    with LiveServer.start(make_settings(db_url, **env)) as server:
        r = httpx.post(f"{server.url}/v1/erasure", json={"tenant_id": TENANT, "user_id": USER}, timeout=60)
    assert r.status_code == 200, r.text
    subject = r.json()["subject"]
    assert subject["kind"] == "user" and set(subject) == {"kind", "hmac_sha256"}
    return str(subject["hmac_sha256"])


def rows(db_url: str, sql: str) -> list[tuple[Any, ...]]:
    if db_url.startswith("sqlite:///"):
        with sqlite3.connect(db_url.removeprefix("sqlite:///")) as db:
            return db.execute(sql).fetchall()

    async def fetch() -> list[tuple[Any, ...]]:
        import asyncpg

        conn = await asyncpg.connect(db_url)
        try:
            return [tuple(r) for r in await conn.fetch(sql)]
        finally:
            await conn.close()

    return run_sync(fetch())


def hmac_hex(key: str) -> str:
    return hmac.new(key.encode(), MESSAGE, hashlib.sha256).hexdigest()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_receipt_names_the_subject_by_a_keyed_hash_that_survives_restarts(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    db = database_url(backend, tmp_path, request)
    first = erase_user(db)
    again = erase_user(db)  # a restart: a new process on the same database

    assert first != hashlib.sha256(MESSAGE).hexdigest(), "not the plain sha256 anyone can compute"
    assert again == first, "the same subject is named the same way after a restart"
    [(key,)] = rows(db, "SELECT value FROM server_secrets WHERE name = 'erasure_hash_key'")
    assert len(key) == 64 and first == hmac_hex(key), "the HMAC under the key generated and stored on first use"
    stored = rows(db, "SELECT subject_sha256 FROM audit_events WHERE kind = 'erasure'")
    assert sorted(stored) == [(first,), (first,)], "the audit event holds the same digest, never the id"


def test_databases_with_different_keys_name_the_same_subject_differently(tmp_path: Path) -> None:
    one, two = f"sqlite:///{tmp_path / 'one.db'}", f"sqlite:///{tmp_path / 'two.db'}"
    generated_one, generated_two = erase_user(one), erase_user(two)
    assert generated_one != generated_two, "each database generates its own key"

    key = "an-operator-chosen-erasure-key-0123456789"
    configured = erase_user(f"sqlite:///{tmp_path / 'three.db'}", MEMLANE_ERASURE_HASH_KEY=key)
    assert configured == hmac_hex(key), "MEMLANE_ERASURE_HASH_KEY is the key when set"
    other_key = erase_user(f"sqlite:///{tmp_path / 'four.db'}", MEMLANE_ERASURE_HASH_KEY=key + "-rotated")
    assert other_key != configured
    assert rows(f"sqlite:///{tmp_path / 'three.db'}", "SELECT count(*) FROM server_secrets") == [(0,)]
