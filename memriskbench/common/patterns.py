"""Regular expressions written by episode authors or imported from GateMem, run on model output
with a bound on time and size.

A backtracking engine can take exponential time on a pattern such as `(a+)+$`; one reply could
then hang `score`, `audit` and `report`. Every such match goes through `search`, which uses the
`regex` package's timeout: a search that runs past SEARCH_TIMEOUT_S raises PatternTimeout, and
the check that asked fails with the evidence "match timed out". Normal patterns take
microseconds; a time-out means a pathological pattern, whose verdict can then differ between a
fast and a slow machine, so fix the pattern.

Patterns are also bounded before they are compiled: at most MAX_PATTERN characters and repeat
counts of at most MAX_REPEAT (`a{4294967294}` would otherwise need gigabytes).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import regex

SEARCH_TIMEOUT_S = 0.1
MAX_PATTERN = 2_000
MAX_REPEAT = 1_000
_REPEAT = re.compile(r"(?<!\\)\{\s*(\d+)\s*(?:,\s*(\d*)\s*)?\}")


class PatternError(ValueError):
    """A pattern that cannot be compiled, or is too large to compile safely."""


class PatternTimeout(RuntimeError):
    """A search ran past SEARCH_TIMEOUT_S."""


def check_size(pattern: str) -> None:
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"pattern of {len(pattern)} characters (at most {MAX_PATTERN})")
    for m in _REPEAT.finditer(pattern):
        for count in m.groups():
            if count and int(count) > MAX_REPEAT:
                raise PatternError(f"repeat count {count} in {m.group(0)!r} (at most {MAX_REPEAT})")


@lru_cache(maxsize=2048)
def compile_pattern(pattern: str, ignore_case: bool = False) -> Any:
    """Compile with the `regex` package (Python `re` syntax), after the size bounds."""
    check_size(pattern)
    try:
        return regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    except (regex.error, OverflowError, RecursionError, MemoryError) as exc:
        raise PatternError(str(exc)) from None


def search(pattern: str, text: str, ignore_case: bool = False) -> Any:
    """The first match of `pattern` in `text`, or None; PatternTimeout past the time bound."""
    compiled = compile_pattern(pattern, ignore_case)
    try:
        return compiled.search(text, timeout=SEARCH_TIMEOUT_S)
    except TimeoutError:
        raise PatternTimeout(
            f"match of /{pattern[:60]}/ timed out after {SEARCH_TIMEOUT_S} s on {len(text)} characters"
        ) from None


def valid(pattern: str) -> str | None:
    """Why a pattern cannot be used, or None."""
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        return str(exc)
    return None
