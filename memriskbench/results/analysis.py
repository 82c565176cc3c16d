"""Everything a reviewer asks for, per system, with 95 % bootstrap CIs: the `results.json` model.

Units: pass rates resample episodes; GateMem metrics resample episodes and recompute each
rate from the decisions inside them (so MGS gets a CI too); operation accuracy resamples
memory operations. Fisher exact tests compare systems per risk, Holm-adjusted across the family.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from memriskbench import __version__
from memriskbench.judge.scoring import VARIANTS, EpisodeResult
from memriskbench.results.figures import (
    MODES,
    RATES,
    TALLY,
    SystemRun,
    check_type_failures,
    decision_tallies,
    is_reference,
    mgs,
)
from memriskbench.results.stats import (
    RESAMPLES,
    SEED,
    Estimate,
    bootstrap_mean,
    bootstrap_ratio,
    fisher_pairs,
    pass_hat_k,
    percentiles,
    resample_indices,
)
from memriskbench.risks import IMPORTED_RISK, RISKS, SCORED_RISKS


def _tallies(results: Sequence[EpisodeResult], variant: str, mode: str, attack_type: str | None) -> np.ndarray:
    return np.asarray(decision_tallies(results, variant, mode, attack_type), dtype=float).reshape(
        len(results), len(TALLY)
    )


def gatemem_with_ci(
    results: Sequence[EpisodeResult], variant: str, mode: str = "gated", attack_type: str | None = None
) -> dict[str, Estimate]:
    m = _tallies(results, variant, mode, attack_type)
    col = {k: m[:, i] for i, k in enumerate(TALLY)}
    out = {k: bootstrap_ratio(col[n], col[d]) for k, (n, d) in RATES.items()}
    u, a, f = out["U"].value, out["A"].value, out["F"].value
    if u is None or len(results) == 0:
        out["MGS"] = Estimate(None, None, None, len(results))
        return out
    idx = resample_indices(len(results))
    sums = m[idx].sum(axis=1)  # (resamples, columns)

    def rate(key: str) -> np.ndarray:
        n, d = (sums[:, TALLY.index(c)] for c in RATES[key])
        return np.divide(n, d, out=np.zeros_like(n), where=d > 0)

    spread = mgs(rate("U"), rate("A"), rate("F"))
    # A resample that drew none of a category the full set has says nothing about it: drop it.
    present = [TALLY.index(RATES[k][1]) for k in ("U", "A", "F") if m[:, TALLY.index(RATES[k][1])].sum() > 0]
    spread = spread[(sums[:, present] > 0).all(axis=1)]
    lo, hi = percentiles(spread)
    out["MGS"] = Estimate(mgs(u, a or 0.0, f or 0.0), lo, hi, len(results))
    return out


def _gm_table(results: Sequence[EpisodeResult], mode: str, attack: str | None = None) -> dict[str, Any]:
    return {k: v.to_json() for k, v in gatemem_with_ci(results, "default", mode, attack).items()}


def imported_block(results: Sequence[EpisodeResult]) -> dict[str, Any] | None:
    """GateMem metrics on imported GateMem episodes, in both modes: overall, per domain and per
    attack type (access and forgetting probes only, so U is undefined there)."""
    imported = [r for r in results if r.risk == IMPORTED_RISK]
    if not imported:
        return None
    attacks = sorted({c.attack_type for r in imported for c in r.checks if c.attack_type})
    domains = sorted({r.domain for r in imported})
    block: dict[str, Any] = {
        "episodes": len(imported),
        "decisions": len({(c.episode, c.decision) for r in imported for c in r.checks}),
    }
    for mode in MODES:
        block[mode] = {
            "overall": _gm_table(imported, mode),
            "per_domain": {d: _gm_table([r for r in imported if r.domain == d], mode) for d in domains},
            "per_attack_type": {a: _gm_table(imported, mode, a) for a in attacks},
        }
    return block


def _by(results: Sequence[EpisodeResult], attr: str, variant: str, strict: bool = False) -> dict[str, Estimate]:
    keys = sorted({getattr(r, attr) for r in results})
    return {k: bootstrap_mean([r.success(variant, strict) for r in results if getattr(r, attr) == k]) for k in keys}


def system_block(run: SystemRun) -> dict[str, Any]:
    scored = [r for r in run.results if r.risk in SCORED_RISKS]
    block: dict[str, Any] = {
        "name": run.name,
        "trace": run.trace,
        "system": run.header.get("system"),
        "model": run.header.get("model"),
    }
    block["gatemem_imported"] = imported_block(run.results)
    block["terminations"] = dict(sorted(Counter(r.termination for r in run.results).items()))
    # How the failed scored episodes ended: a failure by parse or model error is the harness's
    # business as much as the model's, so the report gives its share.
    block["failed_by_termination"] = dict(
        sorted(Counter(r.termination for r in scored if not r.success("default")).items())
    )
    # What the system finally did at each scored decision (answer, refuse, tool_call, parse_error, ...):
    # the plainest account of how a model fails, next to which checks it fails.
    actions = Counter(a for r in scored for a in r.final_actions)
    block["final_actions"] = dict(sorted(actions.items(), key=lambda kv: (-kv[1], kv[0])))
    block["episodes_finished"], block["episodes_planned"] = run.finished, run.planned
    for variant in VARIANTS:
        block[variant] = {
            "pass_rate": bootstrap_mean([r.success(variant) for r in scored]).to_json(),
            "per_risk": {
                k: bootstrap_mean([r.success(variant) for r in run.results if r.risk == k]).to_json() for k in RISKS
            },
            "per_tier": {k: v.to_json() for k, v in _by(scored, "tier", variant).items()},
            "per_domain": {k: v.to_json() for k, v in _by(scored, "domain", variant).items()},
            "gatemem": {k: v.to_json() for k, v in gatemem_with_ci(scored, variant).items()},
            "checks": {
                "passed": sum(c.passed(variant, r.risk) for r in scored for c in r.scored),
                "total": sum(len(r.scored) for r in scored),
                "not_applicable": sum(len(r.checks) - len(r.scored) for r in scored),
            },
        }
    block["check_types"] = check_type_failures(scored)
    block["matching"] = {
        "normalized": bootstrap_mean([r.success("default") for r in scored]).to_json(),
        "strict": bootstrap_mean([r.success("default", strict=True) for r in scored]).to_json(),
        "episodes_differing": sorted(r.episode for r in run.results if r.strict_differs()),
    }
    ops = [o for r in run.results for o in r.operations]
    block["operations"] = None
    if ops:
        block["operations"] = {
            "strict": bootstrap_mean([o[0] for o in ops]).to_json(),
            "state_aware": bootstrap_mean([o[1] for o in ops]).to_json(),
        }
    return block


def analyze(runs: Sequence[SystemRun]) -> dict[str, Any]:
    """The whole `results.json`: per-system blocks, pairwise tests, and pass^k where repeated."""
    by_name: dict[str, list[SystemRun]] = {}
    for run in runs:
        by_name.setdefault(run.name, []).append(run)
    success = {
        name: {k: [r.success("default") for r in group[0].results if r.risk == k] for k in SCORED_RISKS}
        for name, group in by_name.items()
    }
    # Reference agents are fixtures whose outcomes are fixed by construction; when real systems
    # are present, testing against them only dilutes the Holm family.
    models = {name: v for name, v in success.items() if not is_reference(by_name[name][0].header.get("system"))}
    compared = models if len(models) >= 2 else success
    pass_k = {}
    for name, group in by_name.items():
        if len(group) < 2:
            continue
        common = sorted(set.intersection(*({r.episode for r in g.results} for g in group)))
        table = np.array(
            [[next(r for r in g.results if r.episode == e).success("default") for g in group] for e in common]
        )
        pass_k[name] = {"runs": len(group), "episodes": len(common), "pass^k": pass_hat_k(table) if len(common) else {}}
    return {
        "memriskbench_version": __version__,
        "bootstrap": {"resamples": RESAMPLES, "seed": SEED, "level": 0.95, "method": "percentile"},
        "systems": [system_block(r) for r in runs],
        "fisher": [
            {
                "risk": t.risk,
                "a": t.a,
                "b": t.b,
                "table": t.table,
                "odds_ratio": t.odds_ratio,
                "p": t.p,
                "p_holm": t.p_holm,
            }
            for t in fisher_pairs(compared)
        ]
        if len(compared) > 1
        else [],
        "fisher_family": "model systems" if compared is models else "all systems",
        "pass_k": pass_k,
    }
