"""Statistics agree with scipy; the report is written and its intervals make sense."""

from __future__ import annotations

import json
import sys
from math import comb
from pathlib import Path

import numpy as np
import pytest
import scipy.stats as ss

from memriskbench.cli.main import main
from memriskbench.results.stats import bootstrap_mean, bootstrap_ratio, fisher_pairs, holm, pass_hat_k

from .conftest import EPISODES

X = np.array([1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1] * 2, dtype=float)


def test_bootstrap_matches_scipy_percentile_bootstrap() -> None:
    ours = bootstrap_mean(X, resamples=1000, seed=7)
    theirs = ss.bootstrap(
        (X,),
        np.mean,
        n_resamples=1000,
        method="percentile",
        confidence_level=0.95,
        random_state=np.random.default_rng(7),
        vectorized=True,
    )
    assert ours.value == pytest.approx(X.mean())
    assert (ours.lo, ours.hi) == pytest.approx((theirs.confidence_interval.low, theirs.confidence_interval.high))


def test_bootstrap_ratio_equals_mean_for_unit_weights() -> None:
    a, b = bootstrap_ratio(X, np.ones_like(X), seed=3), bootstrap_mean(X, seed=3)
    assert (a.value, a.lo, a.hi) == pytest.approx((b.value, b.lo, b.hi))


def test_fisher_pairs_match_scipy_and_holm_is_a_valid_adjustment() -> None:
    success = {
        "a": {"R1": [True] * 9 + [False], "R2": [True] * 5 + [False] * 5},
        "b": {"R1": [True] * 2 + [False] * 8, "R2": [True] * 4 + [False] * 6},
        "c": {"R1": [False] * 10, "R2": [True] * 6 + [False] * 4},
    }
    tests = fisher_pairs(success)
    assert len(tests) == 6
    for t in tests:
        xa, xb = success[t.a][t.risk], success[t.b][t.risk]
        table = [[sum(xa), len(xa) - sum(xa)], [sum(xb), len(xb) - sum(xb)]]
        assert t.p == pytest.approx(ss.fisher_exact(table).pvalue)
        assert t.p_holm >= t.p
    # Holm by hand: sorted p (m=6) times (6, 5, 4, ...), running max, capped at 1
    raw = sorted(t.p for t in tests)
    by_hand = np.minimum(np.maximum.accumulate([(6 - i) * p for i, p in enumerate(raw)]), 1)
    assert sorted(t.p_holm for t in tests) == pytest.approx(list(by_hand))
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_pass_hat_k_matches_the_combinatorial_definition() -> None:
    runs = np.array([[1, 1, 1], [1, 0, 1], [0, 0, 0], [1, 0, 0]], dtype=bool)
    got = pass_hat_k(runs)
    assert got[1] == pytest.approx(np.mean([3 / 3, 2 / 3, 0, 1 / 3]))
    assert got[2] == pytest.approx(np.mean([comb(3, 2) / 3, comb(2, 2) / 3, 0, 0]))
    assert got[3] == pytest.approx(0.25)
    assert got[1] >= got[2] >= got[3]


@pytest.fixture(scope="module")
def ref_traces(reference_traces: dict[str, Path]) -> list[Path]:
    return list(reference_traces.values())


def _walk_estimates(obj: object) -> list[dict]:
    found = []
    if isinstance(obj, dict):
        if "value" in obj and "ci95" in obj:
            found.append(obj)
        else:
            for v in obj.values():
                found += _walk_estimates(v)
    elif isinstance(obj, list):
        for v in obj:
            found += _walk_estimates(v)
    return found


PLOTS = {"pass_rates.png", "heatmap.png"}


@pytest.fixture(scope="module")
def report(ref_traces: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`memriskbench report` over every reference trace, written once for the tests that read it."""
    out = tmp_path_factory.mktemp("report") / "report"
    assert main(["report", *map(str, ref_traces), "--episodes", str(EPISODES), "--out", str(out)]) == 0
    return out


def test_report_files_and_interval_sanity(report: Path) -> None:
    out = report
    assert {"report.md", "results.json"} <= {p.name for p in out.iterdir()} <= {"report.md", "results.json"} | PLOTS
    results = json.loads((out / "results.json").read_text())
    estimates = _walk_estimates(results["systems"])
    assert len(estimates) > 100
    for e in estimates:
        if e["value"] is not None:
            lo, hi = e["ci95"]
            assert lo - 1e-12 <= e["value"] <= hi + 1e-12
    assert results["fisher"] and all(t["p_holm"] >= t["p"] for t in results["fisher"])
    md = (out / "report.md").read_text()
    assert "What each number counts" in md and "| oracle |" in md and "Holm" in md
    oracle = next(s for s in results["systems"] if s["name"] == "oracle")
    assert oracle["default"]["pass_rate"]["value"] == 1.0
    assert oracle["default"]["gatemem"]["MGS"]["value"] == 1.0


def test_fisher_family_leaves_reference_agents_out_once_two_model_systems_are_present(ref_traces: list[Path]) -> None:
    from dataclasses import replace

    from memriskbench.episodes.loader import load_all
    from memriskbench.results.analysis import analyze
    from memriskbench.results.tracecheck import load_traces

    by_id = {e.id: e for e in load_all([str(EPISODES)])[0]}
    runs = [t.run for t in load_traces([str(p) for p in ref_traces], by_id) if t.run is not None]
    only_refs = analyze(runs)
    assert only_refs["fisher_family"] == "all systems"
    assert {t["a"] for t in only_refs["fisher"]} | {t["b"] for t in only_refs["fisher"]} == {r.name for r in runs}
    # Relabel two reference runs as model systems: only their pair remains in the family.
    as_model = [
        replace(r, name=f"model-{r.name}", header={**r.header, "system": {**r.header["system"], "kind": "llama"}})
        for r in runs[:2]
    ]
    mixed = analyze([*runs, *as_model])
    assert mixed["fisher_family"] == "model systems"
    assert {frozenset((t["a"], t["b"])) for t in mixed["fisher"]} == {frozenset((as_model[0].name, as_model[1].name))}


def test_report_plots_are_pngs_linked_from_the_report(report: Path) -> None:
    pytest.importorskip("matplotlib", reason="plots need the optional `plots` extra (matplotlib)")
    assert {p.name for p in report.iterdir()} == {"report.md", "results.json"} | PLOTS
    assert all((report / p).read_bytes().startswith(b"\x89PNG") for p in PLOTS)
    md = (report / "report.md").read_text()
    assert all(f"![{p}]({p})" in md for p in PLOTS) and "No plots" not in md


def test_report_without_matplotlib_has_no_plots_and_says_so(
    reference_traces: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a user without the `plots` extra gets, checked whether or not matplotlib is installed here."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now raises ImportError
    out = tmp_path / "report"
    traces = [str(reference_traces[name]) for name in ("oracle", "leaky")]
    assert main(["report", *traces, "--episodes", str(EPISODES), "--out", str(out)]) == 0
    assert {p.name for p in out.iterdir()} == {"report.md", "results.json"}
    md = (out / "report.md").read_text()
    assert "No plots" in md and "matplotlib" in md and ".png" not in md


def test_check_type_failures_add_up_and_point_at_the_failing_reference_agent(report: Path) -> None:
    out = report
    results = json.loads((out / "results.json").read_text())
    by_name = {s["name"]: s for s in results["systems"]}
    for s in results["systems"]:
        checks = s["default"]["checks"]
        assert sum(c["total"] for c in s["check_types"]) == checks["total"]
        assert sum(c["failed"] for c in s["check_types"]) == checks["total"] - checks["passed"]
    assert all(c["failed"] == 0 for c in by_name["oracle"]["check_types"])
    leaky_r3 = sum(c["failed"] for c in by_name["leaky"]["check_types"] if c["risk"] == "R3")
    blind_r5 = sum(c["failed"] for c in by_name["constraint-blind"]["check_types"] if c["risk"] == "R5")
    assert leaky_r3 > 0 and blind_r5 > 0
    assert "## Check failures by risk and check type (default)" in (out / "report.md").read_text()
