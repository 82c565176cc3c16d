"""The risk-preserving selector: properties, the method table, and the subset round trip."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memriskbench.cli.main import main
from memriskbench.traces.records import EpisodeEnd
from memriskbench.traces.trace import read_trace
from selector.data import FEATURES, SelectionData, loso_discrimination
from selector.evaluate import method_table
from selector.greedy import greedy, subset_size
from selector.objective import DEFAULT_WEIGHTS, Reference, candidate_psi, score

from .conftest import EPISODES

RISKS = ("R1", "R2", "R3", "R4", "R5")


def matrix(seed: int, n: int, m: int, n_risks: int = 5) -> SelectionData:
    rng = np.random.default_rng(seed)
    passed = rng.random((n, m)) < rng.uniform(0.2, 0.8, m)[None, :]
    risks = [RISKS[i % n_risks] for i in rng.permutation(n)]
    feats = rng.normal(0, 1, (n, len(FEATURES)))
    feats[:, 2] = loso_discrimination(passed)
    return SelectionData([f"e{i:03d}" for i in range(n)], [f"s{j}" for j in range(m)], risks, passed, feats)


shapes = st.tuples(
    st.integers(0, 10_000), st.integers(5, 60), st.integers(2, 9), st.sampled_from([0.1, 0.2, 0.25, 0.5])
)


@settings(max_examples=60, deadline=None)
@given(shapes)
def test_greedy_is_deterministic_sized_and_covering(shape: tuple[int, int, int, float]) -> None:
    seed, n, m, fraction = shape
    data = matrix(seed, n, m)
    a, b = greedy(data, fraction), greedy(data, fraction)
    assert np.array_equal(a, b)
    k = round(fraction * n)
    assert len(a) == k == subset_size(n, fraction) and len(set(a.tolist())) == k
    present = set(data.risks)
    if k >= len(present):
        assert {data.risks[i] for i in a} == present


@settings(max_examples=40, deadline=None)
@given(shapes)
def test_vectorized_candidates_equal_direct_scores(shape: tuple[int, int, int, float]) -> None:
    seed, n, m, _ = shape
    data = matrix(seed, n, m)
    ref = Reference.of(data)
    rng = np.random.default_rng(seed)
    subset = rng.choice(n, size=int(rng.integers(0, n - 1)), replace=False)
    sums = data.passed[subset].sum(axis=0).astype(float)
    covered = np.zeros(ref.n_risks, dtype=bool)
    covered[np.unique(ref.risk_code[subset])] = True
    cand = np.setdiff1d(np.arange(n), subset)
    fast = candidate_psi(sums, covered, cand, data, ref, DEFAULT_WEIGHTS)
    slow = np.array([score(data, ref, np.append(subset, c)).psi for c in cand])
    assert np.allclose(fast, slow, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(10, 50), st.integers(3, 8))
def test_a_perfectly_separating_episode_is_picked(seed: int, n: int, m: int) -> None:
    """Every episode is passed by all systems or by none, except one whose pass pattern orders
    the systems the same way the full set does: it alone makes the ranking visible."""
    rng = np.random.default_rng(seed)
    passed = np.repeat(rng.random((n, 1)) < 0.5, m, axis=1)
    star = int(rng.integers(0, n))
    passed[star] = np.arange(m) >= m // 2  # the top half passes it
    data = SelectionData(
        [f"e{i:03d}" for i in range(n)], [f"s{j}" for j in range(m)], ["R1"] * n, passed, np.zeros((n, len(FEATURES)))
    )
    assert star in greedy(data, 0.2).tolist()


@pytest.fixture(scope="module")
def ref_traces(reference_traces: dict[str, Path]) -> list[Path]:
    return list(reference_traces.values())


def test_select_writes_a_covering_subset_that_run_accepts(
    ref_traces: list[Path], scored_episodes: list, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    subset = tmp_path / "subset.txt"
    assert (
        main(
            [
                "select",
                *map(str, ref_traces),
                "--episodes",
                str(EPISODES),
                "--fraction",
                "0.2",
                "--out",
                str(subset),
                "--resamples",
                "50",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "greedy" in out and "risk-stratified" in out and "high-risk det." in out
    ids = [ln for ln in subset.read_text().splitlines() if not ln.startswith("#")]
    assert len(ids) == round(0.2 * len(scored_episodes))  # every trace finished every scored episode
    assert {i.split("-")[0] for i in ids} == {"r1", "r2", "r3", "r4", "r5"}
    trace = tmp_path / "sub.jsonl"
    assert (
        main(
            [
                "run",
                "--agent",
                "oracle",
                "--episodes",
                str(EPISODES),
                "--subset",
                str(subset),
                "--out",
                str(trace),
                "--quiet",
            ]
        )
        == 0
    )
    ran = [r.episode for r in read_trace(trace).records if isinstance(r, EpisodeEnd)]
    assert sorted(ran) == sorted(ids)


def test_greedy_psi_beats_every_baseline(ref_traces: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["select", *map(str, ref_traces), "--episodes", str(EPISODES), "--json", "--resamples", "200"]) == 0
    table = {r["method"]: r for r in json.loads(capsys.readouterr().out)["table"]}
    assert set(table) == {
        "greedy",
        "difficulty",
        "disagreement",
        "mid-range",
        "random",
        "risk-stratified",
        "k-medoids",
        "feature-clusters",
    }
    best = table.pop("greedy")["psi"]["value"]
    for name, row in table.items():
        assert best >= row["psi"]["value"] - 1e-12, name


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(30, 80), st.integers(3, 8))
def test_greedy_psi_is_at_least_the_baselines_on_random_matrices(seed: int, n: int, m: int) -> None:
    data = matrix(seed, n, m)
    rows = {r.method: r.values["psi"][0] for r in method_table(data, 0.2, resamples=30, seed=seed)}
    best = rows.pop("greedy")
    assert all(best >= v - 1e-12 for v in rows.values()), rows
