"""docs/grafana-dashboard.json queries only what memlane exposes: every metric its panels
read is a series of a real server's ``/metrics`` (or a worker's: the same registry), and every
label it selects or groups by is one that metric carries."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.memory_api import new_scope, wait_until_recallable, write
from tests.support.server import LiveServer
from tests.support.settings import make_settings

DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-dashboard.json"
#: a series selector: a metric name, then its label matchers
SELECTOR = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}")
MATCHER = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!=|!~|=)")
GROUPING = re.compile(r"\bby\s*\(([^)]*)\)")
#: labels Prometheus adds to every scraped series (job, instance) and histograms' buckets (le)
ADDED_BY_PROMETHEUS = {"job", "instance", "le"}
#: series Prometheus itself makes for every target
PROMETHEUS_SERIES = {"up"}
SUFFIXES = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_count", "_sum", "_created")}


def queries(dashboard: dict[str, Any]) -> list[str]:
    out = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            out.append(variable["definition"])
    return out


@pytest.fixture(scope="module")
def exposed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, set[str]]]:
    """Every series name a server exposes, with the labels seen on it, after a write and a
    recall so the families carry samples."""
    url = f"sqlite:///{tmp_path_factory.mktemp('grafana') / 'memlane.db'}"
    with LiveServer.start(make_settings(url)) as server, httpx.Client(base_url=server.url, timeout=30) as c:
        scope = new_scope()
        out = write(c, scope, [{"type": "event", "title": "dashboard", "text_summary": "a memory for the dashboard"}])
        wait_until_recallable(c, scope, "a memory for the dashboard", {out["nodes"][0]["id"]})
        text = c.get("/metrics").text
    names: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(text):
        for suffix in SUFFIXES.get(family.type, ("",)):
            names.setdefault(family.name + suffix, set())
        for sample in family.samples:
            names.setdefault(sample.name, set()).update(sample.labels)
    yield names


def test_the_dashboard_is_importable_json_with_panels() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["title"] == "memlane" and dashboard["uid"]
    targets = [t for p in dashboard["panels"] for t in p.get("targets", [])]
    assert len(targets) >= 10
    assert all(t["expr"].strip() and t["refId"] for t in targets)
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])


def test_every_metric_the_dashboard_queries_is_one_memlane_exposes(exposed: dict[str, set[str]]) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    read: set[str] = set()
    for expr in queries(dashboard):
        selectors = SELECTOR.findall(expr)
        assert selectors, f"no series selector in {expr!r}"
        for name, _ in selectors:
            read.add(name)
            assert name in exposed or name in PROMETHEUS_SERIES, f"{name} is not exposed by memlane ({expr})"
    memlane_families = {n for n in exposed if n.startswith("memlane_") and not n.endswith("_created")}
    assert {n for n in read if n.startswith("memlane_")} >= {
        "memlane_http_requests_total",
        "memlane_http_request_duration_seconds_bucket",
        "memlane_recall_stage_duration_seconds_bucket",
        "memlane_jobs",
        "memlane_embedding_backlog",
        "memlane_job_runs_total",
        "memlane_webhook_deliveries_total",
    }
    assert memlane_families, "the scrape found memlane's metrics"


def test_every_label_the_dashboard_selects_or_groups_by_is_on_its_metric(exposed: dict[str, set[str]]) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    for expr in queries(dashboard):
        selectors = SELECTOR.findall(expr)
        carried = set(ADDED_BY_PROMETHEUS)
        for name, matchers in selectors:
            if name in PROMETHEUS_SERIES or not exposed.get(name):
                continue  # no sample in this scrape to read the labels from
            labels = exposed[name] | ADDED_BY_PROMETHEUS
            carried |= labels
            used = set(MATCHER.findall(matchers))
            assert used <= labels, f"{name} has no label {sorted(used - labels)} ({expr})"
        if all(exposed.get(name) for name, _ in selectors):
            for group in GROUPING.findall(expr):
                by = {label.strip() for label in group.split(",") if label.strip()}
                assert by <= carried, f"grouping by {sorted(by - carried)} that the series lack ({expr})"
