"""A second set of facts that only add, written with bench/memory_truth_cases/updates_everyday.py
as a fresh held-out test (group ``everyday-additive`` in catalog.py): another sibling, child,
pet, trip, language, allergy, friend, side job, favourite... Many carry no cue word ("also",
"too", "another"), and several say the new fact in the very shape of the old one ("I have an
older sister called Noor." / "I have a younger brother called Idris."), which looks most like a
replacement while nothing is replaced.
"""

from __future__ import annotations

from bench.memory_truth_cases import AdditiveCase, additive_case, assistant, f

A = assistant

EVERYDAY_ADDITIVE: list[AdditiveCase] = [
    additive_case(
        "ev-add-sister-brother-same-shape",
        [
            ["I have an older sister called Noor.", A("Are you two close?"), "Very, we talk every day."],
            ["I have a younger brother called Idris."],
        ],
        [("Who are the user's siblings?", [f("Noor"), f("Idris")])],
        user_id="layla",
    ),
    additive_case(
        "ev-add-daughter-son-same-shape",
        [
            ["My daughter Zainab is nine.", ("Ruth", "She's getting so tall.")],
            [A("How was parents' evening?"), "Good, her teacher says she reads a lot."],
            ["My son Yusuf is four."],
        ],
        [("What are Bilal's children called?", [f("Zainab"), f("Yusuf")])],
        speaker="Bilal",
    ),
    additive_case(
        "ev-add-tortoise-budgie",
        [
            ["We've got a tortoise called Shelby, he's older than me."],
            ["We've got a budgie called Kiwi."],
        ],
        [("What pets does the user have?", [f("Shelby|tortoise"), f("Kiwi|budgie")])],
        user_id="dimitri",
    ),
    additive_case(
        "ev-add-trips-lisbon-crete",
        [
            ["In April I went to Lisbon for my friend's hen do, we barely slept."],
            [A("Any holidays coming up?"), "Not really, work is mad."],
            ["In August I went to Crete with my parents, we hired a little boat."],
        ],
        [("Where has the user been on holiday?", [f("Lisbon"), f("Crete")])],
        user_id="georgia",
    ),
    additive_case(
        "ev-add-tagalog-japanese",
        [
            ["I speak Tagalog with my family and English at work."],
            ["I'm learning Japanese on Duolingo, I'm on a 90-day streak."],
        ],
        [("What languages does the user speak or learn?", [f("Tagalog"), f("Japanese")])],
        user_id="joy",
    ),
    additive_case(
        "ev-add-allergies-three",
        [
            ["I'm allergic to shellfish, it's the EpiPen kind of allergy."],
            ["Turns out I'm allergic to birch pollen, that explains every April."],
            [A("Anything I should avoid suggesting for your garden?"), "Nothing with latex gloves, I react to latex."],
        ],
        [("What is the user allergic to?", [f("shellfish"), f("birch|pollen"), f("latex")])],
        user_id="oskar",
    ),
    additive_case(
        "ev-add-friends-tariq-hannah",
        [
            ["My best friend Tariq lives in Leicester, we've known each other since primary school."],
            [("Mum", "Did you call your friend back?"), "Yes, Hannah from uni just had a baby girl!"],
        ],
        [("Who are Ravi's friends?", [f("Tariq"), f("Hannah")])],
        speaker="Ravi",
    ),
    additive_case(
        "ev-add-hygienist-photography",
        [
            ["I work as a dental hygienist during the week."],
            [
                A("How was the weekend?"),
                "Busy, I shot a wedding in the Cotswolds. I do wedding photography for extra cash.",
            ],
        ],
        [("What jobs does the user do?", [f("hygienist"), f("photograph")])],
        user_id="beth",
    ),
    additive_case(
        "ev-add-bass-parkrun",
        [
            ["I play bass in a covers band, we do pubs around Bristol."],
            ["I've started doing parkrun on Saturday mornings, my time is terrible."],
        ],
        [("What are the user's hobbies?", [f("bass|band"), f("parkrun")])],
        user_id="jamal",
    ),
    additive_case(
        "ev-add-jollof-pudding",
        [
            ["My favourite food is jollof rice, my grandmother's recipe."],
            ["My favourite dessert is sticky toffee pudding."],
        ],
        [("What are the user's favourite foods?", [f("jollof"), f("sticky toffee|pudding")])],
        user_id="ama",
    ),
    additive_case(
        "ev-add-fleetwood-simz",
        [
            ["I love Fleetwood Mac, Rumours is on repeat in the car."],
            [("Jess", "Coming to the gig on Friday?"), "Obviously, I love Little Simz too."],
        ],
        [("What music does Ellie like?", [f("Fleetwood"), f("Little Simz")])],
        speaker="Ellie",
    ),
    additive_case(
        "ev-add-chemistry-data-science",
        [
            ["I have a degree in chemistry from Leeds."],
            [A("Have you thought about more study?"), "Done already, I finished a master's in data science online."],
        ],
        [("What qualifications does the user have?", [f("chemistry"), f("data science")])],
        user_id="nasser",
    ),
    additive_case(
        "ev-add-vscode-obsidian",
        [
            ["I write Python in VS Code with the Vim extension."],
            ["For notes I use Obsidian, with a daily page for each workday."],
        ],
        [("What software does the user use?", [f("VS Code"), f("Obsidian")])],
        user_id="mirela",
    ),
    additive_case(
        "ev-add-grandchildren",
        [
            ["My grandson Mateo just started walking, he's into everything."],
            ["My granddaughter Valentina was born on Tuesday, three kilos exactly!"],
        ],
        [("What are the user's grandchildren called?", [f("Mateo"), f("Valentina")])],
        user_id="carmela",
    ),
    additive_case(
        "ev-add-balcony-tomatoes-chillies",
        [
            ["We grow tomatoes on the balcony.", A("Cherry or big ones?"), "Cherry, they do best in pots."],
            ["We grow chillies on the balcony."],
        ],
        [("What does the user grow on the balcony?", [f("tomato"), f("chilli")])],
        user_id="efua",
    ),
    additive_case(
        "ev-add-son-football-swimming",
        [
            ["My son plays football on Tuesdays after school."],
            [A("How's the football going?"), "Great, he scored last week."],
            ["My son does swimming on Thursdays."],
        ],
        [("What activities does the user's son do?", [f("football"), f("swim")])],
        user_id="pieter",
    ),
    additive_case(
        "ev-add-piano-ukulele",
        [
            ["I play the piano, mostly jazz standards."],
            ["Another instrument I've picked up is the ukulele, it fits in my backpack."],
        ],
        [("What instruments does Hugo play?", [f("piano"), f("ukulele")])],
        speaker="Hugo",
    ),
    additive_case(
        "ev-add-foodbank-shelter",
        [
            ["I volunteer at the food bank on Monday evenings."],
            [("Nell", "Fancy a walk on Sunday?"), "Can't, I help out at the animal shelter on Sundays now."],
        ],
        [("Where does Agnes volunteer?", [f("food bank"), f("animal shelter")])],
        speaker="Agnes",
    ),
    additive_case(
        "ev-add-spotify-netflix",
        [
            ["I pay for Spotify every month."],
            [A("Want me to list your monthly costs?"), "Later, thanks."],
            ["I pay for Netflix every month."],
        ],
        [("What subscriptions does the user pay for?", [f("Spotify"), f("Netflix")])],
        user_id="tobias",
    ),
    additive_case(
        "ev-add-thyroid-vitamin-d",
        [
            ["I take levothyroxine for my thyroid, first thing in the morning."],
            ["The doctor put me on vitamin D for the winter months."],
        ],
        [("What does the user take daily?", [f("levothyroxine"), f("vitamin D")])],
        user_id="gwen",
    ),
    additive_case(
        "ev-add-nairobi-amsterdam",
        [
            ["I grew up in Nairobi, in Westlands."],
            [A("How did you end up in Europe?"), "I lived in Amsterdam for three years after university."],
        ],
        [("Where has the user lived?", [f("Nairobi"), f("Amsterdam")])],
        user_id="wanjiru",
    ),
    additive_case(
        "ev-add-scuba-first-aid",
        [
            ["I'm a certified scuba diver, I qualified in Dahab."],
            ["I got my first aid certificate last week through work."],
        ],
        [("What certifications does the user have?", [f("scuba|diver"), f("first aid")])],
        user_id="karim",
    ),
    additive_case(
        "ev-add-thai-brunch",
        [
            ["Our favourite takeaway is the Thai place on Mill Road."],
            ["Our new favourite brunch spot is Fig and Olive, the shakshuka is amazing."],
        ],
        [("Where does the user like to eat?", [f("Thai"), f("Fig and Olive|shakshuka")])],
        user_id="rosie",
    ),
    additive_case(
        "ev-add-cousins-three",
        [
            ["My cousin Priyanka lives in Pune."],
            ["My cousin Arjun lives in Chennai."],
            [A("Do you visit them often?"), "Every Diwali.", "My cousin Devika lives in Kochi."],
        ],
        [
            ("Who are the user's cousins?", [f("Priyanka"), f("Arjun"), f("Devika")]),
            ("Where do the user's cousins live?", [f("Pune"), f("Chennai"), f("Kochi")]),
        ],
        user_id="rohan",
    ),
    additive_case(
        "ev-add-payroll-onboarding",
        [
            ["At work I handle payroll for about two hundred people."],
            [("Kate", "How's the new intern?"), "Keen. I'm in charge of onboarding new hires now."],
        ],
        [("What is Denise responsible for at work?", [f("payroll"), f("onboarding")])],
        speaker="Denise",
    ),
]
