"""From scored traces to the selector's inputs: a pass/fail matrix and 12 features per episode."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from memriskbench.episodes.episode import Episode
from memriskbench.errors import MemRiskError
from memriskbench.results.figures import SystemRun
from memriskbench.risks import SCORED_RISKS

TIER_LEVEL = {"easy": 0.0, "medium": 1.0, "hard": 2.0}

# Each feature, and what it measures.
FEATURES = {
    "tier": "difficulty: easy 0, medium 1, hard 2",
    "trajectory": "difficulty: the episode's length, in events of every kind (turns, decisions, memory, policy, tool returns)",
    "discrimination": "cross-system std of pass/fail, averaged over leave-one-system-out subsets",
    "failure_density": "share of systems that fail the episode",
    "partial_credit": "mean share of checks passed, across systems",
    "risks_touched": "distinct decision categories in the episode (a proxy for risks touched)",
    "tool_calls": "mean tool calls per system in the episode's traces",
    "constraints": "constraint events (declared or lifted)",
    "decisions": "decision points",
    "checks": "checks over all decisions",
    "memory_ops": "hidden memory operations (writes, updates, deletions, revocations)",
    "policy_changes": "consent grants and withdrawals",
}


@dataclass
class SelectionData:
    episodes: list[str]  # ids, sorted; rows
    systems: list[str]  # columns
    risks: list[str]  # the risk of each row
    passed: np.ndarray  # (episodes, systems) bool: episode fully passed
    features: np.ndarray  # (episodes, 12)
    notes: list[str] = field(default_factory=list)  # what the data had to leave out or combine, said plainly
    tiers: list[str] = field(default_factory=list)  # the tier of each row: strata of the full-suite estimate


def loso_discrimination(passed: np.ndarray) -> np.ndarray:
    """Per episode, the std of pass/fail across systems, averaged over the subsets that leave one
    system out: no single system's result decides how discriminative an episode looks."""
    p = passed.astype(float)
    n = p.shape[1]
    if n < 3:
        return p.std(axis=1)
    total, sq = p.sum(axis=1, keepdims=True), (p**2).sum(axis=1, keepdims=True)
    mean_wo = (total - p) / (n - 1)
    var_wo = (sq - p**2) / (n - 1) - mean_wo**2
    return np.sqrt(np.clip(var_wo, 0, None)).mean(axis=1)


def build(runs: Sequence[SystemRun], episodes: dict[str, Episode]) -> SelectionData:
    """Rows: scored episodes every trace finished. Columns: systems. Several traces of one system
    (repeated runs) make one column, in which an episode passes only if it passed in every run.
    Reads the scored results only, never the trace files again."""
    groups: dict[str, list[SystemRun]] = {}
    for run in runs:
        groups.setdefault(run.name, []).append(run)
    names = list(groups)
    sets = [{r.episode for r in run.results if r.risk in SCORED_RISKS} for run in runs]
    common = sorted(set.intersection(*sets)) if sets else []
    if not common:
        raise MemRiskError("the traces share no scored episode that every one of them finished: nothing to select from")
    notes = []
    union = set.union(*sets)
    if len(common) < len(union):
        notes.append(
            f"selecting from the {len(common)} scored episodes that every trace finished ({len(union)} are scored in at least one)"
        )
    for name, group in groups.items():
        if len(group) > 1:
            notes.append(f"{name}: {len(group)} traces; an episode counts as passed when it passed in every one")
    res = {name: [{r.episode: r for r in run.results} for run in group] for name, group in groups.items()}
    passed = np.array([[all(g[e].success() for g in res[n]) for n in names] for e in common], dtype=bool).reshape(
        len(common), len(names)
    )
    partial = np.array([[float(np.mean([g[e].score() for g in res[n]])) for n in names] for e in common]).reshape(
        len(common), len(names)
    )
    calls = {e: float(np.mean([np.mean([g[e].tool_calls for g in res[n]]) for n in names])) for e in common}
    rows = []
    for i, eid in enumerate(common):
        ep = episodes[eid]
        rows.append(
            [
                TIER_LEVEL[ep.tier],
                float(len(ep.events)),
                0.0,  # discrimination, filled below
                1.0 - passed[i].mean(),
                partial[i].mean(),
                float(len({d.category for d in ep.decisions})),
                calls[eid],
                float(sum(1 for ev in ep.events if ev.kind == "constraint")),
                float(len(ep.decisions)),
                float(sum(len(d.checks) for d in ep.decisions)),
                float(sum(len(ev.memory) for ev in ep.events)),
                float(sum(len(ev.policy) for ev in ep.events)),
            ]
        )
    features = np.array(rows, dtype=float).reshape(len(common), len(FEATURES))
    features[:, 2] = loso_discrimination(passed)
    return SelectionData(
        common, names, [episodes[e].risk for e in common], passed, features, notes, [episodes[e].tier for e in common]
    )


def synthetic(n_episodes: int, n_systems: int, seed: int = 0) -> SelectionData:
    """A random but structured matrix for scale tests, shaped like a benchmark that needs
    selecting: systems of close abilities (normal, sd 0.3), episodes of widely spread difficulty
    (sd 2.5, so many are passed or failed by every system) and of varied discrimination
    (lognormal, half of them nearly pure noise), under a two-parameter logistic model; five risks.
    A random subset then misses the few episodes that tell the systems apart, and a selector has
    real work to do."""
    rng = np.random.default_rng(seed)
    skill = np.sort(rng.normal(0, 0.3, n_systems))
    difficulty = rng.normal(0, 2.5, n_episodes)
    discrimination = rng.lognormal(0.0, 0.6, n_episodes)
    discrimination[rng.random(n_episodes) < 0.5] *= 0.1
    prob = 1 / (1 + np.exp(-(skill[None, :] - difficulty[:, None]) * discrimination[:, None]))
    passed = rng.random((n_episodes, n_systems)) < prob
    risks = [SCORED_RISKS[i % len(SCORED_RISKS)] for i in range(n_episodes)]
    feats = rng.normal(0, 1, (n_episodes, len(FEATURES)))
    feats[:, 2] = loso_discrimination(passed)
    feats[:, 3] = 1 - passed.mean(axis=1)
    tiers = [("easy", "medium", "hard")[i % 3] for i in range(n_episodes)]
    return SelectionData(
        [f"e{i:05d}" for i in range(n_episodes)],
        [f"s{j:02d}" for j in range(n_systems)],
        risks,
        passed,
        feats,
        tiers=tiers,
    )
