"""Conversation messages as the services see them: an id, a speaker, text and a time.

The spec's messages carry no id, yet notes must cite the messages they came from, so a
message keeps the caller's ``id``/``message_id`` when given and otherwise gets a stable one
derived from the task id and its position (the same on every re-run of the task).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memlane.domain.clock import iso, parse_instant

GENERIC_ROLES = {"user": "the user", "assistant": "the assistant", "agent": "the agent", "system": "the system"}
NON_FACT_ROLES = {"system", "tool", "function"}
#: the role given to a request whose ``messages`` is one raw string (a transcript, not a speaker)
RAW_TEXT_ROLE = "text"


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    role: str
    content: str
    timestamp: datetime | None

    @property
    def speaker(self) -> str:
        """How a note names whoever said this: a person's name, or "The user"."""
        return GENERIC_ROLES.get(self.role.strip().lower(), self.role.strip() or "Someone")

    def source_ref(self, excerpt: str | None = None) -> dict[str, Any]:
        ref: dict[str, Any] = {"id": self.id, "role": self.role, "timestamp": iso(self.timestamp)}
        if excerpt:
            ref["excerpt"] = excerpt[:240]
        return ref

    def to_payload(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "content": self.content, "timestamp": iso(self.timestamp)}


def parse_timestamp(value: str) -> datetime:
    """ISO-8601 (a trailing ``Z`` allowed); a time without zone is taken as UTC."""
    return parse_instant(value)


def stamp_arrivals(items: list[dict[str, Any]], now: datetime, after: datetime | None = None) -> list[dict[str, Any]]:
    """Give each message without a ``timestamp`` its arrival time (OmniMemory clients send only
    role and content), never earlier than the message before it (``after``: the last one
    already buffered), so ordering by time keeps the order the messages were sent in."""
    out = []
    previous = after
    for item in items:
        raw = item.get("timestamp")
        if isinstance(raw, str) and raw:
            previous = parse_timestamp(raw)
            out.append(item)
            continue
        stamp = now if previous is None or now >= previous else previous
        out.append({**item, "timestamp": iso(stamp)})
        previous = stamp
    return out


def derived_message_id(task_id: str, index: int) -> str:
    return f"{task_id}:{index}"


def messages_from_payload(items: list[dict[str, Any]]) -> list[Message]:
    """Rebuild messages from a job payload (already validated when the request came in)."""
    out = []
    for item in items:
        ts = item.get("timestamp")
        out.append(
            Message(
                id=str(item["id"]),
                role=str(item.get("role") or "user"),
                content=str(item.get("content") or ""),
                timestamp=parse_timestamp(ts) if isinstance(ts, str) and ts else None,
            )
        )
    return out


def transcript(messages: list[Message], *, with_ids: bool = False) -> str:
    """The conversation as plain lines, for prompts and the extractive summariser."""
    lines = []
    for m in messages:
        when = f" [{iso(m.timestamp)}]" if m.timestamp else ""
        ident = f"({m.id}) " if with_ids else ""
        lines.append(f"{ident}{m.role}{when}: {m.content}")
    return "\n".join(lines)
