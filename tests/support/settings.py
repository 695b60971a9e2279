"""The settings every test server and service starts from, in one place.

Fixtures (tests/conftest.py) and tests import these from here, never from a conftest module:
a conftest is pytest's to load, and importing it by name loads it a second time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memlane.config import Settings

#: the hashing embedder's dimension: the vectors of every test server and store
DIM = 384
#: the one internal address test webhook receivers listen on (MEMLANE_WEBHOOK_ALLOWED_HOSTS)
RECEIVER_HOSTS = "127.0.0.1"


def make_settings(db_url: str, **env: Any) -> Settings:
    """Settings for a test server on ``db_url``: the hashing embedder and a fast worker poll,
    with ``env`` (setting names as in README.md's configuration table) on top."""
    values: dict[str, Any] = {
        "MEMLANE_DATABASE_URL": db_url,
        "MEMLANE_EMBEDDER": "hashing",
        "MEMLANE_WORKER_POLL_INTERVAL_SEC": 0.05,
    }
    values.update(env)
    if values["MEMLANE_EMBEDDER"] == "hashing":
        # the relevance scale is fitted for the local model; a hashing vector's cosine says
        # nothing on it, so a hashing server's conversation query keeps every note unless the
        # test asks for a cut (the default cut is tested with the local model)
        values.setdefault("MEMLANE_CONVERSATION_SIMILARITY_THRESHOLD", 0.0)
    return Settings(**values)


def api_keys(keys: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Auth on with these API keys (``MEMORY_API_KEYS_JSON``: key -> identity), as settings."""
    return {"MEMORY_AUTH_MODE": "api_key", "MEMORY_API_KEYS_JSON": json.dumps(keys)}


def openai_embedder(base_url: str) -> dict[str, Any]:
    """The OpenAI-compatible embedder against a stand-in provider (tests/support/openai_server.py),
    with a short timeout so a provider that hangs fails the request, not the test."""
    return {
        "MEMLANE_EMBEDDER": "openai",
        "MEMLANE_EMBEDDING_BASE_URL": base_url,
        "MEMLANE_EMBEDDING_MODEL": "test-embed",
        "MEMLANE_EMBEDDING_DIMENSION": DIM,
        "MEMLANE_EMBEDDING_TIMEOUT_SEC": 2,
    }
