"""Statistics over scored episodes: bootstrap CIs, Fisher exact tests with Holm, pass^k.

Everything is seeded and vectorized. The percentile bootstrap draws its resample indices exactly
as `scipy.stats.bootstrap` does for one sample (one `integers(0, n, (B, n))` call on a
`numpy.random.Generator`), so the two agree given the same seed (tested).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
from typing import Any

import numpy as np
from scipy.stats import fisher_exact

SEED = 0
RESAMPLES = 1000
LEVEL = 0.95


@dataclass(frozen=True, slots=True)
class Estimate:
    value: float | None
    lo: float | None
    hi: float | None
    n: int

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "ci95": [self.lo, self.hi] if self.lo is not None else None, "n": self.n}


def resample_indices(n: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, (resamples, n))


def percentiles(stats: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    alpha = (1 - level) / 2
    lo, hi = np.percentile(stats, [100 * alpha, 100 * (1 - alpha)])
    return float(lo), float(hi)


def bootstrap_mean(values: Sequence[float] | np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> Estimate:
    """Mean with a 95 % percentile bootstrap CI over the given units (episodes, decisions)."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return Estimate(None, None, None, 0)
    means = x[resample_indices(x.size, resamples, seed)].mean(axis=1)
    lo, hi = percentiles(means)
    return Estimate(float(x.mean()), lo, hi, int(x.size))


def bootstrap_ratio(num: np.ndarray, den: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> Estimate:
    """sum(num)/sum(den) with units resampled together: a rate whose units have unequal weight."""
    num, den = np.asarray(num, float), np.asarray(den, float)
    if den.sum() == 0:
        return Estimate(None, None, None, int(num.size))
    idx = resample_indices(num.size, resamples, seed)
    d = den[idx].sum(axis=1)
    ratios = np.divide(num[idx].sum(axis=1), d, out=np.full(resamples, np.nan), where=d > 0)
    ratios = ratios[~np.isnan(ratios)]
    lo, hi = percentiles(ratios)
    return Estimate(float(num.sum() / den.sum()), lo, hi, int(num.size))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-Bonferroni step-down adjusted p-values (monotone, capped at 1), in input order."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return [float(v) for v in adjusted]


@dataclass(frozen=True, slots=True)
class PairTest:
    risk: str
    a: str
    b: str
    table: tuple[tuple[int, int], tuple[int, int]]  # (pass, fail) of a, then of b
    odds_ratio: float | None
    p: float
    p_holm: float = float("nan")


def fisher_pairs(success: dict[str, dict[str, list[bool]]]) -> list[PairTest]:
    """Two-sided Fisher exact test per risk for every pair of systems, Holm-adjusted together.

    `success[system][risk]` lists the episode outcomes. The family is every (risk, pair) test.
    """
    tests: list[PairTest] = []
    systems = sorted(success)
    risks = sorted({r for s in success.values() for r in s})
    for risk in risks:
        for a, b in itertools.combinations(systems, 2):
            xa, xb = success[a].get(risk, []), success[b].get(risk, [])
            if not xa or not xb:
                continue
            table = ((sum(xa), len(xa) - sum(xa)), (sum(xb), len(xb) - sum(xb)))
            res = fisher_exact(table, alternative="two-sided")
            odds = float(res.statistic) if np.isfinite(res.statistic) else None
            tests.append(PairTest(risk, a, b, table, odds, float(res.pvalue)))
    adjusted = holm([t.p for t in tests])
    return [PairTest(t.risk, t.a, t.b, t.table, t.odds_ratio, t.p, q) for t, q in zip(tests, adjusted, strict=True)]


def pass_hat_k(successes: np.ndarray) -> dict[int, float]:
    """pass^k as in tau-bench: for episodes each run n times with c successes, the mean over
    episodes of C(c, k) / C(n, k): the chance that k runs drawn without replacement all pass."""
    runs = np.asarray(successes, dtype=bool)  # shape (episodes, n runs)
    n = runs.shape[1]
    c = runs.sum(axis=1)
    return {k: float(np.mean([comb(int(ci), k) / comb(n, k) for ci in c])) for k in range(1, n + 1)}
