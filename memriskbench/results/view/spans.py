"""Where in a reply a check's evidence points: the spans the viewer highlights.

A check's evidence names what it found in quotes (`stated: 'ZEBRA-9917' in reply 1 "..."`,
`leaked: m1='3.42'`, `/(?i)\\beating\\b/ matched "..."`). The viewer finds each quoted value in the
reply again with the judge's own value matcher (`common.values.places`: a date written as
"October 11" is found for '2026-10-11'), or, where the matcher cannot say where, as the literal
words. Evidence about tool calls points at arguments, not at the reply's text, and is not located.
"""

from __future__ import annotations

import regex

from memriskbench.common.patterns import SEARCH_TIMEOUT_S, PatternError, compile_pattern
from memriskbench.common.values import places, scan_text

# Checks whose evidence quotes tool names, arguments or actions, never a piece of the reply.
ABOUT_CALLS = frozenset({"called", "not_called", "call_count", "arg_equals", "action_in", "memory_status", "scope"})
# A quoted value: after `=`, or after a colon (`stated: 'x'`), or a whole '...' alone.
_QUOTED = regex.compile(r"'((?:[^'\\]|\\.){1,200})'")
_REGEX = regex.compile(r"^/(.{1,300}?)/ matched ")
# The reply's own text, quoted after "in reply N" or "matched" (either quote, as Python's repr
# writes it): where the check looked, not what it found.
_SNIPPET = regex.compile(r"""(?:in reply \d+|matched) (?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def _quoted_values(evidence: str) -> list[str]:
    bare = _SNIPPET.sub(" ", evidence)
    return [m.group(1) for m in _QUOTED.finditer(bare) if m.group(1).strip()]


def _literal(value: str, text: str) -> list[tuple[int, int]]:
    words = regex.findall(r"\w+", value)
    if not words:
        return []
    pattern = regex.compile(r"(?<!\w)" + r"\W{0,3}".join(regex.escape(w) for w in words) + r"(?!\w)", regex.IGNORECASE)
    return [(m.start(), m.end()) for m in pattern.finditer(text, timeout=SEARCH_TIMEOUT_S)]


def _by_matcher(value: str, text: str) -> list[tuple[int, int]]:
    # The matcher's spans index the folded text; they are the reply's own offsets only where
    # folding kept every character in place (plain text, no joined identifiers).
    if len(scan_text(text)) != len(text):
        return []
    found = places(value, text)
    if not found or any(not p for p in found):
        return []
    return [span for atom in found for span in atom]


def locate(check_type: str, evidence: str, text: str) -> list[tuple[int, int]]:
    """Sorted, merged (start, end) spans of `text` that the evidence points at."""
    if check_type in ABOUT_CALLS or not text:
        return []
    out: list[tuple[int, int]] = []
    rx = _REGEX.match(evidence)
    if rx:
        try:
            matches = compile_pattern(rx.group(1)).finditer(text, timeout=SEARCH_TIMEOUT_S)
            out += [(m.start(), m.end()) for m in matches if m.end() > m.start()]
        except (PatternError, TimeoutError):
            pass
    for value in _quoted_values(evidence):
        try:
            out += _literal(value, text) or _by_matcher(value, text)
        except TimeoutError:
            continue
    return _merge(out)


def utf16(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans of `text` in UTF-16 code units, as JavaScript indexes a string: a character beyond
    the Basic Multilingual Plane (an emoji) is one code point here and two units there."""
    if text.isascii():
        return spans
    units = [0]  # units[i]: UTF-16 units before code point i
    for ch in text:
        units.append(units[-1] + (2 if ord(ch) > 0xFFFF else 1))
    return [(units[a], units[b]) for a, b in spans]


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged
