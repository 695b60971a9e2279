"""A third set of facts that change, written blind to the memory rules (their code was not read)
to measure how the offline update recognition generalises: everyday chat of one person over two
to four sessions, on work, home, health, family, pets, travel, money, tech, hobbies, schedules
and contact details, with friends and the assistant in between.

Each kind has its own group in catalog.py (``blind3-update:<kind>``), and every case of these
groups is ``untouched`` (:data:`~bench.memory_truth_cases.catalog.UNTOUCHED_GROUPS`): the set
is for measurement only, never for tuning. In about a third of the cases the update does not
name the old value (:data:`OLD_VALUE_UNNAMED`); eight messages carry a new, unrelated fact
beside the update (``also_new``).
"""

from __future__ import annotations

from bench.memory_truth_cases import NEG, UpdateCase, assistant, f, q, update

A = assistant

#: words that end a habit or a state, besides a plain negation
ENDED = rf"(?:\b(?:gave up|given up|giving up|quit|quitting|stopped|stopping|no longer)\b|{NEG})"
#: words that call a plan off, besides a plain negation ("off" as a word: "Iceland is off")
CALLED_OFF = (
    rf"(?:\b(?:off|cancel|scrap|shelv|postpon|pushed back|fell through|axed|ditch|dropp"
    rf"|wound|won't be|isn't happening|not happening)|{NEG})"
)
#: words that put a fact in the past
FORMER = r"\b(?:used to|former|formerly|previous|old|ex-|until recently)"

#: the cases whose update message does not name the old value (it is only implied)
OLD_VALUE_UNNAMED = frozenset(
    {
        "b3-neg-piano-no-more",
        "b3-neg-saffy-injections",
        "b3-rep-dentist-chen",
        "b3-rep-boss-sandra",
        "b3-rep-bruno-raw",
        "b3-rep-running-club-tuesday",
        "b3-rep-octopus-electricity",
        "b3-rep-amara-school",
        "b3-rep-new-mobile",
        "b3-cor-katarina",
        "b3-cor-cabin-wifi",
        "b3-cor-spin-time",
        "b3-cor-infrastructure-team",
        "b3-cor-blood-type",
        "b3-can-saturday-dinner",
        "b3-can-knee-op",
        "b3-can-concert-fake",
        "b3-imp-valencia-spanish",
        "b3-imp-trainee-solicitor",
        "b3-imp-electric-mini",
        "b3-imp-deloitte",
        "b3-imp-mia-chicken",
    }
)

NEGATION = [
    update(
        "b3-neg-vegan-fish",
        "negation",
        [
            [
                "I've been vegan for three years, mostly for the animals.",
                ("Femi", "Even cheese?"),
                "Especially cheese, it was the hardest one.",
            ],
            [A("How's the new job treating you?"), "Long days, but the team is kind."],
            [
                A("Want some dinner ideas for the week?"),
                "Yes, and heads up: I'm not vegan anymore, my doctor wants me eating fish again for the iron.",
            ],
        ],
        [
            q("Is Anouk vegan?", f("vegan", NEG), f("vegan", none=[ENDED, FORMER])),
            q("Does Anouk eat fish?", [f("fish"), f("vegan", NEG)], f("vegan", none=[ENDED, FORMER])),
        ],
        speaker="Anouk",
    ),
    update(
        "b3-neg-smoking-no-longer",
        "negation",
        [
            ["I smoke about ten a day, which I know is bad.", A("Have you looked at the NHS stop service?")],
            ["I no longer smoke! The patches actually worked, it's been eight weeks."],
        ],
        [q("Does the user smoke?", f("smok", ENDED), f("smok|cigarette", none=[ENDED, FORMER, "non-smok"]))],
        user_id="declan",
    ),
    update(
        "b3-neg-gym-dont-now",
        "negation",
        [
            ["I've got a membership at the PureGym by the station, I go before work most days."],
            [("Ayla", "Did you watch the final?"), "Only the last ten minutes, I fell asleep."],
            [
                ("Ayla", "Fancy a session tomorrow morning?"),
                "I don't have a gym membership now, I just run along the canal, it's free.",
            ],
        ],
        [
            q("Does Tom have a gym membership?", f("gym", NEG), f("gym|PureGym", none=[ENDED, FORMER])),
            q("How does Tom exercise?", f("run|canal"), f("gym|PureGym", none=[ENDED, FORMER])),
        ],
        speaker="Tom",
    ),
    update(
        "b3-neg-nuts-after-all",
        "negation",
        [
            [
                "The allergist thinks Esme is allergic to tree nuts, so the whole house is nut-free for now.",
                A("That's a big change for the kitchen."),
            ],
            [
                A("How did the food challenge at the hospital go?"),
                "Brilliant, Esme isn't allergic to tree nuts after all! She ate a whole almond croissant.",
            ],
        ],
        [
            q("Is Esme allergic to nuts?", f("allerg", NEG), f("allerg", "nut", none=[NEG])),
            q("Can Esme eat nuts?", [f("allerg", NEG), f("almond")], f("allerg", "nut", none=[NEG])),
        ],
        user_id="bethan",
    ),
    update(
        "b3-neg-remote-anymore",
        "negation",
        [
            ["I work from home full time, my commute is the stairs.", ("Jo", "Living the dream.")],
            [
                "The company ended remote work in September, so I'm not working from home anymore. "
                "It's the Canary Wharf office five days a week."
            ],
        ],
        [
            q(
                "Does Maddie work from home?",
                f("home|remote", rf"{NEG}|ended"),
                f("from home|remote", none=[ENDED, FORMER, "ended"]),
            ),
            q(
                "Where does Maddie work?",
                f("office|Canary Wharf"),
                f("from home|remote", none=[ENDED, FORMER, "ended"]),
            ),
        ],
        speaker="Maddie",
    ),
    update(
        "b3-neg-piano-no-more",
        "negation",
        [
            ["I have piano lessons every Tuesday with Mrs. Alder, she's very strict."],
            [
                A("How's the Chopin coming along?"),
                "Slowly. No more lessons for me though, I'm teaching myself from videos.",
            ],
        ],
        [
            q(
                "Does the user take piano lessons?",
                [f("lesson", NEG), f("teach", "video")],
                f("lesson|Alder", none=[ENDED, FORMER]),
            )
        ],
        user_id="agata",
    ),
    update(
        "b3-neg-not-together",
        "negation",
        [
            [
                "I'm seeing someone, Tariq, we met at a climbing wall in March.",
                ("Sara", "Finally! Is he nice?"),
                "Very. He makes me laugh.",
            ],
            [("Sara", "How was your sister's graduation?"), "Lovely, Mum cried the whole time."],
            ["Tariq and I aren't together anymore, we ended it last month."],
        ],
        [
            q(
                "Is Lina in a relationship?",
                f("together", NEG),
                f("seeing|dating|boyfriend", none=[ENDED, FORMER, "ended"]),
            )
        ],
        speaker="Lina",
    ),
    update(
        "b3-neg-choir-any-more",
        "negation",
        [
            [
                "I sing alto in the church choir every Sunday morning.",
                A("What are you rehearsing for Easter?"),
                "Mostly Handel, as always.",
            ],
            [
                "I don't sing in the choir any more, my voice isn't what it was. "
                "I've joined a walking group on Saturdays instead."
            ],
        ],
        [q("Does the user sing in a choir?", f("choir", NEG), f("choir", none=[ENDED, FORMER]))],
        also_new=[q("What group has the user joined?", f("walking group"))],
        user_id="winifred",
    ),
    update(
        "b3-neg-saffy-injections",
        "negation",
        [
            [
                "Our cat Saffy is diabetic, she gets an insulin jab twice a day.",
                ("Kath", "Poor thing, does she mind?"),
                "She gets a treat after, so she puts up with it.",
            ],
            [("Kath", "How's Saffy?"), "In remission! The vet says she doesn't need injections anymore."],
        ],
        [
            q(
                "Does Saffy need insulin?",
                [f("inject|insulin|jab", NEG), f("remission")],
                f("insulin|jab|inject", none=[ENDED, FORMER]),
            )
        ],
        speaker="Rob",
    ),
    update(
        "b3-neg-car-loan-paid",
        "negation",
        [
            [
                "I'm still paying off the car loan, £240 a month until 2027.",
                A("Is that the Skoda?"),
                "Yes, the estate.",
            ],
            [
                A("Any luck with the budget?"),
                "Yes! I paid the last of the car loan off early, so I don't owe a penny on the car anymore.",
            ],
        ],
        [
            q(
                "Does the user have a car loan?",
                [f("loan", "paid|last"), f("owe", NEG)],
                f("loan|240", none=[NEG, "paid", "last", "owe"]),
            )
        ],
        user_id="nikhil",
    ),
]

REPLACEMENT = [
    update(
        "b3-rep-pixel",
        "replacement",
        [
            ["My phone's an iPhone 12 and the battery barely lasts till lunch.", ("Mei", "Get a new battery then.")],
            [
                ("Mei", "Did you sort the phone out?"),
                "Switched to a Pixel 8 last week, Android is taking some getting used to.",
            ],
        ],
        [q("What phone does Jonah have?", f("Pixel"), f("iPhone", none=[NEG, FORMER, "switched from", "sold"]))],
        speaker="Jonah",
    ),
    update(
        "b3-rep-dentist-chen",
        "replacement",
        [
            ["My dentist is Dr. Farouk on King Street, I've been going to him for years."],
            [
                A("Any appointments this month?"),
                "A check-up on the 9th with the new dentist, Dr. Chen. She's open on Saturdays, which helps.",
            ],
        ],
        [q("Who is the user's dentist?", f("Chen"), f("Farouk", none=[NEG, FORMER]))],
        user_id="margo",
    ),
    update(
        "b3-rep-coffee-green-tea",
        "replacement",
        [
            ["I drink about four coffees a day, always black."],
            [("Lena", "How's your sister settling in?"), "Good, she found a flat near the park."],
            ["I used to live on coffee but now it's green tea, my heart stopped racing at night."],
        ],
        [q("What does Dmitri drink during the day?", f("green tea"), f("coffee", none=[NEG, FORMER]))],
        speaker="Dmitri",
    ),
    update(
        "b3-rep-night-shift",
        "replacement",
        [
            ["I'm on the early shift at the warehouse, 6 till 2, Monday to Friday."],
            [
                A("How are you sleeping?"),
                "Badly, I'm on nights now at the warehouse, 10pm to 6am. "
                "My daughter Ellie started nursery too, so mornings are chaos.",
            ],
        ],
        [q("What shift does the user work?", f("night|10\\s?pm"), f("early shift|6 till 2", none=[NEG, FORMER]))],
        also_new=[q("Does the user's daughter go to nursery?", f("nursery"))],
        user_id="kerryann",
    ),
    update(
        "b3-rep-boss-sandra",
        "replacement",
        [
            ["My manager Derek checks every email I send before it goes out, it's exhausting."],
            [
                ("Pia", "Still miserable at work?"),
                "Much better, my new boss Sandra actually trusts us to get on with it.",
            ],
        ],
        [q("Who is Gus's manager?", f("Sandra"), f("Derek", none=[NEG, FORMER]))],
        speaker="Gus",
    ),
    update(
        "b3-rep-rotterdam",
        "replacement",
        [
            ["We rent a flat in Utrecht, five minutes from the station.", ("Femke", "Which we pay far too much for.")],
            [A("Any weekend plans?"), "Viewing a few places with Femke."],
            ["We moved to Rotterdam in July and bought our first place! Femke started a new job at the port as well."],
        ],
        [q("Where does Joost live?", f("Rotterdam"), f("Utrecht", none=[NEG, FORMER]))],
        also_new=[q("Where does Femke work?", f("Femke", "port"))],
        speaker="Joost",
    ),
    update(
        "b3-rep-bruno-raw",
        "replacement",
        [
            ["Bruno, our mastiff, eats Royal Canin dry food, the large breed one."],
            [A("How is Bruno's skin?"), "Bruno's on a raw diet now, the vet reckons it'll help with the itching."],
        ],
        [q("What does Bruno eat?", f("raw"), f("Royal Canin|dry food|kibble", none=[NEG, FORMER]))],
        user_id="stelios",
    ),
    update(
        "b3-rep-running-club-tuesday",
        "replacement",
        [
            ["My running club meets on Wednesdays at 7 by the boathouse."],
            [
                ("Chuka", "Dinner midweek?"),
                "The running club moved to Tuesdays, same time, so I'm free for dinner any other night.",
            ],
        ],
        [q("When does Ifeoma's running club meet?", f("Tuesday"), f("Wednesday", none=[NEG, FORMER]))],
        speaker="Ifeoma",
    ),
    update(
        "b3-rep-octopus-electricity",
        "replacement",
        [
            ["Our electricity is with British Gas, about £120 a month on direct debit."],
            [
                A("Did the meter reading go in?"),
                "Yes. Anyway, we're with Octopus now for the electricity, and it's closer to £95 a month.",
            ],
        ],
        [
            q("Who supplies the user's electricity?", f("Octopus"), f("British Gas", none=[NEG, FORMER])),
            q("How much does the user pay for electricity?", f("95"), f("120", none=[NEG, FORMER])),
        ],
        user_id="hollie",
    ),
    update(
        "b3-rep-neovim",
        "replacement",
        [
            ["I write all my code in Sublime Text, I've got it set up just how I like it."],
            [
                ("Bex", "Seen the new office chairs?"),
                "Nice. Oh, I've moved over to Neovim, it took a month to stop fighting it.",
            ],
        ],
        [q("What editor does Aurelio use?", f("Neovim"), f("Sublime", none=[NEG, FORMER]))],
        speaker="Aurelio",
    ),
    update(
        "b3-rep-amara-school",
        "replacement",
        [
            ["Our daughter Amara goes to St Anne's primary, it's just round the corner."],
            [
                A("How did the school move go?"),
                "Amara's at Greenfield Academy now and she loves it, the classes are tiny.",
            ],
        ],
        [q("Which school does Amara go to?", f("Greenfield"), f("St Anne", none=[NEG, FORMER]))],
        user_id="chioma",
    ),
    update(
        "b3-rep-new-mobile",
        "replacement",
        [
            ["If the delivery driver needs me, my mobile is 07700 900123."],
            [
                ("Dom", "Tried calling you yesterday, went straight to voicemail."),
                "Lost my phone on the train, sorry. New number is 07700 900456.",
            ],
        ],
        [q("What is Wes's mobile number?", f("900456"), f("900123"))],
        speaker="Wes",
    ),
]

CORRECTION = [
    update(
        "b3-cor-katarina",
        "correction",
        [
            ["My sister-in-law Katrina is coming to us for Christmas this year."],
            ["I spelled her name wrong before, it's Katarina, with an extra a."],
        ],
        [q("What is the user's sister-in-law called?", f("Katarina"), f("Katrina"))],
        user_id="ewan",
    ),
    update(
        "b3-cor-mri-wednesday",
        "correction",
        [
            ["My MRI is on Tuesday the 12th at 9am at the Royal Victoria."],
            ["Oops, the MRI is Wednesday the 13th, not Tuesday. Same time, 9am."],
            [("Sheila", "I'll pick you up at half eight on the day.")],
        ],
        [q("When is Noreen's MRI?", f("Wednesday|13th"), f("Tuesday|12th", none=[NEG]))],
        speaker="Noreen",
    ),
    update(
        "b3-cor-flight-digits",
        "correction",
        [
            ["Our flight home from Malaga is BA 2490 on Sunday evening."],
            [
                A("Do you want a reminder to check in?"),
                "Yes please. Also correction, it's BA 2094, I swapped the digits.",
            ],
        ],
        [q("What is the user's flight number home from Malaga?", f("2094"), f("2490"))],
        user_id="paloma",
    ),
    update(
        "b3-cor-felix-six",
        "correction",
        [
            ["Felix is turning five in June, he wants a dinosaur cake.", ("Aoife", "Five already!")],
            ["Felix is turning six, not five! I can't believe I got my own son's age wrong."],
        ],
        [q("How old is Felix turning?", f("six"), f("five", none=[NEG]))],
        speaker="Brigid",
    ),
    update(
        "b3-cor-cabin-wifi",
        "correction",
        [
            ["The wifi password at the cabin is pinecone42, for when the kids arrive."],
            ["Wrong password earlier, it's pinecone24."],
        ],
        [q("What is the wifi password at the cabin?", f("pinecone24"), f("pinecone42"))],
        user_id="gerhard",
    ),
    update(
        "b3-cor-dundalk",
        "correction",
        [
            ["My mother-in-law lives in Dundee, she's eighty this year."],
            [
                ("Niamh", "Mam's asking when we're visiting."),
                "My mother-in-law lives in Dundalk, not Dundee, I always mix those two up. "
                "She's coming to stay in May.",
            ],
        ],
        [q("Where does Ciaran's mother-in-law live?", f("Dundalk"), f("Dundee", none=[NEG]))],
        also_new=[q("When is Ciaran's mother-in-law coming to stay?", f("stay|visit", "May\\b"))],
        speaker="Ciaran",
    ),
    update(
        "b3-cor-rent-figure",
        "correction",
        [
            ["Our rent is £1,450 a month, bills on top."],
            [
                A("Shall I update the budget?"),
                "Yes, but sorry, the rent is £1,540, I had last year's figure in my head.",
            ],
        ],
        [q("How much is the user's rent?", f("1,?540"), f("1,?450"))],
        user_id="tamsin",
    ),
    update(
        "b3-cor-spin-time",
        "correction",
        [
            ["Spin class is at 6:30 on Thursdays, so I can't do dinner early."],
            ["Got the time wrong, spin is at 7:30 on Thursdays."],
        ],
        [q("What time is Dana's spin class?", f("7:30"), f("6:30"))],
        speaker="Dana",
    ),
    update(
        "b3-cor-infrastructure-team",
        "correction",
        [
            ["I joined the platform team at work last month, mostly Kubernetes stuff."],
            [
                A("How's the new team?"),
                "Good, though I got the name wrong: it's the infrastructure team I joined, the names are confusing.",
            ],
        ],
        [q("Which team is the user on at work?", f("infrastructure"), f("platform"))],
        user_id="oluwaseun",
    ),
    update(
        "b3-cor-blood-type",
        "correction",
        [
            ["I'm A positive, in case it ever matters at the hospital."],
            [
                ("Leyla", "Did you give blood today?"),
                "Yes, and the donor card says O positive, so I had my own blood type wrong.",
            ],
        ],
        [q("What is Hamid's blood type?", f("O positive"), f("A positive"))],
        speaker="Hamid",
    ),
]

CANCELLATION = [
    update(
        "b3-can-iceland",
        "cancellation",
        [
            ["We're flying to Reykjavik in February to chase the northern lights, Jonas booked it as a surprise."],
            [
                A("Packed your thermals yet?"),
                "Iceland is off, sadly. Jonas broke his ankle skiing, so we're staying home.",
            ],
        ],
        [
            q(
                "Is Saskia going to Iceland?",
                f("Iceland|Reykjavik|trip", CALLED_OFF),
                f("Reykjavik|Iceland|northern lights", none=[CALLED_OFF]),
            )
        ],
        also_new=[q("What happened to Jonas?", f("Jonas", "ankle"))],
        speaker="Saskia",
    ),
    update(
        "b3-can-saturday-dinner",
        "cancellation",
        [
            ["I'm hosting a dinner party on Saturday for Ana's 40th, eight of us."],
            [
                ("Rui", "What should I bring?"),
                "Nothing now, sorry. Saturday isn't happening, half the guests have flu.",
            ],
        ],
        [
            q(
                "What is Joaquim doing on Saturday?",
                f("Saturday", CALLED_OFF),
                f("dinner party|hosting", none=[CALLED_OFF]),
            )
        ],
        speaker="Joaquim",
    ),
    update(
        "b3-can-rania-wedding",
        "cancellation",
        [
            ["My sister Rania is getting married in Beirut in August, we're all flying out."],
            [A("Have you found a dress yet?"), "Still looking, nothing fits right."],
            ["Rania and Sami have called off the wedding. Honestly, none of us are surprised."],
        ],
        [
            q(
                "Is the user's sister getting married?",
                f("wedding", CALLED_OFF),
                f("married|wedding", none=[CALLED_OFF]),
            )
        ],
        user_id="yasmin",
    ),
    update(
        "b3-can-pycon-talk",
        "cancellation",
        [
            ["I'm giving a talk at PyCon Italia in May about type hints.", ("Marco", "Nervous?"), "Terrified."],
            ["They dropped my talk from the PyCon schedule, budget cuts, so I won't be going to Florence after all."],
        ],
        [q("Is Giulia speaking at PyCon?", f("talk|PyCon", CALLED_OFF), f("talk|PyCon", none=[CALLED_OFF]))],
        speaker="Giulia",
    ),
    update(
        "b3-can-mum-staying",
        "cancellation",
        [
            ["We've booked a removal van for the 30th to move Mum into the care home in Llandudno."],
            [
                A("Is everything ready for the 30th?"),
                "Mum's staying put after all, we cancelled the van. A carer will come in every morning instead.",
            ],
        ],
        [
            q(
                "Is the user's mum moving into a care home?",
                [f("van", CALLED_OFF), f("staying put")],
                f("removal|care home", none=[CALLED_OFF, "staying"]),
            )
        ],
        also_new=[q("Who helps the user's mum in the mornings?", f("carer"))],
        user_id="rhiannon",
    ),
    update(
        "b3-can-christmas-visit",
        "cancellation",
        [
            ["My parents are coming over from Gothenburg to stay with us for Christmas, two whole weeks."],
            [
                ("Mira", "Should I get the spare room ready?"),
                "No need, Mum and Dad aren't coming for Christmas now, Dad isn't up to the flight.",
            ],
        ],
        [
            q(
                "Who is staying with Erik for Christmas?",
                f("Christmas", CALLED_OFF),
                f("Christmas", none=[CALLED_OFF]),
            )
        ],
        speaker="Erik",
    ),
    update(
        "b3-can-knee-op",
        "cancellation",
        [
            ["My knee surgery is booked for the 4th of March at St Mary's."],
            [
                A("How are you feeling about the operation?"),
                "The knee op has been pushed back indefinitely, the surgeon is off sick.",
            ],
        ],
        [
            q(
                "When is the user's knee surgery?",
                f("pushed back|indefinitely|postpon"),
                f("surgery|operation|op\\b", "March|4th", none=[CALLED_OFF]),
            )
        ],
        user_id="bernadette",
    ),
    update(
        "b3-can-concert-fake",
        "cancellation",
        [
            ["I'm taking my daughter to see Taylor Swift in Edinburgh in June, she's beside herself."],
            [
                ("Tanya", "How's the countdown going?"),
                "We're not going, the tickets turned out to be fake. She's gutted.",
            ],
        ],
        [
            q(
                "Is Keisha going to the Taylor Swift concert?",
                [f("tickets", "fake"), f("going", NEG)],
                f("Taylor Swift|concert", none=[CALLED_OFF, "fake"]),
            )
        ],
        speaker="Keisha",
    ),
    update(
        "b3-can-book-club",
        "cancellation",
        [
            ["Our book club meets at my place on the first Friday of the month, six of us."],
            [
                A("What are you reading for the next one?"),
                "Nothing, we've wound the book club up, everyone got too busy.",
            ],
        ],
        [
            q(
                "When does the user's book club meet?",
                f("book club", "wound|ended|stopp|finish"),
                f("book club", none=[CALLED_OFF]),
            )
        ],
        user_id="prue",
    ),
    update(
        "b3-can-coffee-cart",
        "cancellation",
        [
            [
                "I'm planning to open a coffee cart at the farmers' market in the spring.",
                ("Yemi", "I'll be your first customer."),
            ],
            [
                ("Yemi", "How are the plans going?"),
                "I've shelved the coffee cart idea, the council permits cost a fortune.",
            ],
        ],
        [q("Is Tobi opening a coffee cart?", f("coffee cart", CALLED_OFF), f("coffee cart", none=[CALLED_OFF]))],
        speaker="Tobi",
    ),
]

IMPLICATION = [
    update(
        "b3-imp-valencia-spanish",
        "implication",
        [
            ["I live in Bristol and get the train to Bath for work every day."],
            [
                A("How's the language learning?"),
                "Since moving to Valencia my Spanish has come on loads, I can order lunch without pointing. "
                "I've also joined a padel club.",
            ],
        ],
        [q("Where does the user live?", f("Valencia"), f("Bristol", none=[NEG, FORMER]))],
        also_new=[q("What club has the user joined?", f("padel"))],
        user_id="fraser",
    ),
    update(
        "b3-imp-trainee-solicitor",
        "implication",
        [
            ["I'm in my final year of a law degree at Durham, dissertation due in April."],
            [
                ("Gethin", "How's the new job?"),
                "My first month as a trainee solicitor has been brutal, twelve-hour days.",
            ],
        ],
        [
            q(
                "What does Rhian do?",
                f("trainee solicitor"),
                f("final year|dissertation", none=[NEG, FORMER, "finish", "graduat"]),
            )
        ],
        speaker="Rhian",
    ),
    update(
        "b3-imp-baby-rosa",
        "implication",
        [
            ["We're expecting our first baby in March, a girl."],
            [
                A("How are you both?"),
                "Exhausted. Little Rosa is three weeks old and hates sleeping. "
                "My partner's on paternity leave until June, thank goodness.",
            ],
        ],
        [q("Has the user's baby been born?", f("Rosa|weeks old"), f("expecting", none=[NEG]))],
        also_new=[q("Until when is the user's partner on leave?", f("paternity|leave", "June"))],
        user_id="kasia",
    ),
    update(
        "b3-imp-dash-retired",
        "implication",
        [
            ["Our greyhound Dash races at Romford every other weekend, he's won four this year."],
            [
                ("Bev", "Is Dash running on Saturday?"),
                "Now that Dash is retired he spends all day on the sofa, stealing cushions.",
            ],
        ],
        [q("Does Dash still race?", f("retired"), f("races|racing|race\\b", none=[NEG, FORMER, "retired"]))],
        speaker="Lorraine",
    ),
    update(
        "b3-imp-electric-mini",
        "implication",
        [
            ["I fill up the Golf every Friday, petrol is killing me."],
            [
                A("Any plans this weekend?"),
                "A drive to the coast. Since getting the electric Mini I just charge it at home overnight, "
                "it costs next to nothing.",
            ],
        ],
        [q("What car does the user drive?", f("Mini|electric"), f("Golf|petrol", none=[NEG, FORMER, "sold"]))],
        user_id="priyesh",
    ),
    update(
        "b3-imp-deloitte",
        "implication",
        [
            ["I'm a barista at a café in Shoreditch, the tips are decent."],
            [
                ("Olu", "You look smart today!"),
                "First week at Deloitte, and the commute to their London Bridge office is only twenty minutes.",
            ],
        ],
        [q("Where does Zara work?", f("Deloitte"), f("barista|café|cafe", none=[NEG, FORMER, "left"]))],
        speaker="Zara",
    ),
    update(
        "b3-imp-mia-chicken",
        "implication",
        [
            ["Mia has been vegetarian since she was eight. She won't touch meat."],
            [
                A("Is Mia home for the holidays?"),
                "Yes, and Mia's been devouring my chicken curry since she got back from uni.",
            ],
        ],
        [q("Does Mia eat meat?", f("chicken"), f("vegetarian", none=[NEG, FORMER]))],
        user_id="andrea",
    ),
    update(
        "b3-imp-leg-cast",
        "implication",
        [
            ["I run 5k every morning before work, rain or shine."],
            [
                ("Orla", "Coming to the pub quiz?"),
                "Can't, my leg is in a cast for the next six weeks, so I'm stuck on the sofa.",
            ],
        ],
        [q("Does Ruairi run every morning?", f("cast"), f("run|5k", none=[NEG, FORMER, "cast"]))],
        speaker="Ruairi",
    ),
    update(
        "b3-imp-living-alone",
        "implication",
        [
            ["I share a flat in Peckham with two friends from uni, the kitchen is tiny."],
            [
                A("How's the new place?"),
                "Living on my own for the first time is weirdly quiet, no one to blame for the dishes.",
            ],
        ],
        [
            q(
                "Who does the user live with?",
                f("own|alone"),
                f("share|flatmate|friends from uni", none=[NEG, FORMER]),
            )
        ],
        user_id="bea",
    ),
    update(
        "b3-imp-married-chiara",
        "implication",
        [
            ["My girlfriend Chiara and I have been together six years, we met at uni in Bologna."],
            [
                ("Luca", "How was the honeymoon?"),
                "Perfect. Married life suits us, Chiara has already claimed the bigger wardrobe.",
            ],
        ],
        [q("Is Pietro married?", f("married|wife|honeymoon"), f("girlfriend", none=[NEG, FORMER]))],
        speaker="Pietro",
    ),
]

BLIND3_UPDATES: list[UpdateCase] = [*NEGATION, *REPLACEMENT, *CORRECTION, *CANCELLATION, *IMPLICATION]
