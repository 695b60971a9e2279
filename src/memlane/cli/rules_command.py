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


COLUMNS = ("scope", "rule", "move", "eligible", "positive", "negative", "runs", "why")


def _cells(r: dict[str, Any]) -> list[str]:
    ev = r["evidence"]
    return [
        r["scope"],
        r["rule_node_id"],
        f"{r['from_state']} -> {r['to_state'] or '-'}",
        "yes" if r["eligible"] else "no",
        str(ev.get("positive", 0)),
        str(ev.get("negative", 0)),
        str(ev.get("distinct_positive_runs", 0)),
        "; ".join([*r["reasons"], *r["blockers"]]),
    ]


def _table(tenant_id: str, rows: list[dict[str, Any]], show_all: bool) -> None:
    """A table on a terminal; piped or redirected, tab-separated lines (a header, then one line
    per rule) with every value whole, the rule ids above all: a table fitted to 80 columns cut
    them to ``01a21b…``, and a suggestion is applied by its rule's id. The notes go to stderr
    then, so what is read from stdout is the rows alone."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    notes = Console(stderr=True) if not console.is_terminal else console
    if not rows:
        notes.print(f"no rule of tenant {tenant_id!r} has earned a promotion (nothing was changed)")
        return
    title = f"rule promotion suggestions, tenant {tenant_id} (read-only)"
    if console.is_terminal:
        table = Table(title=title)
        for name in COLUMNS:
            # an id is never cut nor folded: the other columns give way
            table.add_column(name, no_wrap=name == "rule", min_width=36 if name == "rule" else None)
        for r in rows:
            table.add_row(*_cells(r))
        console.print(table)
    else:
        notes.print(title)
        typer.echo("\t".join(COLUMNS))
        for r in rows:
            typer.echo("\t".join(cell.replace("\t", " ").replace("\n", " ") for cell in _cells(r)))
    eligible = sum(1 for r in rows if r["eligible"])
    notes.print(
        f"{eligible} suggestion(s); apply with POST /v1/memory/rules/state "
        '{"rule_node_id": ..., "state": ..., "input_text": ...}'
        + ("" if show_all else " (--all lists the others with reasons)")
    )
