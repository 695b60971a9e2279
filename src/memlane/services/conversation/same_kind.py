"""Two things of one kind are two things, however near their words' meanings (the topic test
of closing by succession, topic_change.py; issue #27).

Single-word MiniLM cosines put two members of one category (tea and coffee 0.62, cello and
violin 0.68) above many true synonyms (jab and injections 0.32), so comparing words by meaning
alone reads "I gave up coffee" as ending "I drink green tea", an additive fact. A person drinks
both, keeps a cat and a dog, plays piano and guitar: a message about one member of a kind is not
about another member of it, unless it says one replaced the other ("switched from tea to
coffee", "coffee instead", "I meant guitar").

What a kind is, is the lexicon recall already keeps for category questions
(services/ranking/categories.py: activities, animals, instruments, foods, places, jobs ...), with
the few kinds people change one member of for another that no category question asks for
(:data:`_MORE_KINDS`: drinks, vehicles, devices).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache, lru_cache

from memlane.services.ranking.categories import CATEGORIES

#: kinds no category question asks for, whose members a person has several of at once
_MORE_KINDS: Mapping[str, str] = {
    "drinks": """
        tea teas coffee coffees espresso latte lattes cappuccino americano decaf cocoa juice juices
        smoothie smoothies milk wine wines beer beers lager ale cider whisky whiskey gin vodka rum
        prosecco champagne cola soda lemonade kombucha water matcha chai
    """,
    "vehicles": """
        car cars van vans motorbike motorbikes motorcycle motorcycles bike bikes bicycle bicycles scooter
        scooters moped truck lorry camper campervan caravan boat boats kayak canoe
    """,
    "devices": """
        phone phones laptop laptops tablet tablets ipad computer computers desktop console kindle
        smartwatch watch camera cameras
    """,
}


@lru_cache(maxsize=16384)
def _forms(word: str) -> frozenset[str]:
    """A word and its singular, as a lexicon or a note may write it ("dogs", "dog");
    remembered, like :func:`kinds_of`: closing asks them of every word of every candidate."""
    w = word.lower().strip("'-")
    out = {w}
    if w.endswith("es") and len(w) > 4:
        out.add(w[:-2])
    if w.endswith("s") and len(w) > 3 and not w.endswith("ss"):
        out.add(w[:-1])
    return frozenset(out)


@cache
def _lexicon() -> Mapping[str, frozenset[str]]:
    """Every member's forms, and the kinds it is a member of."""
    kinds: dict[str, set[str]] = {}
    lists = [(c.name, c.terms) for c in CATEGORIES] + [(k, tuple(v.split())) for k, v in _MORE_KINDS.items()]
    for name, terms in lists:
        for term in terms:
            for form in _forms(term):
                kinds.setdefault(form, set()).add(name)
    return {w: frozenset(k) for w, k in kinds.items()}


@lru_cache(maxsize=16384)
def kinds_of(word: str) -> frozenset[str]:
    """The kinds ``word`` is a member of (empty when it is none's)."""
    lexicon = _lexicon()
    out: frozenset[str] = frozenset()
    for form in _forms(word):
        out |= lexicon.get(form, frozenset())
    return out


def _members(words: Iterable[str]) -> dict[str, frozenset[str]]:
    """The words of a text that are members of a kind, each (in its singular) with its kinds."""
    out: dict[str, frozenset[str]] = {}
    for w in words:
        kinds = kinds_of(w)
        if kinds:
            out[min(_forms(w), key=len)] = kinds
    return out


def another_of_its_kind(word: str, text_words: Iterable[str]) -> bool:
    """Whether a text (its words) names another member of a kind ``word`` is a member of, and
    not ``word`` itself: then the text is about that other one ("drinks green tea" is not
    about coffee, though "drink" and "coffee" are near in meaning)."""
    kinds = kinds_of(word)
    if not kinds:
        return False
    forms = _forms(word)
    members = _members(text_words)
    if any(m in forms for m in members):
        return False
    return any(m not in forms and kinds & k for m, k in members.items())
