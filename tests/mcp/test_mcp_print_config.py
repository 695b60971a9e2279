"""``memlane mcp --print-config`` prints an MCP client config that works when pasted: an
absolute command that exists and is executable, absolute paths, the identity options given;
started as a client starts it (another working directory, the client's environment), it
serves the tools and keeps memory where the printed config says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp import ClientSession, StdioServerParameters, stdio_client
from tests.mcp.session_checks import call

pytestmark = pytest.mark.slow


def printed(cwd: Path, *options: str, **env: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "memlane.cli.main", "mcp", *options, "--print-config"]
    done = subprocess.run(
        command, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_the_printed_command_is_absolute_and_executable(tmp_path: Path) -> None:
    config = printed(tmp_path, "--user-id", "alice", "--agent-id", "claude-desktop", MEMLANE_DATA_DIR="data")
    server = config["mcpServers"]["memlane"]
    command = Path(server["command"])
    assert command.is_absolute()
    assert command.is_file() and os.access(command, os.X_OK), command
    assert server["args"][-5:] == ["mcp", "--agent-id", "claude-desktop", "--user-id", "alice"]
    assert server["env"]["MEMLANE_DATA_DIR"] == str((tmp_path / "data").resolve()), "relative to where it was printed"


def test_a_relative_sqlite_url_is_printed_absolute(tmp_path: Path) -> None:
    config = printed(tmp_path, MEMLANE_DATABASE_URL="sqlite:///rel/memlane.db")
    env = config["mcpServers"]["memlane"]["env"]
    assert env == {"MEMLANE_DATABASE_URL": f"sqlite:///{(tmp_path / 'rel' / 'memlane.db').resolve()}"}


async def test_the_printed_config_starts_a_server_that_keeps_memory(tmp_path: Path) -> None:
    config = printed(tmp_path, "--user-id", "alice", MEMLANE_DATA_DIR="data", MEMLANE_EMBEDDER="hashing")
    server = config["mcpServers"]["memlane"]
    assert server["env"]["MEMLANE_EMBEDDER"] == "hashing", "a chosen setting is carried over"
    # as a client starts it: its own working directory, and the config's env over a default
    # environment (the test's PYTHONPATH, so the code under test is the one that runs)
    env = dict(server["env"])
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    elsewhere = tmp_path / "client-cwd"
    elsewhere.mkdir()
    params = StdioServerParameters(command=server["command"], args=server["args"], env=env, cwd=str(elsewhere))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert {"memory_add", "memory_search"} <= names
        failed, body = await call(session, "memory_add", {"content": "Alice prefers window seats"})
        assert not failed, body
        assert body["identity"]["user"] == "alice"
    assert (tmp_path / "data" / "memlane.db").is_file(), "the memory is where the printed config says"
    assert not (elsewhere / "data").exists()
