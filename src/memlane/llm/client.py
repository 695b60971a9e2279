"""A chat client for any OpenAI-compatible ``/chat/completions`` endpoint, asking for JSON.

OpenAI, Azure OpenAI, Ollama, vLLM and llama.cpp's server all speak this dialect. Every call
passes through one :class:`CallGate` (concurrency cap + rate limit) and is counted, and every
transport failure becomes a typed upstream error so the caller can tell "retry later" from
"this will never work".
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any

import httpx

from memlane.domain.errors import UpstreamError
from memlane.domain.redaction import redact
from memlane.llm.errors import LLMBadResponse, LLMRateLimited, LLMTimeout, LLMUnavailable, MalformedOutput
from memlane.llm.limits import CallGate
from memlane.metrics import LLM_CALLS, LLM_TOKENS

log = logging.getLogger(__name__)

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
MAX_ERROR_TEXT = 300


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: str
    content: str


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def parse_json_content(content: str) -> dict[str, Any]:
    """The completion text as a JSON object; tolerates a Markdown code fence around it."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedOutput(f"answer is not JSON ({exc.msg} at position {exc.pos})", raw=content) from None
    if not isinstance(value, dict):
        raise MalformedOutput(f"answer is JSON {type(value).__name__}, not an object", raw=content)
    return value


def failure_name(exc: Exception) -> str:
    """The ``outcome`` label of a failed call: ``timeout``, ``unavailable``, ``rate_limited``,
    ``bad_response`` or ``malformed_output``."""
    if isinstance(exc, UpstreamError):
        return exc.code.removeprefix("upstream_llm_")
    return "malformed_output"


def count_tokens(usage: Any) -> None:
    """Add the tokens an OpenAI-style ``usage`` object reports; endpoints that send none add nothing."""
    if not isinstance(usage, dict):
        return
    for kind in ("prompt", "completion"):
        value = usage.get(f"{kind}_tokens")
        if isinstance(value, int) and value >= 0:
            LLM_TOKENS.labels(kind).inc(value)


class ChatClient:
    """One per process: the gate's limits hold across every job the process runs."""

    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        api_key: str | None = None,
        timeout_sec: float = 60.0,
        gate: CallGate,
        transport: httpx.AsyncBaseTransport | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.gate = gate
        self._headers = {"content-type": "application/json"}
        self._api_key = api_key
        if api_key:
            self._headers["authorization"] = f"Bearer {api_key}"
        self._transport = transport
        self.timeout_sec = timeout_sec
        #: every request sent, successful or not, since the process started
        self.calls = 0

    async def complete_json(self, messages: list[ChatMessage], *, temperature: float = 0.0) -> dict[str, Any]:
        """One chat completion in JSON mode; returns the parsed JSON object of the answer.

        Raises the ``LLM*`` upstream errors for transport failures and :class:`MalformedOutput`
        when the model's text is not a JSON object.
        """
        body = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": temperature,
            "response_format": {"type": "json_object"},
        }
        try:
            answer = self._content(await self._post(body))
        except (UpstreamError, MalformedOutput) as exc:
            LLM_CALLS.labels(failure_name(exc)).inc()
            raise
        LLM_CALLS.labels("ok").inc()
        return answer

    async def _post(self, body: dict[str, Any]) -> httpx.Response:
        url = f"{self.base_url}/chat/completions"
        async with self.gate.slot():
            self.calls += 1
            try:
                # A client per call: calls last seconds, so a fresh connection costs nothing
                # noticeable, and no pooled connection outlives the event loop that made it.
                async with httpx.AsyncClient(
                    timeout=httpx.Timeout(self.timeout_sec, connect=min(10.0, self.timeout_sec)),
                    headers=self._headers,
                    transport=self._transport,
                ) as http:
                    return await http.post(url, json=body)
            except httpx.TimeoutException:
                raise LLMTimeout(
                    f"LLM endpoint did not answer within {self.timeout_sec:g}s (MEMLANE_LLM_TIMEOUT_SEC)"
                ) from None
            except httpx.HTTPError as exc:
                raise LLMUnavailable(f"LLM endpoint unreachable: {type(exc).__name__}: {exc}") from None

    def _content(self, response: httpx.Response) -> dict[str, Any]:
        status = response.status_code
        if status == 429:
            raise LLMRateLimited("LLM endpoint is rate limiting (429)", retry_after=_retry_after(response))
        if status >= 500:
            raise LLMUnavailable(f"LLM endpoint failed with HTTP {status}", retry_after=_retry_after(response))
        if status >= 400:
            snippet = redact(response.text[:MAX_ERROR_TEXT], self._api_key)  # gateways echo requests
            raise LLMBadResponse(f"LLM endpoint refused the request with HTTP {status}: {snippet}")
        try:
            envelope = response.json()
            content = envelope["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            snippet = redact(response.text[:MAX_ERROR_TEXT], self._api_key)
            raise LLMBadResponse(f"LLM endpoint answered HTTP {status} but not a chat completion: {snippet}") from None
        count_tokens(envelope.get("usage"))
        if not isinstance(content, str):
            raise MalformedOutput("completion has no text content", raw=json.dumps(content)[:MAX_ERROR_TEXT])
        return parse_json_content(content)
