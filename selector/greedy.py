"""Greedy forward selection of Ψ, coverage-constrained, ties broken deterministically.

Each step adds the episode that maximizes Ψ(S ∪ {e}). Ties (Ψ equal to 1e-12) go to the higher
feature priority (the sum of the enabled features' z-scores), then to the lower episode index.
With `represent` (`select --represent`), ties go first to the stratum (risk x tier) furthest below
its proportional share of the subset: among subsets equally good for the ranking, the one that
also represents the suite, which the full-suite estimate (`estimate.py`) reads far better.
Coverage is a hard constraint: once the steps left equal the risks still uncovered, only
episodes of uncovered risks are candidates, so every risk is covered whenever k allows it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .data import FEATURES, SelectionData
from .objective import DEFAULT_WEIGHTS, Reference, Weights, candidate_psi


def subset_size(n: int, fraction: float) -> int:
    return max(0, min(n, int(round(fraction * n))))


def priority(data: SelectionData, drop: Sequence[str] = ()) -> np.ndarray:
    f = data.features
    z = (f - f.mean(axis=0)) / np.where(f.std(axis=0) > 0, f.std(axis=0), 1.0)
    keep = [i for i, name in enumerate(FEATURES) if name not in drop]
    return z[:, keep].sum(axis=1) if keep else np.zeros(f.shape[0])


def strata(data: SelectionData, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each episode's stratum (risk x tier; the risk alone where tiers are not given) as an index,
    and each stratum's proportional share of a subset of k."""
    tiers = data.tiers or ["*"] * len(data.episodes)
    labels = [f"{r}/{t}" for r, t in zip(data.risks, tiers, strict=True)]
    index = {label: i for i, label in enumerate(sorted(set(labels)))}
    stratum = np.array([index[label] for label in labels], dtype=int)
    size = np.bincount(stratum, minlength=len(index)).astype(float)
    return stratum, k * size / max(len(labels), 1)


def greedy(
    data: SelectionData,
    fraction: float,
    weights: Weights = DEFAULT_WEIGHTS,
    drop: Sequence[str] = (),
    represent: bool = False,
) -> np.ndarray:
    """Indices of the selected episodes, in the order they were picked."""
    ref = Reference.of(data)
    n = len(data.episodes)
    k = subset_size(n, fraction)
    prio = priority(data, drop)
    stratum, share = strata(data, k)
    taken = np.zeros(len(share))
    sums = np.zeros(data.passed.shape[1])
    covered = np.zeros(ref.n_risks, dtype=bool)
    available = np.ones(n, dtype=bool)
    xf = data.passed.astype(np.float32)
    picked: list[int] = []
    for step in range(k):
        cand_mask = available.copy()
        uncovered = int((~covered).sum())
        if k - step <= uncovered:
            cand_mask &= ~covered[ref.risk_code]
        cand = np.flatnonzero(cand_mask)
        psi = np.round(candidate_psi(sums, covered, cand, data, ref, weights, xf), 12)
        # lower: its stratum needs it more (all equal, and no part of the order, unless `represent`)
        fill = np.round((taken[stratum[cand]] + 1) / share[stratum[cand]], 9) if represent else np.zeros(len(cand))
        order = np.lexsort((cand, -prio[cand], fill, -psi))
        best = int(cand[order[0]])
        picked.append(best)
        available[best] = False
        taken[stratum[best]] += 1
        sums += data.passed[best]
        covered[ref.risk_code[best]] = True
    return np.array(picked, dtype=int)
