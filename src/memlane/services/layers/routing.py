"""Which layer a memory belongs in, when the writer did not say.

identity: who the user is and what they want long-term; project: how the system works, its
architecture and rules; workspace: what task is being executed now. The offline rules count
signal words; with an LLM configured (``MEMLANE_LLM_BASE_URL``) the model decides and the
rules are the fallback when it fails. Either way the decision says why.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from memlane.domain.errors import MemlaneError
from memlane.services.layers.roles import IDENTITY, PROJECT, WORKSPACE

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RoutingDecision:
    layer: str
    reason: str
    classifier: str  # "rules" | "llm"


class LayerClassifier(Protocol):
    """The hook: anything with this method can route writes (see docs/api-layers.md)."""

    async def classify(self, title: str, content: str, task_id: str | None, tags: list[str]) -> RoutingDecision: ...


SIGNALS: dict[str, re.Pattern[str]] = {
    IDENTITY: re.compile(
        r"\b(user|users|i|i'm|i am|my|me|prefers?|preferred|preferences?|likes?|dislikes?|loves?|hates?|wants?"
        r"|goals?|long[- ]term|name is|lives? in|timezone|time zone|native language|speaks|birthday|favou?rite"
        r"|works? as|their|they)\b",
        re.IGNORECASE,
    ),
    PROJECT: re.compile(
        r"\b(architecture|architectural|system|systems|service|services|api|apis|endpoints?|database|schema"
        r"|modules?|components?|repository|repo|deploy|deployment|infrastructure|conventions?|polic(y|ies)"
        r"|rules?|must|standards?|stack|framework|design|adr|protocols?|interfaces?|pipelines?|backend|frontend)\b",
        re.IGNORECASE,
    ),
    WORKSPACE: re.compile(
        r"\b(task|tasks|currently|in progress|working on|next step|step \d+|subtasks?|todo|to-do|draft"
        r"|executing|pending|blocked|this run|right now|wip|scratch|intermediate|partial results?)\b",
        re.IGNORECASE,
    ),
}
#: on a tie the less widely shared layer wins: a misrouted private note leaks nothing
TIE_ORDER: tuple[str, ...] = (WORKSPACE, PROJECT, IDENTITY)


class RuleClassifier:
    """Offline routing: a task id means workspace; otherwise the layer with most signal words."""

    async def classify(self, title: str, content: str, task_id: str | None, tags: list[str]) -> RoutingDecision:
        return self.decide(title, content, task_id, tags)

    @staticmethod
    def decide(title: str, content: str, task_id: str | None, tags: list[str]) -> RoutingDecision:
        if task_id:
            return RoutingDecision(WORKSPACE, f"metadata.task_id is {task_id!r}: task-scoped working memory", "rules")
        text = f"{title}\n{content}\n{' '.join(tags)}"
        hits = {layer: sorted({m.group(0).lower() for m in rx.finditer(text)}) for layer, rx in SIGNALS.items()}
        best = max(TIE_ORDER, key=lambda layer: (len(hits[layer]), -TIE_ORDER.index(layer)))
        if not hits[best]:
            return RoutingDecision(
                WORKSPACE,
                "no identity or project signal words; kept as private, expiring workspace memory",
                "rules",
            )
        question = {
            IDENTITY: "who the user is / what they want long-term",
            PROJECT: "how the system works / its architecture and rules",
            WORKSPACE: "what task is being executed now",
        }[best]
        return RoutingDecision(best, f"answers {question!r} (signal words: {', '.join(hits[best][:6])})", "rules")


class _LLMRoute(BaseModel):
    layer: Literal["identity", "project", "workspace"]
    reason: str = Field(..., min_length=1, max_length=500)


SYSTEM_PROMPT = """You are memlane's layer-router agent.
Route one memory of a multi-agent system into exactly one layer.
- identity: answers "Who is the user? What do they want long-term?" (preferences, goals, profile)
- project: answers "How does the system work? What is the architecture? What are the rules?"
- workspace: answers "What task is currently being executed?" (task state, intermediate results)
Answer with a JSON object {"layer": "identity" | "project" | "workspace", "reason": "<one sentence>"}."""


class LLMClassifier:
    """Routing by an OpenAI-compatible chat model; the rules decide when the model fails."""

    def __init__(self, client: object, fallback: RuleClassifier | None = None):
        self.client = client
        self.fallback = fallback or RuleClassifier()

    async def classify(self, title: str, content: str, task_id: str | None, tags: list[str]) -> RoutingDecision:
        import json

        from memlane.llm.client import ChatClient
        from memlane.llm.structured import CallBudget, ask

        assert isinstance(self.client, ChatClient)
        user = json.dumps({"title": title, "content": content[:4000], "task_id": task_id, "tags": tags})
        try:
            route = await ask(
                self.client, _LLMRoute, agent="layer router", system=SYSTEM_PROMPT, user=user, budget=CallBudget(2)
            )
        except MemlaneError as exc:
            log.warning("LLM layer routing failed, using the offline rules: %s", exc)
            rules = self.fallback.decide(title, content, task_id, tags)
            return RoutingDecision(rules.layer, f"LLM routing failed ({exc}); rules: {rules.reason}", "rules")
        return RoutingDecision(route.layer, route.reason, "llm")
