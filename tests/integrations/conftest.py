"""One real memlane server per backend (hashing embedder, no LLM) with API-key auth on, shared
by the framework integrations' tests: each test works in scopes, namespaces or sessions of its
own, so they never see each other's memories."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.integrations.helpers import KEYS
from tests.support.backends import BACKENDS, fresh_url
from tests.support.server import LiveServer, ServerFactory
from tests.support.settings import api_keys


@pytest.fixture(scope="package", params=BACKENDS)
def memlane_server(request: pytest.FixtureRequest, live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(fresh_url(request), **api_keys(KEYS)) as server:
        yield server
