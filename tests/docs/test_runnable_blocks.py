"""Every code block the docs mark runnable runs as written.

A block is marked by the line ``<!-- runnable -->`` just above its fence (invisible where the
Markdown is rendered). ``bash`` blocks run in bash against a live server: ``localhost:8000`` and
``127.0.0.1:8000`` become the test server's address, ``curl -s`` becomes ``curl -sf`` (an HTTP
error fails the block), and ``memlane`` is the project's own command on the server's database.
``python`` blocks run in a fresh interpreter with the same substitutions. Blocks that need a
credential, a second machine or an LLM are left unmarked; the SDK's snippets have their own
test (tests/client/test_sdk_doc_snippets.py), the MCP config its own
(tests/mcp/test_mcp_print_config.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.server import LiveServer, ServerFactory

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARK = "<!-- runnable -->"
BLOCK = re.compile(rf"^{re.escape(MARK)}\n```(bash|python)\n(.*?)^```", re.S | re.M)
DOC_ADDRESSES = ("http://127.0.0.1:8000", "http://localhost:8000", "localhost:8000", "127.0.0.1:8000")


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    language: str
    code: str

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}"


def marked_blocks() -> Iterator[Block]:
    for doc in DOCS:
        text = doc.read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 2
            yield Block(str(doc.relative_to(ROOT)), line, match.group(1), match.group(2))


BLOCKS = list(marked_blocks())


def test_the_docs_mark_blocks_runnable_and_every_mark_has_a_block() -> None:
    """A mark above anything but a bash or python fence would silently run nothing."""
    marks = sum(line == MARK for doc in DOCS for line in doc.read_text().splitlines())
    assert marks == len(BLOCKS)
    assert any(b.doc == "README.md" for b in BLOCKS), "the README's quick-start example must run"


def _as_run(code: str, url: str) -> str:
    for address in DOC_ADDRESSES:
        target = url if address.startswith("http") else url.removeprefix("http://")
        code = code.replace(address, target)
    return re.sub(r"\bcurl -s\b", "curl -sf", code)


@pytest.fixture(scope="module")
def server(live_server_factory: ServerFactory, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("runnable") / "memlane.db"
    with live_server_factory(f"sqlite:///{db}") as live:
        yield live


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_a_runnable_block_runs_as_written(block: Block, server: LiveServer, tmp_path: Path) -> None:
    code = _as_run(block.code, server.url)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "MEMLANE_DATABASE_URL": str(server.settings.storage.database_url),
        "MEMLANE_EMBEDDER": "hashing",
    }
    command = ["bash", "-euo", "pipefail", "-c", code] if block.language == "bash" else [sys.executable, "-c", code]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"{block} failed:\n{done.stdout}\n{done.stderr}"
