"""Which memories belong to one episode (one conversation, one sitting), for every client.

A documented client names the episode: ``slots.session``, or the ``session_id`` a surface
sets. A client that names none still shows it by how it writes, and memlane reads that,
conservatively (docs/retrieval.md, "Episodes without slots"):

* the nodes of one write request (one commit) belong together;
* so do consecutive writes of one producer in one scope, each within ``EPISODE_GAP`` of the
  previous one (by the time the server stored them);
* within such a run, memories whose texts state different days (``Caroline (8 May, 2023):
  ...``, domain/text_signals.py) are different episodes: a transcript pasted in batches
  crosses sittings, and the stated day is where it does.

The grouping is read from stored fields (scope, producer, ``created_at``, ``commit_id``, the
text) when memories are ranked, so an explicit session always wins and nothing is written
into the caller's slots.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from datetime import timedelta

from memlane.domain.model import Node
from memlane.domain.text_signals import stated_day

#: how long a producer may pause between writes that still continue one episode
EPISODE_GAP = timedelta(minutes=30)


def named_episode(n: Node) -> Hashable | None:
    """The episode a writer named: ``slots.session`` (a scalar), else ``session_id``."""
    session = n.slots.get("session")
    if session is not None and not isinstance(session, (dict, list)):
        return ("slot", session)
    return ("session", n.session_id) if n.session_id is not None else None


def episode_keys(nodes: Iterable[Node]) -> dict[str, Hashable]:
    """Every node's episode: the one its writer named, else the one inferred from how it was
    written (see the module docstring). A node with neither (no write time) is in none."""
    out: dict[str, Hashable] = {}
    runs: dict[tuple[str, str | None], list[Node]] = {}
    for n in nodes:
        named = named_episode(n)
        if named is not None:
            out[n.id] = named
        elif n.created_at is not None:
            runs.setdefault((n.scope, n.producer_agent_id), []).append(n)
    for (scope, producer), members in runs.items():
        members.sort(key=lambda m: (m.created_at, m.commit_id or "", m.id))
        run = 0
        previous: Node | None = None
        for n in members:
            if previous is not None and n.commit_id != previous.commit_id:
                assert n.created_at is not None and previous.created_at is not None
                if n.created_at - previous.created_at > EPISODE_GAP:
                    run += 1
            out[n.id] = ("inferred", scope, producer, run, stated_day(n.text))
            previous = n
    return out


def episode_map(nodes: Mapping[str, Node]) -> dict[str, Hashable]:
    """``episode_keys`` of a candidate map."""
    return episode_keys(nodes.values())
