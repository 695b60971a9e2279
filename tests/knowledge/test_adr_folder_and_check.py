"""ADR files with constraints are loaded from the knowledge folder and enforced by
knowledge_check: forbidden dependencies, imports (with lines), secrets in content, file paths."""

from __future__ import annotations

import httpx

from tests.knowledge.helpers import tenant, tool


def test_folder_items_are_queryable_with_their_front_matter(kclient: httpx.Client) -> None:
    t = tenant()
    r = tool(kclient, t, "knowledge_query", {"query": "database selection", "type": "adr"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["success"] is True
    first = body["items"][0]
    assert first["id"] == "adr-042-database-selection"
    assert first["layer"] == "org"
    assert first["title"] == "Database Selection for New Services"
    assert first["summary"] == "Use PostgreSQL for all new services requiring relational data"
    assert first["status"] == "accepted"
    assert first["tags"] == ["database", "infrastructure"]
    assert first["hasConstraints"] is True
    # the superseded ADR is not accepted any more, so the default status filter leaves it out
    assert "adr-017-mysql-default" not in {i["id"] for i in body["items"]}
    r = tool(kclient, t, "knowledge_query", {"status": ["superseded"]})
    assert [i["id"] for i in r.json()["items"]] == ["adr-017-mysql-default"]


def test_knowledge_show_gives_content_constraints_supersession_and_history(kclient: httpx.Client) -> None:
    t = tenant()
    r = tool(kclient, t, "knowledge_show", {"id": "adr-042-database-selection", "includeHistory": True})
    assert r.status_code == 200, r.text
    item = r.json()["item"]
    assert item["content"].startswith("# ADR-042")
    assert item["severity"] == "block"
    assert item["supersedes"] == "adr-017-mysql-default"
    assert item["constraints"][0] == {
        "operator": "must_not_use",
        "target": "dependency",
        "pattern": "mysql|mysql2|mariadb|pymysql|mysqlclient",
        "severity": "block",
        "message": "MySQL not allowed for new services per ADR-042. Use PostgreSQL instead.",
    }
    assert item["metadata"]["owner"] == "platform-team"
    assert r.json()["history"][0]["version"] == "1"
    old = tool(kclient, t, "knowledge_show", {"id": "adr-017-mysql-default", "includeConstraints": False}).json()[
        "item"
    ]
    assert old["status"] == "superseded"
    assert old["supersededBy"] == ["adr-042-database-selection"]
    assert "constraints" not in old
    r = tool(kclient, t, "knowledge_show", {"id": "adr-999"})
    assert r.status_code == 404
    assert r.json() == {
        "success": False,
        "errorCode": "NOT_FOUND",
        "message": "Knowledge item 'adr-999' not found",
        "details": {"requestedId": "adr-999", "searchedLayers": ["company", "org", "team", "project"]},
        "retryable": False,
    }


def test_a_forbidden_dependency_blocks(kclient: httpx.Client) -> None:
    r = tool(
        kclient, tenant(), "knowledge_check", {"dependencies": [{"name": "mysql2", "version": "3.0.0"}, {"name": "pg"}]}
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["passed"] is False
    assert body["summary"] == {"info": 0, "warn": 0, "block": 1}
    [v] = body["violations"]
    assert v["knowledgeItemId"] == "adr-042-database-selection"
    assert v["knowledgeItemTitle"] == "Database Selection for New Services"
    assert v["constraint"] == {
        "operator": "must_not_use",
        "target": "dependency",
        "pattern": "mysql|mysql2|mariadb|pymysql|mysqlclient",
    }
    assert v["severity"] == "block"
    assert v["message"] == "MySQL not allowed for new services per ADR-042. Use PostgreSQL instead."
    ok = tool(
        kclient, tenant(), "knowledge_check", {"dependencies": [{"name": "pg"}, {"name": "mysqlx-helper"}]}
    ).json()
    assert ok == {
        "passed": True,
        "violations": [],
        "summary": {"info": 0, "warn": 0, "block": 0},
        "checked": ok["checked"],
        "identity": ok["identity"],
    }


def test_files_are_checked_for_imports_secrets_paths_and_content_with_line_numbers(kclient: httpx.Client) -> None:
    files = [
        {"path": "svc/db.py", "content": "import os\nimport pymysql\n\nprint('connected')\n"},
        {"path": "web/db.ts", "content": "import x from 'lodash';\nconst m = require('mysql');\n"},
        {"path": "config/settings.py", "content": "DEBUG = True\npassword = 'hunter2'\n"},
        {"path": "deploy/.env", "content": "A=1\n"},
        {"path": "README.md", "content": "print('not python')\n"},
    ]
    r = tool(kclient, tenant(), "knowledge_check", {"files": files, "minSeverity": "info"})
    body = r.json()
    assert body["passed"] is False
    where = {(v["knowledgeItemId"], v["location"]["file"], v["location"].get("line")) for v in body["violations"]}
    assert ("adr-042-database-selection", "svc/db.py", 2) in where
    assert ("adr-042-database-selection", "web/db.ts", 2) in where
    assert ("policy-no-secrets-in-code", "config/settings.py", 2) in where
    assert ("policy-no-secrets-in-code", "deploy/.env", None) in where
    assert ("pattern-structured-logging", "svc/db.py", 4) in where
    # appliesTo *.py: the Markdown file's print is not a violation
    assert not any(v["location"]["file"] == "README.md" for v in body["violations"])
    assert body["summary"]["warn"] == 1


def test_min_severity_hides_lower_findings_but_never_the_verdict(kclient: httpx.Client) -> None:
    files = [{"path": "app.py", "content": "import loguru\nprint('hi')\n"}]
    t = tenant()
    info = tool(kclient, t, "knowledge_check", {"files": files, "minSeverity": "info"}).json()
    assert info["summary"] == {"info": 1, "warn": 1, "block": 0}
    assert info["passed"] is True
    warn = tool(kclient, t, "knowledge_check", {"files": files}).json()
    assert warn["summary"] == {"info": 0, "warn": 1, "block": 0}
    block_only = tool(
        kclient, t, "knowledge_check", {"dependencies": [{"name": "mariadb"}], "files": files, "minSeverity": "block"}
    ).json()
    assert block_only["summary"] == {"info": 0, "warn": 0, "block": 1}
    assert block_only["passed"] is False


def test_knowledge_item_ids_restrict_the_check(kclient: httpx.Client) -> None:
    t = tenant()
    args = {"dependencies": [{"name": "mysql"}], "knowledgeItemIds": ["policy-no-secrets-in-code"]}
    assert tool(kclient, t, "knowledge_check", args).json()["passed"] is True
    r = tool(kclient, t, "knowledge_check", {"dependencies": [{"name": "mysql"}], "knowledgeItemIds": ["nope"]})
    assert r.status_code == 404 and r.json()["errorCode"] == "NOT_FOUND"


def test_invalid_arguments_are_invalid_input_naming_the_field(kclient: httpx.Client) -> None:
    r = tool(kclient, tenant(), "knowledge_check", {"minSeverity": "fatal"})
    assert r.status_code == 400
    body = r.json()
    assert body["errorCode"] == "INVALID_INPUT" and body["retryable"] is False
    assert body["details"]["errors"][0]["field"] == "minSeverity"
    r = tool(kclient, tenant(), "knowledge_check", {"files": [{"path": "a.py"}]})
    assert r.json()["details"]["errors"][0]["field"] == "files.0"
