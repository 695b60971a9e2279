"""A seventh set of facts that change, written blind to the memory rules (issue #27: their code
was not read, nor which earlier cases they pass or fail), to measure once whether they
generalise to wording nobody tuned on: one person's chat over two or three sessions on sugar
in tea, driving for Uber, snoring, colour blindness, a child's fear of dogs, fostering kittens,
Fortnite, the weekly shop, a wife's change of job, Sunday mass, childminders and nurseries,
learning Portuguese, the Friday takeaway, charity shop volunteering, a neighbour's name, a
parking space, a blood pressure reading, a school reunion, a mother's age, a nativity play, a
caravan holiday, a hen do, a conservatory, a gap year, a charity skydive, a village show, a
father moving in, an HGV licence, a new girlfriend, learning to swim, a shaved beard, a child
starting secondary school and a move to the coast.

The changes are said as people say them: "don't ... now", "not ... anymore", "not ... after
all", "switched", "gone over to", "ditched", "used to ... but now", "sorry, it's Saoirse, not
Siobhan", numbers written the wrong way round, plans that are "off", turned down, withdrawn
from or dropped with a change of mind, and implications that need common sense (a swum
length, a shaved chin, Year 7, "since Dad moved in with us", "since we moved down to
Hastings"). Some are about someone else ("Helen's switched jobs", "Martin ... doesn't snore"),
eleven have a named speaker beside others in the chat, one correction is said by another
person, and four messages carry a new, unrelated fact beside the update (``also_new``).

Each kind has its own group in catalog.py (``blind7-update:<kind>``) and every case of these
groups is ``untouched`` (:data:`~bench.memory_truth_cases.catalog.UNTOUCHED_GROUPS`): the set is
for measurement only, never for tuning. The updates that do not name the old value are listed
in :data:`OLD_VALUE_UNNAMED`.
"""

from __future__ import annotations

from bench.memory_truth_cases import NEG, UpdateCase, assistant, f, q, update

A = assistant

#: words that say a habit or a state has ended, besides a plain negation
ENDED = rf"(?:\b(?:stopped|quit|gave up|given up|deleted|no longer|anymore|any more)\b|{NEG})"
#: words that say a plan is off, besides a plain negation
CALLED_OFF = (
    r"(?:\b(?:off\b|cancel|called off|scrapped|turned (?:us |them |him |her )?down|withdr|pulled out"
    rf"|split up|changed (?:her|his|my|their) mind|instead)|{NEG})"
)
#: words that put a fact in the past
PAST = r"\b(?:used to|former|formerly|previous|old|ex-|before|last year|until)"

#: the cases whose update message does not name the old value (it is only implied)
OLD_VALUE_UNNAMED = frozenset(
    {
        "b7-rep-weekly-shop",
        "b7-rep-wife-switched-jobs",
        "b7-rep-sunday-mass",
        "b7-rep-portuguese-tutor",
        "b7-cor-parking-space",
        "b7-cor-nativity-time",
        "b7-can-gap-year",
        "b7-imp-dad-moved-in",
        "b7-imp-hgv-licence",
        "b7-imp-girlfriend",
        "b7-imp-first-length",
        "b7-imp-beard-shaved",
        "b7-imp-year-seven",
        "b7-imp-moved-to-hastings",
    }
)

NEGATION = [
    update(
        "b7-neg-sugar-in-tea",
        "negation",
        [
            ["I take two sugars in my tea, always have."],
            [
                A("What did the nurse say?"),
                "My blood sugar's borderline, so I don't take sugar in my tea now, it tastes like dishwater.",
            ],
        ],
        [q("Does the user take sugar in their tea?", f("sugar", NEG), f("sugars?\\b", "tea", none=[NEG]))],
        user_id="wendy",
    ),
    update(
        "b7-neg-uber-weekends",
        "negation",
        [
            [
                "I drive for Uber at weekends to top up the wages, mostly airport runs.",
                ("Ola", "Must be knackering."),
            ],
            [
                ("Ola", "Working this weekend?"),
                "No, I'm not driving for Uber anymore, the Skoda failed its MOT and it wasn't worth fixing.",
            ],
        ],
        [q("Does Marek drive for Uber?", f("Uber", ENDED), f("Uber", none=[ENDED]))],
        speaker="Marek",
    ),
    update(
        "b7-neg-husband-snoring",
        "negation",
        [
            ["My husband Martin snores like a freight train, I've been sleeping in the spare room."],
            [A("Did you try the earplugs?"), "Bought some, wore them once, they itch."],
            [
                A("Sleeping any better?"),
                "Loads. Martin's lost three stone and he doesn't snore at all now, so I'm back in our own bed.",
            ],
        ],
        [
            q("Does Martin snore?", f("snor", NEG), f("snor", none=[NEG])),
            q("Where does the user sleep?", f("own bed|back in"), f("spare room", none=[NEG, PAST])),
        ],
        user_id="hazel",
    ),
    update(
        "b7-neg-colour-blind",
        "negation",
        [
            ["I'm colour blind, reds and greens are a nightmare, my wife picks my ties."],
            [
                A("How did the eye test go?"),
                "Turns out I'm not colour blind after all, the optician says I'm just a bit weak on certain greens.",
            ],
        ],
        [q("Is the user colour blind?", f("colou?r.blind", NEG), f("colou?r.blind", none=[NEG]))],
        user_id="jonah",
    ),
    update(
        "b7-neg-poppy-dogs",
        "negation",
        [
            ["My daughter Poppy is terrified of dogs, she crosses the road if she sees one."],
            [A("Good weekend?"), "Lovely, we went to the garden centre and bought a bird bath."],
            [
                A("How's Poppy?"),
                "Brilliant, she isn't scared of dogs anymore, she spent all afternoon cuddling next door's spaniel.",
            ],
        ],
        [
            q(
                "Is Poppy scared of dogs?",
                [f("scared|terrified|afraid", NEG), f("cuddl", "spaniel")],
                f("scared|terrified|afraid", "dog", none=[NEG]),
            )
        ],
        user_id="sunita",
    ),
    update(
        "b7-neg-fostering-kittens",
        "negation",
        [
            [
                "We foster kittens for Cats Protection, there's usually a litter in the spare room.",
                ("Jan", "I'd never be able to give them back!"),
            ],
            [
                ("Jan", "Got any kittens in at the moment?"),
                "We're not fostering any more, the spare room's my office now I work from home.",
            ],
        ],
        [q("Does Colette foster kittens?", f("foster", ENDED), f("foster", none=[ENDED]))],
        also_new=[q("Where does Colette work?", f("work(?:s|ing)? from home"))],
        speaker="Colette",
    ),
    update(
        "b7-neg-fortnite",
        "negation",
        [
            ["I play Fortnite most nights with my mates from school, it's the only way we talk."],
            [
                A("Revision going okay?"),
                "Mocks are in two weeks, I've deleted Fortnite off the Xbox until they're done, "
                "so no gaming for me at the moment.",
            ],
        ],
        [
            q(
                "Does the user play Fortnite at the moment?",
                [f("deleted"), f("gaming|Fortnite", NEG)],
                f("Fortnite", none=[ENDED]),
            )
        ],
        user_id="ethan",
    ),
]

REPLACEMENT = [
    update(
        "b7-rep-weekly-shop",
        "replacement",
        [
            ["We do the big weekly shop at Tesco on a Friday night."],
            [A("Any plans today?"), "Just the school run and a mountain of ironing."],
            [
                A("How's the budget looking?"),
                "Better, we've switched to Aldi for the weekly shop and it's saving us about thirty quid a week.",
            ],
        ],
        [q("Where does the user do the weekly shop?", f("Aldi"), f("Tesco", none=[NEG, PAST, "switch"]))],
        user_id="kerry",
    ),
    update(
        "b7-rep-wife-switched-jobs",
        "replacement",
        [
            ["My wife Helen teaches maths at the grammar school, she's head of year 9."],
            [
                A("How's everyone?"),
                "Good. Helen's switched jobs, she's training new teachers at the university now, much less marking.",
            ],
        ],
        [
            q(
                "What does Helen do for work?",
                f("university|training"),
                f("teach|grammar school", none=[NEG, PAST, "train|teachers"]),
            ),
            q("Where does Helen work?", f("university"), f("grammar school", none=[NEG, PAST])),
        ],
        user_id="aled",
    ),
    update(
        "b7-rep-sunday-mass",
        "replacement",
        [
            ["We go to ten o'clock mass at St Joseph's every Sunday.", ("Frank", "Is Father Tom still there?")],
            [
                ("Frank", "Will we see you Sunday?"),
                "No, we go to Our Lady's now, it's walking distance from the new house.",
            ],
        ],
        [q("Which church does Teresa go to?", f("Our Lady"), f("St Joseph", none=[NEG, PAST]))],
        speaker="Teresa",
    ),
    update(
        "b7-rep-childminder-nursery",
        "replacement",
        [
            ["Our Ruby goes to a childminder called Denise three days a week, she adores her."],
            [
                A("How's Ruby settling?"),
                "Denise has retired, so Ruby's at Little Acorns nursery now, same three days. "
                "She's potty trained too, finally!",
            ],
        ],
        [
            q(
                "Who looks after Ruby during the week?",
                f("Little Acorns|nursery"),
                f("childminder|Denise", none=[NEG, PAST, "retired"]),
            )
        ],
        also_new=[q("Is Ruby potty trained?", f("potty"))],
        user_id="abi",
    ),
    update(
        "b7-rep-portuguese-tutor",
        "replacement",
        [
            ["I'm learning Portuguese on Duolingo, fifteen minutes on the bus every morning."],
            [
                A("How's the Portuguese coming along?"),
                "I've ditched the app, I have an hour on video with a tutor in Recife every Tuesday now, way better.",
            ],
        ],
        [q("How is the user learning Portuguese?", f("tutor|Recife"), f("Duolingo", none=[NEG, PAST]))],
        user_id="fern",
    ),
    update(
        "b7-rep-friday-takeaway",
        "replacement",
        [
            ["Friday night is takeaway night, always a Chinese from the Golden Dragon."],
            [A("Anything good on telly?"), "The snooker, which my wife hates."],
            [
                A("Takeaway tonight?"),
                "Of course, but we've gone over to the Nepalese place on King Street, "
                "the Golden Dragon's gone right downhill.",
            ],
        ],
        [
            q(
                "Where does the user get their Friday takeaway?",
                f("Nepalese|King Street"),
                f("Golden Dragon|Chinese", none=[NEG, PAST, "downhill|gone over"]),
            )
        ],
        user_id="lee",
    ),
    update(
        "b7-rep-hospice-cafe",
        "replacement",
        [
            [
                "I volunteer at the Oxfam shop on Tuesday mornings, sorting the donations.",
                ("Gill", "Find any treasures?"),
            ],
            [
                ("Gill", "Still up to your elbows in bin bags?"),
                "I used to do the Oxfam shop but now I help in the hospice café, I'd rather chat than sort jumpers.",
            ],
        ],
        [q("Where does Pam volunteer?", f("hospice"), f("Oxfam", none=[NEG, PAST]))],
        speaker="Pam",
    ),
]

CORRECTION = [
    update(
        "b7-cor-neighbour-saoirse",
        "correction",
        [
            ["Our new neighbour's called Siobhan, she's a nurse at the Royal."],
            [
                A("Did you get the parcel back off the neighbour?"),
                "Yes. Sorry, I had her name wrong before, it's Saoirse, not Siobhan.",
            ],
        ],
        [q("What is the user's new neighbour called?", f("Saoirse"), f("Siobhan", none=[NEG, "Saoirse"]))],
        user_id="nick",
    ),
    update(
        "b7-cor-parking-space",
        "correction",
        [
            [
                "My parking space at the flats is number 47, round the back by the bins.",
                ("Huw", "I'll tell the delivery man."),
            ],
            [
                ("Huw", "The delivery man couldn't find your space."),
                "My fault, it's 74, I wrote the numbers the wrong way round.",
            ],
        ],
        [q("What is Dilys's parking space number?", f("74"), f("47"))],
        speaker="Dilys",
    ),
    update(
        "b7-cor-blood-pressure",
        "correction",
        [
            ["My blood pressure was 150 over 95 at the check-up, so they want to see me again."],
            [
                A("Did you get your BP results written down?"),
                "I did, and I'd remembered it wrong, it was 140 over 90, not as bad as I said.",
            ],
        ],
        [q("What was the user's blood pressure reading?", f("140"), f("150|95\\b", none=[NEG]))],
        user_id="roy",
    ),
    update(
        "b7-cor-reunion-hotel",
        "correction",
        [
            ["Our school reunion is at the Crown Hotel on the 20th, thirty years since we left!"],
            [A("Ready for the reunion?"), "Nearly. It's at the Royal, not the Crown, I was thinking of the last one."],
        ],
        [q("Where is the school reunion?", f("Royal"), f("Crown", none=[NEG, PAST, "Royal"]))],
        user_id="jackie",
    ),
    update(
        "b7-cor-mum-seventy-five",
        "correction",
        [
            [
                "My mum turns 70 next month, we're booking a meal at the Indian on the high street.",
                ("Leela", "Lovely!"),
            ],
            [
                ("Leela", "Ashok, your mum told me herself she's 75 this year!"),
                "She's right, I keep knocking five years off.",
            ],
        ],
        [q("How old is Ashok's mum turning?", f("75"), f("70", none=[NEG]))],
        speaker="Ashok",
    ),
    update(
        "b7-cor-nativity-time",
        "correction",
        [
            ["Evie's nativity is on Wednesday at two, she's a sheep."],
            [
                A("Did you get time off for the nativity?"),
                "Had to swap it, it's half nine in the morning, I'd got it mixed up with the reception class one.",
            ],
        ],
        [q("When is Evie's nativity?", f("half nine|9[.:]30"), f("at two|2 ?pm|two o'clock", none=[NEG]))],
        user_id="carla",
    ),
]

CANCELLATION = [
    update(
        "b7-can-tenby-caravan",
        "cancellation",
        [
            ["We've booked a static caravan in Tenby for the last week of August, the kids are beside themselves."],
            [
                A("How's things?"),
                "Rough. Rob's been made redundant, so Tenby's off this year, we'll do days out instead.",
            ],
        ],
        [
            q(
                "Is the user going to Tenby in August?",
                f("Tenby", CALLED_OFF),
                f("Tenby|caravan", none=[CALLED_OFF]),
            )
        ],
        also_new=[q("What happened to Rob?", f("Rob\\b", "redundan"))],
        user_id="rhian",
    ),
    update(
        "b7-can-hen-do",
        "cancellation",
        [
            [
                "I'm organising my sister Kayleigh's hen do in Newcastle in May, twelve of us.",
                ("Amber", "Count me in."),
            ],
            [
                ("Amber", "Do you need the deposit money yet?"),
                "No, Kayleigh and Dean have split up, so there's no wedding and no hen do.",
            ],
        ],
        [q("Is Jade organising a hen do?", f("hen do", CALLED_OFF), f("hen do|Newcastle", none=[CALLED_OFF]))],
        speaker="Jade",
    ),
    update(
        "b7-can-conservatory",
        "cancellation",
        [
            ["We're having a conservatory built on the back in the spring, a proper brick one."],
            [A("The weather's turned."), "Hasn't it, I've had to get the big coat out."],
            [
                A("Any news on the building work?"),
                "Planning turned us down, so no conservatory, we're just getting the patio redone.",
            ],
        ],
        [
            q(
                "Is the user having a conservatory built?",
                f("conservatory", CALLED_OFF),
                f("conservatory", none=[CALLED_OFF]),
            )
        ],
        user_id="brian",
    ),
    update(
        "b7-can-gap-year",
        "cancellation",
        [
            ["My daughter Isha's taking a gap year in Australia before uni, working on a farm in Queensland."],
            [A("Is Isha all packed?"), "She's changed her mind, she's going straight to uni in September after all."],
        ],
        [
            q(
                "Is Isha taking a gap year?",
                f("changed her mind|straight to uni"),
                f("gap year|Australia|Queensland", none=[NEG, "changed"]),
            ),
            q("When is Isha starting university?", f("September"), f("gap year", none=[NEG])),
        ],
        user_id="anjali",
    ),
    update(
        "b7-can-charity-skydive",
        "cancellation",
        [
            [
                "I'm doing a charity skydive for the hospice in June, I've raised four hundred quid already.",
                ("Nat", "Rather you than me."),
            ],
            [
                ("Nat", "Nervous about jumping?"),
                "Not jumping now, the doctor won't sign me off with my bad back, "
                "so I'm doing a sponsored walk instead.",
            ],
        ],
        [
            q("Is Toby doing a skydive?", f("jump|skydive", CALLED_OFF), f("skydive", none=[CALLED_OFF])),
            q("What is Toby doing for the hospice?", f("sponsored walk"), f("skydive", none=[CALLED_OFF])),
        ],
        speaker="Toby",
    ),
    update(
        "b7-can-village-show",
        "cancellation",
        [
            ["I've entered my marrows in the village show on the 3rd, going for first prize this year."],
            [
                A("How are the marrows doing?"),
                "Slugs had the lot overnight, so I've withdrawn from the show, there's always next year.",
            ],
        ],
        [
            q(
                "Is the user entering the village show?",
                f("withdr|pulled out"),
                f("entered|entering", "show", none=[CALLED_OFF]),
            )
        ],
        user_id="dennis",
    ),
]

IMPLICATION = [
    update(
        "b7-imp-dad-moved-in",
        "implication",
        [
            ["My dad lives on his own in Whitby, I drive up every other weekend."],
            [
                A("How's your dad?"),
                "Since Dad moved in with us, the spare room's full of his model boats, but I'm glad he's close.",
            ],
        ],
        [q("Where does the user's dad live?", f("moved in|with us"), f("Whitby|on his own", none=[NEG, PAST]))],
        user_id="marion",
    ),
    update(
        "b7-imp-hgv-licence",
        "implication",
        [
            ["I'm a delivery driver for Amazon, a hundred and twenty drops a day.", ("Kev", "Your poor back.")],
            [
                ("Kev", "Saw you in the big lorry, Lewis!"),
                "Yeah, since I passed my HGV I'm doing long runs to the ports for Stobart, way better money.",
            ],
        ],
        [q("Who does Lewis drive for?", f("Stobart|HGV"), f("Amazon", none=[NEG, PAST]))],
        speaker="Lewis",
    ),
    update(
        "b7-imp-girlfriend",
        "implication",
        [
            ["I'm single at the moment, been on the apps but nothing's clicked."],
            [
                A("Any plans for your birthday?"),
                "My girlfriend Meg is taking me to Paris for it, I still can't believe she's real.",
            ],
        ],
        [q("Is the user single?", f("girlfriend|Meg\\b"), f("single", none=[NEG, PAST]))],
        also_new=[q("Where is the user going for their birthday?", f("Paris"))],
        user_id="jamie",
    ),
    update(
        "b7-imp-first-length",
        "implication",
        [
            ["I can't swim, never learned as a kid, so I sit by the pool on holiday."],
            [A("What did you get up to last night?"), "I swam my first full length without a float, I nearly cried!"],
        ],
        [q("Can the user swim?", f("swam|length"), f("swim", NEG))],
        user_id="adaeze",
    ),
    update(
        "b7-imp-beard-shaved",
        "implication",
        [
            [
                "I've had a big ginger beard for ten years, the kids think it's part of my face.",
                ("Ailsa", "It suits you."),
            ],
            [
                ("Ailsa", "Fergus, I walked straight past you at the school gates!"),
                "Ha, my face is freezing since I let the barber shave the whole lot off for charity.",
            ],
        ],
        [q("Does Fergus have a beard?", f("shave|whole lot off"), f("beard", none=[NEG, PAST]))],
        speaker="Fergus",
    ),
    update(
        "b7-imp-year-seven",
        "implication",
        [
            ["Lily's in Year 6 at Brook Lane primary, her SATs are in May."],
            [A("Any news?"), "We got a new boiler fitted, finally some hot water."],
            [
                A("How's Lily?"),
                "Loving Year 7, she gets the bus to the academy on her own and thinks she's so grown up.",
            ],
        ],
        [
            q("Which school year is Lily in?", f("Year 7|academy"), f("Year 6|primary", none=[NEG, PAST])),
            q("Does Lily go to Brook Lane primary?", f("academy"), f("Brook Lane|primary", none=[NEG, PAST])),
        ],
        user_id="donna",
    ),
    update(
        "b7-imp-moved-to-hastings",
        "implication",
        [
            ["I live in a flat in Croydon, twenty minutes from work.", ("Bea", "Handy.")],
            [
                ("Bea", "How's the commute?"),
                "Hardly one, since we moved down to Hastings I only go up to the office on Tuesdays, "
                "the sea air's doing me good.",
            ],
        ],
        [q("Where does Yvonne live?", f("Hastings"), f("Croydon", none=[NEG, PAST]))],
        speaker="Yvonne",
    ),
]

BLIND7_UPDATES: list[UpdateCase] = [*NEGATION, *REPLACEMENT, *CORRECTION, *CANCELLATION, *IMPLICATION]
