"""A sixth set of facts that change, written before the next change to the closing rules (issue
#27) and apart from the memory rules (their code was not read), to measure them once on wording
nobody tuned on: one person's chat over two or three sessions on blood donation, vaping,
migraines, magistrates, karate, hens, barbers, car insurance, darts teams, window cleaners,
ballroom dancing, motorbikes, tattoos, bell ringing, pantomimes, cruises, bathroom fitters,
chimney sweeps, kayaking, street food stalls, christenings, archery, carpets, Pilates, a baby
born, a model railway shop closing down, a grown son leaving home, guide dog puppies, solar
panels and electric bikes.

The changes are said in many ways: phrasal verbs ("packed it in", "jacked in", "knocked it on
the head", "pulled the plug", "rained off"), corrections without "sorry", cancellations without
"cancel", implications that need common sense (a baby born, a shop's keys handed back, a puppy
gone to guide dog school), updates said by someone else in the chat about the person, and
messages that carry a new, unrelated fact beside the update (``also_new``).

Each kind has its own group in catalog.py (``blind6-update:<kind>``) and every case of these
groups is ``untouched`` (:data:`~bench.memory_truth_cases.catalog.UNTOUCHED_GROUPS`): the set is
for measurement only, never for tuning. About half the updates do not name the old value
(:data:`OLD_VALUE_UNNAMED`).
"""

from __future__ import annotations

from bench.memory_truth_cases import NEG, UpdateCase, assistant, f, q, update

A = assistant

#: words that end a habit or a state, besides a plain negation
STOPPED = (
    r"(?:\b(?:gave up|given up|stopped|quit|packed (?:it )?in|jacked|knocked|stood down|stepped down"
    rf"|no more|any more|anymore|no longer|finished|done with)\b|{NEG})"
)
#: words that call a plan off, besides a plain negation
CALLED_OFF = (
    r"(?:\b(?:off|cancel|scrap|knocked|on the head|pulled the plug|binned|turned down|fell through"
    rf"|not happening|never got going|money back|instead)|{NEG})"
)
#: words that put a fact in the past
PAST = r"\b(?:used to|former|formerly|previous|old|ex-|than|before|last year)"

#: the cases whose update message does not name the old value (it is only implied)
OLD_VALUE_UNNAMED = frozenset(
    {
        "b6-neg-vaping",
        "b6-neg-magistrate",
        "b6-rep-barber",
        "b6-rep-insurance",
        "b6-rep-motorbike",
        "b6-cor-tattoo",
        "b6-cor-bathroom",
        "b6-cor-chimney-sweep",
        "b6-can-pilates",
        "b6-imp-baby-born",
        "b6-imp-model-shop",
        "b6-imp-son-left-home",
        "b6-imp-guide-dog-puppy",
        "b6-imp-solar-bill",
        "b6-imp-electric-bike",
    }
)

NEGATION = [
    update(
        "b6-neg-blood-donor",
        "negation",
        [
            ["I give blood every sixteen weeks at the donor centre in town, I'm O negative so they love me."],
            [
                A("Anything planned this week?"),
                "Not much. They've told me I can't donate any more since my heart op, which is a shame.",
            ],
        ],
        [
            q(
                "Does the user give blood?",
                f("donat|give blood|giving blood", STOPPED),
                f("give blood|gives blood|donor|donat", none=[STOPPED]),
            )
        ],
        user_id="tegan",
    ),
    update(
        "b6-neg-vaping",
        "negation",
        [
            [
                "I vape, mostly mango flavour, it got me through giving up the cigarettes.",
                ("Kim", "Each to their own."),
            ],
            [("Kim", "Still puffing on the mango stuff?"), "Nope, I packed it in at New Year, five weeks clean now."],
        ],
        [
            q(
                "Does Dev vape?",
                [f("packed (?:it )?in"), f("vap", STOPPED), f("weeks clean")],
                f("vape|vaping", none=[STOPPED]),
            )
        ],
        speaker="Dev",
    ),
    update(
        "b6-neg-migraines",
        "negation",
        [
            ["I get awful migraines, at least two a week, I end up lying in a dark room."],
            [
                A("How's your head been?"),
                "The new tablets have worked wonders, I haven't had a migraine since March, "
                "and I've taken up crown green bowls with my dad to celebrate.",
            ],
        ],
        [q("Does the user get migraines?", f("migraine", NEG), f("migraine", none=[NEG, "tablets"]))],
        also_new=[q("What has the user taken up?", f("bowls"))],
        user_id="cerys",
    ),
    update(
        "b6-neg-magistrate",
        "negation",
        [
            ["I sit as a magistrate at the county court two days a month.", ("Pauline", "Very grand.")],
            [
                ("Pauline", "Graham's stood down from the bench, his back won't take the long sittings."),
                "She's right, it was time.",
            ],
        ],
        [
            q(
                "Is Graham a magistrate?",
                f("stood down|stepped down"),
                f("magistrate", none=[STOPPED, PAST]),
            )
        ],
        speaker="Graham",
    ),
    update(
        "b6-neg-karate",
        "negation",
        [
            ["My son Felix does karate on Saturday mornings, he's a yellow belt."],
            [A("Busy weekend?"), "Just the usual, ferrying kids about."],
            [A("How's Felix getting on?"), "He's jacked in the karate, football's all he talks about now."],
        ],
        [
            q("Does Felix do karate?", f("karate", STOPPED), f("karate", none=[STOPPED])),
            q("What sport does Felix do?", f("football"), f("karate", none=[STOPPED])),
        ],
        user_id="tobias",
    ),
    update(
        "b6-neg-hens",
        "negation",
        [
            ["We keep four hens in the back garden, so there are always eggs.", ("Alan", "Lucky you.")],
            [("Alan", "Any eggs going spare?"), "Sorry, the fox got the lot last week, so we've no hens now."],
        ],
        [q("Does Morag keep hens?", [f("hens", NEG), f("fox")], f("hens", none=[NEG, "fox"]))],
        speaker="Morag",
    ),
]

REPLACEMENT = [
    update(
        "b6-rep-barber",
        "replacement",
        [
            ["I get my hair cut at Sal's barbers on the high street, every three weeks."],
            [
                A("Haircut day?"),
                "Yep, I go to the Turkish place by the station now, Ozzy does a proper skin fade. "
                "Also my sister Keira's just got engaged!",
            ],
        ],
        [q("Where does the user get their hair cut?", f("Ozzy|Turkish"), f("Sal\\b", none=[NEG, PAST]))],
        also_new=[q("Who has just got engaged?", f("Keira", "engaged"))],
        user_id="kwame",
    ),
    update(
        "b6-rep-insurance",
        "replacement",
        [
            ["The car insurance is with Admiral, it renews in October.", ("Dot", "Shop around when it renews.")],
            [("Dot", "Did you shop around?"), "I did, Direct Line came in eighty quid cheaper so I went with them."],
        ],
        [q("Who insures Bernie's car?", f("Direct Line"), f("Admiral", none=[NEG, PAST]))],
        speaker="Bernie",
    ),
    update(
        "b6-rep-darts",
        "replacement",
        [
            ["I throw for the Fox and Hounds darts team on Thursday nights."],
            [
                A("Good game last week?"),
                "Won 5-2! I've moved over to the Railway Tavern's team, they're in a higher division.",
            ],
        ],
        [
            q(
                "Which darts team does the user play for?",
                f("Railway"),
                f("Fox (?:and|&) Hounds", none=[NEG, PAST, "moved|left"]),
            )
        ],
        user_id="gareth",
    ),
    update(
        "b6-rep-window-cleaner",
        "replacement",
        [
            ["Our window cleaner is a lad called Dean, he comes every four weeks.", ("Ken", "Is he any good?")],
            [
                ("Ken", "Dean's handed his round over to his cousin Kyle, so it's Kyle doing yours now, Lorna."),
                "Fine by me, as long as he does the conservatory roof too.",
            ],
        ],
        [q("Who cleans Lorna's windows?", f("Kyle"), f("Dean", none=[NEG, PAST, "handed|over"]))],
        speaker="Lorna",
    ),
    update(
        "b6-rep-ballroom",
        "replacement",
        [
            ["My ballroom partner is Geoff, we've been dancing together for three years."],
            [
                A("How was the competition?"),
                "Geoff's partnered up with his wife now, so I dance with a chap called Raymond instead.",
            ],
        ],
        [
            q(
                "Who is the user's ballroom partner?",
                f("Raymond"),
                f("Geoff", none=[NEG, PAST, "wife|instead"]),
            )
        ],
        user_id="beryl",
    ),
    update(
        "b6-rep-motorbike",
        "replacement",
        [
            ["I ride a Triumph Bonneville, she's my pride and joy.", ("Mo", "Lovely bike.")],
            [
                ("Mo", "Still got the Bonnie?"),
                "Sold it in the spring, I'm on a Honda CB500 these days, cheaper to run.",
            ],
        ],
        [
            q(
                "What motorbike does Stu ride?",
                f("Honda|CB500"),
                f("Triumph|Bonneville", none=[NEG, PAST, "sold"]),
            )
        ],
        speaker="Stu",
    ),
]

CORRECTION = [
    update(
        "b6-cor-tattoo",
        "correction",
        [
            ["My tattoo appointment is on the 9th at Ink and Iron."],
            [A("All set for the tattoo?"), "Just looked at the card, it's the 19th, I'd read it wrong."],
        ],
        [q("When is the user's tattoo appointment?", f("19th"), f("9th"))],
        user_id="jodie",
    ),
    update(
        "b6-cor-bell-ringing",
        "correction",
        [
            ["Bell ringing practice is Friday nights at St Cuthbert's.", ("Gwil", "Noted.")],
            [("Gwil", "What time's practice?"), "Half seven, and it's Thursday nights, not Fridays, I mix them up."],
        ],
        [q("When is Ffion's bell ringing practice?", f("Thursday"), f("Friday", none=[NEG]))],
        speaker="Ffion",
    ),
    update(
        "b6-cor-panto",
        "correction",
        [
            ["I'm playing the Wicked Stepmother in the village panto this Christmas."],
            [
                A("How are rehearsals going?"),
                "Grand. I'd got it muddled though, I'm the Fairy Godmother, Jean's the Stepmother.",
            ],
        ],
        [
            q(
                "What part is the user playing in the panto?",
                f("Fairy Godmother"),
                f("Stepmother", none=[NEG, "Jean", "Godmother"]),
            )
        ],
        user_id="oona",
    ),
    update(
        "b6-cor-cruise",
        "correction",
        [
            [
                "We sail from Southampton on the 3rd of May, ten nights round the Canaries.",
                ("Bev", "Jealous!"),
            ],
            [
                ("Bev", "Packed yet?"),
                "Not yet. Ron's just pointed out it's Dover we sail from, the Southampton one was last year.",
            ],
        ],
        [
            q(
                "Where does Maureen's cruise leave from?",
                f("Dover"),
                f("Southampton", none=[NEG, PAST]),
            )
        ],
        speaker="Maureen",
    ),
    update(
        "b6-cor-bathroom",
        "correction",
        [
            ["Our new bathroom is going in on the 12th, the fitters are booked.", ("Sandra", "About time.")],
            [
                (
                    "Sandra",
                    "Alfie, the fitters rang, they've got you down for the 15th, you wrote the wrong date down.",
                ),
                "Typical me.",
            ],
        ],
        [q("When is Alfie's new bathroom going in?", f("15th"), f("12th"))],
        speaker="Alfie",
    ),
    update(
        "b6-cor-chimney-sweep",
        "correction",
        [
            ["The chimney sweep is booked for Tuesday morning, the wood burner's been smoking."],
            [A("Did the sweep sort it?"), "He's not been yet, I misread the text, he's coming Wednesday afternoon."],
        ],
        [q("When is the chimney sweep coming?", f("Wednesday"), f("Tuesday"))],
        user_id="hamish",
    ),
]

CANCELLATION = [
    update(
        "b6-can-kayaking",
        "cancellation",
        [
            ["We're kayaking down the Wye with the kids at half term."],
            [
                A("Half term plans sorted?"),
                "We've knocked the Wye trip on the head, the river's in flood. Oh, and Maisie's lost her first tooth!",
            ],
        ],
        [
            q(
                "Is the user going kayaking at half term?",
                f("Wye|kayak", CALLED_OFF),
                f("kayak|Wye", none=[CALLED_OFF]),
            )
        ],
        also_new=[q("What happened to Maisie?", f("Maisie", "tooth"))],
        user_id="maddie",
    ),
    update(
        "b6-can-street-food",
        "cancellation",
        [
            [
                "I'm launching a street food stall at the Saturday market in April, Caribbean wraps.",
                ("Jo", "I'll be first in the queue."),
            ],
            [("Jo", "When's the launch?"), "It isn't happening, the council turned down the licence."],
        ],
        [
            q(
                "Is Aziz opening a street food stall?",
                [f("stall|launch|happening", CALLED_OFF), f("turned down")],
                f("street food|stall", none=[CALLED_OFF]),
            )
        ],
        speaker="Aziz",
    ),
    update(
        "b6-can-christening",
        "cancellation",
        [
            ["We're having the baby christened at St Anne's on the 2nd of June."],
            [
                A("Invitations sent?"),
                "We've pulled the plug on the christening, we'll do a naming day in the garden instead.",
            ],
        ],
        [
            q(
                "Is the user's baby being christened at St Anne's?",
                f("christen", CALLED_OFF),
                f("christen", none=[CALLED_OFF]),
            ),
            q("What is the user doing instead of a christening?", f("naming day"), f("christen", none=[CALLED_OFF])),
        ],
        user_id="bridget",
    ),
    update(
        "b6-can-archery",
        "cancellation",
        [
            ["I'm shooting in the county archery championships next Sunday.", ("Fran", "Good luck!")],
            [
                ("Fran", "Rowan won't be shooting on Sunday, the championships got rained off."),
                "Gutted, honestly.",
            ],
        ],
        [
            q(
                "Is Rowan competing in the archery championships?",
                f("shoot|championship", CALLED_OFF),
                f("championship|shooting", none=[CALLED_OFF]),
            )
        ],
        speaker="Rowan",
    ),
    update(
        "b6-can-carpet",
        "cancellation",
        [
            ["The carpet fitters are coming Thursday to do the stairs and landing."],
            [A("Chosen a colour?"), "A grey twist, nothing fancy."],
            [A("Stairs done?"), "We went for laminate in the end, so the carpet order's been binned."],
        ],
        [
            q(
                "Is the user having carpet fitted?",
                [f("carpet", CALLED_OFF), f("laminate")],
                f("carpet", none=[CALLED_OFF]),
            )
        ],
        user_id="terry",
    ),
    update(
        "b6-can-pilates",
        "cancellation",
        [
            [
                "I've signed up for a six-week Pilates course at the leisure centre from the 5th.",
                ("Tash", "Ooh, get you."),
            ],
            [("Tash", "How's the core?"), "Never got going, they couldn't find an instructor so I got my money back."],
        ],
        [
            q(
                "Is Gemma doing a Pilates course?",
                [f("never got going"), f("money back"), f("instructor", NEG)],
                f("Pilates", none=[CALLED_OFF]),
            )
        ],
        speaker="Gemma",
    ),
]

IMPLICATION = [
    update(
        "b6-imp-baby-born",
        "implication",
        [
            ["I'm seven months pregnant, due at the end of March."],
            [
                A("How are you feeling?"),
                "Shattered! Our daughter Isla arrived on the 28th, 7lb 2oz, and my mum's moved in for a month to help.",
            ],
        ],
        [q("Is the user pregnant?", f("Isla|arrived|born"), f("pregnant|due", none=[NEG, PAST]))],
        also_new=[q("Who is helping the user?", f("mum", "moved in|help"))],
        user_id="shona",
    ),
    update(
        "b6-imp-model-shop",
        "implication",
        [
            ["I run a little model railway shop on Station Road, twenty years now.", ("Di", "I love that shop.")],
            [
                ("Di", "How are you keeping?"),
                "Not bad, I've had the closing down sale and handed the keys back, it's the quiet life for me now.",
            ],
        ],
        [
            q(
                "Does Clive run a model railway shop?",
                f("closing down|handed the keys|keys back"),
                f("railway shop|shop on Station Road", none=[NEG, PAST, "closing|closed|keys"]),
            )
        ],
        speaker="Clive",
    ),
    update(
        "b6-imp-son-left-home",
        "implication",
        [
            ["My youngest, Leo, still lives at home with us, he's twenty-four."],
            [A("How's the house?"), "So quiet, Leo got the keys to his own flat in Bristol on Saturday."],
        ],
        [
            q(
                "Does Leo live with the user?",
                f("own flat|keys"),
                f("lives at home|living at home|at home with", none=[NEG, PAST]),
            ),
            q("Where does Leo live?", f("Bristol"), f("lives at home|living at home|at home with", none=[NEG, PAST])),
        ],
        user_id="annette",
    ),
    update(
        "b6-imp-guide-dog-puppy",
        "implication",
        [
            [
                "We're puppy walking for Guide Dogs, a black lab called Rolo lives with us until his first birthday.",
                ("Ben", "Aww."),
            ],
            [
                ("Ben", "How's Rolo?"),
                "He passed his assessment and went off to big school last week, the house feels empty.",
            ],
        ],
        [
            q(
                "Does Rolo live with Nadia?",
                f("big school|passed his assessment|went off"),
                f("Rolo|lab", "lives with", none=[NEG, PAST]),
            )
        ],
        speaker="Nadia",
    ),
    update(
        "b6-imp-solar-bill",
        "implication",
        [
            ["Our electricity bill is about a hundred and forty a month, it's killing us."],
            [
                A("Any luck with the bills?"),
                "The solar panels went on the roof in May, we've barely paid a thing since.",
            ],
        ],
        [
            q(
                "How much is the user's electricity bill?",
                f("solar|barely paid"),
                f("hundred and forty|140", none=[NEG, PAST]),
            )
        ],
        user_id="dafydd",
    ),
    update(
        "b6-imp-electric-bike",
        "implication",
        [
            ["I get the 42 bus into town every morning, it's always late.", ("Lynn", "Tell me about it.")],
            [("Lynn", "Ray cycles in every day now he's got his electric bike."), "Best thing I ever bought."],
        ],
        [
            q(
                "How does Ray get into town?",
                f("electric bike|cycl"),
                f("\\b(?:42\\b|bus)", none=[NEG, PAST, "since"]),
            )
        ],
        speaker="Ray",
    ),
]

BLIND6_UPDATES: list[UpdateCase] = [*NEGATION, *REPLACEMENT, *CORRECTION, *CANCELLATION, *IMPLICATION]
