"""Interleaved timing for the overhead scripts: harness, bare, harness, bare, ... so that a change
in the machine's load during the run falls on both loops alike; the figure is the median of the
per-pair ratios, printed with their range."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def interleaved(harness: Callable[[], object], bare: Callable[[], object], pairs: int) -> list[tuple[float, float]]:
    """Wall seconds of (harness, bare), one pair after another."""
    out = []
    for _ in range(pairs):
        t0 = time.perf_counter()
        harness()
        t1 = time.perf_counter()
        bare()
        t2 = time.perf_counter()
        out.append((t1 - t0, t2 - t1))
    return out


def summary(times: list[tuple[float, float]], target: float) -> str:
    ratios = [h / b for h, b in times]
    lines = [f"pair {i + 1}: harness {h:.2f} s  bare {b:.2f} s  ratio {h / b:.3f}" for i, (h, b) in enumerate(times)]
    lines.append(
        f"median ratio harness/bare {statistics.median(ratios):.3f}  "
        f"(range {min(ratios):.3f}-{max(ratios):.3f}, {len(ratios)} pairs; target <= {target:.2f})"
    )
    return "\n".join(lines)
