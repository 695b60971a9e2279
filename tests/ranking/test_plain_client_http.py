"""A client that writes no slots gets the episode and date signals over real HTTP, on both
backends: turns written in one request (or in consecutive requests) lift each other like
turns of one named session, and a date stated in the text dates the memory when no
``slots.event_time`` says otherwise."""

from __future__ import annotations

from typing import Any

import httpx

from tests.ranking.helpers import new_scope, query_vector, recall_text, vector_with_cosine, write


def plain(client_id: str, text: str, cosine: float, query: str, seed: int, **extra: Any) -> dict[str, Any]:
    """A turn as a plain client writes it: text only, with a chosen similarity to ``query``."""
    return {
        "client_id": client_id,
        "type": "event",
        "text_summary": text,
        "embedding": vector_with_cosine(query_vector(query), cosine, seed=seed),
        **extra,
    }


def ranked(client: httpx.Client, scope: str, query: str) -> list[str]:
    return [str(x["id"]) for x in recall_text(client, scope, query)["ranked"]]


QUERY = "Which instrument does Ana practise?"


def session_turns() -> list[dict[str, Any]]:
    return [
        plain("asked", "Bo (2 March 2025): do you still have lessons on weekdays?", 0.45, QUERY, 4),
        plain("answer", "Ana (2 March 2025): yes, cello with my teacher every Tuesday", 0.50, QUERY, 5),
        plain("after", "Bo (2 March 2025): your bowing sounded much better", 0.45, QUERY, 6),
    ]


def test_a_plain_clients_turns_of_one_write_request_lift_each_other(client: httpx.Client) -> None:
    scope = new_scope()
    lone = write(client, scope, [plain("lone", "Ana (1 March 2025): the hall downtown got a new roof", 0.55, QUERY, 3)])
    ids = write(client, scope, session_turns())
    order = ranked(client, scope, QUERY)
    # the answer is among other strong hits of its sitting; the look-alike of another day is alone
    assert order.index(ids["answer"]) < order.index(lone["lone"])


def test_a_plain_clients_consecutive_writes_form_one_episode(client: httpx.Client) -> None:
    scope = new_scope()
    lone = write(client, scope, [plain("lone", "Ana (1 March 2025): the hall downtown got a new roof", 0.55, QUERY, 3)])
    ids = {k: v for turn in session_turns() for k, v in write(client, scope, [turn]).items()}
    order = ranked(client, scope, QUERY)
    assert order.index(ids["answer"]) < order.index(lone["lone"])


def test_a_date_stated_in_the_text_dates_the_memory_unless_event_time_is_given(client: httpx.Client) -> None:
    query = "What did Ana do in July 2024?"
    scope = new_scope()
    ids = write(client, scope, [plain("june", "[2024-06-03] Ana: went swimming at the lake", 0.55, query, 1)])
    ids |= write(client, scope, [plain("july", "[2024-07-03] Ana: went hiking in the hills", 0.50, query, 2)])
    ids |= write(
        client,
        scope,
        [
            plain(
                "given",
                "[2024-07-03] Ana: went to a concert in the park",
                0.52,
                query,
                3,
                slots={"event_time": "2024-06-10"},
            )
        ],
    )
    order = ranked(client, scope, query)
    # the July turn, dated by its text, rises above the more similar June one; the turn whose
    # text says July but whose event_time says June is dated June
    assert order.index(ids["july"]) < order.index(ids["june"])
    assert order.index(ids["july"]) < order.index(ids["given"])
