"""The report's opening section is computed from results.json: each sentence follows the figures,
so a re-release rewrites it. And the selector's table ranks model systems only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memriskbench.cli.main import main
from memriskbench.episodes.episode import Episode
from memriskbench.judge.scoring import EpisodeResult
from memriskbench.results.analysis import system_block
from memriskbench.results.figures import SystemRun
from memriskbench.results.findings import findings
from memriskbench.risks import SCORED_RISKS


def _est(v: float, lo: float, hi: float) -> dict[str, Any]:
    return {"value": v, "ci95": [lo, hi], "n": 100}


def _model(strategy: str, rate: dict[str, Any], failed: dict[str, int]) -> dict[str, Any]:
    return {
        "name": f"llama:M:{strategy}",
        "system": {"agent": "llama", "kind": "llama", "strategy": strategy},
        "default": {"pass_rate": rate, "per_risk": {"R1": rate, "R3": _est(0.5, 0.3, 0.7)}},
        "check_types": [{"risk": "R1", "type": "memory_not_used", "failed": 9, "total": 20, "not_applicable": 0}],
        "failed_by_termination": failed,
    }


def _results(full: dict[str, Any], rag: dict[str, Any]) -> dict[str, Any]:
    refuse = {
        "name": "refuse-all",
        "system": {"agent": "refuse-all", "kind": "reference"},
        "default": {"pass_rate": _est(0.0, 0.0, 0.0), "per_risk": {}},
    }
    return {
        "systems": [
            _model("full", full, {"completed": 30, "parse_error": 10}),
            _model("rag", rag, {"completed": 60}),
            refuse,
        ]
    }


def test_the_findings_follow_the_figures() -> None:
    results = _results(_est(0.6, 0.5, 0.7), _est(0.3, 0.2, 0.4))
    results["systems"][0]["final_actions"] = {"refuse": 30, "parse_error": 10}
    text = "\n".join(findings(results))
    assert "its final action at the 40 decisions: `refuse` 30, `parse_error` 10." in text
    assert "2 model system(s) and 1 scripted reference agent(s)" in text
    assert "`rag` 0.30 [0.20, 0.40] against `full` 0.60 [0.50, 0.70]: worse." in text
    assert "llama:M:full: 10 of 40 failed episodes (25%): parse_error 10" in text
    assert "llama:M:rag: 0 of 60 failed episodes (0%)" in text
    assert "R1 `memory_not_used` 9 of 20" in text
    assert "The best model system, llama:M:full, passes 0.60" in text and "the model is better" in text

    overlapping = "\n".join(findings(_results(_est(0.4, 0.3, 0.5), _est(0.45, 0.35, 0.55))))
    assert "`rag` 0.45 [0.35, 0.55] against `full` 0.40 [0.30, 0.50]: not distinguishable" in overlapping


def test_every_strategy_the_results_hold_is_set_against_full() -> None:
    results = _results(_est(0.6, 0.5, 0.7), _est(0.3, 0.2, 0.4))
    results["systems"].insert(1, _model("rag-policy", _est(0.2, 0.1, 0.3), {"completed": 60}))
    results["systems"].insert(1, _model("managed", _est(0.5, 0.4, 0.7), {"completed": 60}))
    lines = [line for line in findings(results) if "against `full`" in line]
    assert [line.split("`")[1] for line in lines] == ["managed", "rag", "rag-policy"]
    assert "`rag-policy` 0.20 [0.10, 0.30] against `full` 0.60 [0.50, 0.70]: worse." in lines[2]
    assert "not distinguishable" in lines[0]


def test_final_actions_are_counted_over_the_scored_decisions(
    reference_results: dict[str, list[EpisodeResult]], episodes: list[Episode]
) -> None:
    decisions = sum(len(e.decisions) for e in episodes if e.risk in SCORED_RISKS)
    counts = {}
    for agent in ("refuse-all", "oracle"):
        block = system_block(SystemRun(agent, "t", {}, reference_results[agent]))
        counts[agent] = block["final_actions"]
        assert sum(counts[agent].values()) == decisions
    assert counts["refuse-all"] == {"refuse": decisions}
    assert {"answer", "refuse"} < set(counts["oracle"])  # the answer after a tool call is what counts
    assert list(counts["oracle"].values()) == sorted(counts["oracle"].values(), reverse=True)


def test_no_model_system_no_findings() -> None:
    only_refs = {
        "systems": [{"name": "oracle", "system": {"kind": "reference"}, "default": {"pass_rate": _est(1, 1, 1)}}]
    }
    assert findings(only_refs) == []


def test_the_selector_table_ranks_model_systems_only(reference_traces: dict[str, Path], tmp_path: Path) -> None:
    traces = [str(p) for p in reference_traces.values()]
    assert main(["report", *traces, "--out", str(tmp_path)]) == 0
    text = (tmp_path / "report.md").read_text()
    assert "No method table: the selector ranks model systems only, and needs at least 3; these traces hold 0." in text
    assert "| greedy |" not in text
