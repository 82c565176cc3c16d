"""`memriskbench audit`: can a released trace be trusted?

1. Every line's `seq` and `chain` verify, and the trace is complete.
2. Each episode's sha256 in the header matches the episode files on disk; changed ones are named.
3. Each recorded action is what the raw output parses to (the scorer reads the parsed action):
   for model traces (llama, openai, replay) by parsing it again, as the model system did, and
   for a managed memory operation likewise; for a reference agent by writing the action out.
   What a decision says it showed the system (`context.events`, `memory_ids`, `text`) has the
   shape the scorer and the viewer read (a list of ids, a text).
4. The pure scorer re-scores every decision; where published results exist (a sidecar
   `TRACE.results.json`, or `--published FILE`, as written by `score --json` or `report`),
   every number is compared with the re-scored one. A published file that is not JSON, not of
   that shape, or holds anything but a finite number or null where a number is compared, is an
   error naming the file and the field, never a pass.
5. A reference agent's trace is re-made: the scripted agent is played again on the same
   episodes, and every record must come out the same, timing aside.

The hash chain shows damage, not forgery: it has no key, so anyone can recompute it over edited
lines. Step 5 catches a forged reference trace; a model trace is checked by re-running the model
(`memriskbench compare`, README).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memriskbench.common.canonical import dumps
from memriskbench.common.jsonsafe import JSONError, loads
from memriskbench.episodes.episode import Episode
from memriskbench.errors import MemRiskError, TraceError
from memriskbench.judge.scoring import VARIANTS
from memriskbench.play.actions import Action, ActionParseError, model_json, parse_action
from memriskbench.results.figures import score_entry
from memriskbench.results.tracecheck import LoadedTrace, load_trace
from memriskbench.traces.records import Decision, MemoryOpRecord, record_from_dict
from memriskbench.traces.trace import TraceRead, read_lines

TOLERANCE = 1e-9
MODEL_KINDS = ("llama", "openai", "replay")  # systems whose actions ModelSystem parsed from raw output
TRUNCATED = "truncated at max_tokens"  # ModelSystem's error for a reply cut short: no action, by design


def _numbers(obj: Any, prefix: str = "") -> Iterator[tuple[str, float | None]]:
    """Flatten results to path -> number; an estimate {value, ci95, n} counts as its value.
    Published results pass `_check_numbers` first, so only numbers and None reach here."""
    if isinstance(obj, dict):
        if "value" in obj and "n" in obj:
            yield prefix, obj["value"]
            return
        for k, v in obj.items():
            yield from _numbers(v, f"{prefix}.{k}" if prefix else str(k))
    elif obj is None:
        yield prefix, None
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield prefix, float(obj)


def _check_numbers(obj: Any, field: str, source: str) -> None:
    """Where audit compares numbers, a published file holds objects, finite numbers and nulls
    only: a string ("0.12"), NaN, a list or a boolean would otherwise be skipped, and pass."""
    if isinstance(obj, dict):
        if "value" in obj and "n" in obj:
            _check_numbers(obj["value"], f"{field}.value", source)
            return
        if not obj:  # it would yield no number, so the claim it stands for would go unchecked
            raise MemRiskError(f"{source}: {field}: published value is an empty object, not a number or null")
        for k, v in obj.items():
            _check_numbers(v, f"{field}.{k}", source)
        return
    if obj is None or (isinstance(obj, (int, float)) and not isinstance(obj, bool) and math.isfinite(obj)):
        return
    got = kind_of(obj) if isinstance(obj, list) else f"{kind_of(obj)} {obj!r}"[:60]
    raise MemRiskError(f"{source}: {field}: published value is {got}, not a finite number or null")


def kind_of(obj: Any) -> str:
    """A value's JSON type, for messages about a file the user wrote (or a trace's field)."""
    for kind, name in ((bool, "a boolean"), ((int, float), "a number"), (str, "a string"), (list, "an array")):
        if isinstance(obj, kind):
            return name
    return "an object" if isinstance(obj, dict) else "null"


COMPARED = ("pass_rate", "per_risk", "gatemem", "checks")


def load_published(source: str) -> dict[str, Any]:
    """Published results (`score --json` or `report`'s results.json), checked for shape; every
    problem is a MemRiskError naming the file and, where it lies in one, the field."""
    try:
        text = Path(source).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise MemRiskError(f"{source}: cannot read published results: {exc}") from None
    try:
        published = loads(text, constants=True)  # NaN is read, to be refused by its field below
    except JSONError as exc:
        raise MemRiskError(f"{source}: cannot read published results: {exc}") from None
    if not isinstance(published, dict):
        raise MemRiskError(
            f"{source}: published results are a JSON object with a systems list "
            f"(score --json, or report's results.json), not {kind_of(published)}"
        )
    systems = published.get("systems", [])
    if not isinstance(systems, list):
        raise MemRiskError(f"{source}: systems: expected an array, got {kind_of(systems)}")
    for i, s in enumerate(systems):
        if not isinstance(s, dict):
            raise MemRiskError(f"{source}: systems[{i}]: expected an object, got {kind_of(s)}")
        for variant in VARIANTS:
            if variant not in s:
                continue
            if not isinstance(s[variant], dict):
                raise MemRiskError(f"{source}: systems[{i}].{variant}: expected an object, got {kind_of(s[variant])}")
            for key in COMPARED:
                _check_numbers(s[variant].get(key), f"systems[{i}].{variant}.{key}", source)
    return published


def _published_entry(published: dict[str, Any], trace: str, name: str) -> dict[str, Any] | None:
    for s in published.get("systems", []):
        if Path(str(s.get("trace", ""))).name == Path(trace).name or s.get("name") == name:
            return dict(s)
    return None


def _diff(published: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    out = []
    compared = 0
    for variant in VARIANTS:
        if variant not in published:
            continue
        for key in COMPARED:
            old = dict(_numbers(published[variant].get(key), key))
            new = dict(_numbers(fresh[variant].get(key), key))
            # A published number with no re-scored counterpart (pass_rate given as {"x": 0.5}) was
            # skipped before, and the audit passed without checking it.
            out += [
                f"{variant}.{path}: published {old[path]}, which audit does not re-score"
                for path in sorted(set(old) - set(new))
            ]
            for path in sorted(set(old) & set(new)):
                compared += 1
                a, b = old[path], new[path]
                if (a is None) != (b is None) or (a is not None and b is not None and abs(a - b) > TOLERANCE):
                    out.append(f"{variant}.{path}: published {a}, re-scored {b}")
    if not compared:
        out.append(
            "the published entry holds none of the numbers audit compares (pass_rate, per_risk, gatemem, checks): nothing was checked"
        )
    return out


def _check_raw(path: str, kind: str, lines: list[dict[str, Any]] | None = None) -> list[str]:
    """The recorded action must be what the raw output parses to. `lines`: the trace's verified
    lines, where the caller has read them."""
    problems = []
    if lines is None:
        lines = read_lines(path, strict=False, salvage=True).lines
    for i, obj in enumerate(lines):
        if kind in MODEL_KINDS and obj.get("type") == "memory_op":
            problems += _check_op(f"{path}:{i + 1}", record_from_dict(obj))
        if obj.get("type") != "decision":
            continue
        d = record_from_dict(obj)
        assert isinstance(d, Decision)
        where = f"{path}:{i + 1} ({d.episode}/{d.decision} step {d.step})"
        problems += [f"{where}: malformed decision: {p}" for p in context_problems(d.context)]
        if kind in MODEL_KINDS:
            problems += _check_model_decision(where, d)
        elif (
            kind == "reference"
            and d.action is not None
            and dumps(Action.from_dict(d.action).to_output()) != d.raw_output
        ):
            problems.append(f"{where}: recorded action differs from the raw output")
    return problems


def context_problems(context: Any) -> list[str]:
    """What is wrong with a decision's `context`: the scorer and the viewer read its `events` and
    `memory_ids`, where present, as lists of ids and its `text` as a text. A record's shape check
    (`record_from_dict`) looks one level deep only, so a string there passes it."""
    if not isinstance(context, dict):
        return [f"context is {kind_of(context)}, not an object"]
    out = []
    for key in ("events", "memory_ids"):
        value = context.get(key)
        if key not in context:
            continue
        if not isinstance(value, list):
            out.append(f"context.{key} is {kind_of(value)}, not a list of ids")
        elif not all(isinstance(v, str) for v in value):
            wrong = next(v for v in value if not isinstance(v, str))
            out.append(f"context.{key} holds {kind_of(wrong)}, not only ids")
    if "text" in context and not isinstance(context["text"], str):
        out.append(f"context.text is {kind_of(context['text'])}, not a text")
    return out


def _check_model_decision(where: str, d: Decision) -> list[str]:
    """As `ModelSystem.decide` read the reply: parse it again. No action is recorded only where
    the reply does not parse, was cut at max_tokens, or never came (a model error: no raw output)."""
    try:
        parsed = parse_action(d.raw_output, tuple(d.tools)).to_dict()
    except ActionParseError as exc:
        if d.action is not None:
            return [f"{where}: recorded action, but the raw output does not parse ({exc})"]
        return []
    if d.action is None:
        if (d.error or "").startswith(TRUNCATED) or not d.raw_output:
            return []
        return [f"{where}: no action recorded ({d.error}), but the raw output parses to {parsed}"]
    if parsed != d.action:
        return [f"{where}: recorded action {d.action} differs from the raw output's {parsed}"]
    return []


def _check_op(where: str, r: Any) -> list[str]:
    """A managed strategy's memory operation is the raw output read as a JSON object; a reply
    that is not one (or was cut short) is recorded as no operation."""
    assert isinstance(r, MemoryOpRecord)
    if not r.op:
        return []
    try:
        parsed = model_json(r.raw_output)
    except ActionParseError:
        parsed = None
    if parsed != r.op:
        return [f"{where} ({r.episode}/{r.event} memory): recorded operation {r.op} differs from the raw output's"]
    return []


def _rerun_reference(path: str, agent: str, digests: dict[str, str], episodes: dict[str, Episode]) -> list[str]:
    """Play the scripted agent again on the trace's (unchanged) episodes and compare records."""
    from memriskbench.episodes.episode import episode_digest
    from memriskbench.play.runner import run
    from memriskbench.play.systems.reference import AGENTS, ReferenceAgent
    from memriskbench.traces.compare import episode_records

    if agent not in AGENTS:
        return [f"{path}: unknown reference agent {agent!r}; not re-made"]
    eps = [episodes[e] for e in digests if e in episodes and episode_digest(episodes[e]) == digests[e]]
    if not eps:
        return []
    with tempfile.TemporaryDirectory(prefix="memriskbench-audit-") as tmp:
        again = Path(tmp) / "again.jsonl"
        run(ReferenceAgent(agent), eps, again)
        _, fresh = episode_records(again)
    _, recorded = episode_records(path, salvage=True)
    differ = sorted(e for e in fresh if e in recorded and recorded[e] != fresh[e])
    if differ:
        return [
            f"{path}: re-running {agent} gives other records in {len(differ)} episode(s), e.g. {', '.join(differ[:3])}: the trace was edited"
        ]
    return []


def audit_trace(
    path: str,
    episodes: dict[str, Episode],
    published_file: str | None = None,
    loaded: LoadedTrace | None = None,
    got: TraceRead | None = None,
) -> tuple[list[str], dict[str, Any] | None]:
    """Every problem found in one trace, and its fresh results. The trace is read and verified
    once; `got` and `loaded`: its lines as `read_lines(path, strict=False, salvage=True)` gave
    them, and the trace as `load_trace` scored them, where the caller has them."""
    if got is None:
        try:
            got = read_lines(path, strict=False, salvage=True)
        except TraceError:
            got = None  # load_trace reads it again and says why
    loaded = loaded or load_trace(path, episodes, got=got)
    problems = list(loaded.problems)
    run = loaded.run
    if run is None or got is None:
        return problems, None
    wanted = set(run.header["episodes"])
    ended = {obj["episode"] for obj in got.lines if obj.get("type") == "episode_end"}
    missing = sorted(wanted - ended)
    if missing:
        problems.append(f"{path}: unfinished, {len(missing)} episode(s) without episode_end: {', '.join(missing[:5])}")
    problems += _check_raw(path, str(run.header["system"].get("kind")), got.lines)
    if run.header["system"].get("kind") == "reference":
        problems += _rerun_reference(path, str(run.header["system"].get("agent")), run.header["episodes"], episodes)
    fresh = score_entry(run)
    source = published_file or (path + ".results.json" if Path(path + ".results.json").exists() else None)
    if source:
        problems += published_differences(source, path, run.name, fresh)
    return problems, fresh


def published_differences(source: str, path: str, name: str, fresh: dict[str, Any]) -> list[str]:
    """Where the published results for a trace differ from its re-scored ones (empty: equal)."""
    entry = _published_entry(load_published(source), path, name)
    if entry is None:
        return [f"{source}: no published entry for {path}"]
    return [f"{path}: {d}" for d in _diff(entry, fresh)]
