"""Baseline subset selectors, each returning k episode indices.

Deterministic: difficulty (hardest first), disagreement (highest cross-system variance),
mid-range (pass rate nearest 0.5 first, so the 30–70 % band goes in before anything else).
Stochastic, seeded: random, risk-stratified random, k-medoids on the pass/fail matrix (Hamming
distance), and k-medoids on the z-scored trace features (Euclidean). Ties go to the lower index.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .data import SelectionData

Selector = Callable[[SelectionData, int, int], np.ndarray]  # (data, k, seed) -> indices


def random_subset(data: SelectionData, k: int, seed: int) -> np.ndarray:
    return np.sort(np.random.default_rng(seed).choice(len(data.episodes), size=k, replace=False))


def stratified(data: SelectionData, k: int, seed: int) -> np.ndarray:
    """Random within each risk, k split across risks by largest remainder (at least one each
    when k allows)."""
    rng = np.random.default_rng(seed)
    risks = np.array(data.risks)
    names = sorted(set(data.risks))
    sizes = np.array([(risks == r).sum() for r in names])
    quota = k * sizes / sizes.sum()
    take = np.floor(quota).astype(int)
    if k >= len(names):
        take = np.maximum(take, 1)
    order = np.lexsort((np.arange(len(names)), -(quota - np.floor(quota))))
    i = 0
    while take.sum() < k:
        j = order[i % len(names)]
        if take[j] < sizes[j]:
            take[j] += 1
        i += 1
    while take.sum() > k:
        j = int(np.argmax(take))
        take[j] -= 1
    out = [rng.choice(np.flatnonzero(risks == r), size=t, replace=False) for r, t in zip(names, take, strict=True)]
    return np.sort(np.concatenate(out)) if out else np.zeros(0, dtype=int)


def _top(score: np.ndarray, k: int) -> np.ndarray:
    return np.sort(np.lexsort((np.arange(score.size), -score))[:k])


def difficulty(data: SelectionData, k: int, seed: int = 0) -> np.ndarray:
    f = data.features
    key = f[:, 3] * 1e6 + f[:, 0] * 1e3 + f[:, 1]  # failure density, then tier, then length
    return _top(key, k)


def disagreement(data: SelectionData, k: int, seed: int = 0) -> np.ndarray:
    p = data.passed.mean(axis=1)
    return _top(p * (1 - p), k)


def mid_range(data: SelectionData, k: int, seed: int = 0) -> np.ndarray:
    p = data.passed.mean(axis=1)
    return _top(-np.abs(p - 0.5), k)


def _kmedoids(dist: np.ndarray, k: int, seed: int, iterations: int = 20) -> np.ndarray:
    """Alternating k-medoids (assign to the nearest medoid, move each medoid to its cluster's
    most central member) from a seeded random start."""
    n = dist.shape[0]
    if k >= n:
        return np.arange(n)
    if k <= 0:  # no medoid to assign anything to
        return np.zeros(0, dtype=int)
    medoids = np.sort(np.random.default_rng(seed).choice(n, size=k, replace=False))
    for _ in range(iterations):
        label = np.argmin(dist[:, medoids], axis=1)
        new = medoids.copy()
        for c in range(k):
            members = np.flatnonzero(label == c)
            if members.size:
                new[c] = members[np.argmin(dist[np.ix_(members, members)].sum(axis=1))]
        new = np.unique(new)
        if new.size < k:  # two medoids merged: refill with the farthest points, deterministically
            far = np.argsort(-dist[:, new].min(axis=1), kind="stable")
            new = np.unique(np.concatenate([new, [i for i in far if i not in set(new)][: k - new.size]]))
        if np.array_equal(new, medoids):
            break
        medoids = new
    return np.sort(medoids)


def kmedoids_passfail(data: SelectionData, k: int, seed: int) -> np.ndarray:
    p = data.passed.astype(np.float32)
    dist = p @ (1 - p).T + (1 - p) @ p.T  # Hamming distance between episodes' pass vectors
    return _kmedoids(dist, k, seed)


def kmedoids_features(data: SelectionData, k: int, seed: int) -> np.ndarray:
    f = data.features
    z = (f - f.mean(axis=0)) / np.where(f.std(axis=0) > 0, f.std(axis=0), 1.0)
    sq = (z**2).sum(axis=1)
    dist = np.sqrt(np.clip(sq[:, None] + sq[None, :] - 2 * z @ z.T, 0, None))
    return _kmedoids(dist, k, seed)


DETERMINISTIC: dict[str, Selector] = {"difficulty": difficulty, "disagreement": disagreement, "mid-range": mid_range}
STOCHASTIC: dict[str, Selector] = {
    "random": random_subset,
    "risk-stratified": stratified,
    "k-medoids": kmedoids_passfail,
    "feature-clusters": kmedoids_features,
}
