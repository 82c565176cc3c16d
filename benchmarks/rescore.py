"""Re-scoring speed: seconds to re-score 600 traces' worth of decisions (target <= 1 s).

A "trace" here is one episode's trace (episode_start ... episode_end), the unit the scorer
re-scores. The reference agents play the whole suite; their episode traces are cycled up to 600
and re-scored with the pure scorer. Also printed, for context: reading and chain-verifying the
agents' trace files, and the full `tracecheck` path that `score` and `audit` take.

    python benchmarks/rescore.py [--traces 600] [--repeat 5]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memriskbench.episodes.loader import load_all  # noqa: E402
from memriskbench.judge.scoring import score_episode  # noqa: E402
from memriskbench.play.runner import run  # noqa: E402
from memriskbench.play.systems.reference import AGENTS, ReferenceAgent  # noqa: E402
from memriskbench.results.tracecheck import load_trace  # noqa: E402
from memriskbench.traces.trace import read_trace  # noqa: E402


def best_of(repeat: int, fn) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=600)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    episodes, errors = load_all([ROOT / "episodes"])
    assert not errors
    by_id = {e.id: e for e in episodes}
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name in AGENTS:
            paths.append(Path(tmp) / f"{name}.jsonl")
            run(ReferenceAgent(name), episodes, paths[-1])
        units = [(by_id[eid], recs) for p in paths for eid, recs in read_trace(p).episodes().items()]
        work = list(itertools.islice(itertools.cycle(units), args.traces))
        decisions = sum(sum(1 for r in recs if type(r).__name__ == "Decision") for _, recs in work)
        checks = sum(len(d.checks) for ep, _ in work for d in ep.decisions)
        rescore = best_of(args.repeat, lambda: [score_episode(ep, recs) for ep, recs in work])
        verify = best_of(args.repeat, lambda: [read_trace(p) for p in paths])
        full = best_of(args.repeat, lambda: [load_trace(str(p), by_id) for p in paths])
    n_eps = len(units)
    print(f"{args.traces} episode traces ({decisions} decision records, up to {checks} checks), best of {args.repeat}")
    print(f"re-scoring: {rescore:.3f} s per {args.traces} traces   (target <= 1 s)")
    print(
        f"reading + chain-verifying {len(paths)} trace files ({n_eps} episode traces): {verify:.3f} s "
        f"= {verify / n_eps * args.traces:.3f} s per {args.traces}"
    )
    print(
        f"verify + re-score end to end (tracecheck): {full:.3f} s = {full / n_eps * args.traces:.3f} s per {args.traces}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
