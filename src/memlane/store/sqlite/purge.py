"""After an erasure: no byte of what was erased left in any file of the database.

Three things keep deleted text on SQLite, and each is dealt with:

* **Freed space** in the database file: every connection runs with ``PRAGMA secure_delete``
  (store.py), so SQLite overwrites deleted content with zeros as it frees it.
* **The keyword index** (FTS5) deletes by writing delete markers into new segments; the
  erased words stay in the older segments until they are merged. ``optimize`` merges every
  segment into one, dropping what was deleted (its old pages are freed, so zeroed).
* **The write-ahead log** still holds the pages as they were before, until a checkpoint has
  copied them back and the log is overwritten. A ``TRUNCATE`` checkpoint copies every frame
  and truncates the log file to zero bytes; it waits for readers (``busy_timeout``) and is
  retried, since a checkpoint already running makes it return busy.
"""

from __future__ import annotations

import sqlite3
import time

OPTIMIZE_KEYWORD_INDEX = "INSERT INTO nodes_fts(nodes_fts) VALUES('optimize')"
ATTEMPTS = 20


def truncate_wal(path: str, *, attempts: int = ATTEMPTS, busy_ms: int = 5000) -> bool:
    """Checkpoint every frame and truncate the WAL file; False when readers kept it busy."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=busy_ms / 1000)
    try:
        conn.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
        for attempt in range(attempts):
            busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if int(busy) == 0:
                return True
            time.sleep(0.05 * (attempt + 1))
        return False
    finally:
        conn.close()


__all__ = ["OPTIMIZE_KEYWORD_INDEX", "truncate_wal"]
