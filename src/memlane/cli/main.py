"""``memlane serve | worker | migrate | export | import`` and the other commands."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from typing import Annotated

import typer

from memlane.config import Settings

# One BLAS thread: the server already runs SQLite, the event loop and the embedder on two cores;
# multi-threaded OpenBLAS spins after every vector search and starved them (measured: CPU per
# recall 80 -> 45 ms at 10k nodes). Must be set before numpy is imported; users may override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

app = typer.Typer(help="memlane: long-term memory server for AI agents", no_args_is_help=True)
migrate_app = typer.Typer(help="Database schema migrations (Alembic)", no_args_is_help=True)
app.add_typer(migrate_app, name="migrate")
app.command("mcp")(__import__("memlane.cli.mcp_command", fromlist=["mcp"]).mcp)
app.add_typer(__import__("memlane.cli.rules_command", fromlist=["rules_app"]).rules_app, name="rules")
app.command("export")(__import__("memlane.cli.transfer_command", fromlist=["export"]).export)
app.command("import")(__import__("memlane.cli.transfer_command", fromlist=["import_"]).import_)
app.command("consolidate")(__import__("memlane.cli.consolidate_command", fromlist=["consolidate"]).consolidate)


def _logging(level: str) -> None:
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="bind address (MEMLANE_HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="port (MEMLANE_PORT)")] = None,
    workers: Annotated[int, typer.Option(help="API processes")] = 1,
) -> None:
    """Run the API server (with an in-process job worker unless MEMLANE_WORKER_IN_PROCESS=false)."""
    import uvicorn

    settings = Settings()
    _logging(settings.server.log_level)
    from memlane.store import migrate

    migrate.upgrade(settings.storage.resolved_database_url)
    bind = host or settings.server.host
    if bind not in ("127.0.0.1", "localhost", "::1") and not settings.server.allowed_hosts:
        logging.getLogger("memlane.serve").warning(
            "listening on %s, but answering only to localhost, 127.0.0.1 and [::1]: set MEMLANE_ALLOWED_HOSTS to "
            "the names clients use (docs/security.md, 'Browsers')",
            bind,
        )
    uvicorn.run(
        "memlane.api.main:app",
        host=bind,
        port=port or settings.server.port,
        workers=workers,
        log_level=settings.server.log_level,
        proxy_headers=False,
    )


@app.command()
def worker(
    metrics_port: Annotated[
        int | None,
        typer.Option(min=1, max=65535, help="serve this process's /metrics on this port (MEMLANE_WORKER_METRICS_PORT)"),
    ] = None,
    metrics_host: Annotated[str | None, typer.Option(help="address the metrics port binds (MEMLANE_HOST)")] = None,
) -> None:
    """Run a job worker as its own process (embedding, ingestion, webhooks, sweeps)."""
    from memlane.gc_freeze import freeze_startup_objects
    from memlane.jobs.metrics_endpoint import MetricsListener
    from memlane.services.container import open_services

    settings = Settings()
    _logging(settings.server.log_level)
    port = metrics_port or settings.worker.metrics_port
    listener = MetricsListener.start(settings, metrics_host or settings.server.host, port) if port else None
    if listener is not None:
        logging.getLogger("memlane.worker").info(
            "metrics on http://%s:%d/metrics", metrics_host or settings.server.host, port
        )

    async def main() -> None:
        svc = await open_services(settings)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        svc.worker.start()
        await svc.embedding.requeue_stale_model()
        freeze_startup_objects()
        logging.getLogger("memlane.worker").info("worker %s started", svc.worker.worker_id)
        await stop.wait()
        await svc.close()

    try:
        asyncio.run(main())
    finally:
        if listener is not None:
            listener.stop()


@migrate_app.command("upgrade")
def migrate_upgrade(revision: Annotated[str, typer.Argument()] = "head") -> None:
    """Upgrade the schema (default: to the newest revision)."""
    from memlane.store import migrate

    migrate.upgrade(Settings().storage.resolved_database_url, revision)
    typer.echo(f"upgraded to {revision}")


@migrate_app.command("downgrade")
def migrate_downgrade(revision: Annotated[str, typer.Argument(help="target revision, e.g. -1 or base")]) -> None:
    """Downgrade the schema to an older revision."""
    from memlane.store import migrate

    migrate.downgrade(Settings().storage.resolved_database_url, revision)
    typer.echo(f"downgraded to {revision}")


@migrate_app.command("current")
def migrate_current() -> None:
    """Print the schema revision of the configured database and the newest one known."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from memlane.store import migrate
    from memlane.store.error_text import ENGINE_OPTIONS
    from memlane.store.urls import async_url

    async def read() -> str | None:
        engine = create_async_engine(async_url(Settings().storage.resolved_database_url), **ENGINE_OPTIONS)
        try:
            return await migrate.current_revision(engine)
        finally:
            await engine.dispose()

    typer.echo(f"current: {asyncio.run(read())}\nhead: {migrate.head_revision()}")


if __name__ == "__main__":
    app()
