"""Shared fixtures: the repository's episodes, loaded once."""

from __future__ import annotations

from pathlib import Path

import pytest

from memriskbench.episode import Episode
from memriskbench.loader import load_all

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
def reference_traces(episodes: list[Episode], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One trace per reference agent over the whole suite, made once per test session."""
    from memriskbench.runner import run
    from memriskbench.systems.reference import AGENTS, ReferenceAgent

    root = tmp_path_factory.mktemp("reference")
    out = {}
    for name in AGENTS:
        out[name] = root / f"{name}.jsonl"
        run(ReferenceAgent(name), episodes, out[name])
    return out


# Fixed seeds everywhere: hypothesis explores the same cases on every run and every machine.
from hypothesis import HealthCheck, settings  # noqa: E402

# On a loaded 2-core CI machine data generation can be slow; that is not a failure of the code.
settings.register_profile("memriskbench", derandomize=True, deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("memriskbench")
