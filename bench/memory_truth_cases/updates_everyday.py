"""A second set of facts that change, written later and apart from the memory rules, as a fresh
held-out test of how the offline conflict resolution generalises to wording it was not
developed on: everyday chat of one person over two to four sessions, on health, diet, work,
home, family, pets, hobbies, travel, tools, money, study, schedules and contact details.

Each kind has its own group in catalog.py (``everyday-update:<kind>``), split by the same rule
as the first set. In about a third of the cases the update does not name the old value at all
(:data:`OLD_VALUE_UNNAMED`); eight messages carry a new, unrelated fact beside the update
(``also_new``).
"""

from __future__ import annotations

from bench.memory_truth_cases import NEG, UpdateCase, assistant, f, q, update

A = assistant

#: words that end a habit, besides a plain negation ("quit" as a word, not "quite")
ENDED = rf"(?:\b(?:gave up|given up|giving up|quit|quitting|stopped|stopping)\b|{NEG})"
#: words that call a plan off, besides a plain negation
CALLED_OFF = (
    rf"(?:\b(?:call(?:ed|ing)? off|cancel|scrap|postpon|pushed back|fell through|fall(?:en)? through"
    rf"|decided against|decide against|bail|dropp(?:ed|ing) out|pulled out)|{NEG})"
)
#: words that put a fact in the past
FORMER = r"\b(?:used to|former|formerly|previous|old|left|moved from|ex-)"

#: the cases whose update message does not name the old value (it is only implied)
OLD_VALUE_UNNAMED = frozenset(
    {
        "ev-neg-manager-no-longer",
        "ev-rep-leith-flat",
        "ev-rep-bank-monzo",
        "ev-rep-jira-linear",
        "ev-rep-chef-care-home",
        "ev-rep-corolla-niro",
        "ev-rep-ottawa-toronto",
        "ev-rep-macbook-thinkpad",
        "ev-rep-gp-lindqvist",
        "ev-rep-email-proton",
        "ev-cor-lagos-flight",
        "ev-cor-elm-street",
        "ev-cor-amoxicillin",
        "ev-cor-maya-number",
        "ev-can-wedding-postponed",
        "ev-can-stripe-migration",
        "ev-can-berlin-marathon",
        "ev-can-dad-surprise",
        "ev-imp-glasgow-move",
        "ev-imp-retired-teacher",
        "ev-imp-sold-car-bus",
        "ev-imp-wealthsimple-manager",
        "ev-imp-back-at-firm",
        "ev-imp-nursing-grad",
    }
)

NEGATION = [
    update(
        "ev-neg-lactose-meera",
        "negation",
        [
            [
                "My doctor thinks I'm lactose intolerant, so I've switched to oat milk for everything.",
                A("Oat milk froths nicely, at least."),
            ],
            [
                A("Did you get the results of the breath test?"),
                "Yes! Turns out I'm not lactose intolerant at all, it was a stomach bug. Real cheese is back.",
            ],
        ],
        [
            q("Is the user lactose intolerant?", f("lactose", NEG), f("lactose intoleran", none=[NEG])),
            q("Can the user have dairy?", f("lactose", NEG), f("lactose intoleran", none=[NEG])),
        ],
        user_id="meera",
    ),
    update(
        "ev-neg-bouldering-kenji",
        "negation",
        [
            [
                "I go bouldering at the climbing gym twice a week, it's basically my whole social life.",
                ("Aiko", "You're obsessed with that place."),
            ],
            [("Aiko", "How was the conference in Osaka?"), "Exhausting, but I met some nice people."],
            [
                ("Aiko", "Coming to the gym on Thursday?"),
                "Nah, I'm not into bouldering these days, my shoulder never healed properly. "
                "I signed up for a pottery class on Wednesday evenings.",
            ],
        ],
        [
            q("Does Kenji go bouldering?", f("boulder", NEG), f("boulder|climbing gym", none=[NEG])),
        ],
        also_new=[q("What class is Kenji taking?", f("pottery"))],
        speaker="Kenji",
    ),
    update(
        "ev-neg-wine-gave-up",
        "negation",
        [
            ["I usually have a glass of red wine with dinner, it helps me switch off after work."],
            [A("How did the dentist go?"), "Fine, just a cleaning. I'm booked again for March."],
            ["We're repainting the hallway this weekend, a sort of sage green."],
            ["Small update about me: I gave up alcohol in January, so no wine with dinner these days."],
        ],
        [
            q("Does the user drink alcohol?", f("alcohol|wine", ENDED), f("wine|alcohol", none=[ENDED])),
            q("What does the user drink with dinner?", f("alcohol|wine", ENDED), f("wine", none=[ENDED])),
        ],
        user_id="gareth",
    ),
    update(
        "ev-neg-instagram-quit",
        "negation",
        [
            ["I post my cakes on Instagram most weekends, it's how I get orders.", A("Nice, how many orders a month?")],
            ["Around fifteen, mostly birthday cakes."],
            ["I quit Instagram completely last week, the account is deleted. Orders come by word of mouth now."],
        ],
        [q("Is the user on Instagram?", f("Instagram", "quit|delet"), f("Instagram", none=[ENDED, "delet"]))],
        speaker="Lucia",
    ),
    update(
        "ev-neg-metformin-rosa",
        "negation",
        [
            ["I take metformin every morning for my blood sugar.", ("Carmen", "Does it upset your stomach?")],
            [
                A("How was the check-up?"),
                "My sugar levels are normal now, so I don't take metformin anymore. "
                "My granddaughter Lola starts school in September, by the way.",
            ],
        ],
        [q("What medication does Rosa take?", f("metformin", NEG), f("metformin", none=[NEG]))],
        also_new=[q("When does Rosa's granddaughter start school?", f("Lola|granddaughter", "school"))],
        speaker="Rosa",
    ),
    update(
        "ev-neg-manager-no-longer",
        "negation",
        [
            ["I manage the customer support team at work, six people.", A("That's a lot of one-on-ones.")],
            ["I no longer manage anyone, I asked to go back to being an individual engineer."],
        ],
        [q("Does the user manage a team?", f("manag", NEG), f("manag", none=[NEG]))],
        user_id="bram",
    ),
    update(
        "ev-neg-rabbit-biscuit",
        "negation",
        [
            ["We have a rabbit called Biscuit who lives in the kitchen, he chews every cable he finds."],
            [
                A("Is the cable chewing any better?"),
                "We gave Biscuit to my niece, she has a big garden for him. So there are no pets at home now.",
            ],
        ],
        [
            q(
                "Does the user have pets?",
                [f("pet", NEG), f("Biscuit|rabbit", "gave|niece")],
                f("rabbit|Biscuit", none=[NEG, "gave", "niece"]),
            )
        ],
        user_id="sunita",
    ),
    update(
        "ev-neg-saturday-bakery",
        "negation",
        [
            ["I work Saturday mornings at my aunt's bakery, starting at five."],
            [("Dev", "Want to go for breakfast at the weekend?"), "Let me check with my flatmate first."],
            ["I stopped working Saturdays at the bakery, my aunt hired someone full time."],
        ],
        [
            q(
                "When does the user work at the bakery?",
                f("Saturday", ENDED),
                f("Saturday", none=[ENDED]),
            )
        ],
        speaker="Nadia",
    ),
    update(
        "ev-neg-glasses-tomasz",
        "negation",
        [
            ["The optician says I need glasses for driving now, I pick them up next week."],
            [
                A("Did you pick them up?"),
                "The second eye test said I don't need glasses for driving after all, the first one was off.",
            ],
        ],
        [q("Does Tomasz need glasses?", f("glasses", NEG), f("glasses", none=[NEG]))],
        speaker="Tomasz",
    ),
]

REPLACEMENT = [
    update(
        "ev-rep-leith-flat",
        "replacement",
        [
            ["I live in Morningside with two flatmates, it's a bit far from everything."],
            ["We moved to a flat in Leith last month, five minutes from the water."],
        ],
        [
            q("Where does the user live?", f("Leith"), f("Morningside", none=[NEG, FORMER])),
            q("Which part of Edinburgh is the user in?", f("Leith"), f("Morningside", none=[NEG, FORMER])),
        ],
        user_id="fiona",
    ),
    update(
        "ev-rep-bank-monzo",
        "replacement",
        [
            ["My salary goes into my Barclays account, and I pay the bills from there."],
            [A("Did you sort out the direct debits?"), "Mostly, the council tax one is still pending."],
            ["I switched to Monzo for everything, the app is so much easier. And I finally paid off my student loan!"],
        ],
        [
            q("Which bank does the user use?", f("Monzo"), f("Barclays", none=[NEG, FORMER])),
            q("Where is the user's salary paid into?", f("Monzo"), f("Barclays", none=[NEG, FORMER])),
        ],
        also_new=[q("Does the user have a student loan?", f("student loan", "paid off"))],
        user_id="kwame",
    ),
    update(
        "ev-rep-jira-linear",
        "replacement",
        [
            ["Our team tracks all the work in Jira, which I spend half my day fighting with."],
            ["We're on Linear now, the whole team moved over during the holidays."],
        ],
        [q("What does the user's team track work in?", f("Linear"), f("Jira", none=[NEG, FORMER]))],
        speaker="Sanne",
    ),
    update(
        "ev-rep-cycle-tram",
        "replacement",
        [
            ["I cycle to the office every day, it's about twenty minutes."],
            [("Marek", "Did you see the match last night?"), "Only the second half, we won though."],
            ["I used to cycle in but now I take the tram, the new office is up a massive hill."],
        ],
        [q("How does the user get to work?", f("tram"), f("cycl", none=[NEG, FORMER]))],
        user_id="pavel",
    ),
    update(
        "ev-rep-chef-care-home",
        "replacement",
        [
            ["I'm a sous-chef at an Italian place in Croydon, lots of late nights."],
            [
                A("How are the late shifts treating you?"),
                "I changed jobs! I run the kitchen at a care home now, proper daytime hours for once.",
            ],
        ],
        [q("Where does Dayo work?", f("care home"), f("Italian|sous-chef", none=[NEG, FORMER]))],
        speaker="Dayo",
    ),
    update(
        "ev-rep-corolla-niro",
        "replacement",
        [
            ["I drive a 2009 Corolla, it has 200,000 km on it and still runs.", A("Respect to that engine.")],
            ["Got a new car on Saturday, a used Kia Niro hybrid in dark blue."],
        ],
        [q("What car does the user drive?", f("Niro|Kia"), f("Corolla", none=[NEG, FORMER, "sold", "traded"]))],
        user_id="haruto",
    ),
    update(
        "ev-rep-ottawa-toronto",
        "replacement",
        [
            ["We live in Ottawa, a short walk from the canal.", ("Liam", "Skating to work in winter then?")],
            [("Liam", "How are the kids?"), "Good, Maeve lost her first tooth."],
            [A("Did the movers give you a quote?"), "They did, it's eye-watering but we're going ahead."],
            [
                "We're in Toronto now, my wife's job moved us in June. "
                "Maeve has started cello lessons and she loves them."
            ],
        ],
        [q("Where does Siobhan live?", f("Toronto"), f("Ottawa", none=[NEG, FORMER]))],
        also_new=[q("What instrument is Maeve learning?", f("cello"))],
        speaker="Siobhan",
    ),
    update(
        "ev-rep-macbook-thinkpad",
        "replacement",
        [
            ["My work laptop is a MacBook Air, I mostly do data analysis in R on it."],
            [A("Is R still slow on the big files?"), "Yes, so I upgraded to a ThinkPad with 64 GB, it flies."],
        ],
        [q("What laptop does the user use?", f("ThinkPad"), f("MacBook", none=[NEG, FORMER, "sold"]))],
        user_id="ingrid",
    ),
    update(
        "ev-rep-gp-lindqvist",
        "replacement",
        [
            ["My GP is Dr. Haddad at the Brook Street surgery.", A("Good to know for the referral letter.")],
            ["My new GP is Dr. Lindqvist, the surgery merged with the one on Station Road."],
        ],
        [q("Who is the user's GP?", f("Lindqvist"), f("Haddad", none=[NEG, FORMER, "retire"]))],
        user_id="ellen",
    ),
    update(
        "ev-rep-email-proton",
        "replacement",
        [
            ["You can reach me at amira.k@outlook.com for anything about the school fair."],
            [
                ("Joan", "Is the bake sale table still yours?"),
                "My email changed, it's amira.khalil@proton.me now. Yes, the bake sale is still mine.",
            ],
        ],
        [q("What is Amira's email address?", f("proton"), f("outlook", none=[NEG, FORMER]))],
        speaker="Amira",
    ),
]

CORRECTION = [
    update(
        "ev-cor-leo-birthday",
        "correction",
        [
            ["My son Leo's birthday is the 14th of May, he'll be seven."],
            ["Sorry, I meant March, not May! Leo's birthday is the 14th of March."],
        ],
        [
            q("When is Leo's birthday?", f("March"), f("birthday|Leo", "May\\b", none=[NEG, "March"])),
        ],
        user_id="harriet",
    ),
    update(
        "ev-cor-pepper-whippet",
        "correction",
        [
            ["Our dog Pepper is a border collie, she needs so much exercise."],
            [A("How is Pepper doing with the new harness?"), "She pulls less, so that's a win."],
            ["Pepper's a whippet, not a border collie, I was thinking of my sister's dog."],
        ],
        [q("What breed is Pepper?", f("whippet"), f("border collie", none=[NEG]))],
        speaker="Owen",
    ),
    update(
        "ev-cor-lagos-flight",
        "correction",
        [
            ["My flight to Lagos leaves on Thursday the 9th, early morning."],
            [A("Have you packed yet?"), "I got that wrong, the Lagos flight is on Friday the 10th."],
        ],
        [q("When is the user's flight to Lagos?", f("Friday|10th"), f("Thursday|9th", none=[NEG]))],
        user_id="chidi",
    ),
    update(
        "ev-cor-elm-street",
        "correction",
        [
            ["My new address is 42 Elm Street, flat B."],
            ["Typo earlier: it's 24 Elm Street, flat B."],
        ],
        [q("What is the user's address?", f("24 Elm"), f("42 Elm", none=[NEG]))],
        user_id="rhys",
    ),
    update(
        "ev-cor-married-2016-ines",
        "correction",
        [
            ["We got married in 2015 in a tiny chapel in the Algarve.", ("Bea", "That sounds lovely.")],
            [
                "Actually it was 2016, we were engaged for so long that I mix up the years. "
                "And we're expecting our first baby in April!"
            ],
        ],
        [q("When did Ines get married?", f("2016"), f("2015", none=[NEG]))],
        also_new=[q("Is Ines expecting a baby?", f("baby"))],
        speaker="Ines",
    ),
    update(
        "ev-cor-sertraline-dose",
        "correction",
        [
            ["I take 50 mg of sertraline in the morning.", A("Noted, morning dose.")],
            ["Sorry, I misread the box: it's 100 mg of sertraline, not 50."],
        ],
        [q("What dose of sertraline does the user take?", f("100\\s?mg"), f("50\\s?mg", none=[NEG]))],
        user_id="moira",
    ),
    update(
        "ev-cor-amoxicillin",
        "correction",
        [
            ["I'm allergic to penicillin, I came out in hives as a kid."],
            [A("Anything else I should know before your appointment?"), "I think that's everything."],
            ["My mistake, it's amoxicillin I'm allergic to. They tested the other one and it was fine."],
        ],
        [q("What is the user allergic to?", f("amoxicillin"), f("penicillin", none=[NEG]))],
        user_id="yosef",
    ),
    update(
        "ev-cor-maya-number",
        "correction",
        [
            ["My sister Maya's number is 0412 555 018, in case you need to reach her."],
            ["Wrong digits, sorry: Maya's number is 0412 555 081."],
        ],
        [q("What is Maya's phone number?", f("555 081"), f("555 018"))],
        user_id="tess",
    ),
]

CANCELLATION = [
    update(
        "ev-can-kyoto-trip",
        "cancellation",
        [
            ["We're going to Kyoto in October for two weeks, I've already booked a ryokan."],
            [A("Have you planned the temples yet?"), "Not yet, I'll do it on the plane."],
            [
                "The Kyoto trip is called off, my husband can't get the time off. "
                "On a happier note, I passed my driving test on Monday!"
            ],
        ],
        [q("Is the user going to Kyoto?", f("Kyoto", CALLED_OFF), f("Kyoto", none=[CALLED_OFF]))],
        also_new=[q("Does the user have a driving licence?", f("driving test", "passed"))],
        user_id="claire",
    ),
    update(
        "ev-can-wedding-postponed",
        "cancellation",
        [
            ["My brother's wedding is on June 21st in Kumasi, I'm the best man."],
            ["They postponed the wedding to next spring, the venue flooded."],
        ],
        [
            q(
                "When is the user's brother's wedding?",
                f("wedding", "spring|postpon"),
                f("June", none=[CALLED_OFF]),
            )
        ],
        speaker="Kofi",
    ),
    update(
        "ev-can-harrogate-house",
        "cancellation",
        [
            ["We're buying a house in Harrogate, completion is set for the end of the month."],
            [A("Exciting! Have you booked the movers?"), "Next week, hopefully."],
            ["The house fell through, the seller pulled out at the last minute. We're staying in our rental."],
            [A("How are you holding up?"), "Better now. We'll start looking again in the spring."],
        ],
        [
            q(
                "Is the user buying a house?",
                f("fell through|pulled out"),
                f("buying|completion", none=[CALLED_OFF]),
            )
        ],
        user_id="nicola",
    ),
    update(
        "ev-can-kitchen-renovation",
        "cancellation",
        [
            ["We're redoing the kitchen in September, new cabinets and a proper extractor fan."],
            ["We're not doing the kitchen after all, the quotes were insane."],
        ],
        [q("Is the user renovating the kitchen?", f("kitchen", NEG), f("kitchen", none=[NEG]))],
        speaker="Farah",
    ),
    update(
        "ev-can-stripe-migration",
        "cancellation",
        [
            ["At work I'm leading the move of our billing system to Stripe, due at the end of Q3."],
            [A("How's the big project at work going?"), "They scrapped it, leadership wants to stay on what we have."],
        ],
        [
            q(
                "What is the user leading at work?",
                f("scrap"),
                f("Stripe|billing", none=[CALLED_OFF]),
            )
        ],
        user_id="omar",
    ),
    update(
        "ev-can-mba",
        "cancellation",
        [
            ["I'm starting a part-time MBA in January, classes on Tuesday and Thursday evenings."],
            [("Grace", "How's the new flat?"), "Still full of boxes."],
            [("Grace", "Ready for January?"), "I decided against the MBA, it's too expensive for what it offers."],
        ],
        [q("Is Wei doing an MBA?", f("MBA", CALLED_OFF), f("MBA", none=[CALLED_OFF]))],
        speaker="Wei",
    ),
    update(
        "ev-can-berlin-marathon",
        "cancellation",
        [
            ["I signed up for the Berlin marathon in September, my first one!"],
            [A("How's training going?"), "I bailed on it, my knee isn't ready for 42 km."],
        ],
        [
            q(
                "Is the user running the Berlin marathon?",
                f("bail"),
                f("Berlin|marathon", none=[CALLED_OFF]),
            )
        ],
        user_id="sofie",
    ),
    update(
        "ev-can-korean-class",
        "cancellation",
        [
            ["I'm taking an evening course in Korean at the community college, Mondays and Wednesdays."],
            [A("How was the first week?"), "Fun, the teacher is great."],
            ["I dropped out of the Korean class, the commute after work was killing me."],
        ],
        [q("What is the user studying?", f("Korean", CALLED_OFF), f("Korean", none=[CALLED_OFF]))],
        user_id="marisol",
    ),
    update(
        "ev-can-dad-surprise",
        "cancellation",
        [
            ["We're throwing a surprise party for Dad's 70th on Saturday the 3rd, about forty people."],
            ["Dad found out, so that's off. It's just a quiet dinner at home on the 3rd."],
        ],
        [
            q(
                "What is planned for Dad's 70th?",
                f("dinner"),
                f("party", none=[CALLED_OFF, "off"]),
            )
        ],
        speaker="Anjali",
    ),
]

IMPLICATION = [
    update(
        "ev-imp-glasgow-move",
        "implication",
        [
            ["I live in Manchester and work in a call centre for an energy company."],
            [A("How are the night calls?"), "Quieter than the day ones."],
            ["Since I moved to Glasgow I've been walking to work along the river every day."],
        ],
        [q("Where does the user live?", f("Glasgow"), f("Manchester", none=[NEG, FORMER]))],
        user_id="callum",
    ),
    update(
        "ev-imp-retired-teacher",
        "implication",
        [
            ["I teach maths at a secondary school in Leeds, year 10 mostly."],
            ["Now that I'm retired I spend my mornings at the allotment. I'm growing leeks and broad beans this year."],
        ],
        [
            q("What does Margaret do for work?", f("retire"), f("teach", none=[NEG, FORMER, "retire"])),
            q("Is Margaret still teaching?", f("retire"), f("teach", none=[NEG, FORMER, "retire"])),
        ],
        also_new=[q("What is Margaret growing?", f("leek|broad bean"))],
        speaker="Margaret",
    ),
    update(
        "ev-imp-divorce-graham",
        "implication",
        [
            ["My husband Graham and I live in Bath with our two boys."],
            [A("How was half term?"), "Chaotic, the boys had a sleepover every night."],
            ["After the divorce I kept the house in Bath and Graham moved to Bristol."],
        ],
        [q("Is the user married?", f("divorce"), f("husband", none=[NEG, FORMER, "divorc"]))],
        user_id="helen",
    ),
    update(
        "ev-imp-sold-car-bus",
        "implication",
        [
            ["I drive to the office, it's forty minutes each way on the ring road."],
            ["Ever since I sold the car I've been reading a lot more, the bus is my library now."],
        ],
        [q("How does the user get to the office?", f("bus"), f("driv", none=[NEG, FORMER, "sold"]))],
        user_id="andile",
    ),
    update(
        "ev-imp-wealthsimple-manager",
        "implication",
        [
            ["I work at Shopify on the payments team, mostly on refunds."],
            [A("How's the refunds project?"), "Shipped, finally."],
            [
                "My new manager at Wealthsimple actually does one-on-ones, it's refreshing. "
                "We adopted a greyhound called Pixel last weekend."
            ],
        ],
        [q("Where does the user work?", f("Wealthsimple"), f("Shopify", none=[NEG, FORMER]))],
        also_new=[q("Does the user have a dog?", f("greyhound|Pixel"))],
        user_id="priyanka",
    ),
    update(
        "ev-imp-back-at-firm",
        "implication",
        [
            ["I'm a stay-at-home dad for our twins, they're three."],
            [("Sam", "Any plans for the summer?"), "Camping in Wales if the weather holds."],
            ["Now that I'm back at the law firm full time, the twins go to nursery four days a week."],
        ],
        [
            q(
                "Does Marcus have a job?",
                f("law firm|full time"),
                f("stay-at-home", none=[NEG, FORMER]),
            )
        ],
        speaker="Marcus",
    ),
    update(
        "ev-imp-off-keto",
        "implication",
        [
            ["I'm doing keto, so breakfast is eggs and bacon every day."],
            ["Since coming off keto I've been baking my own sourdough every weekend."],
        ],
        [q("What diet is the user on?", f("keto", "off|stopp|quit"), f("keto", none=[ENDED, "off", FORMER]))],
        user_id="lars",
    ),
    update(
        "ev-imp-mochi-lost",
        "implication",
        [
            ["Our old cat Mochi sleeps on my keyboard all day, she's sixteen."],
            [A("How is Mochi doing with the new food?"), "Picky as ever."],
            ["Since we lost Mochi in the spring the flat feels very quiet."],
        ],
        [
            q(
                "Does the user have a cat?",
                f("Mochi", "lost|died|passed"),
                f("Mochi|cat", none=[NEG, "lost", "died", "passed", "miss"]),
            )
        ],
        user_id="yuki",
    ),
    update(
        "ev-imp-nursing-grad",
        "implication",
        [
            ["I'm a third-year nursing student at Monash, placements start next month."],
            [A("How are the placements going?"), "Hard but I love the ward."],
            ["My first night shift as a registered nurse at the Alfred was chaos, but fun."],
        ],
        [
            q(
                "What does Chloe do?",
                f("registered nurse|Alfred"),
                f("student", none=[NEG, FORMER, "graduat"]),
            )
        ],
        speaker="Chloe",
    ),
]

EVERYDAY_UPDATES: list[UpdateCase] = [*NEGATION, *REPLACEMENT, *CORRECTION, *CANCELLATION, *IMPLICATION]
