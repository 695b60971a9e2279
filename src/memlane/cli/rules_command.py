"""``memlane rules suggest``: read-only promotion suggestions for the rule lifecycle.

Never changes anything: it lists draft rules that earned shadow and shadow rules that earned
active (thresholds from docs/api-graph.md, all configurable), so a person can apply
them with ``POST /v1/memory/rules/state``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import typer

rules_app = typer.Typer(help="Rules: read-only lifecycle helpers", no_args_is_help=True)


@rules_app.command("suggest")
def suggest(
    tenant: Annotated[str | None, typer.Option(help="tenant (default: MEMORY_TENANT_ID)")] = None,
    scope: Annotated[str | None, typer.Option(help="one scope (default: every scope of the tenant)")] = None,
    shadow_min_runs: Annotated[
        int, typer.Option(min=1, help="draft -> shadow: positive outcomes from at least this many distinct run_ids")
    ] = 3,
    shadow_max_negative: Annotated[
        int, typer.Option(min=0, help="draft -> shadow: at most this many negative outcomes")
    ] = 0,
    active_min_positive: Annotated[
        int, typer.Option(min=1, help="shadow -> active: at least this many positives")
    ] = 10,
    active_max_negative_ratio: Annotated[
        float, typer.Option(min=0.0, help="shadow -> active: negative/positive must stay below this")
    ] = 0.1,
    show_all: Annotated[
        bool, typer.Option("--all", help="also list rules that are not eligible, with reasons")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON instead of a table")] = False,
) -> None:
    """Suggest (never apply) rule promotions: draft -> shadow and shadow -> active."""
    from memlane.config import Settings
    from memlane.rules.promotion import PromotionThresholds

    settings = Settings()
    thresholds = PromotionThresholds(
        shadow_min_distinct_positive_runs=shadow_min_runs,
        shadow_max_negative=shadow_max_negative,
        active_min_positive=active_min_positive,
        active_max_negative_ratio=active_max_negative_ratio,
    )
    tenant_id = tenant or settings.defaults.tenant_id
    rows = asyncio.run(_suggest(settings, tenant_id, scope, thresholds, show_all))
    if as_json:
        typer.echo(json.dumps({"tenant_id": tenant_id, "suggestions": rows}, indent=2))
        return
    _table(tenant_id, rows, show_all)


async def _suggest(
    settings: Any, tenant_id: str, scope: str | None, thresholds: Any, show_all: bool
) -> list[dict[str, Any]]:
    from memlane.services.container import open_services

    svc = await open_services(settings, auto_migrate=False)
    try:
        scopes = [scope] if scope else [s for _, s in await svc.store.list_scopes(tenant_id)]
        rows: list[dict[str, Any]] = []
        for sc in scopes:
            checks = await svc.rules.suggest_promotions(tenant_id, sc, thresholds, include_ineligible=show_all)
            rows += [{"scope": sc, **c.as_dict()} for c in checks]
        return rows
    finally:
        await svc.close()


def _table(tenant_id: str, rows: list[dict[str, Any]], show_all: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not rows:
        console.print(f"no rule of tenant {tenant_id!r} has earned a promotion (nothing was changed)")
        return
    table = Table(title=f"rule promotion suggestions, tenant {tenant_id} (read-only)")
    for name in ("scope", "rule", "move", "eligible", "positive", "negative", "runs", "why"):
        table.add_column(name)
    for r in rows:
        ev = r["evidence"]
        table.add_row(
            r["scope"],
            r["rule_node_id"],
            f"{r['from_state']} -> {r['to_state'] or '-'}",
            "yes" if r["eligible"] else "no",
            str(ev.get("positive", 0)),
            str(ev.get("negative", 0)),
            str(ev.get("distinct_positive_runs", 0)),
            "; ".join([*r["reasons"], *r["blockers"]]),
        )
    console.print(table)
    eligible = sum(1 for r in rows if r["eligible"])
    console.print(
        f"{eligible} suggestion(s); apply with POST /v1/memory/rules/state "
        '{"rule_node_id": ..., "state": ..., "input_text": ...}'
        + ("" if show_all else " (--all lists the others with reasons)")
    )
