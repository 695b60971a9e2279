"""The words the fact parser knows: word lists, tables, and the markers clauses are read by.

Kept apart from the rules that use them (clauses.py, relations.py, parser.py) so a word can be
added without reading the grammar. Every entry is lower case, as clauses are once normalised.
"""

from __future__ import annotations

import re

from memlane.services.conversation import language as lang

#: words that only colour a clause; set aside before the verb is found
ADVERBS = lang.wordset(
    """really also just actually currently still finally recently officially already usually always often
    sometimes mostly totally definitely basically honestly literally mainly generally normally probably
    seriously truly even ever only kinda sorta somewhat absolutely certainly now nowadays again then
    obviously apparently luckily sadly unfortunately fortunately happily completely entirely strictly fully
    totally"""
)
#: multi-word markers, recognised (and removed) before the clause is parsed
CHANGE_PHRASES = re.compile(
    r"\b(?:these days|at the moment|right now|from now on|as of now|any ?more|no longer|not any ?longer|"
    r"after all|for now)\b"
)
CHANGE_WORDS = frozenset({"now", "nowadays", "currently", "anymore", "longer"})
NEGATION_WORDS = frozenset({"not", "never", "no"})
FILLER_LEAD = re.compile(
    r"^(?:(?:oh|ah|well|so|and|but|also|actually|anyway|anyways|btw|by the way|ok|okay|yeah|yes|no|hey|hi|"
    r"hmm|um|update|quick update|fyi|guess what|good news|bad news|news|sorry|oops|correction|"
    r"just so you know|turns out|it turns out that|as it turns out|i think|i guess)\b\s*[,:!.-]?\s*)+"
)


IRREGULAR = {
    "am": "be", "is": "be", "are": "be", "was": "be", "were": "be", "been": "be", "being": "be",
    "has": "have", "had": "have", "having": "have", "does": "do", "did": "do", "done": "do", "doing": "do",
    "went": "go", "gone": "go", "goes": "go", "got": "get", "gotten": "get", "bought": "buy", "made": "make",
    "took": "take", "taken": "take", "left": "leave", "met": "meet", "ran": "run", "came": "come",
    "became": "become", "began": "begin", "begun": "begin", "brought": "bring", "thought": "think",
    "taught": "teach", "caught": "catch", "felt": "feel", "kept": "keep", "lost": "lose", "sold": "sell",
    "told": "tell", "won": "win", "wrote": "write", "written": "write", "drove": "drive", "driven": "drive",
    "ate": "eat", "eaten": "eat", "drank": "drink", "drunk": "drink", "flew": "fly", "flown": "fly",
    "gave": "give", "given": "give", "saw": "see", "seen": "see", "knew": "know", "known": "know",
    "grew": "grow", "grown": "grow", "spent": "spend", "sent": "send", "built": "build", "found": "find",
    "heard": "hear", "held": "hold", "paid": "pay", "said": "say", "sat": "sit", "slept": "sleep",
    "spoke": "speak", "spoken": "speak", "stood": "stand", "swam": "swim", "wore": "wear", "worn": "wear",
    "quit": "quit", "put": "put", "set": "set", "cut": "cut", "hit": "hit", "let": "let", "read": "read",
    "broke": "break", "broken": "break", "chose": "choose", "chosen": "choose", "fell": "fall",
    "fallen": "fall", "forgot": "forget", "forgotten": "forget", "rode": "ride", "ridden": "ride",
    "sang": "sing", "sung": "sing", "understood": "understand", "moving": "move", "living": "live",
    "lives": "live", "lived": "live", "dating": "date", "dated": "date", "loves": "love", "loved": "love",
    "hates": "hate", "hated": "hate", "likes": "like", "liked": "like", "uses": "use", "used": "use",
}  # fmt: skip


KEEP_E = frozenset(
    {"live", "move", "love", "hate", "like", "use", "dance", "bake", "ride", "drive", "date", "share",
     "hike", "skate", "race", "serve", "believe", "relocate", "quite", "practice", "practise", "volunteer",
     "upgrade", "downgrade", "change", "scrape", "retire", "manage", "charge", "trade", "replace"}
)  # fmt: skip


AUX = frozenset({"do", "does", "did", "will", "would", "shall", "should", "can", "could", "may", "might", "must"})
PLAN_LEADS = re.compile(
    r"^(?:be going to|be gonna|gonna|be planning (?:on|to)|plan (?:on|to)|want to|wanna|hope to|intend to|"
    r"would like to|be thinking (?:of|about)|be about to|be hoping to|will|be scheduled to|be supposed to)\s+"
)
STOP_LEADS = re.compile(r"^(?:stop|quit|give up|cut out|cut down on)\s+(?P<rest>\w+ing\b.*)$")
#: "I sold the Volvo", "I've moved on from The Bear", "no more coffee": what the person no
#: longer has, does or takes
GIVE_UP = re.compile(
    r"^(?:sell|get rid of|give away|give up|move on from|be done with|be over|cut out|stop (?:going to|using|"
    r"taking|drinking|eating|seeing|watching|playing|doing)|stop|quit|drop|ditch|leave|cancel|no more)"
    r"\s+(?P<v>.+)$"
)
START_LEADS = re.compile(r"^(?:start|begin|take up|pick up)\s+(?:to\s+)?(?P<rest>.+)$")
PREPOSITIONS = frozenset(
    {"in", "at", "to", "for", "with", "on", "from", "into", "onto", "about", "of", "by", "as", "near", "over"}
)
DETERMINERS = frozenset(
    {"a", "an", "the", "my", "our", "his", "her", "their", "your", "its", "this", "that", "these", "those", "some"}
)
VALUE_STOP = re.compile(
    r"\s+(?:and|but|because|since|so|while|when|which|who|where|though|although|with|near|for|until|during|"
    r"i|we|you|he|she|they|it|to work|every|each|most|once|twice)\s+.*$|[,;:!].*$"
)
#: the clause says it adds to what was known, not that something changed
ADDS = re.compile(r"\b(?:also|too|as well|another|second|third|more|additional|besides|both|plus|either)\b")
#: when something happened; set aside so "turned 35 last week" reads "turn 35"
TIME = re.compile(
    r"\b(?:(?:last|this|next|every) (?:week|month|year|weekend|night|summer|spring|fall|autumn|winter|monday|"
    r"tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|august|"
    r"september|october|november|december)|yesterday|today|tonight|tomorrow|again|"
    r"(?:in|on|since|by|from) (?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december)(?: \d{1,2}(?:st|nd|rd|th)?)?(?:,? \d{4})?|(?:in|since) (?:19|20)\d{2}|"
    r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|\d+) (?:days?|weeks?|months?|"
    r"years?) ago|(?:a while|recently|lately|soon) ?(?:ago)?)\b"
)


DIETS = "vegetarian|vegan|pescatarian|pescetarian|keto|carnivore|flexitarian|plant-based|paleo|gluten-free|dairy-free"
RELATIONSHIP = "single|married|engaged|divorced|separated|widowed|in a relationship"
EXCLUSIVE_MY = lang.wordset(
    """name number phone email address birthday age job title role salary goal deadline budget rent weight
    height size password username schedule major position boss manager landlord doctor dentist therapist
    coach team school university college company employer office commute car hometown city neighborhood
    neighbourhood zip postcode surname nickname pronouns timezone gp vet physio physiotherapist dietitian
    optician pharmacy bank provider carrier landlady"""
)
#: things a person has several of: "my new friend is Tom" adds a friend, it replaces no one
SEVERAL_MY = lang.wordset(
    """friend friends hobby hobbies project projects neighbour neighbor neighbours colleague colleagues coworker
    client clients student students interest interests thing things obsession passion habit goal goals
    favourite favorite idea plan plans book show song recipe skill"""
)
#: occupations that say a person is not employed: an employer stated later replaces them
NOT_WORKING = (
    r"stay-at-home (?:dad|mum|mom|parent|mother|father)|full-time (?:dad|mum|mom|parent)|homemaker|housewife|"
    r"househusband|unemployed|jobless|between jobs|out of work|retired|retiree"
)
PLAN_WORDS = lang.wordset(
    """trip vacation holiday wedding party visit flight plan plans concert tour move reunion appointment meeting
    interview surgery conference dinner celebration ceremony festival retreat camp cruise honeymoon date
    class course exam marathon race show game match expecting baby booked signed"""
)
#: words of a cancelled thing and how a plan may have named it ("the wedding is off" cancels
#: "we are getting married on 20 September")
CANCEL_SYNONYMS: dict[str, tuple[str, ...]] = {
    "wedding": ("married", "marry", "marriage", "wedding"),
    "trip": ("trip", "travel", "flight", "visit", "holiday", "vacation"),
    "vacation": ("trip", "travel", "holiday", "vacation"),
    "holiday": ("trip", "travel", "holiday", "vacation"),
    "party": ("party", "celebration", "celebrate"),
    "course": ("course", "class", "lesson", "classe"),
    "class": ("course", "class", "lesson", "classe"),
    "membership": ("member", "membership", "gym"),
    "move": ("move", "moving", "relocate"),
    "surgery": ("surgery", "operation"),
}
#: occupations a person "is" ("I'm a pharmacist at ...", "I'm a primary school teacher now")
OCCUPATIONS = lang.wordset(
    """accountant actor actress analyst architect artist assistant attorney baker barista bartender biologist
    builder butcher carpenter cashier chef chemist cleaner clerk coach consultant cook counselor counsellor
    courier dancer dentist designer detective developer dietitian director doctor driver economist editor
    electrician engineer entrepreneur farmer firefighter freelancer gardener guide hairdresser historian
    illustrator instructor intern janitor journalist judge lawyer lecturer librarian lifeguard manager mechanic
    midwife model musician nanny nurse officer optician painter paramedic pharmacist photographer physician
    physicist physiotherapist pilot plumber poet policeman politician professor programmer psychiatrist
    psychologist realtor receptionist reporter researcher salesman scientist secretary singer soldier student
    surgeon tailor teacher technician therapist trainer translator tutor vet veterinarian waiter waitress
    welder writer retiree"""
)
CANCEL_PHRASES = re.compile(
    r"\b(?:call(?:ed|ing)? off|cancel(?:l)?(?:ed|ing)?|(?:is|are|was|were|be) off|not happening|fell through|"
    r"scrap(?:ped)?|(?:be|is|are|was|were) (?:postponed|cancel(?:l)?ed|scrapped)|postpone(?:d)?|"
    r"put on hold|not going (?:to go )?after all|(?:will )?not be going|not go after all|"
    r"(?:will|is) not (?:happen|happening)|off the table|"
    r"decided (?:not|against)|back(?:ed)? out|pull(?:ed)? out|drop(?:ped)? out|withdr[ae]w|call it off|"
    r"bail(?:ed|ing)? (?:on|out)|shelved|axed|nixed|pull(?:ed)? the plug|walk(?:ed)? away from|"
    r"g[ai]ve up on|abandon(?:ed)?|skip(?:ping|ped)? (?:the|our|my))\b"
)


NOT_A_VERB = frozenset(
    {"the", "a", "an", "it", "this", "that", "these", "those", "he", "she", "they", "you", "there", "his", "her",
     "their", "your", "its", "what", "which", "who", "how", "when", "where", "why", "if", "to", "of", "in", "on"}
)  # fmt: skip


#: one attribute however it is named ("my favourite series" is "my favourite show")
ATTRIBUTE_SYNONYMS = {
    "series": "show", "tv show": "show", "programme": "show", "program": "show", "tv series": "show",
    "film": "movie", "colour": "color", "dish": "food", "meal": "food", "cuisine": "food", "novel": "book",
    "track": "song", "band": "music", "artist": "music", "singer": "music", "drink": "drink",
}  # fmt: skip


TIME_WORDS = frozenset(
    {"midnight", "noon", "morning", "mornings", "evening", "evenings", "night", "nights", "am", "pm", "o'clock"}
    | set(lang.WEEKDAYS)
    | {m.lower() for m in lang.MONTHS}
)


NUMBER_WORDS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "a": "1", "an": "1", "another": "+", "second": "+",
}  # fmt: skip


#: what a "new <thing>" replaces: the attribute a note names the thing by
THING_ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "car": ("vehicle", "car"), "vehicle": ("vehicle", "car"), "bike": ("bike",), "motorbike": ("motorbike",),
    "phone": ("phone",), "laptop": ("laptop", "computer"), "computer": ("laptop", "computer"),
    "flat": ("residence", "flat", "apartment", "home"), "apartment": ("residence", "flat", "apartment", "home"),
    "house": ("residence", "house", "home"), "place": ("residence", "home"),
    "job": ("employer", "job"), "gp": ("gp", "doctor"), "doctor": ("gp", "doctor"), "dentist": ("dentist",),
    "therapist": ("therapist",), "bank": ("bank",), "boyfriend": ("relationship", "boyfriend"),
    "girlfriend": ("relationship", "girlfriend"), "partner": ("relationship", "partner"),
    "email": ("email",), "number": ("number", "phone number"), "address": ("address", "residence"),
    "boss": ("boss", "manager"), "manager": ("boss", "manager"), "landlord": ("landlord",),
    "hairdresser": ("hairdresser", "barber"), "barber": ("hairdresser", "barber"), "vet": ("vet",),
    "physio": ("physio", "physiotherapist"), "coach": ("coach",), "trainer": ("trainer",),
    "school": ("school",), "gym": ("gym",), "office": ("office",), "tablet": ("tablet",),
}  # fmt: skip


#: what a stopped thing is the kind of: "gave up alcohol" ends the glass of wine with dinner,
#: "quit caffeine" the espressos. Classes of things people give up, not phrases of cases.
KINDS: dict[str, frozenset[str]] = {
    k: lang.wordset(v)
    for k, v in {
        "alcohol": "wine wines beer beers whisky whiskey gin vodka rum cocktail cocktails cider prosecco champagne "
        "booze drinking pint pints",
        "booze": "wine beer whisky whiskey gin vodka rum cocktail cocktails cider",
        "drinking": "wine beer whisky whiskey gin vodka rum cocktail cocktails cider pint pints",
        "caffeine": "coffee coffees espresso espressos latte lattes cappuccino flat white tea cola energy",
        "coffee": "espresso espressos latte lattes cappuccino cappuccinos americano",
        "meat": "beef pork chicken steak bacon lamb ham sausage sausages burger burgers",
        "dairy": "milk cheese yogurt yoghurt butter cream",
        "sugar": "sweets candy cake cakes chocolate dessert desserts soda",
        "gluten": "bread pasta wheat",
        "smoking": "cigarette cigarettes cigars vape vaping",
        "nicotine": "cigarette cigarettes cigars vape vaping",
    }.items()
}

#: verbs that abandon something, by class rather than by case: discarding (scrap, ditch, drop,
#: axe, shelve, bin, nix, kill), withdrawing (bail on, back out of, pull out of, walk away
#: from, give up on), calling off (cancel, call off, pull the plug on); with a pronoun for
#: object they call off the plan spoken of just before
_ABANDON = (
    r"(?:scrap(?:ped|s)?|ditch(?:ed|es)?|drop(?:ped|s)?|ax(?:e|ed|es)|shelve[ds]?|binn?(?:ed)?|nix(?:ed)?|"
    r"kill(?:ed|s)?|cancel(?:l?ed|s)?|call(?:ed|s)? off|pull(?:ed)? the plug on|bail(?:ed|s)? on|"
    r"back(?:ed)? out of|pull(?:ed)? out of|walk(?:ed)? away from|g[ai]ve up on|abandon(?:ed|s)?|skip(?:ped)?|"
    r"postpone[ds]?|decided against)"
)
ANAPHORIC_CANCEL = re.compile(
    rf"\b{_ABANDON} (?:it|that|this|them|the (?:whole )?(?:thing|plan|idea|project))\b"
    r"(?! (?:to|for|with|off|back|up|down|over|out|by|round|in|into|on)\b)"
    r"|\b(?:it|that|this|the whole thing) (?:is|was|has been) (?:off|cancel(?:l)?ed|scrapped|not happening|"
    r"dead|postponed|on hold)\b|\b(?:it|that) (?:fell|has fallen) through\b"
)


#: nouns for a person (or a pet) of someone's: "my sister lives in Porto" is about the sister,
#: "Angus's wife drives a Volvo" about the wife, not about Angus (topic_change.py reads them too)
KIN = (
    r"wife|husband|partner|son|daughter|mum|mom|dad|mother|father|brother|sister|cousin|aunt|uncle|friend|boss"
    r"|manager|colleague|neighbour|neighbor|niece|nephew|grandson|granddaughter|grandma|grandad|grandpa|nan"
    r"|girlfriend|boyfriend|fiancee?|kid|child|baby|parents?|in-laws?|sister-in-law|brother-in-law|flatmate"
    r"|housemate|roommate|teacher|dog|cat|puppy|kitten|pet"
)
#: one person however a speaker names them: "my mum" and "my mother" are the same person
KIN_SAME = {"mum": "mother", "mom": "mother", "dad": "father", "neighbor": "neighbour", "fiancee": "fiance"}
