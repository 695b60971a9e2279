"""``memlane consolidate``: offline duplicate canonicalisation and compression rollups.

Dry-run by default: it prints what it would do and changes nothing. ``--apply`` writes
(slots, edge redirection, rollup nodes, each step commit-audited). ``--allow-contradictory``
also merges candidates whose texts contradict each other, marked in their slots and in the
commit diff; it exists only here, in offline mode. ``--enqueue`` queues the same work as
durable jobs for the worker instead of running it in this process.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import typer


def consolidate(
    tenant: Annotated[str | None, typer.Option(help="tenant (default: MEMORY_TENANT_ID)")] = None,
    scope: Annotated[str | None, typer.Option(help="one scope (default: every scope of the tenant)")] = None,
    apply: Annotated[bool, typer.Option("--apply", help="write the changes (default: dry-run, report only)")] = False,
    allow_contradictory: Annotated[
        bool,
        typer.Option("--allow-contradictory", help="merge contradictory candidates too (audit-marked)"),
    ] = False,
    dedupe: Annotated[bool, typer.Option("--dedupe/--no-dedupe", help="find and alias duplicate nodes")] = True,
    rollups: Annotated[bool, typer.Option("--rollups", help="also build compression rollups of events")] = False,
    embedding_threshold: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="duplicates: cosine similarity at least this")
    ] = 0.92,
    text_threshold: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="duplicates: content-word Dice similarity at least this")
    ] = 0.5,
    min_events: Annotated[int, typer.Option(min=2, help="rollups: events needed before a chunk is summarised")] = 4,
    max_events: Annotated[int, typer.Option(min=2, help="rollups: events per summary at most")] = 50,
    enqueue: Annotated[bool, typer.Option("--enqueue", help="queue durable jobs for the worker instead")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON")] = False,
) -> None:
    """Find duplicate nodes (alias_of / merged_from, edges redirected) and build rollups."""
    from memlane.config import Settings
    from memlane.services.lifecycle.compression import CompressionOptions
    from memlane.services.lifecycle.consolidation import ConsolidationOptions

    if not dedupe and not rollups:
        raise typer.BadParameter("nothing to do: --no-dedupe without --rollups")
    if min_events > max_events:
        raise typer.BadParameter("--min-events must not exceed --max-events")
    settings = Settings()
    tenant_id = tenant or settings.defaults.tenant_id
    c_opts = ConsolidationOptions(
        embedding_threshold=embedding_threshold,
        text_threshold=text_threshold,
        allow_contradictory=allow_contradictory,
    )
    r_opts = CompressionOptions(min_events=min_events, max_events=max_events)
    run = _enqueue if enqueue else _run
    report = asyncio.run(
        run(settings, tenant_id, scope, apply, c_opts if dedupe else None, r_opts if rollups else None)
    )
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    elif enqueue:
        for job in report["jobs"]:
            typer.echo(f"queued {job['kind']} job {job['id']} (tenant {tenant_id})")
    else:
        _print(report)


async def _enqueue(
    settings: Any, tenant_id: str, scope: str | None, apply: bool, c_opts: Any, r_opts: Any
) -> dict[str, Any]:
    from memlane.domain.clock import new_id
    from memlane.domain.model import Job
    from memlane.jobs.lifecycle_kinds import LIFECYCLE_COMPRESS, LIFECYCLE_CONSOLIDATE
    from memlane.services.container import open_services

    svc = await open_services(settings, auto_migrate=False)
    try:
        jobs = []
        if c_opts is not None:
            payload = {"scope": scope, "apply": apply, "options": c_opts.as_dict()}
            jobs.append(Job(tenant_id=tenant_id, id=new_id(), kind=LIFECYCLE_CONSOLIDATE, scope=scope, payload=payload))
        if r_opts is not None:
            payload = {"scope": scope, "apply": apply, "options": r_opts.as_dict()}
            jobs.append(Job(tenant_id=tenant_id, id=new_id(), kind=LIFECYCLE_COMPRESS, scope=scope, payload=payload))
        stored = await svc.store.enqueue(jobs, now=svc.clock.now())
        return {"jobs": [{"id": j.id, "kind": j.kind} for j in stored]}
    finally:
        await svc.close()


async def _run(
    settings: Any, tenant_id: str, scope: str | None, apply: bool, c_opts: Any, r_opts: Any
) -> dict[str, Any]:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from memlane.services.container import open_services

    console = Console(stderr=True)
    svc = await open_services(settings, auto_migrate=False)
    out: dict[str, Any] = {"tenant_id": tenant_id, "applied": apply, "consolidation": [], "compression": []}
    try:
        scopes = [scope] if scope else [s for _, s in await svc.store.list_scopes(tenant_id)]
        life = svc.lifecycle
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console, disable=not console.is_terminal, transient=True) as bar:
            overall = bar.add_task("scopes", total=len(scopes))
            step = bar.add_task("", total=None)

            def progress(phase: str, done: int, total: int) -> None:
                bar.update(step, description=f"  {phase}", completed=done, total=total)

            for sc in scopes:
                bar.update(overall, description=f"scope {sc}")
                if c_opts is not None:
                    report = await life.consolidation.run(tenant_id, sc, c_opts, apply=apply, progress=progress)
                    out["consolidation"].append(report.as_dict())
                if r_opts is not None:
                    rollup = await life.compression.run(tenant_id, sc, r_opts, apply=apply, progress=progress)
                    out["compression"].append(rollup.as_dict())
                bar.advance(overall)
        return out
    finally:
        await svc.close()


def _print(report: dict[str, Any]) -> None:
    from rich.console import Console

    console = Console()
    mode = "applied" if report["applied"] else "dry-run (nothing written; --apply to write)"
    console.print(f"[bold]memlane consolidate[/bold], tenant {report['tenant_id']}: {mode}")
    for r in report["consolidation"]:
        dups = sum(len(g["duplicate_ids"]) for g in r["groups"])
        console.print(
            f"scope {r['scope']}: scanned {r['scanned']} nodes, {r['candidates']} candidate pairs, "
            f"{len(r['groups'])} groups with {dups} duplicates, {len(r['skipped'])} skipped"
            + (" (pair limit reached: raise the thresholds)" if r["truncated"] else "")
        )
        for g in r["groups"]:
            marks = f", {len(g['overrides'])} contradictory (override)" if g["overrides"] else ""
            console.print(f"  {g['type']} {g['canonical_id']} <- {', '.join(g['duplicate_ids'])}{marks}")
        for p in r["skipped"]:
            console.print(f"  skipped {p['a']} ~ {p['b']}: {p.get('reason')} ({p.get('contradiction')})")
        if r["applied"]:
            e = r["edges"]
            console.print(
                f"  aliased {r['aliased']}; edges redirected {e['redirected']}, merged {e['merged']}, "
                f"self-loops removed {e['self_loops_removed']}; commits {', '.join(r['commits']) or '-'}"
            )
    for c in report["compression"]:
        console.print(
            f"scope {c['scope']}: {c['events']} events -> rollups new {c['new']}, changed {c['changed']}, "
            f"unchanged {c['unchanged']}"
            + (f"; commits {', '.join(c['commits'])} (embedded by the worker)" if c["commits"] else "")
        )
        for r in c["rollups"]:
            if r["status"] != "unchanged":
                console.print(f"  [{r['status']}] {r['title']}")
