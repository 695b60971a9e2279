"""A question turned into the statement that would answer it, for the dense search.

A memory states ("Alice climbed Mount Rainier"); a question asks ("What did Alice climb?").
Embedded as asked, the question's wh-word and inverted auxiliary pull its vector toward other
questions; the statement it expects sits nearer the memory that answers it. The rewrite is
deterministic and model-free: the wh-word (and what it asks about, "which book") and the
inverted auxiliary are dropped, the subject goes first, and a ``do``-auxiliary's tense moves onto
the verb ("did ... climb" -> "climbed"). It is a heuristic for English questions; anything it
does not recognise it leaves alone (``None``), and recall then embeds the question as asked.
Measured on LoCoMo in BENCHMARKS.md ("Query rewriting and dense pseudo-relevance feedback").
"""

from __future__ import annotations

WH_WORDS = frozenset({"what", "when", "where", "who", "whom", "whose", "which", "why", "how"})
#: words after "how" that belong to the wh-phrase ("how many", "how long")
_HOW_MODIFIERS = frozenset({"many", "much", "long", "often", "old", "far", "big", "soon"})
DO_AUXILIARIES = frozenset({"do", "does", "did"})
COPULAS = frozenset({"is", "are", "was", "were"})
AUXILIARIES = DO_AUXILIARIES | frozenset(
    {"is", "are", "was", "were", "has", "have", "had", "will", "would", "can", "could", "should", "might", "may"}
)
_IRREGULAR_PAST = {
    "be": "was", "become": "became", "begin": "began", "bring": "brought", "build": "built", "buy": "bought",
    "catch": "caught", "choose": "chose", "come": "came", "do": "did", "draw": "drew", "drink": "drank",
    "drive": "drove", "eat": "ate", "feel": "felt", "find": "found", "fly": "flew", "get": "got", "give": "gave",
    "go": "went", "grow": "grew", "have": "had", "hear": "heard", "hold": "held", "keep": "kept", "know": "knew",
    "learn": "learned", "leave": "left", "lose": "lost", "make": "made", "meet": "met", "pay": "paid", "put": "put",
    "read": "read", "ride": "rode", "run": "ran", "say": "said", "see": "saw", "sell": "sold", "send": "sent",
    "sing": "sang", "sit": "sat", "speak": "spoke", "spend": "spent", "swim": "swam", "take": "took",
    "teach": "taught", "tell": "told", "think": "thought", "throw": "threw", "understand": "understood",
    "wear": "wore", "win": "won", "write": "wrote",
}  # fmt: skip
_POSSESSIVE = ("'s", "\u2019s")
_PRONOUNS = frozenset({"i", "you", "he", "she", "it", "we", "they"})


def past_tense(verb: str) -> str:
    """``climb`` -> ``climbed``, ``go`` -> ``went``, ``try`` -> ``tried``, ``bake`` -> ``baked``."""
    low = verb.lower()
    if low in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[low]
    if low.endswith("e"):
        return verb + "d"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ied"
    return verb + "ed"


def third_person(verb: str) -> str:
    """``climb`` -> ``climbs``, ``do`` -> ``does``, ``watch`` -> ``watches``, ``try`` -> ``tries``."""
    low = verb.lower()
    if low in {"do", "go"}:
        return verb + "es"
    if low == "have":
        return "has"
    if low.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _subject_end(words: list[str], start: int) -> int:
    """Where the subject starting at ``start`` ends: a pronoun alone, else a name of capitalised
    words and possessives ("Caroline's identity", "Mary Ann", "her brother")."""
    end = start + 1
    if words[start].lower() in _PRONOUNS:
        return end
    if words[start].lower() in {"her", "his", "their", "the", "my", "your", "our"} and end < len(words):
        return end + 1
    while end < len(words) and (words[end - 1].endswith(_POSSESSIVE) or words[end][:1].isupper()):
        end += 1
    if end + 1 < len(words) and words[end].lower() == "and":
        return _subject_end(words, end + 1)
    return end


def _inflect(aux: str, verb: str, plural: bool) -> str:
    if aux == "did":
        return past_tense(verb)
    if aux == "does" and not plural:
        return third_person(verb)
    return verb


def statement(question: str) -> str | None:
    """The statement that would answer ``question``, or ``None`` when it is not a question this
    recognises (no wh-word or leading auxiliary, or nothing would be left)."""
    words = question.strip().rstrip("?.! ").split()
    if len(words) < 2:
        return None
    i = 0
    asked: list[str] = []  # what the wh-phrase names ("which book" -> "book"), said after the verb
    if words[0].lower() in WH_WORDS:
        i = 1
        if words[0].lower() == "how" and words[1].lower() in _HOW_MODIFIERS:
            i = 2
        while i < len(words) and words[i].lower() not in AUXILIARIES:
            asked.append(words[i])
            i += 1
        if i >= len(words):
            # the wh-word was the subject ("Who painted the sunrise") or there is no auxiliary
            return " ".join(asked) if asked and words[0].lower() in {"who", "what", "which"} else None
    aux = words[i].lower()
    if aux not in AUXILIARIES or i + 1 >= len(words):
        return None
    start = i + 1
    end = _subject_end(words, start)
    subject, rest = words[start:end], words[end:]
    if aux in COPULAS and subject[0].endswith(_POSSESSIVE):
        # "What is Caroline's relationship status" asks what the whole phrase is
        return " ".join([*words[start:], aux, *asked])
    if aux in DO_AUXILIARIES:
        if not rest:
            return None
        plural = subject[-1].lower() in {"they", "we", "you", "i"} or "and" in subject
        return " ".join([*subject, _inflect(aux, rest[0], plural), *rest[1:], *asked])
    return " ".join([*subject, aux, *rest, *asked])
