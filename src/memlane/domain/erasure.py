"""Erasure: whose data is erased, and what an erasure leaves as its receipt.

A subject is one scope, one user, one agent, or a whole tenant, always inside one tenant.
What belongs to it (docs/security.md, "Erasure"):

* **scope**: every node of the scope (and the knowledge items projected into it), every job
  of the scope, every commit of the scope (hash kept, content erased);
* **user**: every node written for the user (``user_id``: conversation notes, personal tool
  memories, graph and layered memories written by a caller acting for the user), knowledge
  items written for the user, and every job whose payload names the user;
* **agent**: every node the agent owns or produced, knowledge items it wrote, and every job
  whose payload names the agent;
* **tenant**: everything of the tenant.

On top of those nodes: the nodes derived from them (summaries citing them in
``slots.source_ids`` or by a ``derived_from`` edge), edges touching any of them, their vectors
and keyword rows, commits naming them, jobs naming them that have finished, and recall audits
whose seeds include them. The receipt counts what was removed per kind, names the subject only
by an HMAC-SHA256 under a server secret, and is stored as an audit event. A plain sha256 of
``{"tenant_id", "user_id"}`` would let anyone holding a receipt confirm a guessed user id;
the HMAC can be recomputed only by whoever holds the key (MEMLANE_ERASURE_HASH_KEY, or the
key the server generated and stored in ``server_secrets``).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from memlane.domain.hashing import canonical_json

SubjectKind = Literal["scope", "user", "agent", "tenant"]
SUBJECT_KINDS: tuple[str, ...] = ("scope", "user", "agent", "tenant")
#: the JSON keys under which stored payloads name a subject of each kind
SUBJECT_KEYS: dict[str, tuple[str, ...]] = {
    "scope": ("app_id", "scope"),
    "user": ("user_id",),
    # "actor": an imported commit keeps the original's actor in its diff (services/writing.py)
    "agent": ("agent_id", "producer_agent_id", "owner_agent_id", "agent", "consumer_agent_id", "actor"),
}


@dataclass(frozen=True, slots=True)
class ErasureSubject:
    tenant_id: str
    kind: SubjectKind
    #: the scope, user id or agent id; the tenant id for a tenant
    value: str

    def digest(self, key: bytes) -> str:
        """How the receipt names the subject: an HMAC-SHA256 (hex) of the canonical
        ``{"tenant_id": ..., "<kind>": value}`` under ``key``, never the value itself."""
        message = canonical_json({"tenant_id": self.tenant_id, self.kind: self.value}).encode("utf-8")
        return hmac.new(key, message, hashlib.sha256).hexdigest()

    def needles(self) -> tuple[str, ...]:
        """The subject as stored JSON names it, in canonical text (sorted keys, no spaces):
        ``"user_id":"u1"``. A key with the whole quoted value: a scope called ``default`` is
        not found in every payload that mentions the default tenant."""
        value = canonical_json(self.value)
        return tuple(f"{canonical_json(key)}:{value}" for key in SUBJECT_KEYS.get(self.kind, ()))


@dataclass(slots=True)
class ErasureReceipt:
    id: str
    subject: ErasureSubject
    #: ``subject.digest(key)``: the only way the receipt names the subject
    subject_digest: str
    actor: str | None
    created_at: datetime
    #: removed (or, for commits, emptied) per kind; see ``counts_of``
    counts: dict[str, Any] = field(default_factory=dict)
    scopes: int = 0


__all__ = ["SUBJECT_KEYS", "SUBJECT_KINDS", "ErasureReceipt", "ErasureSubject", "SubjectKind"]
