"""A fifth set of facts that only add, written with bench/memory_truth_cases/updates_blind5.py
and apart from the memory rules (group ``blind5-additive`` in catalog.py, every case
``untouched``). Most name two people or things of one kind (two friends, two cousins, two
cars, two sisters, two dogs, two neighbours, two jobs) whose facts have the shape of a change:
"my friend Tomasz moved to Krakow" beside "my friend Ola lives in Warsaw", "my sister Ana is a
nurse now" beside "my sister Bea is a teacher".
"""

from __future__ import annotations

from bench.memory_truth_cases import AdditiveCase, additive_case, assistant, f

A = assistant

BLIND5_ADDITIVE: list[AdditiveCase] = [
    additive_case(
        "b5-add-friends-cities",
        [
            ["My friend Ola lives in Warsaw, we video call every Sunday."],
            [A("Any news from your friends?"), "My friend Tomasz moved to Krakow last month for a new job."],
        ],
        [
            ("Where does the user's friend Ola live?", [f("Ola", "Warsaw")]),
            ("Where do the user's friends live?", [f("Warsaw"), f("Krakow")]),
        ],
        user_id="marek",
    ),
    additive_case(
        "b5-add-sisters-jobs",
        [
            ["My sister Bea is a primary school teacher in Swansea."],
            [("Cat", "How are your sisters?"), "Good, my sister Ana is a nurse now, she qualified in May."],
        ],
        [("What do Rosa's sisters do?", [f("Bea", "teacher"), f("Ana", "nurse")])],
        speaker="Rosa",
    ),
    additive_case(
        "b5-add-two-cars",
        [
            ["We drive a Honda Jazz, it's perfect for the school run."],
            [A("Did you get the second car?"), "Yes, we bought a Ford Transit for my husband's joinery business."],
        ],
        [("What cars does the user's household have?", [f("Honda|Jazz"), f("Transit")])],
        user_id="tamsin",
    ),
    additive_case(
        "b5-add-cousins-weddings",
        [
            ["My cousin Sinead is getting married in Galway in June."],
            [("Pat", "Busy summer?"), "Very, my cousin Declan is getting married in Cork in August as well."],
        ],
        [("Which weddings is Niamh going to this summer?", [f("Galway|Sinead"), f("Cork|Declan")])],
        speaker="Niamh",
    ),
    additive_case(
        "b5-add-two-dogs",
        [
            ["Our dog Bramble is a springer spaniel, she's nine."],
            [A("How's Bramble?"), "Grand, and we got a second dog, a collie pup called Moss."],
        ],
        [("What dogs does the user have?", [f("Bramble"), f("Moss")])],
        user_id="ewan",
    ),
    additive_case(
        "b5-add-neighbours",
        [
            ["Our neighbour Mr Patel waters the plants when we're away."],
            [
                ("Jo", "Who's feeding the cat?"),
                "Our other neighbour, Mrs Doyle, switched from next door's cat to ours this week, she's lovely.",
            ],
        ],
        [("Which neighbours help Freddie out?", [f("Patel"), f("Doyle")])],
        speaker="Freddie",
    ),
    additive_case(
        "b5-add-second-job",
        [
            ["I work as a receptionist at the health centre, Monday to Thursday."],
            [A("Busy week?"), "Very, I've started doing Saturday shifts at the garden centre now, too."],
        ],
        [("Where does the user work?", [f("health centre"), f("garden centre")])],
        user_id="paula",
    ),
    additive_case(
        "b5-add-brothers-football",
        [
            ["My brother Kieran plays for Stockport in the Sunday league."],
            [
                ("Mel", "Any football news?"),
                "My brother Liam signed for Hyde on Saturday, so two brothers in two teams.",
            ],
        ],
        [("Who do Jade's brothers play for?", [f("Kieran|Stockport"), f("Liam|Hyde")])],
        speaker="Jade",
    ),
    additive_case(
        "b5-add-languages",
        [
            ["I speak Welsh at home with my parents."],
            [A("How's the language app?"), "Great, I can hold a conversation in Spanish now."],
        ],
        [("What languages does the user speak?", [f("Welsh"), f("Spanish")])],
        user_id="gwen",
    ),
    additive_case(
        "b5-add-aunts-towns",
        [
            ["My aunt Margaret lives in Whitby, right by the abbey."],
            [("Sue", "Where are you off to?"), "To see my aunt Irene, she's just moved to Scarborough."],
        ],
        [
            ("Where does Lesley's aunt Margaret live?", [f("Margaret|Whitby", "Whitby")]),
            ("Where do Lesley's aunts live?", [f("Whitby"), f("Scarborough")]),
        ],
        speaker="Lesley",
    ),
    additive_case(
        "b5-add-bikes",
        [
            ["I ride a Brompton folding bike to the station every day."],
            [A("Weekend plans?"), "Gravel riding, I've bought a Genesis gravel bike for the weekends."],
        ],
        [("What bikes does the user have?", [f("Brompton"), f("Genesis|gravel bike")])],
        user_id="huw",
    ),
    additive_case(
        "b5-add-friends-jobs",
        [
            ["My friend Zoe works at the BBC as a producer."],
            [
                ("Ali", "Seen your old uni mates?"),
                "Yes, my friend Priti is a solicitor now in Leeds, she's done so well.",
            ],
        ],
        [
            ("What does Hannah's friend Zoe do?", [f("Zoe|BBC", "producer|BBC")]),
            ("What do Hannah's friends do?", [f("producer|BBC"), f("solicitor")]),
        ],
        speaker="Hannah",
    ),
]
