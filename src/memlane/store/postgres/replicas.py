"""Read replicas: which hot standby serves a request's reads, and which are fit to.

``MEMLANE_DATABASE_READ_URLS`` names PostgreSQL hot standbys (streaming replication, any
managed service's read replicas). ``ReadRouter`` keeps one engine per replica and a monitor
that checks each every ``MEMLANE_REPLICA_CHECK_INTERVAL_MS``:

* ``pg_is_in_recovery()`` false: the standby was promoted. It is no longer a copy of the
  primary (its replay position stops moving, so a read-after wait on it would never end), and
  it leaves the rotation until the process restarts.
* **Lag** is the age of the oldest primary position, sampled at a check, that the replica has
  not replayed yet: each check first reads the primary's ``pg_current_wal_lsn()``, and a
  replica whose ``pg_last_wal_replay_lsn()`` has reached every sample taken has lag 0, so an
  idle replica that is caught up has none however long ago the last write was. A replica
  behind by more than ``MEMLANE_REPLICA_MAX_LAG_MS`` is ``lagging`` and out of rotation until
  it catches up; the resolution is the check interval.
* A replica that does not answer is ``unreachable`` and out of rotation, as is one a read
  failed on (``report_failure``), until a check finds it well.

``choose`` picks a replica in rotation for a request, in turn. With a position (read-your-
writes, store/read_routing.py) it takes one whose replay position is known to be at or past
it, else asks them, polling for at most ``MEMLANE_READ_AFTER_WAIT_MS``, else answers the
primary, which has every committed write.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from sqlalchemy.ext.asyncio import AsyncEngine

from memlane.store.read_routing import ReadAfterOutcome, ReadChoice, ReplicaHealth, ReplicaState, lsn_value
from memlane.store.urls import DEFAULT_PG_PORT, hosts_as_query

log = logging.getLogger(__name__)

DEFAULT_READ_AFTER_WAIT_MS = 250
DEFAULT_CHECK_INTERVAL_MS = 1000
DEFAULT_MAX_LAG_MS = 5000
#: how often a read-after wait asks the replicas again
POLL_SEC = 0.01
#: a check that takes longer than this counts the replica unreachable
CHECK_TIMEOUT_SEC = 2.0
#: primary samples kept for the lag (older ones are dropped once every replica passed them)
MAX_SAMPLES = 10_000

_REPLICA_STATUS = "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text"
_REPLAY_LSN = "SELECT pg_last_wal_replay_lsn()::text"
_PRIMARY_LSN = "SELECT pg_current_wal_lsn()::text"


async def _fetch_row(engine: AsyncEngine, sql: str) -> Any:
    """One row of a one-row statement, in the driver's autocommit (no BEGIN/ROLLBACK)."""
    async with engine.connect() as conn:
        driver: Any = (await conn.get_raw_connection()).driver_connection
        try:
            return await driver.fetchrow(sql)
        except BaseException:
            # failed or cancelled (a check's timeout) mid-statement: never back into the pool
            driver.terminate()
            await conn.invalidate()
            raise


def replica_name(url: str) -> str:
    """``host:port`` of a URL (every host of a host list), never its credentials: the label
    in /health and /metrics."""
    parts = urlsplit(hosts_as_query(url))
    hosts = [value for key, value in parse_qsl(parts.query) if key == "host"]
    if hosts:
        return ",".join(hosts)
    return f"{parts.hostname or 'localhost'}:{parts.port or DEFAULT_PG_PORT}"


@dataclass(slots=True)
class Replica:
    name: str
    engine: AsyncEngine
    state: ReplicaState = "unreachable"
    #: the highest replay position seen (a standby's replay only moves forward)
    replay_lsn: int = 0
    lag_ms: float | None = None


@dataclass(slots=True)
class _Samples:
    """The primary's positions at recent checks, oldest first, with their monotonic times."""

    items: deque[tuple[float, int]] = field(default_factory=deque)

    def add(self, at: float, lsn: int) -> None:
        self.items.append((at, lsn))
        while len(self.items) > MAX_SAMPLES:
            self.items.popleft()

    def lag_ms(self, replay: int, now: float) -> float:
        """Age of the oldest sample past ``replay``; 0 when it has reached them all."""
        for at, lsn in self.items:
            if lsn > replay:
                return max(0.0, (now - at) * 1000)
        return 0.0

    def drop_reached(self, replay: int) -> None:
        """Forget samples every replica has replayed (keep the newest: the next check's zero)."""
        while len(self.items) > 1 and self.items[0][1] <= replay:
            self.items.popleft()


class ReadRouter:
    """The replicas of one primary; ``has_replicas`` False: every read goes to the primary,
    and the router only reads write positions (for ``X-Memlane-Position``)."""

    def __init__(
        self,
        primary: AsyncEngine,
        replicas: Sequence[tuple[str, AsyncEngine]] = (),
        *,
        read_after_wait_ms: int = DEFAULT_READ_AFTER_WAIT_MS,
        check_interval_ms: int = DEFAULT_CHECK_INTERVAL_MS,
        max_lag_ms: int = DEFAULT_MAX_LAG_MS,
    ):
        self.primary = primary
        self._replicas = [Replica(name, engine) for name, engine in replicas]
        self.read_after_wait = read_after_wait_ms / 1000
        self.check_interval = check_interval_ms / 1000
        self.max_lag_ms = max_lag_ms
        self._turn = itertools.count()
        self._samples = _Samples()
        self._monitor: asyncio.Task[None] | None = None

    @property
    def has_replicas(self) -> bool:
        return bool(self._replicas)

    # --- the monitor ----------------------------------------------------------------------
    async def start(self) -> None:
        """Check every replica once (so the first reads know which are fit), then keep checking."""
        if not self._replicas or self._monitor is not None:
            return
        await self.check()
        self._monitor = asyncio.get_running_loop().create_task(self._run(), name="memlane-replica-monitor")

    async def close(self) -> None:
        if self._monitor is not None:
            self._monitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._monitor
            self._monitor = None
        for replica in self._replicas:
            await replica.engine.dispose()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.check_interval)
            try:
                await self.check()
            except Exception:  # the monitor must outlive any one bad check
                log.warning("replica check failed", exc_info=True)

    async def check(self) -> None:
        """One round: the primary's position, then each replica's state and lag."""
        primary = await self.primary_position()
        now = time.monotonic()
        if primary is not None:
            self._samples.add(now, primary)
        await asyncio.gather(*(self._check(r, now) for r in self._replicas if r.state != "promoted"))
        live = [r.replay_lsn for r in self._replicas if r.state != "promoted"]
        if live:
            self._samples.drop_reached(min(live))

    async def _check(self, replica: Replica, now: float) -> None:
        try:
            async with asyncio.timeout(CHECK_TIMEOUT_SEC):
                row = await _fetch_row(replica.engine, _REPLICA_STATUS)
        except Exception as error:
            self._set_state(replica, "unreachable", f"{type(error).__name__}: {error}")
            replica.lag_ms = None
            return
        in_recovery, replay = bool(row[0]), row[1]
        if not in_recovery:
            self._set_state(replica, "promoted", "pg_is_in_recovery() is false: it was promoted")
            replica.lag_ms = None
            return
        if replay is not None:
            replica.replay_lsn = max(replica.replay_lsn, lsn_value(replay))
        replica.lag_ms = round(self._samples.lag_ms(replica.replay_lsn, now), 1)
        if replica.lag_ms > self.max_lag_ms:
            self._set_state(replica, "lagging", f"lag {replica.lag_ms:.0f} ms > {self.max_lag_ms} ms")
        else:
            self._set_state(replica, "in_rotation", "")

    def _set_state(self, replica: Replica, state: ReplicaState, why: str) -> None:
        if replica.state == state:
            return
        if state == "in_rotation":
            log.info("read replica %s is in rotation", replica.name)
        else:
            log.warning("read replica %s is %s (%s): out of rotation", replica.name, state, why)
        replica.state = state

    def report_failure(self, replica: str, error: BaseException) -> None:
        for r in self._replicas:
            if r.name == replica and r.state == "in_rotation":
                self._set_state(r, "unreachable", f"a read failed: {type(error).__name__}: {error}")

    def replicas(self) -> list[ReplicaHealth]:
        return [ReplicaHealth(r.name, r.state, r.lag_ms) for r in self._replicas]

    # --- positions and choices ------------------------------------------------------------
    async def primary_position(self) -> int | None:
        try:
            row = await _fetch_row(self.primary, _PRIMARY_LSN)
        except Exception:
            log.debug("could not read the primary's WAL position", exc_info=True)
            return None
        return lsn_value(row[0])

    def _in_turn(self) -> list[Replica]:
        """The replicas in rotation, starting with the next one's turn."""
        fit = [r for r in self._replicas if r.state == "in_rotation"]
        if not fit:
            return fit
        start = next(self._turn) % len(fit)
        return fit[start:] + fit[:start]

    async def choose(self, position: int | None) -> ReadChoice:
        candidates = self._in_turn()
        if not candidates:
            return ReadChoice("primary", outcome=None if position is None else "primary_fallback")
        if position is None:
            return _on(candidates[0])
        for replica in candidates:
            if replica.replay_lsn >= position:
                return _on(replica, "replica")
        if not await self._reached_by_primary(position):
            # a position no write has reached (another database's, or made up): no replica
            # will replay it, and waiting for one would only cost polls
            return ReadChoice("primary", outcome="primary_fallback")
        deadline = time.monotonic() + self.read_after_wait
        waited = False
        while True:
            for replica in candidates:
                if await self._replayed(replica, position):
                    return _on(replica, "replica_after_wait" if waited else "replica")
            left = deadline - time.monotonic()
            candidates = [r for r in candidates if r.state == "in_rotation"]
            if left <= 0 or not candidates:
                return ReadChoice("primary", outcome="primary_fallback")
            await asyncio.sleep(min(POLL_SEC, left))
            waited = True

    async def _reached_by_primary(self, position: int) -> bool:
        """Whether the primary's WAL has reached ``position`` (a sample of the monitor's says
        so, else the primary is asked; True when it cannot be)."""
        if self._samples.items and self._samples.items[-1][1] >= position:
            return True
        current = await self.primary_position()
        return current is None or current >= position

    async def _replayed(self, replica: Replica, position: int) -> bool:
        """Whether ``replica`` has replayed ``position``, asking it (its answer is remembered)."""
        try:
            replay = (await _fetch_row(replica.engine, _REPLAY_LSN))[0]
        except Exception as error:
            self.report_failure(replica.name, error)
            return False
        if replay is not None:
            replica.replay_lsn = max(replica.replay_lsn, lsn_value(replay))
        return replica.replay_lsn >= position


def _on(replica: Replica, outcome: ReadAfterOutcome | None = None) -> ReadChoice:
    return ReadChoice("replica", replica.engine, replica.name, outcome)


__all__ = ["ReadRouter", "Replica", "replica_name"]
