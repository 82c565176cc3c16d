"""Per-decision verdicts out of the tool, for auditors who compare with another scorer.

`score --decisions FILE` writes one JSON line per decision a trace reached: every check's verdict
(strict and normalized) with its evidence, and, for imported GateMem checkpoints, GateMem's verdict
in every mode. `export-gatemem` writes the replies in GateMem's own predictions format, so that
GateMem's `score_predictions.py` can score a memriskbench trace directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from memriskbench.common.jsonsafe import line, write_lines
from memriskbench.results.figures import SystemRun


def decision_lines(run: SystemRun) -> Iterator[dict[str, Any]]:
    for r in run.results:
        by_decision: dict[str, list[Any]] = {}
        for c in r.checks:
            by_decision.setdefault(c.decision, []).append(c)
        gatemem = {g.decision: g for g in r.gatemem}
        for decision in dict.fromkeys([*by_decision, *gatemem]):
            checks = by_decision.get(decision, [])
            g = gatemem.get(decision)
            first = checks[0] if checks else None
            line: dict[str, Any] = {
                "trace": run.trace,
                "system": run.name,
                "episode": r.episode,
                "risk": r.risk,
                "decision": decision,
                "category": first.category if first else (g.category if g else ""),
                "attack_type": (first.attack_type if first else "") or (g.attack_type if g else ""),
                "final_action": first.final_action if first else None,
                "checks": [
                    {
                        "id": c.check,
                        "type": c.type,
                        "applicable": c.applicable,
                        "strict": c.strict,
                        "normalized": c.normalized,
                        "evidence": c.evidence,
                    }
                    for c in checks
                ],
            }
            if g is not None:
                line["gatemem"] = {
                    "action": g.reply.action,
                    "inferred_from_raw_text": g.reply.inferred,
                    **{mode: v.to_json() for mode, v in g.verdicts.items()},
                }
            yield line


def _write_jsonl(path: str | Path, rows: Iterable[dict[str, Any]]) -> int:
    """Atomically: a failed write leaves `path` as it was."""
    return write_lines(path, (line(row) for row in rows))


def write_decisions(runs: Sequence[SystemRun], path: str | Path) -> int:
    return _write_jsonl(path, (line for run in runs for line in decision_lines(run)))


def gatemem_predictions(run: SystemRun) -> Iterator[dict[str, Any]]:
    """One row per imported checkpoint the trace reached, as GateMem's scorer reads it."""
    for r in run.results:
        for g in r.gatemem:
            yield g.reply.to_prediction(g.decision)


def write_predictions(run: SystemRun, path: str | Path) -> int:
    """Nothing is written when the trace reached no imported checkpoint (the caller says so)."""
    rows = list(gatemem_predictions(run))
    return _write_jsonl(path, rows) if rows else 0
