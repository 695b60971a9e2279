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
    missing = []
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        names = list(getattr(alias, "choices", [])) if alias is not None else [name]
        if not any(str(n) in README for n in names):
            missing.append(names)
    assert missing == []
