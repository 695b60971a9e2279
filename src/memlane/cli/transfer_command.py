"""``memlane export`` and ``memlane import``: memory as JSONL, for backups and moves.

Both open the configured store (``MEMLANE_DATABASE_URL``) directly, as the tenant's admin,
and show a progress bar on stderr. Nodes imported without a vector usable by this server's
embedder are queued; the server's worker (or ``memlane worker``) embeds them.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from memlane.services.transfer.importer import ImportReportView

from memlane.config import Settings


def _progress() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=not sys.stderr.isatty(),
    )


def export(
    file: Annotated[Path, typer.Argument(help="JSONL file to write")],
    tenant: Annotated[str | None, typer.Option(help="one tenant (default: every tenant)")] = None,
    scope: Annotated[str | None, typer.Option(help="one scope (default: every scope, and knowledge items)")] = None,
    embeddings: Annotated[
        bool, typer.Option("--embeddings", help="include vectors (the model is recorded; import reuses them)")
    ] = False,
) -> None:
    """Write nodes (rules, notes, layered and tool memories), edges, commits and knowledge items."""
    from memlane.services.container import open_services
    from memlane.services.transfer.export import ExportRequest

    async def run() -> int:
        svc = await open_services(Settings(), auto_migrate=False)
        try:
            req = ExportRequest(tenant_id=tenant, scope=scope, embeddings=embeddings)
            scopes = 0
            async for _ in svc.exporter.scopes(req):  # counted a page at a time, for the bar's total
                scopes += 1
            written = 0
            with _progress() as bar, file.open("w", encoding="utf-8") as out:
                task = bar.add_task("export", total=scopes + 1, detail="")
                last: tuple[Any, Any] | None = None
                async for record in svc.exporter.records(req):
                    out.write(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")
                    written += 1
                    here = (record.get("tenant_id"), record.get("scope"))
                    if record.get("record") in ("commit", "node", "edge") and here != last:
                        if last is not None:
                            bar.advance(task)
                        last = here
                    bar.update(task, detail=f"{written} records")
                bar.update(task, completed=scopes + 1)
            return written
        finally:
            await svc.close()

    count = asyncio.run(run())
    typer.echo(f"exported {count} records to {file}", err=True)


def import_(
    file: Annotated[Path, typer.Argument(help="JSONL file written by `memlane export`", exists=True, dir_okay=False)],
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Load an export into the configured store; same ids, and running it twice changes nothing."""
    from memlane.domain.errors import MemlaneError
    from memlane.services.container import open_services

    async def run() -> ImportReportView:
        svc = await open_services(Settings())
        try:
            size = file.stat().st_size
            with _progress() as bar:
                task = bar.add_task("import", total=size, detail="")

                async def lines() -> AsyncIterator[str]:
                    with file.open("rb") as f:
                        for raw in f:
                            bar.advance(task, len(raw))
                            # not UTF-8: the importer refuses the line, naming it
                            yield raw.decode("utf-8", errors="surrogateescape")

                report = await svc.importer.run(
                    lines(), on_record=lambda r: bar.update(task, detail=f"{r.records} records")
                )
            return report.to_dict()
        finally:
            await svc.close()

    try:
        report = asyncio.run(run())
    except MemlaneError as exc:
        typer.echo(f"import failed: {exc.message}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        typer.echo(
            f"imported {report['records']} records: {report['nodes_written']} nodes written, "
            f"{report['nodes_unchanged']} unchanged; {report['edges_written']} edges written, "
            f"{report['edges_unchanged']} unchanged; {report['commits_restored']} commits restored; "
            f"{report['knowledge_written']} knowledge items written; "
            f"{report['batcher_buffers_written']} batcher buffers written; "
            f"{report['queued_for_embedding']} nodes queued for embedding"
        )
