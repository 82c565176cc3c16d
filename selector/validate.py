"""Is the estimate of the full suite from a subset right? Leave one system out and see.

For each system: select the subset without it (as `select` would, had that system not been
given), estimate its full-suite pass rates from its verdicts on the subset, and compare with its
true rates on every episode. The same is done with random subsets of the same size and the same
estimator, so the selector's subset is read against the obvious alternative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .data import SelectionData
from .estimate import Estimate, estimate, plan
from .greedy import subset_size

RANDOM_DRAWS = 100  # random subsets per held-out system


def _truth(data: SelectionData, j: int) -> dict[str, float]:
    col = data.passed[:, j]
    out = {r: float(col[[x == r for x in data.risks]].mean()) for r in sorted(set(data.risks))}
    out["all"] = float(col.mean())
    return out


def _judge(est: dict[str, Estimate], truth: dict[str, float]) -> list[tuple[str, float, bool, float]]:
    """(risk, absolute error, covered, interval width) for every key estimated."""
    rows = []
    for key, e in est.items():
        if e.value is None or e.ci95 is None:
            continue
        lo, hi = e.ci95
        rows.append((key, abs(e.value - truth[key]), lo - 1e-9 <= truth[key] <= hi + 1e-9, hi - lo))
    return rows


def _summary(rows: list[tuple[str, float, bool, float]]) -> dict[str, Any]:
    overall = [r for r in rows if r[0] == "all"]
    risks = [r for r in rows if r[0] != "all"]
    return {
        "mae_overall": float(np.mean([r[1] for r in overall])) if overall else None,
        "max_error_overall": float(max(r[1] for r in overall)) if overall else None,
        "mae_per_risk": float(np.mean([r[1] for r in risks])) if risks else None,
        "coverage_per_risk": float(np.mean([r[2] for r in risks])) if risks else None,
        "coverage_overall": float(np.mean([r[2] for r in overall])) if overall else None,
        "width_overall": float(np.mean([r[3] for r in overall])) if overall else None,
        "width_per_risk": float(np.mean([r[3] for r in risks])) if risks else None,
    }


def validate(data: SelectionData, subsets: list[np.ndarray], fraction: float, seed: int = 0) -> dict[str, Any]:
    """Leave-one-system-out errors of the stratified estimate, for the subsets selected without
    each system (`subsets[j]`, as `evaluate.loso_subsets` gives them) and for random subsets of
    the same size; per system, and summarized."""
    n = len(data.episodes)
    k = subset_size(n, fraction)
    tiers = data.tiers
    rng = np.random.default_rng(seed)
    systems = []
    greedy_rows: list[tuple[str, float, bool, float]] = []
    random_rows: list[tuple[str, float, bool, float]] = []
    for j, name in enumerate(data.systems):
        chosen = [data.episodes[i] for i in subsets[j]]
        passed = {e: bool(data.passed[i, j]) for i, e in enumerate(data.episodes)}
        truth = _truth(data, j)
        est = estimate(plan(data.episodes, data.risks, tiers, chosen), passed)
        mine = _judge(est, truth)
        greedy_rows += mine
        drawn: list[tuple[str, float, bool, float]] = []
        for _ in range(RANDOM_DRAWS):
            pick = [data.episodes[i] for i in rng.choice(n, size=k, replace=False)]
            drawn += _judge(estimate(plan(data.episodes, data.risks, tiers, pick), passed), truth)
        random_rows += drawn
        systems.append(
            {
                "system": name,
                "true": truth,
                "estimate": {key: e.to_json() for key, e in est.items()},
                "error_overall": next(r[1] for r in mine if r[0] == "all"),
                "random_mean_error_overall": float(np.mean([r[1] for r in drawn if r[0] == "all"])),
            }
        )
    return {
        "fraction": fraction,
        "k": k,
        "random_draws": RANDOM_DRAWS,
        "seed": seed,
        "systems": systems,
        "greedy": _summary(greedy_rows),
        "random": _summary(random_rows),
    }


def format_validation(v: dict[str, Any]) -> str:
    """The validation as the selector's text report shows it."""
    lines = [
        f"full-suite estimate, leave one system out ({v['k']} episodes, stratified by risk x tier):",
        f"{'system':<44} {'true':>6} {'est.':>6} {'95% interval':>15} {'error':>6} {'random':>7}",
    ]
    for s in v["systems"]:
        e = s["estimate"]["all"]
        ci = "-" if e["ci95"] is None else f"[{e['ci95'][0]:.2f}, {e['ci95'][1]:.2f}]"
        lines.append(
            f"{s['system'][:44]:<44} {s['true']['all']:>6.3f} {e['value']:>6.3f} {ci:>15} "
            f"{s['error_overall']:>6.3f} {s['random_mean_error_overall']:>7.3f}"
        )
    for which in ("greedy", "random"):
        m = v[which]
        lines.append(
            f"{which:<7} overall: MAE {m['mae_overall']:.3f} (max {m['max_error_overall']:.3f}), mean 95% width "
            f"{m['width_overall']:.3f}, coverage {m['coverage_overall']:.2f}; per risk: MAE {m['mae_per_risk']:.3f}, "
            f"width {m['width_per_risk']:.3f}, coverage {m['coverage_per_risk']:.2f}"
        )
    return "\n".join(lines)
