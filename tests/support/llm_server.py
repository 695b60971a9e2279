"""A real OpenAI-compatible chat server on loopback, scripted per test.

It answers ``POST /v1/chat/completions``. Which agent is calling is read from the system
prompt ("You are memlane's <agent> agent"); each agent has a queue of scripted replies (valid
JSON, malformed text, HTTP errors, slow answers) and, when the queue is empty, a valid default
reply built from the request. Every call is counted per agent, and the peak number of calls in
flight is recorded. This stands in for the *provider*, never for memlane's code.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import serve

AGENT = re.compile(r"You are memlane's ([\w-]+) agent")
MESSAGE_LINE = re.compile(r"^\((?P<id>[^)]+)\) (?P<role>[^\[:]+?)(?: \[[^\]]*\])?: (?P<content>.*)$", re.MULTILINE)


@dataclass
class Reply:
    """One scripted answer. ``content``: a dict (sent as JSON text), a str (sent verbatim, e.g.
    malformed JSON), or a callable building either from the request body."""

    content: Any = None
    status: int = 200
    delay_sec: float = 0.0
    #: an error answer that quotes the request's Authorization header, as some gateways do
    echo_auth: bool = False


def conversation_lines(request: dict[str, Any]) -> list[dict[str, str]]:
    """The ``(id) role: content`` lines of the prompt, as memlane writes them."""
    user = next((m["content"] for m in request["messages"] if m["role"] == "user"), "")
    return [m.groupdict() for m in MESSAGE_LINE.finditer(user)]


def default_reply(agent: str, request: dict[str, Any]) -> dict[str, Any]:
    lines = conversation_lines(request)
    said = [ln["content"] for ln in lines]
    if agent == "episodic":
        return {"facts": said[:5], "preferences": [], "plans": [], "events": [], "entities": [], "importance": 0.6}
    if agent == "summarizer":
        return {
            "summary": "Summary: " + " ".join(said)[:300],
            "key_points": said[:3],
            "tags": ["chat"],
            "keywords": ["scripted"],
            "semantic_queries": ["what was said"],
            "conversation_complexity": 2,
        }
    if agent == "synthesis":
        return {
            "note": {
                "content": "Canonical note: " + " ".join(said)[:500],
                "category": "fact",
                "keywords": ["scripted"],
                "importance": 0.7,
                "source_message_ids": [ln["id"] for ln in lines],
            },
            "operation": "CREATE",
            "target_ids": [],
            "reason": "new information",
        }
    if agent == "agent-memory":
        return {"content": "Agent note: " + " ".join(said)[:300], "keywords": ["agent"], "tags": [], "importance": 0.5}
    return {}


@dataclass
class ChatScript:
    queues: dict[str, list[Reply]] = field(default_factory=dict)
    #: delay applied to every call of an agent (on top of a reply's own delay)
    agent_delay: dict[str, float] = field(default_factory=dict)
    calls: int = 0
    calls_by_agent: Counter[str] = field(default_factory=Counter)
    requests: list[dict[str, Any]] = field(default_factory=list)
    in_flight: int = 0
    peak_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def push(self, agent: str, *replies: Reply) -> None:
        with self.lock:
            self.queues.setdefault(agent, []).extend(replies)

    def reset(self) -> None:
        with self.lock:
            self.queues.clear()
            self.agent_delay.clear()
            self.calls = 0
            self.calls_by_agent.clear()
            self.requests.clear()
            self.peak_in_flight = 0

    def next_reply(self, agent: str) -> tuple[Reply | None, float]:
        with self.lock:
            queue = self.queues.get(agent) or []
            reply = queue.pop(0) if queue else None
            return reply, self.agent_delay.get(agent, 0.0)


def _handler(script: ChatScript) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, raw: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(raw)

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, b'{"error": {"message": "not found"}}')
                return
            system = next((m["content"] for m in request.get("messages", []) if m["role"] == "system"), "")
            found = AGENT.search(system)
            agent = found.group(1) if found else "unknown"
            with script.lock:
                script.calls += 1
                script.calls_by_agent[agent] += 1
                script.requests.append({"agent": agent, "body": request, "headers": dict(self.headers)})
                script.in_flight += 1
                script.peak_in_flight = max(script.peak_in_flight, script.in_flight)
            try:
                reply, delay = script.next_reply(agent)
                reply = reply or Reply()
                if delay or reply.delay_sec:
                    time.sleep(delay + reply.delay_sec)
                if reply.status != 200:
                    echoed = f" (auth was {self.headers.get('Authorization', '')})" if reply.echo_auth else ""
                    message = {"error": {"message": f"scripted failure for model {request.get('model')}{echoed}"}}
                    self._send(reply.status, json.dumps(message).encode())
                    return
                content = reply.content
                if callable(content):
                    content = content(request)
                if content is None:
                    content = default_reply(agent, request)
                text = content if isinstance(content, str) else json.dumps(content)
                completion = {
                    "id": f"chatcmpl-{script.calls}",
                    "object": "chat.completion",
                    "model": request.get("model"),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    # counted like a provider would, roughly: words in, words out
                    "usage": {
                        "prompt_tokens": len(json.dumps(request["messages"]).split()),
                        "completion_tokens": len(text.split()),
                    },
                }
                self._send(200, json.dumps(completion).encode())
            finally:
                with script.lock:
                    script.in_flight -= 1

    return Handler


@contextlib.contextmanager
def chat_server() -> Iterator[tuple[str, ChatScript]]:
    """Yields ``(base_url, script)``; base_url ends in ``/v1`` like OpenAI's."""
    script = ChatScript()
    with serve(_handler(script)) as url:
        yield f"{url}/v1", script


ReplyBuilder = Callable[[dict[str, Any]], Any]
