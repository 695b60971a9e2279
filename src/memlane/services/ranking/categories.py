"""Category questions: "What activities does Ana do?" is answered by "I went hiking".

A question that asks for the members of a category (activities, books, pets, instruments,
cities ...) is often answered by a memory that names a member and shares no word with the
question: no keyword matches it and its embedding is far from the question's. A small lexicon
of common members per category, written from general knowledge (not from any benchmark's
text), lets recall search the memories that name one: for such a question the members' words
are searched by keyword too, and that list is fused with the dense and keyword lists at its
own weight (``RankingConfig.category_keyword_weight``). Measured in BENCHMARKS.md ("Category
questions"); docs/retrieval.md describes the signal.

The detector reads the question's form: ``what|which [kind(s)|type(s)|sort(s) of] [one or two
words] HEAD`` where HEAD is one of a category's names ("What activities ...", "Which cities
...", "What kind of art ...", "What musical instruments ..."), or a compound noun that names a
category of its own though its last word names another ("What martial arts ..."), and a few fixed forms ("What
does Ana do to relax?", "Where has Ana travelled?").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from memlane.services.ranking.query_text import words


@dataclass(frozen=True, slots=True)
class Category:
    """One category: the words a question names it by, and its members' words in the
    lexicon's order (the commonest first), for a keyword search."""

    name: str
    heads: frozenset[str]
    terms: tuple[str, ...]


def _category(name: str, heads: str, members: str) -> Category:
    """A category from its lexicon entry. A member of two words (``horse_riding``) stays out of
    the keyword search: its words alone ("new" of ``new_york``) would match too much."""
    return Category(name, _set(heads), tuple(w for w in members.split() if "_" not in w))


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SPORTS = """
    swimming swim swam swims football soccer basketball baseball tennis golf volleyball hockey rugby
    cricket badminton skiing ski skied snowboarding surfing surf surfed skating skateboarding
    climbing kayaking canoeing rowing sailing cycling biking bike biked boxing karate judo
    taekwondo kickboxing martial_arts archery fencing wrestling gymnastics marathon jogging jog running run ran
    workout workouts gym yoga pilates
"""
_PASTIMES = """
    hiking hike hiked hikes camping camp camped fishing fished hunting gardening garden
    painting paint painted drawing draw drew sketching sketch pottery ceramics sculpting knitting
    crocheting sewing quilting woodworking baking bake baked cooking cook cooked dancing dance
    danced singing sing sang reading read writing write wrote journaling photography
    volunteering volunteer volunteered traveling travelling travel travelled traveled
    meditation meditating meditate gaming chess puzzles birdwatching stargazing picnic picnics
    road_trip roadtrip horseback_riding horse_riding walks walking scrapbooking calligraphy
"""
_ANIMALS = """
    dog dogs puppy puppies cat cats kitten kittens hamster hamsters rabbit rabbits bunny bunnies
    parrot parrots bird birds fish goldfish turtle turtles tortoise horse horses pony guinea_pig
    snake snakes lizard lizards gecko ferret mouse mice rat rats chicken chickens pig pigs cow
    cows goat goats sheep duck ducks owl owls deer bear bears fox wolf lion tiger elephant
    dolphin dolphins whale whales monkey
"""
_INSTRUMENTS = """
    piano guitar guitars violin viola cello bass drums drum drummer flute clarinet saxophone sax
    trumpet trombone tuba harp ukulele banjo mandolin harmonica accordion keyboard synth
    organ oboe bassoon xylophone
"""
_FOODS = """
    pizza pasta spaghetti lasagna soup salad sandwich sandwiches burger burgers tacos taco
    burrito sushi ramen noodles curry stew chili rice bread cake cakes cookies cookie pie pies
    muffins pancakes waffles brownies cupcakes dumplings steak chicken fish barbecue bbq
    omelette casserole smoothie smoothies ice_cream chocolate dessert desserts pastry pastries
    croissant bagel cheese fruit vegetables vegan vegetarian
"""
_PLACES = """
    paris london rome berlin madrid barcelona lisbon amsterdam vienna prague athens dublin
    tokyo kyoto seoul beijing shanghai bangkok singapore sydney melbourne toronto vancouver
    montreal chicago boston seattle miami austin denver atlanta dallas houston phoenix
    los_angeles new_york san_francisco las_vegas new_orleans washington mexico canada brazil
    argentina chile peru colombia france italy spain portugal germany england ireland scotland
    greece sweden norway denmark finland netherlands switzerland austria poland japan china
    korea india thailand vietnam indonesia australia egypt morocco kenya nigeria turkey russia
    iceland hawaii california texas florida alaska europe asia africa
"""
_JOBS = """
    teacher teaching nurse doctor engineer lawyer counselor counseling counsellor therapist
    social_worker artist writer author designer chef baker banker accountant programmer
    developer scientist researcher photographer musician singer dancer actor manager
    entrepreneur business mentor coach volunteer firefighter police officer pilot mechanic
    architect journalist librarian pharmacist veterinarian vet psychologist professor
"""
_EVENTS = """
    festival festivals concert concerts conference conferences parade parades workshop
    workshops fair fairs show shows exhibition exhibit competition competitions contest
    tournament race races marathon meetup meeting meetings party parties wedding ceremony
    rally march protest fundraiser fundraising charity gala seminar talk lecture class
    classes camp retreat convention expo screening premiere reading opening celebration
"""
_GAMES = """
    chess checkers poker scrabble monopoly sudoku crossword crosswords puzzle puzzles cards
    board_game board_games video_game video_games card_game card_games minecraft fortnite
    zelda mario pokemon tetris xbox playstation nintendo console
"""
_ART = """
    painting paintings painted paint drawing drawings drew sketch sketches portrait portraits
    self-portrait landscape landscapes abstract watercolor watercolors watercolour acrylic
    oil mural murals sculpture sculptures pottery ceramics clay pot pots bowl bowls vase
    photography photo photos collage poem poems poetry calligraphy stained_glass canvas
"""
_MUSIC = """
    band bands singer singers song songs album albums concert concerts musician musicians
    orchestra symphony choir jazz rock pop classical country hip_hop rap blues folk opera
    punk metal indie
"""
_BOOKS = """
    book books novel novels memoir biography autobiography series author poetry read reading
    reads library chapter chapters paperback bestseller fantasy mystery
"""
_SCREEN = """
    movie movies film films show shows series documentary documentaries episode episodes
    sitcom cinema netflix
"""
_MARTIAL_ARTS = """
    karate judo taekwondo kickboxing boxing kung_fu jiu-jitsu jujitsu aikido wrestling fencing
    muay_thai kendo capoeira sparring dojo belt
"""
_PLANTS = """
    flower flowers rose roses tulip tulips sunflower sunflowers daisy daisies lily lilies
    orchid orchids lavender tree trees plant plants succulent succulents cactus herbs
    tomatoes garden
"""

#: the categories, each with the words a question names it by
CATEGORIES: tuple[Category, ...] = (
    _category(
        "activities",
        "activities activity hobbies hobby sports sport pastimes pastime exercises exercise",
        _PASTIMES + _SPORTS,
    ),
    _category("animals", "pets pet animals animal", _ANIMALS),
    _category("instruments", "instruments instrument", _INSTRUMENTS),
    _category("foods", "foods food dishes dish meals meal recipes recipe desserts dessert treats", _FOODS),
    _category(
        "places",
        "cities city countries country places place destinations destination states locations",
        _PLACES,
    ),
    _category("jobs", "jobs job careers career professions profession occupations occupation", _JOBS),
    _category("events", "events event", _EVENTS),
    _category("games", "games game", _GAMES),
    _category("art", "art arts artworks artwork crafts craft", _ART),
    _category("music", "music musicians musician artists bands band singers songs song genres", _MUSIC),
    _category("books", "books book novels novel authors author", _BOOKS),
    _category("screen", "movies movie films film shows", _SCREEN),
    _category("plants", "flowers flower plants plant", _PLANTS),
    # named only by the compound below: "arts" alone asks for art
    _category("martial arts", "", _MARTIAL_ARTS),
)
_BY_NAME: Mapping[str, Category] = {c.name: c for c in CATEGORIES}
_BY_HEAD: Mapping[str, Category] = {h: c for c in CATEGORIES for h in c.heads}
#: two words that name a category of their own, though the second alone names another
#: ("What martial arts ..." asks for karate and judo, not for paintings)
_COMPOUNDS: Mapping[tuple[str, str], Category] = {
    ("martial", "arts"): _BY_NAME["martial arts"],
    ("martial", "art"): _BY_NAME["martial arts"],
    ("video", "games"): _BY_NAME["games"],
    ("board", "games"): _BY_NAME["games"],
}

_WHAT = re.compile(r"^\s*(?:what|which)\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?(.*)", re.IGNORECASE)
#: the words that end the noun phrase after "what" ("What books *has* Ana read?")
_AUXILIARIES = _set("does do did has have had is are was were will would can could")
#: how many words of the noun phrase after "what" are read ("what musical artists/bands")
_PHRASE_WORDS = 3
#: "What does Ana do to relax / for fun / to destress?", "What does Ana like to do?"
_PASTIME_FORM = re.compile(
    r"^\s*what\s+(?:does|do|did)\s+.*\b(?:do|doing)\s+(?:to\s+(?:relax|destress|unwind|de-stress)|for\s+fun)\b"
    r"|^\s*what\s+(?:does|do)\s+.*\b(?:like|love|enjoy)\s+to\s+do\b",
    re.IGNORECASE,
)
#: "Where has Ana travelled / been / visited / camped?"
_PLACE_FORM = re.compile(r"^\s*where\s+(?:has|have|had)\b", re.IGNORECASE)


#: the most words one keyword search reads (both backends: sqlite/keyword_terms.MAX_TERMS and
#: postgres/store.MAX_QUERY_WORDS; the rest of a longer text are ignored)
KEYWORD_QUERY_WORDS = 64


def member_queries(category: Category) -> tuple[str, ...]:
    """The keyword texts that together search every member of ``category``: its words in
    even parts of at most ``KEYWORD_QUERY_WORDS`` (one keyword search each). BM25 sums a
    score per query word a document holds, over statistics that are the scope's own, so the
    parts' scores add up to the score of the whole list (``SeedSearch`` adds them)."""
    terms = category.terms
    parts = -(-len(terms) // KEYWORD_QUERY_WORDS)
    size = -(-len(terms) // parts) if parts else 0
    return tuple(" ".join(terms[i : i + size]) for i in range(0, len(terms), size)) if size else ()


def asked_category(question: str) -> Category | None:
    """The category whose members ``question`` asks for, or ``None``."""
    m = _WHAT.match(question)
    if m is not None:
        phrase = words(m.group(1))[:_PHRASE_WORDS]
        for i, word in enumerate(phrase):
            if word in _AUXILIARIES:
                break
            compound = _COMPOUNDS.get((word, phrase[i + 1])) if i + 1 < len(phrase) else None
            if compound is not None:
                return compound
            if word in _BY_HEAD:
                return _BY_HEAD[word]
    if _PASTIME_FORM.search(question):
        return _BY_HEAD["activities"]
    if _PLACE_FORM.search(question):
        return _BY_HEAD["places"]
    return None
