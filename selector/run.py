"""One `memriskbench select` run: pick a subset by a named method, then audit it.

The command line loads traces and prints; this module chooses the episodes and gathers every
figure the command shows (Ψ of the subset, the method table, leave-one-system-out, ablation).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from memriskbench.errors import MemRiskError

from .baselines import DETERMINISTIC, STOCHASTIC
from .data import SelectionData
from .estimate import Plan, plan
from .evaluate import MethodResult, ablation, format_table, leave_one_system_out, loso_subsets, method_table
from .greedy import greedy, subset_size
from .objective import Reference, Score, Weights, score
from .validate import format_validation, validate
from .weights import digest

METHODS = ("greedy", *DETERMINISTIC, *STOCHASTIC)


@dataclass(frozen=True, slots=True)
class Selection:
    method: str
    fraction: float
    episodes: list[str]
    systems: list[str]
    total: int
    score: Score
    table: list[MethodResult]
    loso: list[dict[str, Any]]
    ablation: list[dict[str, Any]]
    plan: Plan  # the subset's strata and weights, for estimating the full suite from it
    estimation: dict[str, Any]  # leave-one-system-out errors of that estimate (validate.py)
    represent: bool = False  # ties in Ψ went to the stratum furthest below its share (greedy.py)

    def weights_file(self, subset_file: str) -> dict[str, Any]:
        """What `select --out FILE` writes to FILE.weights.json, for `score --subset FILE`: it
        names FILE (`subset_file`, its base name) and the sha256 of the bytes `subset_file()`
        gives, so that `score` can tell the weights of this subset from stale ones."""
        return {
            "subset_file": Path(subset_file).name,
            "subset_sha256": digest(self.subset_file().encode("utf-8")),
            "method": self.method,
            "fraction": self.fraction,
            "systems": self.systems,
            "suite_episodes": self.total,
            "represent": self.represent,
            **self.plan.to_json(),
            "validation": {k: self.estimation[k] for k in ("greedy", "random", "k", "random_draws")},
        }

    def subset_file(self) -> str:
        """The `--subset` file: comment lines saying how it was made, then one episode id a line."""
        s = self.score
        header = [
            f"# memriskbench subset: method {self.method}, fraction {self.fraction}, {len(self.episodes)} of {self.total} episodes",
            f"# systems: {', '.join(self.systems)}",
            f"# Psi {s.psi:.4f} = Spearman {s.spearman:.4f} + coverage {s.coverage:.4f} + detection {s.detection:.4f}",
        ]
        return "\n".join(header + self.episodes) + "\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "fraction": self.fraction,
            "episodes": self.episodes,
            "score": {
                m: getattr(self.score, m) for m in ("spearman", "coverage", "detection", "failure_coverage", "psi")
            },
            "table": [r.to_json() for r in self.table],
            "leave_one_system_out": self.loso,
            "ablation": self.ablation,
            "estimation": {**self.plan.to_json(), "validation": self.estimation},
        }

    def summary(self) -> str:
        s = self.score
        return (
            f"{self.method}: {len(self.episodes)} of {self.total} episodes over {len(self.systems)} systems; Psi {s.psi:.3f} "
            f"(Spearman {s.spearman:.3f}, risk coverage {s.coverage:.2f}, high-risk detection {s.detection:.2f})"
        )

    def details(self) -> str:
        """The method table, leave-one-system-out ranks and the feature ablation, as text."""
        return "\n".join(
            [
                format_table(self.table),
                "",
                "leave-one-system-out (rank 1 = best): "
                + ", ".join(f"{r['system']} {r['rank_full']:g}->{r['rank_subset']:g}" for r in self.loso),
                "feature ablation (Psi with the feature dropped from tie-breaking): "
                + ", ".join(f"{r['dropped'] or 'none'} {r['psi']:.3f}" for r in self.ablation),
                "",
                format_validation(self.estimation),
            ]
        )


def select(
    data: SelectionData,
    method: str,
    fraction: float,
    weights: Weights,
    seed: int,
    resamples: int,
    represent: bool = False,
) -> Selection:
    n = len(data.episodes)
    k = subset_size(n, fraction)
    if k == 0:  # every method, and Ψ, needs at least one episode
        least = f"; 1/{n} = {1 / n:.3g} or more selects one" if n else ""
        raise MemRiskError(f"--fraction {fraction:g} of {n} episode(s) selects no episode{least}")
    if method == "greedy":
        chosen = greedy(data, fraction, weights, represent=represent)
    elif method in DETERMINISTIC:
        chosen = DETERMINISTIC[method](data, k, seed)
    elif method in STOCHASTIC:
        chosen = STOCHASTIC[method](data, k, seed)
    else:
        raise MemRiskError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    chosen = np.asarray(chosen)
    loso = loso_subsets(data, fraction, weights, represent)
    episodes = sorted(data.episodes[i] for i in chosen)
    return Selection(
        method=method,
        fraction=fraction,
        episodes=episodes,
        systems=list(data.systems),
        total=len(data.episodes),
        score=score(data, Reference.of(data), chosen, weights),
        table=method_table(data, fraction, resamples, seed, weights, represent=represent),
        loso=leave_one_system_out(data, fraction, weights, loso),
        ablation=ablation(data, fraction, weights, represent),
        plan=plan(data.episodes, data.risks, data.tiers, episodes),
        estimation=validate(data, loso, fraction, seed),
        represent=represent,
    )


def report_summary(data: SelectionData, fraction: float = 0.2, resamples: int = 1000) -> dict[str, Any]:
    """The method table at `fraction` over these systems, as `memriskbench report` shows it; or,
    when the subset would be empty, why there is none."""
    if subset_size(len(data.episodes), fraction) == 0:
        return {"skipped": f"{fraction:.0%} of {len(data.episodes)} scored episode(s) selects no episode"}
    table = method_table(data, fraction, resamples)
    return {
        "fraction": fraction,
        "n": len(data.episodes),
        "k": subset_size(len(data.episodes), fraction),
        "systems": list(data.systems),
        "resamples": resamples,
        "table": [r.to_json() for r in table],
        "notes": list(data.notes),
    }
