"""The operations the suite attempts, one per endpoint and purpose, on every surface.

Each operation knows how to ask (the request, with the attempt's forged fields placed on the
channels that surface reads) and what its answer shows (whether the target came back, or
whether a change took effect). What the answer *must* be is not here: that is the model's
(model.py) and the judge's (judge.py). The only surface knowledge an operation adds is its
*domain*: which memories it can return at all when the caller may see them (a conversation
query returns events of the app's scope, a tool search its tool memories...), taken from the
API documentation, so that a caller allowed to see a memory is shown to find it.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

import httpx

from memlane.api.ui.views import HISTORY_SCAN
from tests.security.authz.model import Refusal, Who, may_govern, may_see
from tests.security.authz.world import (
    ACME,
    GRAPH,
    IDEMPOTENCY_KEY,
    LAYERS,
    PROJECT,
    Caller,
    Target,
    World,
    embed,
)

NODE_KINDS = ("graph", "rule", "note", "layered", "tool")
LAYERED_LAYERS = ("identity", "project", "workspace")


@dataclass(frozen=True)
class Forgery:
    """What a request claims beyond its credentials. ``None``: the field is not sent."""

    tenant: str | None = None
    tenant_in_body: bool = False
    agent: str | None = None
    team: str | None = None
    user: str | None = None
    session: str | None = None
    role: str | None = None

    def identity(self) -> dict[str, str]:
        return {d: v for d in ("agent", "team", "user", "session") if (v := getattr(self, d)) is not None}


@dataclass
class Attempt:
    world: World
    caller: Caller
    op: Op
    target: Target
    forgery: Forgery
    variant: int

    @property
    def tenant_in_body(self) -> bool:
        return self.forgery.tenant is not None and self.forgery.tenant_in_body and self.op.body_tenant

    def headers(self, **extra: str) -> dict[str, str]:
        """Credentials plus every forged header. Identity headers go out on every surface; only
        the surfaces that read them (``op.channel == "headers"``) count them as claims."""
        f = self.forgery
        h = dict(self.caller.auth())
        if f.tenant is not None and not self.tenant_in_body:
            h["X-Tenant-Id"] = f.tenant
        for dim, header in (
            ("agent", "X-Agent-Id"),
            ("team", "X-Team-Id"),
            ("user", "X-User-Id"),
            ("session", "X-Session-Id"),
        ):
            value = getattr(f, dim)
            if value is not None:
                h[header] = value
        if f.role is not None:
            h["X-Agent-Role"] = f.role
        h.update(extra)
        return h

    def body(self, **fields: Any) -> dict[str, Any]:
        if self.tenant_in_body:
            fields["tenant_id"] = self.forgery.tenant
        return fields

    def context(self) -> dict[str, Any]:
        """A planner context carrying the forged agent/team, on one of the two spellings."""
        ctx: dict[str, Any] = {"intent": "plan the next step"}
        f = self.forgery
        nested = self.variant % 2 == 0
        if nested:
            agent = {k: v for k, v in (("id", f.agent), ("team_id", f.team)) if v is not None}
            if agent:
                ctx["agent"] = agent
        else:
            ctx.update({k: v for k, v in (("agent_id", f.agent), ("team_id", f.team)) if v is not None})
        return ctx


@dataclass
class Observation:
    status: int
    payload: Any
    text: str
    sent: str
    #: the target came back (reads), or the change took effect (writes); None: not shown
    found: bool | None = None
    surface: str = "graph"


Run = Callable[[Attempt], Observation]
Domain = Callable[[Target, Who, Attempt], bool]
#: a refusal the documentation gives for this request whoever the target (a role or a missing
#: identifier), once the caller's identity is settled
Policy = Callable[["Attempt", Who], Refusal | None]


def no_policy(a: Attempt, who: Who) -> Refusal | None:
    return None


def always(t: Target, who: Who, a: Attempt) -> bool:
    return True


#: the identity a request names in its body or query (the conversation surface's ``user_id``
#: and ``session_id``), besides the forged headers
BodyClaims = Callable[[Attempt], dict[str, str]]


def no_body_claims(a: Attempt) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class Op:
    name: str
    run: Run
    #: which identity claims the surface reads: headers | consumer | context | owner | none
    channel: str
    #: the body may carry ``tenant_id``
    body_tenant: bool
    #: the target kinds the operation is aimed at
    kinds: tuple[str, ...]
    #: a target the caller may see comes back (reads) / may be changed (writes)
    domain: Domain = always
    #: "delete" | "change" | None
    mutation: str | None = None
    #: a change aimed at a target the caller may not see answers 200 with nothing done (the
    #: target is reported missing), rather than a 4xx
    denied_with_200: bool = False
    policy: Policy = no_policy
    #: False: the operation creates something new and ignores the target (it is judged on
    #: its refusals, and an allowed write must succeed)
    aimed: bool = True
    #: also called over MCP (one attempt in three), with the official client
    mcp: bool = False
    #: the identity the body or query names (a claim like the headers)
    body_claims: BodyClaims = no_body_claims
    #: an Idempotency-Key replay of the target task's submission (judge.py judges it apart)
    replay: bool = False
    #: target kinds drawn more often (test_authorization_suite.py): an operation aimed at every
    #: node whose domain is a few of them still meets its positive controls there
    focus: tuple[str, ...] = ()
    #: the allowed change retires the target for good (a disabled rule: disabled is final), so
    #: the judge checks that it took effect and writes the target anew
    retires: Callable[[Attempt], bool] = lambda a: False


# --- plumbing ---------------------------------------------------------------------------------
def _observe(a: Attempt, r: httpx.Response, sent: Any, surface: str) -> Observation:
    try:
        payload = r.json()
    except ValueError:
        payload = None
    return Observation(
        r.status_code, payload, r.text, json.dumps(sent, default=str) + str(r.request.url), surface=surface
    )


def _post(a: Attempt, path: str, body: dict[str, Any], surface: str, **headers: str) -> Observation:
    r = a.world.http.post(path, json=body, headers=a.headers(**headers))
    return _observe(a, r, body, surface)


def _get(a: Attempt, path: str, params: dict[str, Any] | None, surface: str, **headers: str) -> Observation:
    r = a.world.http.get(path, params=params, headers=a.headers(**headers))
    return _observe(a, r, params or {}, surface)


def _ids(items: Any, key: str) -> set[str]:
    return {str(i.get(key)) for i in items or [] if isinstance(i, dict)}


def _ok(obs: Observation) -> dict[str, Any]:
    return obs.payload if obs.status == 200 and isinstance(obs.payload, dict) else {}


# --- graph surface ----------------------------------------------------------------------------
def _recall_body(a: Attempt, **query: Any) -> dict[str, Any]:
    f = a.forgery
    body = a.body(
        scope=a.target.scope, limit=200, max_nodes=200, ranked_limit=500, include_meta=True, include_slots=True, **query
    )
    if f.agent is not None:
        body["consumer_agent_id"] = f.agent
    if f.team is not None:
        body["consumer_team_id"] = f.team
    if a.target.scope == GRAPH and a.variant % 2:
        body["rules_context"] = {"intent": "plan"}
    return body


def recall_text(a: Attempt) -> Observation:
    obs = _post(a, "/v1/memory/recall_text", _recall_body(a, query_text=a.target.words), "graph")
    obs.found = a.target.id in _ids(_ok(obs).get("seeds"), "id")
    return obs


def recall(a: Attempt) -> Observation:
    obs = _post(a, "/v1/memory/recall", _recall_body(a, query_embedding=embed(a.target.words)), "graph")
    obs.found = a.target.id in _ids(_ok(obs).get("seeds"), "id")
    return obs


def seedable(t: Target, who: Who, a: Attempt) -> bool:
    """Recall seeds from ready nodes of the hot and warm tiers (docs/api-graph.md)."""
    return t.tier in ("hot", "warm")


def rules_evaluate(a: Attempt) -> Observation:
    obs = _post(a, "/v1/memory/rules/evaluate", a.body(scope=a.target.scope, context=a.context()), "graph")
    obs.found = a.target.id in _ids(_ok(obs).get("active"), "rule_node_id")
    return obs


def _tool_of(t: Target) -> str:
    """The tool a rule target prefers (named after the target, not its marker: requests carry
    it, and what a request carries may be stored, e.g. in a commit)."""
    return f"tool_{t.name}"


def tools_select(a: Attempt) -> Observation:
    body = a.body(scope=a.target.scope, context=a.context(), candidates=[_tool_of(a.target), "calculator"])
    obs = _post(a, "/v1/memory/tools/select", body, "graph")
    obs.found = _ok(obs).get("selection", {}).get("preferred") == [_tool_of(a.target)]
    return obs


def tools_feedback(a: Attempt) -> Observation:
    tool = _tool_of(a.target)
    body = a.body(
        scope=a.target.scope,
        context=a.context(),
        candidates=[tool, "calculator"],
        selected_tool=tool,
        outcome="positive",
        input_text="tool outcome",
    )
    obs = _post(a, "/v1/memory/tools/feedback", body, "graph")
    obs.found = a.target.id in (_ok(obs).get("rule_node_ids") or [])
    return obs


def rule_feedback(a: Attempt) -> Observation:
    body = a.body(scope=a.target.scope, rule_node_id=a.target.id, outcome="negative", input_text="rule outcome")
    obs = _post(a, "/v1/memory/feedback", body, "graph")
    obs.found = obs.status == 200
    return obs


RULE_STATES = ("active", "shadow", "disabled")


def rule_state(a: Attempt) -> Observation:
    """A no-op (active), a refused move (shadow: the rule stays active), or disabling it."""
    state = RULE_STATES[a.variant % 3]
    body = a.body(scope=a.target.scope, rule_node_id=a.target.id, state=state, input_text="state")
    obs = _post(a, "/v1/memory/rules/state", body, "graph")
    obs.found = obs.status in (200, 409)
    return obs


def disables(a: Attempt) -> bool:
    return RULE_STATES[a.variant % 3] == "disabled"


#: every write of the suite over a stored node changes it: a refused one could otherwise pass
#: for an accepted no-op (a rule sent back as stored is accepted from anyone who sees it)
_CHANGE = itertools.count(1)


def rule_edit(a: Attempt) -> Observation:
    """The two calls of issue #26: edit a rule's definition (which puts a live rule back to
    shadow), then promote it with rules/state. Only a new ``rule_meta.weight`` differs from
    what the target's owner wrote, so the rule still does what the other operations look for."""
    t = a.target
    slots = {"if": {}, "then": {"tool": {"prefer": [_tool_of(t)]}}, "rule_meta": {"weight": 1 + next(_CHANGE) / 1e7}}
    node = {"id": t.id, "type": "rule", "slots": slots}
    obs = _post(a, "/v1/memory/write", a.body(scope=t.scope, input_text="edit", nodes=[node]), "graph")
    if _ok(obs).get("tenant_id") != t.tenant:
        return obs  # refused, or a rule of the caller's own tenant made with the target's id
    body = a.body(scope=t.scope, rule_node_id=t.id, state="active", input_text="promote again")
    promoted = _post(a, "/v1/memory/rules/state", body, "graph")
    promoted.text = obs.text + promoted.text
    promoted.sent = obs.sent + promoted.sent
    promoted.found = promoted.status == 200
    return promoted


def _by_client_id(a: Attempt) -> bool:
    return a.variant % 2 == 1 and a.target.client_id is not None


def _refs(a: Attempt) -> dict[str, list[str | None]]:
    """The target by id, or (odd variants of graph writes) by the client id it was written
    with: a client id resolves only to a node the caller may see, and ``resolved`` counts
    nothing else."""
    return {"client_ids": [a.target.client_id]} if _by_client_id(a) else {"node_ids": [a.target.id]}


def activate(a: Attempt) -> Observation:
    outcome = ("positive", "negative", "neutral")[a.variant % 3]
    body = a.body(scope=a.target.scope, **_refs(a), outcome=outcome, input_text="used it")
    obs = _post(a, "/v1/memory/nodes/activate", body, "graph")
    out = _ok(obs).get("activated", {})
    obs.found = a.target.id in (out.get("node_ids") or []) or bool(_by_client_id(a) and out.get("resolved"))
    return obs


def rehydrate(a: Attempt) -> Observation:
    body = a.body(scope=a.target.scope, **_refs(a), target_tier="warm", input_text="bring back")
    obs = _post(a, "/v1/memory/archive/rehydrate", body, "graph")
    out = _ok(obs).get("rehydrated", {})
    found = a.target.id in [*(out.get("node_ids") or []), *(out.get("noop_node_ids") or [])]
    obs.found = found or bool(_by_client_id(a) and out.get("resolved"))
    return obs


def write_over(a: Attempt) -> Observation:
    """Overwrite a stored node by its id. Only its scores change: its text, and so its vector
    and the searches that find it, stay as they are."""
    t = a.target
    node = {
        "id": t.id,
        "type": t.node_type,
        "importance": round(a.variant / 11, 3),
        "confidence": 0.9,
        "salience": next(_CHANGE) / 1e7,
    }
    obs = _post(a, "/v1/memory/write", a.body(scope=t.scope, input_text="overwrite", nodes=[node]), "graph")
    # another tenant writing the same id creates its own node; only the target's tenant counts
    obs.found = _ok(obs).get("tenant_id") == t.tenant
    return obs


def write_new(a: Attempt) -> Observation:
    """A new node with the forged owner and producer fields (top level or per node)."""
    f = a.forgery
    owners = {k: v for k, v in (("owner_agent_id", f.agent), ("owner_team_id", f.team)) if v is not None}
    if f.agent is not None and a.variant % 3 == 2:
        owners = {"producer_agent_id": f.agent, **{k: v for k, v in owners.items() if k != "owner_agent_id"}}
    node: dict[str, Any] = {"type": "event", "title": f"new node {a.variant}"}
    body = a.body(scope=GRAPH + "x", input_text="new", memory_lane=("private", "shared")[a.variant % 2], nodes=[node])
    if a.variant % 4 < 2:
        body.update(owners)
    else:
        node.update(owners)
    obs = _post(a, "/v1/memory/write", body, "graph")
    obs.found = obs.status == 200
    return obs


# --- conversation surface ---------------------------------------------------------------------
def acting_user(a: Attempt) -> dict[str, str]:
    """One attempt in three names the target's user in the query (``user_id``: the user the
    request acts for, which only that user's callers, the admin and the manager may name)."""
    return {"user": a.target.user} if a.variant % 3 == 1 and a.target.user else {}


def _conv_params(a: Attempt, **params: Any) -> dict[str, Any]:
    acting = acting_user(a)
    return {**params, "user_id": acting["user"]} if acting else params


def conv_get(a: Attempt) -> Observation:
    obs = _get(a, f"/api/v1/memories/{a.target.id}", _conv_params(a, app_id=a.target.scope), "conversation")
    obs.found = _ok(obs).get("memory_id") == a.target.id
    return obs


def conv_evolution(a: Attempt) -> Observation:
    params = _conv_params(a, app_id=a.target.scope)
    obs = _get(a, f"/api/v1/memories/{a.target.id}/evolution", params, "conversation")
    obs.found = a.target.id in _ids(_ok(obs).get("memories"), "memory_id")
    return obs


def conv_delete(a: Attempt) -> Observation:
    params = _conv_params(a, app_id=a.target.scope)
    r = a.world.http.delete(f"/api/v1/memories/{a.target.id}", params=params, headers=a.headers())
    obs = _observe(a, r, params, "conversation")
    obs.found = obs.status == 200
    return obs


def conv_query(a: Attempt) -> Observation:
    params = _conv_params(a, app_id=a.target.scope, query=a.target.words, n_results=100)
    obs = _get(a, "/api/v1/memories/query", params, "conversation")
    obs.found = a.target.id in _ids(_ok(obs).get("memories"), "memory_id")
    return obs


def queried(t: Target, who: Who, a: Attempt) -> bool:
    """The conversation query ranks the active events of the app (docs/api-conversation.md);
    a ``user_id`` keeps that user's (the query names only the target's own)."""
    return t.node_type == "event"


def conv_task(a: Attempt) -> Observation:
    obs = _get(a, f"/api/v1/tasks/{a.target.id}", _conv_params(a) or None, "conversation")
    obs.found = _ok(obs).get("task_id") == a.target.id
    return obs


def buffer_user(a: Attempt) -> dict[str, str]:
    """A batcher request names the buffer's user: the buffer is (app, user, session)."""
    return {"user": str(a.target.user)}


def _follow_flush(a: Attempt, obs: Observation) -> None:
    """A size flush gives the buffer a new last task: the buffer target of the caller's tenant
    with that key (the one the request changed) now goes by it."""
    answer = _ok(obs)
    if not answer.get("flushed_task_ids"):
        return
    for t in a.world.targets.values():
        same = (t.tenant, t.scope, t.user) == (a.caller.who.tenant, answer.get("app_id"), answer.get("user_id"))
        if t.kind == "buffer" and same:
            t.id = answer.get("last_task_id")


def batcher_status(a: Attempt) -> Observation:
    params = {"app_id": a.target.scope, "user_id": a.target.user}
    obs = _get(a, "/api/v1/memory-batcher/buffers", params, "conversation")
    obs.found = _ok(obs).get("last_task_id") == a.target.id
    return obs


def batcher_append(a: Attempt) -> Observation:
    """One message, or (even variants) none: an empty append reports the buffer."""
    messages = [{"role": "user", "content": f"an appended message {a.variant}"}] if a.variant % 2 else []
    body = {"app_id": a.target.scope, "user_id": a.target.user, "messages": messages}
    obs = _post(a, "/api/v1/memory-batcher/messages", body, "conversation")
    _follow_flush(a, obs)
    obs.found = _ok(obs).get("last_task_id") == a.target.id
    return obs


def _new_note_user(a: Attempt) -> str:
    return a.forgery.user or ("u1", "u2")[a.variant % 2]


def new_note_claims(a: Attempt) -> dict[str, str]:
    """A new conversation write names a user (its body needs one): the forged one, else u1 or
    u2; and one in three names the forged session too."""
    claims = {"user": _new_note_user(a)}
    if a.variant % 3 == 0 and a.forgery.session is not None:
        claims["session"] = a.forgery.session
    return claims


def _new_note_body(a: Attempt, text: str) -> dict[str, Any]:
    claims = new_note_claims(a)
    body: dict[str, Any] = {"app_id": "c-new", "user_id": claims["user"], "messages": f"{text} {a.variant}"}
    if "session" in claims:
        body["session_id"] = claims["session"]
    return body


def agent_memory(a: Attempt) -> Observation:
    obs = _post(a, "/api/v1/agent/memories", _new_note_body(a, "a new agent note"), "conversation")
    obs.found = obs.status == 202
    return obs


def summary(a: Attempt) -> Observation:
    obs = _post(a, "/api/v1/agent/summaries", _new_note_body(a, "a conversation to sum up"), "conversation")
    obs.found = obs.status == 200
    return obs


def replay_user(a: Attempt) -> dict[str, str]:
    return {"user": str(a.target.user)}


def replay(a: Attempt) -> Observation:
    """The target task's submission sent again with its Idempotency-Key: its very body (even
    variants) or another body (odd variants). The key is the submitter's alone."""
    body = a.target.conversation_body()
    if a.variant % 2:
        body["messages"] += f" and more {a.variant}"
    obs = _post(a, "/api/v1/agent/memories", body, "conversation", **{"Idempotency-Key": IDEMPOTENCY_KEY})
    answer = obs.payload if obs.status == 202 and isinstance(obs.payload, dict) else {}
    obs.found = answer.get("task_id") == a.target.id
    return obs


# --- layered surface --------------------------------------------------------------------------
def _layer_for(a: Attempt) -> str:
    t = a.target
    return t.layer if t.kind == "layered" and t.layer and a.variant % 4 else LAYERED_LAYERS[a.variant % 3]


def layers_read_id(a: Attempt) -> Observation:
    layer = _layer_for(a)
    body = a.body(scope=LAYERS, layer=layer, id=a.target.public_id if a.variant % 2 else a.target.id)
    obs = _post(a, "/v1/layers/read", body, "layers")
    obs.found = f"mem_{a.target.id}" in _ids(_ok(obs).get("results"), "id")
    return obs


def read_by_id_domain(t: Target, who: Who, a: Attempt) -> bool:
    return t.kind == "layered" and t.layer == _layer_for(a)


def layers_read_query(a: Attempt) -> Observation:
    t = a.target
    layer = _layer_for(a)
    body = a.body(scope=LAYERS, layer=layer, limit=100)
    if layer == "workspace":
        body.update(task_id=t.spec.get("task_id", "wtask-none"), query=t.words)
    else:
        body.update(query=t.words)
    obs = _post(a, "/v1/layers/read", body, "layers")
    obs.found = f"mem_{t.id}" in _ids(_ok(obs).get("results"), "id")
    return obs


def layers_search(a: Attempt) -> Observation:
    layer = None if a.variant % 2 else _layer_for(a)
    body = a.body(scope=LAYERS, query=a.target.words, top_k=100, **({"layer": layer} if layer else {}))
    obs = _post(a, "/v1/layers/search", body, "layers")
    obs.found = f"mem_{a.target.id}" in _ids(_ok(obs).get("results"), "id")
    return obs


def searched_layer(a: Attempt, who: Who) -> tuple[str, ...]:
    if a.op.name == "layers.search" and a.variant % 2:
        return LAYERED_LAYERS if who.system else ("identity", "project")
    return (_layer_for(a),)


def layered_domain(t: Target, who: Who, a: Attempt) -> bool:
    return (
        t.kind == "layered" and t.scope is not None and t.scope.startswith(LAYERS) and t.layer in searched_layer(a, who)
    )


def layers_update(a: Attempt) -> Observation:
    t = a.target
    body = a.body(
        id=t.public_id, new_title=f"{t.words} retitled {a.variant}", user_instruction=True, user_confirmed=True
    )
    obs = _post(a, "/v1/layers/update", body, "layers")
    obs.found = obs.status == 200
    return obs


def layers_delete(a: Attempt) -> Observation:
    obs = _post(a, "/v1/layers/delete", a.body(id=a.target.public_id, user_instruction=True), "layers")
    obs.found = obs.status == 200
    return obs


def is_layered(t: Target, who: Who, a: Attempt) -> bool:
    return t.kind == "layered"


def in_workspace(t: Target, who: Who, a: Attempt) -> bool:
    """Completing a task deletes the workspace memories of that task (docs/api-layers.md)."""
    return t.layer == "workspace"


def layers_write(a: Attempt) -> Observation:
    layer = LAYERED_LAYERS[a.variant % 3]
    body = a.body(
        scope=LAYERS + "x", layer=layer, title="a new memory", content=f"written in {layer}", user_instruction=True
    )
    obs = _post(a, "/v1/layers/write", body, "layers")
    obs.found = obs.status == 200
    return obs


def layers_complete(a: Attempt) -> Observation:
    task = a.target.spec.get("task_id", "wtask-none")
    obs = _post(a, f"/v1/layers/tasks/{task}/complete", {}, "layers")
    obs.found = bool(_ok(obs).get("deleted"))
    return obs


# --- agent tools, over HTTP and over MCP ------------------------------------------------------
def _tool(a: Attempt, name: str, args: dict[str, Any], **headers: str) -> Observation:
    via_mcp = a.op.mcp and a.variant % 3 == 0
    if not via_mcp:
        r = a.world.http.post(f"/v1/tools/{name}", json=args, headers=a.headers(**headers))
        return _observe(a, r, args, "tools")
    all_headers = {k: v for k, v in a.headers(**headers).items() if k not in a.caller.auth()}
    is_error, payload = a.world.mcp.call(a.caller, all_headers, name, args)
    status = 200 if not is_error else _mcp_status(payload)
    return Observation(status, payload, json.dumps(payload), json.dumps(args) + json.dumps(all_headers), surface="mcp")


MCP_STATUS = {"INVALID_INPUT": 400, "UNAUTHORIZED": 403, "NOT_FOUND": 404, "CONFLICT": 409}


def _mcp_status(payload: Any) -> int:
    code = payload.get("errorCode") if isinstance(payload, dict) else None
    return MCP_STATUS.get(str(code), 500)


def _project(a: Attempt) -> dict[str, str]:
    return {"X-Project-Id": PROJECT} if a.variant % 2 else {}


def tools_search(a: Attempt) -> Observation:
    obs = _tool(a, "memory_search", {"query": a.target.words, "threshold": 0, "limit": 100}, **_project(a))
    found = obs.payload.get("results") if obs.status == 200 and isinstance(obs.payload, dict) else []
    obs.found = a.target.public_id in _ids(found, "memoryId")
    return obs


def addressed(t: Target, who: Who, a: Attempt) -> bool:
    """A tool search returns the memories of the caller's own identifiers (docs/api-tools.md):
    agent, user, session and team memories need that identifier; project memories carry a
    project and are found with it; company memories by everyone."""
    if t.kind != "tool":
        return False
    aud = t.audience
    if t.layer == "agent":
        return who.agent == aud[1]
    if t.layer == "team":
        return who.team == aud[1]
    if t.layer == "user":
        return who.user == aud[1]
    if t.layer == "session":
        return who.session == aud[2] and (None in (who.user, aud[1]) or who.user == aud[1])
    if t.layer == "project":
        return bool(_project(a)) or "project" not in t.spec
    return t.layer == "company"


def tools_delete(a: Attempt) -> Observation:
    obs = _tool(a, "memory_delete", {"memoryId": a.target.public_id}, **_project(a))
    obs.found = obs.status == 200
    return obs


TOOL_LAYERS = ("agent", "user", "session", "team", "company")


def tools_add(a: Attempt) -> Observation:
    layer = TOOL_LAYERS[a.variant % len(TOOL_LAYERS)]
    obs = _tool(a, "memory_add", {"content": f"a new {layer} memory", "layer": layer})
    obs.found = obs.status == 200
    return obs


# --- knowledge --------------------------------------------------------------------------------
def knowledge_list(a: Attempt) -> Observation:
    obs = _get(a, "/v1/knowledge/items", {"limit": 1000}, "tools")
    obs.found = a.target.id in _ids(_ok(obs).get("items"), "id")
    return obs


def knowledge_get(a: Attempt) -> Observation:
    obs = _get(a, f"/v1/knowledge/items/{a.target.id}", {"include_history": "true"}, "tools")
    obs.found = _ok(obs).get("item", {}).get("id") == a.target.id
    return obs


def knowledge_query(a: Attempt) -> Observation:
    obs = _tool(a, "knowledge_query", {"query": a.target.words, "limit": 50})
    items = obs.payload.get("items") if obs.status == 200 and isinstance(obs.payload, dict) else []
    obs.found = a.target.id in _ids(items, "id")
    return obs


def knowledge_show(a: Attempt) -> Observation:
    obs = _tool(a, "knowledge_show", {"id": a.target.id, "includeHistory": True})
    item = obs.payload.get("item") if obs.status == 200 and isinstance(obs.payload, dict) else {}
    obs.found = isinstance(item, dict) and item.get("id") == a.target.id
    return obs


# --- the memory browser's fragments (/ui/part/*) and the admin export ------------------------
def _html(a: Attempt, path: str, params: dict[str, Any] | None) -> Observation:
    obs = _get(a, path, params, "ui")
    obs.found = obs.status == 200 and str(a.target.id) in obs.text
    return obs


def ui_search(a: Attempt) -> Observation:
    return _html(a, "/ui/part/search", {"scope": a.target.scope, "q": a.target.words})


def ui_memory(a: Attempt) -> Observation:
    return _html(a, f"/ui/part/memory/{a.target.id}", {"scope": a.target.scope})


def ui_layers(a: Attempt) -> Observation:
    return _html(a, "/ui/part/layers", {"scope": a.target.scope})


def ui_knowledge(a: Attempt) -> Observation:
    return _html(a, "/ui/part/knowledge", None)


def ui_rules(a: Attempt) -> Observation:
    return _html(a, "/ui/part/rules", {"scope": a.target.scope})


def ui_notes(a: Attempt) -> Observation:
    return _html(a, "/ui/part/notes", {"scope": a.target.scope})


#: pages of a scope ``/ui/part/browse`` is followed through at most (50 memories a page)
BROWSE_PAGES = 40
_NEXT = re.compile(r'id="browse-next" href="/ui/browse\?([^"]+)"')


def _browse_params(a: Attempt) -> dict[str, Any]:
    """The target's scope; one attempt in three reads every interval, one its type only (not
    from a foreign cursor: the owner's first page must have a next one)."""
    params: dict[str, Any] = {"scope": a.target.scope}
    if a.variant % 3 == 1:
        params["validity"] = "history"
    elif a.variant % 3 == 2 and a.target.node_type and not foreign_cursor(a):
        params["type"] = a.target.node_type
    return params


def _cursor_of(html: str) -> str | None:
    """The cursor of the page's *Next page* link (None: the last page)."""
    found = _NEXT.search(html)
    if not found:
        return None
    return str(parse_qs(found.group(1).replace("&amp;", "&")).get("cursor", [""])[0]) or None


def _carried(cursor: str) -> str:
    """What a cursor's readable part holds (docs/security.md: base64url JSON of the position,
    then its MAC), so the judge looks for hidden memories there too."""
    body = cursor.partition(".")[0]
    try:
        return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode("utf-8", "replace")
    except ValueError:
        return ""


def foreign_cursor(a: Attempt) -> bool:
    """One attempt in four continues from a cursor the caller was not handed: the next page
    of the target's owner (graph scope: the fillers give it one), elsewhere a made-up one."""
    return a.variant % 4 == 3


def _start(a: Attempt, params: dict[str, Any]) -> str | None:
    """The cursor the attempt starts from: none, the owner's (got as the owner), or made up."""
    if not foreign_cursor(a):
        return None
    if a.target.scope != GRAPH:
        return "WyJ6eiJd.bm90LWEtbWFj"  # ["zz"] and no valid MAC
    owner = a.world.caller(a.target.owner)
    r = a.world.http.get("/ui/part/browse", params=params, headers=owner.auth())
    cursor = _cursor_of(r.text) if r.status_code == 200 else None
    assert cursor, (owner.name, r.status_code, r.text[:500])
    return cursor


def ui_browse(a: Attempt) -> Observation:
    """Every page of the target's scope, following the *Next page* links (their cursors)."""
    params = _browse_params(a)
    cursor = _start(a, params)
    texts: list[str] = []
    obs = _get(a, "/ui/part/browse", {**params, **({"cursor": cursor} if cursor else {})}, "ui")
    for _ in range(BROWSE_PAGES):
        texts.append(obs.text)
        cursor = _cursor_of(obs.text) if obs.status == 200 else None
        if cursor is None:
            break
        texts.append(_carried(cursor))
        obs = _get(a, "/ui/part/browse", {**params, "cursor": cursor}, "ui")
    assert cursor is None or obs.status != 200, f"{a.target.scope}: more than {BROWSE_PAGES} pages"
    obs.text = "\n".join(texts)
    obs.found = obs.status == 200 and str(a.target.id) in obs.text
    return obs


def browsed(t: Target, who: Who, a: Attempt) -> bool:
    """Every memory of the scope the caller may see is on one of its pages (not checked from a
    foreign cursor, which starts after the owner's first page)."""
    return not foreign_cursor(a) and (a.variant % 3 != 2 or t.node_type is not None)


def cursor_bound(a: Attempt, who: Who) -> Refusal | None:
    """docs/security.md: a cursor serves only the caller (tenant, agent, team, user, session,
    role), scope and filters it was issued to; any other is ``400 invalid_cursor``."""
    if not foreign_cursor(a):
        return None
    issued_to = a.world.caller(a.target.owner).who if a.target.scope == GRAPH else None
    return None if who == issued_to else Refusal(400, "invalid_cursor")


def _recalled_as(a: Attempt) -> Caller:
    """Whose recall the audit then shows: the caller's own, or (odd variants) one its tenant's
    admin made naming the caller's agent, which read every lane: the caller sees that row as
    its own, and must still not see the seeds it may not read."""
    if a.variant % 2 == 0:
        return a.caller
    return next(c for c in a.world.callers() if c.who.tenant == a.caller.who.tenant and c.who.admin)


def ui_audit(a: Attempt) -> Observation:
    """A recall of the target's words (its query made unique), then the scope's recall audit,
    read again until that recall is written (the log is written in batches) when the caller
    may see the row: an admin, or a caller with an agent id."""
    query = f"{a.target.words} audit{next(_CHANGE)}"
    body = {"scope": a.target.scope, "query_text": query, "limit": 200, "max_nodes": 200, "ranked_limit": 500}
    recaller = _recalled_as(a)
    if recaller is a.caller:
        recalled = _post(a, "/v1/memory/recall_text", body, "graph").status
    else:
        body.update({"consumer_agent_id": a.caller.who.agent} if a.caller.who.agent else {})
        recalled = a.world.http.post("/v1/memory/recall_text", json=body, headers=recaller.auth()).status_code
    digest = hashlib.sha256(query.encode("utf-8")).hexdigest()
    obs = _get(a, "/ui/part/audit", {"scope": a.target.scope}, "ui")
    sees_row = a.caller.who.admin or a.caller.who.agent is not None  # (the admins have no agent id of their own)
    deadline = time.monotonic() + 10
    while recalled == 200 and obs.status == 200 and sees_row and digest not in obs.text:
        assert time.monotonic() < deadline, f"the recall {digest} never reached the audit: {obs.text[:500]}"
        time.sleep(0.05)
        obs = _get(a, "/ui/part/audit", {"scope": a.target.scope}, "ui")
    obs.found = obs.status == 200 and str(a.target.id) in obs.text
    return obs


def audited(t: Target, who: Who, a: Attempt) -> bool:
    """The recall seeded from the target (a ready node of the hot or warm tier), and the audit
    shows the caller that recall: the admin, or a caller with an agent id, asking as its
    credentials (a claim the graph surface does not read is not in the recall)."""
    return seedable(t, who, a) and (who.admin or who.agent is not None) and who == a.caller.who


def _people_user(a: Attempt) -> str | None:
    """No user (the user list), the target's user, or the other one."""
    if a.variant % 3 == 0 or a.target.user is None:
        return None
    return a.target.user if a.variant % 3 == 1 else ("u2" if a.target.user == "u1" else "u1")


def ui_people(a: Attempt) -> Observation:
    """The app's users, or one user's conversation. In the list, a note shows as its user's
    row (a link to that user's page): every note of a user is that user's alone."""
    user = _people_user(a)
    obs = _html(a, "/ui/part/people", {"scope": a.target.scope, **({"user": user} if user else {})})
    if user is None:
        row = f'user={a.target.user}"'
        obs.found = obs.status == 200 and a.target.tenant == a.caller.who.tenant and row in obs.text
    return obs


def people_of(t: Target, who: Who, a: Attempt) -> bool:
    """A note's user is listed, and the user's notes are listed when the page asks for them."""
    return t.kind == "note" and _people_user(a) in (None, t.user)


def acts_for_user(a: Attempt, who: Who) -> Refusal | None:
    """docs/ui.md: a user's conversation is shown to a caller acting for that user (and the
    admin); anyone else gets ``403 identity_mismatch`` for it. The page's ``user`` is what it
    shows, not who the caller is: a manager acts for a user by ``X-User-Id``."""
    user = _people_user(a)
    if user is None or who.admin or who.user == user:
        return None
    return Refusal(403, "identity_mismatch")


def _hub(a: Attempt) -> Target:
    """The shared node of the caller's tenant that the two-hop view is drawn around."""
    return a.world.targets["g_shared" if a.caller.who.tenant == ACME else "g_b_shared"]


def ui_graph(a: Attempt) -> Observation:
    """A memory's page, its neighbourhood drawn to two hops: the hub's, wherever the target is."""
    hub = _hub(a)
    return _html(a, f"/ui/part/memory/{hub.id}", {"scope": hub.scope})


def two_hops(t: Target, who: Who, a: Attempt) -> bool:
    """The target is within two hops of the hub along edges (as stored now) whose every node
    the caller may see: a hidden node bridges to nothing."""
    hub = _hub(a)
    seen = {
        x.id
        for x in a.world.targets.values()
        if x.is_node and x.id and x.scope == hub.scope and may_see(who, x.tenant, x.audience, x.user)
    }
    if hub.id not in seen:
        return False
    reached, frontier = {hub.id}, {hub.id}
    for _ in range(2):
        frontier = {n for f in frontier for n in a.world.inspector.neighbours(hub.tenant, str(hub.scope), f)}
        frontier = (frontier & seen) - reached
        reached |= frontier
    return t.id in reached


_HISTORY_ROW = re.compile(r'<tr data-commit-id="([0-9a-f-]+)">')


def ui_history(a: Attempt) -> Observation:
    """The hub's page, its commit history: the target's write is listed when it changed the hub
    (the hub itself, or an edge from the target to it). A write that also made a memory the
    caller may not see must not be listed (the judge forbids its commit id in every answer)."""
    hub = _hub(a)
    obs = _get(a, f"/ui/part/memory/{hub.id}", {"scope": hub.scope}, "ui")
    obs.found = obs.status == 200 and a.target.commit_id in _HISTORY_ROW.findall(obs.text)
    return obs


def in_history(t: Target, who: Who, a: Attempt) -> bool:
    """The caller may see the hub (and the target: the judge asks only then), and the target's
    write is among the scope's newest the page reads and names the hub as it is stored now (a
    hub written anew has another id): the write then changed the hub in a way the caller may
    see, whatever else it named."""
    hub = _hub(a)
    if hub.tenant != t.tenant or not may_see(who, hub.tenant, hub.audience, hub.user) or t.commit_id is None:
        return False
    return a.world.inspector.recent_commit_names(t.tenant, str(t.scope), t.commit_id, str(hub.id), scan=HISTORY_SCAN)


def admin_export(a: Attempt) -> Observation:
    params: dict[str, Any] = {"scope": a.target.scope}
    if a.tenant_in_body:
        params["tenant_id"] = a.forgery.tenant
    obs = _get(a, "/v1/admin/export", params, "graph")
    records = [json.loads(line) for line in obs.text.splitlines() if line.strip()] if obs.status == 200 else []
    obs.found = any(r.get("record") == "node" and r.get("id") == a.target.id for r in records)
    return obs


def admin_only(a: Attempt, who: Who) -> Refusal | None:
    """docs/security.md: `/v1/admin/export` needs the admin role (for the credentials' own tenant)."""
    return None if who.admin else Refusal(403, "admin_required")


def is_rule(t: Target, who: Who, a: Attempt) -> bool:
    return t.kind == "rule"


def governed(a: Attempt, who: Who) -> Refusal | None:
    """docs/rules.md: a caller who sees a rule but does not govern it may change nothing of it,
    move its state or delete it (``403 rule_governance_required``); one who does not see it
    does not find it."""
    t = a.target
    if t.kind != "rule" or not may_see(who, t.tenant, t.audience, t.user) or may_govern(who, t.tenant, t.owners):
        return None
    return Refusal(403, "rule_governance_required")


# --- refusals the documentation gives whoever the target ------------------------------------
def named_layers(a: Attempt) -> tuple[str | None, ...]:
    name = a.op.name
    if name == "layers.search":
        return (None,) if a.variant % 2 else (_layer_for(a),)
    if name == "layers.write":
        return (LAYERED_LAYERS[a.variant % 3],)
    if name == "layers.complete":
        return ("workspace",)
    return (_layer_for(a),)


def workspace_only(a: Attempt, who: Who) -> Refusal | None:
    """docs/security.md: workspace memory is for system roles, and the layered surface answers
    anyone else's attempt with ``403 workspace_restricted``."""
    return Refusal(403, "workspace_restricted") if "workspace" in named_layers(a) and not who.system else None


def owned_private(a: Attempt, who: Who) -> Refusal | None:
    """docs/security.md: a tenant-wide key cannot write private nodes without an owner."""
    private = a.variant % 2 == 0
    if private and not (who.admin or who.agent or who.team):
        return Refusal(400, "invalid_private_owner")
    return None


def needs_identifier(a: Attempt, who: Who) -> Refusal | None:
    """docs/api-tools.md: agent, user, session and team memories need their identifier."""
    layer = TOOL_LAYERS[a.variant % len(TOOL_LAYERS)]
    have = {"agent": who.agent, "user": who.user, "session": who.session, "team": who.team}
    return Refusal(400, "INVALID_INPUT") if layer in have and have[layer] is None else None


OPS: list[Op] = [
    Op("graph.recall_text", recall_text, "consumer", True, NODE_KINDS, seedable),
    Op("graph.recall", recall, "consumer", True, NODE_KINDS, seedable),
    Op("rules.evaluate", rules_evaluate, "context", True, ("rule",)),
    Op("rules.tools_select", tools_select, "context", True, ("rule",)),
    Op("rules.tools_feedback", tools_feedback, "context", True, ("rule",), mutation="change", denied_with_200=True),
    Op("rules.feedback", rule_feedback, "none", True, NODE_KINDS, is_rule, mutation="change", focus=("rule",)),
    Op(
        "rules.state",
        rule_state,
        "none",
        True,
        NODE_KINDS,
        is_rule,
        mutation="change",
        policy=governed,
        retires=disables,
        focus=("rule",),
    ),
    # another tenant writing the target's id creates a draft rule of its own: 200, the target untouched
    Op(
        "rules.edit",
        rule_edit,
        "none",
        True,
        ("rule",),
        is_rule,
        mutation="change",
        denied_with_200=True,
        policy=governed,
    ),
    Op("graph.activate", activate, "none", True, NODE_KINDS, mutation="change", denied_with_200=True),
    Op("graph.rehydrate", rehydrate, "none", True, NODE_KINDS, mutation="change", denied_with_200=True),
    # another tenant writing the target's id creates a node of its own: 200, the target untouched
    Op(
        "graph.write_over",
        write_over,
        "none",
        True,
        NODE_KINDS,
        mutation="change",
        denied_with_200=True,
        policy=governed,
    ),
    Op("graph.write_new", write_new, "owner", True, ("graph",), policy=owned_private, aimed=False),
    Op("conv.get", conv_get, "headers", False, NODE_KINDS, body_claims=acting_user),
    Op("conv.evolution", conv_evolution, "headers", False, NODE_KINDS, body_claims=acting_user),
    Op(
        "conv.delete",
        conv_delete,
        "headers",
        False,
        NODE_KINDS,
        mutation="delete",
        policy=governed,
        body_claims=acting_user,
    ),
    Op("conv.query", conv_query, "headers", False, NODE_KINDS, queried, body_claims=acting_user),
    # a buffer's id is the task its last flush submitted
    Op("conv.task", conv_task, "headers", False, ("task", "buffer"), body_claims=acting_user),
    Op("conv.agent_memory", agent_memory, "headers", False, ("note",), aimed=False, body_claims=new_note_claims),
    Op("conv.summary", summary, "headers", False, ("note",), aimed=False, body_claims=new_note_claims),
    Op("conv.replay", replay, "headers", False, ("task",), body_claims=replay_user, replay=True),
    Op("batcher.status", batcher_status, "headers", False, ("buffer",), body_claims=buffer_user),
    # another tenant's admin naming the same app and user appends to a buffer of its own: 200
    Op(
        "batcher.append",
        batcher_append,
        "headers",
        False,
        ("buffer",),
        mutation="change",
        denied_with_200=True,
        body_claims=buffer_user,
    ),
    Op("layers.read_id", layers_read_id, "headers", True, NODE_KINDS, read_by_id_domain, policy=workspace_only),
    Op("layers.read_query", layers_read_query, "headers", True, ("layered",), layered_domain, policy=workspace_only),
    Op(
        "layers.search",
        layers_search,
        "headers",
        True,
        ("layered", "tool", "graph"),
        layered_domain,
        policy=workspace_only,
    ),
    Op("layers.update", layers_update, "headers", True, NODE_KINDS, is_layered, mutation="change"),
    Op("layers.delete", layers_delete, "headers", True, NODE_KINDS, is_layered, mutation="delete"),
    Op("layers.write", layers_write, "headers", True, ("layered",), policy=workspace_only, aimed=False),
    Op(
        "layers.complete",
        layers_complete,
        "headers",
        False,
        ("layered",),
        in_workspace,
        mutation="delete",
        denied_with_200=True,
        policy=workspace_only,
    ),
    Op("tools.search", tools_search, "headers", False, ("tool", "graph", "layered"), addressed, mcp=True),
    Op("tools.delete", tools_delete, "headers", False, NODE_KINDS, addressed, mutation="delete", mcp=True),
    Op("tools.add", tools_add, "headers", False, ("tool",), policy=needs_identifier, aimed=False, mcp=True),
    Op("ui.search", ui_search, "headers", False, NODE_KINDS, seedable),
    Op("ui.memory", ui_memory, "headers", False, NODE_KINDS),
    # the newest 50 memories per layer: tool layers fill up with the suite's own new memories
    Op("ui.layers", ui_layers, "headers", False, ("layered", "tool"), is_layered),
    Op("ui.knowledge", ui_knowledge, "headers", False, ("knowledge",)),
    Op("ui.rules", ui_rules, "headers", False, ("rule",)),
    Op("ui.notes", ui_notes, "headers", False, ("note",)),
    Op("ui.browse", ui_browse, "headers", False, NODE_KINDS, browsed, policy=cursor_bound),
    # the audit needs a recall of the caller's own: recall seeds from any kind of node
    Op("ui.audit", ui_audit, "headers", False, NODE_KINDS, audited),
    Op("ui.people", ui_people, "headers", False, ("note",), people_of, policy=acts_for_user),
    Op("ui.graph", ui_graph, "headers", False, ("graph",), two_hops),
    # the shared hub's commit history: its own write, its neighbours' (g_mid), a private one's (g_link_a1)
    Op("ui.history", ui_history, "headers", False, ("graph",), in_history),
    Op("admin.export", admin_export, "none", True, NODE_KINDS, policy=admin_only),
    Op("knowledge.list", knowledge_list, "none", False, ("knowledge",)),
    Op("knowledge.get", knowledge_get, "none", False, ("knowledge",)),
    Op("knowledge.query", knowledge_query, "headers", False, ("knowledge",), mcp=True),
    Op("knowledge.show", knowledge_show, "headers", False, ("knowledge",), mcp=True),
]
