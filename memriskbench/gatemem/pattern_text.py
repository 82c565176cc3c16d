"""A short text that a GateMem pattern matches: what the oracle says for an include spec, and
what the leaky agent blurts out for a leak spec.

Regex patterns are walked through Python's own regex parser: each branch takes its first
alternative, each repeat its minimum count, each class its first member. Literal patterns are
their own example. Every example is verified with the scorer's `matches` before it is used.
"""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+ keeps the parser private; 3.10 has the public alias.
    import re._constants as sre_c
    import re._parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants as sre_c  # type: ignore[no-redef,unused-ignore]
    import sre_parse  # type: ignore[no-redef,unused-ignore]

from memriskbench.common.textrules import REGEX_CHARS, matches

_CATEGORY = {
    sre_c.CATEGORY_DIGIT: "0",
    sre_c.CATEGORY_NOT_DIGIT: "a",
    sre_c.CATEGORY_SPACE: " ",
    sre_c.CATEGORY_NOT_SPACE: "a",
    sre_c.CATEGORY_WORD: "a",
    sre_c.CATEGORY_NOT_WORD: " ",
}
_CATEGORY_RE = {
    sre_c.CATEGORY_DIGIT: re.compile(r"\d"),
    sre_c.CATEGORY_NOT_DIGIT: re.compile(r"\D"),
    sre_c.CATEGORY_SPACE: re.compile(r"\s"),
    sre_c.CATEGORY_NOT_SPACE: re.compile(r"\S"),
    sre_c.CATEGORY_WORD: re.compile(r"\w"),
    sre_c.CATEGORY_NOT_WORD: re.compile(r"\W"),
}
_CANDIDATES = "ax0 -.Z9"


class PatternTextError(ValueError):
    """No example text could be made that the pattern matches."""


def _in_class(ch: str, items: list[tuple[Any, Any]]) -> bool:
    code = ord(ch)
    for op, av in items:
        if op is sre_c.LITERAL and av == code:
            return True
        if op is sre_c.RANGE and av[0] <= code <= av[1]:
            return True
        if op is sre_c.CATEGORY and av in _CATEGORY_RE and _CATEGORY_RE[av].fullmatch(ch):
            return True
    return False


def _class_member(items: list[tuple[Any, Any]]) -> str:
    if items and items[0][0] is sre_c.NEGATE:
        rest = items[1:]
        for ch in _CANDIDATES:
            if not _in_class(ch, rest):
                return ch
        raise PatternTextError("no character outside a negated class")
    op, av = items[0]
    if op is sre_c.LITERAL:
        return chr(av)
    if op is sre_c.RANGE:
        return chr(av[0])
    if op is sre_c.CATEGORY:
        return _CATEGORY.get(av, "a")
    raise PatternTextError(f"unsupported class item {op}")


def _walk(tokens: Any, groups: dict[int, str]) -> str:
    out: list[str] = []
    for op, av in tokens:
        if op is sre_c.LITERAL:
            out.append(chr(av))
        elif op is sre_c.NOT_LITERAL:
            out.append("x" if av != ord("x") else "y")
        elif op is sre_c.ANY:
            out.append("x")
        elif op is sre_c.IN:
            out.append(_class_member(list(av)))
        elif op is sre_c.BRANCH:
            out.append(_walk(av[1][0], groups))
        elif op is sre_c.SUBPATTERN:
            text = _walk(av[-1], groups)
            if av[0] is not None:
                groups[av[0]] = text
            out.append(text)
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT) or op is getattr(sre_c, "POSSESSIVE_REPEAT", None):
            lo, _, sub = av
            out.append(_walk(sub, groups) * lo)
        elif op is sre_c.GROUPREF:
            out.append(groups.get(av, ""))
        elif op in (sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT):
            continue  # anchors and lookarounds add no text; verification catches a miss
        else:
            raise PatternTextError(f"unsupported regex construct {op}")
    return "".join(out)


def example(pattern: str) -> str:
    """A text that `pattern` matches under GateMem's rules (raises PatternTextError if none found)."""
    text = pattern  # a literal pattern, or a regex that does not compile (the scorer's fallback)
    if REGEX_CHARS & set(pattern):
        try:
            re.compile(pattern)
        except re.error:
            pass
        else:
            text = _walk(sre_parse.parse(pattern), {})
    if not matches(pattern, text):
        raise PatternTextError(f"made {text!r}, which pattern {pattern!r} does not match")
    return text


def covering_text(patterns: list[str], sep: str = "; ") -> str:
    """One text that every pattern matches: the examples joined by a non-word separator."""
    text = sep.join(example(p) for p in patterns)
    missing = [p for p in patterns if not matches(p, text)]
    if missing:
        raise PatternTextError(f"joined text misses {missing}")
    return text
