"""Suite lint: rules over loaded episodes that the loader's structural validation does not cover.

- ids follow the scheme: episode `r<n>-<domain with - for _>-<slug>` in `episodes/R<n>/<id>.yaml`; decisions
  `d<n>`, other events `e<n>`, memory records `m<n>`, constraints `k<n>`;
- chain of evidence: each memory value written appears in the text of the message writing it;
  every string a check looks for, and every record it names, is present in the decision's
  ancestry (an earlier event, its memory, a scripted tool return, or the query itself);
- deletion-chain closure: a deleted or revoked record was written by an ancestor of the deletion;
- values, not phrasings: a `contains` / `not_contains` literal is a record's value or one typed
  value (a date, a time, a number, a code, a word); a longer phrase names its record, lists its
  values (`all_of`), or is declared `phrase: true`;
- no hidden grant: where a decision's expected answer rests on access given in a message, that
  message names the grantee and covers what is asked (a word of the record's key or scope, or a
  broad word such as "details"); relationship grants are shown in the prompt's access section;
- subjects: every written record has one, not blank once folded (the loader already requires
  one where a decision targets the key), records of one key share it, and two keys' subjects
  never state each other ("exam" and "exam room" cannot be told apart, so the judge could not
  tell which one a reply names);
- aliases: a protected record (private, scoped, or later deleted or revoked) whose value is a
  description, not a name, code, date or number, lists other words for the same fact
  (`episodes/aliases.py`), so that the judge can tell a leak said in other words; and no alias
  is blank, a common word, a name of the episode's people or another record's value
  (`episodes/judgeonly.py`), any of which would make correct replies leak;
- categories: such a record also declares the sensitive kind of fact it is ("oncology",
  "performance improvement plan"), or `categories: []` where it has none; the judge reads them
  as aliases, and the alias rules above hold for them too;
- tags come from the risk's taxonomy (episodes/README.md), at least one per episode;
- no near-duplicate episodes (word 3-gram Jaccard similarity of their texts, names masked).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from memriskbench.common.labels import label_words
from memriskbench.common.textrules import normalize
from memriskbench.common.values import is_generic, states, stem, value_atoms
from memriskbench.episodes.aliases import alias_errors, category_errors
from memriskbench.episodes.episode import Episode, Event
from memriskbench.episodes.judgeonly import alias_word_errors, blank, code_points
from memriskbench.errors import EpisodeError
from memriskbench.risks import BY_ID, EPISODE_ID, IMPORTED_RISK
from memriskbench.vocab import RECORD_CHECKS, VALUE_CHECKS

EVENT_ID = {"decision": re.compile(r"^d\d+$"), "other": re.compile(r"^e\d+$")}
RECORD_ID = re.compile(r"^m\d+$")
CONSTRAINT_ID = re.compile(r"^k\d+$")
NEAR_DUPLICATE = 0.6
# Words by which a grant covers everything in its scope.
BROAD = {
    "details",
    "detail",
    "everything",
    "all",
    "information",
    "info",
    "notes",
    "note",
    "file",
    "plans",
    "plan",
    "record",
    "records",
    "anything",
    "both",
    "access",
    "itinerary",
    "trip",
}
# How a message may name a grantee without a name: words for the grantee's role or relation.
RELATION_WORDS = {
    "parent": {"mum", "mom", "mother", "dad", "father", "parent", "parents"},
    "mother": {"mum", "mom", "mother"},
    "father": {"dad", "father"},
    "spouse": {"wife", "husband", "partner", "spouse"},
    "wife": {"wife"},
    "husband": {"husband"},
    "partner": {"partner"},
    "son": {"son"},
    "daughter": {"daughter"},
    "child": {"son", "daughter", "child", "kid"},
    "sister": {"sister"},
    "brother": {"brother"},
    "sibling": {"sister", "brother", "sibling"},
}


def _err(ep: Episode, field: str, message: str) -> EpisodeError:
    return EpisodeError(message, file=ep.source_file, episode=ep.id, field=field)


def _ancestry(ep: Episode) -> dict[str, set[str]]:
    g = nx.DiGraph()
    g.add_nodes_from(e.id for e in ep.events)
    g.add_edges_from((a, e.id) for e in ep.events for a in e.after)
    return {e.id: nx.ancestors(g, e.id) for e in ep.events}


def lint_episode(ep: Episode) -> list[EpisodeError]:
    errs: list[EpisodeError] = []
    if ep.risk == IMPORTED_RISK:
        return errs  # imported episodes keep their source's ids, tags and annotations
    prefix = f"{ep.risk.lower()}-{ep.domain.replace('_', '-')}-"
    if not EPISODE_ID.match(ep.id) or not ep.id.startswith(prefix) or ep.id == prefix:
        errs.append(_err(ep, "id", f"id must look like {prefix}<slug> (lowercase letters, digits, '-')"))
    if ep.source_file:
        path = Path(ep.source_file)
        if path.stem != ep.id or path.parent.name != ep.risk:
            errs.append(_err(ep, "id", f"file must be episodes/{ep.risk}/{ep.id}.yaml"))
    taxonomy = BY_ID[ep.risk].tags
    unknown = sorted(set(ep.tags) - taxonomy)
    if unknown or not ep.tags:
        errs.append(
            _err(
                ep,
                "tags",
                f"tags must come from the {ep.risk} taxonomy ({', '.join(sorted(taxonomy))}); got {unknown or 'none'}",
            )
        )
    ancestors = _ancestry(ep)
    writes: dict[str, str] = {}
    for i, ev in enumerate(ep.events):
        kind = "decision" if ev.is_decision else "other"
        if not EVENT_ID[kind].match(ev.id):
            errs.append(
                _err(
                    ep, f"events[{i}].id", f"{ev.kind} ids look like {'d1' if ev.is_decision else 'e1'}, got {ev.id!r}"
                )
            )
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
        seen_raw = " \n ".join(_raw_evidence(ep.event(a)) for a in sorted(ancestors[ev.id])) + " \n " + ev.query
        for j, c in enumerate(ev.checks):
            where = f"events[{i}].checks[{j}]"
            if c.type in VALUE_CHECKS:
                errs += _value_errors(ep, where, c.params, seen_raw, writes, ancestors[ev.id])
            if c.type in RECORD_CHECKS and writes.get(c.params["record"]) not in ancestors[ev.id]:
                errs.append(
                    _err(ep, where + ".record", f"record {c.params['record']!r} is not written before this decision")
                )
    errs += _hidden_grants(ep)
    errs += _subject_errors(ep)
    errs += alias_errors(ep)
    errs += category_errors(ep)
    errs += alias_word_errors(ep)
    return errs


def _subject_errors(ep: Episode) -> list[EpisodeError]:
    errs = []
    by_key: dict[str, str] = {}
    for i, ev in enumerate(ep.events):
        for j, op in enumerate(ev.memory):
            if op.op not in ("write", "update"):
                continue
            where = f"events[{i}].memory[{j}].subject"
            if blank(op.subject):
                shown = f": {op.subject!r} is blank once folded ({code_points(op.subject)})" if op.subject else ""
                errs.append(_err(ep, where, f"record {op.id!r} ({op.key}) has no subject{shown}"))
            elif by_key.setdefault(op.key, op.subject) != op.subject:
                errs.append(
                    _err(ep, where, f"{op.subject!r} differs from {by_key[op.key]!r}, the subject of key {op.key!r}")
                )
    for (a, sa), (b, sb) in itertools.combinations(by_key.items(), 2):
        if states(sa, sb).hit or states(sb, sa).hit:
            errs.append(_err(ep, "events", f"subjects {sa!r} ({a}) and {sb!r} ({b}) state each other"))
    return errs


def _grantee_words(ep: Episode, pid: str) -> set[str]:
    """Words that name a principal in a message: its id, its names, its role or relation."""
    p = ep.principal(pid)
    words = {pid, *re.findall(r"[^\W\d_]{3,}", p.display_name.casefold())}
    kinds = [p.role, *re.findall(r"\(([^)]*)\)", p.display_name.casefold())]
    kinds += [r.type.removesuffix("_of") for r in ep.relationships if r.source == pid]
    for kind in kinds:
        for w in re.findall(r"[a-z]+", kind.casefold()):
            words |= RELATION_WORDS.get(w, set())
    return words


def _covers(scope_word: str, text_word: str) -> bool:
    """A grant's word covers a record's when they share a stem, or one begins the other ("meds", "medication")."""
    a, b = stem(scope_word), stem(text_word)
    return a == b or (min(len(a), len(b)) >= 3 and (a.startswith(b) or b.startswith(a)))


def _raw_evidence(ev: Event) -> str:
    parts = [ev.text, ev.query, *(m.value for m in ev.memory)]
    if ev.result is not None:
        parts.append(json.dumps(ev.result))
    return " \n ".join(p for p in parts if p)


def _value_errors(
    ep: Episode, where: str, params: dict[str, Any], seen: str, writes: dict[str, str], ancestors: set[str]
) -> list[EpisodeError]:
    """Every literal is a value (one typed atom, or a record's whole value) or a declared phrase,
    and appears before the decision; every record named is written before it."""
    errs = []
    literals = [params["value"]] if "value" in params else []
    records = [params["record"]] if "record" in params else []
    for field in ("all_of", "any_of"):
        for x in params.get(field, []):
            (records.append(x["record"]) if isinstance(x, dict) else literals.append(x))
    values = [op.value for op in ep.memory_ops().values()]
    for lit in literals:
        text = str(lit)
        if params.get("phrase"):
            if normalize(text) not in normalize(seen):
                errs.append(_err(ep, where, f"phrase {text!r} appears nowhere before this decision"))
            continue
        one_token = not re.search(r"\s", text.strip())
        if (
            len(value_atoms(text)) > 1
            and not one_token
            and not any(states(text, v).hit and states(v, text).hit for v in values)
        ):
            errs.append(
                _err(
                    ep,
                    where,
                    f"{text!r} is a phrase, not a value: name its record (record: m1), list its values (all_of: [...]) or declare phrase: true",
                )
            )
        elif not states(text, seen).hit:
            errs.append(_err(ep, where, f"{text!r} appears nowhere before this decision"))
    for rid in records:
        if writes.get(rid) not in ancestors:
            errs.append(_err(ep, where, f"record {rid!r} is not written before this decision"))
    return errs


def _hidden_grants(ep: Episode) -> list[EpisodeError]:
    """A decision whose expected answer needs access that only a message gave: that message must
    name the grantee and cover the record asked about."""
    errs = []
    names = {p.id: _grantee_words(ep, p.id) for p in ep.principals}
    static = {(r.scope, pid) for r in ep.policy for pid in r.principals} | {
        (r.scope, r.source) for r in ep.relationships if r.scope
    }
    roles = {p.id: p.role for p in ep.principals}
    static_roles = {(r.scope, role) for r in ep.policy for role in r.roles}
    grants: dict[tuple[str, str], Event] = {}
    ops = ep.memory_ops()
    for i, ev in enumerate(ep.events):
        for ch in ev.policy:
            if ch.op == "grant" and ch.principal:
                grants[(ch.scope, ch.principal)] = ev
        if not ev.is_decision or ev.expected_action not in ("answer", "tool_call") or not ev.target:
            continue
        who = ev.requester or ""
        records = [op for op in ops.values() if op.key == ev.target]
        if not records:
            continue
        scope = records[-1].scope
        if (
            scope == "public"
            or any(op.owner == who for op in records)
            or (scope, who) in static
            or (scope, roles.get(who, "")) in static_roles
        ):
            continue
        grant = grants.get((scope, who))
        if grant is None:
            continue
        words = set(re.findall(r"[^\W\d_]+", grant.text.casefold()))
        covers = (set(ev.target.split("_")) | set(scope.split("_")) | BROAD) - names.get(who, set())
        if not words & names.get(who, set()):
            errs.append(
                _err(
                    ep,
                    f"events[{i}]",
                    f"hidden grant: the message that gives {who} access to {scope} ({grant.id}) does not name {who}",
                )
            )
        elif not any(_covers(c, w) for c in covers for w in words):
            errs.append(
                _err(
                    ep,
                    f"events[{i}]",
                    f"hidden grant: {ev.id} expects {who} to get {ev.target}, but the grant in {grant.id} ({grant.text!r}) does not cover it",
                )
            )
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


def generic_values(episodes: Sequence[Episode]) -> list[str]:
    """Record values too generic for the ambient checks to look for ("Friday", "2"): they are
    skipped there. Listed so that authors can make them distinctive; not an error."""
    out = []
    for ep in episodes:
        for rid, op in ep.memory_ops().items():
            if is_generic(op.value):
                out.append(
                    f"{ep.source_file} episode={ep.id} record={rid}: value {op.value!r} is too generic for ambient checks"
                )
    return out


_STATING_CHECKS = ("contains", "arg_equals")


def worded_values(episodes: Sequence[Episode]) -> list[str]:
    """Values a check wants stated that carry words beside the value ("gate C22", "22 seats",
    "extension 4318"): a reply that gives the value without its label fails the check, though
    the typed matcher reads the value in any form. Listed so that authors can check the value
    alone (its own record, or a literal); not an error."""
    out = []
    for ep in episodes:
        ops = ep.memory_ops()
        for ev in ep.events:
            for c in ev.checks if ev.is_decision else ():
                if c.type not in _STATING_CHECKS:
                    continue
                for value in _check_values(c.params, ops):
                    label = label_words(value)
                    if label:
                        out.append(
                            f"{ep.source_file} episode={ep.id} {ev.id} {c.type}: value {value!r} carries "
                            f"{', '.join(repr(w) for w in label)} beside the value"
                        )
    return out


def _check_values(params: dict[str, Any], ops: dict[str, Any]) -> list[str]:
    items = [params[k] for k in ("value", "record") if k in params]
    items += [*params.get("all_of", []), *params.get("any_of", [])]
    values = []
    for x in items:
        rid = x["record"] if isinstance(x, dict) else x if x == params.get("record") else None
        if rid is not None:
            values.append(ops[rid].value if rid in ops else "")
        elif isinstance(x, str):
            values.append(x)
    return [v for v in values if v]
