"""Success response of ``POST /v1/erasure``: the receipt."""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict

from memlane.api.common.responses import closed
from memlane.domain.clock import iso
from memlane.domain.erasure import ErasureReceipt


@closed
class ErasureSubjectDigest(TypedDict):
    """What was erased, named only by an HMAC-SHA256 under the server's erasure key: the
    receipt keeps no content, and holding it does not confirm a guessed id."""

    kind: str
    hmac_sha256: str


@closed
class ErasureReply(TypedDict):
    erasure_id: str
    tenant_id: str
    subject: ErasureSubjectDigest
    counts: dict[str, Any]
    scopes: int
    erased_at: str | None


def erasure_reply(receipt: ErasureReceipt) -> ErasureReply:
    """The receipt as answered: counts, and the subject as an HMAC only."""
    return {
        "erasure_id": receipt.id,
        "tenant_id": receipt.subject.tenant_id,
        "subject": {"kind": receipt.subject.kind, "hmac_sha256": receipt.subject_digest},
        "counts": receipt.counts,
        "scopes": receipt.scopes,
        "erased_at": iso(receipt.created_at),
    }
