"""Structured outputs: ask for JSON matching a pydantic model, retry a malformed answer once.

A per-request :class:`CallBudget` counts every request sent, retries included, so one
ingestion request can never cost more than its budget however the model behaves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from memlane.llm.client import ChatClient, ChatMessage
from memlane.llm.errors import LLMBudgetExhausted, LLMOutputInvalid, MalformedOutput

T = TypeVar("T", bound=BaseModel)


@dataclass(slots=True)
class CallBudget:
    """At most ``limit`` LLM requests; ``used`` may start above zero when a task resumes."""

    limit: int
    used: int = 0

    @property
    def left(self) -> int:
        return max(0, self.limit - self.used)

    def take(self, what: str) -> None:
        if self.used >= self.limit:
            raise LLMBudgetExhausted(
                f"{what}: this request already used its {self.limit} LLM calls",
                details={"limit": self.limit, "used": self.used},
            )
        self.used += 1


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "(root)"
        parts.append(f"{loc}: {err.get('msg')}")
    return "; ".join(parts)


async def ask(
    client: ChatClient,
    schema: type[T],
    *,
    agent: str,
    system: str,
    user: str,
    budget: CallBudget,
    check: Callable[[T], str | None] | None = None,
) -> T:
    """Send the prompt, validate the answer against ``schema`` (and ``check``, for rules that
    depend on the request, like "only ids you were given"); one corrective retry.

    The retry repeats the conversation with the invalid answer and what was wrong with it,
    which is what models fix most reliably. Both attempts count against ``budget``.
    """
    messages = [ChatMessage("system", system), ChatMessage("user", user)]
    problem = ""
    for attempt in (1, 2):
        if attempt == 2 and budget.left == 0:
            raise LLMOutputInvalid(
                f"the {agent} agent answered malformed output ({problem}) and the request has no LLM call "
                f"left for a retry (limit {budget.limit})",
                details={"agent": agent},
            )
        budget.take(f"{agent} agent")
        raw = ""
        try:
            data = await client.complete_json(messages)
            raw = json.dumps(data)[:4000]
            answer = schema.model_validate(data)
            problem = (check(answer) if check is not None else None) or ""
            if not problem:
                return answer
        except MalformedOutput as exc:
            problem = str(exc)
            raw = (exc.raw or "")[:4000]
        except ValidationError as exc:
            problem = _describe(exc)
        if attempt == 1:
            messages = [
                *messages,
                ChatMessage("assistant", raw),
                ChatMessage(
                    "user",
                    f"That answer was invalid: {problem}. Answer again with only a JSON object that "
                    "follows the schema exactly.",
                ),
            ]
    raise LLMOutputInvalid(
        f"the {agent} agent answered malformed output twice; last problem: {problem}",
        details={"agent": agent},
    )
