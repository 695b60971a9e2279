"""``/openapi.json`` tells the truth: schemathesis, with every check, against a real server.

Each operation is called with schema-valid and schema-invalid requests (and undeclared
methods); each answer must be documented (status, envelope, headers, ``Allow`` on 405),
valid requests must be accepted and invalid ones refused. The few rules JSON Schema cannot
express are listed, with the reason, in tests/api/schemathesis.toml.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import make_settings
from tests.support.server import LiveServer

CONFIG = Path(__file__).with_name("schemathesis.toml")
#: examples per operation and phase: enough to reach every status an operation documents,
#: few enough for the suite (about a minute on two cores)
MAX_EXAMPLES = 15


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("openapi") / "memlane.db"
    with LiveServer.start(make_settings(f"sqlite:///{db}")) as live:
        yield live


@pytest.mark.slow
def test_every_operation_answers_as_its_openapi_document_says(server: LiveServer) -> None:
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(CONFIG),
        "--no-color",
        "run",
        f"{server.url}/openapi.json",
        "--max-examples",
        str(MAX_EXAMPLES),
        "--seed",
        "15",
        "--generation-database",
        "none",
        "--workers",
        "1",
        "--suppress-health-check",
        "all",
    ]
    # No ``--checks``: schemathesis runs every check by default, and ``--checks all`` on the
    # command line would also switch on the few exceptions the config file makes per operation.
    run = subprocess.run(command, capture_output=True, text=True, timeout=900)
    report = run.stdout + run.stderr
    # schemathesis names each failing operation ("POST /v1/...") and what it lacks (an
    # undocumented status, a missing Allow header, a valid request refused, ...)
    assert run.returncode == 0, "the OpenAPI document does not match the server:\n" + report[-20_000:]
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    tested = re.search(r"Tested: (\d+)", report)
    assert selected and tested, report[-5_000:]
    assert int(tested.group(1)) == int(selected.group(2)) > 30, "every documented operation is exercised"
