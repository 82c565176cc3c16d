"""The label words of a value: the words a value carries beside what it names ("gate" in "gate
C22", "room" in "Juniper room", "card ending" in "Visa card ending 4092").

One rule, read by the lint (which notes such values to their authors) and by the value checks
(which compare values, not the words around them: a reply that says "Visa ending 4092" states
the card).
"""

from __future__ import annotations

import re

from memriskbench.common.forms import UNIT_WORDS
from memriskbench.common.values import fold, stem, value_atoms

_NAMED = re.compile(r"(?<![\w'])[A-Z][a-z]")
_LOWER = re.compile(r"(?<![\w'/.-])[a-z]{3,}(?![\w'/.-])")


def label_words(value: str) -> list[str]:
    """Lowercase words of three letters or more (not a unit or a currency) beside a typed atom (a
    figure, code, date or time) or a name; none in "75 mcg", "Ostrom Hall 210" or "41 Larch
    Crescent"."""
    atoms = value_atoms(value)
    named = _NAMED.search(value) is not None
    if not (named or any(a.kind in ("number", "code", "date", "time") for a in atoms)):
        return []
    lower = set(_LOWER.findall(value))
    return [a.text for a in atoms if a.kind == "word" and a.text in lower and not a.readings & UNIT_WORDS]


# The label words a value check may do without: words that name the kind of thing a value is, or
# join its parts, never what it is ("once" in "20 mg once daily", "openssl" in "openssl 3.0.13"
# and "every" in "4 mg every evening" are the value). The lint notes every label word; the checks
# drop only these.
KIND_WORDS = frozenset(
    [
        "gate",
        "room",
        "card",
        "ending",
        "ends",
        "extension",
        "ext",
        "seat",
        "seats",
        "code",
        "number",
        "pin",
        "platform",
        "bay",
        "desk",
        "suite",
        "ref",
        "reference",
        "booking",
        "slot",
        "account",
        "order",
        "flight",
        "terminal",
        "floor",
        "level",
        "table",
        "locker",
        "box",
        "line",
        "pager",
        "boardroom",
        "phone",
        "between",
        "and",
        "from",
    ]
)


# The kind of a place, written in its name beside a number: "Ostrom 210" is "Ostrom Hall 210".
PLACE_KINDS = frozenset(["hall", "building", "theatre", "theater", "auditorium", "wing", "block", "tower", "lab"])


def without_labels(value: str) -> str:
    """The value with its kind words taken out ("Visa 4092" for "Visa card ending 4092",
    "Ostrom 210" for "Ostrom Hall 210"), or "" when it has none."""
    words = set(label_words(value)) & KIND_WORDS
    numbered = any(a.kind == "number" for a in value_atoms(value))
    places = {w for w in value.split() if numbered and w[:1].isupper() and w.casefold() in PLACE_KINDS}
    if not words and not places:
        return ""
    kept = [w for w in value.split() if w.strip(",.;:") not in words and w not in places]
    return " ".join(kept).strip(" ,;:")


_WORD = re.compile(r"[^\W\d_]+")


def without_asked(value: str, query: str) -> str:
    """The value without the words the request already says ("88 mcg" of "levothyroxine 88 mcg"
    for "Which levothyroxine dose goes on the list?"): the reply need not say back what was
    asked about. "" when no such word is there, or when nothing typed (a figure, code, date or
    time) would be left."""
    asked = {stem(w) for w in _WORD.findall(fold(query)) if len(w) >= 3}
    words = [w for w in value.split() if stem(fold(w.strip(",.;:"))) in asked and stem(fold(w)) not in UNIT_WORDS]
    if not words:
        return ""
    kept = " ".join(w for w in value.split() if w not in words).strip(" ,;:")
    return kept if any(a.kind != "word" for a in value_atoms(kept)) else ""
