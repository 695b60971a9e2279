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
import tomllib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memlane.services.tools.schemas import SCHEMAS, TOOL_NAMES
from tests.support.server import LiveServer, ServerFactory

CONFIG = Path(__file__).with_name("schemathesis.toml")
#: examples per operation and phase: enough to reach every status an operation documents,
#: few enough for the suite (about a minute on two cores)
MAX_EXAMPLES = 15


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory() as live:
        yield live


@pytest.mark.slow
def test_every_operation_answers_as_its_openapi_document_says(server: LiveServer, tmp_path: Path) -> None:
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
        # NDJSON bodies (an export file) are beyond what schemathesis generates; tests/ cover import
        "--exclude-path",
        "/v1/admin/import",
    ]
    # No ``--checks``: schemathesis runs every check by default, and ``--checks all`` on the
    # command line would also switch on the few exceptions the config file makes per operation.
    # in tmp_path: schemathesis keeps a cache directory in its working directory
    run = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    report = run.stdout + run.stderr
    # schemathesis names each failing operation ("POST /v1/...") and what it lacks (an
    # undocumented status, a missing Allow header, a valid request refused, ...)
    assert run.returncode == 0, "the OpenAPI document does not match the server:\n" + _failures(report)
    selected = re.search(r"Selected: (\d+)/(\d+)", report)
    tested = re.search(r"Tested: (\d+)", report)
    assert selected and tested, report[-5_000:]
    assert int(tested.group(1)) == int(selected.group(1)) == int(selected.group(2)) - 1 > 30, "all but one exercised"


def _failures(report: str) -> str:
    """The failures and errors sections (operation, check, response, curl), then the summary."""
    starts = [i for i in (report.find("= FAILURES ="), report.find("= ERRORS =")) if i >= 0]
    summary = report.find("= SUMMARY =")
    if not starts:
        return report[-20_000:]
    return report[min(starts) : min(starts) + 40_000] + "\n...\n" + report[summary:]


def test_each_exception_names_one_operation_of_the_document(server: LiveServer) -> None:
    """schemathesis joins ``include-method`` and ``include-path`` of one entry with OR, so an
    exception written with them switched a check off for every operation of that method;
    ``include-name`` ("METHOD /path") selects exactly one. An exception switches the check off in
    every phase, or in the coverage phase only (X-Memlane-Read-After, see the config)."""
    doc = httpx.get(f"{server.url}/openapi.json").json()
    documented = {f"{method.upper()} {path}" for path, item in doc["paths"].items() for method in item}
    exceptions = tomllib.loads(CONFIG.read_text())["operations"]
    assert exceptions, "the config lists its exceptions"
    off = {"positive_data_acceptance": {"enabled": False}}
    coverage_only = set()
    for entry in exceptions:
        assert set(entry) in ({"include-name", "checks"}, {"include-name", "phases"}), entry
        assert entry["include-name"] in documented, entry["include-name"]
        if "phases" in entry:
            assert entry["phases"] == {"coverage": {"checks": off}}, entry
            coverage_only.add(entry["include-name"])
        else:
            assert entry["checks"] == off, entry
    # the coverage phase's exception is for the operations that take X-Memlane-Read-After, exactly
    read_after = {
        f"{method.upper()} {path}"
        for path, item in doc["paths"].items()
        for method, operation in item.items()
        if any(p["name"] == "X-Memlane-Read-After" for p in operation.get("parameters", []))
    }
    assert read_after and coverage_only == read_after


def test_every_tool_is_an_operation_with_its_own_request_schema(server: LiveServer) -> None:
    doc = httpx.get(f"{server.url}/openapi.json").json()
    assert "/v1/tools/{name}" not in doc["paths"]
    for name in TOOL_NAMES:
        body = doc["paths"][f"/v1/tools/{name}"]["post"]["requestBody"]
        schema = body["content"]["application/json"]["schema"]
        if body["required"]:
            assert (
                schema["properties"] == SCHEMAS[name]["properties"] and schema["required"] == SCHEMAS[name]["required"]
            )
        else:
            assert {"type": "null"} in schema["anyOf"]
    unknown = httpx.post(f"{server.url}/v1/tools/no_such_tool", json={})
    assert unknown.status_code == 404 and unknown.json()["errorCode"] == "NOT_FOUND"
    assert set(unknown.json()["details"]["tools"]) == set(TOOL_NAMES)


def test_errors_are_documented_in_each_surfaces_envelope_and_never_as_422(server: LiveServer) -> None:
    doc = httpx.get(f"{server.url}/openapi.json").json()
    envelopes = {
        "/v1/memory/recall": "GraphError",
        "/api/v1/memories": "ConversationError",
        "/v1/layers/read": "LayersError",
        "/v1/knowledge/import": "ToolError",
    }
    for path, envelope in envelopes.items():
        responses = doc["paths"][path]["post"]["responses"]
        assert "422" not in responses
        for status in ("400", "401", "403", "413", "429", "503"):
            assert responses[status]["content"]["application/json"]["schema"]["$ref"].endswith("/" + envelope)
    names = doc["components"]["schemas"]
    assert not [n for n in names if "__" in n], "two models share a name: give each a distinct class name"
    assert "HTTPValidationError" not in names


def test_a_405_lists_every_method_of_the_path_in_allow(server: LiveServer) -> None:
    response = httpx.put(f"{server.url}/v1/knowledge/items/some-id")
    assert response.status_code == 405
    assert response.headers["allow"] == "DELETE, GET, HEAD, PATCH"
    assert response.json()["success"] is False and "errorCode" in response.json()
    # /memories/query is served by its own route, not by /memories/{memory_id}
    literal = httpx.put(f"{server.url}/api/v1/memories/query")
    assert literal.status_code == 405
    assert literal.headers["allow"] == "GET, HEAD"
