"""The method table (the paper's shape), leave-one-system-out validation, and feature ablation.

Deterministic methods report point values. Stochastic baselines are run with 1000 seeds
(resamples of their randomness) and report the median with a 95 % percentile interval.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.stats import rankdata

from .baselines import DETERMINISTIC, STOCHASTIC
from .data import FEATURES, SelectionData, loso_discrimination
from .greedy import greedy, subset_size
from .objective import DEFAULT_WEIGHTS, Reference, Score, Weights, score

METRICS = ("spearman", "failure_coverage", "coverage", "detection", "psi")


@dataclass
class MethodResult:
    method: str
    stochastic: bool
    values: dict[str, tuple[float, float | None, float | None]]  # metric -> (point or median, lo, hi)

    def to_json(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "stochastic": self.stochastic,
            **{m: {"value": v[0], "ci95": None if v[1] is None else [v[1], v[2]]} for m, v in self.values.items()},
        }


def _point(s: Score) -> dict[str, tuple[float, float | None, float | None]]:
    return {m: (float(getattr(s, m)), None, None) for m in METRICS}


def method_table(
    data: SelectionData,
    fraction: float,
    resamples: int = 1000,
    seed: int = 0,
    weights: Weights = DEFAULT_WEIGHTS,
    methods: tuple[str, ...] | None = None,
    represent: bool = False,
) -> list[MethodResult]:
    ref = Reference.of(data)
    k = subset_size(len(data.episodes), fraction)
    wanted = methods or ("greedy", *DETERMINISTIC, *STOCHASTIC)
    rows = []
    if "greedy" in wanted:
        chosen = greedy(data, fraction, weights, represent=represent)
        rows.append(MethodResult("greedy", False, _point(score(data, ref, chosen, weights))))
    for name, fn in DETERMINISTIC.items():
        if name in wanted:
            rows.append(MethodResult(name, False, _point(score(data, ref, fn(data, k, seed), weights))))
    for name, fn in STOCHASTIC.items():
        if name not in wanted:
            continue
        scores = [score(data, ref, fn(data, k, seed + b), weights) for b in range(resamples)]
        vals: dict[str, tuple[float, float | None, float | None]] = {}
        for m in METRICS:
            arr = np.array([getattr(s, m) for s in scores])
            lo, hi = np.percentile(arr, [2.5, 97.5])
            vals[m] = (float(np.median(arr)), float(lo), float(hi))
        rows.append(MethodResult(name, True, vals))
    return rows


def _without(data: SelectionData, j: int) -> SelectionData:
    keep = [i for i in range(len(data.systems)) if i != j]
    passed = data.passed[:, keep]
    feats = data.features.copy()
    feats[:, 2] = loso_discrimination(passed)
    feats[:, 3] = 1 - passed.mean(axis=1)
    return replace(data, systems=[data.systems[i] for i in keep], passed=passed, features=feats)


def loso_subsets(
    data: SelectionData, fraction: float, weights: Weights = DEFAULT_WEIGHTS, represent: bool = False
) -> list[np.ndarray]:
    """The greedy subset selected without each system in turn."""
    return [greedy(_without(data, j), fraction, weights, represent=represent) for j in range(len(data.systems))]


def leave_one_system_out(
    data: SelectionData,
    fraction: float,
    weights: Weights = DEFAULT_WEIGHTS,
    subsets: list[np.ndarray] | None = None,
) -> list[dict[str, Any]]:
    """Select without system j (or take `subsets[j]`, selected so); then rank j among all systems
    on that subset and on everything (rank 1 = highest pass rate, ties averaged)."""
    out = []
    full = rankdata(-data.passed.mean(axis=0))
    subsets = subsets if subsets is not None else loso_subsets(data, fraction, weights)
    for j, name in enumerate(data.systems):
        subset = subsets[j]
        on_subset = rankdata(-data.passed[subset].mean(axis=0))
        out.append(
            {
                "system": name,
                "rank_full": float(full[j]),
                "rank_subset": float(on_subset[j]),
                "shift": float(on_subset[j] - full[j]),
            }
        )
    return out


def ablation(
    data: SelectionData, fraction: float, weights: Weights = DEFAULT_WEIGHTS, represent: bool = False
) -> list[dict[str, Any]]:
    """Ψ of the greedy subset with each feature dropped from its tie-breaking priority."""
    ref = Reference.of(data)
    rows: list[dict[str, Any]] = [
        {"dropped": None, "psi": score(data, ref, greedy(data, fraction, weights, represent=represent), weights).psi}
    ]
    for name in FEATURES:
        rows.append(
            {
                "dropped": name,
                "psi": score(data, ref, greedy(data, fraction, weights, [name], represent), weights).psi,
            }
        )
    return rows


def format_table(rows: list[MethodResult]) -> str:
    head = f"{'method':<18} {'Spearman':>20} {'failure cov.':>20} {'risk cov.':>20} {'high-risk det.':>20} {'Psi':>20}"
    lines = [head, "-" * len(head)]
    for r in rows:
        cells = []
        for m in METRICS:
            v, lo, hi = r.values[m]
            cells.append(f"{v:.3f}" if lo is None else f"{v:.3f} [{lo:.2f},{hi:.2f}]")
        lines.append(f"{r.method:<18} " + " ".join(f"{c:>20}" for c in cells))
    return "\n".join(lines)
