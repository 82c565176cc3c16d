"""Aliases that the oracles say: the part of the alias lint (`episodes/judgeonly.py`) that needs
the reference agents and the judge, so it lives in a stage that may import both.

An alias is judged by what it does to correct replies. The scripted oracles (`oracle` and its
natural twin, `reference.ORACLES`) play the episode once; their replies are scored by the judge
with no aliases, then with each alias alone. A check the replies pass without aliases and fail
with one alias is a correct reply turned into a leak by that alias: the judge read it there
exactly as a leak check reads it, at a decision where the record must stay unsaid. An alias the
oracles say where its record may be said (to its owner) is not refused.

Aliases that the static rules already refuse (`judgeonly.alias_problem`) are not played again.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from memriskbench.episodes.episode import Episode, MemoryOp
from memriskbench.episodes.judgeonly import alias_problem
from memriskbench.errors import EpisodeError
from memriskbench.judge.scoring import score_episode
from memriskbench.play.runner import play_buffered
from memriskbench.play.systems.reference import ORACLES, ReferenceAgent
from memriskbench.risks import IMPORTED_RISK
from memriskbench.traces.records import Record


def with_aliases(ep: Episode, keep: dict[str, tuple[str, ...]]) -> Episode:
    """The episode with each record's aliases replaced by `keep`'s (none for a record not in it)."""
    events = tuple(
        dataclasses.replace(
            ev, memory=tuple(dataclasses.replace(m, aliases=keep.get(m.id, ()) if m.aliases else ()) for m in ev.memory)
        )
        for ev in ep.events
    )
    return dataclasses.replace(ep, events=events)


def _failed(ep: Episode, records: Sequence[Record]) -> set[tuple[str, str, str]]:
    """(decision, check id, check type) of every check the replies fail under either matcher."""
    return {
        (c.decision, c.check, c.type)
        for c in score_episode(ep, records).checks
        if c.applicable and not (c.normalized and c.strict)
    }


def _played(ep: Episode) -> dict[str, list[Record]]:
    out = {}
    for name in ORACLES:
        agent = ReferenceAgent(name)
        played = play_buffered(ep, agent)
        agent.close()
        if played is not None:
            out[name] = played[1]
    return out


def oracle_alias_errors(ep: Episode) -> list[EpisodeError]:
    """One error per alias under which an oracle's reply fails a check it passes without aliases."""
    if ep.risk == IMPORTED_RISK:
        return []
    candidates: list[tuple[str, MemoryOp, str]] = []
    for i, ev in enumerate(ep.events):
        for j, op in enumerate(ev.memory):
            for k, alias in enumerate(op.aliases):
                if alias_problem(ep, op, alias) is None:
                    candidates.append((f"events[{i}].memory[{j}].aliases[{k}]", op, alias))
    if not candidates:
        return []
    played = _played(ep)
    bare = with_aliases(ep, {})
    base = {name: _failed(bare, records) for name, records in played.items()}
    every: dict[str, tuple[str, ...]] = {}
    for _, op, alias in candidates:
        every[op.id] = (*every.get(op.id, ()), alias)
    full = with_aliases(ep, every)
    if all(_failed(full, records) <= base[name] for name, records in played.items()):
        return []  # the common case: one scoring clears every alias of the episode
    errs = []
    for field, op, alias in candidates:
        one = with_aliases(ep, {op.id: (alias,)})
        for name, records in played.items():
            new = sorted(_failed(one, records) - base[name])
            if new:
                decision, check, kind = new[0]
                errs.append(
                    EpisodeError(
                        f"alias {alias!r} of record {op.id!r} is in the {name} agent's reply to {decision}, "
                        f"which then fails check {check} ({kind}): a correct reply would leak the record",
                        file=ep.source_file,
                        episode=ep.id,
                        field=field,
                    )
                )
                break
    return errs


def oracles_alias_errors(episodes: Sequence[Episode]) -> list[EpisodeError]:
    """`oracle_alias_errors` over a suite, in its order."""
    return [e for ep in episodes for e in oracle_alias_errors(ep)]
