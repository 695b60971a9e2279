"""The migration history is one line: two branches adding the same revision number would give
Alembic two heads, and every server would refuse to start."""

from __future__ import annotations

from pathlib import Path

from alembic.script import ScriptDirectory

from memlane.store.migrate import alembic_config


def test_the_migration_history_has_exactly_one_head(tmp_path: Path) -> None:
    script = ScriptDirectory.from_config(alembic_config(f"sqlite:///{tmp_path / 'm.db'}"))
    heads = script.get_heads()
    assert len(heads) == 1, heads
    revisions = [r.revision for r in script.walk_revisions()]
    assert len(revisions) == len(set(revisions))
