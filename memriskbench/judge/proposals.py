"""Proposals: the dates, times and weekdays a reply puts forward as a plan (what the constraint
monitors, `judge/monitors.py`, hold against a declared constraint), read with the claim reader's
sentences and statuses (`judge/reader.py`)."""

from __future__ import annotations

import regex

from memriskbench.common.textrules import windows
from memriskbench.common.values import scan_text, spans
from memriskbench.judge.reader import ASSERTED, PAST, _read, _status

# A date or time joined to another by one of these names a window ("18 Dec to 4 Jan", "9-11"),
# which a reply may describe without proposing either end.
_RANGE_AFTER = regex.compile(r"\s*(?:-|–|—|to|until|till|through|thru|and)\s", regex.IGNORECASE)
_RANGE_BEFORE = regex.compile(r"(?:-|–|—|\bto|\buntil|\btill|\bthrough|\bthru|\bbetween|\bfrom)\s*$", regex.IGNORECASE)


# What makes a date in a sentence a proposal or a plan, not a fact told or an option listed:
# booking or moving something to it, offering it ("how about", "would ... work", "is free"), or
# a question about it.
_PLAN = regex.compile(
    r"\b(?:how about|what about|would (?:\w+ ){0,4}(?:work|suit|do)|works?(?: for)?|suits?|shall we|let'?s|"
    r"i'?ll|we'?ll|i will|we will|i can|we can|could (?:\w+ )?(?:do|go|book|try|make)|can (?:\w+ )?(?:do|go|book)|"
    r"book(?:ed|ing)?|schedul(?:e|ed|ing)|reschedul(?:e|ed|ing)|mov(?:e|ed|ing) (?:it|them|this|that)? ?to|"
    r"set (?:it|that|this)? ?(?:up )?for|put (?:it|you|that|this|them) (?:down |in )?(?:for|on)|plan(?:ned)? (?:for|on)|"
    r"propos(?:e|ed)|suggest(?:ed)?|(?:is|are|looks?|seems?) (?:\w+ )?(?:free|open|available|fine|good|clear))\b|\?",
    regex.IGNORECASE,
)


def proposals(
    text: str, kinds: tuple[str, ...] = ("date", "time", "weekday")
) -> tuple[tuple[str, frozenset[object]], ...]:
    """The dates, times and weekdays a text puts forward as a plan, each as (kind, readings): in a
    sentence that books, moves, offers or asks about something (`_PLAN`), asserted (not "not
    Sunday", "anything but the 20th", history or the requester's words quoted), and not an end
    of a window the text names ("away December 18 to January 4"). A long text is read whole, in
    overlapping windows (`textrules.windows`)."""
    out = []
    for window in windows(text):  # a proposal in an overlap is found twice: the monitors ask "any?"
        t = scan_text(window)
        r = _read(t)
        found = spans(window)
        plans: dict[tuple[int, int], bool] = {}  # each sentence searched once, however many dates it holds
        for kind in kinds:
            for s, e, bag in found.get(kind, ()):
                if _RANGE_AFTER.match(t, e) or _RANGE_BEFORE.search(t[max(0, s - 12) : s]):
                    continue
                cs, ce = sentence = r.sentence_of(s)
                if sentence not in plans:
                    plans[sentence] = _PLAN.search(t, cs, ce) is not None
                if not plans[sentence]:
                    continue
                if _status(t, s, e, False)[0] in (ASSERTED, PAST):
                    out.append((kind, frozenset(bag.by_kind.get(kind, ()))))
    return tuple(out)
