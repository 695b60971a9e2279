"""A sixth set of facts that only add, written with bench/memory_truth_cases/updates_blind6.py
and apart from the memory rules (group ``blind6-additive`` in catalog.py, every case
``untouched``). Most are shaped like changes while only adding: two children in two bands, a
second tattoo, the office moved while the home stays, a second job refereeing beside the day
job, a preventer inhaler "on top of" the reliever, a crochet circle "too", another hedgehog,
another goddaughter, a son who "moved out" to one city beside a daughter in another, and one
fact said by a friend in the chat about the person.
"""

from __future__ import annotations

from bench.memory_truth_cases import AdditiveCase, additive_case, assistant, f

A = assistant

BLIND6_ADDITIVE: list[AdditiveCase] = [
    additive_case(
        "b6-add-kids-bands",
        [
            ["My son Jake plays bass in a band called The Loose Screws."],
            [
                A("Any gigs coming up?"),
                "Loads, my daughter Amy's joined a band now as well, she sings with Velvet Static.",
            ],
        ],
        [
            ("What does the user's son Jake play?", [f("Jake|Loose Screws", "bass")]),
            ("Which bands are the user's children in?", [f("Loose Screws"), f("Velvet Static")]),
        ],
        user_id="carl",
    ),
    additive_case(
        "b6-add-pool-and-bowls",
        [
            ["I play in the pool league on Monday nights for the Crown and Anchor."],
            [A("Good week?"), "Yes, I've started crown green bowls on Wednesdays too, my knees prefer it."],
        ],
        [("What does the user play?", [f("pool"), f("bowls")])],
        user_id="norman",
    ),
    additive_case(
        "b6-add-second-tattoo",
        [
            ["I've got a swallow tattoo on my wrist, my first one."],
            [("Kaz", "Been anywhere nice?"), "Got another one done Saturday, a compass on my shoulder."],
        ],
        [("What tattoos does Lacey have?", [f("swallow"), f("compass")])],
        speaker="Lacey",
    ),
    additive_case(
        "b6-add-office-moved",
        [
            ["We live in Harrogate, we've been here since the kids were small."],
            [
                ("Lynn", "How's the new job?"),
                "Work's moved the office to Leeds city centre, so I'm on the train now, but we're staying put at home.",
            ],
        ],
        [
            ("Where does Raj live?", [f("Harrogate")]),
            ("Where does Raj live and work?", [f("Harrogate"), f("Leeds")]),
        ],
        speaker="Raj",
    ),
    additive_case(
        "b6-add-stamps",
        [
            ["I collect Victorian stamps, mostly Penny Reds."],
            [
                A("Found anything good?"),
                "I've started on first day covers too, picked up a shoebox of them at a car boot.",
            ],
        ],
        [("What does the user collect?", [f("Penny Red|Victorian"), f("first day cover")])],
        user_id="desmond",
    ),
    additive_case(
        "b6-add-porter-referee",
        [
            ["I'm a hospital porter at Ninewells, mostly early shifts."],
            [
                ("Euan", "You look knackered."),
                "I've taken on refereeing junior rugby at the weekends as well, it pays for the petrol.",
            ],
        ],
        [("What work does Callum do?", [f("porter"), f("refere")])],
        speaker="Callum",
    ),
    additive_case(
        "b6-add-godchildren",
        [
            ["My godson Arlo starts school in September, I've bought him a lunchbox."],
            [A("Any news?"), "My best mate's asked me to be godmother to her new baby Wren, I cried."],
        ],
        [("Who are the user's godchildren?", [f("Arlo"), f("Wren")])],
        user_id="lottie",
    ),
    additive_case(
        "b6-add-garden-birds",
        [
            ["We get goldfinches on the feeder every morning."],
            [A("Seen much on the feeder?"), "A pair of bullfinches have started coming, first time in years."],
        ],
        [("Which birds visit the user's feeder?", [f("goldfinch"), f("bullfinch")])],
        user_id="heather",
    ),
    additive_case(
        "b6-add-detecting-astronomy",
        [
            ["My husband Pete's into metal detecting, he's out on the fields every Sunday."],
            [
                ("Sian", "What are you up to these days?"),
                "I've got my own hobby now, I've taken up astronomy and bought a little telescope.",
            ],
        ],
        [("What hobbies do Bethan and her husband have?", [f("metal detect"), f("astronom|telescope")])],
        speaker="Bethan",
    ),
    additive_case(
        "b6-add-inhalers",
        [
            ["I use a blue inhaler for my asthma when I need it."],
            [
                A("How did the asthma review go?"),
                "The nurse has added a brown preventer inhaler twice a day, on top of the blue one.",
            ],
        ],
        [("What inhalers does the user use?", [f("blue"), f("brown|preventer")])],
        user_id="kieran",
    ),
    additive_case(
        "b6-add-kids-sports",
        [
            ["My eldest, Tyler, boxes at the club on Albert Road."],
            [("Mel", "Kids keeping you busy?"), "Always, my youngest, Demi, has started netball on Thursdays."],
        ],
        [("What sports do Chantelle's children do?", [f("box"), f("netball")])],
        speaker="Chantelle",
    ),
    additive_case(
        "b6-add-jam-etsy",
        [
            ["I sell my jams on a stall at the farmers' market once a month."],
            [A("How's business?"), "Busy, I've opened an Etsy shop as well, the chutneys go all over the country now."],
        ],
        [("Where does the user sell their jams and chutneys?", [f("farmers|stall"), f("Etsy")])],
        user_id="rosalind",
    ),
    additive_case(
        "b6-add-sewing-crochet",
        [
            ["I go to a sewing bee at the library on Monday afternoons."],
            [("Val", "Fancy a coffee Friday?"), "Can't, I've joined a crochet circle at the café on Fridays too."],
        ],
        [("What craft groups does Irene go to?", [f("sewing"), f("crochet")])],
        speaker="Irene",
    ),
    additive_case(
        "b6-add-hedgehogs",
        [
            ["A hedgehog's been visiting our garden at night, the kids call him Spike."],
            [A("Still getting visitors?"), "There's a second hedgehog now, a smaller one the kids named Prickles."],
        ],
        [("What hedgehogs visit the user's garden?", [f("Spike"), f("Prickles")])],
        user_id="marcus",
    ),
    additive_case(
        "b6-add-children-moved",
        [
            ["My daughter Ellie moved to Glasgow for uni last year."],
            [
                A("Is the house quieter?"),
                "Very, my son Sam moved out too, he's in a flat in Dundee with his girlfriend.",
            ],
        ],
        [
            ("Where does the user's daughter Ellie live?", [f("Glasgow")]),
            ("Where do the user's children live?", [f("Glasgow"), f("Dundee")]),
        ],
        user_id="fiona",
    ),
    additive_case(
        "b6-add-friend-says-tai-chi",
        [
            ["I walk the dog round Heaton Park every morning.", ("Ann", "Rain or shine!")],
            [("Ann", "Pat's started tai chi in the park too, Tuesdays and Thursdays."), "Keeps me young."],
        ],
        [("What does Pat do for exercise?", [f("dog|Heaton"), f("tai chi")])],
        speaker="Pat",
    ),
]
