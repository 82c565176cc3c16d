"""Text rules shared by the scorer, the lint and the GateMem importer: how text is normalized
before a value check compares it, and GateMem's literal-or-regex pattern rule.

They live here, outside the check registry, so that the lint and the importer can use them
without importing the scorer.
"""

from __future__ import annotations

import re
import unicodedata

from memriskbench.common.patterns import search

# Invisible characters that would split a value without changing what a reader sees.
INVISIBLE = dict.fromkeys(map(ord, "\u00ad\u200b\u200c\u200d\u2060\ufeff"), None)


def normalize(text: str) -> str:
    """Case, whitespace, Unicode NFKC and number forms ("8.1 %" == "8.1%", "3,000" == "3000")."""
    t = unicodedata.normalize("NFKC", text).translate(INVISIBLE).casefold()
    t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)
    t = re.sub(r"(?<=\d)\s+(?=[%‰])", "", t)
    t = re.sub(r"([$€£¥])\s+(?=\d)", r"\1", t)
    return re.sub(r"\s+", " ", t).strip()


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


def matches(pattern: str, text: str) -> bool:
    """Does `pattern` match `text` under GateMem's rule scorer? An empty pattern never does."""
    if not pattern:
        return False
    if REGEX_CHARS & set(pattern):
        try:
            re.compile(pattern, re.IGNORECASE)  # GateMem's rule: what Python's re cannot compile is a literal
        except (re.error, OverflowError, RecursionError):
            pass
        else:
            return search(pattern, text, ignore_case=True) is not None
    p, t = _fold(pattern), _fold(text)
    if not p:
        return False
    if _BOUNDED.fullmatch(p):
        body = r"\s+".join(re.escape(part) for part in p.split(" "))
        return re.search(rf"(?<!\w){body}(?!\w)", t, re.IGNORECASE) is not None
    return p in t
