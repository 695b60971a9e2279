"""What each case and each question is about, for the ``thresholds`` phase of
bench/memory_truth.py.

That phase pools several cases into one *person* (one user holding all their facts: the case of
a tester with 20 facts about one person) and asks every question of every case against all of
them. A note of the question's own case is judged by the case's facts: it answers the question
when it states one of them, else it does not. A note of *another* case may answer the question
too ("I run a small bakery" answers "Where does the user work?" although the employer case did
not write it), which its facts cannot say. So a note of another case is judged only when that
case touches none of the question's topics (it then cannot answer it, unless it states the
question's facts, which makes it an answer); otherwise it is *unjudged*: left out of precision
and recall alike. The tags were written with the cases' text in view (every topic any line of
a case touches, not only the one its questions ask about), before any threshold was tuned.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

CASE_TOPICS: Mapping[str, frozenset[str]] = {
    k: frozenset(v.split())
    for k, v in {
        "upd-neg-peanuts": "allergy diet job",
        "upd-neg-vegetarian-priya": "diet cooking",
        "upd-neg-smoking": "smoking spouse exercise",
        "upd-neg-married-carlos": "spouse kids",
        "upd-neg-coffee-jonas": "coffee doctor health",
        "upd-neg-license": "driving home commute exercise",
        "upd-neg-gym": "exercise job siblings",
        "upd-neg-wfh-hana": "job commute",
        "upd-neg-piano": "music classes plans",
        "upd-neg-spicy": "diet food-places health",
        "upd-rep-porto-lisbon": "home moving spouse job",
        "upd-rep-career-marta": "job",
        "upd-rep-phone": "phone",
        "upd-rep-car": "driving commute",
        "upd-rep-coffee-order": "coffee routine",
        "upd-rep-running-distance": "exercise races",
        "upd-rep-partner-dev": "spouse",
        "upd-rep-employer": "job pets",
        "upd-rep-bedtime": "sleep kids reading",
        "upd-rep-language-osaka": "languages classes job travel moving",
        "upd-rep-favourite-show": "shows",
        "upd-rep-doctor-ruth": "doctor health",
        "upd-cor-jenna": "siblings family home",
        "upd-cor-birthday-olu": "birthday party",
        "upd-cor-dog-breed": "pets",
        "upd-cor-dentist-time": "appointment doctor medication",
        "upd-cor-sulfa": "allergy medication doctor",
        "upd-cor-address": "home moving",
        "upd-cor-mateo-age-lucia": "kids birthday party",
        "upd-cor-flight-date": "travel",
        "upd-cor-company-name": "job",
        "upd-cor-manager-surname": "job",
        "upd-can-japan-trip": "travel job",
        "upd-can-wedding-aisha": "spouse wedding",
        "upd-can-inlaws-dinner": "plans family cooking",
        "upd-can-pottery-course": "classes crafts",
        "upd-can-denver-move": "moving home spouse job",
        "upd-can-housewarming-kenji": "party home",
        "upd-can-berlin-marathon": "races exercise injury health",
        "upd-can-bath-spa": "travel plans siblings injury health",
        "upd-can-quarterly-review": "job appointment",
        "upd-imp-porto-lisbon": "home moving job commute clubs exercise",
        "upd-imp-grace-teaching": "job sleep",
        "upd-imp-baby-born": "kids sleep",
        "upd-imp-left-bank": "job crafts",
        "upd-imp-sold-volvo": "driving commute exercise job",
        "upd-imp-vegan-nina": "diet cooking races exercise",
        "upd-imp-single-married": "spouse wedding travel home moving",
        "upd-imp-retired-teacher": "job garden",
        "upd-imp-school-sam": "kids education",
        "upd-imp-coeliac": "diet allergy health cooking",
        "add-pets-dog-cat": "pets job",
        "add-siblings-chloe": "siblings home job",
        "add-trips-iceland-morocco": "travel family",
        "add-skills-python-rust": "programming job",
        "add-languages-spanish-german": "languages classes family",
        "add-kids-leo-maya": "kids",
        "add-hobbies-ravi": "art exercise",
        "add-allergies-cats-birch": "allergy pets family",
        "add-friends-sarah-priyanka": "friends exercise",
        "add-vehicles-corolla-transit": "driving job",
        "add-instruments-guitar-cello": "music classes",
        "add-degrees-economics-data": "education",
        "add-books-dune-lefthand": "reading",
        "add-restaurants-menya-georgian": "food-places diet",
        "add-sports-football-padel": "exercise job",
        "add-plants-fig-monstera": "garden home",
        "add-restated-porto-plus-dog": "home pets",
        "add-dogs-ines": "pets exercise",
        "add-jobs-accountant-delivery": "job driving",
        "add-trips-rome-norway": "travel family birthday",
        "add-classes-spanish-photo": "classes languages art plans",
        "add-meds-thyroid-vitd": "medication doctor health",
        "add-grandkids-margaret": "kids family education",
        "add-volunteer-foodbank-shelter": "volunteering pets",
        "add-concerts-coldplay-arctic": "concerts music",
        "add-pets-three-sessions": "pets birthday",
        "add-certs-aws-cka": "education job",
        "add-places-tomasz": "home moving family education",
        "add-foods-sushi-ethiopian": "diet food-places",
        "add-routine-meditate-journal": "routine coffee job",
        "add-daughter-ballet-swim": "kids exercise classes",
        "add-team-diego-hannah": "job",
    }.items()
}

#: what a question asks about; a note of a case that touches one of these may answer it
QUESTION_TOPICS: Mapping[str, frozenset[str]] = {
    k: frozenset(v.split())
    for k, v in {
        "food allergies": "allergy diet",
        "Can the user eat peanuts?": "allergy diet",
        "Is Priya vegetarian?": "diet",
        "What does Priya eat?": "diet cooking",
        "Does the user smoke?": "smoking",
        "What exercise does the user do?": "exercise",
        "Is the user married?": "spouse wedding",
        "How much coffee does Jonas drink?": "coffee",
        "Can the user drive?": "driving",
        "Which gym does the user go to?": "exercise",
        "Does Hana work from home?": "job commute",
        "What does the user do on Saturdays?": "plans classes music exercise",
        "Does the user like spicy food?": "diet food-places",
        "Where does the user live?": "home moving",
        "user's home city": "home moving",
        "What is Marta's job?": "job",
        "What phone does the user have?": "phone",
        "What car does the user drive?": "driving",
        "What's the user's usual coffee order?": "coffee",
        "How far does the user run?": "exercise races",
        "What race is the user training for?": "races exercise",
        "Who is Dev dating?": "spouse",
        "Where does the user work?": "job",
        "What time does the user go to bed?": "sleep",
        "What language is the user learning?": "languages classes",
        "Where is the user's company sending them?": "job travel moving",
        "What's the user's favourite show?": "shows",
        "Who is Ruth's doctor?": "doctor",
        "What's the name of the user's sister?": "siblings",
        "Who is coming with the user's sister?": "siblings family",
        "When is Olu's birthday?": "birthday party",
        "What breed is the user's dog?": "pets",
        "When is the user's dentist appointment?": "appointment doctor",
        "What medication is the user allergic to?": "allergy medication",
        "What's the user's address?": "home moving",
        "How old is Mateo?": "kids birthday",
        "When does the user fly to Toronto?": "travel",
        "Which company does the user work for?": "job",
        "Who is the user's manager?": "job",
        "What trips is the user planning?": "travel",
        "When is Aisha's wedding?": "spouse wedding",
        "What are the user's plans for Saturday?": "plans family",
        "Is the user taking any courses?": "classes",
        "Where is the user moving?": "moving home",
        "When is Kenji's housewarming party?": "party",
        "What races is the user running?": "races exercise",
        "Does the user have any injuries?": "injury health",
        "What is the user doing on the 12th?": "plans travel",
        "What happened to the user's sister?": "siblings injury",
        "When is the user's quarterly review?": "job appointment",
        "What clubs has the user joined?": "clubs exercise",
        "What does Grace do for work?": "job",
        "Does the user have children?": "kids",
        "How does the user get to work?": "commute driving",
        "What is Nina's diet?": "diet",
        "Does Nina eat meat?": "diet",
        "What is Nina training for?": "races exercise",
        "Does the user still teach?": "job",
        "Which school does Sam's daughter go to?": "kids education",
        "Does the user have dietary restrictions?": "diet allergy health",
        "What pets does the user have?": "pets",
        "Who are Chloe's siblings?": "siblings",
        "Where has the user traveled?": "travel",
        "What programming languages does the user know?": "programming job",
        "What languages does the user speak?": "languages",
        "What are the names of the user's children?": "kids",
        "What are Ravi's hobbies?": "art exercise music crafts garden reading classes shows",
        "What is the user allergic to?": "allergy",
        "Who are the user's close friends?": "friends",
        "What vehicles does the user have?": "driving",
        "What instruments does the user play?": "music",
        "What degrees does the user have?": "education",
        "What are the user's favourite books?": "reading",
        "What restaurants does the user like?": "food-places",
        "What sports does the user play?": "exercise",
        "What plants does the user have?": "garden",
        "Does the user have a dog?": "pets",
        "What dogs does Ines have?": "pets",
        "What jobs does the user have?": "job",
        "What trips has the user booked?": "travel",
        "What classes is the user taking?": "classes languages",
        "What medications does the user take?": "medication",
        "Who are Margaret's grandchildren?": "kids family",
        "Where does the user volunteer?": "volunteering",
        "What concerts has the user been to?": "concerts music",
        "What certifications does the user have?": "education",
        "Where has Tomasz lived?": "home moving",
        "What foods does the user love?": "diet food-places",
        "What is the user's morning routine?": "routine coffee",
        "What activities does the user's daughter do?": "kids exercise classes",
        "Who is on the user's team?": "job",
    }.items()
}


def may_answer(question: str, other_case: str) -> bool:
    """Whether a note of ``other_case`` (not the question's own) might answer ``question``:
    then it is unjudged unless it states the question's facts."""
    return bool(QUESTION_TOPICS[question] & CASE_TOPICS[other_case])


def missing_tags(case_ids: Iterable[str], questions: Iterable[str]) -> list[str]:
    """Cases and questions without tags (empty when every one has them)."""
    out = [f"case {c} has no topics" for c in case_ids if c not in CASE_TOPICS]
    out += [f"question {q!r} has no topics" for q in questions if q not in QUESTION_TOPICS]
    return out
