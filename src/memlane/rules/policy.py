"""PolicyPatch validation, rule rank, and the merge of matched rules into one applied policy.

Choices the contract leaves open (all deterministic, all explained in the output):

* **PolicyPatch is strict**: unknown keys, wrong types (``"strict": "true"``, ``"allow": "x"``)
  and values outside the enums are refused, never coerced; ``null`` means "not set". A rule
  whose ``then`` is refused (or absent) is skipped and counted (``skipped_invalid_then``);
  ``invalid_then_sample`` keeps the first ``INVALID_THEN_SAMPLE`` of them (by rule id) with a
  short reason, enough to find and fix them without growing the response.
* **rule_meta**: ``priority`` is an integer in -100..100 (an integral float such as ``5.0`` is
  accepted), default 0; ``weight`` a number in 0..2, default 1. An out-of-range or mistyped
  value is *not* clamped: it falls back to the default and is reported in ``RuleMeta.issues``.
  Clamping would silently turn a typo such as ``priority: 500`` into the strongest possible
  rule; the neutral default keeps a malformed rule from dominating.
* **evidence_score** = ``(positive - negative) / (positive + negative + 2)``, in (-1, 1). It is
  0 without feedback, grows with positive and shrinks with negative feedback, and the ``+2``
  (a uniform prior of one success and one failure) keeps one lucky outcome from counting as
  certainty (1 positive gives 0.33, 10 give 0.83). Unlike a Wilson lower bound, which lives in
  [0, 1] and cannot tell "no feedback" from "bad feedback", it is signed, so negative feedback
  actively lowers a rule. Because ``|evidence_score * 100 * weight| < 200`` and specificity is
  at most 200 leaves, a difference of one priority step (1000) always outweighs evidence and
  specificity together: priority is a strict precedence.
* **Merge**: matched rules are taken in rank order (rank desc, then rule id).
  ``output.format``, ``output.strict`` and each top-level ``extensions`` key (a namespace,
  replaced whole) are scalar paths: the highest-ranked rule that sets one wins; a lower rule
  setting a *different* value is a conflict (``conflicts`` + ``conflict_explain``); equal values
  agree silently. ``tool.*`` lists are merged, not overridden: ``allow`` is the intersection of
  every allow list present (ordered as the highest-ranked list), ``deny`` the union (first
  appearance in rank order), ``prefer`` the concatenation in rank order keeping each tool's
  highest-ranked position. Deny always beats allow and prefer, and an allowlist always beats
  a prefer or another rule's allow, whatever the ranks: in ``tool_explain.conflicts`` the
  *winner* is the hard constraint that prevails, which may be the lower-ranked rule. Kinds:
  ``allow_empty`` (the intersection is empty), ``allow_vs_deny``, ``allow_not_in_intersection``,
  ``prefer_vs_deny``, ``prefer_not_allowed``; at most ``MAX_TOOL_CONFLICTS`` are listed,
  ``conflicts_total`` counts all. The merged lists are reported as merged (a denied tool may
  still appear in ``allow``/``prefer``); selection (tool_select.py) applies the precedence.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from memlane.rules.conditions import json_equal

PRIORITY_MIN: Final = -100
PRIORITY_MAX: Final = 100
PRIORITY_DEFAULT: Final = 0
WEIGHT_MIN: Final = 0.0
WEIGHT_MAX: Final = 2.0
WEIGHT_DEFAULT: Final = 1.0
INVALID_THEN_SAMPLE: Final = 5
MAX_TOOLS_PER_LIST: Final = 200
MAX_TOOL_CONFLICTS: Final = 50
SCALAR_PATHS: Final = ("output.format", "output.strict")

ToolName = Annotated[str, StringConstraints(min_length=1, max_length=256)]
ToolList = Annotated[list[ToolName], Field(max_length=MAX_TOOLS_PER_LIST)]


class _StrictModel(BaseModel):
    """No coercion, no unknown keys: a policy typo must be refused, never half-applied."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class OutputPatch(_StrictModel):
    format: Literal["json", "text", "markdown"] | None = None
    strict: bool | None = None


class ToolPatch(_StrictModel):
    allow: ToolList | None = None
    deny: ToolList | None = None
    prefer: ToolList | None = None


class PolicyPatch(_StrictModel):
    """A rule's ``then``: the minimal, stable patch a planner or tool selector applies."""

    output: OutputPatch | None = None
    tool: ToolPatch | None = None
    extensions: dict[str, Any] | None = None

    def scalar_values(self) -> dict[str, Any]:
        """The overriding paths this patch sets: output.* and one path per extensions key."""
        values: dict[str, Any] = {}
        if self.output is not None:
            if self.output.format is not None:
                values["output.format"] = self.output.format
            if self.output.strict is not None:
                values["output.strict"] = self.output.strict
        for key in sorted(self.extensions or {}):
            values[f"extensions.{key}"] = (self.extensions or {})[key]
        return values

    def paths(self) -> list[str]:
        """Every policy path this patch sets, for ``applied.sources``."""
        paths = list(self.scalar_values())
        if self.tool is not None:
            paths += [f"tool.{name}" for name in ("allow", "deny", "prefer") if getattr(self.tool, name) is not None]
        return sorted(paths)


@dataclass(frozen=True, slots=True)
class PatchCheck:
    """A parsed ``then``: the patch, or why it was refused."""

    patch: PolicyPatch | None
    error: str | None


def parse_policy_patch(raw: object) -> PatchCheck:
    """Validate a rule's ``then`` against the strict PolicyPatch schema."""
    if raw is None:
        return PatchCheck(None, "then is missing")
    if not isinstance(raw, dict):
        return PatchCheck(None, f"then must be an object, not {type(raw).__name__}")
    try:
        return PatchCheck(PolicyPatch.model_validate(raw), None)
    except ValidationError as exc:
        errors = exc.errors()
        first = errors[0]
        loc = ".".join(str(part) for part in first["loc"]) or "then"
        reason = f"{loc}: {first['msg']}"
        if len(errors) > 1:
            reason += f" (+{len(errors) - 1} more)"
        return PatchCheck(None, reason[:300])


# --------------------------------------------------------------------------- rank


@dataclass(frozen=True, slots=True)
class RuleMeta:
    priority: int = PRIORITY_DEFAULT
    weight: float = WEIGHT_DEFAULT
    #: values that were refused and replaced by the default
    issues: tuple[str, ...] = ()


def _integral(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def parse_rule_meta(slots: Mapping[str, Any]) -> RuleMeta:
    """``slots.rule_meta`` with defaults; an invalid value falls back to its default."""
    raw = slots.get("rule_meta")
    if raw is None:
        return RuleMeta()
    if not isinstance(raw, dict):
        return RuleMeta(issues=("rule_meta must be an object; using defaults",))
    issues: list[str] = []
    priority = PRIORITY_DEFAULT
    if "priority" in raw and raw["priority"] is not None:
        value = _integral(raw["priority"])
        if value is None or not PRIORITY_MIN <= value <= PRIORITY_MAX:
            issues.append(
                f"rule_meta.priority {raw['priority']!r} is not an integer in "
                f"{PRIORITY_MIN}..{PRIORITY_MAX}; using {PRIORITY_DEFAULT}"
            )
        else:
            priority = value
    weight = WEIGHT_DEFAULT
    if "weight" in raw and raw["weight"] is not None:
        w = raw["weight"]
        if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w) or not 0 <= w <= 2:
            issues.append(f"rule_meta.weight {w!r} is not a number in 0..2; using {WEIGHT_DEFAULT:g}")
        else:
            weight = float(w)
    return RuleMeta(priority=priority, weight=weight, issues=tuple(issues))


def _count(value: object) -> int:
    number = _integral(value)
    return number if number is not None and number >= 0 else 0


def read_stats(slots: Mapping[str, Any]) -> tuple[int, int]:
    """(positive, negative) feedback counts of a rule, kept in ``slots.stats``.

    Missing, negative or mistyped counts read as 0, so a damaged counter can lower a rule's
    evidence to neutral but never make evaluation fail.
    """
    stats = slots.get("stats")
    if not isinstance(stats, dict):
        return 0, 0
    return _count(stats.get("positive")), _count(stats.get("negative"))


def evidence_score(positive: int, negative: int) -> float:
    """Signed, smoothed feedback balance in (-1, 1): ``(p - n) / (p + n + 2)``."""
    positive, negative = max(positive, 0), max(negative, 0)
    return (positive - negative) / (positive + negative + 2)


def rank_score(priority: int, evidence: float, weight: float, specificity: int) -> float:
    """The contract's rank: ``priority * 1000 + evidence_score * 100 * weight + specificity``."""
    return priority * 1000 + evidence * 100 * weight + specificity


@dataclass(frozen=True, slots=True)
class Rank:
    score: float
    evidence_score: float
    priority: int
    weight: float
    specificity: int

    @classmethod
    def of(cls, meta: RuleMeta, positive: int, negative: int, specificity: int) -> Rank:
        evidence = evidence_score(positive, negative)
        return cls(
            rank_score(meta.priority, evidence, meta.weight, specificity),
            evidence,
            meta.priority,
            meta.weight,
            specificity,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 6),
            "evidence_score": round(self.evidence_score, 6),
            "priority": self.priority,
            "weight": self.weight,
            "specificity": self.specificity,
        }


# --------------------------------------------------------------------------- merge


@dataclass(frozen=True, slots=True)
class RankedPatch:
    """One matched rule's valid patch, with what the merge needs to order and explain it."""

    rule_node_id: str
    state: str
    rank: float
    patch: PolicyPatch


@dataclass(slots=True)
class MergedPolicy:
    policy: dict[str, Any] = field(default_factory=dict)
    sources: list[dict[str, Any]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    conflict_explain: list[str] = field(default_factory=list)
    tool_explain: dict[str, Any] = field(default_factory=dict)


def fmt_rank(rank: float) -> str:
    """A rank for humans: at most two decimals, no trailing zeros (1100, 1033.33)."""
    text = f"{rank:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _fmt_value(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def rank_order(items: Sequence[RankedPatch]) -> list[RankedPatch]:
    """Rank desc, then rule id: the one order every merge and list follows."""
    return sorted(items, key=lambda item: (-item.rank, item.rule_node_id))


def _ref(item: RankedPatch, via: str) -> dict[str, Any]:
    return {"rule_node_id": item.rule_node_id, "rank": round(item.rank, 6), "via": via}


#: (rule, its list) pairs in rank order, for the rules that set the list
ToolVotes = list[tuple[RankedPatch, list[str]]]


@dataclass(frozen=True, slots=True)
class ToolBallot:
    """Every matched rule's ``tool.allow``/``deny``/``prefer`` list, in rank order.

    The lists are kept per rule rather than flattened: the merge needs the highest-ranked
    allowlist's order, and every explanation has to name the rule behind a tool.
    """

    allow: ToolVotes
    deny: ToolVotes
    prefer: ToolVotes


def _votes(ordered: Sequence[RankedPatch], name: str) -> ToolVotes:
    found = [(item, getattr(item.patch.tool, name)) for item in ordered if item.patch.tool is not None]
    return [(item, tools) for item, tools in found if tools is not None]


def collect_tool_votes(ordered: Sequence[RankedPatch]) -> ToolBallot:
    """The tool lists of rules already in rank order; a rule that leaves a list unset casts no
    vote on it (an unset allow is "no constraint", not "allow nothing")."""
    return ToolBallot(_votes(ordered, "allow"), _votes(ordered, "deny"), _votes(ordered, "prefer"))


def _first_voter(votes: ToolVotes) -> dict[str, RankedPatch]:
    """Each tool's highest-ranked rule among ``votes``. The votes are in rank order, so the
    first rule seen is the one an explanation names, and the insertion order is the merged
    list's order (``deny`` by first appearance, ``prefer`` keeping the best position)."""
    voter: dict[str, RankedPatch] = {}
    for item, tools in votes:
        for tool in tools:
            voter.setdefault(tool, item)
    return voter


@dataclass(frozen=True, slots=True)
class ToolMerge:
    """The merged tool lists, and for each tool the highest-ranked rule that listed it."""

    #: None when no rule sets an allowlist (every tool allowed), unlike ``[]`` (none allowed)
    allow: list[str] | None
    allower: dict[str, RankedPatch]
    denier: dict[str, RankedPatch]
    preferer: dict[str, RankedPatch]

    @property
    def deny(self) -> list[str]:
        return list(self.denier)

    @property
    def prefer(self) -> list[str]:
        return list(self.preferer)


def _intersect_allowlists(allow: ToolVotes) -> list[str] | None:
    """Allowlists intersect, so adding a rule can only narrow what is allowed; the result
    follows the highest-ranked list so that its order does not depend on the other rules."""
    if not allow:
        return None
    sets = [set(tools) for _, tools in allow]
    return [t for t in dict.fromkeys(allow[0][1]) if all(t in s for s in sets)]


def merge_tool_votes(ballot: ToolBallot) -> ToolMerge:
    """Merge, not override: allow is the intersection, deny the union, prefer the rank-ordered
    concatenation. Precedence between the lists is left to selection (tool_select.py)."""
    return ToolMerge(
        allow=_intersect_allowlists(ballot.allow),
        allower=_first_voter(ballot.allow),
        denier=_first_voter(ballot.deny),
        preferer=_first_voter(ballot.prefer),
    )


def _excluder(ballot: ToolBallot, tool: str) -> RankedPatch | None:
    """The highest-ranked rule whose allowlist leaves ``tool`` out: the hard constraint that
    keeps it out of the intersection, hence the conflict's winner."""
    return next((item for item, tools in ballot.allow if tool not in tools), None)


def _who(item: RankedPatch) -> str:
    return f"rule {item.rule_node_id} (rank {fmt_rank(item.rank)})"


def _tool_conflict(
    kind: str, tool: str | None, winner: dict[str, Any] | None, loser: dict[str, Any] | None, explain: str
) -> dict[str, Any]:
    return {"kind": kind, "tool": tool, "winner": winner, "loser": loser, "explain": explain}


def _allow_empty_conflict(ballot: ToolBallot, merged: ToolMerge) -> dict[str, Any] | None:
    """An empty intersection allows no tool at all, which is rarely what the rules' authors
    meant, so it is reported even though no single tool is in conflict."""
    if merged.allow is None or merged.allow:
        return None
    ids = ", ".join(item.rule_node_id for item, _ in ballot.allow)
    if len(ballot.allow) == 1:
        text = f"allowlist of rule {ids} is empty: no tool is allowed"
    else:
        text = f"allowlists of rules {ids} have no tool in common: no tool is allowed"
    return _tool_conflict("allow_empty", None, None, None, text)


def _allow_conflict(ballot: ToolBallot, merged: ToolMerge, tool: str, source: RankedPatch) -> dict[str, Any] | None:
    """Why a tool one rule allows is not allowed after all: a deny (whatever its rank) or
    another rule's allowlist that leaves it out."""
    if tool in merged.denier:
        d = merged.denier[tool]
        return _tool_conflict(
            "allow_vs_deny",
            tool,
            _ref(d, "deny"),
            _ref(source, "allow"),
            f"tool {_fmt_value(tool)}: deny by {_who(d)} wins over allow by {_who(source)}; deny always wins",
        )
    if merged.allow is None or tool in merged.allow:
        return None
    ex = _excluder(ballot, tool)
    if ex is None:  # pragma: no cover - a tool outside the intersection is outside some list
        return None
    return _tool_conflict(
        "allow_not_in_intersection",
        tool,
        _ref(ex, "allow"),
        _ref(source, "allow"),
        f"tool {_fmt_value(tool)}: allowed by {_who(source)} but not in the allowlist of {_who(ex)}; "
        "allowlists intersect, so it is not allowed",
    )


def _prefer_conflict(ballot: ToolBallot, merged: ToolMerge, tool: str, source: RankedPatch) -> dict[str, Any] | None:
    """Why a preferred tool will not be picked: a preference never beats a deny or an
    allowlist, whatever the ranks."""
    if tool in merged.denier:
        d = merged.denier[tool]
        return _tool_conflict(
            "prefer_vs_deny",
            tool,
            _ref(d, "deny"),
            _ref(source, "prefer"),
            f"tool {_fmt_value(tool)}: deny by {_who(d)} wins over prefer by {_who(source)}; deny always wins",
        )
    if merged.allow is None or tool in merged.allow:
        return None
    ex = _excluder(ballot, tool)
    if ex is None:
        return None
    return _tool_conflict(
        "prefer_not_allowed",
        tool,
        _ref(ex, "allow"),
        _ref(source, "prefer"),
        f"tool {_fmt_value(tool)}: preferred by {_who(source)} but not in the allowlist of {_who(ex)}; "
        "the allowlist wins",
    )


def tool_conflicts(ballot: ToolBallot, merged: ToolMerge) -> list[dict[str, Any]]:
    """Every tool conflict, in a fixed order (the empty allowlist, then allows, then prefers,
    each by the tool's first appearance in rank order), so that the truncated list a caller
    sees is the same on every evaluation."""
    conflicts: list[dict[str, Any]] = []
    empty = _allow_empty_conflict(ballot, merged)
    if empty is not None:
        conflicts.append(empty)
    for tool, source in merged.allower.items():
        found = _allow_conflict(ballot, merged, tool, source)
        if found is not None:
            conflicts.append(found)
    for tool, source in merged.preferer.items():
        found = _prefer_conflict(ballot, merged, tool, source)
        if found is not None:
            conflicts.append(found)
    return conflicts


def render_tool_policy(ballot: ToolBallot, merged: ToolMerge) -> dict[str, Any]:
    """Only the lists some rule set: an absent list and an empty one mean different things
    to selection."""
    policy: dict[str, Any] = {}
    if merged.allow is not None:
        policy["allow"] = merged.allow
    if ballot.deny:
        policy["deny"] = merged.deny
    if ballot.prefer:
        policy["prefer"] = merged.prefer
    return policy


def render_tool_explain(ballot: ToolBallot, merged: ToolMerge, conflicts: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``tool_explain`` object: each list with its semantics and sources, even when unset,
    so a reader never has to guess how a list was combined; conflicts are capped, their total
    is not."""
    return {
        "allow": {
            "effective": merged.allow,
            "semantics": "intersection",
            "sources": [item.rule_node_id for item, _ in ballot.allow],
        },
        "deny": {
            "effective": merged.deny,
            "semantics": "union",
            "sources": [item.rule_node_id for item, _ in ballot.deny],
        },
        "prefer": {
            "effective": merged.prefer,
            "semantics": "rank_ordered",
            "sources": [item.rule_node_id for item, _ in ballot.prefer],
            "by_tool": [
                {"tool": tool, "rule_node_id": item.rule_node_id, "rank": round(item.rank, 6)}
                for tool, item in merged.preferer.items()
            ],
        },
        "conflicts": conflicts[:MAX_TOOL_CONFLICTS],
        "conflicts_total": len(conflicts),
    }


def _explain_tools(ordered: list[RankedPatch]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The merged ``tool`` policy and its explanation (allow/deny/prefer + conflicts)."""
    ballot = collect_tool_votes(ordered)
    merged = merge_tool_votes(ballot)
    return render_tool_policy(ballot, merged), render_tool_explain(ballot, merged, tool_conflicts(ballot, merged))


def policy_sources(ordered: Sequence[RankedPatch]) -> list[dict[str, Any]]:
    """``applied.sources``: which rule set which paths, in rank order. A rule whose patch sets
    nothing is left out: it matched but contributed nothing to explain."""
    return [
        {"rule_node_id": item.rule_node_id, "state": item.state, "rank": round(item.rank, 6), "paths": paths}
        for item in ordered
        if (paths := item.patch.paths())
    ]


@dataclass(frozen=True, slots=True)
class ScalarVotes:
    """Per scalar path, the winning (rule, value) and the lower rules that set another value."""

    winners: dict[str, tuple[RankedPatch, Any]]
    losers: dict[str, list[tuple[RankedPatch, Any]]]


def decide_scalar_paths(ordered: Sequence[RankedPatch]) -> ScalarVotes:
    """Scalar paths override: the first rule in rank order that sets a path wins it. A lower
    rule only counts as a loser when its value differs (compared as JSON), so rules that
    agree never produce a conflict."""
    winners: dict[str, tuple[RankedPatch, Any]] = {}
    losers: dict[str, list[tuple[RankedPatch, Any]]] = {}
    for item in ordered:
        for path, value in item.patch.scalar_values().items():
            if path not in winners:
                winners[path] = (item, value)
            elif not json_equal(value, winners[path][1]):
                losers.setdefault(path, []).append((item, value))
    return ScalarVotes(winners, losers)


def nest_policy(winners: Mapping[str, tuple[RankedPatch, Any]], tool_policy: Mapping[str, Any]) -> dict[str, Any]:
    """Dotted paths back into the policy object, sections and keys sorted, so the same rules
    always serialise to the same bytes; ``tool`` only when some rule set a tool list."""
    policy: dict[str, Any] = {}
    for path in sorted(winners):
        section, key = path.split(".", 1)
        policy.setdefault(section, {})[key] = winners[path][1]
    if tool_policy:
        policy["tool"] = tool_policy
    return {key: policy[key] for key in sorted(policy)}


def render_scalar_conflict(
    path: str, winner: tuple[RankedPatch, Any], losers: Sequence[tuple[RankedPatch, Any]]
) -> dict[str, Any]:
    """One ``conflicts`` entry: the winner and every loser with the value it lost with, and a
    sentence per loser, since a reader debugging a policy wants to see both values side by side."""
    item, won = winner
    entry_losers = []
    explains = []
    for loser, lost in losers:
        entry_losers.append({"rule_node_id": loser.rule_node_id, "rank": round(loser.rank, 6), "value": lost})
        explains.append(
            f"winner rule {item.rule_node_id} (rank {fmt_rank(item.rank)}) over loser "
            f"{loser.rule_node_id} (rank {fmt_rank(loser.rank)}) on {path}: "
            f"{_fmt_value(won)} vs {_fmt_value(lost)}"
        )
    return {
        "path": path,
        "winner": {"rule_node_id": item.rule_node_id, "rank": round(item.rank, 6), "value": won},
        "losers": entry_losers,
        "explain": explains,
    }


def merge_policies(items: Sequence[RankedPatch]) -> MergedPolicy:
    """Fold matched rules' patches into one policy, in rank order, explaining every conflict."""
    ordered = rank_order(items)
    scalars = decide_scalar_paths(ordered)
    tool_policy, tool_explain = _explain_tools(ordered)
    conflicts = [
        render_scalar_conflict(path, scalars.winners[path], scalars.losers[path]) for path in sorted(scalars.losers)
    ]
    return MergedPolicy(
        policy=nest_policy(scalars.winners, tool_policy),
        sources=policy_sources(ordered),
        conflicts=conflicts,
        conflict_explain=[text for conflict in conflicts for text in conflict["explain"]],
        tool_explain=tool_explain,
    )
