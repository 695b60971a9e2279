"""Team-layer tool memories move into their team's private lane.

They were stored in the shared lane, with the team only in ``slots.team_id``, so every agent
of the tenant recalled them through graph recall. A lane is what the one visibility rule
reads on every surface (domain/visibility.py), so the team becomes the owner. User and
session memories stay where they are: the visibility rule treats those layers as personal.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _team_of_slots() -> str:
    if op.get_bind().dialect.name == "postgresql":
        return "slots->>'team_id'"
    return "json_extract(slots, '$.team_id')"


def _kind_of_slots() -> str:
    if op.get_bind().dialect.name == "postgresql":
        return "slots->>'kind'"
    return "json_extract(slots, '$.kind')"


def upgrade() -> None:
    team = _team_of_slots()
    op.execute(
        f"UPDATE nodes SET memory_lane = 'private', owner_team_id = {team} "
        f"WHERE layer = 'team' AND {_kind_of_slots()} = 'tool_memory' AND {team} IS NOT NULL"
    )


def downgrade() -> None:
    op.execute(
        f"UPDATE nodes SET memory_lane = 'shared', owner_team_id = NULL "
        f"WHERE layer = 'team' AND {_kind_of_slots()} = 'tool_memory'"
    )
