"""Fact sheets: twenty short facts about one person, and questions that each one or two of them
answer (issue #27 item 6: "with 20 facts about one person, memory_search's default threshold
passes 19-20 of them for every question").

Unlike the conversations, the facts are written as an agent stores them with ``memory_add``
("Alice lives in Berlin.", "User prefers tabs over spaces."): short, each about a different
topic, every one naming the same person. That shared subject is what makes them all look
alike to the embedder. Every fact of a sheet is judged for every question of it: it answers
the question when it states one of the question's facts, else it does not (the facts of a
sheet are on distinct topics, so there is nothing unjudged).

The sheets are a group of their own (``sheet``) for the split rule of catalog.py: ordered by
the sha256 of their id, every third one, starting with the first, is ``untouched``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.memory_truth_cases import Fact, f


@dataclass(frozen=True)
class SheetQuestion:
    text: str
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class FactSheet:
    id: str
    person: str
    facts: tuple[str, ...]
    questions: tuple[SheetQuestion, ...]


def sheet(sheet_id: str, person: str, facts: list[str], questions: list[tuple[str, list[Fact]]]) -> FactSheet:
    return FactSheet(sheet_id, person, tuple(facts), tuple(SheetQuestion(text, tuple(fs)) for text, fs in questions))


SHEETS: list[FactSheet] = [
    sheet(
        "sheet-alice",
        "Alice",
        [
            "Alice lives in Berlin.",
            "Alice works as a nurse at the Charité hospital.",
            "Alice has a dog named Rex.",
            "Alice is allergic to peanuts.",
            "Alice's sister is called Emma.",
            "Alice plays the cello.",
            "Alice drives a red Fiat.",
            "Alice's birthday is on 3 May.",
            "Alice speaks Spanish and German.",
            "Alice is vegetarian.",
            "Alice runs 10 km every Sunday.",
            "Alice's favourite book is Dune.",
            "Alice studied biology in Leeds.",
            "Alice is married to Tom.",
            "Alice has two kids, Leo and Maya.",
            "Alice drinks green tea every morning.",
            "Alice is learning Japanese.",
            "Alice's manager is Dr. Weber.",
            "Alice goes to bed at 11 pm.",
            "Alice volunteers at the food bank.",
        ],
        [
            ("Where does Alice live?", [f("Berlin")]),
            ("What is Alice's job?", [f("nurse")]),
            ("What pets does Alice have?", [f("dog")]),
            ("What is Alice allergic to?", [f("allergic")]),
            ("What instrument does Alice play?", [f("cello")]),
            ("What car does Alice drive?", [f("Fiat")]),
            ("When is Alice's birthday?", [f("birthday")]),
            ("What languages does Alice speak or learn?", [f("Spanish"), f("Japanese")]),
            ("Does Alice eat meat?", [f("vegetarian")]),
            ("Who is Alice's husband?", [f("married")]),
        ],
    ),
    sheet(
        "sheet-marcus",
        "Marcus",
        [
            "Marcus grew up in Glasgow.",
            "Marcus is a software engineer at Spotify.",
            "Marcus has a cat called Miso.",
            "Marcus cannot eat gluten.",
            "Marcus's brother Ian lives in Toronto.",
            "Marcus plays the drums in a jazz band.",
            "Marcus cycles to work.",
            "Marcus was born on 12 November 1988.",
            "Marcus is fluent in French.",
            "Marcus loves Thai food.",
            "Marcus swims twice a week.",
            "Marcus's favourite film is Blade Runner.",
            "Marcus has a master's degree in physics.",
            "Marcus is engaged to Priya.",
            "Marcus has no children.",
            "Marcus drinks two espressos a day.",
            "Marcus is saving for a flat in Edinburgh.",
            "Marcus's team lead is Sara Lind.",
            "Marcus wakes up at 6 am.",
            "Marcus coaches a youth football team.",
        ],
        [
            ("Where did Marcus grow up?", [f("Glasgow")]),
            ("Where does Marcus work?", [f("Spotify")]),
            ("Does Marcus have pets?", [f("cat")]),
            ("What can't Marcus eat?", [f("gluten")]),
            ("What instrument does Marcus play?", [f("drums")]),
            ("How does Marcus get to work?", [f("cycles")]),
            ("When was Marcus born?", [f("born")]),
            ("What does Marcus drink?", [f("espresso")]),
            ("Who is Marcus's partner?", [f("engaged")]),
            ("What sports does Marcus do?", [f("swims"), f("football")]),
        ],
    ),
    sheet(
        "sheet-dev-prefs",
        "the user",
        [
            "User prefers tabs over spaces.",
            "User writes most services in Go.",
            "User uses Neovim as the main editor.",
            "User deploys to Kubernetes on AWS.",
            "User prefers PostgreSQL for relational data.",
            "User runs tests with pytest.",
            "User works in the Europe/Lisbon time zone.",
            "User's laptop is a ThinkPad X1 running Fedora.",
            "User reviews pull requests every morning.",
            "User dislikes ORMs and writes plain SQL.",
            "User's team uses trunk-based development.",
            "User is allergic to cats.",
            "User prefers dark mode in every tool.",
            "User's GitHub handle is nightjar42.",
            "User takes Fridays off every other week.",
            "User prefers short commit messages in the imperative mood.",
            "User uses Terraform for infrastructure.",
            "User's on-call rotation is every fourth week.",
            "User prefers async meetings over calls.",
            "User is learning Rust in the evenings.",
        ],
        [
            ("Which editor does the user use?", [f("Neovim")]),
            ("What database does the user prefer?", [f("PostgreSQL")]),
            ("Where does the user deploy?", [f("Kubernetes")]),
            ("What test framework does the user use?", [f("pytest")]),
            ("What time zone is the user in?", [f("time zone")]),
            ("What are the user's formatting preferences?", [f("tabs")]),
            ("How does the user feel about ORMs?", [f("ORM")]),
            ("What programming languages does the user use?", [f("\\bGo\\b"), f("Rust")]),
            ("What is the user's GitHub username?", [f("GitHub")]),
            ("When is the user on call?", [f("on-call")]),
        ],
    ),
    sheet(
        "sheet-sofia",
        "Sofia",
        [
            "Sofia lives in Valencia near the beach.",
            "Sofia teaches history at a secondary school.",
            "Sofia has two rabbits, Coco and Nube.",
            "Sofia is lactose intolerant.",
            "Sofia's mother is called Carmen.",
            "Sofia sings in a choir on Tuesdays.",
            "Sofia does not have a driving licence.",
            "Sofia's birthday is 21 August.",
            "Sofia speaks Catalan and English.",
            "Sofia loves paella.",
            "Sofia practises yoga every morning.",
            "Sofia's favourite author is Isabel Allende.",
            "Sofia studied at the University of Salamanca.",
            "Sofia is divorced.",
            "Sofia has a daughter, Lucía, who is nine.",
            "Sofia drinks herbal tea at night.",
            "Sofia is planning a trip to Peru in July.",
            "Sofia's headteacher is Mr. Ortega.",
            "Sofia grows tomatoes on her balcony.",
            "Sofia is afraid of flying.",
        ],
        [
            ("Where does Sofia live?", [f("Valencia")]),
            ("What does Sofia do for a living?", [f("teaches")]),
            ("What pets does Sofia have?", [f("rabbits")]),
            ("Can Sofia drink milk?", [f("lactose")]),
            ("Can Sofia drive?", [f("driving licence")]),
            ("What are Sofia's hobbies?", [f("choir"), f("yoga"), f("tomatoes")]),
            ("Does Sofia have children?", [f("daughter")]),
            ("Where is Sofia travelling this summer?", [f("Peru")]),
            ("Who is Sofia's boss?", [f("headteacher")]),
        ],
    ),
    sheet(
        "sheet-home-health",
        "the user",
        [
            "User lives in a two-bedroom flat in Leeds.",
            "User takes metformin for type 2 diabetes.",
            "User's GP is Dr. Patel at the Meadow surgery.",
            "User has a dentist appointment every six months.",
            "User's partner is called Sam.",
            "User's landlord is slow to fix the boiler.",
            "User pays rent on the first of each month.",
            "User walks 8,000 steps a day.",
            "User is trying to cut down on sugar.",
            "User sleeps badly when it is hot.",
            "User's bank is Nationwide.",
            "User has a son, Theo, who is at university.",
            "User's car is a grey Skoda Octavia.",
            "User does the weekly shop at Lidl on Saturdays.",
            "User's broadband provider is Virgin Media.",
            "User wears glasses for reading.",
            "User's favourite TV show is Bake Off.",
            "User is allergic to penicillin.",
            "User's mum lives in Harrogate.",
            "User keeps chickens in the back garden.",
        ],
        [
            ("What medication does the user take?", [f("metformin")]),
            ("Who is the user's doctor?", [f("GP")]),
            ("Is the user allergic to any medicine?", [f("penicillin")]),
            ("Where does the user live?", [f("flat")]),
            ("What car does the user drive?", [f("Skoda")]),
            ("Where does the user do the shopping?", [f("Lidl")]),
            ("What animals does the user keep?", [f("chickens")]),
            ("Who are the user's family?", [f("partner"), f("son"), f("mum")]),
            ("What does the user watch on TV?", [f("Bake Off")]),
        ],
    ),
    sheet(
        "sheet-kenji",
        "Kenji",
        [
            "Kenji lives in Osaka with his parents.",
            "Kenji is a chef at a ramen shop.",
            "Kenji has a shiba inu called Hachi.",
            "Kenji is allergic to shellfish.",
            "Kenji's younger sister is Yui.",
            "Kenji plays the guitar.",
            "Kenji rides a scooter to work.",
            "Kenji's birthday is on 5 January.",
            "Kenji is learning English.",
            "Kenji loves baseball and supports the Hanshin Tigers.",
            "Kenji goes fishing on his days off.",
            "Kenji's favourite manga is One Piece.",
            "Kenji trained at a culinary school in Kyoto.",
            "Kenji is single.",
            "Kenji saves money to open his own restaurant.",
            "Kenji drinks green tea with every meal.",
            "Kenji visited Seoul last spring.",
            "Kenji's boss is Mr. Tanaka.",
            "Kenji works late shifts until midnight.",
            "Kenji collects vinyl records.",
        ],
        [
            ("Where does Kenji live?", [f("Osaka")]),
            ("What is Kenji's job?", [f("chef")]),
            ("What is Kenji's dog called?", [f("shiba")]),
            ("What food is Kenji allergic to?", [f("shellfish")]),
            ("Does Kenji have siblings?", [f("sister")]),
            ("What sports team does Kenji support?", [f("Tigers")]),
            ("Where did Kenji learn to cook?", [f("culinary")]),
            ("Is Kenji in a relationship?", [f("single")]),
            ("What are Kenji's plans for the future?", [f("own restaurant")]),
            ("What does Kenji do in his free time?", [f("fishing"), f("vinyl"), f("guitar")]),
        ],
    ),
]


def check_sheets(sheets: list[FactSheet]) -> list[str]:
    """Every question is answered by at least one fact of its sheet, and no fact is repeated."""
    problems = []
    for s in sheets:
        if len(set(s.facts)) != len(s.facts):
            problems.append(f"{s.id}: a fact is listed twice")
        for q in s.questions:
            if not any(fact.stated_in(text) for text in s.facts for fact in q.facts):
                problems.append(f"{s.id}: no fact answers {q.text!r}")
    return problems
