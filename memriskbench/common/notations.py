"""More surface forms, beside the ones `forms` reads: the notations of cards, phones, clocks and
counts that careful writers use and the scanner splits apart.

- a card by its last four digits: "Visa •••• 4092", "****4417", "xxxx-4092", "ending in 4092",
  "last four digits 4092" all state "Visa card ending 4092"; a build with its pre-release tag
  set apart ("v4.12.0 RC2" is "4.12.0-rc2");
- digits said one by one ("7 3 0 5"), a combination read out ("24, 08, 36", "31 → 17 → 44"),
  a thousands group set off by a space ("2 680.00");
- a compact 24-hour clock ("0830", "1040 hours", "0310 UTC", "at 1605");
- numbers in words with a scale ("ninety-eight thousand five hundred") or a half ("two and a
  half");
- a flow rate ("2 LPM", "2L/min", "two litres per minute"), a score as a share of a hundred
  ("91%" for "91/100"), "9 1/2" for 9.5, "3–11" for "3-11", an address spelled out ("board (at)
  almerafoods (dot) com"), "purchase order 77215" for "PO-77215", a phone number with its area code in brackets ("(020) 7946 0318") or
  grouped otherwise ("07700 914362"), an extension as "x4318", an identifier after "#";
- a day and month with points ("26.5." is May 26);
- ordinals in words ("the fourteenth", "second floor") and in figures ("2nd" is "second"), and a
  stage or grade in Roman figures ("stage II" is "stage 2").

Each is found in a folded text (`values.scan_text`) and stated beside the scanner's own atoms
(`extra`): none of them replaces a reading, so the claim reader's sequence of atoms is unchanged.
Found on surface forms written blind from values alone (the forms audit of issue 37), not on
replies of the corpus. Every expression is linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

from memriskbench.common.forms import NUMBER_WORDS, SCALE_WORDS, Form, code_keys, word_keys

_CARD_TAIL = re.compile(
    r"(?:[•*x●·]{3,}\s?[-\s]?|\.{3}\s?|…\s?|\b(?:ending|ends)\s+(?:in|with)\s+|\blast\s+(?:four|4)(?:\s+digits)?(?:\s+of)?:?\s+)(\d{4})(?!\d)"
)
_CARD_BRAND = re.compile(r"(?<![\w-])(?:visa|amex|mastercard|maestro|discover|debit|credit)(?![\w-])")
_SPACED_DIGITS = re.compile(r"(?<![\w.,:/-])\d(?: \d){3,9}(?![\w-]|[.,:/]\d| \d)")
_READ_OUT = re.compile(r"(?<![\w.,:/-])(\d{2})((?:(?:,\s(?:then\s)?|\s?→\s?)\d{2}){2,3})(?![\w-]|[.,:/]\d|,?\s\d)")
_SPACED_THOUSANDS = re.compile(r"(?<![\w.,:/-])(\d{1,3})((?: \d{3})+)(\.\d{1,2})?(?![\w-]|[.,:/]\d| \d)")
_COMPACT_CLOCK = re.compile(
    r"(?<![\w.,:/-])([01]\d|2[0-3])([0-5]\d)(\s?(?:hours|hrs|hr|h|z|utc|gmt)(?![a-z]))?(?![\w-]|[.,:/]\d)"
)
_CLOCK_CUE = re.compile(r"(?:\bat|\bby|\bfrom|\buntil|\btill|departs?|departure|leaves?|lands?|arrives?|:)\s?$")
_NUMBER_TOKEN = "|".join(sorted([*NUMBER_WORDS, "hundred", *SCALE_WORDS], key=len, reverse=True))
_SCALED_RUN = re.compile(rf"(?<![\w-])(?:{_NUMBER_TOKEN})(?:(?:[- ]|\s+and\s+)(?:{_NUMBER_TOKEN}))*(?![\w-])")
_AND_A_HALF = re.compile(
    rf"(?<![\w-])((?:{'|'.join(k for k, v in NUMBER_WORDS.items() if v >= 20)})[- ])?"
    rf"({'|'.join(k for k, v in NUMBER_WORDS.items() if v < 20)}|{'|'.join(k for k, v in NUMBER_WORDS.items() if v >= 20)})"
    r"\s+and\s+a\s+half(?![\w-])"
)
_FLOW = re.compile(
    r"(?<![\w.,])(\d+(?:\.\d+)?)\s?(?:lpm|l\s?/\s?min|l/m|l per min(?:ute)?|lit(?:re|er)s?\s?/\s?min)(?![\w/])"
)
_SHARE = re.compile(r"(?<![\w.,])(\d{1,3})\s?(?:%|percent|per cent)(?![\w])")
_OF_A_HUNDRED = re.compile(
    rf"(?<![\w-])(\d{{1,3}}|(?:{_NUMBER_TOKEN})(?:[- ](?:{_NUMBER_TOKEN}))?) out of a hundred(?![\w])"
)
_SCORE = re.compile(r"(?<![\w.,/])(\d{1,3})(?:\s/\s|\s+of\s+)(\d{1,3})(?![\w/]|[.,]\d)")
_BRACKETED_AREA = re.compile(r"\((0\d{2,4})\)\s?(\d{3,4})[\s.-]?(\d{3,4})(?![\w-])")
_PHONE = re.compile(r"(?<![\w.+-])(0\d{2,4})[\s.-](\d{3,6})(?:[\s.-](\d{3,4}))?(?![\w-]|[.,]\d)")
_EXTENSION = re.compile(r"(?<![\w-])x\s?(\d{3,5})(?![\w-])")
_PRERELEASE = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+){1,3})[\s-]?(rc|beta|alpha|pre)[\s.-]?(\d{1,2})(?![\w-]|\.\d)")
# A day and month with points, as German and Nordic writers put them: "26.5.", "21.11."
_POINTED_DATE = re.compile(r"(?<![\w.,$€£¥])(\d{1,2})\.(\d{1,2})\.(?!\d)")
_HALVES = re.compile(r"(?<![\w.,/])(\d{1,3}) ([13])/([24])(?![\w/]|[.,]\d)")
_EN_DASHED = re.compile(r"(?<![\w.,:/–-])(\d{1,4})–(\d{1,4})(?![\w–-]|[.,:]\d)")
_SPELLED_EMAIL = re.compile(
    r"(?<![\w.+-])([\w.+-]{1,64})\s?[(\[]?\s?at\s?[)\]]?\s?([\w-]{1,63})\s?[(\[]?\s?dot\s?[)\]]?\s?([a-z]{2,6})(?![\w])"
)
_PURCHASE_ORDER = re.compile(r"(?<![\w-])(?:purchase order|p\.o\.)\s?(?:#|no\.?|number)?\s?(\d{3,8})(?![\w-])")
_ONE_HALF = re.compile(r"(?<![\w./])1/2(?![\w/])")
_HASHED = re.compile(r"#([a-z][a-z0-9]*-?\d[\w-]*[a-z0-9])(?![\w-])")
# fmt: off
_ORDINALS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
    "eighteenth", "nineteenth", "twentieth",
)
# fmt: on
_ORDINAL_VALUE = {w: i + 1 for i, w in enumerate(_ORDINALS)} | {"thirtieth": 30}
_ORDINAL_WORD = re.compile(rf"(?<![\w-])(?:(twenty|thirty)[- ])?({'|'.join(_ORDINAL_VALUE)})(?![\w-])")
_ORDINAL_FIGURE = re.compile(r"(?<![\w.,])(\d{1,2})(st|nd|rd|th)(?![\w])")
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
_STAGE = re.compile(
    r"(?<![\w-])(stage|grade|type|phase|class|tier)\s+(x|ix|viii|vii|vi|v|iv|iii|ii|i|\d{1,2}"
    rf"|{'|'.join(k for k, v in NUMBER_WORDS.items() if v <= 10)})(?![\w-])"
)


def _suffix(n: int) -> str:
    return "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _number(start: int, end: int, n: Decimal, t: str, spoken: bool = False) -> Form:
    return Form(start, end, "number", frozenset({n.normalize()}), t[start:end], extra=True, spoken=spoken)


def _word(start: int, end: int, word: str, t: str) -> Form:
    return Form(start, end, "word", word_keys(word), t[start:end], extra=True)


def _code(start: int, end: int, code: str, t: str) -> Form:
    return Form(start, end, "code", code_keys(code), t[start:end], extra=True)


def _spoken_value(words: str) -> int | None:
    """The number a run of number words with a scale makes ("ninety-eight thousand five
    hundred"), or None when it has no scale word (`forms` reads those)."""
    tokens = [w for w in re.split(r"[- ]+|\s+and\s+", words) if w and w != "and"]
    if not any(w in SCALE_WORDS for w in tokens):
        return None
    total, cur = 0, 0
    for w in tokens:
        if w == "hundred":
            cur = (cur or 1) * 100
        elif w in SCALE_WORDS:
            total += (cur or 1) * SCALE_WORDS[w]
            cur = 0
        else:
            cur += NUMBER_WORDS[w]
    return total + cur


def find(t: str) -> Iterator[Form]:
    """Every such notation in a folded text, each stated beside the scanner's atoms."""
    for m in _CARD_TAIL.finditer(t):
        yield _word(m.start(), m.end(), "ending", t)
        yield _number(m.start(1), m.end(1), Decimal(m.group(1)), t)
    for m in _CARD_BRAND.finditer(t):
        yield _word(m.start(), m.end(), "card", t)
    for m in _SPACED_DIGITS.finditer(t):
        digits = m.group(0).replace(" ", "")
        yield _code(m.start(), m.end(), digits, t)
        yield _number(m.start(), m.end(), Decimal(digits), t)
    for m in _READ_OUT.finditer(t):
        yield _code(m.start(), m.end(), m.group(1) + "".join(re.findall(r"\d{2}", m.group(2))), t)
    for m in _SPACED_THOUSANDS.finditer(t):
        yield _number(m.start(), m.end(), Decimal(m.group(1) + m.group(2).replace(" ", "") + (m.group(3) or "")), t)
    for m in _COMPACT_CLOCK.finditer(t):
        if m.group(3) or m.group(1).startswith("0") or _CLOCK_CUE.search(t[max(0, m.start() - 12) : m.start()]):
            minutes = int(m.group(1)) * 60 + int(m.group(2))
            yield Form(m.start(), m.end(), "time", frozenset({minutes}), m.group(0), extra=True)
    for m in _SCALED_RUN.finditer(t):
        n = _spoken_value(m.group(0))
        if n is not None:
            yield _number(m.start(), m.end(), Decimal(n), t, spoken=True)
    for m in _AND_A_HALF.finditer(t):
        whole = (NUMBER_WORDS[m.group(1)[:-1]] if m.group(1) else 0) + NUMBER_WORDS[m.group(2)]
        yield _number(m.start(), m.end(), Decimal(whole) + Decimal("0.5"), t, spoken=True)
    for m in _FLOW.finditer(t):
        yield _number(m.start(1), m.end(1), Decimal(m.group(1)), t)
        yield _word(m.end(1), m.end(), "l", t)
        yield _word(m.end(1), m.end(), "minute", t)
    for m in _SHARE.finditer(t):
        yield from _score(m.start(), m.end(), int(m.group(1)), 100, t)
    for m in _OF_A_HUNDRED.finditer(t):
        n = int(m.group(1)) if m.group(1).isdigit() else _spoken_small(m.group(1))
        if n is not None:
            yield from _score(m.start(), m.end(), n, 100, t)
    for m in _SCORE.finditer(t):
        yield from _score(m.start(), m.end(), int(m.group(1)), int(m.group(2)), t)
    for m in [*_BRACKETED_AREA.finditer(t), *_PHONE.finditer(t)]:
        # a phone number is an identifier, and the figure its digits make (as `forms` reads one)
        digits = "".join(g for g in m.groups() if g)
        if 10 <= len(digits) <= 11:
            yield _code(m.start(), m.end(), digits, t)
            yield _number(m.start(), m.end(), Decimal(digits), t)
    for m in _EXTENSION.finditer(t):
        yield _word(m.start(), m.end(), "extension", t)
        yield _number(m.start(1), m.end(1), Decimal(m.group(1)), t)
    for m in _PRERELEASE.finditer(t):
        # "v4.12.0 RC2" is the build "4.12.0-rc2"
        yield _code(m.start(), m.end(), f"{m.group(1)}-{m.group(2)}{m.group(3)}", t)
    for m in _POINTED_DATE.finditer(t):
        day, month = int(m.group(1)), int(m.group(2))
        if 1 <= day <= 31 and 1 <= month <= 12:
            yield Form(m.start(), m.end(), "date", frozenset({(0, month, day)}), m.group(0), extra=True)
    for m in _HALVES.finditer(t):
        # "9 1/2" is 9.5 (a shoe size, a dose), "2 3/4" 2.75
        frac = Decimal(int(m.group(2))) / Decimal(int(m.group(3)))
        if frac < 1:
            yield _number(m.start(), m.end(), Decimal(m.group(1)) + frac, t)
    for m in _EN_DASHED.finditer(t):
        # a house number range with an en dash: "3–11 Gojō-dōri" is "3-11"
        yield _code(m.start(), m.end(), f"{m.group(1)}-{m.group(2)}", t)
    for m in _SPELLED_EMAIL.finditer(t):
        # "board-2026 (at) almerafoods (dot) com"
        if m.group(1) not in ("it", "me", "us", "them", "look", "arrive", "arrives", "meet", "be"):
            yield _code(m.start(), m.end(), f"{m.group(1)}@{m.group(2)}.{m.group(3)}", t)
    for m in _ONE_HALF.finditer(t):
        yield _word(m.start(), m.end(), "half", t)  # "1/2 pouch" is "half a pouch"
    for m in _PURCHASE_ORDER.finditer(t):
        yield _code(m.start(), m.end(), f"po-{m.group(1)}", t)
    for m in _HASHED.finditer(t):
        yield _code(m.start(1), m.end(1), m.group(1), t)
    yield from _ordinals(t)
    for m in _STAGE.finditer(t):
        g = m.group(2)
        n = _ROMAN.get(g) or (int(g) if g.isdigit() else NUMBER_WORDS[g])
        roman = next((r for r, v in _ROMAN.items() if v == n), None)
        yield _number(m.start(2), m.end(2), Decimal(n), t)
        if roman:
            yield Form(m.start(2), m.end(2), "word", frozenset({roman}), g, extra=True)


def _score(start: int, end: int, n: int, of: int, t: str) -> Iterator[Form]:
    """A score ("58/100" is read as the code and as its two figures)."""
    yield _code(start, end, f"{n}/{of}", t)
    yield _number(start, end, Decimal(n), t)
    yield _number(start, end, Decimal(of), t)


def _spoken_small(words: str) -> int | None:
    parts = re.split(r"[- ]", words)
    if not all(p in NUMBER_WORDS for p in parts):
        return None
    return sum(NUMBER_WORDS[p] for p in parts)


_MONTH_AFTER = re.compile(r"\s+of\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*(?![a-z])")
_MONTH_KEYS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _ordinals(t: str) -> Iterator[Form]:
    """ "The fourteenth" is the 14th, "second floor" the 2nd; "the fourteenth of May" a date. A
    bare "first" or "second" ("first, ...", "a second") is no ordinal: only after "the" or
    before a noun of place ("floor", "row")."""
    for m in _ORDINAL_WORD.finditer(t):
        n = (20 if m.group(1) == "twenty" else 30 if m.group(1) else 0) + _ORDINAL_VALUE[m.group(2)]
        before, after = t[max(0, m.start() - 4) : m.start()], t[m.end() : m.end() + 12]
        if not (before.endswith("the ") or re.match(r"\s(?:floor|level|row|storey|story)\b", after)):
            continue
        yield _number(m.start(), m.end(), Decimal(n), t)
        yield _word(m.start(), m.end(), _suffix(n), t)
        month = _MONTH_AFTER.match(t, m.end())
        if month and n <= 31:
            date = (0, _MONTH_KEYS.index(month.group(1)) + 1, n)
            yield Form(m.start(), month.end(), "date", frozenset({date}), t[m.start() : month.end()], extra=True)
    for m in _ORDINAL_FIGURE.finditer(t):
        n = int(m.group(1))
        if 1 <= n <= len(_ORDINALS):
            yield _word(m.start(), m.end(), _ORDINALS[n - 1], t)
