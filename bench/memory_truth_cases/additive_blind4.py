"""A fourth set of facts that only add, written with bench/memory_truth_cases/updates_blind4.py
and apart from the memory rules (group ``blind4-additive`` in catalog.py, every case
``untouched``): a second grandchild, another streaming service, a second place to volunteer,
another instrument, another marathon, a physio besides a GP, a side business, another cousin
who "moved to" a city, a second allergy... Many are worded as updates are ("now", "as well",
"I've started", "moved to", "we're off camping again") or in the very shape of the old fact
about another person or thing, while nothing is replaced.
"""

from __future__ import annotations

from bench.memory_truth_cases import AdditiveCase, additive_case, assistant, f

A = assistant

BLIND4_ADDITIVE: list[AdditiveCase] = [
    additive_case(
        "b4-add-chillies",
        [
            ["I grow tomatoes at the allotment, twelve plants this year."],
            [A("How's the growing going?"), "I've started growing chillies on the kitchen windowsill now, too."],
        ],
        [("What does the user grow?", [f("tomato"), f("chilli")])],
        user_id="ewa",
    ),
    additive_case(
        "b4-add-grandson-finlay",
        [
            ["My granddaughter Isla has just started nursery."],
            [("Jean", "Any news?"), "Our Kirsty had a little boy last night, Finlay, so that's two grandchildren!"],
        ],
        [("Who are Maureen's grandchildren?", [f("Isla"), f("Finlay")])],
        speaker="Maureen",
    ),
    additive_case(
        "b4-add-disney-plus",
        [
            ["We pay for Netflix, mainly for the kids' cartoons."],
            [A("Anything good to watch?"), "I've signed up to Disney Plus now as well, for the Marvel films."],
        ],
        [("What streaming services does the user pay for?", [f("Netflix"), f("Disney")])],
        user_id="ashok",
    ),
    additive_case(
        "b4-add-animal-shelter",
        [
            ["I volunteer at the food bank on Monday evenings."],
            [A("Busy week?"), "Yes, I've started volunteering at the animal shelter on Thursdays."],
        ],
        [("Where does the user volunteer?", [f("food bank"), f("shelter")])],
        user_id="constance",
    ),
    additive_case(
        "b4-add-team-moved-floor",
        [
            ["I live in Leicester with my partner and our cat."],
            [("Mo", "How's work?"), "Better, our team moved to the third floor, much better light."],
        ],
        [
            ("Where does Tariq live?", [f("Leicester")]),
            ("Where does Tariq's team sit at work?", [f("third floor")]),
        ],
        speaker="Tariq",
    ),
    additive_case(
        "b4-add-ukulele",
        [
            ["I play bass in a covers band at weddings."],
            [A("Any gigs coming up?"), "I picked up the ukulele over the winter and I'm playing it at open mics now."],
        ],
        [("What instruments does the user play?", [f("bass"), f("ukulele")])],
        user_id="gethin",
    ),
    additive_case(
        "b4-add-berlin-marathon",
        [
            ["I ran the London marathon in 2022, never again I said."],
            [("Kat", "Never again?"), "Ha, I've signed up for the Berlin marathon next September!"],
        ],
        [("Which marathons has Lorna run or entered?", [f("London"), f("Berlin")])],
        speaker="Lorna",
    ),
    additive_case(
        "b4-add-friend-priyanka",
        [
            ["My best friend is Jodie, we've known each other since primary school."],
            [
                A("Plans for Friday?"),
                "Made a new friend at the climbing wall, Priyanka, we're going bouldering on Friday.",
            ],
        ],
        [("Who are Cass's friends?", [f("Jodie"), f("Priyanka")])],
        speaker="Cass",
    ),
    additive_case(
        "b4-add-physio",
        [
            ["My GP is Dr. Haas at the Elm Tree surgery."],
            [A("How's the shoulder?"), "Sore. I've also started seeing a physio, Gareth, every Wednesday."],
        ],
        [("Which health professionals does the user see?", [f("Haas"), f("Gareth|physio")])],
        user_id="wilf",
    ),
    additive_case(
        "b4-add-theo-mandarin",
        [
            ["Our son Theo speaks Welsh at school, he's better than us already."],
            [("Nain", "How's Theo?"), "Theo's now learning Mandarin as well, at a Saturday club."],
        ],
        [("What languages does Theo speak or learn?", [f("Welsh"), f("Mandarin")])],
        speaker="Bethan",
    ),
    additive_case(
        "b4-add-goldfish",
        [
            ["We've got two guinea pigs, Salt and Pepper."],
            [("Gran", "What did the kids win?"), "A goldfish at the fair on Saturday, the kids named him Captain."],
        ],
        [("What pets does Bronwen have?", [f("guinea pig|Salt"), f("goldfish|Captain")])],
        speaker="Bronwen",
    ),
    additive_case(
        "b4-add-etsy-candles",
        [
            ["I'm an accountant at a firm in Reading."],
            [A("What keeps you busy these days?"), "I now also sell my own candles on Etsy, evenings and weekends."],
        ],
        [("What does the user do for work?", [f("accountant"), f("candle|Etsy")])],
        user_id="nerys",
    ),
    additive_case(
        "b4-add-amex-card",
        [
            ["I bank with Barclays, always have."],
            [A("Any money news?"), "I've got a credit card with Amex now, for the air miles."],
        ],
        [("Which financial companies does the user use?", [f("Barclays"), f("Amex")])],
        user_id="quentin",
    ),
    additive_case(
        "b4-add-cousin-bergen",
        [
            ["My cousin Freya lives in Oslo, she's a dentist."],
            [A("Seeing family this year?"), "Maybe, my cousin Lars moved to Bergen last year and keeps inviting us."],
        ],
        [("Where do the user's cousins live?", [f("Oslo"), f("Bergen")])],
        user_id="astrid",
    ),
    additive_case(
        "b4-add-camping-snowdonia",
        [
            ["We went camping in the Lake District at Easter, it rained the whole time."],
            [("Mei", "Learned your lesson?"), "No! We're off camping again in Snowdonia in August."],
        ],
        [("Where has Hiro been or will go camping?", [f("Lake District"), f("Snowdonia")])],
        speaker="Hiro",
    ),
    additive_case(
        "b4-add-garden-centre",
        [
            ["My husband works nights as a paramedic."],
            [A("How's the week looking?"), "Busy, I've started working weekends at the garden centre."],
        ],
        [
            ("Where does the user work?", [f("garden centre")]),
            ("What does the user's husband do?", [f("paramedic")]),
        ],
        user_id="lynette",
    ),
    additive_case(
        "b4-add-leo-sesame",
        [
            ["Leo is allergic to eggs, we carry an EpiPen everywhere."],
            [A("How did the allergy clinic go?"), "We found out Leo is allergic to sesame as well."],
        ],
        [("What is Leo allergic to?", [f("egg"), f("sesame")])],
        user_id="marisol",
    ),
]
