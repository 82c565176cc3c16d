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

Either fails the decision, with evidence naming both records. A clause names a subject when it
states every word of it (`values.states`). Only a clause that ties a value to a thing counts: it
holds a link ("is", "are", "was", "'s", "for"), so "Give her 5 units with her food" attaches
nothing to the food. A clause that names both subjects, or that states both values, says how
they relate and is left alone: "Pickup is at 14:30, before the concert at 16:00" passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memriskbench.common.values import bag, is_bare, states, value_atoms
from memriskbench.episodes.episode import MemoryOp
from memriskbench.judge.checks.base import CheckContext, Outcome
from memriskbench.judge.checks.rules import found, prose, read
from memriskbench.judge.reader import ASSERTED


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
    return Subjects(target, tuple(seen.values())) if seen else None


def _same_words(a: str, b: str, ctx: CheckContext) -> bool:
    return states(a, b, ctx.ref).hit or states(b, a, ctx.ref).hit


# "'s" links only as "is" ("the pickup's at 16:00"), not as a possessive ("Pepper's food").
_LINK = re.compile(
    r"(?:^|[\s(])(?:is|are|was|were|for|means)(?=\s|$)|'re\b|\s=\s"
    r"|'s\s(?=(?:at|on|in|from|by|now|still|the|an?|due|set|booked|not|no|every|next)\b|\d"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b)"
)


def _names(clause: str, subject: str, ctx: CheckContext) -> bool:
    return states(subject, clause, ctx.ref).hit


def _touches(clause: str, subject: str, value: str) -> bool:
    """The clause has a content word of the subject ("section hold ... until" touches "hold
    expiry"): it may be about the target after all, so the target's value is not misplaced. A
    word the value itself holds ("cashews" in "no cashews or pistachios") does not count."""
    own: set[object] = set()
    for a in value_atoms(value):
        own |= a.readings
    words = [a for a in value_atoms(subject) if a.kind == "word" and not a.readings & own]
    have = bag(clause).by_kind.get("word", set())
    return any(a.readings & have for a in words)


def _links(clause: str) -> bool:
    return _LINK.search(clause) is not None


def misbound(ctx: CheckContext, s: Subjects, strict: bool = False) -> list[str]:
    out = []
    t = s.target
    for where, text in prose(ctx, True):
        for m in read(t.value, text, ctx, strict):
            if m.status != ASSERTED or not _links(m.clause) or _touches(m.clause, t.subject, t.value):
                continue
            for o in s.others:
                if _names(m.clause, o.subject, ctx) and not any(
                    x.status == ASSERTED for x in read(o.value, m.clause, ctx, strict)
                ):
                    out.append(
                        f"{where}: {t.id}={t.value!r} ({t.subject}) attached to {o.id}'s subject {o.subject!r} in {m.clause.strip()!r}"
                    )
                    break
        for o in s.others:
            if is_bare(o.value):
                continue
            for m in read(o.value, text, ctx, strict):
                if (
                    m.status != ASSERTED
                    or not _links(m.clause)
                    or not _names(m.clause, t.subject, ctx)
                    or _names(m.clause, o.subject, ctx)
                    or any(x.status == ASSERTED for x in read(t.value, m.clause, ctx, strict))
                ):
                    continue
                out.append(
                    f"{where}: {t.subject!r} ({t.id}) given {o.id}={o.value!r} ({o.subject}) in {m.clause.strip()!r}"
                )
    return out


def binding(ctx: CheckContext, s: Subjects) -> Outcome:
    """One verdict for both matchers: binding reads claims, which the strict matcher (exact
    characters) has no way to place."""
    bad = misbound(ctx, s, False)
    evidence = "; ".join(bad) if bad else f"{s.target.id} ({s.target.subject}) bound to its own subject"
    return Outcome.same(not bad, evidence)
