"""Offline conflict resolution: each new draft against the user's nearest stored notes and the
drafts before it, by what their sentences state (facts/) and, where no fact can be read, by
similarity.

Facts decide first. For each fact of the draft, against each fact of a candidate note:

* **contradicted**: same subject, relation and value, opposite polarity ("is allergic to
  peanuts" / "is not allergic to peanuts"), or a cancellation of a plan the note holds ("we
  called off the trip to Japan");
* **superseded**: same subject and an exclusive relation with another value ("lives in Porto"
  / "moved to Lisbon"), a count that changed ("two dogs" / "three dogs"), what the person
  *used to* do, a switch away from the note's value, or a correction of a word the note holds
  ("sorry, it's Jenna, not Jen");
* **repeated**: the same fact again.

Every note a fact closes is closed (status, ``invalid_at``, ``next_id`` to the new note), not
only the most similar one. A closed note's other facts are not lost: its sentences that still
hold are carried into the new note. A draft is **skipped** only when every fact it states is
already stored and it adds no other words; a message that holds an update and a new fact
writes both.

Without facts on both sides, similarity decides, as before facts were read:

* **DELETE** (``contradicted``): polarity differs and content-word Jaccard >= 0.5 or cosine >= 0.85;
* **SKIP**: same polarity and cosine >= 0.95 or Jaccard >= 0.9;
* **UPDATE, replace** (``superseded``): a change cue ("now", "moved", "anymore"...) and
  Jaccard >= 0.4 or cosine >= 0.85;
* **UPDATE, merge** (``consolidated``): same polarity and cosine >= 0.9 or Jaccard >= 0.7; the
  new note carries both notes' text and evidence.

When both sides state facts and none of them relate, only the merge applies: two statements
about different things never close each other, however similar their wording ("has a sister" /
"has a brother", cosine 0.8).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from memlane.domain.model import Node
from memlane.services.conversation import facts as fx
from memlane.services.conversation import language as lang
from memlane.services.conversation import succession, topic_change, word_meaning
from memlane.services.conversation.extractor import NoteDraft
from memlane.services.conversation.facts.lexicon import CANCEL_SYNONYMS, PLAN_WORDS
from memlane.services.conversation.facts.normalise import normalise
from memlane.services.conversation.facts.parser import ANAPHORIC
from memlane.services.conversation.notes import (
    CONSOLIDATED,
    CONTRADICTED,
    SUPERSEDED,
    ExistingChange,
    IngestionPlan,
    PlannedNote,
    merge_sources,
)
from memlane.services.opposition import opposition
from memlane.store.base import Vector

CONTRADICT_JACCARD, CONTRADICT_COSINE = 0.5, 0.85
DUPLICATE_JACCARD, DUPLICATE_COSINE = 0.9, 0.95
REPLACE_JACCARD, REPLACE_COSINE = 0.4, 0.85
MERGE_JACCARD, MERGE_COSINE = 0.7, 0.9
MAX_MERGED_CHARS = 600
#: how similar a note must be for "I switched to X" (no "from") to replace what it names
SWITCH_COSINE = 0.5
#: how similar a plan must be for "we scrapped it" to call it off when no word names it
ANAPHORA_COSINE = 0.3
#: how similar a note must be for a retyped value ("Typo earlier: it's 24 Elm Street") to correct it;
#: "Actually it was 2016" shares no word with the note, so a date needs less
RETYPE_COSINE, ANAPHORIC_RETYPE_COSINE = 0.3, 0.15


Neighbours = Callable[[Vector], Awaitable[list[tuple[Node, float]]]]
KeywordNeighbours = Callable[[str], Awaitable[list[tuple[Node, float]]]]
#: words a cancellation shares with nearly every plan; they alone do not pick the plan
_GENERIC_PLAN_WORDS = frozenset({"go", "going", "trip", "plan", "plans", "visit", "travel", "weekend", "next"})
#: a note that speaks of what is to come
_FUTURE = re.compile(
    r"\b(?:will|going to|plans? to|planning|next|expecting|signed up|booked|getting married|starting|"
    r"(?:are|is|am) (?:\w+ing) (?:on|in|this|next)|due (?:at|by|in|on|next|this))\b"
)
#: a sentence that says something planned is done: "the baby was born", "we got back from
#: the trip"; ``x`` is the thing, which the plan must name
_DONE = re.compile(
    r"\b(?:the|our|my) (?P<x>[a-z]+) (?:was|were|has been|have been|is|are) (?:born|done|over|finished|"
    r"completed|delivered|here|back|arrived|done and dusted)\b"
    r"|\b(?:i|we) (?:had|got back from|came back from|returned from|finished|completed|went on|did) "
    r"(?:the|our|my) (?P<y>[a-z]+)\b"
)


@dataclass(slots=True)
class Candidate:
    """A note a draft may conflict with: stored (``node``) or planned earlier in this request."""

    id: str
    content: str
    similarity: float
    node: Node | None = None
    planned: PlannedNote | None = None
    facts: list[tuple[int, fx.Fact]] = field(default_factory=list)

    @property
    def is_plan(self) -> bool:
        """Whether the note holds something planned or expected: what a cancellation can call
        off and a later message can report done."""
        category = self.planned.category if self.planned else (self.node.slots.get("category") if self.node else None)
        words = set(lang.words(self.content.lower()))
        return (
            category == "plan"
            or any(f.kind == fx.PLAN for _, f in self.facts)
            or bool(words & PLAN_WORDS)
            or bool(_FUTURE.search(self.content.lower()))
        )


@dataclass(slots=True)
class Verdict:
    operation: str
    status: str | None
    reason: str


@dataclass(slots=True)
class _Closing:
    """What a draft does to one candidate: its status, why, and which of its facts it ends."""

    candidate: Candidate
    status: str
    reason: str
    ended: set[int] = field(default_factory=set)
    corrected: tuple[str, str] | None = None


def judge(draft_text: str, candidate_text: str, cosine: float) -> Verdict | None:
    """The similarity rule that applies to one (draft, candidate) pair, or None when they are
    unrelated: what decides when neither side states a fact the parser can read."""
    a, b = lang.content_words(draft_text), lang.content_words(candidate_text)
    jac = lang.jaccard(a, b)
    polarity_differs = lang.is_negated(draft_text) != lang.is_negated(candidate_text)
    if polarity_differs and (jac >= CONTRADICT_JACCARD or cosine >= CONTRADICT_COSINE):
        return Verdict("DELETE", CONTRADICTED, f"contradicted by a newer statement (similarity {cosine:.2f})")
    if not polarity_differs and (cosine >= DUPLICATE_COSINE or jac >= DUPLICATE_JACCARD):
        return Verdict("SKIP", None, f"already known (similarity {cosine:.2f})")
    if lang.has_change_cue(draft_text) and (jac >= REPLACE_JACCARD or cosine >= REPLACE_COSINE):
        return Verdict("UPDATE", SUPERSEDED, f"replaced by newer information (similarity {cosine:.2f})")
    return _merge_verdict(polarity_differs, jac, cosine)


def _merge_verdict(polarity_differs: bool, jac: float, cosine: float) -> Verdict | None:
    if not polarity_differs and (cosine >= MERGE_COSINE or jac >= MERGE_JACCARD):
        return Verdict("UPDATE", CONSOLIDATED, f"consolidated into a newer note (similarity {cosine:.2f})")
    return None


def _mergeable(verdict: Verdict | None, draft_text: str, candidate_text: str) -> Verdict | None:
    """A skip or merge only between texts that say the same thing (services/opposition.py):
    "meets at 3pm" and "meets at 4pm" are close in meaning and different in fact."""
    if verdict is None or verdict.operation not in ("SKIP", "UPDATE") or verdict.status == SUPERSEDED:
        return verdict
    return verdict if opposition(draft_text, candidate_text) is None else None


def _cos(a: Vector, b: Vector) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 or nb == 0:
        return 0.0
    return float(np.dot(a, b) / (na * nb))


def draft_facts(draft: NoteDraft) -> list[tuple[int, fx.Fact]]:
    return fx.indexed(draft.facts)


@dataclass(slots=True)
class _Ledger:
    """The closings a draft makes, built up step by step, and which of its facts are repeats."""

    closings: dict[str, _Closing] = field(default_factory=dict)
    repeated: set[int] = field(default_factory=set)

    def close(self, cand: Candidate, status: str, reason: str, ended: Iterable[int]) -> _Closing:
        """Record that ``cand`` is closed; a later replacement outranks an earlier refutation."""
        c = self.closings.get(cand.id)
        if c is None:
            c = self.closings[cand.id] = _Closing(cand, status, reason)
        elif status == SUPERSEDED and c.status == CONTRADICTED:
            c.status, c.reason = status, reason  # a new value given: replaced, not only refuted
        c.ended.update(ended)
        return c


def _closings(draft: NoteDraft, candidates: list[Candidate]) -> tuple[list[_Closing], set[int]]:
    """Which candidates the draft's facts close, and which of its facts are already stored."""
    ledger = _Ledger()
    mine = draft_facts(draft)
    for k, (_, fact) in enumerate(mine):
        for cand in candidates:
            if _close_by_kind(ledger, fact, cand):
                continue
            _close_by_relation(ledger, k, fact, cand)
            _close_switched_from(ledger, fact, candidates)
    _close_retyped(ledger, draft, [f for _, f in mine], candidates)
    _close_spoken_plans(ledger, [f for _, f in mine], candidates)
    _close_fulfilled_plans(ledger, draft, candidates)
    return list(ledger.closings.values()), ledger.repeated


def _close_by_kind(ledger: _Ledger, fact: fx.Fact, cand: Candidate) -> bool:
    """A correction naming the old value, or a cancellation: what it closes of ``cand``. True
    when the fact is of a kind decided here or later (so it is not compared fact by fact)."""
    if fact.kind == fx.CORRECTION and not fact.old_value:
        return True  # a retyped value: which note it corrects is decided in _close_retyped
    if fact.kind == fx.CORRECTION:
        if _holds_word(cand.content, fact.old_value) and not _holds_word(cand.content, fact.value):
            c = ledger.close(cand, SUPERSEDED, f"corrected: {fact.value!r}, not {fact.old_value!r}", [])
            c.corrected = (fact.old_value, fact.value)
            c.ended.update(i for i, _ in cand.facts)
        return True
    if fact.relation == ANAPHORIC:
        return True  # "we scrapped it": which plan is decided in _close_spoken_plans
    if fact.kind == fx.CANCEL:
        # a plan called off, or what the person named stopped ("no longer going to Iron Works")
        if (cand.is_plan and _cancels(fact, cand)) or (fact.specific and fx.holds(cand.content, fact.value)):
            ledger.close(cand, CONTRADICTED, "called off by a newer message", (i for i, _ in cand.facts))
        return True
    return False


def _close_by_relation(ledger: _Ledger, k: int, fact: fx.Fact, cand: Candidate) -> None:
    """The draft's ``k``-th fact against each fact of ``cand``: a repeat, a contradiction or a
    replacement (facts.relate)."""
    for i, old in cand.facts:
        verdict = fx.relate(fact, old)
        if verdict == fx.REPEATS:
            ledger.repeated.add(k)
        elif verdict == fx.CONTRADICTS:
            ledger.close(cand, CONTRADICTED, f"contradicted by a newer statement ({fact.relation})", [i])
        elif verdict == fx.REPLACES:
            ledger.close(cand, SUPERSEDED, f"replaced by a newer value ({fact.relation})", [i])


def _close_switched_from(ledger: _Ledger, fact: fx.Fact, candidates: list[Candidate]) -> None:
    """ "I switched to oat milk" with nothing closed yet: the note of what was switched from."""
    if fact.relation == "switch" and not fact.old_value and not any(c for c in ledger.closings.values()):
        target = _switched_from(fact, candidates)
        if target is not None:
            ledger.close(target, SUPERSEDED, "replaced: switched to something else", (i for i, _ in target.facts))


def _close_retyped(ledger: _Ledger, draft: NoteDraft, facts: list[fx.Fact], candidates: list[Candidate]) -> None:
    """A correction with no "not X" ("Typo earlier: it's 24 Elm Street"): the note it retypes."""
    for fact in (f for f in facts if f.kind == fx.CORRECTION and not f.old_value):
        found = _retyped_note(draft, fact, candidates)
        if found is not None:
            cand, old_value, new_value = found
            reason = f"corrected: {new_value!r}, not {old_value!r}"
            c = ledger.close(cand, SUPERSEDED, reason, (i for i, _ in cand.facts))
            c.corrected = (old_value, new_value)


def _close_spoken_plans(ledger: _Ledger, facts: list[fx.Fact], candidates: list[Candidate]) -> None:
    """ "We scrapped it": the plan the conversation was speaking of is called off."""
    for fact in (f for f in facts if f.relation == ANAPHORIC):
        target = _spoken_plan(fact, candidates, ledger.closings)
        if target is not None:
            ledger.close(target, CONTRADICTED, "called off by a newer message", (i for i, _ in target.facts))


def _close_fulfilled_plans(ledger: _Ledger, draft: NoteDraft, candidates: list[Candidate]) -> None:
    """A plan still open that a sentence of the draft says took place is superseded by it."""
    plans = [c for c in candidates if c.node is not None and c.id not in ledger.closings]
    for sentence in lang.sentences(draft.content) if plans else []:
        for cand in plans:
            if _fulfils(sentence, cand):
                ledger.close(cand, SUPERSEDED, "the plan took place", (i for i, _ in cand.facts))


def _value_type(token: str) -> str:
    """The type a correction swaps within: a year, a number, a time, a weekday, a month, a name."""
    if re.fullmatch(r"(?:19|20)\d\d", token):
        return "year"
    if re.fullmatch(r"\d{1,2}(?::\d{2})?\s?(?:am|pm)", token):
        return "time"
    if re.fullmatch(r"\d+(?:st|nd|rd|th)?", token):
        return "number"
    if token in lang.WEEKDAYS:
        return "weekday"
    return "month" if token in lang.MONTHS else "name"


#: the words of a correction itself, which say nothing of what is corrected
_CORRECTION_WORDS = frozenset(
    {"sorry", "meant", "mean", "actually", "typo", "earlier", "wrong", "oops", "correction", "mistake", "digits",
     "wait", "said", "misspoke", "bad", "small"}
)  # fmt: skip


def _retyped_note(draft: NoteDraft, fact: fx.Fact, candidates: list[Candidate]) -> tuple[Candidate, str, str] | None:
    """The note a correction with no "not X" corrects, and the value it swaps: the most similar
    note that holds a value of the same type the message does not say, and that shares the
    message's other words ("Typo earlier: it's 24 Elm Street" against "42 Elm Street"), or that
    the message points to with "it" or nothing else ("Actually it was 2016", "Sorry, I meant
    Jenna"). A name swaps only for a name of the same beginning (Jen, Jenna)."""
    said = set(fact.value.split())
    text = normalise(draft.content)
    context = set(lang.content_words(re.sub(r"\d+", " ", text)))
    speaker = {"user", *lang.content_words(draft.subject_name or "")}
    bare = not (context - said - _CORRECTION_WORDS - speaker)
    anaphoric = bare or re.search(r"\b(?:it|that) (?:is|was|will be|should be)\b", text) is not None
    found: list[tuple[Candidate, str, str]] = []
    floor = 0.0 if bare else ANAPHORIC_RETYPE_COSINE  # a bare correction: any of the nearest notes
    for cand in (c for c in candidates if c.node is not None and c.similarity >= floor):
        held = normalise(cand.content)
        shared = context & set(lang.content_words(re.sub(r"\d+", " ", held)))
        by_context = len(shared - said) >= 2 and cand.similarity >= RETYPE_COSINE
        if not (by_context or anaphoric):
            continue
        olds = [t for t in re.findall(r"[a-z0-9:]+(?:\s?(?:am|pm))?", held) if t not in said]
        names = [w.lower() for w in re.findall(r"(?<=\s)[A-Z][a-z]{2,}", cand.content) if w.lower() not in said]
        for new in said:
            kind = _value_type(new)
            if not by_context and kind == "number":
                continue  # "it was 2 weeks ago" names no value of the note
            if not (by_context or bare) and cand.similarity < RETYPE_COSINE and kind != "year":
                continue
            if kind == "name":
                old = next((w for w in names if w[:3] == new[:3] and w != new), None)
            else:
                old = next((t for t in olds if _typed(t) and _value_type(t) == kind), None)
            if old is not None and not _holds_word(cand.content, new):
                if not bare:
                    return cand, old, new
                found.append((cand, old, new))
                break
    # "Sorry, I meant Thursday" alone speaks of the last thing said with such a value
    return max(found, key=lambda f: _said_at(f[0])) if found else None


def _said_at(cand: Candidate) -> float:
    node = cand.node
    when = node and (node.valid_at or node.created_at)
    return when.timestamp() if when else 0.0


_TYPED_TOKEN = re.compile(r"\d+(?:st|nd|rd|th)?|\d{1,2}(?::\d{2})?\s?(?:am|pm)")


def _typed(token: str) -> bool:
    return bool(_TYPED_TOKEN.fullmatch(token)) or token in lang.WEEKDAYS or token in lang.MONTHS


def _spoken_plan(fact: fx.Fact, candidates: list[Candidate], closings: dict[str, _Closing]) -> Candidate | None:
    """The plan "it" calls off ("they scrapped it"): the one the clause's words name, else the
    most similar stored plan stated as one (a future cue), if it is similar enough."""
    plans = [c for c in candidates if c.node is not None and c.id not in closings and c.is_plan]
    named = [c for c in plans if fact.value and _cancels(replace(fact, relation="cancel"), c)]
    if named:
        return named[0]
    for cand in plans:
        if cand.similarity >= ANAPHORA_COSINE and _FUTURE.search(cand.content.lower()):
            return cand
    return None


def _holds_word(text: str, phrase: str) -> bool:
    return bool(phrase) and re.search(rf"(?<![\w'-]){re.escape(phrase)}(?![\w'-])", normalise(text)) is not None


def _cancels(fact: fx.Fact, cand: Candidate) -> bool:
    """The cancelled thing is the plan's: a specific word in common ("japan"), or the
    cancelled event under another name ("the wedding is off" / "getting married")."""
    said = set(fact.value.split())
    held = set(lang.content_words(cand.content))
    specific = said - _GENERIC_PLAN_WORDS
    if not specific:
        return bool(said & held)
    if specific & held:
        return True
    return all(set(CANCEL_SYNONYMS.get(w, ())) & held for w in specific)


def _fulfils(sentence: str, cand: Candidate) -> bool:
    """A sentence that says the thing a plan named is done ("since the baby was born" after
    "we're expecting our first baby in April"). Only a plan stated as one (a future cue), and
    only the thing the sentence says is done: a past tense alone that shares a word with a
    plan proves nothing (on LoCoMo it closed 15 of 100 notes wrongly)."""
    m = _DONE.search(normalise(sentence))
    if m is None or not _FUTURE.search(cand.content.lower()):
        return False
    thing = lang.content_words(m.group("x") or m.group("y") or "")
    return bool(thing) and thing[0] in set(lang.content_words(cand.content))


#: relations that name a thing a person uses, which "I switched to X" replaces (keys of facts.stem)
_SWITCHABLE = ("do:us", "do:drink", "do:eat", "do:play", "do:driv", "vehicle", "do:prefer", "like", "do:read",
               "do:watch", "do:listen to", "switch", "do:tak", "do:run")  # fmt: skip


def _switched_from(fact: fx.Fact, candidates: list[Candidate]) -> Candidate | None:
    """ "I switched to Neovim", with no "from": the most similar note of the same person that
    names a thing they use, and not the new one."""
    for cand in sorted(candidates, key=lambda c: -c.similarity):
        if cand.similarity < SWITCH_COSINE:
            break
        for _, old in cand.facts:
            if (
                fx.same_subject(old.subject, fact.subject)
                and not old.negated
                and old.relation.startswith(_SWITCHABLE)
                and not fx.same_value(old.value, fact.value)
            ):
                return cand
    return None


def _is_skip(
    draft: NoteDraft, mine: list[tuple[int, fx.Fact]], repeated: set[int], candidates: list[Candidate]
) -> Candidate | None:
    """The stored note a draft only repeats: every fact already there, and no other word."""
    if not mine or len(repeated) < len(mine):
        return None
    words = set(lang.content_words(draft.content))
    known: set[str] = set()
    best: Candidate | None = None
    for cand in candidates:
        if any(fx.relate(f, old) == fx.REPEATS for _, f in mine for _, old in cand.facts):
            known |= set(lang.content_words(cand.content))
            best = best or cand
    extra = {w for w in words - known if not w.isdigit()}
    return best if best is not None and not extra else None


async def resolve_offline(
    drafts: list[NoteDraft],
    vectors: list[Vector],
    neighbours: Neighbours,
    *,
    ids: list[str],
    client_ids: list[str],
    memory_kind: str,
    keyword_neighbours: KeywordNeighbours | None = None,
    speaker_keys: Iterable[str] = (),
    succession_cosine: float | None = None,
    word_vectors: word_meaning.WordVectors | None = None,
) -> IngestionPlan:
    """Plan the request's notes: which drafts become notes and what happens to older ones."""
    keys = tuple(speaker_keys)
    plan = IngestionPlan(pipeline="offline", memory_kind=memory_kind)
    changes: dict[str, ExistingChange] = {}
    planned_vectors: list[tuple[PlannedNote, Vector]] = []
    for i, (draft, vec) in enumerate(zip(drafts, vectors, strict=True)):
        found = await neighbours(vec)
        if keyword_neighbours is not None:
            for query in _keyword_queries(draft):
                found += await keyword_neighbours(query)
        candidates = _candidates(found, changes, keys)
        candidates += [
            Candidate(p.id, p.content, _cos(vec, pv), planned=p, facts=fx.indexed(p.extra.get("facts")))
            for p, pv in planned_vectors
            if p.status == "active"
        ]
        candidates.sort(key=lambda c: -c.similarity)
        note = _note(draft, ids[i], client_ids[i], "CREATE")
        closings, repeated = _closings(draft, [c for c in candidates if _may_change(draft, c)])
        if closings:
            _apply_closings(note, draft, closings, changes)
        else:
            verdict, target = _similarity_verdict(draft, candidates)
            if verdict is not None and target is not None and verdict.operation == "SKIP":
                _skip_into(target, draft, changes)
                continue
            skip = _is_skip(draft, draft_facts(draft), repeated, candidates)
            if skip is not None:
                _skip_into(skip, draft, changes)
                continue
            succeeded = await _succeeded_by_meaning(draft, candidates, succession_cosine, word_vectors)
            if succeeded is not None:
                _apply_closings(note, draft, [succeeded], changes)
            elif verdict is not None and target is not None:
                note.operation = verdict.operation
                _close(target, note, verdict.status or CONSOLIDATED, verdict.reason, changes)
                if verdict.status == CONSOLIDATED:
                    _merge_into(note, target)
        plan.notes.append(note)
        planned_vectors.append((note, vec))
    plan.changes = list(changes.values())
    return plan


async def _succeeded_by_meaning(
    draft: NoteDraft, candidates: list[Candidate], threshold: float | None, words: word_meaning.WordVectors | None
) -> _Closing | None:
    """:func:`_succeeded`, its topic test comparing words by meaning (word_meaning.py) when
    ``words`` is given: run on the cached word vectors first; when that closes nothing and the
    test missed some words' vectors, those are embedded in one batch and the rule runs again."""
    if words is None or threshold is None:
        return _succeeded(draft, candidates, threshold)
    with word_meaning.looking_up(words) as lookup:
        found = _succeeded(draft, candidates, threshold)
    if found is not None or not lookup.missing:
        return found
    await words.learn(lookup.missing)
    with word_meaning.looking_up(words):
        return _succeeded(draft, candidates, threshold)


def _succeeded(draft: NoteDraft, candidates: list[Candidate], threshold: float | None) -> _Closing | None:
    """The closing of the earlier note a draft that says a change succeeds, when no fact rule
    recognised the change (succession.py); None when the rule is off (``threshold`` None)."""
    if threshold is None:
        return None
    earlier = [
        succession.stored(c.content, c.similarity, c.node)
        if c.node is not None
        else succession.planned(c.content, c.similarity, c.planned.sources if c.planned else [])
        for c in candidates
    ]
    found = succession.succeeded(draft.content, draft.sources, earlier, threshold=threshold)
    if found is None:
        found = succession.succeeded_by_state(draft.content, draft.sources, earlier)
    if found is None:
        return None
    cand = candidates[found.index]
    return _Closing(cand, SUPERSEDED, f"succeeded by a newer statement ({found.why})", set(found.ended))


def _keyword_queries(draft: NoteDraft) -> list[str]:
    """Corrections and cancellations name a word of the note they change, which may not be
    among the nearest by meaning ("sorry, it's Jenna, not Jen")."""
    out = []
    for _, f in draft_facts(draft):
        if f.kind == fx.CORRECTION and f.old_value:
            out.append(f.old_value)
        elif f.kind == fx.CANCEL:
            out.append(f.value)
    return out


def _candidates(
    found: list[tuple[Node, float]], changes: dict[str, ExistingChange], keys: tuple[str, ...]
) -> list[Candidate]:
    out: dict[str, Candidate] = {}
    for node, sim in found:
        if node.id in out or (node.id in changes and changes[node.id].operation != "SKIP"):
            continue
        text = node.text_summary or node.title or ""
        out[node.id] = Candidate(node.id, text, sim, node=node, facts=fx.facts_of_note(node.slots, text, keys))
    return list(out.values())


def _similarity_verdict(draft: NoteDraft, candidates: list[Candidate]) -> tuple[Verdict | None, Candidate | None]:
    """The first similarity rule that applies, most similar candidate first. Where both sides
    state facts (and none related), only a merge or a skip may apply. A note that opens with
    another person than the draft ("my brother works at Tesco", "my sister doesn't work at
    Tesco anymore": topic_change.same_subject) is neither replaced, merged nor repeated."""
    mine = bool(draft.facts)
    for cand in candidates:
        if not topic_change.same_subject(cand.content, draft.content):
            continue
        if mine and cand.facts:
            a, b = lang.content_words(draft.content), lang.content_words(cand.content)
            polarity = lang.is_negated(draft.content) != lang.is_negated(cand.content)
            verdict = _merge_verdict(polarity, lang.jaccard(a, b), cand.similarity)
        else:
            verdict = judge(draft.content, cand.content, cand.similarity)
        verdict = _mergeable(verdict, draft.content, cand.content)
        if verdict is not None:
            return verdict, cand
    return None, None


def _apply_closings(
    note: PlannedNote, draft: NoteDraft, closings: list[_Closing], changes: dict[str, ExistingChange]
) -> None:
    note.operation = "DELETE" if all(c.status == CONTRADICTED for c in closings) else "UPDATE"
    corrected = [c for c in closings if c.corrected is not None]
    mine = draft_facts(draft)
    if corrected and all(f.kind == fx.CORRECTION for _, f in mine):
        # "Sorry, it's Jenna, not Jen" says nothing alone: the note is the corrected note
        texts = [_corrected(c.candidate.content, *c.corrected) for c in corrected if c.corrected]
        note.content = " ".join(dict.fromkeys(texts))[: MAX_MERGED_CHARS * 2]
        note.extra["facts"] = [
            {**f.to_slot(), "i": i} for c in corrected for i, f in c.candidate.facts
        ]  # fmt: skip
        for c in corrected:
            note.sources = merge_sources(_sources_of(c.candidate), note.sources)
    elif corrected:
        # "Actually it was 2016, and we're expecting a baby": the corrected note still holds
        # beside what else the message says
        for c in corrected:
            _carry_corrected(note, c)
    for c in closings:
        _close(c.candidate, note, c.status, c.reason, changes)
        if c.corrected is None:
            _carry_rest(note, c)


def _carry_corrected(note: PlannedNote, closing: _Closing) -> None:
    if closing.corrected is None:
        return
    text = _corrected(closing.candidate.content, *closing.corrected)
    merged = f"{note.content.rstrip()} {text}"
    if _holds_sentence(note.content, text) or len(merged) > MAX_MERGED_CHARS * 2:
        return
    offset = len(lang.sentences(note.content))
    note.content = merged
    facts = list(note.extra.get("facts") or [])
    facts += [{**f.to_slot(), "i": offset + i} for i, f in closing.candidate.facts]
    note.extra["facts"] = facts
    note.sources = merge_sources(note.sources, _sources_of(closing.candidate))


def _carry_rest(note: PlannedNote, closing: _Closing) -> None:
    """The sentences of a closed note that still hold (a fact the new note neither ends nor
    repeats) move into the new note, so closing one fact never loses another."""
    cand = closing.candidate
    sentences = lang.sentences(cand.content)
    keep = sorted(
        {i for i, f in cand.facts if i not in closing.ended and f.kind not in (fx.CANCEL, fx.CORRECTION)}
        - closing.ended
    )
    kept = [sentences[i] for i in keep if i < len(sentences) and not _holds_sentence(note.content, sentences[i])]
    if not kept:
        return
    merged = " ".join([note.content.rstrip(), *kept])
    if len(merged) > MAX_MERGED_CHARS * 2:
        return
    offset = len(lang.sentences(note.content))
    note.content = merged
    facts = list(note.extra.get("facts") or [])
    for j, i in enumerate(k for k in keep if k < len(sentences) and sentences[k] in kept):
        facts += [{**f.to_slot(), "i": offset + j} for k, f in cand.facts if k == i]
    note.extra["facts"] = facts
    note.sources = merge_sources(note.sources, _sources_of(cand))


def _holds_sentence(text: str, sentence: str) -> bool:
    return normalise(sentence).strip(" .!") in normalise(text)


def _corrected(text: str, old: str, new: str) -> str:
    """``text`` with the word a correction names replaced by the words that differ ("the flat
    is at 24 Baker Lane, not 42" turns "42 Baker Lane" into "24 Baker Lane"); a capitalised
    word (a name) stays capitalised."""
    held = set(normalise(text).split())
    words = new.split()
    while len(words) > 1 and words[-1] in held:
        words.pop()
    while len(words) > 1 and words[0] in held:
        words.pop(0)
    replacement = " ".join(words)

    def swap(m: re.Match[str]) -> str:
        return replacement.title() if m.group(0)[:1].isupper() else replacement

    return re.sub(rf"(?<![\w'-]){re.escape(old)}(?![\w'-])", swap, text, count=1, flags=re.IGNORECASE)


def _may_change(draft: NoteDraft, cand: Candidate) -> bool:
    """Whether the draft's facts may close ``cand``: said by the same speaker, or by another
    one in the chat about ``cand``'s speaker by name (succession.same_speaker): "I quit the
    dance studio" said by Gina never ends Jon's "I go to the dance studio"."""
    return succession.same_speaker(_sources_of(cand), draft.sources, draft.content)


def _sources_of(c: Candidate) -> list[dict[str, object]]:
    if c.planned is not None:
        return list(c.planned.sources)
    if c.node is not None:
        raw = c.node.slots.get("source_messages")
        return [s for s in raw if isinstance(s, dict)] if isinstance(raw, list) else []
    return []


def _close(target: Candidate, note: PlannedNote, status: str, reason: str, changes: dict[str, ExistingChange]) -> None:
    """Link ``target`` to ``note`` in the evolution chain and close it with ``status``."""
    if target.id not in note.targets:
        note.targets.append(target.id)
    if target.planned is not None:
        target.planned.status = status
        target.planned.status_reason = reason
        target.planned.next_id = note.id
        return
    earlier = changes.get(target.id)  # a SKIP earlier in this request keeps its evidence
    changes[target.id] = ExistingChange(
        id=target.id, operation="DELETE" if status == CONTRADICTED else "UPDATE", reason=reason, status=status,
        next_id=note.id, add_sources=earlier.add_sources if earlier else [],
        add_keywords=earlier.add_keywords if earlier else [],
    )  # fmt: skip


def _merge_into(note: PlannedNote, target: Candidate) -> None:
    """A consolidation: the new note carries both notes' evidence, and both texts unless the
    new one already says nearly all of the old."""
    note.sources = merge_sources(_sources_of(target), note.sources)
    note.keywords = list(dict.fromkeys(note.keywords + _keywords_of(target)))[:12]
    if lang.jaccard(lang.content_words(target.content), lang.content_words(note.content)) < 0.8:
        merged = f"{target.content.rstrip()} {note.content}"
        if len(merged) <= MAX_MERGED_CHARS:
            offset = len(lang.sentences(target.content))
            old_facts = [{**f.to_slot(), "i": i} for i, f in target.facts]
            new_facts = [{**d, "i": int(d.get("i", 0)) + offset} for d in note.extra.get("facts") or []]
            note.content = merged
            note.extra["facts"] = old_facts + new_facts


def _keywords_of(c: Candidate) -> list[str]:
    if c.planned is not None:
        return c.planned.keywords
    if c.node is not None:
        kws = c.node.slots.get("keywords")
        return [str(k) for k in kws] if isinstance(kws, list) else []
    return []


def _skip_into(target: Candidate, draft: NoteDraft, changes: dict[str, ExistingChange]) -> None:
    """A duplicate adds its evidence to the note it repeats instead of becoming a note."""
    if target.planned is not None:
        target.planned.sources = merge_sources(target.planned.sources, draft.sources)
        return
    change = changes.get(target.id)
    if change is None:
        change = changes[target.id] = ExistingChange(
            id=target.id, operation="SKIP", reason="repeated by a newer message"
        )
    change.add_sources = merge_sources(change.add_sources, draft.sources)
    change.add_keywords = list(dict.fromkeys(change.add_keywords + draft.keywords))


def _note(draft: NoteDraft, note_id: str, client_id: str, operation: str) -> PlannedNote:
    note = PlannedNote(
        id=note_id,
        client_id=client_id,
        content=draft.content,
        category=draft.category,
        importance=draft.importance,
        keywords=list(draft.keywords),
        entities=list(draft.entities),
        tags=[draft.category],
        sources=list(draft.sources),
        event_date=draft.event_date,
        operation=operation,
    )
    if draft.facts:
        note.extra["facts"] = [dict(d) for d in draft.facts]
    if draft.subject_name:
        note.extra["subject_name"] = draft.subject_name
    return note
