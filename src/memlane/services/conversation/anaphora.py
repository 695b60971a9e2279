"""What a change is about when it does not say: "A: How's the bell ringing going? / U: Packed it
in, my back couldn't take it" ends the bell ringing, though the person never names it.

A note that keeps only the words said ("the user packed it in") is found by no question about
bell ringing, and no closing rule can see that it ends the older note. So a sentence that says
an ending, a negation or a correction of something it does not name, by a pronoun object ("gave
it up", "I bailed on it", "knocked that on the head"), a pronoun subject ("It fell through") or no
object at all ("Not these days, ...", "Never happened, ...", "Didn't renew"), takes its topic from
the nearest earlier turn of the same request that gives one: the question asked just before
("How's the commute with Petra?", "Still doing the night shifts?") or the person's own earlier
sentence ("The allotment was too much. Gave it up in the end."). The topic is written into the
sentence where the pronoun stood ("Harriet packed in the bell ringing, ...") or, with no object
to replace, beside the words that said the change ("Not these days (about night shifts), ...").

Deliberately narrow: the endings are a closed class of English, the topic is a noun phrase led
by a determiner or asked about in a question of a known shape, and a greeting, a question that
itself points back ("Shall I add it to the calendar?") or a question about the person ("How are
you?") lends no topic. Only the messages of the same request are read: memlane keeps no recent
context per user besides the user's name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memlane.services.conversation import language as lang

#: how many earlier messages of the request are read for a topic (greetings and thanks skipped)
LOOKBACK = 3

# --- sentences that end something they do not name ------------------------------------------

#: verbs that end, drop or refuse something, with what they need after their object to mean it
#: ("packed it in", "gave it up", "called it off", "knocked that on the head"); the others end
#: it alone ("quit it", "scrapped it", "bailed on it", "sold them", "didn't renew it")
_PHRASAL_ENDINGS = (
    r"(?P<pv>pack(?:ed|s|ing)?|jack(?:ed|s|ing)?|chuck(?:ed|s|ing)?)\s+(?P<po>it|that|them|those|this)\s+(?P<pp>in)"
    r"|(?P<gv>g[ai]ve|giv(?:en|es|ing))\s+(?P<go>it|that|them|those|this)\s+(?P<gp>up)"
    r"|(?P<cv>call(?:ed|s|ing)?)\s+(?P<co>it|that|this)\s+(?P<cp>off)"
    r"|(?P<kv>knock(?:ed|s|ing)?)\s+(?P<ko>it|that|this)\s+(?P<kp>on the head)"
)
_PLAIN_ENDINGS = (
    r"(?P<v>quit|stopp(?:ed|ing)|dropp(?:ed|ing)|ditch(?:ed|ing)|scrapp(?:ed|ing)|binn(?:ed|ing)|"
    r"cancel(?:l?ed|ling)|bail(?:ed)? on|pull(?:ed)? out of|back(?:ed)? out of|sold|got rid of|"
    r"finished with|done with|moved on from|walked away from|"
    r"(?:didn['\u2019]t|did not|won['\u2019]t|not)\s+renew(?:ed|ing)?)"
)
_OBJECT = re.compile(
    rf"\b(?:{_PHRASAL_ENDINGS})\b(?!\s+(?:to|for|from|with)\b)"
    rf"|\b{_PLAIN_ENDINGS}\s+(?P<o>it|that|them|those|this)\b(?!\s+(?:to|for|from|with|off|back|up|down|out|in|into|on)\b)",
    re.IGNORECASE,
)
#: "It fell through", "That's off", "it never happened", "It isn't happening": a pronoun whose
#: state is an ending
_SUBJECT = re.compile(
    r"^(?P<s>It|That)(?P<be>['\u2019]s|\s+(?:is|was|has been|got))?\s+"
    r"(?P<end>fell through|never happened|(?:off|over|cancell?ed|scrapped|not happening|done|finished)\b)"
    r"|^(?P<s2>It|That)\s+(?P<neg>(?:is|was|wo)n['\u2019]t(?: be)?|(?:is|was|will) not(?: be)?)\s+"
    r"(?P<end2>happening|going ahead)\b",
)
#: a leading answer word that stands before the sentence proper ("No, ...", "Sadly, ...")
_ANSWER = re.compile(r"^(?:no|nope|nah|yes|yeah|yep|sadly|well|oh|honestly|afraid not|not really)\b[,.!]?\s+", re.I)
#: a first clause that says an ending and names nothing: "Not these days", "Never happened"
_BARE = re.compile(
    r"^(?:not (?:these days|any ?more|any longer|nowadays|now|since \w+)|no (?:longer|more)|never happened|"
    r"not happening|packed (?:in|up)|gave (?:up|in)|given up|quit|stopped|didn['\u2019]t renew|done with|"
    r"finished|all over|over now|off now)$",
    re.IGNORECASE,
)
#: verbs a subjectless sentence may begin with that end something ("Packed it in", "Gave them up")
_LEADING_VERB = re.compile(
    r"^(?:packed|jacked|chucked|gave|quit|stopped|dropped|ditched|scrapped|binned|cancell?ed|called|knocked|"
    r"sold|bailed|pulled|backed)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Gap:
    """Where a sentence leaves out what it ends: ``kind`` is ``object`` (a pronoun object),
    ``subject`` (a pronoun subject) or ``missing`` (no object: the topic goes after the clause
    that ends at ``end``); ``start``/``end`` is the span to replace, ``particle`` what stays."""

    kind: str
    start: int
    end: int
    particle: str = ""


def gap_of(sentence: str) -> Gap | None:
    """Where ``sentence`` says an ending of something it does not name, or None."""
    m = _OBJECT.search(sentence)
    if m is not None:
        for obj, part in (("po", "pp"), ("go", "gp"), ("co", "cp"), ("ko", "kp"), ("o", "")):
            if m.group(obj):
                particle = m.group(part) if part else ""
                end = m.end(part) if part and particle.lower() != "on the head" else m.end(obj)
                return Gap("object", m.start(obj), end, particle if particle.lower() != "on the head" else "")
    answer = _ANSWER.match(sentence)
    rest_at = answer.end() if answer else 0
    rest = sentence[rest_at:]
    s = _SUBJECT.match(rest)
    if s is not None and s.group("s2"):
        return Gap("subject", rest_at + s.start("s2"), rest_at + s.end("s2"))
    if s is not None:
        be = s.group("be")
        end = rest_at + (s.end("be") if be else s.end("s"))
        verb = "" if not be else (" is" if be[:1] in "'\u2019" else be)
        return Gap("subject", rest_at + s.start("s"), end, verb)
    clause = re.split(r"\s*[,;:\u2013\u2014]\s*|\s+-\s+|[.!]\s*$", rest.strip(), maxsplit=1)[0].strip()
    if clause and _BARE.match(clause):
        return Gap("missing", rest_at, rest_at + rest.index(clause) + len(clause))
    return None


# --- what an earlier turn is about ----------------------------------------------------------

_DET = r"(?:the|your|my|his|her|their|our|that|those|these|this)"
_DETERMINERS = lang.wordset("the your my his her their our that those these this")
_PRONOUNS = lang.wordset("it that this them those they i me you we us he she him her")
#: words a topic never consists of alone: times, the person, life in general
_NOT_TOPICS = lang.wordset(
    """day days week weeks weekend morning evening night tonight today life things everything anything stuff time
    you it that lot bit plans plan news family kids everyone going doing holding feeling sleeping"""
)
#: words that end a topic: the rest of the question, not its object
_TOPIC_STOP = re.compile(
    r"\s+(?:going|go|coming along|coming on|getting on|treating you|working out|doing|holding up|shaping up|"
    r"these days|at the moment|lately|recently|now|yet|still|then|today|this week|any more|anymore|"
    r"or not|by the way)\b.*$",
    re.IGNORECASE,
)
_QUESTION_TOPIC = [
    re.compile(r"^(?:and |so )?(?:how|when)(?:['\u2019]s| is| was| are| were| did| does| do)\s+(?P<np>.+)$", re.I),
    re.compile(
        r"^(?:and |so )?(?:are you |you )?still\s+(?:doing |on |at |with |going to |playing |in |having )?(?P<np>.+)$",
        re.I,
    ),
    re.compile(
        r"^(?:any news (?:on|about)|what about|how about|what happened (?:to|with)|ready for|coming to|"
        r"any luck with|still up for|how did you get on with)\s+(?P<np>.+)$",
        re.I,
    ),
]
#: a noun phrase led by a determiner, with one phrase after it ("the commute with Petra", "the
#: big project at work"); a determiner is what tells a noun phrase from a clause without a tagger
_NOUN_PHRASE = re.compile(
    rf"\b{_DET}\s+(?:[A-Za-z][\w'\u2019-]*\s+){{0,3}}[A-Za-z][\w'\u2019-]*"
    rf"(?:\s+(?:with|at|of|for|in)\s+(?:{_DET}\s+)?[A-Za-z][\w'\u2019-]*)?",
    re.IGNORECASE,
)
#: words after which a determiner's phrase has ended (a verb, a preposition starting a clause)
_PHRASE_END = re.compile(
    r"\s+(?:is|are|was|were|has|have|had|will|would|can|could|going|go|went|got|get|do|does|did|to|and|or|but|so|"
    r"if|when|that|which|who|because|yet|still|now|today|again|too|on|from|into|about|after|before|by|over|"
    r"tomorrow|tonight|this|next|last)\b.*$",
    re.IGNORECASE,
)
#: a greeting or a question about the person, which gives nothing to be about
_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|morning|evening|good (?:morning|afternoon|evening)|long time|how are (?:you|things)|"
    r"how(?:['\u2019]s| is) (?:it going|life|everything|things|you)|what['\u2019]s up|you ok|all good)\b",
    re.IGNORECASE,
)
#: how an adjective ends ("Still miserable at work?" asks about a mood, not a thing)
_ADJECTIVE_ENDINGS = ("able", "ible", "ful", "ous", "less")


def _clean(phrase: str, *, other_speaker: bool) -> str | None:
    """A topic from the words a pattern caught, or None when they are not a noun phrase."""
    np = _TOPIC_STOP.sub("", phrase.strip(" ?!.,;:")).strip(" ?!.,;:")
    np = _PHRASE_END.sub("", np).strip()
    ws = lang.words(np.lower())
    if not ws or len(ws) > 6 or any(w in _PRONOUNS for w in ws):
        return None
    if other_speaker and any(w in ("my", "our", "mine", "i'm", "i've") for w in ws):
        return None  # the asker's own things: not what the person ended
    topical = [w for w in lang.content_words(np) if w not in _NOT_TOPICS]
    head = next((w for w in ws if w not in _DETERMINERS), "")
    led = ws[0] in _DETERMINERS
    if not topical or head in lang.FILLER or (not led and head.endswith(_ADJECTIVE_ENDINGS)):
        return None
    if led:
        np = np[: len(ws[0])].lower() + np[len(ws[0]) :]  # "The allotment" begins a sentence, not a topic
    if other_speaker:
        # "your bell ringing" said to the person is their bell ringing: "the" reads best in the
        # person's sentence; "your mum's flat" stays theirs
        np = re.sub(r"\byour\b(?=\s+\w+['\u2019]s\b)", "my", np, flags=re.I)
        np = re.sub(r"\byour\b", "the", np, flags=re.I)
    return np


def topic_of_sentence(sentence: str, *, other_speaker: bool) -> str | None:
    """The noun phrase a sentence is about, or None: what a question asks about ("How's the
    bell ringing going?" -> "the bell ringing", "Still on nights?" -> "nights"), else the first
    phrase led by a determiner ("Did you renew the season ticket?" -> "the season ticket")."""
    text = sentence.strip()
    if not text or lang.is_filler(text) or _GREETING.match(text):
        return None
    if text.endswith("?"):
        for pattern in _QUESTION_TOPIC:
            m = pattern.match(text.rstrip("?").strip())
            if m is not None:
                found = _clean(m.group("np"), other_speaker=other_speaker)
                if found:
                    return found
    body = text.rstrip("?!. ")
    if re.search(r"\b(?:it|that|them|those)\b(?!['\u2019]s)", body, re.IGNORECASE) and text.endswith("?"):
        return None  # "Shall I add it to the calendar?": the question itself points back
    m = _NOUN_PHRASE.search(body)
    return _clean(m.group(0), other_speaker=other_speaker) if m else None


@dataclass(frozen=True, slots=True)
class Turn:
    """An earlier turn of the request: what was said, and whether the person said it."""

    text: str
    own: bool


def topic_before(earlier_sentences: Sequence[str], earlier_turns: Sequence[Turn]) -> str | None:
    """The topic of the nearest earlier turn that gives one: the person's own earlier sentences
    of the same message (nearest first), then the messages before it (nearest first, at most
    :data:`LOOKBACK`, greetings and thanks skipped). A question that gives none ends the search:
    the change answers it."""
    for sentence in reversed(earlier_sentences):
        found = topic_of_sentence(sentence, other_speaker=False)
        if found:
            return found
    for turn in list(reversed(earlier_turns))[:LOOKBACK]:
        said = lang.sentences(turn.text)
        if not said or all(lang.is_filler(s) or _GREETING.match(s.strip()) for s in said):
            continue
        for sentence in reversed(said):
            found = topic_of_sentence(sentence, other_speaker=not turn.own)
            if found:
                return found
        if turn.text.rstrip().endswith("?") or not turn.own:
            return None
    return None


# --- the sentence with its topic --------------------------------------------------------------


def _bare_topic(topic: str) -> str:
    """The topic without a leading article, for a parenthesis ("(about night shifts)"); no
    colon, which would end the clause for the closing rules (topic_change.py)."""
    return re.sub(r"^(?:the|that|those|these|this)\s+", "", topic, flags=re.IGNORECASE)


def with_topic(sentence: str, topic: str, gap: Gap, *, person: bool) -> str:
    """``sentence`` with ``topic`` written where it left it out. A person's sentence that begins
    with the verb gets its "I" back ("Packed it in" -> "I packed in the bell ringing")."""
    if gap.kind == "object":
        words = f"{gap.particle} {topic}" if gap.particle else topic
        out = f"{sentence[: gap.start]}{words}{sentence[gap.end :]}"
    elif gap.kind == "subject":
        out = f"{sentence[: gap.start]}{topic[:1].upper()}{topic[1:]}{gap.particle}{sentence[gap.end :]}"
    else:
        out = f"{sentence[: gap.end]} (about {_bare_topic(topic)}){sentence[gap.end :]}"
    if person and gap.kind == "object" and _LEADING_VERB.match(out):
        out = f"I {out[:1].lower()}{out[1:]}"
    return out
