"""Service endpoints: health, index, interactive docs, OpenAPI, and error envelopes."""

from __future__ import annotations

import json
import re

import httpx


def test_health_reports_store_and_embedder(client: httpx.Client) -> None:
    r = client.get("/health")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "healthy" and body["sdk_initialized"] is True
    assert body["backend"] in {"sqlite", "postgres"}
    assert body["embedding"] == {"provider": "hashing", "model": "hashing-384", "dimension": 384}


def test_index_names_the_service_and_its_endpoints(client: httpx.Client) -> None:
    body = client.get("/").json()
    assert body["name"] == "memlane" and body["version"]
    assert body["endpoints"]["docs"] == "/docs"
    assert "/v1/memory/recall_text" in body["endpoints"]["graph"]


def test_docs_redoc_and_openapi_are_served(client: httpx.Client) -> None:
    assert "swagger" in client.get("/docs").text.lower()
    assert "redoc" in client.get("/redoc").text.lower()
    spec = client.get("/openapi.json").json()
    assert {"/v1/memory/write", "/v1/memory/recall", "/v1/memory/recall_text"} <= set(spec["paths"])


def test_openapi_describes_the_write_body_and_every_reference_resolves(client: httpx.Client) -> None:
    spec = client.get("/openapi.json").json()
    body = spec["paths"]["/v1/memory/write"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    schemas = spec["components"]["schemas"]
    write = schemas[body["$ref"].rsplit("/", 1)[-1]]
    assert {"nodes", "edges", "input_text", "scope"} <= set(write["properties"])
    refs = set(re.findall(r'"#/components/schemas/([^"]+)"', json.dumps(spec)))
    assert refs and refs <= set(schemas)


def test_unknown_path_is_a_404_in_the_graph_envelope(client: httpx.Client) -> None:
    r = client.get("/v1/memory/nope")
    assert r.status_code == 404
    assert r.json()["error"] == "not_found"


def test_oversized_body_is_refused_before_parsing(client: httpx.Client) -> None:
    r = client.post("/v1/memory/write", content=b"x" * (9 * 1024 * 1024), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert r.json()["error"] == "payload_too_large"


def test_server_timing_header_reports_server_side_latency(client: httpx.Client) -> None:
    r = client.get("/health")
    assert r.headers["server-timing"].startswith("app;dur=")


def test_reserved_system_tenants_cannot_be_named(client: httpx.Client) -> None:
    for headers, body in (({"X-Tenant-Id": "_memlane_system"}, {}), ({}, {"tenant_id": "_memlane_system"})):
        r = client.post("/v1/memory/recall_text", json={"query_text": "jobs", **body}, headers=headers)
        assert r.status_code == 400 and r.json()["error"] == "reserved_tenant"
