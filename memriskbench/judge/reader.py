"""The claim reader: which value a reply asserts, which it rejects, and which it tells as history.

A reply is split into sentences (`triggers.SENTENCE_BREAK`), and sentences into clauses
(`triggers.CLAUSE_BREAK`: "but", ", so", ", and it ..."). A value is *mentioned* in a sentence when
every one of its atoms is stated there (`common/values.py` finds each atom's spans); a value whose
atoms are spread over several sentences is not mentioned. Triggers reach no further than their
clause. Each mention gets a status:

- `asserted`: stated as current or true;
- `rejected`: negated, denied or excluded ("not 204", "no walnuts", "ignore NV 2210");
- `historical`: marked as past or replaced ("it used to be 204", "moved from A23");
- `quoted`: the requester's words said back ("you asked about 4471"), claiming nothing;
- `past`: a bare past tense ("which was 17/20"): it states the value, and it is history enough
  for an old value named beside the asserted current one.

An atom's status comes from the nearest trigger in its clause on each side, in the manner of
NegEx and ConText (Chapman et al. 2001; Harkema et al. 2009): a forward trigger reaches the atoms
after it, a backward one the atoms before it, until a terminator, the clause's end or the
trigger's word window; pseudo-triggers start nothing (the catalogue: `judge/triggers.py`). Where
no trigger reaches a value, its layout may mark it, and a later clause may take it back
(`judge/layout.py`).

A value may itself be negative ("no cashews or pistachios"): each atom's expected polarity is
read from the value's own text, and a mention asserts the value when every atom has the polarity
the value gives it. "No pistachios, but cashews are fine" states the cashews without the "no":
it contradicts the value, and the mention is `rejected`.

Under the strict matcher a mention is an exact occurrence of the value's characters, read by the
same triggers. Every pattern here is bounded: the texts are capped (`values.MAX_TEXT`) and the
expressions have no nested quantifiers.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import regex

from memriskbench.common.values import MAX_TEXT, fold, places, scan_text
from memriskbench.judge.layout import DIGIT, annotation, taken_back
from memriskbench.judge.triggers import (
    BACKWARD,
    CLAUSE_BREAK,
    COMMA_OPENERS,
    FALLBACK,
    FORWARD,
    HEDGED,
    HISTORICAL,
    HISTORY_TERMINATORS,
    PAST,
    PSEUDO,
    QUOTED,
    REJECTED,
    SENTENCE_BREAK,
    TERMINATORS,
    TRIGGERS,
    Trigger,
)

ASSERTED = "asserted"
STATUSES = (ASSERTED, PAST, HEDGED, QUOTED, HISTORICAL, REJECTED)  # from best to worst for the value
_RANK = {s: i for i, s in enumerate(STATUSES)}

# Word boundaries that let markdown's "_" emphasis touch a word ("_Ignore the 2,340.00 file_").
_B = r"(?<![^\W_]|')(?:{})(?![^\W_]|')"


def _alternation(direction: str, weak: bool = False) -> tuple[regex.Pattern[str], list[Trigger]]:
    """One leftmost-longest pattern per direction (and strength): each trigger its own group,
    pseudo-triggers as the group `p`, so that "not only" beats "not" and "is no longer" beats
    "no longer"."""
    chosen = [t for t in TRIGGERS if t.direction == direction and t.weak == weak]
    # pseudo-triggers first: of two readings of the same length, the pseudo-trigger's wins
    # ("reassigned" is a change verb, not a bare past tense)
    groups = ["(?P<p>" + "|".join(PSEUDO) + ")"]
    groups += [f"(?P<t{i}>{t.pattern})" for i, t in enumerate(chosen)]
    return regex.compile("(?p)" + _B.format("|".join(groups))), chosen


_FORWARD, _FORWARD_TRIGGERS = _alternation(FORWARD)
_BACKWARD, _BACKWARD_TRIGGERS = _alternation(BACKWARD)
_WEAK, _WEAK_TRIGGERS = _alternation(FORWARD, weak=True)
_WEAK_BACK, _WEAK_BACK_TRIGGERS = _alternation(BACKWARD, weak=True)
_TERMINATOR = regex.compile(
    "(?p)"
    + _B.format("|".join(t for t in TERMINATORS if t[-1].isalpha()))
    + "|"
    + "|".join(t for t in TERMINATORS if not t[-1].isalpha())
    + r"|,\s*(?=(?:"
    + "|".join(COMMA_OPENERS)
    + r")(?![\w']))"
)
_HISTORY_STOP = regex.compile(_B.format("|".join(HISTORY_TERMINATORS)))
_CLAUSE = regex.compile(CLAUSE_BREAK)
_SENTENCE = regex.compile(SENTENCE_BREAK)
_WORD = regex.compile(r"[\w']+")
# Markdown's strikethrough: a value struck out is withdrawn ("~~Fri 18:00~~ Wed 20:00").
_STRUCK = regex.compile(r"~~[^~\n]{1,300}~~")
# A parenthesis (without one inside it): what it holds is read as part of what it sits beside.
_PAREN = regex.compile(r"\([^()\n]{1,300}\)")


@dataclass(frozen=True, slots=True)
class _Hit:
    start: int
    end: int
    trigger: Trigger
    text: str


@dataclass(frozen=True, slots=True)
class _Reading:
    """A text's clauses, triggers and terminators, read once."""

    sentences: tuple[tuple[int, int], ...]
    sentence_starts: tuple[int, ...]
    clauses: tuple[tuple[int, int], ...]
    clause_starts: tuple[int, ...]
    forward: tuple[_Hit, ...]
    forward_ends: tuple[int, ...]  # the hits of a direction never overlap: ends sorted as starts are
    backward: tuple[_Hit, ...]
    backward_starts: tuple[int, ...]
    weak: tuple[_Hit, ...]
    weak_ends: tuple[int, ...]
    weak_back: tuple[_Hit, ...]
    weak_back_starts: tuple[int, ...]
    parens: tuple[tuple[int, int], ...]  # "(" ... ")" spans, innermost first never overlapping
    paren_starts: tuple[int, ...]
    struck: tuple[tuple[int, int], ...]
    stops: tuple[int, ...]  # terminator positions
    history_stops: tuple[int, ...]

    def clause_of(self, pos: int) -> tuple[int, int]:
        return self.clauses[bisect.bisect_right(self.clause_starts, pos) - 1]

    def sentence_of(self, pos: int) -> tuple[int, int]:
        return self.sentences[bisect.bisect_right(self.sentence_starts, pos) - 1]


def _hits(pattern: regex.Pattern[str], chosen: list[Trigger], t: str) -> tuple[_Hit, ...]:
    out = []
    for m in pattern.finditer(t):
        name = m.lastgroup
        if name and name != "p":
            out.append(_Hit(m.start(), m.end(), chosen[int(name[1:])], m.group()))
    return tuple(out)


def _split(t: str, breaks: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    bounds = [0]
    for a, b in sorted(breaks):
        if a >= bounds[-1]:
            bounds.extend((a, b))
    bounds.append(len(t))
    return tuple((bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2))


@lru_cache(maxsize=8192)
def _read(t: str) -> _Reading:
    sentence_breaks = [m.span() for m in _SENTENCE.finditer(t)]
    clauses = _split(t, sentence_breaks + [m.span() for m in _CLAUSE.finditer(t)])
    sentences = _split(t, sentence_breaks)
    forward = _hits(_FORWARD, _FORWARD_TRIGGERS, t)
    backward = _hits(_BACKWARD, _BACKWARD_TRIGGERS, t)
    weak = _hits(_WEAK, _WEAK_TRIGGERS, t)
    weak_back = _hits(_WEAK_BACK, _WEAK_BACK_TRIGGERS, t)
    parens = tuple(m.span() for m in _PAREN.finditer(t))
    # a parenthesis with no figure and no trigger in it ("(Dr. Cole)", "(Noor)") is an aside: a
    # scope runs through it
    hit_starts = sorted(h.start for h in (*forward, *backward))
    asides = {
        p
        for a, b in parens
        if not DIGIT.search(t, a, b) and bisect.bisect_left(hit_starts, a) == bisect.bisect_left(hit_starts, b)
        for p in (a, b - 1)
    }
    return _Reading(
        sentences=sentences,
        sentence_starts=tuple(a for a, _ in sentences),
        clauses=clauses,
        clause_starts=tuple(c[0] for c in clauses),
        forward=forward,
        forward_ends=tuple(h.end for h in forward),
        backward=backward,
        backward_starts=tuple(h.start for h in backward),
        weak=weak,
        weak_ends=tuple(h.end for h in weak),
        weak_back=weak_back,
        weak_back_starts=tuple(h.start for h in weak_back),
        parens=parens,
        paren_starts=tuple(a for a, _ in parens),
        struck=tuple(m.span() for m in _STRUCK.finditer(t)),
        stops=tuple(m.start() for m in _TERMINATOR.finditer(t) if m.start() not in asides),
        history_stops=tuple(m.start() for m in _HISTORY_STOP.finditer(t)),
    )


def _stopped(r: _Reading, lo: int, hi: int, trigger: Trigger) -> bool:
    """A terminator between lo and hi ends the scope."""
    i = bisect.bisect_left(r.stops, lo)
    if i < len(r.stops) and r.stops[i] < hi:
        return True
    if trigger.from_to:
        j = bisect.bisect_left(r.history_stops, lo)
        return j < len(r.history_stops) and r.history_stops[j] < hi
    return False


def _words(t: str, lo: int, hi: int) -> int:
    return len(_WORD.findall(t, lo, hi))


def triggers_at(t: str, start: int, end: int) -> tuple[tuple[str, str], ...]:
    """(category, trigger text) of the triggers whose scope reaches the span [start, end) of `t`."""
    r = _read(t)
    cs, ce = r.clause_of(start)
    out = []
    k = bisect.bisect_left(r.struck, (start, 0)) - 1  # struck spans never overlap
    if k >= 0 and r.struck[k][0] < start and end < r.struck[k][1]:
        out.append((REJECTED, "~~"))
    out.extend(_reach(t, r, start, end, cs, ce))
    k = bisect.bisect_right(r.paren_starts, start) - 1
    if not out and k >= 0 and r.parens[k][0] < start and end < r.parens[k][1]:
        # nothing inside the parenthesis reaches the value: the triggers around it do ("earlier
        # bookings (KQ 117, ET 309) no longer apply"; "the public registry (npmjs.org) is blocked")
        out.extend(_reach(t, r, r.parens[k][0], r.parens[k][1], cs, ce))
    if not out:
        out.extend(annotation(t, r.parens, r.paren_starts, start, end))
    return tuple(out)


def _reach(t: str, r: _Reading, start: int, end: int, cs: int, ce: int) -> list[tuple[str, str]]:
    """The nearest trigger on each side of [start, end) in the clause [cs, ce) that reaches it; a
    weak one only where no strong one of its direction does. Found by bisection: a reply with
    thousands of mentions and triggers stays linear."""
    out = []
    for hits, ends in ((r.forward, r.forward_ends), (r.weak, r.weak_ends)):
        i = bisect.bisect_right(ends, start) - 1
        if i >= 0 and hits[i].start >= cs:
            h = hits[i]
            if not _stopped(r, h.end, start, h.trigger) and _words(t, h.end, start) <= h.trigger.window:
                out.append((h.trigger.category, h.text))
                break
    for hits, starts in ((r.backward, r.backward_starts), (r.weak_back, r.weak_back_starts)):
        j = bisect.bisect_left(starts, end)
        if j < len(hits) and hits[j].end <= ce:
            h = hits[j]
            if not _stopped(r, end, h.start, h.trigger) and _words(t, end, h.start) <= h.trigger.window:
                out.append((h.trigger.category, h.text))
                break
    return out


@dataclass(frozen=True, slots=True)
class Mention:
    """One sentence that states every atom of a value, and what it says of the value."""

    status: str
    clause: str  # the sentence
    trigger: str = ""  # the trigger that set a status other than asserted
    start: int = 0  # the mention's span in the text read (folded under the normalized matcher)
    end: int = 0
    offset: int = 0  # where the sentence starts in that text: start - offset indexes `clause`
    part: str = ""  # the clause (within the sentence) of the value's first atom: what binding reads
    part_offset: int = 0

    def __str__(self) -> str:
        why = f" ({self.trigger!r})" if self.trigger else ""
        return f"{self.status}{why} in {self.clause.strip()!r}"


def _status(t: str, start: int, end: int, negative: bool) -> tuple[str, str]:
    cats = dict(triggers_at(t, start, end))
    if REJECTED in cats and cats.get(HISTORICAL, "").replace(" ", "") == "anymore":
        del cats[HISTORICAL]  # "can't have X any more": the negation is what holds now
    if (REJECTED in cats) != negative:
        return REJECTED, cats.get(REJECTED, "without its 'no'")
    if FALLBACK in cats:
        return ASSERTED, ""
    for c in (HISTORICAL, QUOTED, HEDGED, PAST):
        if c in cats:
            return c, cats[c]
    return ASSERTED, ""


@lru_cache(maxsize=4096)
def _polarity(value: str, frame: str, ref: date | None) -> tuple[tuple[bool, bool], ...]:
    """For each atom of the value: whether it is one of the value's own negation words ("no" in
    "no cashews or pistachios": polarity, not content), and whether the value negates it. A
    literal that is part of a recorded fact is read inside that fact (`frame`): "120" in "set
    to 12 instead of 120" is negated there, so "12 instead of 120" asserts it as recorded."""
    source = frame or value
    at = places(value, source, ref)
    if not at:
        return ()
    t = scan_text(source)
    r = _read(t)
    out = []
    for spans_ in at:
        word = bool(spans_) and all(any(h.start <= s and e <= h.end for h in r.forward) for s, e in spans_)
        negated = bool(spans_) and any(REJECTED in dict(triggers_at(t, s, e)) for s, e in spans_)
        out.append((word and _is_negation(t, spans_), negated))
    return tuple(out)


def _is_negation(t: str, spans_: tuple[tuple[int, int], ...]) -> bool:
    hits = _read(t).forward
    return all(any(h.start <= s and e <= h.end and h.trigger.category == REJECTED for h in hits) for s, e in spans_)


def _lower(text: str) -> str:
    """Lower case without changing any offset (a character whose lower case is longer stays)."""
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text[:MAX_TEXT]).replace("’", "'")


@lru_cache(maxsize=65536)
def mentions(
    value: str, text: str, ref: date | None = None, strict: bool = False, phrase: bool = False, frame: str = ""
) -> tuple[Mention, ...]:
    """Every mention of `value` in `text`, one per clause, in order. `frame`: the recorded fact
    a literal value is part of, which gives the literal its polarity."""
    if not value:
        return ()
    if strict or phrase:
        t = _lower(text) if strict else fold(text)
        needle = value if strict else fold(value)
        hay = text[:MAX_TEXT] if strict else t
        pol = _polarity(value, frame, ref) if frame else ()
        return _single(t, hay, needle, any(neg for _, neg in pol))
    at = places(value, text, ref)
    if at is None:
        t = fold(text)
        return _single(t, t, fold(value))
    t = scan_text(text)
    r = _read(t)
    negative = _polarity(value, frame, ref)
    out = []
    for cs, ce in r.sentences:
        best: list[tuple[int, int, int, str, str]] = []  # per atom: rank, start, end, status, trigger
        anchor: int | None = None  # where the value's first atom was found: the others are taken near it
        for i, spans_ in enumerate(at):
            own_word, neg = negative[i] if i < len(negative) else (False, False)
            if own_word:
                continue
            here = [(s, e) for s, e in spans_ if cs <= s < ce]
            if not here:
                break
            options = [(s, e, *_status(t, s, e, neg)) for s, e in here]
            a = anchor
            s, e, st, why = min(options, key=lambda o: (_RANK[o[2]], 0 if a is None else abs(o[0] - a)))
            anchor = s if anchor is None else anchor
            best.append((_RANK[st], s, e, st, why))
        else:
            if not best:
                continue
            worst = max(best)
            lo, hi = min(b[1] for b in best), max(b[2] for b in best)
            ps, pe = r.clause_of(best[0][1])
            status, why = worst[3], worst[4]
            if _RANK[status] <= _RANK[PAST]:
                back = taken_back(t, hi, ce)
                if back:
                    status, why = REJECTED, back
            out.append(Mention(status, t[cs:ce], why, lo, hi, cs, t[ps:pe], ps))
    return tuple(out)


def _single(t: str, hay: str, needle: str, negative: bool = False) -> tuple[Mention, ...]:
    """Mentions of an exact string: under the strict matcher, or a phrase declared as written."""
    if not needle:
        return ()
    r = _read(t)
    out = []
    seen: set[tuple[int, int]] = set()
    i = hay.find(needle)
    while i >= 0:
        s, e = i, i + len(needle)
        sentence = r.sentence_of(s)
        if sentence not in seen:
            seen.add(sentence)
            st, why = _status(t, s, e, negative)
            ps, pe = r.clause_of(s)
            out.append(Mention(st, t[sentence[0] : sentence[1]], why, s, e, sentence[0], t[ps:pe], ps))
        i = hay.find(needle, i + 1)
    return tuple(out)


def asserted(ms: tuple[Mention, ...]) -> Mention | None:
    """The first mention that asserts the value outright."""
    return next((m for m in ms if m.status == ASSERTED), None)


def states_value(ms: tuple[Mention, ...]) -> Mention | None:
    """The first mention that states the value as holding: asserted, or in a bare past tense."""
    return next((m for m in ms if m.status in (ASSERTED, PAST)), None)


def clauses(text: str) -> list[str]:
    """The clauses of a text as the reader splits them (folded)."""
    t = fold(text)
    return [t[s:e] for s, e in _read(t).clauses if t[s:e].strip()]


def sentences(text: str) -> list[str]:
    """The sentences of a text as the reader splits them (folded)."""
    t = fold(text)
    return [t[s:e] for s, e in _read(t).sentences if t[s:e].strip()]
