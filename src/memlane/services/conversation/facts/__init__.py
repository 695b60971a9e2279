"""What a sentence states, in a form the next message can be compared with: who it is about,
which relation, which value, and whether it is affirmed or denied.

The offline path has no model that understands language, only an embedder, and an embedder
cannot tell "allergic to peanuts" from "not allergic to peanuts" (cosine 0.9 and more). So the
conflict rules (conversation/conflicts.py) compare *facts*, as Zep invalidates edges and mem0 updates
memories with an LLM:

* the **subject** is the speaker (``self``) for first-person statements and for notes about the
  user, or the person a sentence names;
* the **relation** is the predicate reduced to a canonical key: ``residence``, ``employer``,
  ``diet``, ``allergy``, ``relationship``, ``age``, ``vehicle``, ``occupation``, ``like``,
  ``my:<attribute>`` for "my phone number is ...", ``name_of:<relative>``, or ``do:<verb>`` for
  any other verb ("plays tennis" is ``do:play`` with the value ``tennis``);
* some relations are **exclusive**: one value at a time (a person lives in one city, has one
  employer and one age), so a new value replaces the old. The others add: a second pet, another
  trip or a brother beside a sister never close each other;
* the **kind** says how the clause speaks of it: a statement, a plan, something that *used to*
  hold, or a clause that cancels a plan or corrects an earlier word.

The parser is rules over a normalised clause (contractions expanded, adverbs set aside, the
verb reduced to its lemma), deliberately small: what it does not understand it leaves as a
``do:`` fact or no fact at all, and conflicts.py then falls back to similarity rules that only
ever merge or skip, never close a note.

One module per concern: model.py (``Fact`` and ``relate``), normalise.py (normalisation and
lemmas), lexicon.py (the words the parser knows), clauses.py (clause splitting, subject and
verb phrase), relations.py (the relation rules), parser.py (a sentence's facts). This package
answers with the model and the parser; the words and the normalisation are imported from
their modules.
"""

from memlane.services.conversation.facts.model import (
    CANCEL,
    CONTRADICTS,
    CORRECTION,
    PAST,
    PLAN,
    REPEATS,
    REPLACES,
    SELF,
    STATEMENT,
    Fact,
    holds,
    indexed,
    relate,
    same_subject,
    same_value,
)
from memlane.services.conversation.facts.parser import ANAPHORIC, facts_of_note, parse

__all__ = [
    "ANAPHORIC",
    "CANCEL",
    "CONTRADICTS",
    "CORRECTION",
    "PAST",
    "PLAN",
    "REPEATS",
    "REPLACES",
    "SELF",
    "STATEMENT",
    "Fact",
    "facts_of_note",
    "holds",
    "indexed",
    "parse",
    "relate",
    "same_subject",
    "same_value",
]
