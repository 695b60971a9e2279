"""The LLM agents' contracts: what each is asked (prompt) and what it must answer (schema).

Every answer is validated with pydantic; bounds on list lengths and strings keep a runaway
model from writing a novel into a note. The first line of every system prompt names the agent
("You are memlane's <name> agent"), which also lets operators tell calls apart in provider logs.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from memlane.services.conversation.messages import Message, transcript

ShortList = list[str]


def _short_list(max_items: int = 30) -> Any:
    return Field(default_factory=list, max_length=max_items)


class EpisodicEvent(BaseModel):
    description: str = Field(min_length=1, max_length=1000)
    date: str | None = Field(None, max_length=100)


class EpisodicOutput(BaseModel):
    facts: ShortList = _short_list()
    preferences: ShortList = _short_list()
    plans: ShortList = _short_list()
    events: list[EpisodicEvent] = _short_list()
    entities: ShortList = _short_list(50)
    importance: float = Field(0.5, ge=0.0, le=1.0)


class SummaryOutput(BaseModel):
    summary: str = Field(min_length=1, max_length=8000)
    key_points: ShortList = _short_list(20)
    tags: ShortList = _short_list(20)
    keywords: ShortList = _short_list(30)
    semantic_queries: ShortList = _short_list(10)
    conversation_complexity: int = Field(1, ge=1, le=5)


class NoteOutput(BaseModel):
    content: str = Field(min_length=1, max_length=4000)
    category: Literal["fact", "preference", "plan", "event", "summary"] = "summary"
    keywords: ShortList = _short_list()
    entities: ShortList = _short_list(50)
    tags: ShortList = _short_list(20)
    importance: float = Field(0.5, ge=0.0, le=1.0)
    event_date: str | None = Field(None, max_length=100)
    source_message_ids: ShortList = _short_list(1000)


class ResolutionOutput(BaseModel):
    note: NoteOutput
    operation: Literal["CREATE", "UPDATE", "DELETE", "SKIP"]
    target_ids: ShortList = _short_list(10)
    update_mode: Literal["merge", "replace"] = "merge"
    reason: str = Field("", max_length=1000)

    @model_validator(mode="after")
    def _targets_match_operation(self) -> ResolutionOutput:
        if self.operation in ("UPDATE", "DELETE", "SKIP") and not self.target_ids:
            raise ValueError(f"operation {self.operation} needs target_ids naming existing memories")
        if self.operation == "CREATE" and self.target_ids:
            raise ValueError("operation CREATE takes no target_ids")
        return self


class AgentNoteOutput(BaseModel):
    content: str = Field(min_length=1, max_length=4000)
    keywords: ShortList = _short_list()
    tags: ShortList = _short_list(20)
    importance: float = Field(0.5, ge=0.0, le=1.0)


def _shape(example: dict[str, Any]) -> str:
    return json.dumps(example, indent=1)


EPISODIC_SYSTEM = (
    "You are memlane's episodic agent. From a conversation, extract what should be remembered about "
    "the people in it: facts about them, their preferences, their plans, and dated events (resolve "
    "relative dates like 'yesterday' against the message timestamps). Ignore greetings and small talk. "
    "Answer with one JSON object of this shape:\n"
    + _shape(
        {
            "facts": ["..."],
            "preferences": ["..."],
            "plans": ["..."],
            "events": [{"description": "...", "date": "YYYY-MM-DD or null"}],
            "entities": ["names of people, places, organisations, things"],
            "importance": 0.5,
        }
    )
)

SUMMARIZER_SYSTEM = (
    "You are memlane's summarizer agent. Summarise the conversation for later retrieval: a concise "
    "narrative, the key points, topical tags, search keywords, and the questions someone might later "
    "ask that this conversation answers. Rate its complexity from 1 (trivial) to 5 (intricate). Answer "
    "with one JSON object of this shape:\n"
    + _shape(
        {
            "summary": "...",
            "key_points": ["..."],
            "tags": ["..."],
            "keywords": ["..."],
            "semantic_queries": ["..."],
            "conversation_complexity": 2,
        }
    )
)

SYNTHESIS_SYSTEM = (
    "You are memlane's synthesis agent, which also resolves conflicts. Write ONE canonical memory note from "
    "the episodic extraction and the summary of a conversation: self-contained, third person, grammatical, "
    'with absolute dates, and naming the person by their name when it is known ("Priya is allergic to '
    'shellfish", not "the user is allergic to shellfish"). Then compare it with the existing memories given '
    "and decide one operation:\n"
    "- CREATE: the note is new information (no target_ids).\n"
    "- UPDATE: the note refines or changes existing memories (target_ids); update_mode 'merge' when "
    "it combines them, 'replace' when it replaces an outdated value. The note must then contain the "
    "complete current information, including every other fact of the target that still holds.\n"
    "- DELETE: the note contradicts existing memories (target_ids), which become contradicted.\n"
    "- SKIP: everything in the note is already known (target_ids are the memories that hold it). Never SKIP "
    "when the messages add anything new: a message that repeats one fact and adds another is an UPDATE "
    "(merge) or a CREATE.\n"
    "A fact has changed, and the older memory is a target, when a later message:\n"
    '- negates it: "not ... after all", "no longer", "anymore", "don\'t ... now" (DELETE);\n'
    '- replaces its value: "moved to", "switched to", "now", "used to ... but now", "my new GP is '
    '...", "got a new car, a ...", even when the old value is not named (UPDATE, replace);\n'
    '- corrects it: "sorry, it\'s Jenna, not Jen", or a retyped number, date or name with no "not" '
    '("typo earlier: it\'s 24 Elm Street", "actually it was 2016") (UPDATE, replace; the note states the '
    "corrected fact);\n"
    "- cancels it: a plan called off, scrapped, bailed on, postponed or not happening, also when the "
    'message says "it" or "that" for the plan ("they scrapped it", "so that\'s off") (DELETE);\n'
    '- implies it: "since I moved to Lisbon ..." replaces where the person lived; a life event ends the '
    'state it ends ("after the divorce" a marriage, "laid off" or "my new manager at <company>" the '
    'employer, a graduation being a student, "since we lost <pet>" having the pet); "gave up alcohol" ends '
    "the glass of wine (UPDATE, replace, or DELETE when nothing replaces it).\n"
    "Compare facts as who, which attribute, which value: an attribute that holds one value at a time "
    "(where someone lives or works, a spouse, a doctor, a car) changes when a new value is given.\n"
    "Facts that only add never change each other: a brother besides a sister, a second pet, another "
    "trip, a new skill are CREATE (or a merge), never a replacement or a DELETE of the older one. A "
    "fact is only changed by one about the same person and the same attribute.\n"
    "Only use ids from the existing memories list. source_message_ids lists the ids of the messages "
    "the note is based on. Answer with one JSON object of this shape:\n"
    + _shape(
        {
            "note": {
                "content": "...",
                "category": "fact|preference|plan|event|summary",
                "keywords": ["..."],
                "entities": ["..."],
                "tags": ["..."],
                "importance": 0.5,
                "event_date": "YYYY-MM-DD or null",
                "source_message_ids": ["..."],
            },
            "operation": "CREATE|UPDATE|DELETE|SKIP",
            "target_ids": [],
            "update_mode": "merge|replace",
            "reason": "...",
        }
    )
)

AGENT_NOTE_SYSTEM = (
    "You are memlane's agent-memory agent. An AI agent reports something to remember. Rewrite it as "
    "one concise, self-contained memory note. Answer with one JSON object of this shape:\n"
    + _shape({"content": "...", "keywords": ["..."], "tags": ["..."], "importance": 0.5})
)


def conversation_prompt(messages: list[Message], *, user_id: str | None, user_name: str | None = None) -> str:
    who = f"The conversation is with user {user_id!r}.\n" if user_id else ""
    if user_name:
        who += f"The user's name is {user_name}: name them so in the note.\n"
    return f"{who}Messages (id in parentheses):\n{transcript(messages, with_ids=True)}"


def synthesis_prompt(
    messages: list[Message],
    episodic: EpisodicOutput,
    summary: SummaryOutput,
    candidates: list[dict[str, Any]],
    *,
    user_id: str | None,
    user_name: str | None = None,
) -> str:
    return (
        f"{conversation_prompt(messages, user_id=user_id, user_name=user_name)}\n\n"
        f"Episodic extraction:\n{episodic.model_dump_json(indent=1)}\n\n"
        f"Summary:\n{summary.model_dump_json(indent=1)}\n\n"
        f"Existing memories (nearest first):\n{json.dumps(candidates, indent=1) if candidates else '[] (none)'}"
    )
