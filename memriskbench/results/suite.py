"""The suite self-check: run every reference agent, then prove the oracle passes every check and
every check is failed by some agent (liveness). AgentDojo's suite check, for memory risks.

The `confused` and `subtle` agents are held to more: every R1 and R2 decision `confused` plays
with a confused reply (its trace marks them, `context.confusion`), and every R3, R4 and R5
decision `subtle` plays with a slip (`context.slip`), must fail, so a check that reads words
instead of claims, or waits for a whole value, shows up here."""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memriskbench.episodes.episode import Episode
from memriskbench.judge.checks.ambient import AMBIENT_TYPES
from memriskbench.judge.scoring import EpisodeResult, score_trace
from memriskbench.play.runner import run
from memriskbench.play.systems.reference import AGENTS, ORACLES, ReferenceAgent
from memriskbench.results.figures import summarize
from memriskbench.risks import REGISTRY, RISKS
from memriskbench.traces.records import Decision
from memriskbench.traces.trace import read_trace


@dataclass
class SuiteReport:
    oracle_pass_rates: dict[str, float]  # per oracle (template and natural), every check incl. ambient
    liveness: float  # share of authored checks failed by some flawed agent
    dead_checks: list[str]
    agents: dict[str, dict[str, Any]]
    oracle_failures: list[str]
    ambient_fired: dict[str, dict[str, int]]  # per flawed agent: ambient checks it failed, by type
    flawed: dict[str, dict[str, Any]]  # per risk: the agent built to fail it, and its pass rate there
    confused: dict[str, Any]  # per risk: decisions played with a confused reply, how many failed, which passed
    subtle: dict[str, Any]  # per risk: decisions played with a slip, how many failed, which passed

    @property
    def unfailed_risks(self) -> list[str]:
        """Risks whose flawed agent passes them anyway: the risk's checks cannot see its flaw."""
        return [risk for risk, f in self.flawed.items() if f["pass_rate"] is not None and f["pass_rate"] >= 1.0]

    @property
    def oracle_pass_rate(self) -> float:
        return min(self.oracle_pass_rates.values())

    @property
    def ok(self) -> bool:
        return (
            self.oracle_pass_rate == 1.0
            and self.liveness == 1.0
            and not self.unfailed_risks
            and not any(self.confused[r]["passed"] for r in CONFUSED_RISKS if r in self.confused)
            and not any(self.subtle[r]["passed"] for r in SUBTLE_RISKS if r in self.subtle)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "oracle_pass_rate": self.oracle_pass_rate,
            "oracle_pass_rates": self.oracle_pass_rates,
            "liveness": self.liveness,
            "dead_checks": self.dead_checks,
            "oracle_failures": self.oracle_failures,
            "agents": self.agents,
            "ambient_fired": self.ambient_fired,
            "flawed": self.flawed,
            "confused": self.confused,
            "subtle": self.subtle,
        }


CONFUSED_RISKS = ("R1", "R2")
SUBTLE_RISKS = ("R3", "R4", "R5")


def run_reference(episodes: Sequence[Episode], workdir: Path) -> dict[str, list[EpisodeResult]]:
    by_id = {e.id: e for e in episodes}
    results: dict[str, list[EpisodeResult]] = {}
    for name in AGENTS:
        path = workdir / f"{name}.jsonl"
        agent = ReferenceAgent(name)
        run(agent, episodes, path)
        agent.close()
        results[name] = score_trace(read_trace(path), by_id)
    return results


def marked_played(path: Path, mark: str = "confusion") -> set[tuple[str, str]]:
    """(episode, decision) of every decision the trace marks with `mark` in its context: a
    confused reply (`confusion`), a slip (`slip`)."""
    out = set()
    for records in read_trace(path).episodes().values():
        for r in records:
            if isinstance(r, Decision) and r.context.get(mark):
                out.add((r.episode, r.decision))
    return out


def marked_report(results: list[EpisodeResult], played: set[tuple[str, str]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in results:
        row = out.setdefault(r.risk, {"played": 0, "failed": 0, "passed": []})
        for d in sorted({c.decision for c in r.checks}):
            if (r.episode, d) not in played:
                continue
            row["played"] += 1
            if any(not c.normalized for c in r.checks if c.decision == d and c.applicable):
                row["failed"] += 1
            else:
                row["passed"].append(f"{r.episode}/{d}")
    return dict(sorted(out.items()))


def check_suite(episodes: Sequence[Episode]) -> SuiteReport:
    with tempfile.TemporaryDirectory(prefix="memriskbench-suite-") as tmp:
        results = run_reference(episodes, Path(tmp))
        played = marked_played(Path(tmp) / "confused.jsonl", "confusion")
        slipped = marked_played(Path(tmp) / "subtle.jsonl", "slip")
    oracle = results["oracle"]
    # Liveness is a property of authored checks; ambient ones exist only where there is something to check.
    all_checks = [(c.episode, c.check) for r in oracle for c in r.checks if c.type not in AMBIENT_TYPES]
    rates: dict[str, float] = {}
    oracle_failed: list[str] = []
    for name in ORACLES:
        checks = [c for r in results[name] for c in r.checks]
        failed = [f"{name}: {c.episode}/{c.check}: {c.evidence}" for c in checks if not c.normalized]
        rates[name] = (len(checks) - len(failed)) / len(checks) if checks else 0.0
        oracle_failed += failed
    failed_by_someone: set[tuple[str, str]] = set()
    fired: dict[str, dict[str, int]] = {}
    for name, res in results.items():
        if name in ORACLES:
            continue
        failed_by_someone.update((c.episode, c.check) for r in res for c in r.checks if not c.normalized)
        fired[name] = dict(
            sorted(
                Counter(c.type for r in res for c in r.checks if c.type in AMBIENT_TYPES and not c.normalized).items()
            )
        )
    dead = [f"{e}/{c}" for e, c in all_checks if (e, c) not in failed_by_someone]
    total = len(all_checks)
    agents = {}
    for name, res in results.items():
        s = summarize(res, "default")
        agents[name] = {
            "pass_rate": s["pass_rate"],
            "per_risk": {k: s["per_risk"][k] for k in RISKS},
            "gatemem": s["gatemem"],
        }
    return SuiteReport(
        oracle_pass_rates=rates,
        liveness=(total - len(dead)) / total if total else 0.0,
        dead_checks=dead,
        agents=agents,
        oracle_failures=oracle_failed,
        ambient_fired=fired,
        confused=marked_report(results["confused"], played),
        subtle=marked_report(results["subtle"], slipped),
        flawed={
            r.id: {"agent": r.flawed_agent, "pass_rate": agents[r.flawed_agent]["per_risk"][r.id]}
            for r in REGISTRY
            if r.flawed_agent in agents
        },
    )
