"""The rule lifecycle, held on every path that stores a rule node (docs/rules.md, section 2).

A rule's state and its feedback counters are the server's: ``POST /v1/memory/rules/state``
moves the state (its transitions and checks are here, its rights are the caller's reach), the
feedback endpoints count outcomes. A write cannot reach around them: the store plans every
write's nodes against the stored ones, under the scope's write lock, and asks
``review_rule_write`` about each node that is, or was, a rule (domain/node_plan.py, which the store runs). So the
graph write, bulk writes, the layered and tool surfaces, ingestion jobs and consolidation all
get the same answer, and a state change made a moment before a write cannot be undone by it.

Choices:

* **Refused, not ignored.** A write that tries to set what only the lifecycle sets gets a
  ``400`` naming the field, the project's answer to bad input; a silently dropped field would
  leave the writer believing the rule is active.
* **Creation.** A new rule starts as ``draft``, or as ``shadow`` when the writer asks for it,
  and then it must pass the checks of entering shadow (``definition_errors``, and an owner for
  a private rule). Any other ``slots.state``, and any of the server-kept slots ``stats``,
  ``state_history``, ``state_changed_at``, is ``400 rule_slot_not_writable``. A node of
  another type that becomes a rule is a new rule.
* **Update.** The server-kept slots (``SERVER_SLOTS``) are carried over from the stored rule.
  A write may leave them out or send them back unchanged (a read-modify-write), never change
  them: so a write that sends ``slots`` without ``stats`` no longer resets the feedback.
* **Definition.** What a rule does and to whom (``DEFINITION_SLOTS`` and the lane and owner
  fields) may change on a shadow or active rule only into one that can apply, and a change
  puts an active rule back to ``shadow``: promoting it again is a ``rules/state`` call, with
  its checks. The demotion is in the rule's ``state_history`` (with the write's actor and
  ``reason: "definition_changed"``) and in the commit diff.
* **Disabled is final.** A disabled rule's definition cannot change (``409 rule_disabled``):
  the disabled rule stays the record of what was switched off; write a new rule instead. Its
  title, summary, tier and other slots may still change, since none of them can make it apply.
* **Rights first.** A write that changes anything of a stored rule must come from a caller who
  governs it (``rules/governance.py``: ``403 rule_governance_required`` naming the first field
  it changes, before any other check); sending a rule back as stored is no change. Creating a
  rule needs no rights: it starts as a draft, or shadow.
* **A rule stays a rule** (``400 rule_type_not_writable``): a round trip through another type
  would otherwise come back as a new draft and reset the lifecycle of a disabled rule.
* **Import** restores nodes as an export holds them, lifecycle included: a tenant admin
  restoring a backup, recorded as an ``import`` commit, and a refused rule would leave a
  restored policy half applied. Except that a rule stored here as disabled stays disabled,
  type, state and history kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from datetime import datetime
from typing import Any, Final

from memlane.domain.clock import iso
from memlane.domain.errors import Conflict, InvalidRequest
from memlane.domain.model import Node
from memlane.domain.node_plan import UNCHANGED, RuleReview
from memlane.rules.conditions import rule_conditions, validate_condition
from memlane.rules.evaluate import RULE_STATES, rule_state
from memlane.rules.governance import EVERY_RULE, RuleRights
from memlane.rules.policy import parse_policy_patch
from memlane.rules.visibility import rule_scope_of

#: lifecycle edges; ``disabled`` is reachable from every state and is terminal
TRANSITIONS: Final = frozenset({("draft", "shadow"), ("shadow", "active")})
#: the states a write may create a rule in
CREATION_STATES: Final = ("draft", "shadow")
#: slots only the lifecycle (``state*``) and the feedback endpoints (``stats``) write
SERVER_SLOTS: Final = ("state", "stats", "state_history", "state_changed_at")
#: the slots ``rules/state`` keeps
LIFECYCLE_SLOTS: Final = ("state", "state_changed_at", "state_history")
#: slots that say what a rule does and to whom it applies
DEFINITION_SLOTS: Final = ("if", "then", "exceptions", "rule_meta", "rule_scope", "target_team_id", "target_agent_id")
#: node fields that decide who sees, and so who gets, the rule
REACH_FIELDS: Final = ("memory_lane", "owner_agent_id", "owner_team_id")
#: who governs the rule, besides its owners (rules/governance.py)
PRODUCER_FIELD: Final = "producer_agent_id"
#: node columns the server keeps (its times, commit and vector bookkeeping): no write changes them
BOOKKEEPING_FIELDS: Final = frozenset(
    {
        "tenant_id",
        "id",
        "scope",
        "embedding_status",
        "embedding_model",
        "created_at",
        "updated_at",
        "last_activated",
        "commit_id",
        "expired_at",
    }
)
MAX_STATE_HISTORY: Final = 20
DEFINITION_CHANGED: Final = "definition_changed"

__all__ = [
    "CREATION_STATES",
    "DEFINITION_SLOTS",
    "MAX_STATE_HISTORY",
    "REACH_FIELDS",
    "RULE_STATES",
    "SERVER_SLOTS",
    "TRANSITIONS",
    "UNCHANGED",
    "RuleReview",
    "allowed_targets",
    "definition_errors",
    "review_rule_write",
    "rule_changes",
    "with_transition",
]


def allowed_targets(state: str) -> list[str]:
    """States ``state`` may move to, for error messages and docs."""
    targets = [to for frm, to in sorted(TRANSITIONS) if frm == state]
    return [*targets, "disabled"] if state != "disabled" else []


def definition_errors(node: Node) -> list[tuple[str, str]]:
    """(field, reason) pairs that would keep a rule from ever applying; the checks of entering
    shadow or active."""
    slots = node.slots
    errors: list[tuple[str, str]] = []
    check = parse_policy_patch(slots.get("then"))
    if check.patch is None:
        errors.append(("slots.then", check.error or "invalid"))
    exceptions = slots.get("exceptions")
    if exceptions is not None and not isinstance(exceptions, list | dict):
        errors.append(("slots.exceptions", "must be an array of conditions"))
    for where, condition in rule_conditions(slots):
        limit = 3 if where == "slots.if" else 1
        errors.extend((where, reason) for reason in validate_condition(condition)[:limit])
    if rule_scope_of(slots).scope is None:
        errors.append(
            (
                "slots.rule_scope",
                "rule_scope must be global, team (with target_team_id) or agent (with target_agent_id)",
            )
        )
    return errors


def with_transition(
    slots: Mapping[str, Any],
    frm: str,
    to: str,
    *,
    now: datetime,
    actor: str | None,
    reason: str | None = None,
) -> dict[str, Any]:
    """New slots with the rule in ``to``, the move kept in ``state_history`` (the newest
    ``MAX_STATE_HISTORY``) and ``state_changed_at``."""
    out = dict(slots)
    history = slots.get("state_history")
    entries = list(history) if isinstance(history, list) else []
    entry: dict[str, Any] = {"from": frm, "to": to, "at": iso(now), "actor": actor}
    if reason is not None:
        entry["reason"] = reason
    entries.append(entry)
    out.update(state=to, state_changed_at=iso(now), state_history=entries[-MAX_STATE_HISTORY:])
    return out


def review_rule_write(
    before: Node | None,
    after: Node,
    *,
    where: str,
    now: datetime,
    actor: str | None,
    restore: bool = False,
    rights: RuleRights = EVERY_RULE,
) -> RuleReview:
    """Judge one node of a write: ``before`` is the stored node (None when the write creates
    it), ``after`` the node as the write would store it (given fields applied), ``where`` the
    node's place in the request (``nodes[3]``), ``rights`` the writer's (rules/governance.py).
    Raises what the module docstring lists."""
    was_rule = before is not None and before.type == "rule"
    if restore:
        return _restored(before, after) if before is not None and was_rule else UNCHANGED
    if before is not None and was_rule:
        changed = rule_changes(before, after)
        if changed:
            rights.require(before, field=f"{where}.{changed[0]}", action=f"change its {changed[0]}")
    if after.type != "rule":
        if was_rule:
            raise InvalidRequest(
                f"{where}.type: a stored rule stays a rule; to retire it, disable it with POST /v1/memory/rules/state",
                code="rule_type_not_writable",
                details={"field": f"{where}.type", "type": "rule"},
            )
        return UNCHANGED
    if before is None or not was_rule:
        return _created(after, where)
    return _updated(before, after, where=where, now=now, actor=actor)


def _created(after: Node, where: str) -> RuleReview:
    slots = after.slots
    for name in SERVER_SLOTS[1:]:
        if name in slots:
            raise _not_writable(where, name, None)
    state = slots.get("state", "draft")
    if state not in CREATION_STATES:
        raise InvalidRequest(
            f"{where}.slots.state: a new rule starts as draft or shadow, not {state!r}; move it on with "
            "POST /v1/memory/rules/state",
            code="rule_slot_not_writable",
            details={"field": f"{where}.slots.state", "allowed": list(CREATION_STATES)},
        )
    if state == "shadow":
        _refuse_broken_definition(after, where, "shadow")
    return RuleReview(slots={**slots, "state": state}) if "state" not in slots else UNCHANGED


def _updated(before: Node, after: Node, *, where: str, now: datetime, actor: str | None) -> RuleReview:
    stored, given = before.slots, after.slots
    current = rule_state(before)
    for name in SERVER_SLOTS:
        if name in given and given[name] != stored.get(name) and not (name == "state" and given[name] == current):
            raise _not_writable(where, name, current)
    slots = {k: v for k, v in given.items() if k not in SERVER_SLOTS}
    slots.update((k, stored[k]) for k in SERVER_SLOTS if k in stored)
    changed = _definition_changes(before, after, slots)
    if not changed:
        return UNCHANGED if slots == given else RuleReview(slots=slots)
    if current == "disabled":
        raise Conflict(
            f"{where}.{changed[0]}: rule {before.id} is disabled, and disabled is final: what it does and to "
            "whom cannot change; write a new rule instead",
            code="rule_disabled",
            details={"field": f"{where}.{changed[0]}", "rule_node_id": before.id, "state": current},
        )
    if current not in ("shadow", "active"):
        return RuleReview(slots=slots)
    _refuse_broken_definition(replace(after, slots=slots), where, "shadow")
    if current == "shadow":
        return RuleReview(slots=slots)
    demoted = with_transition(slots, "active", "shadow", now=now, actor=actor, reason=DEFINITION_CHANGED)
    move = {"from": "active", "to": "shadow", "reason": DEFINITION_CHANGED}
    return RuleReview(slots=demoted, state_change=move)


_ABSENT: Final = object()


def rule_changes(before: Node, after: Node) -> list[str]:
    """Every field of the stored rule ``before`` that a write leaving it as ``after`` (the stored
    node with the given fields applied) changes: its type, its slots (the definition first), who
    it belongs to, then the rest. A server-kept slot the write leaves out is kept, and a state
    sent as the stored one is no change, as the lifecycle decides below; so a read-modify-write
    that changes nothing lists nothing."""
    changed = ["type"] if after.type != before.type else []
    current = rule_state(before)
    names = [*DEFINITION_SLOTS, *SERVER_SLOTS]
    names += sorted((set(before.slots) | set(after.slots)) - set(names))
    for name in names:
        old, new = before.slots.get(name, _ABSENT), after.slots.get(name, _ABSENT)
        if name in SERVER_SLOTS and (new is _ABSENT or (name == "state" and new == current)):
            continue
        if (old is _ABSENT) != (new is _ABSENT) or (old is not _ABSENT and old != new):
            changed.append(f"slots.{name}")
    columns = [*REACH_FIELDS, PRODUCER_FIELD]
    skipped = BOOKKEEPING_FIELDS | {"type", "slots", *columns}
    columns += [f.name for f in fields(Node) if f.name not in skipped]
    changed += [name for name in columns if getattr(after, name) != getattr(before, name)]
    return changed


def _definition_changes(before: Node, after: Node, slots: Mapping[str, Any]) -> list[str]:
    """The fields of the definition the write changes, in a stable order."""
    changed = [f"slots.{k}" for k in DEFINITION_SLOTS if slots.get(k) != before.slots.get(k)]
    changed += [k for k in REACH_FIELDS if getattr(after, k) != getattr(before, k)]
    return changed


def _restored(before: Node, after: Node) -> RuleReview:
    """An import over a stored rule: the file wins, except over a disabled one."""
    if rule_state(before) != "disabled":
        return UNCHANGED
    kept: dict[str, Any] = {k: before.slots[k] for k in LIFECYCLE_SLOTS if k in before.slots}
    return RuleReview(slots={**after.slots, **kept}, type="rule")


def _refuse_broken_definition(node: Node, where: str, state: str) -> None:
    problems = definition_errors(node)
    if problems:
        field, reason = problems[0]
        raise InvalidRequest(
            f"{where}.{field}: a rule in {state} must be able to apply: {reason}",
            code="invalid_rule_definition",
            details={
                "field": f"{where}.{field}",
                "problems": [{"field": f"{where}.{f}", "reason": r} for f, r in problems[:10]],
            },
        )


#: who keeps each server slot, for the refusal's message
_KEPT_BY: Final = {
    "state": "changes only through POST /v1/memory/rules/state",
    "stats": "counts only what POST /v1/memory/feedback and /tools/feedback record",
    "state_history": "is kept by POST /v1/memory/rules/state",
    "state_changed_at": "is kept by POST /v1/memory/rules/state",
}


def _not_writable(where: str, name: str, current: str | None) -> InvalidRequest:
    """``current``: the stored rule's state, None when the write creates the rule."""
    field = f"{where}.slots.{name}"
    if current is None:
        advice = "leave it out of a new rule"
    else:
        now = f" (the rule is {current})" if name == "state" else ""
        advice = f"leave it out of the write, or send the stored value{now}"
    return InvalidRequest(
        f"{field}: a rule's {name} {_KEPT_BY[name]}; {advice}",
        code="rule_slot_not_writable",
        details={"field": field},
    )
