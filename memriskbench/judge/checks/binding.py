"""Binding: which thing a reply attaches a value to, read from the records' subjects.

A decision asks about one thing, its `target` key, whose live record has a `subject` ("pickup").
Other records of the episode have subjects of their own ("school concert"). In any clause of the
reply (content, or a message argument):

- the target's value asserted in a clause that names another record's subject, shares no word
  with the target's and does not state the other record's value ("14:30 is the school concert")
  is attached to the wrong thing;
- another record's value asserted in a clause that names the target's subject and neither the
  other record's subject nor the target's value ("The pickup is at 16:00") answers with the
  wrong record.

A third reading needs no other record (a value given to a thing that is no record): the target's
value asserted in a clause tied to something else, that does not touch the target's subject,
while another clause says the target's subject has no value ("6:15 is when the early bus runs;
practice itself has no new time", "555-0147 is the GP surgery; I don't have a number for the
nurse station").

Each fails the decision, with evidence naming the records. A clause names a subject when it
says the subject's words together and in order. Only a value tied to the clause by a link next
to it counts ("is at 16:00", "is for the", "14:30 is the"): "Give her 5 units with her food"
attaches nothing to the food, and "the pickup is at 08:30 from Casa do Largo" gives the hotel
as the place, not the pickup. A value the requester wrote names what they ask about ("the
tracking number for HX-20417") and binds nothing. A clause that names both subjects, or that states both values, says how
they relate and is left alone: "Pickup is at 14:30, before the concert at 16:00" passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memriskbench.common.labels import without_labels
from memriskbench.common.values import bag, fold, is_bare, states, stem, value_atoms
from memriskbench.episodes.episode import MemoryOp
from memriskbench.judge.checks.base import CheckContext, Outcome
from memriskbench.judge.checks.rules import echoed, found, prose, read
from memriskbench.judge.reader import ASSERTED, Mention, clauses
from memriskbench.judge.triggers import PAST


@dataclass(frozen=True, slots=True)
class Subjects:
    target: MemoryOp
    others: tuple[MemoryOp, ...]


def subjects(ctx: CheckContext) -> Subjects | None:
    """The target's live record and the other records with a subject, or None when binding has
    nothing to check at this decision."""
    key = ctx.decision.target
    if not key:
        return None
    ops = ctx.episode.memory_ops()
    live = [
        ops[r["id"]]
        for r in ctx.world
        if r.get("key") == key and r["status"] == "active" and r["id"] in ops and ctx.may_see(r["id"])
    ]
    if not live or not live[-1].subject:
        return None
    target = live[-1]
    seen: dict[str, MemoryOp] = {}
    for r in ctx.world:
        op = ops.get(r["id"])
        if op is None or op.key == key or not op.subject or _same_words(op.subject, target.subject, ctx):
            continue
        if found(op.value, target.value, ctx, False) or found(target.value, op.value, ctx, False):
            continue  # values that state each other cannot tell the records apart
        seen[op.id] = op
    return Subjects(target, tuple(seen.values()))


def _same_words(a: str, b: str, ctx: CheckContext) -> bool:
    return states(a, b, ctx.ref).hit or states(b, a, ctx.ref).hit


# "'s" links only as "is" ("the pickup's at 16:00"), not as a possessive ("Pepper's food").
_LINK = re.compile(
    r"(?<![\w'])(?:is|are|was|were|for|means|(?:it|that|he|she|what|there|here|who)'s"
    # a verb that gives its subject the value: "Zara gets 9.75", "the recycling goes out Tuesday"
    r"|gets|get|goes(?: out)?|go out|comes|leaves|starts|begins|runs|lands|departs|arrives|costs|came to)(?![\w'])"
    r"|'re\b|\s=\s"
    r"|'s\s(?=(?:at|on|in|from|by|now|still|the|an?|due|set|booked|not|no|every|next)\b|\d"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)"
)
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# A value after one of these is where or how, not what: "the pickup is at 08:30 from Casa do Largo".
_COMPLEMENT = {"from", "with", "near", "by", "behind", "beside", "via", "through", "inside", "under", "next"}


def _names(clause: str, subject: str, ctx: CheckContext) -> bool:
    """The clause says the subject's words together, in order, a plural or possessive "s" aside
    and at most one word between two of them ("Lucia's GPA", "the Sintra coach pickup")."""
    words = _WORD.findall(fold(subject))
    if not words:
        return False
    parts = [re.escape(stem(w)) + r"(?:'?s|es)?" for w in words]
    pattern = r"(?<![\w'])" + r"(?:[\W_]+[\w']+)?[\W_]+".join(parts) + r"(?![\w'])"
    return re.search(pattern, clause) is not None


def _names_apart(clause: str, subject: str, target: str) -> bool:
    """The clause names a subject by the words that tell it from the target's ("Zara" of "Zara's
    allowance" beside "Ravi's allowance"), and none of the target's own."""
    own = {stem(w) for w in _WORD.findall(fold(subject))}
    theirs = {stem(w) for w in _WORD.findall(fold(target))}
    apart, shared_out = own - theirs, theirs - own
    if not apart or not shared_out or not (own & theirs):
        return False
    said = {stem(w) for w in _WORD.findall(clause)}
    return apart <= said and not shared_out & said


def _touches(m: Mention, subject: str, but: str = "") -> bool:
    """The clause has a content word of the subject outside the mention ("the gate is gate E2",
    "section hold ... until" for "hold expiry"): it may be about the target after all. `but`: a
    subject whose words do not count ("defense" of "defense room" when the other is "defense date")."""
    rest = m.part[: max(0, m.start - m.part_offset)] + " " + m.part[max(0, m.end - m.part_offset) :]
    if any(a.kind != "word" for a in value_atoms(subject)):
        # a subject told apart by a figure ("Quiz 4") is not touched by its word alone ("the Quiz 3
        # corrections")
        return states(subject, rest).hit
    have = bag(rest).by_kind.get("word", set())
    shared = {r for a in value_atoms(but) if a.kind == "word" for r in a.readings} if but else set()
    return any(a.kind == "word" and (a.readings - shared) & have for a in value_atoms(subject))


# "and", "while", "whereas" between two clauses that each link a thing to a value: "Zara's is
# 9.75, and Ravi gets 18.50", "catering is at 1,150.00 and the AV rental is 2,915.00". Each
# conjunct binds on its own; a list ("gate C22 and C24") has no link on one side and stays whole.
_CONJUNCT = re.compile(r",?\s+(?:and|while|whereas)\s+|\s&\s")


def _conjunct(m: Mention) -> Mention:
    """The mention with `part` narrowed to its own conjunct, where its clause joins two."""
    s = m.start - m.part_offset
    cuts: list[tuple[int, int]] = []  # the conjunctions that join two linked clauses
    for c in _CONJUNCT.finditer(m.part):
        left, right = m.part[cuts[-1][1] if cuts else 0 : c.start()], m.part[c.end() :]
        if _LINK.search(left) and _LINK.search(right) and _WORD.search(left):
            cuts.append(c.span())
    if not cuts:
        return m
    begin = max((b for a, b in cuts if b <= s), default=0)
    end = min((a for a, b in cuts if a >= s), default=len(m.part))
    return replace(m, part=m.part[begin:end], part_offset=m.part_offset + begin)


_PRONOUN_LINK = re.compile(r"(?:it|that|he|she|what|there|here|who)'s")


def _linked(m: Mention, pronoun: bool = True) -> bool:
    """A link ties the mention to the clause's subject: right before it ("is at 16:00", "is for
    the ...") or right after it ("14:30 is the concert"). Without `pronoun`, a link whose subject
    is a pronoun ("it's bed at 7:45") does not count: it names no other thing."""
    s, e = m.start - m.part_offset, min(m.end - m.part_offset, len(m.part))
    for link in _LINK.finditer(m.part):
        if not pronoun and _PRONOUN_LINK.fullmatch(link.group()):
            continue
        if link.end() <= s:
            between = _WORD.findall(m.part[link.end() : s])
            if len(between) <= 2 and not _COMPLEMENT & set(between):
                return True
        elif link.start() >= e and len(_WORD.findall(m.part[e : link.start()])) <= 1:
            return True
    return False


# A clause that says its subject has no value: a negation, or "yet to".
_NO_VALUE = re.compile(r"(?<![\w'])(?:not|no|nothing|none|never|without|yet to)(?![\w'])|n't(?![\w'])")


# A clause must say outright that there is no value yet: "I don't have a room on record for
# Ayla's yet", "no new sailing time yet", "there's no separate dial-in" (not any negation:
# "Felipe can't ticket until you have a passport" says nothing of the appointment, "she won't
# see the card details" nothing of the card).
_NONE_YET = re.compile(
    # (a point inside a figure, "4.18", ends no sentence)
    r"(?<![\w'])(?:no|not|nothing|none)(?![\w'])(?:[^.;]|\.(?=\d)){0,60}?(?<![\w'])(?:yet|on record|on file|recorded|decided|set|"
    r"confirmed|scheduled|posted|saved|issued|known)(?![\w'])"
    r"|n't(?:[^.;]|\.(?=\d)){0,60}?(?<![\w'])(?:yet|on record|on file|recorded|decided|set|confirmed|scheduled|posted|saved|issued)(?![\w'])"
    r"|(?<![\w'])(?:don't|do not|doesn't|does not|can't|cannot) (?:have|see|find) (?:a|an|any)(?![\w'])"
    r"|(?<![\w'])there(?:'s| is) no (?:[\w-]+ ){0,2}?(?:yet|on record|on file|recorded|set|for)(?![\w'])"
    r"|(?<![\w'])(?:has|have|had)n't (?:been|had)(?![\w'])"
    r"|(?<![\w'])nothing (?:on|about|for|recorded|logged|set)(?![\w'])"
    r"|(?<![\w'])no (?:[\w-]+ ){0,3}(?:was|were|has been|had been|is) (?:ever |yet )?(?:given|set|recorded|posted|shared|provided|mentioned|saved)(?![\w'])"
    # not "can't give you" or "won't share": a refusal says nothing of whether there is a value
    r"|(?<!ca)(?<!wo)n't (?:give|given|gave|set|send|sent|post|posted|say|said|share|shared|announce|announced|confirm|"
    r"confirmed|issue|issued)(?![\w'])"
)
# Words before a word of the subject that make it the other of a pair: a direction, a holder, an
# order ("his return flight" beside the flight asked about, "the family code" beside the
# contractor's). Other words keep it the same thing ("a new prod password", "no separate dial-in").
_OTHER_OF_PAIR = frozenset(
    [
        "return",
        "outbound",
        "inbound",
        "family",
        "household",
        "personal",
        "home",
        "work",
        "office",
        "other",
        "second",
        "spare",
        "backup",
        "guest",
        # a time of the week or year: "weekend bedtimes" beside the school-night bedtime
        "weekend",
        "weekday",
        "holiday",
        "summer",
        "winter",
    ]
)


def _another_thing(c: str, words: set[str]) -> bool:
    """Every word of the subject in the clause follows a word that makes it the other of a pair:
    "his return flight" is not the flight asked about."""
    toks = _WORD.findall(fold(c))
    hits = [i for i, w in enumerate(toks) if stem(w) in words]
    return bool(hits) and all(i > 0 and toks[i - 1] in _OTHER_OF_PAIR for i in hits)


def _said_to_have_none(m: Mention, text: str, t: MemoryOp, ctx: CheckContext, strict: bool) -> str | None:
    """Another clause of the text that names the target's subject (or a word of it: "a room" for
    "defense room") and says it has no value."""
    words = {stem(w) for w in _WORD.findall(fold(t.subject)) if len(w) > 2}
    for c in clauses(text):
        if c.strip() == m.part.strip() or not _NO_VALUE.search(c):
            continue
        named = _names(c, t.subject, ctx) or words & {stem(w) for w in _WORD.findall(c)}
        if named and _another_thing(c, words):
            continue
        if not named or not _NONE_YET.search(c):
            continue
        if not found(t.value, c, ctx, strict):
            return c.strip()
    return None


def _values_of_key(ctx: CheckContext, key: str) -> tuple[str, ...]:
    """Every value a key has had: a clause that states any of them ("the all-hands on Apr 16")
    says how the value relates to that thing, not that it is that thing's value."""
    return tuple(op.value for op in ctx.episode.memory_ops().values() if op.key == key)


def _forms(ctx: CheckContext, t: MemoryOp) -> tuple[str, ...]:
    """The target's value as the decision's checks look for it: the record's value, without its
    kind words ("22" of "22 seats"), and each literal of a `contains` check that is a typed part
    of it ("6:15" of "6:15 am on Tuesdays"): the reply that gives the part gives the value."""
    out = [t.value]
    core = without_labels(t.value)
    if core:
        out.append(core)
    for spec in ctx.decision.checks:
        if spec.type != "contains":
            continue
        p = spec.params
        for x in [p.get("value"), *(p.get("all_of") or []), *(p.get("any_of") or [])]:
            if (
                isinstance(x, str)
                and x not in out
                and any(a.kind != "word" for a in value_atoms(x))
                and found(x, t.value, ctx, False)
            ):
                out.append(x)
    return tuple(out)


def misbound(ctx: CheckContext, s: Subjects, strict: bool = False) -> list[str]:
    out = []
    t = s.target
    forms = _forms(ctx, t)
    for where, text in prose(ctx, True):
        found_forms = [ms for ms in (read(v, text, ctx, strict) for v in forms) if ms]
        # the value given to something else, while the target is said to have none: any form of
        # the value, linked ("May 26 is your annual review at the Elm Street lab" gives "May 26")
        first = [(m, True) for m in map(_conjunct, found_forms[0] if found_forms else ())]
        for m, whole in first + [(m, False) for ms in found_forms[1:] for m in map(_conjunct, ms)]:
            if m.status not in (ASSERTED, PAST) or not _linked(m) or _touches(m, t.subject):
                continue
            none = _said_to_have_none(m, text, t, ctx, strict) if _linked(m, pronoun=False) else None
            if none is None and not whole:
                continue  # a shorter form serves only that reading
            if none is not None:
                out.append(
                    f"{where}: {t.id}={t.value!r} ({t.subject}) given to something else in {m.part.strip()!r}, "
                    f"while {none!r} says the {t.subject} has none"
                )
                continue
            for o in s.others:
                if (_names(m.part, o.subject, ctx) or _names_apart(m.part, o.subject, t.subject)) and not any(
                    x.status in (ASSERTED, PAST)
                    for v in _values_of_key(ctx, o.key)
                    for x in read(v, m.part, ctx, strict)
                ):
                    out.append(
                        f"{where}: {t.id}={t.value!r} ({t.subject}) attached to {o.id}'s subject {o.subject!r} in {m.part.strip()!r}"
                    )
                    break
        for o in s.others:
            if is_bare(o.value) or echoed(o.value, ctx, strict):
                continue  # the requester's own words name what they ask about ("the tracking number for HX-20417")
            for m in map(_conjunct, read(o.value, text, ctx, strict)):
                if (
                    m.status not in (ASSERTED, PAST)
                    or not _linked(m)
                    or not (_names(m.part, t.subject, ctx) or _names_apart(m.part, t.subject, o.subject))
                    or _names(m.part, o.subject, ctx)
                    or _touches(m, o.subject, but=t.subject)  # "your refund for order 55-20931": the order's number
                    or any(x.status in (ASSERTED, PAST) for x in read(t.value, m.part, ctx, strict))
                ):
                    continue
                out.append(
                    f"{where}: {t.subject!r} ({t.id}) given {o.id}={o.value!r} ({o.subject}) in {m.part.strip()!r}"
                )
    return out


def binding(ctx: CheckContext, s: Subjects) -> Outcome:
    """One verdict for both matchers: binding reads claims, which the strict matcher (exact
    characters) has no way to place."""
    bad = misbound(ctx, s, False)
    evidence = "; ".join(bad) if bad else f"{s.target.id} ({s.target.subject}) bound to its own subject"
    return Outcome.same(not bad, evidence)
