"""The README is the user's first contact: its quick start and configuration tables must be true."""

from __future__ import annotations

import re
from pathlib import Path

from memlane.config import Settings

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_quick_start_is_exactly_two_commands() -> None:
    block = re.search(r"## Quick start\s+```\n(.*?)```", README, re.S)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 2
    assert "memlane serve" in lines[0]
    assert lines[1] == "./scripts/test.sh"


def test_every_setting_is_documented_in_the_readme() -> None:
    missing = [names for _, _, names in Settings.env_names() if not any(n in README for n in names)]
    assert missing == []


ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "memlane"
#: an environment variable's name as code spells it: quoted (a Python constant is not one)
ENV_NAME = re.compile(r"(?<=[\"'`])(?:MEMLANE|MEMORY|TENANT|OMNIMEMORY)_[A-Z0-9_]*[A-Z0-9](?=[\"'`])")
#: variables a CLI option reads itself (typer ``envvar=``), documented with the command
CLI_OPTION_VARS = re.compile(r"^MEMLANE_MCP_")


def _settings_names() -> set[str]:
    return {n for _, _, names in Settings.env_names() for n in names}


def test_only_settings_read_the_environment() -> None:
    """One place reads configuration: a module that calls os.environ or getenv itself would
    escape the README's table and validation at start-up."""
    readers = [
        str(p.relative_to(ROOT))
        for p in SRC.rglob("*.py")
        if p.name != "config.py" and re.search(r"os\.environ\.get\(|os\.getenv\(|environ\[", p.read_text())
    ]
    assert readers == []


def test_every_variable_named_in_the_code_is_a_setting_and_documented() -> None:
    known = _settings_names()
    named = {m for p in SRC.rglob("*.py") for m in ENV_NAME.findall(p.read_text())}
    outside = sorted(n for n in named if n not in known and not CLI_OPTION_VARS.match(n))
    assert outside == []
    undocumented = sorted(n for n in named if n not in README)
    assert undocumented == []


def test_docs_link_only_to_files_that_exist() -> None:
    broken = []
    for page in [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []
