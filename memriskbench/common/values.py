"""Typed values in text: does a reply state a value, however it is worded?

A value (a memory record's value, or a literal a check names) is split into atoms, and a text
states the value when it states every atom. Atoms are typed, and each type has its own rule:

- date: "2026-05-20", "May 20", "20 May", "May 20th", "20th of May", "Wed 20 May 2026",
  "5/20/2026", "12/22". A date without a year takes its year from the episode's clock: the first
  such date from 90 days before the last timestamp on (so "January 5" said in late December is
  next year's). Both readings of a numeric day/month are kept. A weekday beside a date is
  implied by the date.
- time: "16:00" = "4 pm" = "4 p.m." = "4:00 PM" = "16h00"; "noon", "midnight". A time written
  without am/pm and an hour of 1-12 ("4:00", "5:30", "10:15") can be either half of the day;
  a zero-padded hour ("07:30") is 24-hour.
- number: "1,150" = "1150.00" = "$1,150" = "1150"; a unit glued on ("88mcg") is split off.
- code: an identifier with letters and digits or inner punctuation ("B41", "QX7RT2",
  "55-81920", "pg-analytics-01.internal:5432", an email address): exact after case folding, as a
  whole token ("B41" is not in "B415").
- word: everything else, word by word after Unicode and case folding, a plural or possessive
  "s" aside; filler words ("the", "at", "of", and a part of the day or a time zone, which a
  date or time argument cannot carry) are not atoms.

Every expression here is linear (no nested quantifiers), and texts are capped at MAX_TEXT
characters before they are scanned: a caller with a longer text reads it in windows
(`textrules.windows`, as the check rules do).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from dateutil import parser as dateparser

from memriskbench.common import forms, notations
from memriskbench.common.textrules import MAX_TEXT, visible_nfkc
from memriskbench.common.words import COMMON_WORDS, MONTHS, RANGE_WORDS, STOPWORDS, VALUE_LABELS, VALUE_TITLES, WEEKDAYS

_WEEKDAY_RE = (
    r"(?:monday|mon|tuesday|tues|tue|wednesday|wed|thursday|thurs|thur|thu|friday|fri|saturday|sat|sunday|sun)s?\.?"
)
_MONTH_RE = r"(?:january|jan|february|feb|march|mar|april|apr|may|june|jun|july|jul|august|aug|september|sept|sep|october|oct|november|nov|december|dec)\.?"
_AMPM = r"(a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])"

_PATTERNS = [
    # anchored at the start of a run of its characters: tried inside the run, it would read the rest
    # of the run again from every position (quadratic on a long run of "1.1.1.")
    ("email", r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    (
        "phone",
        r"(?<![\w+])\+\d{1,3}(?:[\s.-]?(?:\(\d+\)|\d{2,6})){1,4}(?!\w)|(?<![\w.-])0\d{2,4}(?:[\s.-]\d{3,4}){1,2}(?![\w-]|[.,]\d)",
    ),
    ("url", r"(?:https?://|www\.)[^\s,;]*[\w/]"),
    (
        "host",
        r"(?<![\w.@-])[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:com|net|org|edu|io|dev|co|uk|fr|de|nl|biz|top|info|app|ai|us|cl|me|gov|internal|local)(?![\w-])",
    ),
    ("iso", r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::\d{2})?z?)?(?![\w-])"),
    ("ymd", r"(?<![\w/])(\d{4})/(\d{1,2})/(\d{1,2})(?![\w/])"),
    ("dmy", r"(?<![\w/.])(\d{1,2})[/.](\d{1,2})(?:[/.](\d{4}|\d{2}))?(?![\w/]|\.\d|\s?[ap]\.?m(?![a-z]))"),
    (
        "named",
        rf"(?<![a-z])(?:{_WEEKDAY_RE},?\s+)?(?:(\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?\s+({_MONTH_RE})|({_MONTH_RE})\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![\d:]))(?:,?\s+(\d{{4}}))?(?![a-z])",
    ),
    ("hm", rf"(?<![\w:.])([01]?\d|2[0-3])(?::|h|\.(?=\d\d\s?[ap]\.?m))([0-5]\d)(?:\s?{_AMPM})?(?![\w:])"),
    ("h", rf"(?<![\w:.])(1[0-2]|0?[1-9])\s?{_AMPM}"),
    ("noon", r"(?<![a-z])(noon|midday|midnight)(?![a-z])"),
    ("weekday", rf"(?<![a-z]){_WEEKDAY_RE}(?![a-z])"),
    ("unit", r"(?<![\w.,])(?:[$€£¥]\s?)?(\d+(?:\.\d+)?)([a-zµ%]{2,})(?![\w])"),
    (
        "code",
        r"(?<![\w.:/#-])(?=[\w.:/#-]*\d)(?=[\w.:/#-]*[a-z])[a-z0-9][\w.:/#-]*[a-z0-9]|(?<![\w.:/#-])\d+(?:[-:/.]\d+){2,}(?![\w])|(?<![\w.-])\d+-\d+(?![\w-])|(?<![\w.])0\d+(?!\w|[.,]\d)",
    ),
    ("number", r"(?<![\w.,])(?:[$€£¥]\s?)?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?!\w|[.,]\d)\s?(%)?"),
    ("word", r"[^\W\d_]+(?:'[^\W\d_]+)?|%"),
]
_SCAN = re.compile("|".join(f"(?P<{name}>{rx})" for name, rx in _PATTERNS), re.IGNORECASE)


@lru_cache(maxsize=16384)
def fold(text: str) -> str:
    """Unicode NFKC, default-ignorable characters removed, case folded, Latin accents dropped, whitespace runs made one
    space, or one line break where the run holds one: a markdown bullet or a line of its own is a
    sentence of its own to the claim reader."""
    t = visible_nfkc(text[:MAX_TEXT]).casefold()
    if not t.isascii():
        # accents are a spelling, not a value: "Gojō-dōri" is "Gojo-dori"
        t = unicodedata.normalize("NFC", _MARK.sub("", unicodedata.normalize("NFD", t)))
    return _LINE_RUN.sub("\n", _SPACE_RUN.sub(" ", t)).strip()


_MARK = re.compile(r"[\u0300-\u036f]")


_SPACE_RUN = re.compile(r"[^\S\n]+")
_LINE_RUN = re.compile(r" ?\n[\s]*")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    w = word.removesuffix("'s").removesuffix("’s")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ses", "xes", "ches", "shes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


@dataclass(frozen=True, slots=True)
class Atom:
    kind: str  # date, time, weekday, number, code, word
    readings: frozenset[object]  # dates: (year or 0, month, day); times: minutes; others: one key
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass
class Bag:
    """Every atom a text states, by kind, for fast lookup."""

    atoms: list[Atom] = field(default_factory=list)
    by_kind: dict[str, set[object]] = field(default_factory=dict)

    def add(self, atom: Atom) -> None:
        self.atoms.append(atom)
        self.by_kind.setdefault(atom.kind, set()).update(atom.readings)


def _ymd(y: int, m: int, d: int) -> tuple[int, int, int] | None:
    try:
        date(y or 2000, m, d)  # 2000 is a leap year: Feb 29 without a year is allowed
    except ValueError:
        return None
    return (y, m, d)


def _year(text: str | None) -> int:
    if not text:
        return 0
    y = int(text)
    return y + 2000 if y < 100 else y


def _clock(h: int, m: int, ampm: str | None, padded: bool = False) -> frozenset[object]:
    if ampm:
        pm = ampm.lower().startswith("p")
        h = (h % 12) + (12 if pm else 0)
        return frozenset({h * 60 + m})
    if 1 <= h <= 12 and not padded:
        return frozenset({(h % 12) * 60 + m, (h % 12 + 12) * 60 + m})
    return frozenset({h * 60 + m})


_KIND_RE = {name: re.compile(rx, re.IGNORECASE) for name, rx in _PATTERNS}


def _code(text: str) -> Atom:
    return Atom("code", forms.code_keys(text), text)


def _atoms_of(kind: str, text: str) -> list[Atom]:
    """The atoms of one span the scanner found, re-read with its own pattern for the groups."""
    if kind == "phone":
        return [_code(re.sub(r"[\s.()-]", "", text))]
    if kind in ("email", "url", "host", "code"):
        return [_code(text)]
    m = _KIND_RE[kind].fullmatch(text)
    parts: list[str | None] = list(m.groups()) if m else []
    if kind == "iso":
        d = _ymd(int(parts[0] or 0), int(parts[1] or 0), int(parts[2] or 0))
        if d is None:
            return [_code(text)]
        out = [Atom("date", frozenset({d}), text)]
        if parts[3] is not None:
            out.append(Atom("time", frozenset({int(parts[3]) * 60 + int(parts[4] or 0)}), f"{parts[3]}:{parts[4]}"))
        return out
    if kind == "ymd":
        d = _ymd(int(parts[0] or 0), int(parts[1] or 0), int(parts[2] or 0))
        return [Atom("date", frozenset({d}), text)] if d else [_code(text)]
    if kind == "dmy":
        a, b, y = int(parts[0] or 0), int(parts[1] or 0), _year(parts[2])
        readings = {r for r in (_ymd(y, b, a), _ymd(y, a, b)) if r}
        if "." in text and not parts[2]:
            return _numbers_in(text)  # 8.15 is a number, not a date
        return [Atom("date", frozenset(readings), text)] if readings else [_code(text)]
    if kind == "named":
        return _named_date(text, parts)
    if kind == "hm":
        hour = parts[0] or "0"
        return [Atom("time", _clock(int(hour), int(parts[1] or 0), parts[2], padded=hour.startswith("0")), text)]
    if kind == "h":
        return [Atom("time", _clock(int(parts[0] or 0), 0, parts[1]), text)]
    if kind == "noon":
        return [Atom("time", frozenset({0 if text.casefold() == "midnight" else 720}), text)]
    if kind == "weekday":
        return [Atom("weekday", frozenset({_weekday(text)}), text)]
    if kind == "unit":
        return [_number(parts[0] or "", text), Atom("word", forms.word_keys(_unit(parts[1] or "")), parts[1] or "")]
    if kind == "number":
        out = [_number(parts[0] or "", text)]
        if parts[1]:
            out.append(Atom("word", frozenset({"%"}), "%"))
        return out
    return [Atom("word", forms.word_keys(_unit(text)), text)]


def _unit(word: str) -> str:
    w = word.casefold()
    return "%" if w in ("%", "percent") else stem(w)


def _numbers_in(text: str) -> list[Atom]:
    return [_number(x, x) for x in re.findall(r"\d+(?:\.\d+)?", text)]


def _number(digits: str, text: str) -> Atom:
    try:
        value = Decimal(digits.replace(",", "")).normalize()
    except InvalidOperation:
        return _code(text)
    return Atom("number", frozenset({value}), text)


def _weekday(text: str) -> int:
    t = text.casefold()[:3]
    return next(i for i, w in enumerate(WEEKDAYS) if w.startswith(t))


def _month(text: str) -> int | None:
    t = text.casefold().rstrip(".")
    hits = [i + 1 for i, name in enumerate(MONTHS) if name.startswith(t[:3]) and (name.startswith(t) or t in ("sept",))]
    return hits[0] if hits else None


def _named_date(text: str, parts: list[str | None]) -> list[Atom]:
    day_a, month_a, month_b, day_b, year = parts[:5]
    month = _month(month_a or month_b or "")
    day = int(day_a or day_b or 0)
    if month is None:
        return [Atom("word", frozenset({stem(w)}), w) for w in re.findall(r"[^\W\d_]+", text.casefold())] + _numbers_in(
            text
        )
    try:  # dateutil validates the day against the month (and the year, for Feb 29)
        parsed = dateparser.parse(f"{MONTHS[month - 1]} {day} {year or 2000}")
    except (ValueError, OverflowError):
        return _numbers_in(text)
    d = (_year(year), parsed.month, parsed.day)
    out = [Atom("date", frozenset({d}), text)]
    wd = re.match(rf"\s*({_WEEKDAY_RE})", text, re.IGNORECASE)
    if wd:
        out.append(Atom("weekday", frozenset({_weekday(wd.group(1))}), wd.group(1)))
    return out


# "SQ 317", "KX-419": an uppercase prefix and a number are one identifier, however they are
# joined; a currency code is not a prefix ("EUR 140" is an amount).
_PREFIXED = re.compile(r"(?<![\w-])([A-Z]{2,3})[ -]?(\d{2,5})(?![\w-]|[.,]\d)")


def _join(m: re.Match[str]) -> str:
    return m.group(0) if m.group(1) in forms.CURRENCY_CODES else m.group(1) + m.group(2)


def scan_text(text: str) -> str:
    """The text the scanner reads: prefixed identifiers joined, then folded. Spans index into it."""
    return fold(_PREFIXED.sub(_join, forms.fractions(text[:MAX_TEXT])))


@lru_cache(maxsize=4096)
def _matches(text: str) -> tuple[tuple[int, int, tuple[Atom, ...]], ...]:
    """Every span the scanner finds in `scan_text(text)`, with its atoms: the one scan that
    `scan`, `spans` and `bag` share."""
    return tuple(
        (m.start(), m.end(), tuple(_atoms_of(m.lastgroup or "word", m.group(0))))
        for m in _SCAN.finditer(scan_text(text))
    )


Entry = tuple[int, int, tuple[Atom, ...]]


@lru_cache(maxsize=4096)
def _forms(text: str, spoken: bool = True) -> tuple[tuple[Entry, ...], tuple[Entry, ...]]:
    """The surface forms (`forms.find`) in `scan_text(text)`: (every form the text states,
    the forms a value reads instead of the atoms they cover; numbers in words only if `spoken`).
    A form that cuts across a span the scanner read ("20 2026" in "june 20 2026") is another
    reading of the same characters: dropped."""
    t = scan_text(text)
    scanned = [(s, s + len(t[s:e].rstrip())) for s, e, _ in _matches(text)]  # a number's span takes a space
    stated: list[Entry] = []
    reading: list[tuple[int, int, tuple[Atom, ...]]] = []
    for f in sorted([*forms.find(t), *notations.find(t)], key=lambda f: (f.start, -f.end)):
        atoms = (Atom(f.kind, f.readings, f.text),)
        if not f.extra and any(a < f.end and f.start < b and not (f.start <= a and b <= f.end) for a, b in scanned):
            continue
        stated.append((f.start, f.end, atoms))
        if not f.extra and (spoken or not f.spoken) and not (reading and f.start < reading[-1][1]):
            reading.append((f.start, f.end, atoms))
    return tuple(stated), tuple(reading)


@lru_cache(maxsize=4096)
def scan(text: str, spoken: bool = False) -> tuple[Atom, ...]:
    """Every atom in `text`, in order: a surface form ("half past nine", and with `spoken` a
    number in words, as a value is read) instead of the plain atoms it covers. Without it "the
    last two" in a request is not a figure it guesses at."""
    reading = _forms(text, spoken)[1]
    plain = [(s, e, atoms) for s, e, atoms in _matches(text) if not any(a <= s and e <= b for a, b, _ in reading)]
    return tuple(a for _, _, atoms in sorted(plain + list(reading), key=lambda x: x[0]) for a in atoms)


def _stated(text: str) -> tuple[Entry, ...]:
    """Every span with what it states: the scanner's, and every surface form beside them."""
    return _matches(text) + _forms(text, True)[0]


# The kinds of atom in a span that can state an atom of each kind (`_has`): a date implies its
# weekday, a time states its hour.
_STATED_BY = {"weekday": ("weekday", "date"), "number": ("number", "time")}


@lru_cache(maxsize=4096)
def spans(text: str) -> dict[str, tuple[tuple[int, int, Bag], ...]]:
    """Every span the scanner found in `scan_text(text)`, with what it states (its atoms, and the
    words and figures inside an identifier, as `bag` has them), by the kinds it states: `places`
    looks at the spans that can state an atom, not at every span."""
    out: dict[str, list[tuple[int, int, Bag]]] = {}
    for s, e, atoms in _stated(text):
        b = Bag()
        for a in atoms:
            _add_with_parts(b, a)
        for kind in b.by_kind:
            out.setdefault(kind, []).append((s, e, b))
    return {k: tuple(v) for k, v in out.items()}


def _add_with_parts(b: Bag, a: Atom) -> None:
    b.add(a)
    # an identifier of digit groups is also the number its digits make, and a plain figure the
    # identifier: "5-5-1-9" states 5519, "2774" states "2-7-7-4"
    digits = forms.digit_code(a.text) if a.kind == "code" else None
    if digits:
        b.add(_number(digits, a.text))
    figure = re.sub(r"[\s-]", "", a.text)
    if a.kind == "number" and figure.isdigit() and len(figure) >= 3:
        b.add(Atom("code", frozenset({figure}), figure))
    if a.kind == "code":
        for part in re.findall(r"[^\W\d_]{2,}|\d{2,}", a.text.casefold()):
            b.add(Atom("word", frozenset({stem(part)}), part) if not part.isdigit() else _number(part, part))


def value_atoms(value: str) -> tuple[Atom, ...]:
    """The atoms a text must state to state `value`: its typed atoms and its content words."""
    # "58 out of 100" is stated by "58/100": the "out" of a score is no word of the value
    filler = STOPWORDS | ({"out"} if forms.OUT_OF.search(fold(value)) else set())
    return tuple(a for a in scan(value, spoken=True) if not (a.kind == "word" and a.readings <= filler))


# Labels, titles and range words a value carries beside what identifies it: `words` says which.


def _distinctive(a: Atom) -> bool:
    return a.kind == "code" or (a.kind in ("number", "time") and not _weak(a))


@lru_cache(maxsize=16384)
def required_atoms(value: str) -> tuple[Atom, ...]:
    """The atoms a text must state to state `value`: `value_atoms` less the labels, titles and
    range words it carries beside what identifies it."""
    atoms = value_atoms(value)

    def key(a: Atom) -> str:
        return a.text.casefold().rstrip(".") if a.kind == "word" else ""

    labelled = any(_distinctive(a) for a in atoms)
    named = any(a.kind == "word" and key(a) not in VALUE_TITLES and not _weak(a) for a in atoms)
    figures = sum(a.kind in ("number", "time", "date", "code") for a in atoms)
    kept = tuple(
        a
        for a in atoms
        if not (
            (labelled and stem(key(a)) in VALUE_LABELS)
            or (named and key(a) in VALUE_TITLES)
            or (figures >= 2 and key(a) in RANGE_WORDS)
        )
    )
    return kept or atoms


@lru_cache(maxsize=4096)
def bag(text: str) -> Bag:
    """What a text states. An address or identifier also states the words and figures inside it:
    "grading-backup" is in "grading-backup@lakeview-mail.net", "317" in "SQ317"."""
    b = Bag()
    for _, _, atoms in _stated(text):
        for a in atoms:
            _add_with_parts(b, a)
    return b


LOOKBACK_DAYS = 90


def resolve_date(d: tuple[int, int, int], ref: date | None) -> tuple[int, int, int]:
    """A date without a year is the first such date from LOOKBACK_DAYS before the episode's
    clock on: an assistant mostly talks of what is coming, sometimes of the weeks just past."""
    y, m, day = d
    if y or ref is None:
        return d
    start = ref.toordinal() - LOOKBACK_DAYS
    for yy in (ref.year - 1, ref.year, ref.year + 1, ref.year + 2):
        if _ymd(yy, m, day) and date(yy, m, day).toordinal() >= start:
            return (yy, m, day)
    return (ref.year, m, day)


def _dates_equal(a: tuple[int, int, int], b: tuple[int, int, int], ref: date | None) -> bool:
    if ref is None and not (a[0] and b[0]):
        return a[1:] == b[1:]
    return resolve_date(a, ref) == resolve_date(b, ref)


def _has(atom: Atom, b: Bag, ref: date | None, implied_weekdays: set[int]) -> bool:
    have = b.by_kind.get(atom.kind, set())
    if atom.kind == "date":
        dates = [x for x in have if isinstance(x, tuple)]
        return any(_dates_equal(a, x, ref) for a in atom.readings if isinstance(a, tuple) for x in dates)
    if atom.kind == "weekday":
        if atom.readings & implied_weekdays or atom.readings & have:
            return True
        stated = [resolve_date(x, ref) for x in b.by_kind.get("date", set()) if isinstance(x, tuple)]
        return any(x[0] and date(*x).weekday() in atom.readings for x in stated)
    if atom.kind == "code":
        return bool(atom.readings & have) or any(_inside(str(c), have) for c in atom.readings)
    if atom.kind == "number" and not atom.readings & have:
        # "Tuesday at 11" is stated by "Tuesday at 11am": an hour is a time of day
        hours = {int(r) for r in atom.readings if isinstance(r, Decimal) and r == int(r) and 0 < r <= 23}
        times = b.by_kind.get("time", set())
        return any(h * 60 in times or (h < 12 and (h + 12) * 60 in times) for h in hours)
    return bool(atom.readings & have)


def _inside(code: str, tokens: set[object]) -> bool:
    """A code inside a longer token, between non-alphanumeric characters: the host in a URL, the
    domain of an address. "B41" is not inside "B415"."""
    pattern = re.compile(rf"(?<![a-z0-9]){re.escape(code)}(?![a-z0-9])")
    return any(isinstance(t, str) and len(t) > len(code) and pattern.search(t) for t in tokens)


def weekdays_of_dates(atoms: tuple[Atom, ...], ref: date | None) -> set[int]:
    """Weekdays implied by the value's own dates: 'Wednesday May 20' needs only 'May 20'."""
    out: set[int] = set()
    for a in atoms:
        if a.kind == "date":
            for r in a.readings:
                if isinstance(r, tuple):
                    y, m, d = resolve_date(r, ref)
                    if y:
                        out.add(date(y, m, d).weekday())
    if any(a.kind == "date" for a in atoms) and not out:
        out.update(a2 for a in atoms if a.kind == "weekday" for a2 in a.readings if isinstance(a2, int))
    return out


@dataclass(frozen=True, slots=True)
class Found:
    """Whether a text states a value, and a line of evidence either way."""

    hit: bool
    missing: tuple[str, ...] = ()
    where: str = ""


@lru_cache(maxsize=65536)  # the checks compare the same few values and texts many times a decision
def states(value: str, text: str, ref: date | None = None) -> Found:
    """Does `text` state `value`: every atom of the value, each by its type's rule?"""
    atoms = required_atoms(value)
    if not atoms:  # nothing but filler words: compare the folded phrase
        hit = bool(fold(value)) and fold(value) in fold(text)
        return Found(hit, () if hit else (value,), snippet(text) if hit else "")
    b = bag(text)
    implied = weekdays_of_dates(atoms, ref)
    missing = tuple(a.text for a in atoms if not _has(a, b, ref, implied))
    return Found(not missing, missing, "" if missing else snippet(text))


def places(value: str, text: str, ref: date | None = None) -> tuple[tuple[tuple[int, int], ...], ...] | None:
    """Where `text` states each atom of `value`: for every atom that needs a place, the spans of
    `scan_text(text)` that state it (a weekday the value's own date implies needs none). None when
    the value has no atoms (filler words only); an atom with no span gets an empty tuple."""
    atoms = required_atoms(value)
    if not atoms:
        return None
    implied = weekdays_of_dates(atoms, ref)
    found = spans(text)
    out = []
    for a in atoms:
        if a.kind == "weekday" and a.readings & implied:
            continue
        # a span may state several things (a word, and the abbreviation a form reads it as)
        near = {
            (s, e)
            for kind in _STATED_BY.get(a.kind, (a.kind,))
            for s, e, b in found.get(kind, ())
            if _has(a, b, ref, set())
        }
        out.append(tuple(sorted(near)))
    return tuple(out)


def states_phrase(phrase: str, text: str) -> Found:
    """A literal phrase declared on purpose: found as is, after folding."""
    hit = bool(fold(phrase)) and fold(phrase) in fold(text)
    return Found(hit, () if hit else (phrase,), snippet(text) if hit else "")


def snippet(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reference_date(stamps: list[str]) -> date | None:
    """The episode's clock at a decision: the last timestamp before it (ISO, date first)."""
    for stamp in reversed(stamps):
        try:
            return datetime.fromisoformat(stamp.strip()[:10]).date()
        except ValueError:
            continue
    return None


def is_bare(value: str) -> bool:
    """A generic value of one atom ("Friday", "2"): too common to tie to any one thing. A value
    of several weak atoms ("Thursday 15:00") is generic for a leak scan, not bare."""
    return is_generic(value) and len(value_atoms(value)) < 2


def is_generic(value: str) -> bool:
    atoms = value_atoms(value)
    # a number with its unit or noun ("75 mcg", "2 L/min") is a quantity, not a stray figure
    quantity = any(a.kind == "number" for a in atoms) and any(
        a.kind == "word" and not a.readings & COMMON_WORDS for a in atoms
    )
    return not atoms or (not quantity and all(_weak(a) for a in atoms))


def _weak(a: Atom) -> bool:
    if a.kind == "weekday":
        return True
    if a.kind == "time":
        return all(isinstance(r, int) and r % 60 == 0 for r in a.readings)
    if a.kind == "number":
        return all(isinstance(r, Decimal) and abs(r) < 100 and r == r.to_integral_value() for r in a.readings)
    if a.kind == "word":
        return len(a.text) < 4 or any(r in COMMON_WORDS for r in a.readings) or a.text.casefold() in MONTHS
    return False


def iso_date(text: str, ref: date | None) -> str | None:
    """The date `text` states, as YYYY-MM-DD: its first date, else the first weekday it names,
    taken as the next such day on or after the episode's clock."""
    atoms = scan(text)
    for a in atoms:
        if a.kind == "date":
            y, m, d = resolve_date(min(r for r in a.readings if isinstance(r, tuple)), ref)
            if y:
                return date(y, m, d).isoformat()
    if ref is not None:
        for a in atoms:
            if a.kind == "weekday":
                wd = min(r for r in a.readings if isinstance(r, int))
                return date.fromordinal(ref.toordinal() + (wd - ref.weekday()) % 7).isoformat()
    return None


def hhmm(text: str) -> str | None:
    """The first time `text` states, as HH:MM (24-hour; an unmarked 1-12 hour is taken as written)."""
    for a in scan(text):
        if a.kind == "time":
            minutes = min(r for r in a.readings if isinstance(r, int))
            return f"{minutes // 60:02d}:{minutes % 60:02d}"
    return None
