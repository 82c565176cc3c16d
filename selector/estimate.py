"""From a subset's results to the full suite's pass rates: a stratified estimator, with intervals.

The selector picks the episodes that separate systems, so a subset's plain pass rate is not the
suite's. Here every chosen episode stands for the episodes of its stratum (risk x tier) that were
left out: its weight is N_h / n_h (stratum size over chosen in it), and a risk's estimate is the
stratum means weighted by stratum size, as in survey sampling (tinyBenchmarks, Polo et al. 2024,
reports stratified estimates within about two points of the full score on its benchmarks).

The interval treats each stratum's chosen episodes as a sample of it, without replacement:
Var = sum_h W_h^2 (1 - n_h/N_h) s_h^2 / n_h, with W_h = N_h/N. A stratum whose chosen episodes
all agree would give s_h^2 = 0 and a zero-width interval from as few as one episode; s_h^2 is
taken from the stratum's rate smoothed by half a pass and half a failure (p~ = (x + 1/2) / (n + 1)),
so the interval says how little a handful of episodes shows. Strata of a risk in which nothing
was chosen are pooled into the risk (then the risk is one stratum).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ESTIMATOR = "stratified (risk x tier), weights N_h/n_h; normal 95 % interval with finite-population correction"
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Stratum:
    risk: str
    tier: str  # "*" once a risk's strata are pooled
    size: int  # episodes of the suite in it (N_h)
    chosen: tuple[str, ...]  # episodes of the subset in it

    @property
    def weight(self) -> float:
        return self.size / len(self.chosen)


@dataclass(frozen=True, slots=True)
class Plan:
    """What `select` writes beside a subset: its strata and each chosen episode's weight."""

    strata: tuple[Stratum, ...]

    def weights(self) -> dict[str, float]:
        return {e: s.weight for s in self.strata for e in s.chosen}

    def to_json(self) -> dict[str, Any]:
        return {
            "estimator": ESTIMATOR,
            "strata": [
                {"risk": s.risk, "tier": s.tier, "size": s.size, "chosen": list(s.chosen), "weight": s.weight}
                for s in self.strata
            ],
            "weights": dict(sorted(self.weights().items())),
        }

    @staticmethod
    def from_json(obj: Mapping[str, Any]) -> Plan:
        return Plan(
            tuple(
                Stratum(str(s["risk"]), str(s["tier"]), int(s["size"]), tuple(str(e) for e in s["chosen"]))
                for s in obj["strata"]
            )
        )


def plan(episodes: Sequence[str], risks: Sequence[str], tiers: Sequence[str], chosen: Sequence[str]) -> Plan:
    """Strata of the suite (`episodes`, with their risks and tiers) and the chosen episodes in them."""
    picked = set(chosen)
    tiers = tiers or ["*"] * len(episodes)  # no tiers given: the risks are the strata
    cells: dict[tuple[str, str], list[str]] = {}
    for e, r, t in zip(episodes, risks, tiers, strict=True):
        cells.setdefault((r, t), []).append(e)
    strata: list[Stratum] = []
    for risk in sorted({r for r, _ in cells}):
        mine = {t: es for (r, t), es in cells.items() if r == risk}
        if all(picked & set(es) for es in mine.values()):
            strata += [Stratum(risk, t, len(es), tuple(e for e in es if e in picked)) for t, es in sorted(mine.items())]
            continue
        pooled = [e for es in mine.values() for e in es]
        if picked & set(pooled):  # a risk with nothing chosen cannot be estimated, and gets no stratum
            strata.append(Stratum(risk, "*", len(pooled), tuple(sorted(e for e in pooled if e in picked))))
    return Plan(tuple(strata))


@dataclass(frozen=True, slots=True)
class Estimate:
    subset_rate: float | None  # the plain pass rate on the chosen episodes
    value: float | None  # the estimated full-suite pass rate
    ci95: tuple[float, float] | None
    n: int  # chosen episodes the estimate reads
    size: int  # episodes it stands for

    def to_json(self) -> dict[str, Any]:
        return {
            "subset_rate": self.subset_rate,
            "value": self.value,
            "ci95": None if self.ci95 is None else list(self.ci95),
            "n": self.n,
            "size": self.size,
        }


def _estimate(strata: Sequence[Stratum], passed: Mapping[str, bool]) -> Estimate:
    cells = [(s, [passed[e] for e in s.chosen if e in passed]) for s in strata]
    cells = [(s, ys) for s, ys in cells if ys]
    total = sum(s.size for s, _ in cells)
    n = sum(len(ys) for _, ys in cells)
    if not n:
        return Estimate(None, None, None, 0, sum(s.size for s in strata))
    value = var = 0.0
    for s, ys in cells:
        w = s.size / total
        x, k = sum(ys), len(ys)
        smoothed = (x + 0.5) / (k + 1)
        value += w * x / k
        var += w * w * (1 - k / s.size) * smoothed * (1 - smoothed) / k
    half = Z95 * math.sqrt(var)
    plain = sum(sum(ys) for _, ys in cells) / n
    return Estimate(plain, value, (max(0.0, value - half), min(1.0, value + half)), n, total)


def estimate(p: Plan, passed: Mapping[str, bool]) -> dict[str, Estimate]:
    """Per risk and overall ("all"), from one system's verdicts on the chosen episodes it played."""
    out = {
        risk: _estimate([s for s in p.strata if s.risk == risk], passed) for risk in sorted({s.risk for s in p.strata})
    }
    out["all"] = _estimate(p.strata, passed)
    return out
