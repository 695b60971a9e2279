"""memlane.integrations.openai_agents: the Agents SDK's Session over a real memlane server, used
directly and by ``Runner.run`` with a model served by a loopback OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner, TResponseInputItem
from agents.memory import Session
from openai import AsyncOpenAI
from openai.types.responses import EasyInputMessageParam, ResponseFunctionToolCallParam
from openai.types.responses.response_input_param import FunctionCallOutput

from memlane.client import AsyncMemlaneClient
from memlane.integrations.openai_agents import MemlaneSession
from tests.integrations.helpers import API_KEY, OTHER_TENANT_KEY
from tests.support.llm_server import Reply, chat_server
from tests.support.server import LiveServer

USER = "user-1"  # the user API_KEY is bound to


def session_of(server: LiveServer, **options: Any) -> MemlaneSession:
    return MemlaneSession(f"s-{uuid.uuid4().hex[:8]}", base_url=server.url, api_key=API_KEY, **options)


def user(text: str) -> EasyInputMessageParam:
    """A user message as the Agents SDK types it (an item of ``TResponseInputItem``)."""
    return {"role": "user", "content": text}


def contents(items: list[TResponseInputItem]) -> list[object]:
    """Each item's ``content``: only message items have one, so the SDK's item union is read by
    ``get``, and an item without content shows as None (which no expected text equals)."""
    return [item.get("content") for item in items]


async def test_a_session_keeps_items_in_order_and_returns_the_latest_with_a_limit(memlane_server: LiveServer) -> None:
    session = session_of(memlane_server)
    assert isinstance(session, Session)
    assert await session.get_items() == []
    first: list[TResponseInputItem] = [user("Hi, I'm Priya"), {"role": "assistant", "content": "Hello Priya"}]
    await session.add_items(first)
    await session.add_items([user("I live in Porto")])
    items = await session.get_items()
    assert contents(items) == ["Hi, I'm Priya", "Hello Priya", "I live in Porto"]
    latest = await session.get_items(limit=2)
    assert contents(latest) == ["Hello Priya", "I live in Porto"]


async def test_pop_item_removes_and_returns_the_latest_item(memlane_server: LiveServer) -> None:
    session = session_of(memlane_server)
    assert await session.pop_item() is None
    await session.add_items([user("one"), user("two")])
    popped = await session.pop_item()
    assert popped == user("two")
    await session.add_items([user("three")])
    assert contents(await session.get_items()) == ["one", "three"]


async def test_clear_session_forgets_the_history_but_not_other_sessions(memlane_server: LiveServer) -> None:
    session, other = session_of(memlane_server), session_of(memlane_server)
    await session.add_items([user("mine")])
    await other.add_items([user("theirs")])
    await session.clear_session()
    assert await session.get_items() == []
    assert await other.get_items() == [user("theirs")]
    await session.add_items([user("again")])
    assert await session.get_items() == [user("again")]


async def test_a_new_session_object_reads_the_same_history(memlane_server: LiveServer) -> None:
    session = session_of(memlane_server)
    call: ResponseFunctionToolCallParam = {
        "type": "function_call",
        "call_id": "c1",
        "name": "weather",
        "arguments": '{"city": "Porto"}',
    }
    output: FunctionCallOutput = {"type": "function_call_output", "call_id": "c1", "output": "sunny"}
    await session.add_items([call, output])
    again = MemlaneSession(session.session_id, base_url=memlane_server.url, api_key=API_KEY)
    assert await again.get_items() == [call, output]


async def test_another_tenants_key_cannot_read_or_clear_the_session(memlane_server: LiveServer) -> None:
    session = session_of(memlane_server)
    await session.add_items([user("private")])
    outsider = MemlaneSession(session.session_id, base_url=memlane_server.url, api_key=OTHER_TENANT_KEY)
    assert await outsider.get_items() == [] and await outsider.pop_item() is None
    await outsider.clear_session()
    assert await session.get_items() == [user("private")]


async def test_user_messages_become_long_term_notes_of_the_user(memlane_server: LiveServer) -> None:
    session = session_of(memlane_server, user_id=USER, app_id=f"agents-{uuid.uuid4().hex[:6]}")
    await session.add_items([user("I am allergic to peanuts")])
    async with AsyncMemlaneClient(memlane_server.url, api_key=API_KEY) as client:
        for _ in range(600):
            found = await client.query_memories(app_id=session.app_id, query="allergy", user_id=USER)
            if found.count:
                break
            await asyncio.sleep(0.05)
    assert found.count >= 1 and "peanuts" in found.memories[0].document


async def test_a_runner_continues_a_conversation_from_the_memlane_session(memlane_server: LiveServer) -> None:
    def answer(request: dict[str, Any]) -> str:
        said = [m["content"] for m in request["messages"] if m["role"] == "user"]
        return f"You said {len(said)} things; first: {said[0]}"

    # the OpenAI client is the test's own: the model does not close it
    with chat_server() as (model_url, script):
        async with AsyncOpenAI(base_url=model_url, api_key="x") as openai_client:
            script.push("unknown", Reply(content=answer), Reply(content=answer))
            model = OpenAIChatCompletionsModel(model="loopback", openai_client=openai_client)
            agent = Agent(name="assistant", instructions="Answer briefly.", model=model)
            session = session_of(memlane_server)
            config = RunConfig(tracing_disabled=True)
            first = await Runner.run(agent, "My name is Ada", session=session, run_config=config)
            assert first.final_output == "You said 1 things; first: My name is Ada"
            second = await Runner.run(agent, "What is my name?", session=session, run_config=config)
            assert second.final_output == "You said 2 things; first: My name is Ada"
    history = await MemlaneSession(session.session_id, base_url=memlane_server.url, api_key=API_KEY).get_items()
    assert [i.get("role") for i in history] == ["user", "assistant", "user", "assistant"]
    assert contents(history)[2] == "What is my name?"
