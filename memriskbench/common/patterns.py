"""Regular expressions written by episode authors or imported from GateMem, run on model output
with a bound on time and size.

A backtracking engine can take exponential time on a pattern such as `(a+)+$`; one reply could
then hang `score`, `audit` and `report`. Every such match goes through `search`, which uses the
`regex` package's timeout: a search that runs past SEARCH_TIMEOUT_S raises PatternTimeout, and
the check that asked fails with the evidence "match timed out". Normal patterns take
microseconds; a time-out means a pathological pattern, whose verdict can then differ between a
fast and a slow machine, so fix the pattern.

Patterns are also bounded before they are compiled (`check_size`), because compiling is not under
the timeout: `regex` lays every counted repetition out in full, so `a{4294967294}` would need
gigabytes and `((a{1000}){1000}){1000}` a billion items (`validate` never ended on it). The bounds
are read from the package's own parse of the pattern, which is cheap and sees exactly the counts
the compiler will (`a{,5000}`, and `{1 000}` under the verbose flag, which a scan of the text
would miss): at most MAX_PATTERN characters, counts of at most MAX_REPEAT, and at most
MAX_EXPANDED items once every counted repetition is written out (nested counts multiply).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import regex
from regex import _regex_core  # the parser `regex.compile` runs before it expands anything

SEARCH_TIMEOUT_S = 0.1
MAX_PATTERN = 2_000
MAX_REPEAT = 1_000
# Far above any pattern in the suite or in GateMem (the largest lays out 165 items), and far below
# what takes time: `regex` compiles one to two million items a second, and the slowest pattern
# found at this bound (case-folded `ß`, nested counts) compiles in under 0.05 s.
MAX_EXPANDED = 20_000


class PatternError(ValueError):
    """A pattern that cannot be compiled, or is too large to compile safely."""


class PatternTimeout(RuntimeError):
    """A search ran past SEARCH_TIMEOUT_S."""


def _parse(pattern: str) -> Any:
    """The pattern as `regex.compile` parses it, retried as it does when a global flag such as
    `(?x)` turns up mid-pattern (the flags only grow, so the second try is the last). Case and
    the other flags a caller passes change no count."""
    flags = 0
    for _ in range(3):
        source = _regex_core.Source(pattern)
        info = _regex_core.Info(flags, source.char_type, {})
        source.ignore_space = bool(info.flags & regex.VERBOSE)
        try:
            return _regex_core._parse_pattern(source, info)
        except _regex_core._UnscopedFlagSet:
            flags = info.global_flags
    raise regex.error("inline flags that do not settle")


def _laid_out(node: Any) -> int:
    """The items of a parsed pattern once each counted repetition is written out: a repeat's body
    once per time it may be (its upper count; its lower count and the loop when it has none).
    Stops counting past MAX_EXPANDED, so that ten nested counts stay a small number."""
    if isinstance(node, _regex_core.GreedyRepeat):  # lazy and possessive repeats are subclasses
        for count in (node.min_count, node.max_count):
            if count is not None and count > MAX_REPEAT:
                raise PatternError(f"repeat count {count} (at most {MAX_REPEAT})")
        times = node.max_count if node.max_count is not None else node.min_count + 1
        return min(1 + times * _laid_out(node.subpattern), MAX_EXPANDED + 1)
    total = 1
    for value in vars(node).values():
        for child in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(child, _regex_core.RegexBase):
                total = min(total + _laid_out(child), MAX_EXPANDED + 1)
    return total


def check_size(pattern: str) -> None:
    """Refuse a pattern too large to compile safely (PatternError). A pattern `regex` cannot parse
    is not refused here: compiling it says why, and GateMem reads it as a literal."""
    if len(pattern) > MAX_PATTERN:
        raise PatternError(f"pattern of {len(pattern)} characters (at most {MAX_PATTERN})")
    try:
        parsed = _parse(pattern)
    except (regex.error, OverflowError, ValueError):
        return
    except RecursionError:
        raise PatternError("pattern nested too deeply") from None
    try:
        size = _laid_out(parsed)
    except RecursionError:
        raise PatternError("pattern nested too deeply") from None
    if size > MAX_EXPANDED:
        raise PatternError(f"counted repetitions lay out more than {MAX_EXPANDED:,} items (nested counts multiply)")


@lru_cache(maxsize=2048)
def compile_pattern(pattern: str, ignore_case: bool = False) -> Any:
    """Compile with the `regex` package (Python `re` syntax), after the size bounds."""
    check_size(pattern)
    try:
        return regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    except (regex.error, OverflowError, RecursionError, MemoryError, ValueError) as exc:  # ValueError: (?V0V1)
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
