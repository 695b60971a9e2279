"""The server process keeps its start-up objects out of full garbage collections
(gc_freeze.py); apps built in tests leave the test process's collector alone."""

from __future__ import annotations

import gc
from pathlib import Path

from fastapi.testclient import TestClient

from memlane.api.app import create_app
from tests.support.settings import make_settings


def test_the_server_app_freezes_its_start_up_objects(tmp_path: Path) -> None:
    gc.unfreeze()
    settings = make_settings(f"sqlite:///{tmp_path / 'memlane.db'}")
    try:
        with TestClient(create_app(settings, freeze_startup_heap=True)) as client:
            assert client.get("/health").status_code == 200
            assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()


def test_apps_built_for_tests_do_not_freeze(tmp_path: Path) -> None:
    gc.unfreeze()
    settings = make_settings(f"sqlite:///{tmp_path / 'memlane.db'}")
    with TestClient(create_app(settings)) as client:
        assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() == 0
