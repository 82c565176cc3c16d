"""Surface forms: the other ways a text writes a value the scanner in `values` already reads.

`values` scans a text into typed atoms (dates, times, numbers, codes, words). A person writes
the same value in many forms, and a check compares values, not the words around them; this
module reads those forms so that "€4,180" states "4,180 euros", "half past nine" states "09:30"
and "400 Canal St." states "400 Canal Street":

- times said in words: "half past seven", "quarter to eight", "twenty to eleven", "seven
  o'clock", "seven pm", with "am"/"pm" or "in the morning"/"in the evening" when given;
- numbers in words: "five", "twenty-two", "one hundred twenty" (a lone "one" after "the", "no",
  "any" ... is a pronoun, not a number); "9½"; "212m", "98.5k", "14.2 million";
- digit groups read as one identifier: "419 062" = "419062" = "419-062"; "NP 330 7719";
  "17 out of 20" = "17/20"; "PR #1377";
- codes compared without case, hyphens or spaces ("B-41" = "b41", "Q-X-7-R-T-2" = "QX7RT2"), a
  version without its "v", a URL without its scheme, "www." or trailing slash;
- word aliases: currency symbols and codes ("€" = "EUR" = "euros"), units ("mcg" =
  "micrograms"), street types and address words ("St" = "Street", "Apt" = "Apartment").

A form found in a text is either the reading of its span (a value written "five units" is the
number 5 and "unit"; the words are not atoms of their own) or, with `extra`, something the span
states beside its plain atoms (the "€" in "€4,180" is a currency, but a value "€4,180" is still
stated by a bare "4,180"). Distinct values stay distinct: "Apt 3" is not "Apt 13", "9:40" is
not "19:40", "B7" is not "B71", "Street" is not "Avenue", "4 pm" is 16:00 only.

Every expression is linear (no nested quantifiers); texts are capped by the caller.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from decimal import Decimal

from memriskbench.common import clocks
from memriskbench.common.words import COMMON_WORDS, STOPWORDS

# Each group is one value written several ways; a word may belong to several groups ("st" is a
# street or a saint, "dr" a drive or a doctor), and two words match when they share a group.
CURRENCY_CODES = frozenset(("EUR", "USD", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "SEK", "NOK", "DKK", "INR", "CNY"))
_UNIT_GROUPS = (
    ("eur", "euro", "€"),
    ("usd", "dollar", "$"),
    ("gbp", "pound", "£"),
    ("jpy", "yen", "¥"),
    ("chf", "franc"),
    ("mcg", "microgram", "µg", "μg", "ug"),
    ("mg", "milligram"),
    ("kg", "kilogram", "kilo"),
    ("ml", "millilitre", "milliliter"),
    ("km", "kilometre", "kilometer"),
    ("cm", "centimetre", "centimeter"),
    ("mm", "millimetre", "millimeter"),
    ("%", "percent", "pct"),
    ("minute", "min"),
    ("hour", "hr", "hrs", "h"),
    ("l", "litre", "liter", "ltr"),
    ("unit", "u", "iu"),
)
_ADDRESS_GROUPS = (
    ("street", "st", "str"),
    ("saint", "st"),
    ("avenue", "ave", "av"),
    ("road", "rd"),
    ("lane", "ln"),
    ("drive", "dr"),
    ("doctor", "dr"),
    ("boulevard", "blvd"),
    ("court", "ct"),
    ("place", "pl"),
    ("square", "sq"),
    ("terrace", "terr", "tce"),
    ("crescent", "cres", "cre"),  # "cre": "cres" as the scanner stems it
    ("highway", "hwy"),
    ("parkway", "pkwy"),
    ("mount", "mt"),
    ("apartment", "apt"),
    ("suite", "ste"),
    ("building", "bldg"),
    ("floor", "fl"),
    ("room", "rm"),
    ("auditorium", "aud"),
    ("extension", "ext"),
    ("chapter", "ch"),
    ("grey", "gray"),
    # a British and an American word for one thing
    ("closet", "cupboard"),
    ("hall", "hallway"),
    ("vacuum", "hoover"),
    ("extra", "additional"),
)
# How often: "4 mg each evening" is "4 mg every evening", "once a day" is "once daily".
_FREQUENCY_GROUPS = (
    ("every", "each"),
    ("daily", "day"),
    ("weekly", "week"),
    ("monthly", "month"),
)
# A month named without its day ("expires March 2029"): the scanner reads a word, so its short
# form is an alias ("Mar 2029").
_MONTH_GROUPS = (
    ("january", "jan"),
    ("february", "feb"),
    ("march", "mar"),
    ("april", "apr"),
    ("june", "jun"),
    ("july", "jul"),
    ("august", "aug"),
    ("september", "sep", "sept"),
    ("october", "oct"),
    ("november", "nov"),
    ("december", "dec"),
)
_ALIAS_GROUPS = _UNIT_GROUPS + _ADDRESS_GROUPS + _FREQUENCY_GROUPS + _MONTH_GROUPS
_ALIASES: dict[str, frozenset[str]] = {}
for _group in _ALIAS_GROUPS:
    for _w in _group:
        _ALIASES[_w] = _ALIASES.get(_w, frozenset()) | {_group[0]}

# The words a value carries as part of itself (a unit, a currency), not beside it as a label.
UNIT_WORDS = frozenset(w for g in _UNIT_GROUPS for w in g) | {"unit", "tablet", "g", "l", "lb", "oz"}


def word_keys(word: str) -> frozenset[str]:
    """The readings of one word (already folded and stemmed): itself, its alias groups, and a
    participle's base ("zipped" is also "zip", "padded" "pad")."""
    out = {word} | _ALIASES.get(word, frozenset())
    # British and American spellings: "harbour" is "harbor", "centre" "center" (six letters at
    # least: "four" and "tour" are other words)
    if len(word) >= 6 and word.endswith("our"):
        out.add(word[:-3] + "or")
    if len(word) >= 6 and word.endswith("tre"):
        out.add(word[:-3] + "ter")
    if len(word) > 4 and word.endswith("ed"):
        base = word[:-2]
        out.add(base[:-1] if len(base) > 2 and base[-1] == base[-2] else base)
    return frozenset(out)


# Abbreviations a professional writes for a phrase: either stands for the other. Short ones that
# mean something else too are left out ("PO" is also a purchase order, "IV" a numeral, "OD" an
# overdose).
ABBREVIATIONS = {
    "bid": "twice daily",
    "tid": "three times daily",
    "qid": "four times daily",
    "qds": "four times daily",
    "prn": "as needed",
    "subcut": "subcutaneous",
    "subq": "subcutaneous",
    "pcn": "penicillin",
    "wbat": "weight bearing as tolerated",
    "nwb": "non weight bearing",
    "pwb": "partial weight bearing",
    "ttwb": "toe touch weight bearing",
    "amex": "american express",
    "eod": "end of day",
    "ooo": "out of office",
    "pto": "paid time off",
    "nightly": "every evening",
}
_ABBR = re.compile(r"(?<![\w-])(" + "|".join(ABBREVIATIONS) + r")(?![\w-])")
_EXPANSION = re.compile(
    r"(?<![\w-])("
    + "|".join(sorted({re.escape(v).replace("\\ ", "[- ]") for v in ABBREVIATIONS.values()}, key=len, reverse=True))
    + r")(?![\w-])"
)
_BY_EXPANSION: dict[str, list[str]] = {}
for _a, _e in ABBREVIATIONS.items():
    _BY_EXPANSION.setdefault(_e, []).append(_a)


_SEPARATORS = re.compile(r"[-\s_]")
_URL_HEAD = re.compile(r"^(?:https?://)?(?:www\.)?")


def code_keys(code: str) -> frozenset[str]:
    """The readings of an identifier: as written (folded), without hyphens, spaces or
    underscores, a version without its "v", a URL without its scheme, "www." or trailing slash.
    Dots, colons and slashes stay: "4.12.0" is not "41.2.0"."""
    t = code.casefold()
    out = {t, _SEPARATORS.sub("", t)}
    if re.match(r"v\d", t):
        out |= {t[1:], _SEPARATORS.sub("", t[1:])}
    if "://" in t or t.startswith("www."):
        out.add(_URL_HEAD.sub("", t).rstrip("/"))
    return frozenset(x for x in out if x)


def digit_code(text: str) -> str | None:
    """The digits of a code written in digit groups joined by hyphens or spaces ("5-5-1-9",
    "555-0147"), which is also a number; None for any other code."""
    t = text.casefold()
    return re.sub(r"[-\s]", "", t) if re.fullmatch(r"\d+(?:[-\s]\d+)+", t) and len(t) >= 4 else None


@dataclass(frozen=True, slots=True)
class Form:
    start: int
    end: int
    kind: str  # time, number, code, word, date (a day of a range: (0, month, day))
    readings: frozenset[object]
    text: str
    extra: bool = False  # stated beside the span's plain atoms, not instead of them
    spoken: bool = False  # a number in words: read in a value, not where a request guesses at one


# fmt: off
_ONES = (
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
# fmt: on
NUMBER_WORDS = {w: i + 1 for i, w in enumerate(_ONES)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_NUMWORD = "|".join(sorted([*NUMBER_WORDS, "hundred"], key=len, reverse=True))
_NUMRUN = re.compile(rf"(?<![\w-])(?:{_NUMWORD})(?:(?:[- ]|\s+and\s+)(?:{_NUMWORD}))*(?![\w-])")
_TOKEN = re.compile(rf"{_NUMWORD}")
_PRONOUN_ONE = re.compile(r"(?:^|\W)(?:the|no|any|every|each|which|this|that|some|someone|anyone|a)\s+$")

_HOUR = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|1[0-2]|[1-9]"
_CUE = (
    r"(?:\s*(a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])|\s+(in the morning|in the afternoon|in the evening|at night|tonight))?"
)
_PAST_TO = re.compile(
    rf"(?<![\w-])(?:(from|between)\s+)?(quarter|half|twenty[- ]five|twenty|ten|five)\s+(past|after|to)\s+({_HOUR})"
    rf"(?![\w:])(?:\s+o'?clock)?{_CUE}"
)
_HALF_HOUR = re.compile(
    rf"(?<![\w-])half\s+({_HOUR})(?![\w:]|\s+(?:an?|the|of|hour|hours|day|days|dozen|price|time)\b){_CUE}"
)
_OCLOCK = re.compile(rf"(?<![\w-])({_HOUR})(?:\s+o'?clock{_CUE}|(?:\s*(a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])))")
_MULTIPLIER = re.compile(
    r"(?<![\w.,])(?:[$€£¥]\s?)?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?:(k|m|mn|bn)|\s?(thousand|million|billion|mn|bn))(?![\w])"
)
SCALE_WORDS = {"thousand": 1000, "million": 10**6, "billion": 10**9}
_SCALE = {"k": 1000, "m": 10**6, "mn": 10**6, "bn": 10**9, **SCALE_WORDS}
_HALF = re.compile(r"(?<![\w.,])0?\.5(?![\d.,])")
_REQUEST = re.compile(r"(?<![\w#])(?:(pull|merge) request\s?(?:#|no\.|number)?\s?|#)(\d{3,6})(?![\w-])")
_TWICE = re.compile(r"(?<![\w-])(?:two|2)\s?(?:times|x)(?![\w-])")
_INTERNATIONAL = re.compile(r"(?<![\w+])\+(\d)((?:[\s-]?(?:\(0\))?[\s-]?\d){7,13})(?![\w])")
_CURRENCY = re.compile(r"[$€£¥]")
_PER_CENT = re.compile(r"(?<![\w])per cent(?![\w])")
OUT_OF = re.compile(r"(?<![\w.,/])(\d+)\s+out\s+of\s+(\d+)(?![\w/]|[.,]\d)")
_HASH = re.compile(r"(?<![\w-])([a-z]{1,4})\s?#\s?(\d+)(?![\w-])")
# digit groups of two or more (the last may be one) separated by single spaces; a letter prefix
# glued to the first ("np330 7719", as `values.scan_text` joins "NP 330")
# A range of days or small figures: "3–6 Jun" names June 3 as well as June 6, "June 3–6" June 6
# as well as June 3, "9–12" both ends (two digits at most: "555-0147" is a number, not a range).
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_WEEKDAY = r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s+)?"
_DAY_RANGE = re.compile(
    rf"(?<![\w.,:/-])(\d{{1,2}})(?:st|nd|rd|th)?(?:\s?[-–]\s?|\s+(?:to|until|till|through)\s+(?:the\s+)?){_WEEKDAY}\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?![a-z])"
)
_RANGE_DAY = re.compile(
    rf"(?<![a-z]){_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\s?[-–]\s?(\d{{1,2}})(?:st|nd|rd|th)?(?![\w:/-]|[.,]\d)"
)
# "April 20 to 24": the second figure is a day of the same month (read instead of the figure)
_RANGE_TO_DAY = re.compile(
    rf"(?<![a-z]){_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\s+(?:to|until|till|through)\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?(?![\w:/-]|[.,]\d|\s?(?:[ap]\.?m|h\b|hours?|minutes?|:))"
)
_RANGE = re.compile(r"(?<![\w.,:/-])(\d{1,2})\s?[-–]\s?(\d{1,2})(?![\w:/-]|[.,]\d)")
_GROUPS = re.compile(r"(?<![\w.,:/-])([a-z]{1,3})?(\d{2,5}(?: \d{2,5}){1,6}(?: \d)?)(?![\w-]|[.,:/]\d)")


def _hour_word(h: str) -> int:
    return int(h) if h.isdigit() else NUMBER_WORDS[h]


def _times(t: str) -> list[Form]:
    out = []
    for m in _PAST_TO.finditer(t):
        ranged, minute, way, hour, ampm, part = m.groups()
        cue = ampm or part
        if ranged and way == "to":
            continue  # "from ten to eleven" is a range
        if minute in ("five", "ten") and not cue and not re.search(r"(?:at|by|around|about)\s+$", t[: m.start()]):
            continue  # "ten to twelve people": a bare small number needs a time cue
        mins = {"quarter": 15, "half": 30, "twenty": 20, "ten": 10, "five": 5}.get(minute, 25)
        if minute == "half" and way == "to":
            continue
        h = _hour_word(hour)
        if way == "to":
            h, mins = (h - 1) or 12, 60 - mins
        start = m.start(2)
        out.append(Form(start, m.end(), "time", clocks.clock(h, mins, cue), m.group(0)[start - m.start() :]))
    for m in _HALF_HOUR.finditer(t):
        # British "half nine" is 9:30 ("half past nine")
        h = _hour_word(m.group(1))
        out.append(Form(m.start(), m.end(), "time", clocks.clock(h, 30, m.group(2) or m.group(3)), m.group(0)))
    for m in _OCLOCK.finditer(t):
        if m.group(1).isdigit() and "clock" not in m.group(0):
            continue  # "4 pm" is the scanner's own
        out.append(
            Form(
                m.start(),
                m.end(),
                "time",
                clocks.clock(_hour_word(m.group(1)), 0, m.group(2) or m.group(3) or m.group(4)),
                m.group(0),
            )
        )
    return out


def _number_words(t: str) -> list[Form]:
    out: list[Form] = []
    spoken: list[tuple[int, int, int]] = []
    for run in _NUMRUN.finditer(t):
        parts: list[tuple[int, int, int]] = []  # start, end, value of each compound number
        cur: list[int] = []  # start, end, value, last token's kind (0 ones, 1 tens, 2 hundred)
        for tok in _TOKEN.finditer(run.group(0)):
            s, e, w = run.start() + tok.start(), run.start() + tok.end(), tok.group(0)
            if cur and w == "hundred" and cur[3] == 0 and cur[2] < 100:  # "twelve hundred"
                cur[1:4] = [e, cur[2] * 100, 2]
            elif cur and cur[3] == 1 and w != "hundred" and NUMBER_WORDS[w] < 10:
                cur[1:4] = [e, cur[2] + NUMBER_WORDS[w], 0]
            elif cur and cur[3] == 2 and w != "hundred":
                cur[1:4] = [e, cur[2] + NUMBER_WORDS[w], 1 if NUMBER_WORDS[w] >= 20 else 0]
            elif w != "hundred":
                if cur:
                    parts.append((cur[0], cur[1], cur[2]))
                cur = [s, e, NUMBER_WORDS[w], 1 if NUMBER_WORDS[w] >= 20 else 0]
        if cur:
            parts.append((cur[0], cur[1], cur[2]))
        spoken += parts
        for s, e, v in parts:
            if (
                v == 1
                and t[s:e] == "one"
                and (_PRONOUN_ONE.search(t[max(0, s - 12) : s]) or t[e:].startswith((" of", " another")))
            ):
                continue
            out.append(Form(s, e, "number", frozenset({Decimal(v)}), t[s:e], spoken=True))
    _spoken_pairs(t, spoken, out)
    return out


_DIGIT_WORDS = {w: v for w, v in NUMBER_WORDS.items() if v < 10} | {"zero": 0, "oh": 0}
_SPOKEN_DIGITS = re.compile(
    rf"(?<![\w-])(?:{'|'.join(_DIGIT_WORDS)})(?:[- ](?:{'|'.join(_DIGIT_WORDS)})){{2,}}(?![\w-])"
)


def _digits(words: str) -> str:
    """The digits of digit words joined by hyphens or spaces ("five-five-one-nine": "5519")."""
    return "".join(str(_DIGIT_WORDS[w]) for w in re.split(r"[- ]", words))


def _spoken_pairs(t: str, parts: list[tuple[int, int, int]], out: list[Form]) -> None:
    """Two spoken numbers that make one: a price said in two ("eighteen fifty" is 18.50,
    "twenty-two forty" 22.40) and a score ("seventeen out of twenty" is 17/20), beside the
    numbers themselves."""
    for (s1, e1, a), (s2, e2, b) in itertools.pairwise(parts):
        gap = t[e1:s2]
        if gap in (" ", "-") and 1 <= a < 100 and 10 <= b < 100:
            out.append(Form(s1, e2, "number", frozenset({Decimal(f"{a}.{b:02d}")}), t[s1:e2], extra=True, spoken=True))
        elif gap == " out of ":
            out.append(Form(s1, e2, "code", code_keys(f"{a}/{b}"), t[s1:e2], extra=True, spoken=True))


_SPOKEN_POINT = re.compile(
    rf"(?<![\w-])(?:({'|'.join(_TENS)})[- ])?({'|'.join(k for k in NUMBER_WORDS if NUMBER_WORDS[k] < 20)}|{'|'.join(_TENS)}|zero)"
    rf" point ((?:{'|'.join(_DIGIT_WORDS)})(?:[- ](?:{'|'.join(_DIGIT_WORDS)})){{0,3}})(?![\w-])"
)


def _spoken_decimals(t: str) -> list[Form]:
    """A decimal said in words: "three point four two" is 3.42."""
    out = []
    for m in _SPOKEN_POINT.finditer(t):
        whole = (NUMBER_WORDS[m.group(1)] if m.group(1) else 0) + NUMBER_WORDS.get(m.group(2), 0)
        n = Decimal(f"{whole}.{_digits(m.group(3))}")
        out.append(Form(m.start(), m.end(), "number", frozenset({n}), m.group(0), spoken=True))
    return out


def _spoken_digits(t: str) -> list[Form]:
    """A code or number said digit by digit: "five-five-one-nine" is 5519 (three digits at least)."""
    out = []
    for m in _SPOKEN_DIGITS.finditer(t):
        digits = _digits(m.group(0))
        out.append(Form(m.start(), m.end(), "code", frozenset({digits}), m.group(0), extra=True, spoken=True))
        out.append(
            Form(m.start(), m.end(), "number", frozenset({Decimal(digits)}), m.group(0), extra=True, spoken=True)
        )
    return out


# Two to four parts of a run, one with a digit, one with a letter, set apart by single spaces,
# hyphens or middle dots: an identifier written in parts ("KE EV 55120", "vm 55821", "seat 42 K",
# "orchid · lattice · 5521"), read as the parts joined, beside the parts.
_PART = r"[a-z0-9]{1,12}(?!['’])"  # not the head of a contraction ("isn't")
_PARTS = re.compile(rf"(?<![\w.,:/-]){_PART}(?:(?: | ?[-·] ?){_PART})+(?![\w-]|[.,:/]\d)")


_NOT_A_PART = STOPWORDS | COMMON_WORDS | {"am", "pm", "no", "not", "nor", "but", "so", "if", "via", "vs"}


def _part_ok(part: str, sep: str) -> bool:
    """A part of letters alone is a word unless it is short and no common word ("ke", "vm",
    "k"); beside a hyphen or a middle dot any part counts ("orchid-lattice-5521")."""
    return (
        any(c.isdigit() for c in part)
        or (sep.strip() != "" and part not in _NOT_A_PART)
        or (len(part) <= 3 and part not in _NOT_A_PART and part not in UNIT_WORDS)
    )


def _parted_codes(t: str) -> list[Form]:
    out = []
    for m in _PARTS.finditer(t):
        if not (re.search(r"\d", m.group(0)) and re.search(r"[a-z]", m.group(0))):
            continue
        found = list(re.finditer(_PART, m.group(0)))
        seps = [m.group(0)[a.end() : b.start()] for a, b in itertools.pairwise(found)]
        ok = [
            _part_ok(p.group(0), max((seps[k] for k in (i - 1, i) if 0 <= k < len(seps)), key=len, default=" "))
            for i, p in enumerate(found)
        ]
        for i in range(len(found)):
            for j in range(i + 1, min(i + 4, len(found))):
                s, e = m.start() + found[i].start(), m.start() + found[j].end()
                joined = "".join(p.group(0) for p in found[i : j + 1])
                if all(ok[i : j + 1]) and re.search(r"\d", joined) and re.search(r"[a-z]", joined):
                    out.append(Form(s, e, "code", frozenset({joined}), t[s:e], extra=True))
    return out


def _abbreviations(t: str) -> list[Form]:
    """An abbreviation states the words of its phrase, and the phrase states the abbreviation,
    each beside the span's own atoms."""
    out = []
    for m in _ABBR.finditer(t):
        for w in ABBREVIATIONS[m.group(1)].split():
            if w not in STOPWORDS:
                out.append(Form(m.start(), m.end(), "word", word_keys(w), m.group(0), extra=True))
    for m in _EXPANSION.finditer(t):
        for a in _BY_EXPANSION.get(re.sub(r"[- ]", " ", m.group(1)), []):
            out.append(Form(m.start(), m.end(), "word", word_keys(a), m.group(0), extra=True))
    return out


def find(t: str) -> list[Form]:
    """Every form in `t` (a text as `values.scan_text` gives it: folded), in no set order."""
    out = _times(t) + _number_words(t) + _spoken_digits(t) + _spoken_decimals(t) + _parted_codes(t) + _abbreviations(t)
    out += [Form(s, e, "time", minutes, text, extra=True) for s, e, minutes, text in clocks.find(t)]
    for m in _MULTIPLIER.finditer(t):
        whole, frac, short, word = m.groups()
        n = Decimal(f"{whole.replace(',', '')}.{frac or 0}") * _SCALE[short or word]
        # "98.5k" states 98,500 beside the code its characters make ("seat 42K" is a seat, not 42,000)
        out.append(Form(m.start(), m.end(), "number", frozenset({n.normalize()}), m.group(0), extra=short is not None))
    for m in _CURRENCY.finditer(t):
        out.append(Form(m.start(), m.end(), "word", word_keys(m.group(0)), m.group(0), extra=True))
    for m in _PER_CENT.finditer(t):
        out.append(Form(m.start(), m.end(), "word", frozenset({"%"}), m.group(0)))
    for m in OUT_OF.finditer(t):
        # beside its figures only: a value "58 out of 100" keeps them, the parts a slip gives away
        out.append(Form(m.start(), m.end(), "code", code_keys(f"{m.group(1)}/{m.group(2)}"), m.group(0), extra=True))
    for m in _PER.finditer(t):
        out.append(Form(m.start(), m.end(), "number", frozenset({Decimal(m.group(1))}), m.group(0), extra=True))
        out.append(Form(m.start(), m.end(), "word", word_keys(m.group(2)), m.group(0), extra=True))
    for m in _SLASHED.finditer(t):
        # a product line's letters, with or without their slash: "K/D" is "KD"
        out.append(Form(m.start(), m.end(), "word", frozenset({m.group(1) + m.group(2)}), m.group(0)))
    for m in _TIME_AND_A_HALF.finditer(t):
        # half as much again: 50% extra (of time, of pay)
        out.append(Form(m.start(), m.end(), "number", frozenset({Decimal(50)}), m.group(0)))
        out.append(Form(m.start(), m.end(), "word", frozenset({"%"}), m.group(0), extra=True))
        out.append(Form(m.start(), m.end(), "word", frozenset({"extra"}), m.group(0), extra=True))
    for m in _DECIMAL_COMMA.finditer(t):
        n = Decimal(f"{m.group(1)}.{m.group(2)}")
        out.append(Form(m.start(), m.end(), "number", frozenset({n}), m.group(0), extra=True))
    for m in _HASH.finditer(t):
        if m.group(1) in STOPWORDS:  # "fixed in #1377": the number alone, not a code "in1377"
            continue
        out.append(Form(m.start(), m.end(), "code", code_keys(m.group(1) + m.group(2)), m.group(0)))
    for m in _REQUEST.finditer(t):
        # a pull or merge request by its number: "#1377" and "pull request 1377" are "PR 1377"
        kinds = ("mr",) if m.group(1) == "merge" else ("pr",) if m.group(1) else ("pr", "mr")
        keys = frozenset(k + m.group(2) for k in kinds)
        out.append(Form(m.start(), m.end(), "code", keys, m.group(0), extra=True))
    for m in _TWICE.finditer(t):
        out.append(Form(m.start(), m.end(), "word", frozenset({"twice"}), m.group(0), extra=True))
    for m in _INTERNATIONAL.finditer(t):
        # "+44 20 7946 0321" is "020 7946 0321": the number after a country code of one to three figures
        digits = re.sub(r"\D", "", m.group(2))
        figures: frozenset[object] = frozenset(Decimal(digits[k:]) for k in range(3) if digits[k:].lstrip("0"))
        out.append(Form(m.start(), m.end(), "number", figures, m.group(0), extra=True))
    for m in _HALF.finditer(t):
        out.append(Form(m.start(), m.end(), "word", frozenset({"half"}), m.group(0), extra=True))
    for m in _DAY_RANGE.finditer(t):
        day, month = int(m.group(1)), _MONTHS.index(m.group(2)) + 1
        out.append(Form(m.start(1), m.end(1), "date", frozenset({(0, month, day)}), m.group(1), extra=True))
    for m in _RANGE_DAY.finditer(t):
        day, month = int(m.group(2)), _MONTHS.index(m.group(1)) + 1
        out.append(Form(m.start(2), m.end(2), "date", frozenset({(0, month, day)}), m.group(2), extra=True))
    for m in _RANGE_TO_DAY.finditer(t):
        day, month = int(m.group(2)), _MONTHS.index(m.group(1)) + 1
        if 1 <= day <= 31:
            out.append(Form(m.start(2), m.end(2), "date", frozenset({(0, month, day)}), m.group(2)))
    for m in _RANGE.finditer(t):
        for g in (1, 2):
            out.append(Form(m.start(g), m.end(g), "number", frozenset({Decimal(m.group(g))}), m.group(g), extra=True))
    for m in _GROUPS.finditer(t):
        # the figure its digits make, which a plain figure or the groups joined state alike; with
        # a letter prefix ("DE44 5001 0517", "NP 330 7719") an identifier, with or without it
        digits = m.group(2).replace(" ", "")
        if m.group(1):
            keys = frozenset({m.group(1) + digits, digits})
            out.append(Form(m.start(), m.end(), "code", keys, m.group(0)))
            out.append(Form(m.start(2), m.end(), "number", frozenset({Decimal(digits)}), digits, extra=True))
        else:
            out.append(Form(m.start(), m.end(), "number", frozenset({Decimal(digits)}), digits))
    return out


_FRACTIONS = {"½": ".5", "¼": ".25", "¾": ".75"}
_FRACTION = re.compile(r"(\d*)\s?([½¼¾])")


# A figure per something, written with a slash ("22.40/month", "2/day"): the scanner reads one
# identifier; it states the figure (and the word) beside it.
_PER = re.compile(
    r"(?<![\w.,/])(\d+(?:\.\d+)?)/(day|week|month|year|yr|mo|wk|night|hour|hr|person|head|dose|box|bag|unit)s?(?![\w/])"
)

_SLASHED = re.compile(r"(?<![\w/])([a-z]{1,2})/([a-z]{1,2})(?![\w/])")
_TIME_AND_A_HALF = re.compile(r"(?<![\w-])(?:time[- ]and[- ]a[- ]half|half as much (?:\w+ )?again)(?![\w-])")
# A decimal comma ("112,30"): two figures after it, never three ("1,150" is a thousands group).
_DECIMAL_COMMA = re.compile(r"(?<![\w.,])(\d{1,6}),(\d{2})(?![\w,]|\.\d)")

_MIDDLE_DOT = re.compile(r"(?<=\d)[·•](?=\d)")


def fractions(text: str) -> str:
    """Vulgar fractions as decimals, before Unicode folding turns "9½" into "91⁄2"; a raised
    decimal point ("2·7") as a point."""
    return _MIDDLE_DOT.sub(".", _FRACTION.sub(lambda m: (m.group(1) or "0") + _FRACTIONS[m.group(2)], text))
