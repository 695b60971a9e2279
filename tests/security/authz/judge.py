"""Holding one attempt's answer to the model.

For every attempt, whatever the operation:

1. no 5xx;
2. the refusals the model gives (forged tenant or identity, a role the documentation refuses,
   a change to a rule the caller sees but does not govern) are the answer, with the surface's
   code, and a refused change leaves its target exactly as it was (read back);
3. **no leak**: the answer names no memory (by its marker word or its id) that the caller may
   not see; ids the request itself sent do not count;
4. **positive control**: a target the caller may see and the operation can return comes back,
   and a change the caller may make takes effect (so the suite cannot pass by refusing all;
   a deleted target, or a disabled rule, is then written anew by its owner);
5. a change aimed at a target the caller may not see fails and leaves the target exactly as
   it was (read back from the database);
6. an ``Idempotency-Key`` replay returns the first task to its submitter only; anyone else
   gets a task of its own, and no answer names a task another caller submitted.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memlane.domain.model import Node
from tests.security.authz.model import Refusal, Who, may_see, resolve, same_caller
from tests.security.authz.ops import Attempt, Observation, Op
from tests.security.authz.world import Target, World

#: operations that write a node by the target's id: in another tenant, a node of its own
WRITES_BY_ID = ("graph.write_over", "rules.edit")
#: how a /ui fragment states a refusal: its status and code (templates/part_error.html)
UI_ERROR = re.compile(r'role="alert"><strong>\d{3} ([a-z_]+)</strong>')
#: the tools surface names any failure without a tool-specific code by its status
TOOL_CODES = {400: "INVALID_INPUT", 401: "UNAUTHORIZED", 403: "UNAUTHORIZED", 404: "NOT_FOUND"}


def claims_of(a: Attempt) -> dict[str, tuple[str, ...]]:
    """The identity the request states on the channels its surface reads."""
    forged = a.forgery.identity()
    channel = a.op.channel
    claims: dict[str, tuple[str, ...]] = {}
    if channel == "headers":
        claims = {d: (v,) for d, v in forged.items()}
    elif channel in ("consumer", "context", "owner"):
        claims = {d: (v,) for d, v in forged.items() if d in ("agent", "team")}
    for d, v in a.op.body_claims(a).items():
        claims[d] = (*claims.get(d, ()), v)
    return claims


def code_of(obs: Observation) -> str | None:
    p = obs.payload if isinstance(obs.payload, dict) else {}
    if obs.surface == "graph":
        return p.get("error")
    if obs.surface == "layers":
        return p.get("error_type")
    if obs.surface in ("tools", "mcp"):
        return p.get("errorCode")
    if obs.surface == "ui":
        shown = UI_ERROR.search(obs.text)
        return shown.group(1) if shown else None
    return None  # conversation: {"detail": message}


def expected_code(obs: Observation, refusal: Refusal) -> str | None:
    if obs.surface in ("tools", "mcp"):
        return refusal.code if refusal.code.isupper() else TOOL_CODES[refusal.status]
    if obs.surface == "conversation":
        return None
    return refusal.code


@dataclass
class Tally:
    """What the run showed, per operation: the counts the long run records."""

    attempts: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    hidden: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    denied_changes: Counter[str] = field(default_factory=Counter)
    recreated: Counter[str] = field(default_factory=Counter)
    #: attempts per transport and surface (graph, conversation, layers, tools, mcp)
    surfaces: Counter[str] = field(default_factory=Counter)
    #: refusals the model gave and got, by the model's code ("403 rule_governance_required")
    refusal_codes: Counter[str] = field(default_factory=Counter)
    leaks: int = 0

    @property
    def total(self) -> int:
        return sum(self.attempts.values())


class Judge:
    def __init__(self, world: World):
        self.world = world
        self.tally = Tally()

    def forbidden_pattern(self, who: Who, sent: str) -> re.Pattern[str] | None:
        """Markers, ids and write commits of what ``who`` may not see, except what the request
        itself sent and ids its tenant planted in its own store. A commit that wrote a hidden
        memory names it and its author: no history may list it (docs/security.md, "Commit
        history")."""
        planted = self.world.planted.get(who.tenant, set())
        tokens: list[str] = []
        for t in self.world.targets.values():
            if t.kind == "task" or may_see(who, t.tenant, t.audience, t.user):
                continue  # a task's id is in its notes' metadata: tasks are judged by id alone
            tokens += [x for x in (t.marker, t.id, t.commit_id) if x and x not in sent and x not in planted]
        return re.compile("|".join(map(re.escape, tokens))) if tokens else None

    def attempt(self, a: Attempt) -> None:
        op, t = a.op, a.target
        who, refusals = resolve(a.caller.who, a.forgery.tenant, claims_of(a))
        if not refusals:
            policy = op.policy(a, who)
            refusals = frozenset({policy}) if policy else refusals
        before = self.world.inspector.fingerprint(t) if op.mutation and t.inspectable else None
        obs = op.run(a)
        where = f"{op.name} by {a.caller.name} on {t.name} ({a.forgery}, variant {a.variant})"
        self.tally.attempts[op.name] += 1
        self.tally.surfaces[obs.surface] += 1
        assert obs.status < 500, f"{where}: {obs.status} {obs.text[:500]}"

        pattern = self.forbidden_pattern(who, obs.sent)
        leaked = pattern.findall(obs.text) if pattern else []
        if leaked:
            self.tally.leaks += 1
        assert not leaked, f"LEAK {where}: {sorted(set(leaked))} in {obs.text[:2000]}"

        if refusals:
            self._refused(a, obs, refusals, where)
        elif op.replay:
            self._replay(a, obs, who, where)
        elif not op.aimed:
            assert obs.found, f"{where}: an allowed write failed: {obs.status} {obs.text[:500]}"
            self.tally.found[op.name] += 1
        elif not may_see(who, t.tenant, t.audience, t.user):
            self._hidden(a, obs, where)
        else:
            self._visible(a, obs, who, where)
        if op.mutation and t.inspectable and not (obs.found and op.domain(t, who, a)):
            after = self.world.inspector.fingerprint(t)
            assert after == before, f"{where}: the target changed without being allowed to: {before} -> {after}"
        if op.name in WRITES_BY_ID and obs.status == 200 and who.tenant != t.tenant:
            self.world.planted.setdefault(who.tenant, set()).add(str(t.id))
            self.world.writer.erase(who.tenant, t.scope, str(t.id))

    def _refused(self, a: Attempt, obs: Observation, refusals: frozenset[Refusal], where: str) -> None:
        self.tally.refused[a.op.name] += 1
        got = (obs.status, code_of(obs))
        allowed = {(r.status, expected_code(obs, r)): r for r in refusals}
        assert got in allowed, f"{where}: expected one of {set(allowed)}, got {got}: {obs.text[:500]}"
        self.tally.refusal_codes[f"{allowed[got].status} {allowed[got].code}"] += 1
        assert not obs.found, f"{where}: refused, yet the target came back"

    def _hidden(self, a: Attempt, obs: Observation, where: str) -> None:
        self.tally.hidden[a.op.name] += 1
        assert not obs.found, f"{where}: the caller may not see the target, yet it came back: {obs.text[:800]}"
        if a.op.mutation:
            refused = 400 <= obs.status < 500 or (a.op.denied_with_200 and obs.status == 200)
            assert refused, f"{where}: {obs.status} {obs.text[:300]}"
            self.tally.denied_changes[a.op.name] += 1

    def _replay(self, a: Attempt, obs: Observation, who: Who, where: str) -> None:
        """The target task's submission again, with the key it was submitted with."""
        t = a.target
        for other in self.world.targets.values():
            if other.kind == "task" and other.id and other.id in obs.text:
                assert same_caller(who, other.submitter), f"{where}: names {other.name}, another caller's task"
        if not same_caller(who, t.submitter):
            # a key of its own: a new task (or a 409 over the caller's own earlier use of it)
            assert obs.status in (202, 409) and not obs.found, f"{where}: {obs.status} {obs.text[:500]}"
            self.tally.hidden[a.op.name] += 1
        elif a.variant % 2 == 0:
            assert obs.status == 202 and obs.found, f"{where}: the submitter's replay: {obs.status} {obs.text[:500]}"
            self.tally.found[a.op.name] += 1
        else:
            assert obs.status == 409, f"{where}: the key reused for another body: {obs.status} {obs.text[:500]}"
            self.tally.refused[a.op.name] += 1

    def _visible(self, a: Attempt, obs: Observation, who: Who, where: str) -> None:
        op, t = a.op, a.target
        if not op.domain(t, who, a):
            return
        assert obs.found, f"{where}: the caller may see the target, yet did not get it: {obs.status} {obs.text[:800]}"
        self.tally.found[op.name] += 1
        if op.mutation == "delete":
            assert self.world.inspector.fingerprint(t) is None, f"{where}: answered deleted, but the target is there"
            self.recreate(t)
        elif op.retires(a):
            node = self.world.inspector.fingerprint(t)
            assert isinstance(node, Node) and node.slots.get("state") == "disabled", f"{where}: not retired: {node}"
            self.world.writer.erase(t.tenant, t.scope, str(t.id))
            self.recreate(t)

    def recreate(self, t: Target) -> None:
        self.world.writer.create(t)
        self.tally.recreated[t.name] += 1

    def report(self) -> dict[str, Any]:
        y = self.tally
        return {
            "attempts": y.total,
            "leaks": y.leaks,
            "per_operation": {
                name: {
                    "attempts": y.attempts[name],
                    "refused": y.refused[name],
                    "hidden": y.hidden[name],
                    "found": y.found[name],
                    "denied_changes": y.denied_changes[name],
                }
                for name in sorted(y.attempts)
            },
            "recreated": dict(y.recreated),
            "refusal_codes": dict(y.refusal_codes),
            "by_surface": dict(y.surfaces),
        }


__all__ = ["Judge", "Op", "Tally"]
