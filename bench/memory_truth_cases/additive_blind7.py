"""A seventh set of facts that only add, written with bench/memory_truth_cases/updates_blind7.py
and blind to the memory rules (group ``blind7-additive`` in catalog.py, every case
``untouched``). Many are shaped like changes while only adding: a brother who "too" joined
the fire service beside a midwife sister, a Shetland pony living with the horse, "another"
trip, a plastering course after knitting, Welsh lessons "now we live in Cardiff", a school
governor "as well", sleep apnoea "on top of" eczema, a second instrument "now too", Agatha
Christie "lately" beside Terry Pratchett, a cottage bought "but we're keeping the boat", a new
card "now as well", a guinea pig's new friend, a wife's degree beside her job, and one said by
a friend in the chat about the person.
"""

from __future__ import annotations

from bench.memory_truth_cases import AdditiveCase, additive_case, assistant, f

A = assistant

BLIND7_ADDITIVE: list[AdditiveCase] = [
    additive_case(
        "b7-add-sister-brother-services",
        [
            ["My sister Carys is a midwife in Swansea, she works mad shifts."],
            [
                A("Family all well?"),
                "Yes, my brother Owain's just joined the fire service too, so Mum worries about both of them now.",
            ],
        ],
        [
            ("Who are the user's siblings?", [f("Carys"), f("Owain")]),
            ("What does the user's sister do?", [f("Carys|sister", "midwife")]),
        ],
        user_id="nerys",
    ),
    additive_case(
        "b7-add-horse-pony",
        [
            ["I keep my horse Duke at a livery yard outside Malton.", ("Polly", "Still hacking out every morning?")],
            [
                ("Polly", "What was in the trailer?"),
                "We've bought a Shetland pony for the girls, Button, he's living with Duke.",
            ],
        ],
        [("What animals does Harriet have?", [f("Duke"), f("Button|Shetland")])],
        speaker="Harriet",
    ),
    additive_case(
        "b7-add-coast-trips",
        [
            ["We had a week in Pembrokeshire in May, walked the coast path every day."],
            [
                A("Been away anywhere?"),
                "Just back from Northumberland, we did Bamburgh and Holy Island, another cracking trip.",
            ],
        ],
        [
            (
                "Where has the user been on holiday this year?",
                [f("Pembrokeshire"), f("Northumberland|Bamburgh|Holy Island")],
            )
        ],
        user_id="keith",
    ),
    additive_case(
        "b7-add-knitting-plastering",
        [
            ["I've taught myself to knit socks off YouTube, I'm on my fourth pair."],
            [
                A("Good week?"),
                "Yes, I did a weekend plastering course and I can skim a wall now, the back bedroom looks brand new.",
            ],
        ],
        [("What skills has the user learned?", [f("knit"), f("plaster|skim")])],
        user_id="trish",
    ),
    additive_case(
        "b7-add-punjabi-welsh",
        [
            [
                "I speak Punjabi at home with my parents and English everywhere else.",
                ("Gurdeep", "Your Punjabi's better than mine!"),
            ],
            [
                ("Gurdeep", "What's with all the flashcards?"),
                "I've started Welsh lessons at the community centre now we live in Cardiff.",
            ],
        ],
        [("Which languages does Harpreet speak or learn?", [f("Punjabi"), f("Welsh")])],
        speaker="Harpreet",
    ),
    additive_case(
        "b7-add-brownies-governor",
        [
            ["I'm a Brownie leader, we meet in the church hall on Wednesdays."],
            [
                A("Busy week?"),
                "Mad. I've been made a school governor at the infants as well, first meeting was Tuesday.",
            ],
        ],
        [("What volunteer roles does the user have?", [f("Brownie"), f("governor")])],
        user_id="lorraine",
    ),
    additive_case(
        "b7-add-eczema-apnoea",
        [
            ["I've had eczema since I was a kid, mostly on my hands."],
            [
                A("How did the sleep clinic go?"),
                "They've diagnosed sleep apnoea, so I've got a CPAP mask now on top of the eczema creams.",
            ],
        ],
        [("What health conditions does the user have?", [f("eczema"), f("apnoea|CPAP")])],
        user_id="phil",
    ),
    additive_case(
        "b7-add-drums-harmonica",
        [
            ["I play drums in a covers band, we do pubs and weddings.", ("Dai", "Keep it down, mind.")],
            [("Dai", "What's that racket?"), "Harmonica! I'm learning it now too, a bit of blues on the back step."],
        ],
        [("What instruments does Rhys play?", [f("drum"), f("harmonica")])],
        speaker="Rhys",
    ),
    additive_case(
        "b7-add-scouts-sea-cadets",
        [
            ["My son Reuben goes to Scouts on Tuesday nights."],
            [
                A("How's Reuben?"),
                "Full of beans, he's joined the sea cadets on Thursdays too, he wants to join the navy.",
            ],
        ],
        [
            ("What clubs does Reuben go to?", [f("Scouts"), f("sea cadets")]),
            ("When does Reuben go to Scouts?", [f("Scouts", "Tuesday")]),
        ],
        user_id="bernadette",
    ),
    additive_case(
        "b7-add-pratchett-christie",
        [
            ["I've read every Terry Pratchett at least twice."],
            [A("Reading anything good?"), "I've got into Agatha Christie lately, I'm working through the Poirots."],
        ],
        [("Which authors does the user read?", [f("Pratchett"), f("Christie|Poirot")])],
        user_id="olive",
    ),
    additive_case(
        "b7-add-apple-plum-trees",
        [
            ["We've got an old Bramley apple tree at the bottom of the garden.", ("Nell", "Crumble season!")],
            [
                ("Nell", "What was in the pot by the gate?"),
                "A plum tree, a Victoria, I planted it on Sunday next to the Bramley.",
            ],
        ],
        [("What fruit trees does Ivor have?", [f("Bramley|apple"), f("plum|Victoria")])],
        speaker="Ivor",
    ),
    additive_case(
        "b7-add-friend-says-aqua-aerobics",
        [
            ["I go line dancing at the Legion on Monday nights.", ("Gail", "Yeehaw!")],
            [("Gail", "Noreen's started aqua aerobics at the baths on Fridays as well."), "Keeps me out of mischief."],
        ],
        [("What exercise classes does Noreen do?", [f("line danc"), f("aqua")])],
        speaker="Noreen",
    ),
    additive_case(
        "b7-add-narrowboat-cottage",
        [
            ["We've got a narrowboat moored at Braunston, we spend most weekends on her."],
            [A("Any news?"), "We've bought a little cottage in Staithes for the winters, but we're keeping the boat."],
        ],
        [("Where does the user spend their time away?", [f("narrowboat|Braunston"), f("cottage|Staithes")])],
        user_id="alistair",
    ),
    additive_case(
        "b7-add-forklift-cscs",
        [
            ["I've got my forklift licence, it's what got me the warehouse job."],
            [A("How was the course?"), "Passed! So I've got my CSCS card now as well, I can go on building sites."],
        ],
        [("What work qualifications does the user have?", [f("forklift"), f("CSCS")])],
        user_id="wayne",
    ),
    additive_case(
        "b7-add-wrexham-scarlets",
        [
            ["I've supported Wrexham since I was six, season ticket and all.", ("Lowri", "Up the Town!")],
            [
                ("Lowri", "Didn't know you liked the oval ball."),
                "I've started following the Scarlets this year too, went to my first match at Parc y Scarlets.",
            ],
        ],
        [("Which teams does Bryn support?", [f("Wrexham"), f("Scarlets")])],
        speaker="Bryn",
    ),
    additive_case(
        "b7-add-cleaning-bar-shifts",
        [
            ["I clean at the primary school before the kids get in, six till eight."],
            [
                A("You sound tired."),
                "I am, I've taken on bar shifts at the cricket club on Friday and Saturday nights too.",
            ],
        ],
        [("What jobs does the user have?", [f("clean"), f("bar shifts|cricket club")])],
        user_id="stacey",
    ),
    additive_case(
        "b7-add-guinea-pigs",
        [
            ["The kids have a guinea pig called Nibbles, she lives in a hutch in the kitchen."],
            [A("How's Nibbles?"), "Lonely, the vet said, so we got her a friend, a ginger one called Squeak."],
        ],
        [("What pets does the user's family have?", [f("Nibbles"), f("Squeak")])],
        user_id="shirley",
    ),
    additive_case(
        "b7-add-wife-paramedic-degree",
        [
            ["My wife Kirsty's a paramedic, she does four on, four off."],
            [
                A("How's Kirsty?"),
                "Knackered, she's started an Open University degree in psychology on her days off as well.",
            ],
        ],
        [("What is Kirsty doing?", [f("paramedic"), f("psychology|Open University")])],
        user_id="darren",
    ),
]
