"""A third set of facts that only add, written with bench/memory_truth_cases/updates_blind3.py and
blind to the memory rules (group ``blind3-additive`` in catalog.py, every case ``untouched``): a
brother besides a sister, a second pet, another trip, a new skill, a second job, another doctor,
a second phone number... Many are worded as updates are ("I also got a cat", "another trip to
Rome", "now I'm also", "my new friend", "I opened an account with", "moved to" about something
else), or in the very shape of the old fact about another person or thing, while nothing is
replaced.
"""

from __future__ import annotations

from bench.memory_truth_cases import AdditiveCase, additive_case, assistant, f

A = assistant

BLIND3_ADDITIVE: list[AdditiveCase] = [
    additive_case(
        "b3-add-also-cat",
        [
            ["We have a golden retriever called Mabel, she's scared of the hoover."],
            [A("How's Mabel?"), "Fine! I also got a cat last week, a grey one called Smudge."],
        ],
        [("What pets does the user have?", [f("Mabel|retriever"), f("Smudge|cat\\b")])],
        user_id="corinne",
    ),
    additive_case(
        "b3-add-another-rome",
        [
            ["We went to Rome in May, the food was unreal."],
            [("Gio", "Still dreaming about that carbonara?"), "Every day. We booked another trip to Rome for October!"],
        ],
        [("When has Nell been or will be in Rome?", [f("Rome", "May\\b"), f("Rome", "October")])],
        speaker="Nell",
    ),
    additive_case(
        "b3-add-brother-besides-sister",
        [
            ["My sister Hana is a paramedic in Leeds."],
            [
                A("Any family visiting this summer?"),
                "My brother Tomas is coming over from Prague, he works in IT there.",
            ],
        ],
        [("Who are the user's siblings?", [f("Hana"), f("Tomas")])],
        user_id="petra",
    ),
    additive_case(
        "b3-add-second-job-bookkeeping",
        [
            ["I teach yoga three evenings a week at a studio in Brixton."],
            ["I've picked up a second job doing the books for a garage on Saturdays."],
        ],
        [("What work does the user do?", [f("yoga"), f("books|bookkeep", "garage")])],
        user_id="marisa",
    ),
    additive_case(
        "b3-add-skill-welding",
        [
            ["I knit all the family's jumpers, it's my winter thing.", ("Ollie", "Mine's still my favourite.")],
            [
                ("Ollie", "What are you up to on Wednesdays?"),
                "I've just learned to weld at an evening class, I made a fire pit!",
            ],
        ],
        [("What crafts can Gwen do?", [f("knit"), f("weld")])],
        speaker="Gwen",
    ),
    additive_case(
        "b3-add-italian-now",
        [
            ["I speak French fluently, I grew up in Lyon."],
            [A("Any new year's resolutions?"), "I'm now learning Italian as well, two lessons in."],
        ],
        [("What languages does the user speak or learn?", [f("French"), f("Italian")])],
        user_id="anais",
    ),
    additive_case(
        "b3-add-office-moved-home-same",
        [
            ["We live in Hackney, in a flat above a bakery."],
            [A("How's work?"), "Chaotic, my office moved to King's Cross this month."],
        ],
        [
            ("Where does the user live?", [f("Hackney")]),
            ("Where is the user's office?", [f("King's Cross|Kings Cross")]),
        ],
        user_id="ruben",
    ),
    additive_case(
        "b3-add-daughter-arrived",
        [
            ["Our son Oscar is two and obsessed with diggers."],
            [("Grandad", "Any news?"), "Our daughter Ivy arrived on Sunday, 3.4 kilos!"],
        ],
        [("What are Leah's children called?", [f("Oscar"), f("Ivy")])],
        speaker="Leah",
    ),
    additive_case(
        "b3-add-allergy-kiwi",
        [
            ["I'm allergic to cats, my eyes swell up within minutes."],
            ["New one: I'm allergic to kiwi fruit too, found out the hard way at brunch."],
        ],
        [("What is the user allergic to?", [f("cat"), f("kiwi")])],
        user_id="fergus",
    ),
    additive_case(
        "b3-add-savings-chase",
        [
            ["My current account is with Nationwide, my wages go in there."],
            [A("Anything new with money?"), "I opened a savings account with Chase, the interest is much better."],
        ],
        [("Which banks does the user use?", [f("Nationwide"), f("Chase")])],
        user_id="imogen",
    ),
    additive_case(
        "b3-add-two-cars",
        [
            ["My wife drives a Volvo estate, it's basically a tank."],
            [("Stu", "What did you end up buying?"), "I drive a little Fiat 500 now for the school run."],
        ],
        [("What cars does Angus's household have?", [f("Volvo"), f("Fiat")])],
        speaker="Angus",
    ),
    additive_case(
        "b3-add-grandparents",
        [
            ["My grandmother lives with us, she moved in after her fall."],
            [A("Are you visiting anyone this weekend?"), "My grandfather, he lives in a care home in Sligo."],
        ],
        [("Where do the user's grandparents live?", [f("grandmother"), f("grandfather|Sligo")])],
        user_id="aisling",
    ),
    additive_case(
        "b3-add-japan-twice",
        [
            ["We're going to Japan in April to see the cherry blossom."],
            [
                ("Ken", "Any more trips planned?"),
                "In September we're going to Japan again, for my cousin's wedding in Osaka.",
            ],
        ],
        [("When is Hiro going to Japan?", [f("Japan", "April"), f("Japan|Osaka", "September")])],
        speaker="Hiro",
    ),
    additive_case(
        "b3-add-salsa-now-also",
        [
            ["I play five-a-side football on Monday nights."],
            ["Now I'm also doing a salsa class on Thursdays, my girlfriend dragged me along."],
        ],
        [("What activities does the user do each week?", [f("football|five-a-side"), f("salsa")])],
        user_id="kieran",
    ),
    additive_case(
        "b3-add-gp-dermatologist",
        [
            ["My GP is Dr. Osei at the Mill Lane practice."],
            [A("Did you get the referral?"), "Yes, my dermatologist is Dr. Varga at the Royal Free."],
        ],
        [("Which doctors does the user see?", [f("Osei"), f("Varga")])],
        user_id="sinead",
    ),
    additive_case(
        "b3-add-neighbours",
        [
            ["Our neighbour Pat feeds the cat when we're away."],
            [("Dee", "Who's got the spare key?"), "Our other neighbour, Gordon, has a spare key."],
        ],
        [("Which neighbours help Moira?", [f("Pat\\b"), f("Gordon")])],
        speaker="Moira",
    ),
    additive_case(
        "b3-add-second-medication",
        [
            ["I take ramipril for my blood pressure, one in the morning."],
            [A("How did the check-up go?"), "The doctor added atorvastatin for my cholesterol."],
        ],
        [("What medication does the user take?", [f("ramipril"), f("atorvastatin")])],
        user_id="clive",
    ),
    additive_case(
        "b3-add-work-number",
        [
            ["My mobile is 07911 123456."],
            ["My work number is 020 7946 0018, I'm there till six."],
        ],
        [("What are the user's phone numbers?", [f("07911"), f("020 7946")])],
        user_id="yusra",
    ),
    additive_case(
        "b3-add-work-email",
        [
            ["My personal email is dana.m@gmail.com."],
            [A("Where should I send the invoices?"), "For work stuff use dana.morgan@kestrel.io."],
        ],
        [("What are Dana's email addresses?", [f("gmail"), f("kestrel")])],
        speaker="Dana",
    ),
    additive_case(
        "b3-add-bees-chickens",
        [
            ["I keep bees at the bottom of the garden, two hives."],
            [("Hal", "Any new arrivals?"), "We got four chickens last month and they're laying already."],
        ],
        [("What animals does Rosalind keep?", [f("bee|hive"), f("chicken")])],
        speaker="Rosalind",
    ),
    additive_case(
        "b3-add-celtic-celtics",
        [
            ["I support Celtic, I've had a season ticket for twenty years."],
            [A("Watching anything tonight?"), "The Boston Celtics at 1am, my son got me into them."],
        ],
        [("What teams does the user follow?", [f("Celtic\\b"), f("Celtics")])],
        user_id="jim",
    ),
    additive_case(
        "b3-add-second-hamster",
        [
            ["We have a hamster called Nibbles, she lives in my daughter's room."],
            ["We got a second hamster, Pip, so Nibbles has company."],
        ],
        [("What are the user's hamsters called?", [f("Nibbles"), f("Pip\\b")])],
        user_id="shona",
    ),
    additive_case(
        "b3-add-trips-scotland-greece",
        [
            ["Last year we did a road trip round Scotland in a campervan."],
            [A("How was the summer?"), "Amazing, we went island hopping in Greece."],
        ],
        [("Where has the user been on holiday?", [f("Scotland"), f("Greece")])],
        user_id="magnus",
    ),
    additive_case(
        "b3-add-electrician-bsl",
        [
            ["I'm a qualified electrician, mostly rewiring old houses."],
            [("Jade", "What's with the night class?"), "I've been learning British Sign Language, my nephew is deaf."],
        ],
        [("What skills does Lewis have?", [f("electrician"), f("sign language|BSL")])],
        speaker="Lewis",
    ),
    additive_case(
        "b3-add-couple-jobs",
        [
            ["My husband works as a nurse at the Royal Infirmary."],
            [A("Early start today?"), "Always, I work as a postwoman and my round starts at six."],
        ],
        [("What do the user and her husband do for work?", [f("nurse"), f("postwoman|round")])],
        user_id="lorna",
    ),
    additive_case(
        "b3-add-physio-counselling",
        [
            ["I have physio on Monday mornings for my shoulder."],
            ["I've got counselling on Thursday afternoons as well."],
        ],
        [("What appointments does the user have each week?", [f("physio"), f("counsell|counsel")])],
        user_id="hattie",
    ),
    additive_case(
        "b3-add-new-laptop-gaming",
        [
            ["My work laptop is a MacBook Pro, the company pays for it."],
            [("Finn", "What did you get with the bonus?"), "A new laptop for gaming, an Alienware, it's ridiculous."],
        ],
        [("What computers does Kai have?", [f("MacBook"), f("Alienware")])],
        speaker="Kai",
    ),
    additive_case(
        "b3-add-new-friend",
        [
            ["My best friend is Lou, we met in nursery and never stopped talking."],
            [A("Busy weekend?"), "My new friend Ines from choir invited me to her birthday."],
        ],
        [("Who are the user's friends?", [f("Lou\\b"), f("Ines")])],
        user_id="tilly",
    ),
    additive_case(
        "b3-add-another-course",
        [
            ["I did a pottery course in the spring, my mugs are wonky but I love them."],
            ["I signed up for another course, this time woodturning."],
        ],
        [("What courses has the user done?", [f("pottery"), f("woodturn")])],
        user_id="bernard",
    ),
    additive_case(
        "b3-add-caravan-filey",
        [
            ["We live in a terraced house in Sheffield."],
            [
                ("Mags", "Where were you all weekend?"),
                "We just bought a little caravan at Filey, for weekends on the coast.",
            ],
        ],
        [("Where does Trevor have homes?", [f("Sheffield"), f("Filey|caravan")])],
        speaker="Trevor",
    ),
    additive_case(
        "b3-add-july-birthdays",
        [
            ["My husband's birthday is the 2nd of July."],
            [A("Anything coming up?"), "My mum's birthday is the 19th of July, she'll be seventy."],
        ],
        [("Whose birthdays are in July?", [f("husband", "2nd"), f("mum|mother", "19th")])],
        user_id="gemma",
    ),
    additive_case(
        "b3-add-sister-adopted",
        [
            ["I have two older brothers, both in the army."],
            [A("Big news at home?"), "My parents just adopted a little girl, so now I've got a sister too!"],
        ],
        [("What siblings does the user have?", [f("brother"), f("sister")])],
        user_id="cormac",
    ),
    additive_case(
        "b3-add-bins",
        [
            ["The bins go out on Tuesday night here."],
            ["Recycling goes out on Friday, every other week."],
        ],
        [("When do the bins and recycling go out?", [f("bin", "Tuesday"), f("recycl", "Friday")])],
        user_id="norma",
    ),
]
