"""Event time: when a fact was true, and which facts a read takes by it.

A node or an edge may carry ``valid_at`` (when the fact became true) and ``invalid_at`` (when
it stopped being true), both optional: a fact without ``valid_at`` has been true as far as
anyone knows, and one without ``invalid_at`` still is. That is *event* time, given by the
writer or by the pipeline that closes a contradicted fact. *System* time is the server's own:
``created_at``, and ``expired_at``, set when a later commit closes a stored fact.

A node may also carry ``expires_at`` (a layered memory's ``expiry``, a tool memory's
``expiresAt``): *retention*, not event time. From that instant the memory is gone, on every
surface, whether or not the expiry sweep has deleted its row yet: the sweep only reclaims the
space (services/layers/expiry.py).

A read takes the facts valid at one instant, ``now`` unless the caller asks ``as_of`` another,
or every fact with its interval (``include_invalid``). ``valid_term`` is the one meaning of
"valid at", for nodes and edges; ``unexpired_term`` the one meaning of "not expired at", for
nodes; ``current_term`` is both, what a read takes of a node. The store renders it with the
reader's other filters (``SeedFilter``), and recall applies it to the neighbours it walks (and
``valid_term`` to the edges). The instant is the read's, so a memory disappears the moment it
expires, without a write or a sweep: the SQLite cache evaluates it at each read as it does
validity.

``as_of`` and history reads of expired memories: a read ``as_of`` an instant before the expiry
shows the memory (it had not expired then); a history read (``include_invalid``) shows it with
its past expiry, as it shows closed facts with their interval. Both only until the sweep
deletes the row: an expired memory is not kept for history.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memlane.domain.errors import InvalidRequest
from memlane.domain.filters import TRUE, All, Cmp, Not, Term, all_of


@dataclass(frozen=True, slots=True)
class ValidTime:
    """What a read asks of validity: facts valid now (the default), valid ``as_of`` another
    instant, or, with ``include_invalid``, every fact whatever its interval."""

    as_of: datetime | None = None
    include_invalid: bool = False

    def __post_init__(self) -> None:
        if self.as_of is not None and self.include_invalid:
            raise InvalidRequest(
                "give as_of or include_invalid, not both: include_invalid returns every interval",
                code="invalid_request",
                details={"field": "include_invalid"},
            )

    def instant(self, now: datetime) -> datetime | None:
        """The instant whose facts the read takes; None takes every fact."""
        if self.include_invalid:
            return None
        return self.as_of or now

    def pinned(self, now: datetime) -> ValidTime:
        """The same question with "now" fixed, so every read of one request asks one instant."""
        return self if self.include_invalid or self.as_of is not None else ValidTime(as_of=now)


#: the default of every read: what is true now
CURRENT = ValidTime()
#: every fact, with its interval
HISTORY = ValidTime(include_invalid=True)


def valid_term(at: datetime | None) -> Term:
    """Facts true at ``at``: begun at or before it, not ended at or before it (an unset bound
    is open). Written as ``Not(Cmp)`` because a comparison is never true for NULL, so an unset
    bound passes without a test of its own; None admits every fact."""
    if at is None:
        return TRUE
    return all_of(Not(Cmp("valid_at", ">", at)), Not(Cmp("invalid_at", "<=", at)))


def unexpired_term(at: datetime | None) -> Term:
    """Nodes not expired at ``at``: no ``expires_at``, or one after ``at`` (a memory expires
    *at* its expiry). ``Not(Cmp)`` as in ``valid_term``: an unset expiry passes. None (a
    history read) admits expired nodes too."""
    if at is None:
        return TRUE
    return Not(Cmp("expires_at", "<=", at))


def current_term(at: datetime | None) -> Term:
    """What a read at ``at`` takes of a node: valid then and not expired by then (None: every
    node, whatever its interval or expiry)."""
    valid, unexpired = valid_term(at), unexpired_term(at)
    parts = valid.terms if isinstance(valid, All) else (valid,)
    return all_of(*parts, unexpired)  # one flat conjunction: one mask fewer to combine


def is_expired(expires_at: datetime | None, at: datetime) -> bool:
    """``unexpired_term``'s negation for one value (what a view says of a memory it shows)."""
    return expires_at is not None and expires_at <= at


def check_interval(valid_at: datetime | None, invalid_at: datetime | None, field: str) -> None:
    """An interval must end after it begins; ``field`` names the end in the error."""
    if valid_at is not None and invalid_at is not None and invalid_at <= valid_at:
        raise InvalidRequest(
            f"{field} ({invalid_at.isoformat()}) must be after valid_at ({valid_at.isoformat()})",
            code="invalid_interval",
            details={"field": field},
        )


__all__ = [
    "CURRENT",
    "HISTORY",
    "ValidTime",
    "check_interval",
    "current_term",
    "is_expired",
    "unexpired_term",
    "valid_term",
]
