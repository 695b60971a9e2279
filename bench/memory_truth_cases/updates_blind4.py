"""A fourth set of facts that change, written before the ranking work of issue #27's last part
and apart from the memory rules, to measure how current-first ranking and the offline update
recognition carry to wording nobody tuned on: one person's chat over two to three sessions on
allotments, driving, podcasts, orthodontists, pensions, broadband, vets, postcodes, parents'
evenings, marathons, loft conversions, surprise parties, retirement, sobriety and promotions.

Each kind has its own group in catalog.py (``blind4-update:<kind>``) and every case of these
groups is ``untouched`` (:data:`~bench.memory_truth_cases.catalog.UNTOUCHED_GROUPS`): the set is
for measurement only, never for tuning. About a third of the updates do not name the old value
(:data:`OLD_VALUE_UNNAMED`); five messages carry a new fact beside the update (``also_new``).
"""

from __future__ import annotations

from bench.memory_truth_cases import NEG, UpdateCase, assistant, f, q, update

A = assistant

#: words that end a habit or a state, besides a plain negation
STOPPED = rf"(?:\b(?:came off|come off|gave|stopped|quit|retired|no more|any longer)\b|{NEG})"
#: words that call a plan off, besides a plain negation
CALLED_OFF = (
    rf"(?:\b(?:off|cancel|scrap|pulled|decided against|against|knocked|on the head|let us down"
    rf"|not going ahead|not enough)|{NEG})"
)
#: words that put a fact in the past
PAST = r"\b(?:used to|former|formerly|previous|old|ex-|than the)"

#: the cases whose update message does not name the old value (it is only implied)
OLD_VALUE_UNNAMED = frozenset(
    {
        "b4-neg-drive-licence",
        "b4-rep-broadband-zen",
        "b4-rep-pension-vanguard",
        "b4-rep-cycle-canal",
        "b4-rep-vet-oak-tree",
        "b4-cor-nephew-aiden",
        "b4-cor-anniversary-4th",
        "b4-can-puppy-breeder",
        "b4-imp-postman-retired",
        "b4-imp-nurse-qualified",
        "b4-imp-aberdeen-neighbours",
        "b4-imp-sober",
        "b4-imp-head-of-design",
    }
)

NEGATION = [
    update(
        "b4-neg-lactose",
        "negation",
        [
            [
                "I'm lactose intolerant, so it's oat milk in everything for me.",
                A("Noted, I'll skip the cheese recipes."),
            ],
            [
                A("Shall I plan the shopping list?"),
                "Go on. Turns out I'm not lactose intolerant at all, the hospital test came back clear.",
            ],
        ],
        [q("Is the user lactose intolerant?", f("lactose", NEG), f("lactose", none=[NEG]))],
        user_id="siobhan",
    ),
    update(
        "b4-neg-drive-licence",
        "negation",
        [
            ["I drive up to the allotment every Sunday with the tools in the boot.", ("Ken", "Bring me some beans.")],
            [
                ("Ken", "See you at the allotment Sunday?"),
                "Yes, though I'm not driving these days, my grandson takes me up.",
            ],
        ],
        [
            q("Does Marta drive?", f("driv", NEG), f("\\bdrive", none=[NEG])),
            q("How does Marta get to the allotment?", f("grandson"), f("\\bdrive", none=[NEG])),
        ],
        speaker="Marta",
    ),
    update(
        "b4-neg-podcast",
        "negation",
        [
            ["I host a weekly podcast about board games with my mate Ravi.", A("What's it called?"), "Meeple Talk."],
            [
                A("Any episodes to promote this week?"),
                "We're not doing the podcast any longer, Ravi moved to Canada and I haven't the time.",
            ],
        ],
        [q("Does the user host a podcast?", f("podcast", STOPPED), f("podcast", none=[STOPPED]))],
        also_new=[q("Where did Ravi move?", f("Ravi", "Canada"))],
        user_id="owain",
    ),
    update(
        "b4-neg-braces",
        "negation",
        [
            ["My son Ade wears braces, the orthodontist tightens them every six weeks."],
            [("Efua", "How's Ade?"), "Ade's braces came off on Friday, so no more orthodontist trips!"],
        ],
        [q("Does Ade wear braces?", f("braces", "came off|off\\b"), f("braces", none=["off\\b", NEG]))],
        speaker="Kofi",
    ),
    update(
        "b4-neg-sertraline",
        "negation",
        [
            ["I'm on sertraline, 50mg every morning, it's helped a lot.", A("Thanks for telling me.")],
            [A("How have you been feeling?"), "Good. I've come off the sertraline completely, with my GP's blessing."],
        ],
        [q("Does the user take sertraline?", f("sertraline", STOPPED), f("sertraline", none=[STOPPED]))],
        user_id="harriet",
    ),
    update(
        "b4-neg-season-ticket",
        "negation",
        [
            ["I've got a season ticket at Hibs, I'm at every home game.", ("Shona", "Rather you than me.")],
            [("Shona", "Coming to the derby?"), "Didn't renew the season ticket this year, the prices went mental."],
        ],
        [q("Does Callum have a season ticket?", f("season ticket", NEG), f("season ticket", none=[NEG, "renew"]))],
        speaker="Callum",
    ),
]

REPLACEMENT = [
    update(
        "b4-rep-broadband-zen",
        "replacement",
        [
            ["Our broadband is with Virgin Media and it drops every single evening."],
            [
                A("Is the internet behaving?"),
                "We went with a local fibre company called Zen in the end, rock solid so far.",
            ],
        ],
        [q("Who provides the user's broadband?", f("Zen\\b"), f("Virgin", none=[NEG, PAST]))],
        user_id="lowri",
    ),
    update(
        "b4-rep-hairdresser-paulo",
        "replacement",
        [
            ["My hairdresser is Kelly at Snips on the high street, she's a genius with curls."],
            [("Abi", "Love the new cut!"), "Thanks, I go to Paulo in town for my hair these days, Kelly moved away."],
        ],
        [q("Who does Imani's hair?", f("Paulo"), f("Kelly", "hairdresser|Snips|curls", none=[NEG, PAST]))],
        speaker="Imani",
    ),
    update(
        "b4-rep-pension-vanguard",
        "replacement",
        [
            ["My pension is with Aviva, I put five percent in every month."],
            [A("Did you sort the paperwork?"), "Yes, I've transferred my pension to Vanguard, the fees are lower."],
        ],
        [q("Who is the user's pension with?", f("Vanguard"), f("Aviva", none=[NEG, PAST, "transfer"]))],
        user_id="colm",
    ),
    update(
        "b4-rep-swimming-sunday",
        "replacement",
        [
            ["The twins have swimming lessons on Saturday mornings at the leisure centre."],
            [
                ("Dev", "Free this weekend?"),
                "Sunday's tricky, swimming is on Sunday afternoons now, they changed the timetable.",
            ],
        ],
        [q("When do Gemma's twins have swimming lessons?", f("swim", "Sunday"), f("Saturday", none=[NEG, PAST]))],
        speaker="Gemma",
    ),
    update(
        "b4-rep-cycle-canal",
        "replacement",
        [
            ["I get the 38 bus to work, it takes forty minutes door to door."],
            [
                A("How was the commute today?"),
                "Lovely, I cycle to work on the canal path now, quicker than the bus ever was.",
            ],
        ],
        [q("How does the user get to work?", f("cycl"), f("\\b38\\b|bus", none=[NEG, PAST]))],
        user_id="ffion",
    ),
    update(
        "b4-rep-vet-oak-tree",
        "replacement",
        [
            ["Pickles, our elderly tabby, sees the vet at Riverside Vets for her thyroid."],
            [
                A("When is Pickles' next check-up?"),
                "On the 3rd, we've registered Pickles with Oak Tree Vets, it's walking distance. "
                "She turned fifteen on Tuesday, too.",
            ],
        ],
        [q("Which vet does Pickles go to?", f("Oak Tree"), f("Riverside", none=[NEG, PAST]))],
        also_new=[q("How old is Pickles?", f("fifteen"))],
        user_id="gordon",
    ),
]

CORRECTION = [
    update(
        "b4-cor-postcode",
        "correction",
        [
            ["Our postcode is LS6 2AB, for the parcel that's coming."],
            [A("Shall I save the address?"), "Postcode correction: LS6 2BA, I always transpose those."],
        ],
        [q("What is the user's postcode?", f("2BA"), f("2AB"))],
        user_id="rashida",
    ),
    update(
        "b4-cor-nephew-aiden",
        "correction",
        [
            ["My nephew Aidan starts at Cardiff uni in September, we're all so proud."],
            [("Pat", "Send him my best."), "I will. Sorry, it's Aiden with an e, his mum would kill me."],
        ],
        [q("What is Dolores's nephew called?", f("Aiden"), f("Aidan"))],
        speaker="Dolores",
    ),
    update(
        "b4-cor-parents-evening",
        "correction",
        [
            ["Parents' evening is on Thursday at 5:15 with Miss Hardy."],
            ["I misread the letter, parents' evening is at 6:15, still Thursday."],
        ],
        [q("What time is parents' evening?", f("6:15"), f("5:15"))],
        user_id="jolene",
    ),
    update(
        "b4-cor-third-floor",
        "correction",
        [
            ["We're on the fourth floor and the lift is always broken, which is fun with the shopping."],
            [
                A("Did the sofa fit up the stairs?"),
                "Just! Third floor, not fourth, I keep miscounting because of the mezzanine.",
            ],
        ],
        [q("Which floor does the user live on?", f("third"), f("fourth", none=[NEG]))],
        user_id="benedikt",
    ),
    update(
        "b4-cor-anniversary-4th",
        "correction",
        [
            ["Our wedding anniversary is on the 14th of October, twelve years this time."],
            [("Claire", "Booked somewhere nice?"), "Mixed up my dates, our anniversary is the 4th of October."],
        ],
        [q("When is Hugo's wedding anniversary?", f("4th"), f("14th"))],
        speaker="Hugo",
    ),
    update(
        "b4-cor-flat-21",
        "correction",
        [
            ["Deliveries go to flat 12, Mercer Court, the buzzer is broken."],
            ["Flat 21, sorry, not 12, the courier keeps going to my neighbour."],
        ],
        [q("What is the user's flat number?", f("21"), f("12", none=[NEG]))],
        user_id="maksim",
    ),
]

CANCELLATION = [
    update(
        "b4-can-marathon",
        "cancellation",
        [
            ["I'm running the Manchester marathon in April, training's going well.", ("Hamza", "Legend.")],
            [("Hamza", "How many miles this week?"), "None, I've pulled out of the marathon, my Achilles has gone."],
        ],
        [q("Is Yusuf running the Manchester marathon?", f("marathon", CALLED_OFF), f("marathon", none=[CALLED_OFF]))],
        speaker="Yusuf",
    ),
    update(
        "b4-can-loft",
        "cancellation",
        [
            ["We're getting a loft conversion done in the summer, the builders start in June."],
            [A("Ready for the builders?"), "The loft conversion's not going ahead, the quote came in at double."],
        ],
        [q("Is the user getting a loft conversion?", f("loft", CALLED_OFF), f("loft", none=[CALLED_OFF]))],
        user_id="priscilla",
    ),
    update(
        "b4-can-puppy-breeder",
        "cancellation",
        [
            ["We're collecting a cocker spaniel puppy from the breeder next month!"],
            [A("Got the crate ready?"), "The breeder let us down, so there's no puppy coming after all."],
        ],
        [q("Is the user getting a puppy?", f("puppy", NEG), f("puppy|spaniel", none=[CALLED_OFF]))],
        user_id="tegan",
    ),
    update(
        "b4-can-surprise-party",
        "cancellation",
        [
            ["I'm throwing a surprise party for Paulo's 50th at the cricket club on the 20th."],
            [
                ("Lu", "What time should I get there?"),
                "Paulo found out, so we've knocked the surprise party on the head. We'll go for a curry instead.",
            ],
        ],
        [q("Is Ines throwing a surprise party?", f("party", CALLED_OFF), f("party", none=[CALLED_OFF]))],
        also_new=[q("What are Ines and Paulo doing instead?", f("curry"))],
        speaker="Ines",
    ),
    update(
        "b4-can-japan",
        "cancellation",
        [
            ["We're going to Japan for three weeks in April, Kyoto and Tokyo."],
            [A("Have you sorted the rail passes?"), "We've decided against Japan this year, money's too tight."],
        ],
        [q("Is the user going to Japan?", f("Japan", "against"), f("Japan|Kyoto", none=[CALLED_OFF]))],
        user_id="aled",
    ),
    update(
        "b4-can-pottery-course",
        "cancellation",
        [
            ["I've enrolled on a pottery course at the community college, starting in January."],
            [("Fen", "Made me a mug yet?"), "The college pulled the pottery course, not enough sign-ups."],
        ],
        [q("Is Wren doing a pottery course?", f("pottery", CALLED_OFF), f("pottery", none=[CALLED_OFF]))],
        speaker="Wren",
    ),
]

IMPLICATION = [
    update(
        "b4-imp-postman-retired",
        "implication",
        [
            ["I work as a postman in Bangor, I'm out on the round by six."],
            [A("What are you up to this week?"), "Now that I've retired I finally have time for the garden."],
        ],
        [q("Does the user work as a postman?", f("retired"), f("postman", none=[NEG, PAST, "retired"]))],
        user_id="dafydd",
    ),
    update(
        "b4-imp-nurse-qualified",
        "implication",
        [
            ["I'm doing a nursing degree at Salford, second year, placements are tough."],
            [
                ("Jade", "How's the ward?"),
                "Since qualifying I've been working on the children's ward at the Royal. "
                "I've also adopted a rescue greyhound called Bolt.",
            ],
        ],
        [q("What does Sol do?", f("ward"), f("degree|second year", none=[NEG, PAST]))],
        also_new=[q("What is Sol's dog called?", f("Bolt"))],
        speaker="Sol",
    ),
    update(
        "b4-imp-aberdeen-neighbours",
        "implication",
        [
            ["We live in Glasgow's west end, near the Botanic Gardens."],
            [A("How did the move go?"), "Our new neighbours in Aberdeen brought round a cake on our first night."],
        ],
        [q("Where does the user live?", f("Aberdeen"), f("Glasgow", none=[NEG, PAST]))],
        user_id="kirsty",
    ),
    update(
        "b4-imp-trek-tram",
        "implication",
        [
            ["I commute on my road bike, a blue Trek, eight miles each way."],
            [("Pav", "Still cycling in?"), "Ever since selling the Trek I've been getting the tram in."],
        ],
        [q("How does Nadia commute?", f("tram"), f("Trek|bike", none=[NEG, PAST, "sell|sold"]))],
        speaker="Nadia",
    ),
    update(
        "b4-imp-sober",
        "implication",
        [
            ["I have a glass of red wine most nights with dinner."],
            [A("How are you sleeping?"), "Six months sober today, and I'm sleeping so much better."],
        ],
        [q("Does the user drink wine?", f("sober"), f("wine", none=[NEG, PAST]))],
        user_id="morag",
    ),
    update(
        "b4-imp-head-of-design",
        "implication",
        [
            ["I'm a junior designer at a small agency in Leeds, mostly doing logos."],
            [
                ("Ro", "How's the new role?"),
                "My first week as head of design has been mostly meetings. Also, I've taken up bouldering.",
            ],
        ],
        [q("What is Ellis's job?", f("head of design"), f("junior designer", none=[NEG, PAST]))],
        also_new=[q("What sport has Ellis taken up?", f("boulder"))],
        speaker="Ellis",
    ),
]

BLIND4_UPDATES: list[UpdateCase] = [*NEGATION, *REPLACEMENT, *CORRECTION, *CANCELLATION, *IMPLICATION]
