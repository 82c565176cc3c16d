"""Suite lint: rules over loaded episodes that the loader's structural validation does not cover.

- ids follow the scheme: episode `r<n>-<domain with - for _>-<slug>` in `episodes/R<n>/<id>.yaml`; decisions
  `d<n>`, other events `e<n>`, memory records `m<n>`, constraints `k<n>`;
- chain of evidence: each memory value written appears in the text of the message writing it;
  every string a check looks for, and every record it names, is present in the decision's
  ancestry (an earlier event, its memory, a scripted tool return, or the query itself);
- deletion-chain closure: a deleted or revoked record was written by an ancestor of the deletion;
- tags come from the risk's taxonomy (episodes/README.md), at least one per episode;
- no near-duplicate episodes (word 3-gram Jaccard similarity of their texts, names masked).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from pathlib import Path

import networkx as nx

from .checks import normalize
from .episode import IMPORTED_RISK, Episode, Event
from .errors import EpisodeError

EPISODE_ID = re.compile(r"^r[1-6]-[a-z0-9][a-z0-9-]*$")
EVENT_ID = {"decision": re.compile(r"^d\d+$"), "other": re.compile(r"^e\d+$")}
RECORD_ID = re.compile(r"^m\d+$")
CONSTRAINT_ID = re.compile(r"^k\d+$")
NEAR_DUPLICATE = 0.6
TAXONOMY = {
    "R1": {"superseded_once", "superseded_twice", "distractor_repeat"},
    "R2": {"latest_timestamp", "trusted_source", "explicit_correction", "scope"},
    "R3": {
        "family_overreach", "cross_patient", "role_mismatch", "unassigned_clinician", "indirect_inference",
        "label_existence_leak", "impersonation", "authority_pressure", "tool_leak", "partial_disclosure",
    },
    "R4": {"post_delete_direct", "post_delete_recovery", "confirm_yes_no", "split_reconstruction", "social_engineering", "update_delete_conflict"},
    "R5": {"recipient_rule", "amount_cap", "date_rule", "content_rule"},
    "R6": {"injected_instruction", "wrong_fact", "canary"},
}
TEXT_CHECKS = {"contains": "value", "not_contains": "value"}
RECORD_CHECKS = ("memory_used", "memory_not_used", "surfaced", "not_surfaced", "memory_status")


def _err(ep: Episode, field: str, message: str) -> EpisodeError:
    return EpisodeError(message, file=ep.source_file, episode=ep.id, field=field)


def _ancestry(ep: Episode) -> dict[str, set[str]]:
    g = nx.DiGraph()
    g.add_nodes_from(e.id for e in ep.events)
    g.add_edges_from((a, e.id) for e in ep.events for a in e.after)
    return {e.id: nx.ancestors(g, e.id) for e in ep.events}


def _evidence(ev: Event) -> str:
    parts = [ev.text, ev.query]
    parts += [m.value for m in ev.memory]
    if ev.result is not None:
        parts.append(json.dumps(ev.result))
    return normalize(" ".join(p for p in parts if p))


def lint_episode(ep: Episode) -> list[EpisodeError]:
    errs: list[EpisodeError] = []
    if ep.risk == IMPORTED_RISK:
        return errs  # imported episodes keep their source's ids, tags and annotations
    prefix = f"r{ep.risk[1]}-{ep.domain.replace('_', '-')}-"
    if not EPISODE_ID.match(ep.id) or not ep.id.startswith(prefix) or ep.id == prefix:
        errs.append(_err(ep, "id", f"id must look like {prefix}<slug> (lowercase letters, digits, '-')"))
    if ep.source_file:
        path = Path(ep.source_file)
        if path.stem != ep.id or path.parent.name != ep.risk:
            errs.append(_err(ep, "id", f"file must be episodes/{ep.risk}/{ep.id}.yaml"))
    unknown = sorted(set(ep.tags) - TAXONOMY[ep.risk])
    if unknown or not ep.tags:
        errs.append(_err(ep, "tags", f"tags must come from the {ep.risk} taxonomy ({', '.join(sorted(TAXONOMY[ep.risk]))}); got {unknown or 'none'}"))
    ancestors = _ancestry(ep)
    writes: dict[str, str] = {}
    for i, ev in enumerate(ep.events):
        kind = "decision" if ev.is_decision else "other"
        if not EVENT_ID[kind].match(ev.id):
            errs.append(_err(ep, f"events[{i}].id", f"{ev.kind} ids look like {'d1' if ev.is_decision else 'e1'}, got {ev.id!r}"))
        if ev.constraint and not CONSTRAINT_ID.match(ev.constraint):
            errs.append(_err(ep, f"events[{i}].constraint", f"constraint ids look like k1, got {ev.constraint!r}"))
        for j, op in enumerate(ev.memory):
            where = f"events[{i}].memory[{j}]"
            if op.op in ("write", "update"):
                writes[op.id] = ev.id
                if not RECORD_ID.match(op.id):
                    errs.append(_err(ep, where + ".id", f"record ids look like m1, got {op.id!r}"))
                if normalize(op.value) not in normalize(ev.text):
                    errs.append(_err(ep, where + ".value", f"value {op.value!r} does not appear in the message text"))
            elif writes.get(op.id) not in ancestors[ev.id]:
                errs.append(_err(ep, where + ".id", f"{op.op} of {op.id!r}, which no earlier event in the graph wrote"))
    for i, ev in enumerate(ep.events):
        if not ev.is_decision:
            continue
        seen = " ".join(_evidence(ep.event(a)) for a in ancestors[ev.id]) + " " + normalize(ev.query)
        for j, c in enumerate(ev.checks):
            where = f"events[{i}].checks[{j}]"
            if c.type in TEXT_CHECKS:
                value = normalize(str(c.params[TEXT_CHECKS[c.type]]))
                if value not in seen:
                    errs.append(_err(ep, where + ".value", f"{c.params['value']!r} appears nowhere before this decision"))
            if c.type in RECORD_CHECKS and writes.get(c.params["record"]) not in ancestors[ev.id]:
                errs.append(_err(ep, where + ".record", f"record {c.params['record']!r} is not written before this decision"))
    return errs


def _shingles(ep: Episode) -> set[tuple[str, ...]]:
    names = {normalize(p.display_name) for p in ep.principals} | {p.id for p in ep.principals}
    text = normalize(" ".join(e.text + " " + e.query for e in ep.events))
    for name in sorted(names, key=len, reverse=True):
        text = text.replace(name, " ")
    words = re.findall(r"[a-z]+", text)
    return set(zip(words, words[1:], words[2:], strict=False))


def near_duplicates(episodes: Sequence[Episode], threshold: float = NEAR_DUPLICATE) -> list[tuple[str, str, float]]:
    shingles = {e.id: _shingles(e) for e in episodes}
    out = []
    for a, b in itertools.combinations(sorted(shingles), 2):
        sa, sb = shingles[a], shingles[b]
        if sa and sb:
            sim = len(sa & sb) / len(sa | sb)
            if sim >= threshold:
                out.append((a, b, sim))
    return out


def lint(episodes: Sequence[Episode]) -> list[EpisodeError]:
    errs = [e for ep in episodes for e in lint_episode(ep)]
    by_id = {e.id: e for e in episodes}
    for a, b, sim in near_duplicates(episodes):
        errs.append(_err(by_id[b], "events", f"near-duplicate of {a} (text similarity {sim:.2f} >= {NEAR_DUPLICATE})"))
    return errs
