"""Facts that change over several sessions, in everyday chat: negated, replaced, corrected,
cancelled, or implied by something said later. Some messages hold an update and a new fact
(``also_new``). Questions are asked the way an agent would: in the user's words or about them.
"""

from __future__ import annotations

from bench.memory_truth_cases import NEG, UpdateCase, assistant, f, q, update

A = assistant

NEGATION = [
    update(
        "upd-neg-peanuts",
        "negation",
        [
            ["Quick thing for later: I'm allergic to peanuts.", "I also work night shifts at the hospital."],
            [
                A("How did the appointment with the allergist go?"),
                "Great news, I'm not allergic to peanuts after all! The first test was a false positive.",
            ],
        ],
        [
            q("food allergies", f("peanut", NEG), f("allergic", "peanut", none=[NEG])),
            q("Can the user eat peanuts?", f("peanut", NEG), f("allergic", "peanut", none=[NEG])),
        ],
        user_id="ana",
    ),
    update(
        "upd-neg-vegetarian-priya",
        "negation",
        [
            [
                "I've been vegetarian for about five years.",
                ("Tom", "Respect, I could never give up bacon."),
                "My favourite thing to cook is a big mushroom risotto.",
            ],
            [
                ("Tom", "Want to grab burgers on Friday?"),
                "Sure! I'm not vegetarian anymore, I started eating fish and chicken again last month.",
            ],
        ],
        [
            q("Is Priya vegetarian?", f("vegetarian", NEG), f("vegetarian", none=[NEG])),
            q("What does Priya eat?", f("fish|chicken"), f("vegetarian", none=[NEG])),
        ],
        speaker="Priya",
    ),
    update(
        "upd-neg-smoking",
        "negation",
        [
            ["I smoke about half a pack a day, I'm trying to cut down.", "My wife keeps nagging me about it."],
            [
                A("How is cutting down going?"),
                "I don't smoke anymore, it's been three weeks! And I've started swimming three mornings a week.",
            ],
        ],
        [q("Does the user smoke?", f("smok", NEG), f("smok", none=[NEG, "quit"]))],
        also_new=[q("What exercise does the user do?", f("swim"))],
        user_id="marco",
    ),
    update(
        "upd-neg-married-carlos",
        "negation",
        [
            ["My husband Carlos and I just celebrated ten years of marriage.", "We have two kids, Ines and Tiago."],
            ["I'm not married anymore. Carlos and I divorced in May, it was amicable."],
        ],
        [
            q(
                "Is the user married?",
                [f("married", NEG), f("divorc")],
                f("husband|marriage|married", none=[NEG, "divorc"]),
            )
        ],
        user_id="beatriz",
    ),
    update(
        "upd-neg-coffee-jonas",
        "negation",
        [
            [
                "I drink three espressos a day, it's the only way I survive Mondays.",
                ("Eli", "Ha, same, I'm a cappuccino guy though."),
            ],
            [
                ("Eli", "Are you coming to the nine o'clock meeting?"),
                "No more coffee for me, I quit caffeine completely since my doctor told me to stop.",
            ],
        ],
        [q("How much coffee does Jonas drink?", f("coffee|caffeine", NEG), f("espresso|coffee", none=[NEG, "quit"]))],
        speaker="Jonas",
    ),
    update(
        "upd-neg-license",
        "negation",
        [
            ["I don't have a driver's license, so I bike everywhere.", "I live in a small flat near the canal."],
            ["I finally passed my driving test last Thursday, I have a license now!"],
        ],
        [q("Can the user drive?", f("licen|passed", none=[NEG]), f("licen", NEG))],
        user_id="femi",
    ),
    update(
        "upd-neg-gym",
        "negation",
        [
            ["I'm a member at the Iron Works gym downtown, I go every Tuesday and Thursday."],
            ["I run a small bakery with my brother, we open at six.", A("That sounds like early mornings!")],
            ["I'm no longer going to Iron Works, I cancelled the membership because it got too expensive."],
        ],
        [
            q(
                "Which gym does the user go to?",
                f("Iron Works", "no longer|cancel"),
                f("Iron Works", none=[NEG, "cancel"]),
            )
        ],
        user_id="kofi",
    ),
    update(
        "upd-neg-wfh-hana",
        "negation",
        [
            ["I work from home every day, my commute is just the hallway.", ("Yuki", "Lucky you!")],
            ["I don't work from home now, the company called everyone back to the office five days a week."],
        ],
        [q("Does Hana work from home?", f("home", NEG), f("work", "home", none=[NEG]))],
        speaker="Hana",
    ),
    update(
        "upd-neg-piano",
        "negation",
        [
            ["I take piano lessons every Saturday morning.", "My teacher is really strict about scales."],
            ["I'm not taking piano lessons anymore, my teacher moved to Vienna."],
        ],
        [q("What does the user do on Saturdays?", f("piano", NEG), f("piano|scales", none=[NEG]))],
        user_id="lena",
    ),
    update(
        "upd-neg-spicy",
        "negation",
        [
            ["I love spicy food, the hotter the better.", "My go-to is a vindaloo from the place on Mill Road."],
            ["I can't handle spicy food now, the doctor said my stomach needs a break after the ulcer."],
        ],
        [
            q(
                "Does the user like spicy food?",
                f("spicy", NEG),
                [f("spicy", none=[NEG]), f("vindaloo")],
            )
        ],
        user_id="raj",
    ),
]

REPLACEMENT = [
    update(
        "upd-rep-porto-lisbon",
        "replacement",
        [
            ["I live in Porto with my partner Rui.", "I work in marketing for a wine exporter."],
            [A("How's the new project going?"), "Busy! We're launching a new label in the spring."],
            ["I moved to Lisbon now, I don't live in Porto anymore."],
        ],
        [
            q("Where does the user live?", f("Lisbon"), f("Porto", none=["Lisbon"])),
            q("user's home city", f("Lisbon"), f("Porto", none=["Lisbon"])),
        ],
        user_id="joana",
    ),
    update(
        "upd-rep-career-marta",
        "replacement",
        [
            ["I'm a pharmacist at the Boots on King Street.", ("Joe", "Do you like it?")],
            ["I switched careers, I'm a primary school teacher now."],
        ],
        [q("What is Marta's job?", f("teacher"), f("pharmacist", none=["teacher"]))],
        speaker="Marta",
    ),
    update(
        "upd-rep-phone",
        "replacement",
        [
            ["I use an old Samsung Galaxy S9, the battery is terrible."],
            ["I switched to an iPhone 15 last week, the Samsung finally died."],
        ],
        [q("What phone does the user have?", f("iPhone"), f("Samsung|Galaxy", none=["iPhone"]))],
        user_id="tom",
    ),
    update(
        "upd-rep-car",
        "replacement",
        [
            ["I drive a 2012 Honda Civic, it has 200,000 km on it.", "I commute 40 minutes each way."],
            [A("Any news on the car?"), "I traded in the Civic, I drive a Tesla Model 3 now."],
        ],
        [q("What car does the user drive?", f("Tesla"), f("Civic|Honda", none=["Tesla"]))],
        user_id="greg",
    ),
    update(
        "upd-rep-coffee-order",
        "replacement",
        [
            ["My usual order is a flat white with oat milk.", "I get it from the kiosk by the station."],
            ["I used to get flat whites but now I order a cold brew every morning."],
        ],
        [q("What's the user's usual coffee order?", f("cold brew"), f("flat white", none=["cold brew"]))],
        user_id="mia",
    ),
    update(
        "upd-rep-running-distance",
        "replacement",
        [
            ["I run 5 km three times a week, usually along the river."],
            ["I'm up to 10 km per run now, and I signed up for the Cardiff half marathon in October."],
        ],
        [q("How far does the user run?", f(r"10 ?km"), f(r"5 ?km", none=[r"10 ?km"]))],
        also_new=[q("What race is the user training for?", f("half marathon"))],
        user_id="owen",
    ),
    update(
        "upd-rep-partner-dev",
        "replacement",
        [
            ["I've been dating Sofia for two years, she's a vet.", ("Ana", "Aww, you two are cute.")],
            [("Ana", "Long time no see!"), "Sofia and I broke up in the spring, I'm seeing someone new now, Clara."],
        ],
        [q("Who is Dev dating?", f("Clara"), f("Sofia", none=["Clara", "broke up"]))],
        speaker="Dev",
    ),
    update(
        "upd-rep-employer",
        "replacement",
        [
            ["I work at Deloitte as an auditor.", "Busy season is brutal, I barely see my cat."],
            ["I left Deloitte and joined a startup called Finch as head of finance."],
        ],
        [q("Where does the user work?", f("Finch"), f("Deloitte|auditor", none=["Finch", "left"]))],
        user_id="hamid",
    ),
    update(
        "upd-rep-bedtime",
        "replacement",
        [
            ["I go to bed around midnight most nights.", "I read for a bit before sleeping."],
            ["Now I go to bed at 10 pm because the baby wakes up at 5."],
        ],
        [q("What time does the user go to bed?", f(r"10 ?pm"), f("midnight", none=[r"10 ?pm"]))],
        user_id="chiara",
    ),
    update(
        "upd-rep-language-osaka",
        "replacement",
        [
            ["I'm learning Italian on Duolingo, I'm on a 200 day streak."],
            ["I switched from Italian to Japanese, since my company is sending me to Osaka next year."],
        ],
        [q("What language is the user learning?", f("Japanese"), f("Italian", none=["Japanese"]))],
        also_new=[q("Where is the user's company sending them?", f("Osaka"))],
        user_id="pablo",
    ),
    update(
        "upd-rep-favourite-show",
        "replacement",
        [
            ["My favourite series right now is The Bear, I've watched it twice."],
            ["I've moved on from The Bear, Severance is my favourite show now."],
        ],
        [q("What's the user's favourite show?", f("Severance"), f("Bear", none=["Severance"]))],
        user_id="zoe",
    ),
    update(
        "upd-rep-doctor-ruth",
        "replacement",
        [
            ["My GP is Dr. Okafor at the Riverside clinic.", ("Mike", "Is she any good?")],
            ["I changed GPs, I see Dr. Lindqvist at the Elm Street practice now."],
        ],
        [q("Who is Ruth's doctor?", f("Lindqvist"), f("Okafor|Riverside", none=["Lindqvist"]))],
        speaker="Ruth",
    ),
]

CORRECTION = [
    update(
        "upd-cor-jenna",
        "correction",
        [
            ["My sister Jen is visiting next weekend, I need to clean the spare room."],
            ["Sorry, it's Jenna, not Jen, she hates the nickname. She's bringing her husband Marco too."],
        ],
        [q("What's the name of the user's sister?", f(r"Jenna\b"), f(r"Jen\b", none=[r"Jenna\b"]))],
        also_new=[q("Who is coming with the user's sister?", f("Marco"))],
        user_id="lucy",
    ),
    update(
        "upd-cor-birthday-olu",
        "correction",
        [
            ["My birthday is on March 14th, come to the party!", ("Kemi", "Wouldn't miss it.")],
            ["Correction: my birthday is March 16th, not the 14th, I typed it wrong on the invite."],
        ],
        [q("When is Olu's birthday?", f("16"), f("14", none=["16"]))],
        speaker="Olu",
    ),
    update(
        "upd-cor-dog-breed",
        "correction",
        [
            ["We adopted a beagle called Pepper from the shelter!", A("Congratulations! How old is she?")],
            ["Actually I was wrong, Pepper is a basset hound, not a beagle. The shelter mislabelled her."],
        ],
        [q("What breed is the user's dog?", f("basset"), f("beagle", none=["basset"]))],
        user_id="nora",
    ),
    update(
        "upd-cor-dentist-time",
        "correction",
        [
            ["My dentist appointment is on Tuesday at 3 pm.", "I also need to pick up my prescription."],
            ["I got the time wrong, the dentist is at 4:30 pm on Tuesday, not 3."],
        ],
        [q("When is the user's dentist appointment?", f("4:30"), f(r"3 ?pm", none=["4:30"]))],
        user_id="ivan",
    ),
    update(
        "upd-cor-sulfa",
        "correction",
        [
            ["Please note I'm allergic to penicillin.", "I'm seeing a new GP next week."],
            ["Correction: I'm allergic to sulfa drugs, not penicillin. I mixed them up."],
        ],
        [q("What medication is the user allergic to?", f("sulfa"), f("penicillin", none=["sulfa"]))],
        user_id="sara",
    ),
    update(
        "upd-cor-address",
        "correction",
        [
            ["My new flat is at 42 Baker Lane, second floor.", A("Nice, is it close to your office?")],
            ["Typo earlier: the flat is at 24 Baker Lane, not 42."],
        ],
        [q("What's the user's address?", f("24 Baker"), f("42 Baker", none=[r"24\b"]))],
        user_id="ahmed",
    ),
    update(
        "upd-cor-mateo-age-lucia",
        "correction",
        [
            ["My son Mateo just turned seven, he wants a bike for his party.", ("Mark", "Seven already!")],
            ["Oops, Mateo is eight, not seven. I keep forgetting he had a birthday in June."],
        ],
        [q("How old is Mateo?", f("eight"), f("seven", none=["eight"]))],
        speaker="Lucia",
    ),
    update(
        "upd-cor-flight-date",
        "correction",
        [
            ["My flight to Toronto is on 3 June, I land in the evening."],
            ["Small correction: the Toronto flight is on 5 June, I read the wrong line of the booking."],
        ],
        [
            q(
                "When does the user fly to Toronto?",
                f(r"5 June|June 5"),
                f(r"3 June|June 3", none=[r"5 June|June 5"]),
            )
        ],
        user_id="emma",
    ),
    update(
        "upd-cor-company-name",
        "correction",
        [
            ["I work for Northwind Logistics in the planning team.", A("What do you plan?")],
            ["Truck routes, mostly. Sorry, I said it wrong earlier: it's Northgate Logistics, not Northwind."],
        ],
        [q("Which company does the user work for?", f("Northgate"), f("Northwind", none=["Northgate"]))],
        user_id="dmitri",
    ),
    update(
        "upd-cor-manager-surname",
        "correction",
        [
            ["My manager is Paul Green, he's very supportive.", "Our team is six people."],
            ["Correction, my manager's name is Paul Greene, with an e at the end."],
        ],
        [q("Who is the user's manager?", f("Greene"), f(r"Green\b", none=["Greene"]))],
        user_id="amara",
    ),
]

CANCELLATION = [
    update(
        "upd-can-japan-trip",
        "cancellation",
        [
            ["We're going to Japan in March for two weeks!", A("Exciting! Which cities?"), "Tokyo and Kyoto."],
            ["We called off the Japan trip, work got too busy."],
        ],
        [
            q(
                "What trips is the user planning?",
                f("Japan", "called off|cancel|not going|n't going"),
                [f("Japan", none=["called off", "cancel", NEG]), f("Tokyo|Kyoto", none=["called off", "cancel"])],
            )
        ],
        user_id="kate",
    ),
    update(
        "upd-can-wedding-aisha",
        "cancellation",
        [
            ["Omar and I are getting married on 20 September!", ("Ben", "Congratulations!!")],
            ["The wedding is off, Omar and I decided to split up."],
        ],
        [
            q(
                "When is Aisha's wedding?",
                f("wedding|married", "off|cancel|split"),
                f("married|wedding", none=[r"\boff\b", "cancel", "split", NEG]),
            )
        ],
        speaker="Aisha",
    ),
    update(
        "upd-can-inlaws-dinner",
        "cancellation",
        [
            ["Dinner with my in-laws is on Saturday at 7, I'm making lasagne."],
            ["Saturday's dinner with the in-laws got cancelled, they're both sick with the flu."],
        ],
        [
            q(
                "What are the user's plans for Saturday?",
                f("dinner", "cancel"),
                [f("dinner", none=["cancel"]), f("lasagne", none=["cancel"])],
            )
        ],
        user_id="paula",
    ),
    update(
        "upd-can-pottery-course",
        "cancellation",
        [
            ["I signed up for a pottery course starting next month, Wednesday evenings."],
            ["I dropped out of the pottery course before it even started, I couldn't fit it in."],
        ],
        [
            q(
                "Is the user taking any courses?",
                f("pottery", "drop|cancel|quit"),
                f("pottery", none=["drop", "cancel", "quit", NEG]),
            )
        ],
        user_id="will",
    ),
    update(
        "upd-can-denver-move",
        "cancellation",
        [
            ["We're planning to move to Denver in the summer for my husband's job."],
            ["We're not moving to Denver after all, his transfer fell through."],
        ],
        [q("Where is the user moving?", f("Denver", NEG), f("Denver", none=[NEG, "fell through"]))],
        user_id="jess",
    ),
    update(
        "upd-can-housewarming-kenji",
        "cancellation",
        [
            ["I'm throwing a housewarming party next Friday, you're invited.", ("Rosa", "I'll bring wine!")],
            ["I had to cancel the housewarming, the landlord still hasn't finished the repairs."],
        ],
        [q("When is Kenji's housewarming party?", f("housewarming", "cancel"), f("housewarming", none=["cancel"]))],
        speaker="Kenji",
    ),
    update(
        "upd-can-berlin-marathon",
        "cancellation",
        [
            ["I'm running the Berlin marathon in September, my first one!", A("Amazing, how is training?")],
            ["I pulled out of the Berlin marathon. I tore a ligament in my knee."],
        ],
        [
            q(
                "What races is the user running?",
                f("Berlin", "pull|withdr|cancel|not|n't"),
                f("Berlin", none=["pull", "withdr", "cancel", NEG]),
            )
        ],
        also_new=[q("Does the user have any injuries?", f("knee"))],
        user_id="anders",
    ),
    update(
        "upd-can-bath-spa",
        "cancellation",
        [
            ["My sister and I booked a spa weekend in Bath for the 12th."],
            ["The Bath spa weekend is cancelled, my sister broke her wrist skiing."],
        ],
        [q("What is the user doing on the 12th?", f("spa", "cancel"), f("spa", none=["cancel"]))],
        also_new=[q("What happened to the user's sister?", f("wrist"))],
        user_id="helen",
    ),
    update(
        "upd-can-quarterly-review",
        "cancellation",
        [
            ["The quarterly review with my boss is set for Thursday afternoon.", "I'm nervous about it."],
            ["My boss cancelled Thursday's quarterly review, no new date yet."],
        ],
        [q("When is the user's quarterly review?", f("review", "cancel"), f("review", none=["cancel"]))],
        user_id="victor",
    ),
]

IMPLICATION = [
    update(
        "upd-imp-porto-lisbon",
        "implication",
        [
            ["I live in Porto, in a flat near the river.", "I'm a graphic designer."],
            ["Since I moved to Lisbon, I take the tram to work every day and I joined a surf club in Cascais."],
        ],
        [q("Where does the user live?", f("Lisbon"), f("Porto", none=["Lisbon"]))],
        also_new=[q("What clubs has the user joined?", f("surf"))],
        user_id="rita",
    ),
    update(
        "upd-imp-grace-teaching",
        "implication",
        [
            ["I'm a nurse at St. Mary's, mostly night shifts.", ("Tim", "That must be exhausting.")],
            ["Now that I'm teaching nursing at the university, I finally sleep at night."],
        ],
        [q("What does Grace do for work?", f("teach"), f(r"nurse\b|night shift", none=["teach"]))],
        speaker="Grace",
    ),
    update(
        "upd-imp-baby-born",
        "implication",
        [
            ["We're expecting our first baby in April!", A("Congratulations! Do you know if it's a boy or a girl?")],
            ["Since the baby was born, I haven't slept more than four hours a night."],
        ],
        [q("Does the user have children?", f("baby", "born"), f("expecting", none=["born"]))],
        user_id="tariq",
    ),
    update(
        "upd-imp-left-bank",
        "implication",
        [
            ["I work at the bank downtown as a loan officer.", "I've been there eight years."],
            ["Ever since I left the bank, I've had way more time for my woodworking."],
        ],
        [q("Where does the user work?", f("left", "bank"), f("bank|loan officer", none=["left"]))],
        user_id="gary",
    ),
    update(
        "upd-imp-sold-volvo",
        "implication",
        [
            ["I drive my old Volvo to work every day, it's a 30 minute drive."],
            ["Since selling the Volvo, I cycle to work and I've lost four kilos."],
        ],
        [q("How does the user get to work?", f("cycl|bike"), f("Volvo", none=["sell|sold"]))],
        user_id="maja",
    ),
    update(
        "upd-imp-vegan-nina",
        "implication",
        [
            ["I eat meat pretty much every day, I love a good steak.", ("Paul", "Same, I'm a burger man.")],
            ["Since going vegan in January, I cook a lot more lentils and I'm training for a triathlon."],
        ],
        [
            q("What is Nina's diet?", f("vegan"), f("steak|meat", none=["vegan"])),
            q("Does Nina eat meat?", f("vegan"), f("steak|meat", none=["vegan"])),
        ],
        also_new=[q("What is Nina training for?", f("triathlon"))],
        speaker="Nina",
    ),
    update(
        "upd-imp-single-married",
        "implication",
        [
            ["I'm single and honestly enjoying it, lots of time for travel."],
            ["Since the wedding in June, my husband and I have been house hunting in the suburbs."],
        ],
        [q("Is the user married?", f("husband|wedding"), f("single", none=["husband"]))],
        user_id="claire",
    ),
    update(
        "upd-imp-retired-teacher",
        "implication",
        [
            ["I teach high school chemistry, 25 years now.", "My students call me Mr. B."],
            ["Now that I'm retired, I spend my mornings in the garden."],
        ],
        [q("Does the user still teach?", f("retire"), f("teach|chemistry", none=["retire"]))],
        user_id="bernard",
    ),
    update(
        "upd-imp-school-sam",
        "implication",
        [
            ["My daughter goes to Hillside Elementary, it's a ten minute walk.", ("Lee", "Oh nice, close by.")],
            ["Since my daughter started at Oakwood Academy, the school run takes forty minutes."],
        ],
        [q("Which school does Sam's daughter go to?", f("Oakwood"), f("Hillside", none=["Oakwood"]))],
        speaker="Sam",
    ),
    update(
        "upd-imp-coeliac",
        "implication",
        [
            ["I can eat anything, no allergies or intolerances at all.", "I cook Italian most nights."],
            ["Since my coeliac diagnosis last month I have to avoid gluten completely."],
        ],
        [
            q(
                "Does the user have dietary restrictions?",
                f("gluten|coeliac|celiac"),
                f("eat anything|no allergies", none=["gluten"]),
            )
        ],
        user_id="olga",
    ),
]

UPDATES: list[UpdateCase] = [*NEGATION, *REPLACEMENT, *CORRECTION, *CANCELLATION, *IMPLICATION]
