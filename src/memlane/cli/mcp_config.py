"""``memlane mcp --print-config``: the ``mcpServers`` entry an MCP client (Claude Desktop,
Cursor, ...) needs to start this memlane, with absolute paths.

A client starts the server itself, from its own working directory and with its own ``PATH``:
``"command": "memlane"`` is not found after ``scripts/setup.sh`` (the executable is in
``.venv/bin``), and a relative data directory would be read from wherever the client runs.
So the command is the ``memlane`` executable beside the Python running this (the venv's),
and the data directory, the knowledge directory and the database URL are written out whole.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from memlane.config import Settings


def memlane_command() -> list[str]:
    """The absolute command that runs ``memlane``: the venv's script, else one on ``PATH``,
    else this Python with ``-m memlane.cli.main``. ``sys.executable`` is not resolved: a
    venv's python is a link to the system's, and only the link runs inside the venv."""
    beside = Path(os.path.abspath(sys.executable)).parent / ("memlane.exe" if os.name == "nt" else "memlane")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("memlane")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "memlane.cli.main"]


def absolute_sqlite(url: str) -> str:
    """``sqlite:///data/m.db`` -> ``sqlite:////home/alice/memlane/data/m.db``; other URLs as they are."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url.startswith(prefix + "/") and ":memory:" not in url:
        return prefix + str(Path(url[len(prefix) :]).resolve())
    return url


def client_config(settings: Settings, options: list[str], *, name: str = "memlane") -> dict[str, Any]:
    """``{"mcpServers": {name: {"command", "args", "env"}}}`` for ``memlane mcp`` with
    ``options`` (the identity options this command was given)."""
    command, *prefix = memlane_command()
    env: dict[str, str] = {}
    if settings.storage.database_url:
        env["MEMLANE_DATABASE_URL"] = absolute_sqlite(settings.storage.database_url)
    else:
        env["MEMLANE_DATA_DIR"] = str(settings.storage.data_dir.resolve())
    if settings.layers.knowledge_dir is not None:
        env["MEMLANE_KNOWLEDGE_DIR"] = str(settings.layers.knowledge_dir.resolve())
    if "embedder" in settings.embedding.model_fields_set:  # chosen, not the default
        env["MEMLANE_EMBEDDER"] = settings.embedding.embedder
    return {"mcpServers": {name: {"command": command, "args": [*prefix, "mcp", *options], "env": env}}}


def print_config(settings: Settings, options: list[str]) -> None:
    print(json.dumps(client_config(settings, options), indent=2))
