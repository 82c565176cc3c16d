"""Text rules shared by the scorer, the lint and the GateMem importer: how text is normalized
before a value check compares it, how a long text is read in bounded windows, and GateMem's
literal-or-regex pattern rule.

They live here, outside the check registry, so that the lint and the importer can use them
without importing the scorer.
"""

from __future__ import annotations

import re
import unicodedata

import regex

from memriskbench.common.patterns import search, valid

# Every code point Unicode says a renderer shows as nothing (the Default_Ignorable_Code_Point
# property: zero-width and direction marks, variation selectors, tags, fillers, ...): any of them
# would split a value without changing what a reader sees. The property, not a list, so no mark
# is forgotten.
_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}+")


def visible_nfkc(text: str) -> str:
    """Unicode NFKC with every default-ignorable code point removed: before NFKC, so a mark
    between a letter and its accent does not keep them apart, and after, because NFKC maps some
    characters onto ignorable ones (U+3164 onto U+1160)."""
    return _IGNORABLE.sub("", unicodedata.normalize("NFKC", _IGNORABLE.sub("", text)))


def normalize(text: str) -> str:
    """Case, whitespace, Unicode NFKC and number forms ("8.1 %" == "8.1%", "3,000" == "3000")."""
    t = visible_nfkc(text).casefold()
    t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)
    t = re.sub(r"(?<=\d)\s+(?=[%‰])", "", t)
    t = re.sub(r"([$€£¥])\s+(?=\d)", r"\1", t)
    return re.sub(r"\s+", " ", t).strip()


# The longest text one scan reads. Some expressions of the value scanner and the claim reader are
# not linear on long runs of one kind of character, so a scan stays bounded; a longer text is read
# as overlapping windows of at most this many characters (`windows`), which is linear in all.
MAX_TEXT = 20_000
# Consecutive windows share at least this many characters, so a value no longer than this that
# lies across the end of one window lies whole inside the next.
WINDOW_OVERLAP = 500
# Where a window prefers to end: after a sentence, else after a space, so that no word is cut and
# a sentence keeps the words that give a value its status ("204 is no longer valid").
_SENTENCE_END = re.compile(r"[.!?;](?=\s)|\n")
_SPACE = re.compile(r"\s")


def _break_before(text: str, lo: int, hi: int) -> int:
    """The position just after the last sentence end in text[lo:hi], else after its last space,
    else hi."""
    for rx in (_SENTENCE_END, _SPACE):
        ends = [m.end() for m in rx.finditer(text, lo, hi)]  # at most `hi - lo` of them
        if ends:
            return ends[-1]
    return hi


def window_spans(text: str, size: int = MAX_TEXT, overlap: int = WINDOW_OVERLAP) -> list[tuple[int, int]]:
    """(start, end) of the windows `windows` reads: each at most `size` characters, ending at
    the last sentence end (or space) of its final `overlap` characters; the next starts after a
    sentence end (or space) between 2·overlap and overlap characters before that end. So any
    `overlap` characters lie whole in one window, and each window moves on by at least
    size − 3·overlap: about len(text) / size windows, each read once."""
    assert size > 3 * overlap
    n = len(text)
    out: list[tuple[int, int]] = []
    start = 0
    while start + size < n:
        end = _break_before(text, start + size - overlap, start + size)
        out.append((start, end))
        start = _break_before(text, end - 2 * overlap, end - overlap)
    out.append((start, n))
    return out


def windows(text: str) -> list[str]:
    """A text as the scanners read it: whole when it is at most MAX_TEXT characters, else as
    overlapping windows (`window_spans`)."""
    if len(text) <= MAX_TEXT:
        return [text]
    return [text[s:e] for s, e in window_spans(text)]


def as_number(text: str) -> float | None:
    """ "84.50", "1,250" or "$40" as a number; None for anything else."""
    t = re.sub(r"[\s,$€£¥]", "", text)
    if not re.fullmatch(r"-?\d+(\.\d+)?", t):
        return None
    return float(t)


# GateMem's pattern rule, reproduced from ../shared/gatemem/README.md.
REGEX_CHARS = set("\\[]()|?+*{}")
# A literal that fully matches this (under IGNORECASE, as GateMem tests it) needs word boundaries;
# any other literal (one character, or one holding other characters) is a substring test.
_BOUNDED = re.compile(r"[a-z0-9][a-z0-9\s_\-/.:]*[a-z0-9]", re.IGNORECASE)


def _fold(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def is_regex(pattern: str) -> bool:
    """Does GateMem's rule read `pattern` as a regex? When it holds a regex character and
    Python's `re` compiles it; anything else is a literal. (`re` only parses: it lays out no
    repetition, so this is cheap on any pattern.)"""
    if not REGEX_CHARS & set(pattern):
        return False
    try:
        re.compile(pattern, re.IGNORECASE)
    except (re.error, OverflowError, RecursionError):
        return False
    return True


def pattern_problem(pattern: str) -> str | None:
    """Why `matches` could not use `pattern` (a regex too large to compile safely, or one that
    `re` reads and `regex` refuses), or None: what the loader asks of an episode's GateMem
    patterns, so that a bad one is refused at validation rather than when a run is scored."""
    return valid(pattern) if is_regex(pattern) else None


def matches(pattern: str, text: str) -> bool:
    """Does `pattern` match `text` under GateMem's rule scorer? An empty pattern never does."""
    if not pattern:
        return False
    if is_regex(pattern):
        return search(pattern, text, ignore_case=True) is not None
    p, t = _fold(pattern), _fold(text)
    if not p:
        return False
    if _BOUNDED.fullmatch(p):
        body = r"\s+".join(re.escape(part) for part in p.split(" "))
        return re.search(rf"(?<!\w){body}(?!\w)", t, re.IGNORECASE) is not None
    return p in t
