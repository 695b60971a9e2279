"""Event time: when a fact was true, and which facts a read takes by it.

A node or an edge may carry ``valid_at`` (when the fact became true) and ``invalid_at`` (when
it stopped being true), both optional: a fact without ``valid_at`` has been true as far as
anyone knows, and one without ``invalid_at`` still is. That is *event* time, given by the
writer or by the pipeline that closes a contradicted fact. *System* time is the server's own:
``created_at``, and ``expired_at``, set when a later commit closes a stored fact.

A read takes the facts valid at one instant, ``now`` unless the caller asks ``as_of`` another,
or every fact with its interval (``include_invalid``). ``valid_term`` is the one meaning of
"valid at": the store renders it with the reader's other filters (``SeedFilter``), and recall
applies it to the neighbours and edges it walks.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memlane.domain.errors import InvalidRequest
from memlane.domain.filters import TRUE, Cmp, Not, Term, all_of


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


def check_interval(valid_at: datetime | None, invalid_at: datetime | None, field: str) -> None:
    """An interval must end after it begins; ``field`` names the end in the error."""
    if valid_at is not None and invalid_at is not None and invalid_at <= valid_at:
        raise InvalidRequest(
            f"{field} ({invalid_at.isoformat()}) must be after valid_at ({valid_at.isoformat()})",
            code="invalid_interval",
            details={"field": field},
        )


__all__ = ["CURRENT", "HISTORY", "ValidTime", "check_interval", "valid_term"]
