"""docs/sdk.md's first two snippets run as written against a real server: the sync one prints
what it wrote (it waits for the embedding); the async one, with the token it reads, finds a
memory of that token's user."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import jwt

from tests.support.server import LiveServer
from tests.support.settings import make_settings

SDK_DOC = Path(__file__).resolve().parents[2] / "docs" / "sdk.md"
DOC_URL = "http://127.0.0.1:8000"
SECRET = "sdk-doc-snippet-secret-0123456789abcdef"


def snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", SDK_DOC.read_text(), re.S)[:2]


def run(code: str, server: LiveServer, **env: str) -> str:
    assert DOC_URL in code
    done = subprocess.run(
        [sys.executable, "-c", code.replace(DOC_URL, server.url)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_first_snippet_prints_what_it_wrote(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'm.db'}", MEMLANE_EMBEDDER="local")
    with LiveServer.start(settings) as server:
        out = run(snippets()[0], server)
    assert "Alice climbed El Capitan" in out


def test_the_async_snippet_finds_a_memory_with_its_token(tmp_path: Path) -> None:
    settings = make_settings(
        f"sqlite:///{tmp_path / 'm.db'}",
        MEMLANE_EMBEDDER="local",
        MEMORY_AUTH_MODE="jwt",
        MEMORY_JWT_HS256_SECRET=SECRET,
    )
    claims = {"tenant_id": "acme", "agent_id": "a", "user_id": "u", "exp": int(time.time()) + 600}
    token = jwt.encode(claims, SECRET, algorithm="HS256")
    content = "The team prefers PostgreSQL as its database"
    with LiveServer.start(settings) as server:
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
            added = c.post("/v1/tools/memory_add", json={"content": content, "tags": ["infrastructure"]})
            assert added.status_code == 200, added.text
            query = {"query": "database preferences", "filter": {"tags": ["infrastructure"]}}
            deadline = time.monotonic() + 30
            while not c.post("/v1/tools/memory_search", json=query).json()["results"]:
                assert time.monotonic() < deadline, "the memory was never searchable"
                time.sleep(0.1)
        out = run(snippets()[1], server, MEMLANE_JWT=token)
    assert content in out
