"""`memriskbench view`: a static site for auditing traces, opened from `file://`, no server.

The pages are the three files in `assets/` (plain HTML, CSS and JavaScript, no build step); the
data are `.js` files under `data/`, loaded with `<script>` because browsers refuse `fetch` on
`file://`. One file holds the overview, one each system's episode list, and one each episode
of each system, so a browser loads only what a page shows.

Every figure on the overview is `results.analysis`'s (the numbers of `report` and `score
--json`); every verdict is the scorer's. A damaged trace is shown as far as its chain verifies,
with the warning `score` prints; episodes whose file changed since the trace was made are named
and shown unscored.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from memriskbench.episodes.episode import Episode
from memriskbench.errors import TraceError
from memriskbench.judge.scoring import VARIANTS, EpisodeResult, episode_problem
from memriskbench.results.analysis import analyze
from memriskbench.results.audit import audit_trace, published_differences
from memriskbench.results.figures import SystemRun, combine_shards
from memriskbench.results.tracecheck import LoadedTrace, load_trace
from memriskbench.results.view.pages import episode_page, outcome
from memriskbench.risks import BY_ID, RISKS
from memriskbench.traces.trace import TraceRead, read_lines

ASSETS = ("index.html", "app.js", "style.css")
SEARCH_CHARS = 4000  # of requests and replies per episode row, for the list's text search


@dataclass
class _Trace:
    path: str
    got: TraceRead | None
    loaded: LoadedTrace
    by_episode: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def _read(path: str, by_id: dict[str, Episode]) -> _Trace:
    try:
        got: TraceRead | None = read_lines(path, strict=False, salvage=True)
    except TraceError as exc:
        return _Trace(path, None, LoadedTrace(path, None, [str(exc)]))
    assert got is not None
    t = _Trace(path, got, load_trace(path, by_id, got=got))
    current: list[dict[str, Any]] | None = None
    for obj in got.lines[1:]:
        if obj.get("type") == "episode_start":
            current = t.by_episode.setdefault(str(obj.get("episode")), [])
        if current is not None:
            current.append(obj)
    return t


def _audit(t: _Trace, by_id: dict[str, Episode], published: str | None) -> dict[str, Any]:
    """The trace's audit, in the parts an auditor asks about first."""
    if t.got is None or t.loaded.run is None:
        return {
            "ok": False,
            "chain": "unreadable",
            "episodes_match": False,
            "mismatched": [],
            "rescored_equal": None,
            "problems": t.loaded.problems,
        }
    chain = "intact"
    if t.got.error is not None:
        chain = f"broken: {t.got.error}"
    elif t.got.partial_tail:
        chain = f"broken: {t.path}:{len(t.got.lines) + 1}: truncated last line dropped"
    digests = t.loaded.run.header.get("episodes", {})
    mismatched = sorted(e for e in t.by_episode if episode_problem(e, by_id, digests))
    problems, fresh = audit_trace(t.path, by_id, None, t.loaded, t.got)
    equal = None
    sibling = Path(t.path).parent / "results.json"  # `report` writes a release's figures there
    published = published or (str(sibling) if sibling.is_file() else None)
    if published and fresh is not None:
        differ = published_differences(published, t.path, t.loaded.run.name, fresh)
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


def _js(out: Path, rel: str, target: str, data: Any) -> int:
    """Write `window.MRB.<target> = <data>;` and return its size in bytes."""
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    head = "window.MRB = window.MRB || {};\n"
    if "[" in target:
        obj = target.split("[", 1)[0]
        head += f"MRB.{obj} = MRB.{obj} || {{}};\n"
    body = json.dumps(data, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    text = f"{head}MRB.{target} = {body};\n"
    path.write_text(text, encoding="utf-8")
    return len(text)


def _row(
    index: int, k: int, eid: str, result: EpisodeResult | None, records: list[dict[str, Any]], note: str | None
) -> dict[str, Any]:
    start = records[0] if records else {}
    words = [eid]
    for r in records:
        if r.get("type") == "decision":
            words += [str(r.get("query", "")), str((r.get("action") or {}).get("content", ""))]
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
        "search": " ".join(words).lower()[:SEARCH_CHARS],
        "file": f"data/ep/{index}/{k}.js",
    }


def build_site(
    paths: Sequence[str], by_id: dict[str, Episode], out: Path, published: str | None = None
) -> dict[str, Any]:
    """Write the site into `out`; return what was written (files, bytes, warnings)."""
    traces = [_read(p, by_id) for p in paths]
    warnings = [p for t in traces for p in t.loaded.problems]
    runs = combine_shards([t.loaded.run for t in traces if t.loaded.run is not None], list(by_id))
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
    for index, (run, block) in enumerate(zip(runs, results["systems"], strict=True)):
        mine = [t for t in traces if t.loaded.run is not None and t.path in run.trace.split(" + ")]
        audits = [_audit(t, by_id, published) for t in mine]
        records = {e: recs for t in mine for e, recs in t.by_episode.items()}
        digests = run.header.get("episodes", {})
        rows = []
        scored = {r.episode: r for r in run.results}
        for k, eid in enumerate(records):
            why = episode_problem(eid, by_id, digests)
            note = None
            if why:
                note = f"{why}; not scored"
            elif not any(r.get("type") == "episode_end" for r in records[eid]):
                note = "unfinished: the verified part of the trace holds no episode_end for this episode"
            rows.append(_row(index, k, eid, scored.get(eid), records[eid], note))
            page = episode_page(index, run.name, eid, records[eid], by_id.get(eid), scored.get(eid))
            page["note"] = note
            size += _js(out, f"data/ep/{index}/{k}.js", f'episode["{index}/{eid}"]', page)
            files += 1
        size += _js(out, f"data/sys-{index}.js", f"system[{index}]", {"index": index, "name": run.name, "rows": rows})
        files += 1
        systems.append(_system(index, run, block, audits))
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
    size += _js(out, "data/overview.js", "overview", overview)
    return {"files": files + 1, "bytes": size, "systems": len(systems), "warnings": warnings}


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
