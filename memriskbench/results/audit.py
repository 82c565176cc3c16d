"""`memriskbench audit`: can a released trace be trusted?

1. Every line's `seq` and `chain` verify, and the trace is complete.
2. Each episode's sha256 in the header matches the episode files on disk; changed ones are named.
3. Each recorded action is what the raw output parses to (the scorer reads the parsed action).
4. The pure scorer re-scores every decision; where published results exist (a sidecar
   `TRACE.results.json`, or `--published FILE`, as written by `score --json` or `report`),
   every number is compared with the re-scored one.
5. A reference agent's trace is re-made: the scripted agent is played again on the same
   episodes, and every record must come out the same, timing aside.

The hash chain shows damage, not forgery: it has no key, so anyone can recompute it over edited
lines. Step 5 catches a forged reference trace; a model trace is checked by re-running the model
(`memriskbench compare`, README).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memriskbench.common.canonical import dumps
from memriskbench.episodes.episode import Episode
from memriskbench.judge.scoring import VARIANTS
from memriskbench.play.actions import Action, ActionParseError, parse_action
from memriskbench.results.figures import score_entry
from memriskbench.results.tracecheck import load_trace
from memriskbench.traces.records import Decision, record_from_dict
from memriskbench.traces.trace import read_lines

TOLERANCE = 1e-9


def _numbers(obj: Any, prefix: str = "") -> Iterator[tuple[str, float | None]]:
    """Flatten results to path -> number; an estimate {value, ci95, n} counts as its value."""
    if isinstance(obj, dict):
        if "value" in obj and "n" in obj:
            yield prefix, obj["value"]
            return
        for k, v in obj.items():
            yield from _numbers(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, bool) or obj is None:
        yield prefix, None if obj is None else float(obj)
    elif isinstance(obj, (int, float)):
        yield prefix, float(obj)


COMPARED = ("pass_rate", "per_risk", "gatemem", "checks")


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


def _check_raw(path: str, kind: str) -> list[str]:
    """The recorded action must be what the raw output parses to."""
    problems = []
    for i, obj in enumerate(read_lines(path, strict=False, salvage=True).lines):
        if obj.get("type") != "decision":
            continue
        d = record_from_dict(obj)
        assert isinstance(d, Decision)
        where = f"{path}:{i + 1} ({d.episode}/{d.decision} step {d.step})"
        if kind == "llama":
            try:
                parsed = parse_action(d.raw_output, tuple(d.tools)).to_dict()
            except ActionParseError as exc:
                parsed = None
                if d.action is not None:
                    problems.append(f"{where}: recorded action, but the raw output does not parse ({exc})")
            if d.action is not None and parsed is not None and parsed != d.action:
                problems.append(f"{where}: recorded action {d.action} differs from the raw output's {parsed}")
        elif (
            kind == "reference"
            and d.action is not None
            and dumps(Action.from_dict(d.action).to_output()) != d.raw_output
        ):
            problems.append(f"{where}: recorded action differs from the raw output")
    return problems


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
    path: str, episodes: dict[str, Episode], published_file: str | None = None
) -> tuple[list[str], dict[str, Any] | None]:
    """Every problem found in one trace, and its fresh results."""
    loaded = load_trace(path, episodes)
    problems = list(loaded.problems)
    run = loaded.run
    if run is None:
        return problems, None
    wanted = set(run.header["episodes"])
    ended = {
        obj["episode"] for obj in read_lines(path, strict=False, salvage=True).lines if obj.get("type") == "episode_end"
    }
    missing = sorted(wanted - ended)
    if missing:
        problems.append(f"{path}: unfinished, {len(missing)} episode(s) without episode_end: {', '.join(missing[:5])}")
    problems += _check_raw(path, str(run.header["system"].get("kind")))
    if run.header["system"].get("kind") == "reference":
        problems += _rerun_reference(path, str(run.header["system"].get("agent")), run.header["episodes"], episodes)
    fresh = score_entry(run)
    source = published_file or (path + ".results.json" if Path(path + ".results.json").exists() else None)
    if source:
        try:
            published = json.loads(Path(source).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            problems.append(f"{source}: cannot read published results: {exc}")
            return problems, fresh
        entry = _published_entry(published, path, run.name)
        if entry is None:
            problems.append(f"{source}: no published entry for {path}")
        else:
            problems += [f"{path}: {d}" for d in _diff(entry, fresh)]
    return problems, fresh
