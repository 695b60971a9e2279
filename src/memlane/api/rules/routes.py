"""The graph surface's rules and tool policy: ``/v1/memory/rules/evaluate``, ``/rules/state``,
``/tools/select``, ``/tools/feedback`` and ``/feedback``; plus the ``rules`` block of recall.

Identity auto-injection (docs/api-graph.md, "Auth Identity Mapping"): when the credentials
carry an agent or team, ``context.agent.id`` / ``context.agent.team_id`` are filled in when
absent, and a different value there (or in the flat ``context.agent_id`` / ``context.team_id``)
is ``403 identity_mismatch``. Such a caller must send an object context (else
``400 invalid_context``): rule lanes are enforced on the identity found in the context, and a
context that cannot carry one would let the caller see every private rule.
"""

from __future__ import annotations

from typing import Any, Protocol

from fastapi import APIRouter, Depends, Request

from memlane.api.common.body import JsonBodyRoute
from memlane.api.common.deps import (
    Bucket,
    CurrentActor,
    ServicesDep,
    authenticated,
    quota,
    resolve_scope,
    resolve_tenant,
)
from memlane.api.common.identity import Claims, viewer_of
from memlane.api.rules import responses as r
from memlane.api.rules.requests import (
    EvaluateRequest,
    FeedbackRequest,
    RecallRulesIn,
    RuleStateRequest,
    ToolsFeedbackRequest,
    ToolsSelectRequest,
    context_problem,
)
from memlane.domain.errors import InvalidRequest, NotFound
from memlane.domain.hashing import sha256_hex
from memlane.domain.visibility import Viewer
from memlane.services.recall.graph_recall import RulesQuestion

router = APIRouter(
    route_class=JsonBodyRoute,
    prefix="/v1/memory",
    tags=["graph memory: rules and tools"],
    dependencies=[Depends(authenticated)],
)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def context_viewer(
    request: Request,
    tenant: str,
    context: Any,
    *,
    field: str = "context",
    agent_default: str | None = None,
    team_default: str | None = None,
) -> tuple[Any, Viewer]:
    """The caller as the rules see it, and the context with that identity filled in (a copy).

    The identity the context states (``agent.id``/``agent_id``, ``agent.team_id``/``team_id``)
    is a claim like any other (api/common/identity.py). Credentials carrying an identity need an
    object context (else ``400 invalid_context``): rule lanes are enforced on the identity in
    the context, and a context that cannot carry one would hide whose rules apply."""
    if not isinstance(context, dict):
        viewer = viewer_of(request, tenant)
        if viewer.authenticated and (viewer.agent_id or viewer.team_id):
            raise InvalidRequest(
                f"{field} must be an object: your credentials carry an agent/team identity that is written "
                f"into {field}.agent",
                code="invalid_context",
                details={"field": field},
            )
        return context, viewer
    ctx = dict(context)
    raw_agent = ctx.get("agent")
    if raw_agent is not None and not isinstance(raw_agent, dict):
        raise InvalidRequest(
            f"{field}.agent must be an object ({{id?, team_id?, role?}})",
            code="invalid_context",
            details={"field": f"{field}.agent"},
        )
    agent = dict(raw_agent or {})
    claims = Claims(
        agent_id={
            f"{field}.agent.id": _text(agent.get("id")),
            f"{field}.agent_id": _text(ctx.get("agent_id")),
            "consumer_agent_id": agent_default,
        },
        team_id={
            f"{field}.agent.team_id": _text(agent.get("team_id")),
            f"{field}.team_id": _text(ctx.get("team_id")),
            "consumer_team_id": team_default,
        },
    )
    viewer = viewer_of(request, tenant, claims)
    if agent.get("id") is None and ctx.get("agent_id") is None and viewer.agent_id is not None:
        agent["id"] = viewer.agent_id
    if agent.get("team_id") is None and ctx.get("team_id") is None and viewer.team_id is not None:
        agent["team_id"] = viewer.team_id
    if agent or raw_agent is not None:
        ctx["agent"] = agent
    return ctx, viewer


def _input_sha(body: Any) -> str:
    return str(body.input_sha256 or sha256_hex(body.input_text or ""))


class PlannerRequest(Protocol):
    """What every planner-context request names: a tenant, a scope and the context."""

    tenant_id: str | None
    scope: str | None
    context: Any


async def planner_call(request: Request, body: PlannerRequest, bucket: Bucket) -> tuple[str, str, Any, Viewer]:
    """The tenant, scope, filled-in context and viewer of a planner-context request, once its
    quota ``bucket`` has admitted it (the same steps, in this order, for every such route)."""
    tenant = resolve_tenant(request, body.tenant_id)
    scope = resolve_scope(request, body.scope)
    context, viewer = context_viewer(request, tenant, body.context)
    await quota(request, bucket, tenant)
    return tenant, scope, context, viewer


# --- recall's ``rules`` block (used by api/graph/routes.py) ---------------------------------
def recall_rules_question(request: Request, tenant: str, body: RecallRulesIn) -> RulesQuestion | None:
    """The ``rules`` block a recall asks for: its rules context with identity filled in, the
    rules' viewer and the block's bounds; None when no context was sent. Called before the
    recall runs, so a bad context fails fast. Besides the credentials, ``consumer_agent_id`` /
    ``consumer_team_id`` fill in an absent ``agent.id`` / ``agent.team_id``: the contract ties
    the consumer team to team-scoped rules."""
    if body.rules_context is None:
        return None
    problem = context_problem(body.rules_context)
    if problem is not None:
        raise InvalidRequest(
            f"rules_context is too large: {problem}", code="invalid_request", details={"field": "rules_context"}
        )
    context, viewer = context_viewer(
        request,
        tenant,
        body.rules_context,
        field="rules_context",
        agent_default=body.consumer_agent_id,
        team_default=body.consumer_team_id,
    )
    return RulesQuestion(
        viewer=viewer, context=context, include_shadow=body.rules_include_shadow, limit=body.rules_limit
    )


# --- endpoints ------------------------------------------------------------------------------
@router.post(
    "/rules/evaluate", response_model=r.EvaluateReply, summary="Evaluate SHADOW/ACTIVE rules against a planner context"
)
async def rules_evaluate(body: EvaluateRequest, request: Request, svc: ServicesDep) -> r.EvaluateReply:
    tenant, scope, context, viewer = await planner_call(request, body, "recall")
    ev = await svc.rules.evaluate(viewer, scope, context, include_shadow=body.include_shadow, limit=body.limit)
    return {"tenant_id": tenant, "scope": scope, **ev.as_response()}


@router.post(
    "/tools/select", response_model=r.ToolsSelectReply, summary="Apply ACTIVE rule tool policy to candidate tools"
)
async def tools_select(body: ToolsSelectRequest, request: Request, svc: ServicesDep) -> r.ToolsSelectReply:
    tenant, scope, context, viewer = await planner_call(request, body, "recall")
    out = await svc.rules.select_tools(
        viewer,
        scope,
        context,
        body.candidates,
        include_shadow=body.include_shadow,
        rules_limit=body.rules_limit,
        strict=body.strict,
    )
    ev, sel = out.evaluation, out.selection
    rules: r.SelectionRules = {
        "considered": ev.considered,
        "matched": ev.matched,
        "skipped_invalid_then": ev.skipped_invalid_then,
        "invalid_then_sample": ev.invalid_then_sample,
        "agent_visibility_summary": ev.agent_visibility_summary,
        "applied": ev.applied,
        "tool_conflicts_summary": sel.tool_conflicts_summary,
    }
    if out.shadow_selection is not None:
        rules["shadow_selection"] = out.shadow_selection
        rules["shadow_tool_conflicts_summary"] = out.shadow_tool_conflicts_summary or []
    return {
        "tenant_id": tenant,
        "scope": scope,
        "candidates": sel.candidates,
        "selection": sel.as_dict(),
        "rules": rules,
    }


@router.post(
    "/tools/feedback",
    response_model=r.ToolsFeedbackReply,
    summary="Attribute a tool decision's outcome to the rules behind it",
)
async def tools_feedback(
    body: ToolsFeedbackRequest, request: Request, svc: ServicesDep, actor: CurrentActor
) -> r.ToolsFeedbackReply:
    tenant, scope, context, viewer = await planner_call(request, body, "write")
    result = await svc.rules.tools_feedback(
        viewer,
        scope,
        context,
        body.candidates,
        body.selected_tool,
        body.outcome,
        target=body.target,
        include_shadow=body.include_shadow,
        rules_limit=body.rules_limit,
        run_id=body.run_id,
        note=body.note,
        actor=actor.of(body.actor),
        input_sha256=_input_sha(body),
    )
    return {
        "ok": True,
        "tenant_id": tenant,
        "scope": scope,
        "updated_rules": len(result.rule_node_ids) if result.commit is not None else 0,
        "rule_node_ids": result.rule_node_ids if result.commit is not None else [],
        "commit_id": result.commit.id if result.commit else None,
        "commit_hash": result.commit.commit_hash if result.commit else None,
    }


@router.post("/feedback", response_model=r.RuleFeedbackReply, summary="Record one outcome for one rule")
async def rule_feedback(
    body: FeedbackRequest, request: Request, svc: ServicesDep, actor: CurrentActor
) -> r.RuleFeedbackReply:
    tenant = resolve_tenant(request, body.tenant_id)
    scope = resolve_scope(request, body.scope)
    viewer = viewer_of(request, tenant)
    await quota(request, "write", tenant)
    rule_id = str(body.rule_node_id)
    result = await svc.rules.rule_feedback(
        viewer,
        scope,
        rule_id,
        body.outcome,
        run_id=body.run_id,
        note=body.note,
        actor=actor.of(body.actor),
        input_sha256=_input_sha(body),
    )
    if result.commit is None:  # a found rule is always updated; a missing one raised rule_not_found
        raise NotFound(f"no rule {rule_id} in this scope", code="rule_not_found", details={"field": "rule_node_id"})
    return {
        "ok": True,
        "tenant_id": tenant,
        "scope": scope,
        "rule_node_id": rule_id,
        "outcome": body.outcome,
        "stats": result.stats.get(rule_id, {}),
        "commit_id": result.commit.id,
        "commit_hash": result.commit.commit_hash,
    }


@router.post(
    "/rules/state",
    response_model=r.RuleStateReply,
    summary="Move a rule through draft -> shadow -> active (or disable it)",
)
async def rules_state(
    body: RuleStateRequest, request: Request, svc: ServicesDep, actor: CurrentActor
) -> r.RuleStateReply:
    tenant = resolve_tenant(request, body.tenant_id)
    scope = resolve_scope(request, body.scope)
    viewer = viewer_of(request, tenant)
    await quota(request, "write", tenant)
    change = await svc.rules.set_state(
        viewer,
        scope,
        str(body.rule_node_id),
        body.state,
        actor=actor.of(body.actor),
        input_sha256=_input_sha(body),
    )
    return {
        "ok": True,
        "tenant_id": tenant,
        "scope": scope,
        "rule_node_id": change.rule_node_id,
        "previous_state": change.previous_state,
        "state": change.state,
        "changed": change.changed,
        "commit_id": change.commit.id if change.commit else None,
        "commit_hash": change.commit.commit_hash if change.commit else None,
    }
