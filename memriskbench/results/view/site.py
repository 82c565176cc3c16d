"""`memriskbench view`: a static site for auditing traces, opened from `file://`, no server.

The pages are the three files in `assets/` (plain HTML, CSS and JavaScript, no build step); the
data are `.js` files under `data/`, loaded with `<script>` because browsers refuse `fetch` on
`file://`. One file holds the overview, one each system's episode list, and one each play of an
episode by a system, so a browser loads only what a page shows.

Every field of a trace is the publisher's to choose (the chain has no key), so no value becomes
code: a data file is one call, `MRB_data("...")`, whose argument is the data's JSON text written
as a JSON string, which the page parses with `JSON.parse`. File names are indices, never ids.

Every figure on the overview is `results.analysis`'s (the numbers of `report` and `score
--json`); every verdict is the scorer's. A damaged trace is shown as far as its chain verifies,
with the warning `score` prints; episodes whose file changed since the trace was made are named
and shown unscored; an episode a trace holds twice is shown as two plays.

The traces are read one at a time, twice: first to verify, score and audit each (only its
results are kept), then, system by system, to write the pages (the file must still hold the
bytes that were verified), so memory holds the results of all traces and the lines of one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from memriskbench.common.jsonsafe import JSONError, loads
from memriskbench.episodes.episode import Episode
from memriskbench.errors import TraceError
from memriskbench.judge.scoring import VARIANTS, EpisodeResult, episode_problem
from memriskbench.results.analysis import analyze
from memriskbench.results.audit import audit_trace, published_differences
from memriskbench.results.figures import SystemRun, combine_shards
from memriskbench.results.tracecheck import LoadedTrace, load_trace
from memriskbench.results.view.pages import episode_page, outcome
from memriskbench.risks import BY_ID, RISKS
from memriskbench.traces.trace import TraceRead, lines_of, unpack

ASSETS = ("index.html", "app.js", "style.css")


@dataclass(frozen=True, slots=True)
class _Seen:
    """What the first reading keeps of one trace: its scored run, its audit, and what it takes
    to read the same verified lines again (the file's sha256 and how many lines verified)."""

    path: str
    loaded: LoadedTrace
    audit: dict[str, Any] | None
    sha256: str
    lines: int


def _first_read(path: str, by_id: dict[str, Episode], published: str | None) -> _Seen:
    try:
        data = Path(path).read_bytes()
        got = lines_of(data, path, strict=False, salvage=True)
    except OSError as exc:
        return _Seen(path, LoadedTrace(path, None, [f"{path}: cannot read trace: {exc}"]), None, "", 0)
    except MemoryError:
        return _Seen(path, LoadedTrace(path, None, [f"{path}: cannot read trace: too large"]), None, "", 0)
    except TraceError as exc:
        return _Seen(path, LoadedTrace(path, None, [str(exc)]), None, "", 0)
    loaded = load_trace(path, by_id, got=got)
    audit = _audit(path, got, loaded, by_id, published) if loaded.run is not None else None
    return _Seen(path, loaded, audit, hashlib.sha256(data).hexdigest(), len(got.lines))


def _read_again(seen: _Seen) -> list[dict[str, Any]]:
    """The lines the first reading verified; TraceError if the file changed since."""
    try:
        data = Path(seen.path).read_bytes()
    except OSError as exc:
        raise TraceError(f"cannot read trace again: {exc}", file=seen.path) from None
    if hashlib.sha256(data).hexdigest() != seen.sha256:
        raise TraceError("changed while view read it; its pages are not written", file=seen.path)
    text, _ = unpack(data, seen.path, salvage=True)
    try:
        return [loads(line.decode("utf-8")) for line in text.split(b"\n", seen.lines)[: seen.lines]]
    except (UnicodeDecodeError, JSONError) as exc:  # not after a verified reading of these bytes
        raise TraceError(f"cannot read trace again: {exc}", file=seen.path) from None


def _plays(lines: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Each play of an episode, from its episode_start to the next one, in trace order."""
    plays: list[tuple[str, list[dict[str, Any]]]] = []
    for obj in lines[1:]:
        if obj.get("type") == "episode_start":
            plays.append((str(obj.get("episode")), []))
        if plays:
            plays[-1][1].append(obj)
    return plays


def _audit(
    path: str, got: TraceRead, loaded: LoadedTrace, by_id: dict[str, Episode], published: str | None
) -> dict[str, Any]:
    """The trace's audit, in the parts an auditor asks about first."""
    assert loaded.run is not None
    chain = "intact"
    if got.error is not None:
        chain = f"broken: {got.error}"
    elif got.partial_tail:
        chain = f"broken: {path}:{len(got.lines) + 1}: truncated last line dropped"
    digests = loaded.run.header.get("episodes", {})
    played = {str(o.get("episode")) for o in got.lines[1:] if o.get("type") == "episode_start"}
    mismatched = sorted(e for e in played if episode_problem(e, by_id, digests))
    problems, fresh = audit_trace(path, by_id, None, loaded, got)
    equal = None
    sibling = Path(path).parent / "results.json"  # `report` writes a release's figures there
    published = published or (str(sibling) if sibling.is_file() else None)
    if published and fresh is not None:
        differ = published_differences(published, path, loaded.run.name, fresh)
        problems += differ
        equal = not differ
    return {
        "ok": not problems,
        "chain": chain,
        "episodes_match": not mismatched,
        "mismatched": mismatched,
        "rescored_equal": equal,
        "problems": problems,
    }


def _js(out: Path, rel: str, data: Any) -> int:
    """Write the data file `rel` and return its size in bytes. The data's JSON text goes in as
    one JSON string: nothing a trace holds is ever read as code, nor as an object literal (in
    which a `__proto__` key would set the object's prototype instead of being a key)."""
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(data, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    text = f"MRB_data({json.dumps(body)});\n"
    path.write_text(text, encoding="ascii")
    return len(text)


def _row(
    index: int, k: int, eid: str, result: EpisodeResult | None, records: list[dict[str, Any]], note: str | None
) -> dict[str, Any]:
    start = records[0] if records else {}
    words = [eid]
    for r in records:
        if r.get("type") == "decision":
            action = r.get("action")
            content = action.get("content", "") if isinstance(action, dict) else ""
            words += [str(r.get("query", "")), str(content)]
    failed = [c for c in result.scored if not c.passed("default", result.risk)] if result else []
    return {
        "episode": eid,
        "risk": start.get("risk", ""),
        "tier": start.get("tier", ""),
        "domain": start.get("domain", ""),
        "outcome": outcome(result),
        "outcome_safety_aware": outcome(result, "safety_aware"),
        "termination": next((r.get("termination") for r in records if r.get("type") == "episode_end"), "unfinished"),
        "failed_types": sorted({c.type for c in failed}),
        "checks": len(result.scored) if result else 0,
        "failed": len(failed),
        "note": note,
        "search": " ".join(words).lower(),  # every request and reply: the list's text search reads all of it
        "file": f"data/ep/{index}/{k}.js",
    }


def _traces_of(runs: list[SystemRun], seen: list[_Seen]) -> list[list[_Seen]]:
    """The traces behind each run: the one it was read from, or the shards `combine_shards`
    joined into it (its `trace` names theirs, joined by " + ", in the order they were given)."""
    left = [s for s in seen if s.loaded.run is not None and all(s.loaded.run is not r for r in runs)]
    out = []
    for run in runs:
        mine = [s for s in seen if s.loaded.run is run]
        rest = "" if mine else run.trace
        for s in list(left):
            named = rest == s.path or rest.startswith(s.path + " + ")
            if named and s.loaded.run is not None and s.loaded.run.name == run.name:
                mine.append(s)
                left.remove(s)
                rest = rest[len(s.path) + 3 :]
        out.append(mine)
    return out


def build_site(
    paths: Sequence[str], by_id: dict[str, Episode], out: Path, published: str | None = None
) -> dict[str, Any]:
    """Write the site into `out`; return what was written (files, bytes, warnings)."""
    seen = [_first_read(p, by_id, published) for p in paths]
    warnings = [p for s in seen for p in s.loaded.problems]
    runs = combine_shards([s.loaded.run for s in seen if s.loaded.run is not None], list(by_id))
    results = analyze(runs)
    out.mkdir(parents=True, exist_ok=True)
    if (out / "data").exists():
        shutil.rmtree(out / "data")  # a site of other traces must not leave its pages behind
    assets = resources.files("memriskbench.results.view") / "assets"
    for name in ASSETS:
        (out / name).write_text((assets / name).read_text(encoding="utf-8"), encoding="utf-8")
    size = sum((out / name).stat().st_size for name in ASSETS)
    files = len(ASSETS)
    systems = []
    for index, (run, block, mine) in enumerate(zip(runs, results["systems"], _traces_of(runs, seen), strict=True)):
        rows, written = _system_pages(out, index, run, mine, by_id, warnings)
        size += written + _js(out, f"data/sys-{index}.js", {"index": index, "name": run.name, "rows": rows})
        files += len(rows) + 1
        systems.append(_system(index, run, block, [s.audit for s in mine if s.audit is not None]))
    overview = {
        "title": "memriskbench view",
        "generated_by": f"memriskbench {results['memriskbench_version']}",
        "risks": list(RISKS),
        "risk_names": {r: BY_ID[r].name for r in RISKS},
        "variants": list(VARIANTS),
        "bootstrap": results["bootstrap"],
        "warnings": warnings,
        "systems": systems,
        "pass_k": results["pass_k"],
    }
    size += _js(out, "data/overview.js", overview)
    return {"files": files + 1, "bytes": size, "systems": len(systems), "warnings": warnings}


def _system_pages(
    out: Path, index: int, run: SystemRun, mine: list[_Seen], by_id: dict[str, Episode], warnings: list[str]
) -> tuple[list[dict[str, Any]], int]:
    """Write one page per play of an episode by this system; return the episode list's rows and
    the bytes written. The lines of its traces are read again here and dropped on return."""
    plays: list[tuple[str, list[dict[str, Any]]]] = []
    for s in mine:
        try:
            plays += _plays(_read_again(s))
        except TraceError as exc:
            warnings.append(str(exc))
    count: dict[str, int] = {}
    numbers: list[int] = []  # which play of its episode each one is
    scored_play: dict[str, int] = {}  # the scorer scores the first play that ended (load_trace)
    for k, (eid, records) in enumerate(plays):
        count[eid] = count.get(eid, 0) + 1
        numbers.append(count[eid])
        if eid not in scored_play and any(r.get("type") == "episode_end" for r in records):
            scored_play[eid] = k
    digests = run.header.get("episodes", {})
    scored = {r.episode: r for r in run.results}
    rows = []
    size = 0
    for k, (eid, records) in enumerate(plays):
        result = scored.get(eid) if scored_play.get(eid) == k else None
        why = episode_problem(eid, by_id, digests)
        notes = []
        if why:
            notes.append(f"{why}; not scored")
        elif not any(r.get("type") == "episode_end" for r in records):
            notes.append("unfinished: the verified part of the trace holds no episode_end for this episode")
        play = (numbers[k], count[eid]) if count[eid] > 1 else None
        if play:
            scored_one = "this is the play scored" if result is not None else "this play is not scored"
            notes.append(f"duplicate: played {count[eid]} times in this trace; this is play {play[0]}, {scored_one}")
        note = "; ".join(notes) or None
        row = _row(index, k, eid, result, records, note)
        if play:
            row |= {"play": play[0], "plays": play[1]}
        rows.append(row)
        page = episode_page(index, run.name, eid, records, by_id.get(eid), result, play)
        page["note"] = note
        size += _js(out, f"data/ep/{index}/{k}.js", page)
    return rows, size


def _system(index: int, run: SystemRun, block: dict[str, Any], audits: list[dict[str, Any]]) -> dict[str, Any]:
    entry = {
        "index": index,
        "name": run.name,
        "trace": run.trace,
        "file": f"data/sys-{index}.js",
        "episodes_finished": block["episodes_finished"],
        "episodes_planned": block["episodes_planned"],
        "terminations": block["terminations"],
        "gatemem_imported": block["gatemem_imported"],
        "complete": run.complete,
        "audit": {
            "ok": all(a["ok"] for a in audits),
            "chain": "; ".join(a["chain"] for a in audits),
            "episodes_match": all(a["episodes_match"] for a in audits),
            "mismatched": sorted({e for a in audits for e in a["mismatched"]}),
            "rescored_equal": None
            if any(a["rescored_equal"] is None for a in audits)
            else all(a["rescored_equal"] for a in audits),
            "problems": [p for a in audits for p in a["problems"]],
        },
    }
    for variant in VARIANTS:
        v = block[variant]
        entry[variant] = {k: v[k] for k in ("pass_rate", "per_risk", "gatemem", "checks")}
    return entry
