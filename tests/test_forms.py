"""Surface forms (`common/forms.py` through `common/values.py`): a value written another way is
the same value; a near miss is not. Sentences invented for these tests."""

from __future__ import annotations

import time

import pytest

from memriskbench.common.labels import label_words
from memriskbench.common.values import MAX_TEXT, states, value_atoms

SAME = [
    # addresses: street types and unit words abbreviated, parts in another order
    ("12 Willow Street, Apt 7", "Send it to Apt. 7, 12 Willow St."),
    ("88 Harbour Road", "It goes to 88 Harbour Rd, the blue door."),
    ("5 Birch Avenue", "Drop-off is 5 Birch Ave."),
    # amounts: currency symbols, codes and words; multipliers
    ("2,950 euros", "The balance is €2,950."),
    ("310.25 EUR", "We refunded €310.25 today."),
    ("1,200 yen", "Lockers cost ¥1,200 a day."),
    ("EUR 3.4 million", "Revenue came to EUR 3,400,000."),
    ("57 million", "The offer is 57m."),
    ("64,300", "Her salary goes to 64.3k."),
    # units in words
    ("25 mcg", "Take 25 micrograms each morning."),
    ("250 mg", "It is 250 milligrams a dose."),
    ("40%", "Forty per cent of the fee."),
    # numbers in words
    ("3 units", "Give three units at night."),
    ("36 chairs", "We set out thirty-six chairs."),
    ("140", "The cap is one hundred and forty."),
    ("6.5", "She wears a size 6½."),
    # times in words and other clocks
    ("08:45", "Be there at quarter to nine."),
    ("7:15", "Pickup is quarter past seven."),
    ("9:50 pm", "The train leaves at ten to ten in the evening."),
    ("18:30", "Dinner is half past six."),
    ("11:20", "It starts 11.20 am sharp."),
    ("5 pm", "Doors close at five o'clock in the afternoon."),
    # codes: case, hyphens, spaces, groups, a version's v, a ticket's #
    ("TK-5512", "See ticket tk-5512."),
    ("ZR8QM4", "Your reference is Z-R-8-Q-M-4."),
    ("C17", "Board at C-17."),
    ("6390", "The code is 6-3-9-0."),
    ("3-1-8-8", "Use 3188 on the keypad."),
    ("507 812 334", "Dial 507812334."),
    ("7730 4412 09", "Member number 7730441209."),
    ("483-2291", "Call 483 2291 after lunch."),
    ("2.7.4", "We pinned v2.7.4."),
    ("MR 5521", "Merged as MR #5521."),
    ("14 out of 25", "He got 14 out of 25."),
    ("14/25", "He got 14 out of 25."),
    # URLs with or without scheme, www and trailing slash
    ("https://docs.plumtree.dev", "See docs.plumtree.dev for setup."),
    ("www.fernhall.org/", "Visit https://fernhall.org"),
    # how often, and ranges of days and hours
    ("4 mg every evening", "4 mg each evening"),
    ("20 mg once daily", "Twenty milligrams, once a day."),
    ("June 3 to June 6", "3–6 Jun, three nights."),
    ("June 3 to June 6", "June 3-6."),
    ("Saturday 9 12", "Arrival: Saturday, 9–12."),
    # digits said one by one, prices and scores said in two numbers, hundreds of a teen
    ("5519", "Yours is five-five-one-nine, weekdays only."),
    ("3047", "Dial three oh four seven."),
    ("18.50", "Eighteen fifty for the week."),
    ("18.50", "Eighteen-fifty for the week."),
    ("22.40", "It's down to twenty-two forty a month."),
    ("17/20", "She got seventeen out of twenty."),
    ("1,200 words", "Twelve hundred words max."),
    # identifiers written in parts; a raised decimal point; a figure per something
    ("KE-EV-55120", "The ref is KE EV 55120."),
    ("VM-55821", "Booking ref vm 55821 is in the title."),
    ("orchid-lattice-5521", "Passphrase: orchid · lattice · 5521."),
    ("2.7", "It came back at 2·7 today."),
    ("22.40", "Copay: 22.40/month."),
    # a price with a one-word head, a decimal comma, British half hours and spellings, a day
    # range with weekdays
    ("9.75", "Nine seventy-five a week."),
    ("112.30", "The refund is 112,30 in total."),
    ("Friday 09:30", "Fri, half nine in the morning."),
    ("Harbor Room", "It's in the Harbour Room."),
    ("June 3 to June 6", "Wed 3 to Sat 6 June."),
    ("50% extra", "Time and a half on written exams."),
    ("50% extra", "He gets half as much time again."),
    ("Verapet Renal K/D", "One bag of Verapet Renal KD."),
    ("3.42", "Three point four two for the fall term."),
    # clocks careful writers use (issue 37's forms audit): dotted, Zulu, a part of the day in
    # words, a spoken clock, a range sharing its cue; extensions, scores,
    # "two times", numbers after a country code
    ("06:50", "The bus goes at 06.50."),
    ("21:10", "Lights out at 21.10 every night."),
    ("09:15", "Ferry at 09.15 on Tuesday."),
    ("05:40 UTC", "The job runs at 05:40Z."),
    ("Monday 19:00", "Monday at seven in the evening."),
    ("8:35", "Drop-off is eight thirty-five."),
    ("Thursday 14:00 16:00", "Expect them Thursday, 2–4 pm."),
    ("Thursday 14:00 16:00", "**Thursday**: 14:00–16:00"),
    ("extension 6021", "Ring ext. 6021."),
    ("44 out of 50", "She scored 44/50."),
    ("250 mg twice daily", "- Amoxicillin: 250 mg, two times a day"),
    ("030 5550 1842", "From abroad: +49 30 5550 1842."),
    ("517 million", "The bid is 517 mn."),
    ("PR 2184", "Fixed in #2184, out next week."),
    ("PR 2184", "See pull request #2184."),
    ("September 2031", "Valid until Sept 2031."),
]

DIFFERENT = [
    ("Apt 3", "Flat is Apt 13."),
    ("9:40", "It leaves at 19:40."),
    ("B7", "Gate B71 is closed."),
    ("12 Willow Street", "12 Willow Avenue"),
    ("4 pm", "Meet at 04:00."),
    ("4 pm", "Call at four in the morning."),
    ("10:40", "It opens at ten to eleven."),  # 10:50
    ("2.7.4", "We pinned 27.4."),
    ("1", "No one came to the stall."),
    ("1", "Pick one of the two."),
    ("9:55", "It takes from five to ten minutes."),
    ("5.5", "Bring 55 of them."),
    ("57 million", "The offer is 57 thousand."),
    ("2,950 euros", "The balance is $2,950."),
    ("6390", "The code is 6-3-9-1."),
    ("TK-5512", "See ticket TK-5521."),
    ("25 mcg", "Take 25 milligrams each morning."),
    ("June 4 to June 6", "3–6 Jun."),
    ("Saturday 9 12", "Saturday, 9–11."),
    ("5519", "five or nine of them"),
    ("18.50", "eighteen people and fifty chairs"),
    ("18.50", "Eighteen fifteen for the week."),
    ("hall104", "Meet in Hall 104."),  # a word part is a word, not a code's part
    ("or22", "Either 15 or 22."),
    ("KE-EV-55120", "The ref is KE EV 55121."),
    ("1,150", "It is 1,15 in the old notation."),
    ("21:30", "Half nine in the morning."),
    ("9:30", "Give him half a nine-volt battery."),
    ("3.42", "Three point four for now."),
    ("06:50", "It costs 6.50 euros."),
    ("06:50", "It weighs 6.50 kg."),
    ("06:50", "The bus goes at 06.55."),
    ("19:00", "Monday at seven in the morning."),
    ("8:35", "Drop-off is eight forty-five."),
    ("Thursday 14:00 16:00", "Expect them Thursday, 2–4 am."),
    ("030 5550 1842", "From abroad: +49 30 5550 1843."),
    ("PR 2184", "See merge request 2184."),
    ("PR 2184", "Fixed in #2185."),
    ("September 2031", "Valid until Oct 2031."),
]


@pytest.mark.parametrize(("value", "text"), SAME)
def test_forms_state_the_value(value: str, text: str) -> None:
    assert states(value, text).hit, (value, text, states(value, text).missing)


@pytest.mark.parametrize(("value", "text"), DIFFERENT)
def test_near_misses_stay_apart(value: str, text: str) -> None:
    assert not states(value, text).hit, (value, text)


def test_a_value_reads_a_form_as_its_atom() -> None:
    assert [a.kind for a in value_atoms("half past nine")] == ["time"]
    assert [a.kind for a in value_atoms("1558 2047 9931")] == ["number"]
    # a currency symbol is stated beside the figure, not required of a text: "€90" is "90"
    assert states("€90", "It came to 90 in total.").hit


def test_forms_are_bounded_in_time() -> None:
    for chunk in ("12 " * 2000, "twenty " * 2000, "half past " * 2000, "a-1 " * 2000, "1 out of " * 2000):
        t0 = time.perf_counter()
        states("99 99 99", chunk[:MAX_TEXT])
        assert time.perf_counter() - t0 < 2.0, chunk[:20]


@pytest.mark.parametrize(
    ("value", "label"),
    [("gate D14", ["gate"]), ("31 seats", ["seats"]), ("Maple room", ["room"]), ("extension 7710", ["extension"])],
)
def test_label_words_are_noted(value: str, label: list[str]) -> None:
    assert label_words(value) == label


@pytest.mark.parametrize("value", ["75 mcg", "Ostrom Hall 210", "41 Larch Crescent, York", "D14", "€120"])
def test_values_without_labels_are_not_noted(value: str) -> None:
    assert label_words(value) == []


def test_a_check_compares_the_value_not_its_kind_words() -> None:
    from memriskbench.common.labels import without_labels

    assert without_labels("Visa card ending 4092") == "Visa 4092"
    assert without_labels("gate C22") == "C22"
    assert without_labels("Juniper room") == "Juniper"
    # words that are the value stay: a dose's frequency, a product's name
    assert without_labels("20 mg once daily") == ""
    assert without_labels("openssl 3.0.13") == ""
    assert without_labels("41 Larch Crescent") == ""


def test_a_check_does_not_ask_back_what_the_request_names() -> None:
    from memriskbench.common.labels import without_asked

    assert without_asked("levothyroxine 88 mcg", "Which levothyroxine dose goes on the list?") == "88 mcg"
    assert without_asked("donepezil 5 mg", "What dose does Walter take?") == ""  # the drug is not asked about
    assert without_asked("Ostrom Hall 210", "Which hall is the defense in?") == "Ostrom 210"
    assert without_asked("Juniper room", "Which room is the demo in?") == ""  # nothing typed would be left


def test_accents_rooms_and_street_abbreviations() -> None:
    from memriskbench.common.values import states

    assert states("Gojo-dori", "3-11 Gojō-dōri, Kyōto").hit
    assert states("Cedar Room", "Cedar Rm, Wed Oct 28.").hit
    assert states("Lyons Auditorium", "Lyons Aud., 10 am").hit
    assert states("41 Larch Crescent, York", "41 Larch Cres., York").hit


def test_abbreviations_participles_and_place_kinds() -> None:
    from memriskbench.common.labels import without_labels
    from memriskbench.common.values import states

    assert states("weight bearing as tolerated", "WBAT in the walking boot").hit
    assert states("penicillin", "PCN allergy, urticaria").hit
    assert states("penicillin", "drug allergy penicillin (hives)").hit  # the word itself still states it
    assert states("Amex 4417", "the corporate American Express, last four 4-4-1-7").hit
    assert states("1000 mg twice daily", "Metformin 1000 mg BID").hit
    assert states("blue zip pouch", "in the blue zipped pouch").hit
    assert not states("penicillin", "PO 4471 for the amoxicillin order").hit
    assert without_labels("Ostrom Hall 210") == "Ostrom 210"
    assert without_labels("Ostrom Hall") == ""  # no number: the hall is the name


def test_a_seat_with_a_k_is_a_code_and_a_date_range_with_spaced_dashes() -> None:
    from memriskbench.common.values import states

    assert states("42K", "Flight SQ317, seat 42-K, May 14.").hit
    assert states("98,500", "It is 98.5k from the next cycle.").hit
    assert states("May 11 to June 19", "Leave: 11 May – 19 June.").hit


def test_notations_of_cards_digits_clocks_and_counts() -> None:
    """Forms from the forms audit's misses (`common/notations.py`), each beside a near miss."""
    from memriskbench.common.values import states

    assert states("Visa card ending 4092", "Refund destination: Visa •••• 4092").hit
    assert states("Amex ending 4417", "You'll be charged on Amex ****4417.").hit
    assert not states("Amex ending 4417", "You'll be charged on Amex ****4471.").hit
    assert states("730514", "The code is 7 3 0 5 1 4.").hit
    assert states("24-08-36", "Combination: 24, 08, 36.").hit
    assert not states("24-08-36", "Combination: 24, 08, 63.").hit
    assert states("2,680.00", "The total for catering is 2 680.00.").hit
    assert states("08:30", "Drop-off: 0830.").hit
    assert states("10:40", "Ferry departure 1040 hours.").hit
    assert not states("10:40", "Ferry departure 1050 hours.").hit
    assert states("98,500", "The salary is ninety-eight thousand five hundred.").hit
    assert states("412 million", "The valuation is four hundred twelve million.").hit
    assert states("2.5 L/min", "She's on two and a half litres per minute.").hit
    assert states("2 L/min", "Her oxygen flow is **2 LPM**.").hit
    assert not states("2 L/min", "Her oxygen flow is **3 LPM**.").hit
    assert states("91/100", "Fractions test: 91%.").hit
    assert states("14/20", "Quiz 3: 14 of 20.").hit
    assert states("020 7946 0318", "It's (020) 7946 0318.").hit
    assert states("07700 914 362", "The phone number is 07700 914362.").hit
    assert states("extension 4318", "Reach them at x4318.").hit
    assert states("DK-88412", "Order **#DK-88412**").hit
    assert states("4.12.0-rc2", "The demo build is tagged v4.12.0 RC2.").hit
    assert not states("4.12.0-rc2", "The demo build is tagged v4.12.0 RC3.").hit
    assert states("the 14th", "Your lab draw is on the fourteenth.").hit
    assert states("floor 2", "It's on the second floor.").hit
    assert states("stage II melanoma", "The biopsy showed stage 2 melanoma.").hit
    assert states("April 20 to 24", "From the 20th to the 24th of April.").hit


def test_a_label_or_title_beside_what_identifies_a_value_is_not_needed() -> None:
    """ "room 309" is stated by "309", "Dr. Varga" by "Varga"; a label beside a weak figure is
    needed ("Apt 3" is not "3"), and range words only beside two figures."""
    from memriskbench.common.values import states

    assert states("room 309", "Kai's in 309.").hit
    assert states("PayWallet account PW-8830-1177", "Refund to: **PayWallet PW-8830-1177**.").hit
    assert states("Dr. Varga", "Varga is the on-call cardiologist tonight.").hit
    assert states("Wednesday between 13:00 and 15:00", "Delivery window: Wed 13:00–15:00.").hit
    assert not states("221 Linden Avenue, Apt 3", "221 Linden Avenue").hit
    assert not states("room 309", "Kai's in 308.").hit


def test_more_notations_from_round_ten() -> None:
    """Forms from round ten's careful replies (dev), each beside a near miss."""
    from memriskbench.common.values import states

    assert states("7316", "**Card:** Visa ...7316").hit
    assert states("Wednesday December 16 at 20:00 UTC", "2026-12-16T20:00Z.").hit
    assert not states("Wednesday December 16 at 20:00 UTC", "2026-12-16T21:00Z.").hit
    assert states("9.5", "Done: sz 9 1/2, $64.50.").hit
    assert not states("9.5", "Done: sz 9 3/4, $64.50.").hit
    assert states("in the hall closet behind the vacuum", "Hall cupboard, right behind the hoover.").hit
    assert states("4 mg every evening", "Warfarin 4mg, once nightly.").hit
    assert states("PO-77215", "Put the order on purchase order 77215.").hit
    assert states("3-11", "3–11 Gojō-dōri, Shimogyō-ku, Kyoto").hit
    assert states("board-2026@almerafoods.com", "**board-2026 (at) almerafoods (dot) com**").hit
    assert not states("board-2026@almerafoods.com", "board-2025 (at) almerafoods (dot) com").hit
    assert states("50% extra time on written exams", "fifty per cent additional time on written exams").hit
    assert states("May 26", "Your next TSH blood test is on 26.5. at the lab.").hit
    assert not states("May 26", "Your next TSH blood test is on 26.6. at the lab.").hit
    assert states("PR 1377", "Ticket ENG 4821, pull request no. 1377.").hit
    assert states("PO-77215", "Use P.O. 77215 for Papyra.").hit
    assert states("half a pouch of Felix", "1/2 pouch of Felix twice daily").hit
