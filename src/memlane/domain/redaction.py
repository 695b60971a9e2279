"""Secrets out of messages: an upstream error body may echo our request (headers included).

A key is replaced where it stands as a whole token, never inside a longer word: replacing every
copy of its text would turn ``text-embedding-3-small`` into ``te[redacted]t-embedding-3-small``
for a key ``x``, garbling messages while protecting nothing (a short key's text is everywhere).
Token characters are those keys are made of: letters, digits, ``_`` and ``-``.
"""

from __future__ import annotations

import re
from typing import Final

REDACTED: Final = "[redacted]"
_TOKEN_CHAR: Final = r"A-Za-z0-9_\-"


def redact(text: str, secret: str | None) -> str:
    """``text`` with every whole-token occurrence of ``secret`` replaced by :data:`REDACTED`."""
    if not secret or secret not in text:
        return text
    pattern = re.compile(rf"(?<![{_TOKEN_CHAR}]){re.escape(secret)}(?![{_TOKEN_CHAR}])")
    return pattern.sub(REDACTED, text)
