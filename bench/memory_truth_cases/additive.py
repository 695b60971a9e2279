"""Facts that only add, over several sessions: a second pet, another sibling, another trip, a
new skill... Every fact stays true; none may close another. Some are worded with the cues a
change uses ("now", "new", "another", "also") and one restates an old fact beside a new one.
"""

from __future__ import annotations

from bench.memory_truth_cases import AdditiveCase, additive, assistant, f

A = assistant

ADDITIVE: list[AdditiveCase] = [
    additive(
        "add-pets-dog-cat",
        [
            ["I have a dog named Rex, a very lazy labrador.", "I work as a paralegal."],
            [A("How is Rex?"), "He's great. We adopted a cat too, her name is Luna."],
        ],
        [("What pets does the user have?", [f("Rex|labrador"), f("Luna")])],
        user_id="carmen",
    ),
    additive(
        "add-siblings-chloe",
        [
            ["My sister Emma lives in Leeds, she's a nurse.", ("Sophie", "Do you see her often?")],
            ["My brother Jack is moving in with me next month while he looks for a job."],
        ],
        [("Who are Chloe's siblings?", [f("Emma"), f("Jack")])],
        speaker="Chloe",
    ),
    additive(
        "add-trips-iceland-morocco",
        [
            ["Last summer I went to Iceland, the waterfalls were unreal."],
            ["In October I went to Morocco with my cousins, we stayed in Marrakech."],
        ],
        [("Where has the user traveled?", [f("Iceland"), f("Morocco|Marrakech")])],
        user_id="leo",
    ),
    additive(
        "add-skills-python-rust",
        [
            ["I code in Python, it's my main language at work."],
            ["I've now learned Rust too, I built a small command line tool with it."],
        ],
        [("What programming languages does the user know?", [f("Python"), f("Rust")])],
        user_id="yusuf",
    ),
    additive(
        "add-languages-spanish-german",
        [
            ["I speak Spanish fluently, my mom is from Madrid."],
            [A("Are you still taking classes?"), "Yes! I also speak German now, after three years of classes."],
        ],
        [("What languages does the user speak?", [f("Spanish"), f("German")])],
        user_id="elena",
    ),
    additive(
        "add-kids-leo-maya",
        [
            ["My son Leo is in second grade and loves dinosaurs."],
            ["Our daughter Maya was born last week! Leo is a very proud big brother."],
        ],
        [("What are the names of the user's children?", [f("Leo"), f("Maya")])],
        user_id="david",
    ),
    additive(
        "add-hobbies-ravi",
        [
            ["I paint watercolours on weekends, mostly landscapes.", ("Meera", "I'd love to see them.")],
            ["I've started rock climbing on Wednesday evenings as well."],
        ],
        [("What are Ravi's hobbies?", [f("watercolo|paint"), f("climb")])],
        speaker="Ravi",
    ),
    additive(
        "add-allergies-cats-birch",
        [
            ["I'm allergic to cats, so I can't visit my aunt's place for long."],
            ["Turns out I'm also allergic to birch pollen, spring is going to be rough."],
        ],
        [("What is the user allergic to?", [f("cat"), f("birch|pollen")])],
        user_id="noah",
    ),
    additive(
        "add-friends-sarah-priyanka",
        [
            ["My best friend from college is Sarah, she lives in Boston."],
            ["I've got a new close friend, Priyanka, we met at the climbing gym."],
        ],
        [("Who are the user's close friends?", [f("Sarah"), f("Priyanka")])],
        user_id="hannah",
    ),
    additive(
        "add-vehicles-corolla-transit",
        [
            ["I drive a blue Toyota Corolla, it's never let me down."],
            ["We bought a second car, a Ford Transit van for the catering business."],
        ],
        [("What vehicles does the user have?", [f("Corolla|Toyota"), f("Transit")])],
        user_id="luis",
    ),
    additive(
        "add-instruments-guitar-cello",
        [
            ["I play the guitar in a cover band, we do a lot of 90s rock."],
            ["I've picked up the cello as well, lessons are on Mondays."],
        ],
        [("What instruments does the user play?", [f("guitar"), f("cello")])],
        user_id="isla",
    ),
    additive(
        "add-degrees-economics-data",
        [
            ["I have a bachelor's in economics from Warwick."],
            ["I just finished my master's in data science at Edinburgh!"],
        ],
        [("What degrees does the user have?", [f("economics"), f("data science")])],
        user_id="arjun",
    ),
    additive(
        "add-books-dune-lefthand",
        [
            ["My favourite book is Dune, I reread it every couple of years."],
            ["Another favourite of mine is The Left Hand of Darkness, I finished it last night."],
        ],
        [("What are the user's favourite books?", [f("Dune"), f("Left Hand")])],
        user_id="quinn",
    ),
    additive(
        "add-restaurants-menya-georgian",
        [
            ["We love the ramen place on 5th Street, Menya."],
            ["We found another great spot, a Georgian bakery called Khachapuri House."],
        ],
        [("What restaurants does the user like?", [f("Menya|ramen"), f("Khachapuri|Georgian")])],
        user_id="felix",
    ),
    additive(
        "add-sports-football-padel",
        [
            ["I play five-a-side football on Tuesdays with people from work."],
            ["Now I also play padel on Sundays with my neighbour."],
        ],
        [("What sports does the user play?", [f("football"), f("padel")])],
        user_id="ruben",
    ),
    additive(
        "add-plants-fig-monstera",
        [
            ["I keep a fiddle leaf fig in the living room, it's finally growing."],
            ["I just bought a monstera for the bedroom."],
        ],
        [("What plants does the user have?", [f("fiddle"), f("monstera")])],
        user_id="ava",
    ),
    additive(
        "add-restated-porto-plus-dog",
        [
            ["I live in Porto, close to the football stadium."],
            ["I still live in Porto, and I just got a dog named Bolt."],
        ],
        [
            ("Where does the user live?", [f("Porto")]),
            ("Does the user have a dog?", [f("Bolt")]),
        ],
        user_id="tiago",
    ),
    additive(
        "add-dogs-ines",
        [
            ["We have a border collie called Nico, he needs so much exercise.", ("Pedro", "Collies are smart.")],
            ["We brought home another dog, a little terrier named Pip."],
        ],
        [("What dogs does Ines have?", [f("Nico|collie"), f("Pip|terrier")])],
        speaker="Ines",
    ),
    additive(
        "add-jobs-accountant-delivery",
        [
            ["I work as an accountant during the week at a firm in Croydon."],
            ["I've started driving for a delivery app on weekends for extra cash."],
        ],
        [("What jobs does the user have?", [f("accountant"), f("deliver")])],
        user_id="kwame",
    ),
    additive(
        "add-trips-rome-norway",
        [
            ["We're going to Rome in April for my mother's birthday."],
            ["We've also booked a trip to Norway for August to see the fjords."],
        ],
        [("What trips has the user booked?", [f("Rome"), f("Norway")])],
        user_id="julia",
    ),
    additive(
        "add-classes-spanish-photo",
        [
            ["I'm taking an evening class in Spanish at the community college."],
            ["I also signed up for a photography course on Saturdays."],
        ],
        [("What classes is the user taking?", [f("Spanish"), f("photograph")])],
        user_id="mark",
    ),
    additive(
        "add-meds-thyroid-vitd",
        [
            ["I take levothyroxine every morning for my thyroid."],
            ["My doctor added vitamin D to my daily routine too."],
        ],
        [("What medications does the user take?", [f("levothyroxine|thyroid"), f("vitamin D")])],
        user_id="agnes",
    ),
    additive(
        "add-grandkids-margaret",
        [
            ["My granddaughter Ella started school this year.", ("June", "Time flies!")],
            ["We have a new grandson, Oliver, born on Tuesday!"],
        ],
        [("Who are Margaret's grandchildren?", [f("Ella"), f("Oliver")])],
        speaker="Margaret",
    ),
    additive(
        "add-volunteer-foodbank-shelter",
        [
            ["I volunteer at the food bank on Thursdays."],
            ["I now also volunteer at the animal shelter on Sunday mornings."],
        ],
        [("Where does the user volunteer?", [f("food bank"), f("shelter")])],
        user_id="bea",
    ),
    additive(
        "add-concerts-coldplay-arctic",
        [
            ["I saw Coldplay at Wembley in June, it was incredible."],
            ["Last night I saw Arctic Monkeys in Manchester, best gig ever."],
        ],
        [("What concerts has the user been to?", [f("Coldplay"), f("Arctic Monkeys")])],
        user_id="callum",
    ),
    additive(
        "add-pets-three-sessions",
        [
            ["Our dog Biscuit turned three today."],
            ["We got a kitten last weekend, we named her Mochi."],
            ["We now have a rabbit too, Clover. The house is a zoo."],
        ],
        [("What pets does the user have?", [f("Biscuit"), f("Mochi"), f("Clover")])],
        user_id="ellie",
    ),
    additive(
        "add-certs-aws-cka",
        [
            ["I got my AWS Solutions Architect certification in January."],
            ["I also passed the CKA Kubernetes exam last week."],
        ],
        [("What certifications does the user have?", [f("AWS"), f("Kubernetes|CKA")])],
        user_id="sven",
    ),
    additive(
        "add-places-tomasz",
        [
            ["I grew up in Krakow, my parents still live there.", ("Ola", "Beautiful city.")],
            ["After university I lived in Dublin for three years."],
        ],
        [("Where has Tomasz lived?", [f("Krakow"), f("Dublin")])],
        speaker="Tomasz",
    ),
    additive(
        "add-foods-sushi-ethiopian",
        [
            ["I love sushi, especially salmon nigiri."],
            ["I'm also obsessed with Ethiopian food now, injera is amazing."],
        ],
        [("What foods does the user love?", [f("sushi"), f("Ethiopian|injera")])],
        user_id="lily",
    ),
    additive(
        "add-routine-meditate-journal",
        [
            ["I meditate for ten minutes every morning before work."],
            ["Now I also write in a journal after my morning coffee."],
        ],
        [("What is the user's morning routine?", [f("meditat"), f("journal")])],
        user_id="omar",
    ),
    additive(
        "add-daughter-ballet-swim",
        [
            ["My daughter does ballet on Wednesdays."],
            ["My daughter started swimming lessons on Fridays too."],
        ],
        [("What activities does the user's daughter do?", [f("ballet"), f("swim")])],
        user_id="fatima",
    ),
    additive(
        "add-team-diego-hannah",
        [
            ["My teammate Diego handles the backend, he's brilliant."],
            ["We hired a new designer, Hannah, she joins our team on Monday."],
        ],
        [("Who is on the user's team?", [f("Diego"), f("Hannah")])],
        user_id="max",
    ),
]
