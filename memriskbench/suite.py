"""The suite self-check: run every reference agent, then prove the oracle passes every check and
every check is failed by some agent (liveness). AgentDojo's suite check, for memory risks."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .episode import RISKS, Episode
from .runner import run
from .scoring import EpisodeResult, score_trace, summarize
from .systems.reference import AGENTS, ReferenceAgent
from .trace import read_trace


@dataclass
class SuiteReport:
    oracle_pass_rate: float
    liveness: float
    dead_checks: list[str]
    agents: dict[str, dict[str, Any]]
    oracle_failures: list[str]

    @property
    def ok(self) -> bool:
        return self.oracle_pass_rate == 1.0 and self.liveness == 1.0

    def to_json(self) -> dict[str, Any]:
        return {
            "oracle_pass_rate": self.oracle_pass_rate,
            "liveness": self.liveness,
            "dead_checks": self.dead_checks,
            "oracle_failures": self.oracle_failures,
            "agents": self.agents,
        }


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


def check_suite(episodes: Sequence[Episode]) -> SuiteReport:
    with tempfile.TemporaryDirectory(prefix="memriskbench-suite-") as tmp:
        results = run_reference(episodes, Path(tmp))
    oracle = results["oracle"]
    all_checks = [(c.episode, c.check) for r in oracle for c in r.checks]
    oracle_failed = [f"{c.episode}/{c.check}: {c.evidence}" for r in oracle for c in r.checks if not c.normalized]
    failed_by_someone: set[tuple[str, str]] = set()
    for name, res in results.items():
        if name == "oracle":
            continue
        failed_by_someone.update((c.episode, c.check) for r in res for c in r.checks if not c.normalized)
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
        oracle_pass_rate=(total - len(oracle_failed)) / total if total else 0.0,
        liveness=(total - len(dead)) / total if total else 0.0,
        dead_checks=dead,
        agents=agents,
        oracle_failures=oracle_failed,
    )
