"""Write src/memlane/client/_sync_client.py from _async_client.py (the async client is the
one edited by hand; the sync one is the same code without ``async``/``await``).

    python scripts/generate_sync_client.py          # rewrite the sync client
    python scripts/generate_sync_client.py --check  # exit 1 if it is out of date (the tests run this)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent / "src" / "memlane" / "client"
SOURCE = CLIENT / "_async_client.py"
TARGET = CLIENT / "_sync_client.py"

#: (pattern, replacement), applied in order
REWRITES: list[tuple[str, str]] = [
    (r'^"""The async client\..*?"""', '"""The sync client: generated from _async_client.py by\n'
     'scripts/generate_sync_client.py. Do not edit it; edit _async_client.py and re-run the script."""'),
    (r"\bimport asyncio\b", "import time"),
    (r"\basyncio\.sleep\b", "time.sleep"),
    (r"\basync def __aenter__\b", "def __enter__"),
    (r"\basync def __aexit__\b", "def __exit__"),
    (r"\baclose\b", "close"),
    (r"\basync def\b", "def"),
    (r"\basync with\b", "with"),
    (r"\bawait ", ""),
    (r"\bAsync(?=[A-Z])", ""),
    (r"\b_Async(?=[A-Z])", "_"),
    (r"\basync client\b", "sync client"),
]  # fmt: skip


def generate(source: str) -> str:
    out = source
    for pattern, replacement in REWRITES:
        out = re.sub(pattern, replacement, out, flags=re.DOTALL | re.MULTILINE)
    return out


def main(argv: list[str]) -> int:
    wanted = generate(SOURCE.read_text())
    if "--check" in argv:
        if not TARGET.exists() or TARGET.read_text() != wanted:
            print(f"{TARGET} is out of date: run python scripts/generate_sync_client.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(wanted)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
