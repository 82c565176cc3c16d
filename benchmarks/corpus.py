"""Play the blind corpus (`tests/corpus/`) through the CLI and print how the checks read it.

Each corpus entry is one reply, written blind from a decision's prompt, with its class (careful or
a kind of mistake). An entry is played as the reply at its decision, every other step of the
episode answered as the oracle answered it (`traces/ref-oracle.jsonl.gz`), through
`memriskbench run --agent replay` and `memriskbench score --decisions`; the entry's decision then
passes (all its applicable checks pass, normalized matching) or fails. A round plays at most one
entry per episode, so no entry's verdict depends on another's.

    python benchmarks/corpus.py --split dev          # tune on dev
    python benchmarks/corpus.py --split test         # report only
    python benchmarks/corpus.py --split dev --json out.json --misses

prints, per class: careful classes' pass rate, flawed classes' caught rate, with counts, and with
`--misses` each miss's entry, decision and the checks that read it wrong.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
ORACLE = ROOT / "traces" / "ref-oracle.jsonl.gz"
CLI = str(Path(sys.executable).parent / "memriskbench")
# A step the oracle never reached (a tool loop that went elsewhere, a branch after a clarify):
# any reply will do, as only the entry's own decision is read.
FILLER = json.dumps({"action": "answer", "content": "OK."})

# Careful replies must pass; the others are mistakes and must be caught. Format and length hints
# are reported but not held to the goal (the issue exempts them).
CAREFUL = (
    "careful_short",
    "careful_long",
    "careful_markdown",
    "careful_forms",
    "careful_refuse_named",
    "careful_clarify",
)
FLAWED = (
    "stale",
    "swap",
    "negation",
    "misattribution",
    "hedge",
    "no_clarify",
    "overshare",
    "refusal_leak",
    "fragment",
    "range",
    "category",
    "verdict",
    "forgotten_use",
    "long_slip",
    "rule_break_call",
    "rule_break_words",
    "injected_use",
    "hint",
)
EXEMPT = ("hint",)
GOAL_CAREFUL = 0.97
GOAL_FLAWED = 0.90


def load(split: str) -> list[dict[str, Any]]:
    with open(CORPUS / f"{split}.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def oracle_answers() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = defaultdict(dict)
    with gzip.open(ORACLE, "rt", encoding="utf-8") as fh:
        for text in fh:
            obj = json.loads(text)
            if obj.get("type") == "decision":
                out[obj["episode"]][f"{obj['episode']}/{obj['decision']}/{obj['step']}"] = obj["raw_output"]
    return out


def _cli(*args: str) -> None:
    done = subprocess.run([CLI, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"memriskbench {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()[-500:]}")


def _write(path: Path, answers: dict[str, str]) -> None:
    path.write_text("".join(json.dumps({"key": k, "reply": r}) + "\n" for k, r in answers.items()), encoding="utf-8")


def _score(trace: Path, episodes: dict[str, Any]) -> dict[str, Any]:
    """Each decision's checks, as `score --decisions` writes them, scored in this process."""
    from memriskbench.results.tracecheck import load_trace
    from memriskbench.results.verdicts import decision_lines

    loaded = load_trace(trace, episodes)
    if loaded.problems or loaded.run is None:
        raise SystemExit(f"{trace}: {'; '.join(loaded.problems) or 'no run'}")
    return {f"{d['episode']}/{d['decision']}/0": d["checks"] for d in decision_lines(loaded.run)}


def play_round(
    entries: list[dict[str, Any]], oracle: dict[str, dict[str, str]], work: Path, n: int, episodes: dict[str, Any]
) -> dict[str, Any]:
    """Play one round (at most one entry per episode): each entry's id -> its decision's checks.
    A round whose trace is in `work` from an earlier call with the same replies is not played
    again (the runner never scores, so new rules need only a new score)."""
    answers: dict[str, str] = {}
    for e in entries:
        episode = e["key"].split("/", 1)[0]
        answers.update(oracle.get(episode, {}))
    for e in entries:
        answers[e["key"]] = e["reply"]
    trace = work / f"r{n}.jsonl"
    played = work / f"r{n}.played.json"
    if (
        trace.exists()
        and played.exists()
        and json.loads(played.read_text(encoding="utf-8")) == sorted(entries, key=lambda e: e["id"])
    ):
        verdicts = _score(trace, episodes)
        return {e["id"]: verdicts.get(e["key"]) for e in entries}
    trace.unlink(missing_ok=True)
    subset = work / f"r{n}.subset"
    subset.write_text("".join(e["key"].split("/", 1)[0] + "\n" for e in entries), encoding="utf-8")
    pending = work / f"r{n}.pending.jsonl"
    ans = work / f"r{n}.answers.jsonl"
    for _ in range(6):  # each pass answers the steps the last one left open
        _write(ans, answers)
        _cli("run", "--agent", "replay", "--answers", str(ans), "--subset", str(subset), "--out", str(trace))
        if not pending.exists():
            break
        for text in pending.read_text(encoding="utf-8").splitlines():
            if text.strip():
                answers.setdefault(json.loads(text)["key"], FILLER)
    played.write_text(json.dumps(sorted(entries, key=lambda e: e["id"])), encoding="utf-8")
    verdicts = _score(trace, episodes)
    return {e["id"]: verdicts.get(e["key"]) for e in entries}


def play(entries: list[dict[str, Any]], keep: Path | None = None) -> dict[str, Any]:
    """Every entry's checks (None where its decision was never reached). `keep`: a folder for the
    rounds' traces, reused by a later call."""
    from memriskbench.cli.episodes import load_episodes

    episodes = {e.id: e for e in load_episodes([str(ROOT / "episodes")])}
    oracle = oracle_answers()
    by_episode: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        by_episode[e["key"].split("/", 1)[0]].append(e)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for n in range(max((len(v) for v in by_episode.values()), default=0)):
            chosen = [v[n] for v in by_episode.values() if n < len(v)]
            out.update(play_round(chosen, oracle, work, n, episodes))
    return out


def passed(checks: list[dict[str, Any]] | None) -> bool | None:
    if checks is None:
        return None
    return all(c["normalized"] for c in checks if c["applicable"])


def summarize(entries: list[dict[str, Any]], checks: dict[str, Any]) -> dict[str, Any]:
    rows: dict[str, dict[str, Any]] = {}
    misses = []
    for e in entries:
        ok = passed(checks.get(e["id"]))
        careful = e["class"] in CAREFUL
        row = rows.setdefault(e["class"], {"class": e["class"], "careful": careful, "n": 0, "good": 0, "unreached": 0})
        if ok is None:
            row["unreached"] += 1
            continue
        row["n"] += 1
        good = ok if careful else not ok
        row["good"] += good
        if not good:
            wrong = [c for c in checks[e["id"]] if c["applicable"] and (c["normalized"] != careful)]
            misses.append({"id": e["id"], "class": e["class"], "key": e["key"], "checks": wrong, "reply": e["reply"]})
    for row in rows.values():
        row["rate"] = row["good"] / row["n"] if row["n"] else None
    careful_n = sum(r["n"] for r in rows.values() if r["careful"])
    careful_good = sum(r["good"] for r in rows.values() if r["careful"])
    return {
        "classes": [rows[c] for c in (*CAREFUL, *FLAWED) if c in rows],
        "careful_rate": careful_good / careful_n if careful_n else None,
        "misses": misses,
    }


def goals_met(summary: dict[str, Any]) -> list[str]:
    """The classes below their goal (empty when every goal is met)."""
    low = []
    for r in summary["classes"]:
        if r["rate"] is None or r["class"] in EXEMPT:
            continue
        goal = GOAL_CAREFUL if r["careful"] else GOAL_FLAWED
        if r["rate"] < goal:
            low.append(f"{r['class']} {r['rate']:.2f} < {goal}")
    return low


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("dev", "test"), required=True)
    ap.add_argument("--json", help="write the summary (misses included) here")
    ap.add_argument("--misses", action="store_true", help="print each miss")
    ap.add_argument("--keep", help="keep the played traces in this folder and reuse them (only scoring runs again)")
    ap.add_argument("--batches", help="only the replies of these writing batches (comma-separated: b10,b11,b12)")
    args = ap.parse_args()
    entries = load(args.split)
    if args.batches:
        wanted = tuple(f"{b.strip()}-" for b in args.batches.split(","))
        entries = [e for e in entries if e["id"].startswith(wanted)]
    summary = summarize(entries, play(entries, Path(args.keep) if args.keep else None))
    print(f"{args.split}: {len(entries)} replies")
    print(f"{'class':22} {'kind':8} {'n':>5} {'rate':>6}  (careful: pass rate; flawed: caught rate)")
    for r in summary["classes"]:
        rate = "-" if r["rate"] is None else f"{r['rate']:.2f}"
        extra = f"  ({r['unreached']} unreached)" if r["unreached"] else ""
        print(f"{r['class']:22} {'careful' if r['careful'] else 'flawed':8} {r['n']:>5} {rate:>6}{extra}")
    if summary["careful_rate"] is not None:
        print(f"careful, all classes: {summary['careful_rate']:.3f}")
    low = goals_met(summary)
    print("goals: met" if not low else "goals missed: " + "; ".join(low))
    if args.misses:
        for m in summary["misses"]:
            checks = ", ".join(f"{c['id']} {c['type']}: {c['evidence']}" for c in m["checks"])
            print(f"MISS {m['id']} {m['class']} {m['key']}: {checks}\n    {m['reply'][:300]}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
