"""One real memlane server per backend (hashing embedder, no LLM) with API-key auth on, shared
by the framework integrations' tests: each test works in scopes, namespaces or sessions of its
own, so they never see each other's memories."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.conftest import make_settings
from tests.support.backends import BACKENDS, database_url
from tests.support.server import LiveServer

API_KEY = "k-integrations"
OTHER_TENANT_KEY = "k-other-tenant"
KEYS = {
    API_KEY: {"tenant_id": "frameworks", "agent_id": "agent-1", "user_id": "user-1"},
    OTHER_TENANT_KEY: {"tenant_id": "elsewhere", "agent_id": "agent-1", "user_id": "user-1"},
}


@pytest.fixture(scope="package", params=BACKENDS)
def memlane_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    url = database_url(request.param, tmp_path_factory.mktemp("integrations"), request)
    settings = make_settings(url, MEMORY_AUTH_MODE="api_key", MEMORY_API_KEYS_JSON=json.dumps(KEYS))
    with LiveServer.start(settings) as server:
        yield server
