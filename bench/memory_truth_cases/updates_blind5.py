"""A fifth set of facts that change, written before the second round of closing by succession
(issue #27) and apart from the memory rules, to measure the closing on wording nobody tuned on:
one person's chat over two sessions on choirs, climbing gyms, dentists, book clubs, mortgages,
ferries, bakeries, chess clubs, beekeeping, landlords, piano teachers, babysitters, tennis,
car shares, rescue dogs, night shifts, evening classes and allotment sheds.

Each kind has its own group in catalog.py (``blind5-update:<kind>``) and every case of these
groups is ``untouched`` (:data:`~bench.memory_truth_cases.catalog.UNTOUCHED_GROUPS`): the set is
for measurement only, never for tuning. Several messages name a second person or thing of the
same kind beside the update, and some updates do not name the old value.
"""

from __future__ import annotations

from bench.memory_truth_cases import NEG, UpdateCase, assistant, f, q, update

A = assistant

#: words that end a habit or a state, besides a plain negation
STOPPED = rf"(?:\b(?:gave up|given up|stopped|quit|packed in|dropped|left|no more|any more|anymore)\b|{NEG})"
#: words that call a plan off, besides a plain negation
CALLED_OFF = rf"(?:\b(?:off|cancel|scrap|pulled out|binned|fell through|not happening|shelved)|{NEG})"
#: words that put a fact in the past
PAST = r"\b(?:used to|former|formerly|previous|old|ex-|than|before)"

NEGATION = [
    update(
        "b5-neg-choir",
        "negation",
        [
            ["I sing alto in the community choir, we rehearse every Wednesday in the church hall."],
            [A("Any concerts coming up?"), "I'm not in the choir any more, my knees can't take the standing."],
        ],
        [q("Does the user sing in a choir?", f("choir", STOPPED), f("choir", none=[STOPPED]))],
        user_id="bronwen",
    ),
    update(
        "b5-neg-gluten",
        "negation",
        [
            ["I can't eat gluten, so the bakery down the road is off limits for me.", ("Tom", "Poor you.")],
            [
                ("Tom", "Fancy a croissant?"),
                "Go on then, the specialist says I'm not coeliac after all, it was the dairy all along.",
            ],
        ],
        [q("Can Nell eat gluten?", f("coeliac|gluten", NEG, none=["can't eat"]), f("can't eat gluten"))],
        speaker="Nell",
    ),
    update(
        "b5-neg-beekeeping",
        "negation",
        [
            ["We keep two hives of bees at the bottom of the garden, the honey is amazing."],
            [A("How's the garden looking?"), "We don't keep bees anymore, the colonies didn't survive the winter."],
        ],
        [q("Does the user keep bees?", f("bee", STOPPED), f("hive|bees", none=[STOPPED, "colonies"]))],
        user_id="alun",
    ),
    update(
        "b5-neg-night-shifts",
        "negation",
        [
            ["I work night shifts at the depot, so I sleep through most mornings.", ("Jas", "Sounds rough.")],
            [("Jas", "Still on nights?"), "No, I'm not on nights these days, the depot put me on days."],
        ],
        [q("Does Pradeep work nights?", f("nights", NEG), f("night shifts", none=[NEG]))],
        speaker="Pradeep",
    ),
]

REPLACEMENT = [
    update(
        "b5-rep-dentist",
        "replacement",
        [
            ["My dentist is Dr Okafor at the Smile Clinic, I've been going there for ten years."],
            [
                A("Did you get that filling done?"),
                "Yes, I switched to Dr Byrne at the practice near work, much easier to get to.",
            ],
        ],
        [q("Who is the user's dentist?", f("Byrne"), f("Okafor", none=[NEG, PAST]))],
        user_id="maeve",
    ),
    update(
        "b5-rep-mortgage",
        "replacement",
        [
            ["Our mortgage is with Nationwide on a two-year fix at 4.1 percent."],
            [
                ("Gail", "Did you remortgage?"),
                "We did, we're with Santander now, a five-year fix, and the monthly payment is lower too.",
            ],
        ],
        [q("Who is Ruth's mortgage with?", f("Santander"), f("Nationwide", none=[NEG, PAST]))],
        speaker="Ruth",
    ),
    update(
        "b5-rep-landlord",
        "replacement",
        [
            ["Our landlord is a man called Gerald who takes months to fix anything."],
            [
                A("Has the boiler been sorted?"),
                "Finally, Gerald sold the flat, so our landlord is a housing association now "
                "and they fixed it in a day.",
            ],
        ],
        [
            q(
                "Who is the user's landlord?",
                f("housing association"),
                f("Gerald", none=[NEG, PAST, "sold"]),
            )
        ],
        user_id="kezia",
    ),
    update(
        "b5-rep-piano-teacher",
        "replacement",
        [
            ["My daughter Poppy has piano lessons with Mrs Whitfield on Tuesdays."],
            [
                ("Lou", "How's Poppy's piano?"),
                "Mrs Whitfield retired, so Poppy learns with a lovely young teacher called Jonah instead.",
            ],
        ],
        [q("Who teaches Poppy piano?", f("Jonah"), f("Whitfield", none=[NEG, PAST, "retired"]))],
        speaker="Hattie",
    ),
]

CORRECTION = [
    update(
        "b5-cor-book-club",
        "correction",
        [
            ["Book club is at Sandra's house on the 14th, we're reading Piranesi."],
            [A("Shall I add it to the calendar?"), "Hang on, I got that wrong, it's at Sandra's on the 21st."],
        ],
        [q("When is book club?", f("21st"), f("14th"))],
        user_id="greta",
    ),
    update(
        "b5-cor-ferry",
        "correction",
        [
            ["Our ferry to Bilbao leaves Portsmouth at 8:45 on Saturday.", ("Ian", "Exciting!")],
            [
                ("Ian", "Still the morning sailing?"),
                "No, I checked the booking, it sails at 9:30 on Saturday, not 8:45.",
            ],
        ],
        [q("What time does Joy's ferry leave?", f("9:30"), f("8:45", none=[NEG]))],
        speaker="Joy",
    ),
    update(
        "b5-cor-babysitter",
        "correction",
        [
            ["Our babysitter Kayleigh is seventeen and brilliant with the little one."],
            [A("Is Kayleigh free Friday?"), "She is. Oh, and she's actually nineteen, not seventeen, I misremembered."],
        ],
        [q("How old is the user's babysitter?", f("nineteen"), f("seventeen", none=[NEG]))],
        user_id="danielle",
    ),
    update(
        "b5-cor-chess-club",
        "correction",
        [
            ["The chess club meets in the Red Lion on Mondays."],
            [("Sam", "See you Monday?"), "Sorry, my mistake, chess club is in the Crown, not the Red Lion."],
        ],
        [q("Where does the chess club meet?", f("Crown"), f("Red Lion", none=[NEG]))],
        speaker="Victor",
    ),
]

CANCELLATION = [
    update(
        "b5-can-climbing-trip",
        "cancellation",
        [
            ["We're going climbing in the Peak District over the bank holiday weekend."],
            [A("Packed your chalk?"), "The climbing trip is off, half the group came down with flu."],
        ],
        [
            q(
                "Is the user going climbing over the bank holiday?",
                f("climbing", CALLED_OFF),
                f("climbing", none=[CALLED_OFF]),
            )
        ],
        user_id="rhys",
    ),
    update(
        "b5-can-kitchen-extension",
        "cancellation",
        [
            ["We're having a kitchen extension built in the spring, the builder starts in March."],
            [
                ("Beth", "When do the builders start?"),
                "They don't, we've shelved the extension, the quote came back at double.",
            ],
        ],
        [
            q(
                "Is Carys having a kitchen extension built?",
                f("extension", CALLED_OFF),
                f("extension", none=[CALLED_OFF]),
            )
        ],
        speaker="Carys",
    ),
    update(
        "b5-can-tennis-lessons",
        "cancellation",
        [
            ["I've booked six tennis lessons at the park courts, starting next week."],
            [A("How was the first lesson?"), "Never happened, the coach cancelled the whole course."],
        ],
        [
            q(
                "Is the user taking tennis lessons?",
                f("cancel|never happened"),
                f("tennis lessons", none=[CALLED_OFF]),
            )
        ],
        user_id="lorcan",
    ),
    update(
        "b5-can-car-share",
        "cancellation",
        [
            ["From next month I'm car sharing to work with my colleague Petra."],
            [("Dan", "How's the commute with Petra?"), "It fell through, Petra's changed her hours."],
        ],
        [
            q(
                "Does Amira car share to work?",
                f("fell through"),
                f("car shar", none=[CALLED_OFF]),
            )
        ],
        speaker="Amira",
    ),
]

IMPLICATION = [
    update(
        "b5-imp-rescue-dog",
        "implication",
        [
            ["We've no pets, the landlord doesn't allow them."],
            [
                A("Anything new?"),
                "We adopted a rescue greyhound called Biscuit last weekend, the new landlord is fine with it.",
            ],
        ],
        [q("Does the user have a pet?", f("Biscuit|greyhound"), f("no pets"))],
        user_id="imogen",
    ),
    update(
        "b5-imp-qualified-plumber",
        "implication",
        [
            ["I'm an apprentice plumber, two years into my training."],
            [("Lee", "How's the training going?"), "Done! Passed my final assessment, I'm a fully qualified plumber."],
        ],
        [
            q(
                "Is Connor still an apprentice?",
                f("qualified plumber"),
                f("apprentice", none=[NEG, PAST, "done"]),
            )
        ],
        speaker="Connor",
    ),
    update(
        "b5-imp-evening-class",
        "implication",
        [
            ["I'm taking a pottery evening class at the college on Thursdays."],
            [
                A("Made anything nice?"),
                "I got my certificate at the last session in June, so my Thursday evenings are free again.",
            ],
        ],
        [
            q(
                "Is the user taking a pottery class?",
                f("certificate|last session|free again"),
                f("pottery", none=[NEG, PAST]),
            )
        ],
        user_id="wendy",
    ),
    update(
        "b5-imp-bakery-closed",
        "implication",
        [
            ["I buy our bread from Crumbs, the little bakery on Mill Street."],
            [
                ("Kath", "Got bread in?"),
                "From the supermarket, since Crumbs shut its doors for good last month.",
            ],
        ],
        [
            q(
                "Where does Agnieszka buy bread?",
                f("supermarket"),
                f("Crumbs", none=[NEG, PAST, "shut|closed"]),
            )
        ],
        speaker="Agnieszka",
    ),
]

BLIND5_UPDATES: list[UpdateCase] = [*NEGATION, *REPLACEMENT, *CORRECTION, *CANCELLATION, *IMPLICATION]
