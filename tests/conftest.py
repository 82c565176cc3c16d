"""Shared fixtures: the repository's episodes, loaded once."""

from __future__ import annotations

from pathlib import Path

import pytest

from memriskbench.episode import Episode
from memriskbench.loader import load_all

REPO = Path(__file__).resolve().parent.parent
EPISODES = REPO / "episodes"


@pytest.fixture(scope="session")
def episodes() -> list[Episode]:
    eps, errors = load_all([EPISODES])
    assert not errors, [e.render() for e in errors]
    return sorted(eps, key=lambda e: e.id)


# Fixed seeds everywhere: hypothesis explores the same cases on every run and every machine.
from hypothesis import settings  # noqa: E402

settings.register_profile("memriskbench", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("memriskbench")
