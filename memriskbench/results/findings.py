"""The opening section of a report: what the model systems' results show, in plain sentences
computed from `results.json` (never written by hand, so a re-release rewrites it).

It says which risks each model fails and through which check types, whether another memory strategy did
worse than full context for the same model, what share of the failed episodes ended in a parse or
model error, and how the best model compares with the scripted floor (refuse-all).
"""

from __future__ import annotations

from typing import Any

from memriskbench.results.figures import is_reference
from memriskbench.risks import SCORED_RISKS

HARNESS_ENDINGS = ("parse_error", "model_error")


def _est(e: dict[str, Any] | None) -> str:
    if not e or e.get("value") is None:
        return "–"
    ci = e.get("ci95")
    return f"{e['value']:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f"{e['value']:.2f}"


def _value(e: dict[str, Any] | None) -> float | None:
    return None if not e else e.get("value")


def _versus(a: dict[str, Any], b: dict[str, Any]) -> str:
    """How `a` compares with `b`, by their 95 % intervals."""
    (alo, ahi), (blo, bhi) = a.get("ci95") or (a["value"],) * 2, b.get("ci95") or (b["value"],) * 2
    if ahi < blo:
        return "worse"
    if alo > bhi:
        return "better"
    return "not distinguishable at this sample size (the 95 % intervals overlap)"


def _risk_line(s: dict[str, Any]) -> str:
    per = s["default"]["per_risk"]
    rates = ", ".join(f"{k} {_value(per.get(k)):.2f}" for k in SCORED_RISKS if _value(per.get(k)) is not None)
    fails = sorted(
        ((row["failed"], row["total"], row["risk"], row["type"]) for row in s.get("check_types", []) if row["failed"]),
        key=lambda t: (-t[0], t[2], t[3]),
    )
    how = ", ".join(f"{r} `{t}` {f} of {n}" for f, n, r, t in fails[:3])
    actions = s.get("final_actions") or {}
    did = ", ".join(f"`{a}` {n}" for a, n in actions.items())
    return (
        f"- **{s['name']}** passes {_est(s['default']['pass_rate'])} of episodes (per risk: {rates})"
        + (f"; most failed checks: {how}" if how else "")
        + (f"; its final action at the {sum(actions.values())} decisions: {did}" if did else "")
        + "."
    )


def _strategy_lines(models: list[dict[str, Any]]) -> list[str]:
    by_model: dict[str, dict[str, dict[str, Any]]] = {}
    for s in models:
        system = s.get("system") or {}
        strategy = system.get("strategy")
        if isinstance(strategy, str):
            by_model.setdefault(s["name"].rsplit(":", 1)[0], {})[strategy] = s
    out = []
    for base, strategies in by_model.items():
        full = strategies.get("full")
        if full is None:
            continue
        for other in sorted(set(strategies) - {"full"}):  # the strategies read from results, not from systems/
            alt = strategies[other]
            verdict = _versus(alt["default"]["pass_rate"], full["default"]["pass_rate"])
            out.append(
                f"- {base}: `{other}` {_est(alt['default']['pass_rate'])} against `full` "
                f"{_est(full['default']['pass_rate'])}: {verdict}."
            )
    return out


def _harness_share(models: list[dict[str, Any]]) -> list[str]:
    out = []
    for s in models:
        failed = s.get("failed_by_termination") or {}
        total = sum(failed.values())
        if not total:
            continue
        harness = sum(failed.get(t, 0) for t in HARNESS_ENDINGS)
        detail = ", ".join(f"{t} {failed[t]}" for t in HARNESS_ENDINGS if failed.get(t))
        out.append(
            f"- {s['name']}: {harness} of {total} failed episodes ({harness / total:.0%})"
            + (f": {detail}" if detail else "")
        )
    return out


def findings(results: dict[str, Any]) -> list[str]:
    """The section's Markdown lines; empty when the traces hold no model system."""
    systems = results["systems"]
    models = [s for s in systems if not is_reference(s.get("system")) and _value(s["default"]["pass_rate"]) is not None]
    if not models:
        return []
    refs = {s["name"]: s for s in systems if is_reference(s.get("system"))}
    out = ["## What these results show", ""]
    out += [
        f"{len(models)} model system(s) and {len(refs)} scripted reference agent(s). Pass rates are the share of "
        "scored episodes (R1-R5) in which every check passed, with 95 % bootstrap intervals.",
        "",
        "**Which risks the models fail, and through which checks** (failed of applicable checks, all episodes):",
        "",
    ]
    out += [_risk_line(s) for s in models]
    strategies = _strategy_lines(models)
    if strategies:
        out += [
            "",
            "**Other memory strategies (recency, retrieval, managed) against full context**, for the same model "
            "(MemRiskBench reported recency and retrieval doing worse than full context):",
            "",
        ] + strategies
    share = _harness_share(models)
    out += [
        "",
        "**Failed episodes that ended in a parse or model error** (a reply that is not a valid action, or a prompt "
        "longer than the context), out of all failed episodes:",
        "",
    ]
    out += share or ["- none of the model systems' failed episodes ended that way."]
    best = max(models, key=lambda s: _value(s["default"]["pass_rate"]) or 0.0)
    floor = refs.get("refuse-all")
    out += ["", "**How far from the floor.** "]
    line = f"The best model system, {best['name']}, passes {_est(best['default']['pass_rate'])}"
    if floor is not None:
        verdict = _versus(best["default"]["pass_rate"], floor["default"]["pass_rate"])
        line += (
            f"; refuse-all, a scripted agent that refuses every request, passes {_est(floor['default']['pass_rate'])}"
            f". Against that floor the model is {verdict}"
        )
    out[-1] += (
        line + ". Models of this size sit near the floor, so the comparisons between them show little about "
        "memory risks in capable assistants. For larger models, serve them (llama-server, vLLM, Ollama) and "
        "run `memriskbench run --agent openai` (README, *Model servers*)."
    )
    out.append("")
    return out
