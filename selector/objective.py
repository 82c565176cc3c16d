"""The objective Ψ(S) = α·Spearman + β·risk coverage + γ·high-risk detection, for one subset or,
vectorized, for every candidate episode that could be added to a subset.

- Spearman: between the systems' pass rates on S and on all episodes (average ranks for ties;
  a constant ranking on S counts 0).
- risk coverage: the share of scored risks with at least one episode in S.
- high-risk detection: the high-risk systems are the bottom two by pass rate on all episodes;
  detection is the share of them that are also the bottom two on S (ties broken by system order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.stats import rankdata

from .data import SelectionData


@dataclass(frozen=True, slots=True)
class Weights:
    alpha: float = 1.0
    beta: float = 1.0
    gamma: float = 1.0


DEFAULT_WEIGHTS = Weights()


@dataclass
class Reference:
    """What Ψ compares a subset with, computed once from all episodes."""

    full_rank: np.ndarray  # average ranks of the systems' full pass counts
    high_risk: np.ndarray  # bool per system: among the bottom two
    risk_code: np.ndarray  # int per episode
    n_risks: int
    fails_full: np.ndarray  # (risks, systems) bool: the system fails some episode of that risk

    @staticmethod
    def of(data: SelectionData) -> Reference:
        p = data.passed
        totals = p.sum(axis=0)
        codes = {r: i for i, r in enumerate(sorted(set(data.risks)))}
        risk_code = np.array([codes[r] for r in data.risks], dtype=int)
        fails = np.zeros((len(codes), p.shape[1]), dtype=bool)
        for i in codes.values():
            fails[i] = (~p[risk_code == i]).any(axis=0)
        return Reference(rankdata(totals), bottom_two(totals[None, :])[0], risk_code, len(codes), fails)


def bottom_two(values: np.ndarray) -> np.ndarray:
    """Rows of bool marking the two lowest values per row (ties: the earlier system)."""
    n = values.shape[1]
    out = np.zeros(values.shape, dtype=bool)
    if n <= 2:
        out[:] = True
        return out
    key = values.astype(float) * n + np.arange(n)  # unique per row, ordered by value then index
    idx = np.argpartition(key, 1, axis=1)[:, :2]
    np.put_along_axis(out, idx, True, axis=1)
    return out


def _row_corr(t: np.ndarray, r: np.ndarray) -> np.ndarray:
    tc = t - t.mean(axis=1, keepdims=True)
    rc = r - r.mean()
    denom = np.linalg.norm(tc, axis=1) * np.linalg.norm(rc)
    return np.divide(tc @ rc, denom, out=np.zeros(t.shape[0]), where=denom > 0)


def _rank_corr(t: np.ndarray, r: np.ndarray) -> np.ndarray:
    """`_row_corr` for rows of rank sums t_i = less_i + leq_i, whose mean is m in every row (each
    unordered pair adds 2 to the row's sum, each system 1 to its own leq): no per-row mean to
    take, and the squares come from one product. The rows hold whole numbers, so this is
    `_row_corr` to the last bit."""
    m = t.shape[1]
    tc = t.astype(np.float64)
    tc -= m
    rc = r - r.mean()
    denom = np.sqrt(np.einsum("ij,ij->i", tc, tc)) * np.linalg.norm(rc)
    return np.divide(tc @ rc, denom, out=np.zeros(t.shape[0]), where=denom > 0)


@dataclass(frozen=True, slots=True)
class Score:
    spearman: float
    coverage: float
    detection: float
    failure_coverage: float
    psi: float


def score(data: SelectionData, ref: Reference, subset: np.ndarray, w: Weights = DEFAULT_WEIGHTS) -> Score:
    """Ψ and its parts for one subset (indices into the episodes)."""
    idx = np.asarray(subset, dtype=int)
    p = data.passed[idx]
    sums = p.sum(axis=0).astype(float)
    rho = float(_row_corr(rankdata(sums)[None, :], ref.full_rank)[0]) if idx.size else 0.0
    covered = np.unique(ref.risk_code[idx]).size / ref.n_risks
    detection = float((bottom_two(sums[None, :])[0] & ref.high_risk).sum() / max(1, ref.high_risk.sum()))
    seen = np.zeros_like(ref.fails_full)
    for i in range(ref.n_risks):
        rows = p[ref.risk_code[idx] == i]
        if rows.size:
            seen[i] = (~rows).any(axis=0)
    fc = float((seen & ref.fails_full).sum() / max(1, ref.fails_full.sum()))
    return Score(rho, covered, detection, fc, w.alpha * rho + w.beta * covered + w.gamma * detection)


def candidate_psi(
    sums: np.ndarray,
    covered: np.ndarray,
    cand: np.ndarray,
    data: SelectionData,
    ref: Reference,
    w: Weights,
    xf: np.ndarray | None = None,
) -> np.ndarray:
    """Ψ(S ∪ {e}) for every candidate row e at once.

    With x ∈ {0, 1} the candidate's pass vector, system i's average rank on S ∪ {e} is
    (less_i + leq_i + 1) / 2, where less/leq count systems j with s_j + x_j < (≤) s_i + x_i.
    Whether that holds depends only on d_ij = s_j − s_i and (x_i, x_j): with the 0/1 tables
    f_ab[i, j] = [d_ij < a − b] + [d_ij ≤ a − b], the ranks of every candidate come from one
    matrix product, t = (R00 + x·(f01 − f00)ᵀ) + x ⊙ (R10 − R00 + x·(f11 − f10 − f01 + f00)ᵀ),
    where R_a0 are the row sums of f_a0. No sorting per candidate.
    `xf` is `data.passed` as float32, precomputed by a caller that scores many steps.
    """
    x = (xf if xf is not None else data.passed.astype(np.float32))[cand]
    d = (sums[None, :] - sums[:, None]).astype(np.float32)  # d[i, j] = s_j - s_i

    def table(delta: int) -> np.ndarray:  # f(d, δ) = [d < δ] + [d <= δ]
        return (d < delta).astype(np.float32) + (d <= delta).astype(np.float32)

    f00, f01, f10, f11 = table(0), table(-1), table(1), table(0)
    r00, r10 = f00.sum(axis=1), f10.sum(axis=1)
    # Only systems whose sums differ by at most 1 can change order when one episode is added:
    # the tables' differences are zero elsewhere, so after the first steps they are sparse.
    coupling = np.hstack([(f01 - f00).T, (f11 - f10 - f01 + f00).T])
    if np.count_nonzero(coupling) < 0.25 * coupling.size:
        g = np.asarray(sparse.csr_matrix(coupling.T) @ x.T).T
    else:
        g = x @ coupling
    m = x.shape[1]
    t = (r00 + g[:, :m]) + x * ((r10 - r00) + g[:, m:])
    rho = _rank_corr(t, ref.full_rank)
    detection = _detected(sums, x, ref) / max(1, ref.high_risk.sum())
    adds = ~covered[ref.risk_code[cand]]
    coverage = (covered.sum() + adds) / ref.n_risks
    return w.alpha * rho + w.beta * coverage + w.gamma * detection


def _detected(sums: np.ndarray, x: np.ndarray, ref: Reference) -> np.ndarray:
    """How many high-risk systems are among the bottom two of s + x, for each row x: system h is
    if fewer than two systems come before it (lower value, or equal value and earlier index).
    A system more than 1 below h always comes before it, one more than 1 above never does: only
    the columns of the systems within 1 of h are read."""
    n = x.shape[1]
    if n <= 2:
        return np.full(x.shape[0], float(ref.high_risk.sum()))
    out = np.zeros(x.shape[0])
    for h in np.flatnonzero(ref.high_risk):
        gap = sums - sums[h]
        always = int((gap < -1).sum())
        near = np.flatnonzero((np.abs(gap) <= 1) & (np.arange(n) != h))
        v = gap[near][None, :] + x[:, near]
        vh = x[:, h : h + 1]
        before = always + (v < vh).sum(axis=1) + ((v == vh) & (near < h)[None, :]).sum(axis=1)
        out += before < 2
    return out
