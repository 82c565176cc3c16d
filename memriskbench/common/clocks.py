"""Times of day as careful writers put them and the scanner does not read: a dotted clock
("07.25", British), a Zulu suffix ("18:00Z"), an hour in words with a part of the day ("nine in
the morning"), a spoken clock ("seven forty-five") and the first end of a range that shares its
cue ("1–3 pm"). Each is found beside the scanner's own reading (a dotted clock is still the
figure 7.25): `forms.find` wraps them as extra forms.

Found on surface forms written blind from values alone (the forms audit of issue 37), not on
replies of the corpus.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_HOUR_WORD = "|".join(_ONES)
_MINUTE_WORDS = {
    "oh five": 5,
    "ten": 10,
    "fifteen": 15,
    "twenty": 20,
    "twenty five": 25,
    "thirty": 30,
    "thirty five": 35,
    "forty": 40,
    "forty five": 45,
    "fifty": 50,
    "fifty five": 55,
}
_MINUTE = "|".join(sorted((w.replace(" ", "[- ]") for w in _MINUTE_WORDS), key=len, reverse=True))
_PART = r"in the morning|in the afternoon|in the evening|at night"
_AMPM = r"a\.?\s?m\.?|p\.?\s?m\.?"

# a price or a measure: "6.50 euros", "6.50 kg" are no clock
_UNIT = r"(?:[%€$£¥]|(?:eur|usd|gbp|euros?|dollars?|pounds?|percent|per|kg|km|mg|ml|cm|mm|lb|oz|g|l|m|k|x)(?![a-z]))"
# "07.25", "10.40 am": a clock with a point, not a price or a measure after it
_DOTTED = re.compile(
    rf"(?<![\w.,:/$€£¥])([01]?\d|2[0-3])\.([0-5]\d)(?:\s?({_AMPM})(?![a-z]))?(?![\d,]|\.\d|\s?{_UNIT})"
)
_ZULU = re.compile(r"(?<![\w.:])([01]?\d|2[0-3]):([0-5]\d)z(?![a-z0-9])")
_PART_OF_DAY = re.compile(rf"(?<![\w-])({_HOUR_WORD}|1[0-2]|[1-9])\s+({_PART})(?![a-z])")
_SPOKEN = re.compile(rf"(?<![\w-])({_HOUR_WORD})[- ]({_MINUTE})(?![\w-])(?:\s*({_AMPM}|{_PART})(?![a-z]))?")
_SHARED_CUE = re.compile(
    rf"(?<![\w.,:/-])(1[0-2]|[1-9])(?::([0-5]\d))?\s?[-–]\s?(?:1[0-2]|[1-9])(?::[0-5]\d)?\s?({_AMPM})(?![a-z])"
)


def _hour(h: str) -> int:
    return int(h) if h.isdigit() else _ONES.index(h) + 1


def clock(h: int, m: int, cue: str | None) -> frozenset[object]:
    """Minutes after midnight a clock may mean: with a cue (am, pm, a part of the day) one, without
    both readings of a twelve-hour clock."""
    base = (h % 12) * 60 + m
    if cue:
        pm = cue.startswith("p") or cue in ("in the afternoon", "in the evening", "at night", "tonight")
        return frozenset({base + (720 if pm else 0)})
    return frozenset({base, base + 720})


def find(t: str) -> Iterator[tuple[int, int, frozenset[object], str]]:
    """(start, end, minutes, text) of every such clock in a folded text."""
    for m in _DOTTED.finditer(t):
        h, mins = int(m.group(1)), int(m.group(2))
        # a padded or afternoon hour is a 24-hour clock; "9.15" may be either half of the day
        readings = frozenset({h * 60 + mins}) if (h > 12 or m.group(1).startswith("0")) and not m.group(3) else None
        yield m.start(), m.end(), readings or clock(h, mins, m.group(3)), m.group(0)
    for m in _ZULU.finditer(t):
        yield m.start(), m.end(), frozenset({int(m.group(1)) * 60 + int(m.group(2))}), m.group(0)
    for m in _PART_OF_DAY.finditer(t):
        yield m.start(), m.end(), clock(_hour(m.group(1)), 0, m.group(2)), m.group(0)
    for m in _SPOKEN.finditer(t):
        mins = _MINUTE_WORDS[m.group(2).replace("-", " ")]
        yield m.start(), m.end(), clock(_hour(m.group(1)), mins, m.group(3)), m.group(0)
    for m in _SHARED_CUE.finditer(t):
        yield (
            m.start(1),
            m.end(2) if m.group(2) else m.end(1),
            clock(int(m.group(1)), int(m.group(2) or 0), m.group(3)),
            m.group(1),
        )
