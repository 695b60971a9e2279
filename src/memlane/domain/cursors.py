"""Page cursors: where a listing's next page starts, sealed so that only the reader it was
issued to can use it, and only on the listing it came from.

A listing pages in keyset order (its sort key, then the id). A raw "after this id" parameter
let a caller start anywhere, and a page that ended on a row the caller was not shown handed
out that row's id: the existence and creation time of a memory across visibility. A cursor
here is only ever made from the last row *shown* on a page, so the position it carries is one
the reader already saw, and it is sealed with an HMAC-SHA256 under a server secret (the same
construction as the erasure receipt's subject digest, domain/erasure.py) over the position
*and* the listing it belongs to: its name, tenant, scope and filters, and the reader's
identity (agent, team, user, session, role, and whether the credentials were verified). The
binding is not in the token, only in the MAC: another reader's cursor, one of another listing
or scope, or a token changed by a single character fails the check and is ``400
invalid_cursor`` naming the field; nothing in the refusal says which of these it was.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memlane.domain.errors import InvalidRequest
from memlane.domain.hashing import canonical_json
from memlane.domain.visibility import Viewer

#: the error code of a cursor this server did not issue for this listing and reader
INVALID_CURSOR = "invalid_cursor"
#: a cursor longer than this is not one of ours (a position is a few ids; the MAC 43 characters)
MAX_CURSOR_LENGTH = 512


@dataclass(frozen=True, slots=True)
class Listing:
    """What a cursor is bound to: one listing, as one reader asked for it."""

    name: str
    viewer: Viewer
    scope: str | None
    #: the listing's filters, each as text (so equal filters bind equally)
    filters: Mapping[str, str]

    def binding(self) -> dict[str, object]:
        v = self.viewer
        reader = [v.tenant_id, v.agent_id, v.team_id, v.user_id, v.session_id, v.role, v.authenticated]
        return {"listing": self.name, "reader": reader, "scope": self.scope, "filters": dict(self.filters)}


class PageCursors:
    """Seals and opens the cursors of every listing with one server key."""

    def __init__(self, key: bytes):
        self._key = key

    def _mac(self, listing: Listing, position: Sequence[str]) -> bytes:
        message = canonical_json({**listing.binding(), "position": list(position)}).encode("utf-8")
        return hmac.new(self._key, message, hashlib.sha256).digest()

    def seal(self, listing: Listing, position: Sequence[str]) -> str:
        """The cursor of the page after ``position`` (the last row shown) in ``listing``."""
        body = _b64(json.dumps(list(position), separators=(",", ":")).encode("utf-8"))
        return f"{body}.{_b64(self._mac(listing, position))}"

    def open(self, listing: Listing, token: str, *, field: str = "cursor") -> tuple[str, ...]:
        """The position ``token`` carries, if this server sealed it for ``listing``; else a
        ``400 invalid_cursor`` naming ``field``, the same whatever was wrong with it."""
        position = _position(token)
        expected = _b64(self._mac(listing, position)).encode("ascii") if position is not None else b""
        if position is None or not hmac.compare_digest(_mac_part(token).encode("utf-8"), expected):
            raise InvalidRequest(
                f"{field}: not a cursor of this listing for this caller (cursors are issued per caller, "
                "scope and filters); start again from the first page",
                code=INVALID_CURSOR,
                details={"field": field},
            )
        return position


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _mac_part(token: str) -> str:
    return token.rpartition(".")[2]


def _position(token: str) -> tuple[str, ...] | None:
    """The position a well-formed token carries (not yet checked), else None."""
    body, dot, mac = token.partition(".")
    if not dot or not body or not mac or len(token) > MAX_CURSOR_LENGTH:
        return None
    try:
        raw = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (ValueError, binascii.Error):
        return None
    if not isinstance(raw, list) or not raw or not all(isinstance(p, str) for p in raw):
        return None
    return tuple(raw)


__all__ = ["INVALID_CURSOR", "MAX_CURSOR_LENGTH", "Listing", "PageCursors"]
