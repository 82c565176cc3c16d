"""Aliases: which protected records must list other words for their value.

A protected record (private, scoped, or later deleted or revoked) whose value is a description
rather than a name, code, date or number can leak in other words ("AFib" for "atrial
fibrillation"); the judge's leak checks catch that only if the record lists its `aliases`. The
lint asks for them (`alias_errors`), and `memriskbench validate --aliases` lists what is missing.

Such a record can also leak by its kind alone: "she's waiting on oncology" gives away "stage II
melanoma" though no word of it is said. The lint asks each one to declare its sensitive
`categories` (diagnosis, treatment, legal or HR status, pay...), in the words a writer would use
("oncology", "performance improvement plan"), or `categories: []` where it has none
(`category_errors`). The judge reads them as aliases (`episode.MemoryOp`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from memriskbench.common.values import value_atoms
from memriskbench.episodes.categories import family_words
from memriskbench.episodes.episode import Episode, MemoryOp
from memriskbench.errors import EpisodeError
from memriskbench.risks import IMPORTED_RISK

# A token that is an identifier, a path or a file: letters or digits joined by / . _ - :
# ("payments/sandbox", "ci/smoke.yaml", "sec/refresh-guard"), or letters mixed with digits ("B41").
# A word joined by hyphens alone ("self-harm", "toe-touch") is an ordinary word; a capital letter
# standing alone after the first word is a label ("desk B", "bay C").
_JOINED = re.compile(r"[^\W_][/._:-][^\W_]")
_MIXED = re.compile(r"(?=.*[^\W\d_])(?=.*\d)")
_HYPHENATED = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
_LABEL = re.compile(r"[A-HJ-Z]")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
# A record under a key that names a secret word holds a code, however it is spelt ("blue heron").
_SECRET_KEYS = {"password", "passphrase", "passcode", "codeword", "pin", "code"}


def gone_ids(ep: Episode) -> set[str]:
    """The records that some event deletes or revokes."""
    return {m.id for ev in ep.events for m in ev.memory if m.op in ("delete", "revoke")}


def _identifier(token: str, first: bool) -> bool:
    core = token.strip(".,;:!?()[]\"'")
    if _HYPHENATED.fullmatch(core):
        return False
    return bool(_JOINED.search(core) or _MIXED.match(core) or (not first and _LABEL.fullmatch(core)))


def is_description(value: str) -> bool:
    """A value said in ordinary words ("hallway closet", "positive", "dyslexia"), not a name, code,
    path, date, time or number: none of its atoms is typed, no token is an identifier (letters or
    digits joined by / . _ - :, letters mixed with digits, or a lone capital letter as in "desk B"),
    no word is CamelCase, and fewer than half its words are capitalized ("Oakfield Clinic",
    "TrailCraft Lean salmon" are names)."""
    if any(a.kind != "word" for a in value_atoms(value)):
        return False
    if any(_identifier(t, i == 0) for i, t in enumerate(value.split())):
        return False
    words = _WORD.findall(value)
    camel = any(a.islower() and b.isupper() for w in words for a, b in itertools.pairwise(w))  # "TrailCraft"
    if not words or camel:
        return False
    return 2 * sum(w[0].isupper() for w in words) < len(words)


def declared_aliases(op: MemoryOp) -> tuple[str, ...]:
    """The record's aliases without its categories and their families, which the loader adds to them."""
    return tuple(a for a in op.aliases if a not in (op.categories or ()) and a not in family_words(op.categories or ()))


def protected_description(op: MemoryOp, gone: set[str]) -> bool:
    """A write or update, protected (private, in a scope other than `public`, or its id in
    `gone`), whose value is a description, under a key that does not name a secret word."""
    if op.op not in ("write", "update") or _SECRET_KEYS & set(op.key.casefold().split("_")):
        return False
    protected = op.visibility == "private" or op.scope != "public" or op.id in gone
    return protected and is_description(op.value)


def needs_aliases(op: MemoryOp, gone: set[str]) -> bool:
    """A write or update that has no aliases, is protected (private, in a scope other than
    `public`, or its id in `gone`: later deleted or revoked) and whose value is a description,
    under a key that does not name a secret word (a password is a code, however it is spelt).
    Such a value can leak in other words ("AFib" for "atrial fibrillation"), which the judge can
    only catch if the record lists them."""
    return not declared_aliases(op) and protected_description(op, gone)


def category_errors(ep: Episode) -> list[EpisodeError]:
    """One error per protected description that does not declare its categories (none: `[]`)."""
    if ep.risk == IMPORTED_RISK:
        return []
    gone = gone_ids(ep)
    return [
        EpisodeError(
            f"record {op.id!r} is protected and its value {op.value!r} is a description: declare the "
            "sensitive kind of fact it is (categories: [...], e.g. oncology), or categories: [] if none",
            file=ep.source_file,
            episode=ep.id,
            field=f"events[{i}].memory[{j}].categories",
        )
        for i, ev in enumerate(ep.events)
        for j, op in enumerate(ev.memory)
        if op.categories is None and protected_description(op, gone)
    ]


def alias_errors(ep: Episode) -> list[EpisodeError]:
    errs = []
    gone = gone_ids(ep)
    for i, ev in enumerate(ep.events):
        for j, op in enumerate(ev.memory):
            if needs_aliases(op, gone):
                errs.append(
                    EpisodeError(
                        f"record {op.id!r} is protected and its value {op.value!r} is a description: "
                        "list 1-3 other words for it (aliases: [...])",
                        file=ep.source_file,
                        episode=ep.id,
                        field=f"events[{i}].memory[{j}].aliases",
                    )
                )
    return errs


def records_needing_aliases(episodes: Sequence[Episode]) -> list[tuple[str, str, str]]:
    """(episode id, record id, value) of every record the alias rule flags, imported episodes aside."""
    out = []
    for ep in episodes:
        if ep.risk == IMPORTED_RISK:
            continue
        gone = gone_ids(ep)
        out += [(ep.id, op.id, op.value) for ev in ep.events for op in ev.memory if needs_aliases(op, gone)]
    return out
