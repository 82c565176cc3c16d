"""Selector speed on synthetic pass/fail matrices: greedy selection at 20 % plus the bootstrap
audit (1000 seeded resamples each of the random and risk-stratified baselines, scored with Ψ).

    python benchmarks/selector_scale.py

Targets: 120 episodes x 10 systems <= 2 s; 10,000 x 50 <= 15 s. k-medoids baselines are timed
apart (they are not part of the target: their cost grows with n^2). The matrices
(`selector.data.synthetic`) have systems of close ability and many uninformative episodes, so
greedy must beat random: the line says whether greedy's Psi is above random's 95 % interval.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from selector.data import synthetic  # noqa: E402
from selector.evaluate import method_table  # noqa: E402


def timed(
    n: int, m: int, methods: tuple[str, ...], resamples: int = 1000
) -> tuple[float, dict[str, tuple[float, float | None, float | None]]]:
    data = synthetic(n, m, seed=1)
    t0 = time.perf_counter()
    rows = method_table(data, 0.2, resamples=resamples, seed=0, methods=methods)
    return time.perf_counter() - t0, {r.method: r.values["psi"] for r in rows}


def main() -> int:
    core = ("greedy", "random", "risk-stratified")
    for (n, m), target in (((120, 10), 2.0), ((10_000, 50), 15.0)):
        secs, psi = timed(n, m, core)
        verdict = "ok" if secs <= target else "MISSED"
        hi = psi["random"][2]
        beats = hi is not None and psi["greedy"][0] > hi
        print(
            f"{n} x {m}: greedy + bootstrap audit {secs:.2f} s (target <= {target:g} s, {verdict});  Psi "
            + ", ".join(
                f"{k} {v:.3f}" + (f" [{lo:.3f}, {up:.3f}]" if lo is not None and up is not None else "")
                for k, (v, lo, up) in psi.items()
            )
            + f";  greedy above random's interval: {beats}"
        )
    secs, _ = timed(120, 10, ("k-medoids", "feature-clusters"))
    print(f"120 x 10: k-medoids baselines, 1000 seeds each: {secs:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
