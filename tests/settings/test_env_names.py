"""Grouping the settings must not rename a variable an operator has set: every environment name
and default main's flat Settings had (tests/settings/env_names.json, generated from it once)
is still read, by exactly one setting, with the same default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from memlane.config import Settings

BEFORE: list[dict[str, Any]] = json.loads((Path(__file__).parent / "env_names.json").read_text())


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for entry in BEFORE:
        for name in entry["env"]:
            monkeypatch.delenv(name, raising=False)


def test_every_environment_name_is_still_read_by_one_setting_with_its_default(clean_env: None) -> None:
    now = {names: (group, field) for group, field, names in Settings.env_names()}
    assert sorted(now) == sorted(tuple(entry["env"]) for entry in BEFORE)
    dumped = Settings().model_dump(mode="json")
    changed = {
        entry["env"][0]: (entry["default"], dumped[group][field])
        for entry in BEFORE
        for group, field in [now[tuple(entry["env"])]]
        if dumped[group][field] != entry["default"]
    }
    assert changed == {}


def test_each_variable_reaches_its_group_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_PG_EF_SEARCH", "7")
    monkeypatch.setenv("MEMLANE_DEFAULT_SCOPE", "second-name")
    monkeypatch.setenv("OMNIMEMORY_DEFAULT_MAX_MESSAGES", "44")
    settings = Settings()
    assert settings.postgres.ef_search == 7
    assert settings.defaults.scope == "second-name"
    assert settings.conversation.max_messages == 44


def test_keyword_overrides_take_the_environment_names_and_beat_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMLANE_PORT", "9000")
    settings = Settings(MEMLANE_PORT=9100, MEMLANE_RECALL_CANDIDATES=40)
    assert (settings.server.port, settings.recall.candidates) == (9100, 40)


def test_a_name_no_setting_reads_is_refused_rather_than_ignored() -> None:
    with pytest.raises(TypeError, match="embedding_model"):
        Settings(embedding_model="other")


def test_a_bad_value_stops_start_up_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMLANE_WORKER_CONCURRENCY", "0")
    with pytest.raises(ValidationError, match="MEMLANE_WORKER_CONCURRENCY"):
        Settings()
