"""Tool selection: apply the merged ``tool`` policy to a caller's candidates, deterministically.

Semantics (docs/api-graph.md, ``tools/select``) and the choices made where it is silent:

* ``candidates`` are deduplicated keeping first occurrence; names compare exactly
  (case-sensitive), as tool names are identifiers.
* ``denied`` = candidates in ``deny`` (hard). ``allowed`` = candidates that pass the allowlist
  (when one exists) and are not denied: the final eligible set, so ``ordered`` is always a
  permutation of ``allowed``. ``preferred`` = eligible tools named in ``prefer``, in the merged
  (rank) order; ``ordered`` = preferred first, then the rest in candidate order; ``selected`` =
  first of ``ordered``. A selected tool is therefore never denied.
* Nothing eligible, ``strict=True``: ``InvalidRequest`` code ``no_tools_allowed`` (400) with the
  reason in details. ``strict=False``: when the allowlist removed everything that deny left,
  the allowlist is ignored (deny-only fallback, ``fallback.applied=true``,
  ``reason="allowlist_removed_all_candidates"``); when deny alone removes everything there is
  nothing to fall back to: ``selected`` is null with ``fallback.applied=false`` and
  ``reason="denylist_removed_all_candidates"`` (``allow_and_deny_removed_all_candidates`` when
  the allowlist would have removed them too, ``no_candidates`` for an empty list). Deny is
  never relaxed.
* ``tool_conflicts_summary``: at most ``MAX_SUMMARY`` short strings derived from
  ``tool_explain.conflicts``, conflicts about the caller's candidates first; when there are
  more, the last string says how many were left out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from memlane.domain.errors import InvalidRequest

MAX_SUMMARY: Final = 10
MAX_SUMMARY_CHARS: Final = 200


@dataclass(frozen=True, slots=True)
class Selection:
    candidates: list[str]
    allowed: list[str]
    denied: list[str]
    preferred: list[str]
    ordered: list[str]
    selected: str | None
    fallback: dict[str, Any] | None
    tool_conflicts_summary: list[str]

    def as_dict(self) -> dict[str, Any]:
        """The response's ``selection`` object (``fallback`` only when one was considered)."""
        body: dict[str, Any] = {
            "candidates": self.candidates,
            "allowed": self.allowed,
            "denied": self.denied,
            "preferred": self.preferred,
            "ordered": self.ordered,
            "selected": self.selected,
        }
        if self.fallback is not None:
            body["fallback"] = self.fallback
        return body


def _names(value: object) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list | tuple):
        return []
    return [item for item in dict.fromkeys(value) if isinstance(item, str)]


def _rule(ref: object) -> str:
    return str(ref.get("rule_node_id")) if isinstance(ref, Mapping) else "?"


def _short(conflict: Mapping[str, Any]) -> str:
    kind, tool = conflict.get("kind"), conflict.get("tool")
    winner, loser = _rule(conflict.get("winner")), _rule(conflict.get("loser"))
    if kind == "allow_vs_deny":
        text = f"{tool}: deny by {winner} beats allow by {loser}"
    elif kind == "prefer_vs_deny":
        text = f"{tool}: deny by {winner} beats prefer by {loser}"
    elif kind == "allow_not_in_intersection":
        text = f"{tool}: outside allowlist of {winner} (allowed by {loser})"
    elif kind == "prefer_not_allowed":
        text = f"{tool}: preferred by {loser} but outside allowlist of {winner}"
    elif kind == "allow_empty":
        text = "allowlists leave no tool allowed"
    else:
        text = str(conflict.get("explain", kind))
    return text[:MAX_SUMMARY_CHARS]


def tool_conflicts_summary(tool_explain: Mapping[str, Any] | None, candidates: Sequence[str] = ()) -> list[str]:
    """A bounded, UI/log-friendly digest of ``tool_explain.conflicts``."""
    if not tool_explain:
        return []
    conflicts = [c for c in tool_explain.get("conflicts") or [] if isinstance(c, Mapping)]
    total = max(int(tool_explain.get("conflicts_total") or 0), len(conflicts))
    wanted = set(candidates)
    conflicts.sort(key=lambda c: 0 if c.get("tool") is None or c.get("tool") in wanted else 1)
    if total <= MAX_SUMMARY:
        return [_short(c) for c in conflicts]
    lines = [_short(c) for c in conflicts[: MAX_SUMMARY - 1]]
    return [*lines, f"+{total - len(lines)} more tool conflicts"]


def select_tools(
    candidates: Sequence[str],
    tool_policy: Mapping[str, Any] | None,
    strict: bool = True,
    *,
    tool_explain: Mapping[str, Any] | None = None,
) -> Selection:
    """Pick a tool: allowlist (intersection) and denylist (union) filter, prefer orders."""
    policy = tool_policy or {}
    unique = list(dict.fromkeys(candidates))
    allow = _names(policy.get("allow"))
    deny = set(_names(policy.get("deny")) or [])
    prefer = _names(policy.get("prefer")) or []
    summary = tool_conflicts_summary(tool_explain, unique)

    denied = [c for c in unique if c in deny]
    not_denied = [c for c in unique if c not in deny]
    allow_set = set(allow) if allow is not None else None
    allowed = [c for c in not_denied if allow_set is None or c in allow_set]
    fallback: dict[str, Any] | None = None
    if not allowed:
        if not unique:
            reason = "no_candidates"
        elif not_denied:
            reason = "allowlist_removed_all_candidates"
        elif allow_set is not None and not any(c in allow_set for c in unique):
            reason = "allow_and_deny_removed_all_candidates"
        else:
            reason = "denylist_removed_all_candidates"
        if strict:
            raise InvalidRequest(
                "no candidate tool is allowed by the matched rules",
                code="no_tools_allowed",
                details={
                    "reason": reason,
                    "candidates": unique,
                    "denied": denied,
                    "allow": allow,
                    "tool_conflicts_summary": summary,
                },
            )
        if not_denied:  # only the allowlist is in the way: fall back to deny-only
            allowed = not_denied
            fallback = {"applied": True, "reason": reason, "mode": "deny_only", "ignored_allow": allow}
        else:  # deny is never relaxed: nothing to fall back to
            fallback = {"applied": False, "reason": reason, "mode": "none", "ignored_allow": None}
    eligible = set(allowed)
    preferred = [tool for tool in prefer if tool in eligible]
    chosen = set(preferred)
    ordered = preferred + [c for c in allowed if c not in chosen]
    return Selection(
        candidates=unique,
        allowed=allowed,
        denied=denied,
        preferred=preferred,
        ordered=ordered,
        selected=ordered[0] if ordered else None,
        fallback=fallback,
        tool_conflicts_summary=summary,
    )
