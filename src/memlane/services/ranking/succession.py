"""Current first: of two memories that answer a question about as well and say different
things, the one said later ranks first (issue #27).

Closing a stale note needs the offline rules to recognise the change (services/conversation/
conflicts.py); people change a fact in more ways than any rule knows ("Switched to a Pixel 8",
"we're with Octopus now"), and then the old note stays active and, said in the question's own
words, outranks the new one. Ranking does not need the change to be recognised, only that the
two answer the same question and disagree: a later memory that

* is the same person's (the same ``user_id``, said by the same speaker: a note's source
  messages' roles, a chat client's ``speaker`` slot; or both about no one in particular),
* answers the question nearly as well (its cosine to the query at least :data:`RATIO` of the
  earlier one's),
* says that something changed ("now", "switched", "moved", "no longer", "my first week as",
  a negation: :func:`says_a_change`),
* passes a memory that states something that can stop being true: a state or a plan, said in
  the present tense ("my bank is", "the user lives in", "is flying to"), not an event told in
  the past ("went to the support group", "painted a sunrise"), which stays true whatever
  happens later (:func:`tells_an_event`), and
* says something the earlier one does not, by the guard consolidation uses
  (services/opposition.py: a negation or an antonym between them, contradicting facts, or
  changed names, numbers, places or dates)

moves up to just above the earliest-ranked such memory, when the question asks what is true
now, not what happened (:func:`asks_about_the_past`: "What did Caroline paint?", "When was
the wedding?" keep their order; a long chat's history is asked about that way, and there a
later note is no better an answer). Nothing is dropped or closed, so facts
that only add (a second pet, another trip) lose nothing: they stay among the results, the newer
first. Near-duplicates of the value-masked text were looked for first (a "frame"): the pairs a
change leaves active are not near-duplicates (the tune split's: value-masked MiniLM cosine
0.26-0.50), so the question is what ties them (BENCHMARKS.md, "Memory truth").

One rule for every surface that ranks memories for a question: the conversation query, the
tools' ``memory_search`` and graph recall (its seeds). Each passes its own ranked list; only
the head (:data:`WINDOW`) is reordered, so what a surface returns is the same set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from memlane.domain.model import Node
from memlane.services.conversation.notes import event_time
from memlane.services.exclusive_states import exclusive_change
from memlane.services.opposition import opposition

#: the least cosine, as a share of the earlier memory's, with which a later memory still
#: "answers the question as well"; chosen on the tune split (the update pairs left active
#: there have 0.72-0.94) and checked on LoCoMo (BENCHMARKS.md, "Memory truth")
RATIO = 0.7
#: how many of the best are reordered: a question's answers are among them, and a memory
#: further down is not promoted past the cut a client reads
WINDOW = 10


@dataclass(frozen=True, slots=True)
class Said:
    """A ranked memory as the rule sees it."""

    id: str
    text: str
    #: how well it answers the query: its cosine similarity to it
    cosine: float
    #: when what it states was said (or became true); None when unknown
    said_at: datetime | None
    #: whose fact it is: a user id, or None for a memory about no one in particular
    subject: str | None


def said(node: Node, cosine: float, text: str | None = None) -> Said:
    """A node as :func:`current_first` reads it: its text; when it was said (a note's source
    message, else when it became true, else when it was stored); whose it is."""
    when = event_time(node) if node.slots.get("occurred_at") else (node.valid_at or node.created_at)
    words = text if text is not None else (node.text_summary or node.title or "")
    return Said(node.id, words, cosine, when, _whose(node))


def _whose(node: Node) -> str | None:
    """Whose a memory is: its user and who said it (the roles of a note's source messages, a
    chat client's ``speaker`` slot). In one user's chat two people talk; a change one of them
    tells never passes what the other said."""
    said_by = node.slots.get("speaker")
    sources = node.slots.get("source_messages")
    if isinstance(sources, list):
        roles = sorted({str(m.get("role")) for m in sources if isinstance(m, dict) and m.get("role")})
        said_by = ",".join(roles) or said_by
    parts = [p for p in (node.user_id, said_by if isinstance(said_by, str) else None) if p]
    return "/".join(parts) or None


#: a verb in the past tense (common irregular ones, and the regular "-ed")
_PAST = re.compile(
    r"\b(?:was|were|had|did|went|got|made|took|saw|came|gave|found|told|said|met|won|lost|bought|sold|ran|began"
    r"|felt|thought|wrote|read|left|kept|spent|brought|heard|\w{2,}ed)\b",
    re.IGNORECASE,
)
#: a present-tense verb or a word that puts a statement in the present, also contracted
#: ("we're having the baby christened", "I'm booked in", "we've got") or a verb in "-s" after
#: a third-person subject ("Dev vapes, ... it got Dev through giving up the cigarettes")
_PRESENT = re.compile(
    r"(?i:\b(?:is|are|am|has|have|does|do|can|isn't|aren't|doesn't|don't|hasn't|haven't|now|currently|nowadays)\b"
    r"|\b\w+['\u2019](?:re|m|ve)\b)"
    r"|\b(?:[Tt]he user|[Hh]e|[Ss]he|[A-Z][a-z][\w-]*)\s+(?:(?:always|usually|often|still|also|\w+ly)\s+)?"
    r"(?!(?:was|has|is|does|this|his|its)\b)[a-z]+[^\Wsu]s\b"
)


#: words that say a state changed, beside a negation ("switched to", "these days", "my first week as")
CHANGE_CUES = re.compile(
    r"\b(?:now|nowadays|these days|any ?more|no longer|not|never|switched|moved|upgraded|changed|swapped|replaced"
    r"|instead|in the end|new|first|since|after all|gave up|stopped|quit|left)\b|n't\b",
    re.IGNORECASE,
)


def says_a_change(text: str) -> bool:
    """Whether a memory says that something changed, not only what is."""
    return bool(CHANGE_CUES.search(text))


@lru_cache(maxsize=4096)
def tells_an_event(text: str) -> bool:
    """Whether a memory only tells what happened (a past-tense verb and no present one): an
    event stays true, so no later memory makes it stale."""
    return bool(_PAST.search(text)) and not _PRESENT.search(text)


def succeeds(later: Said, earlier: Said, ratio: float = RATIO) -> bool:
    """Whether ``later`` states what is now true of what ``earlier`` states."""
    if later.said_at is None or earlier.said_at is None or later.said_at <= earlier.said_at:
        return False
    implied = exclusive_change(earlier.text, later.text) is not None
    if not implied and (tells_an_event(earlier.text) or not says_a_change(later.text)):
        return False
    if later.subject != earlier.subject or earlier.cosine <= 0 or later.cosine < ratio * earlier.cosine:
        return False
    return opposition(earlier.text, later.text) is not None


#: a question about what happened: a past auxiliary or copula
_ASKS_PAST = re.compile(r"\b(?:did|didn't|was|wasn't|were|weren't|had|hadn't|used to)\b", re.IGNORECASE)


def asks_about_the_past(question: str) -> bool:
    """Whether a question asks what happened ("What did ...", "When was ...") rather than what
    is true now ("What phone does ... have?", "Where is ...")."""
    return bool(_ASKS_PAST.search(question))


def current_first(
    ranked: Sequence[Said], question: str | None, *, ratio: float = RATIO, window: int = WINDOW
) -> list[str]:
    """The ids of ``ranked`` (best first) with each memory of the head moved up to just above
    the best-ranked memory it succeeds; the rest keeps its order. Without a question's text, or
    for a question about the past, the order is left as it is."""
    if question is None or asks_about_the_past(question):
        return [s.id for s in ranked]
    head = list(ranked[:window])
    for i in range(1, len(head)):
        item = head[i]
        above = next((j for j in range(i) if succeeds(item, head[j], ratio)), None)
        if above is not None:
            head.insert(above, head.pop(i))
    return [s.id for s in head] + [s.id for s in ranked[window:]]
