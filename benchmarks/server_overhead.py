"""Server harness overhead: wall time of `--agent openai` through the full harness, over the wall
time of a bare HTTP loop that sends exactly the same requests to the same server.

    python benchmarks/server_overhead.py [--episodes N] [--pairs 3] [--strategy full]

Starts llama-cpp-python's own server (its `server` extra) with SmolLM2 on a free port of
127.0.0.1 and stops it at the end. The two loops are interleaved (harness, bare, ...; at least 3
pairs) and the median ratio is printed with its range. Target: ratio <= 1.10.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pairs import interleaved, summary  # noqa: E402

from memriskbench.episodes.loader import load_all  # noqa: E402
from memriskbench.play.localserver import ALIAS, LocalServer  # noqa: E402
from memriskbench.play.runner import run  # noqa: E402
from memriskbench.play.systems.agent import ModelSystem  # noqa: E402
from memriskbench.play.systems.backends.base import Completion  # noqa: E402
from memriskbench.play.systems.backends.openai_compat import OpenAIBackend, ServerSettings  # noqa: E402
from memriskbench.play.systems.models import resolve_model  # noqa: E402
from memriskbench.traces.records import Decision, MemoryOpRecord  # noqa: E402
from memriskbench.traces.trace import read_trace  # noqa: E402


class Recording(OpenAIBackend):
    """The real client, also keeping each request body it sent."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bodies: list[dict[str, Any]] = []

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        self.bodies.append(self.body(messages, schema))
        return super().complete(messages, schema, key)


def bare_loop(url: str, bodies: list[dict[str, Any]]) -> list[str]:
    """The same requests, one after another, over one plain httpx client."""
    with httpx.Client(timeout=120) as client:
        return [
            client.post(url + "/chat/completions", json=b).json()["choices"][0]["message"]["content"] for b in bodies
        ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--strategy", default="full")
    args = ap.parse_args()
    if args.pairs < 3:
        ap.error("--pairs must be at least 3")
    episodes, errors = load_all([ROOT / "episodes"])
    assert not errors
    episodes = sorted(episodes, key=lambda e: e.id)[: args.episodes]
    with LocalServer(resolve_model("default")) as server, tempfile.TemporaryDirectory() as tmp:
        backend = Recording(server.url, ALIAS, None, ServerSettings(structured_output="json_object"))
        system = ModelSystem(backend, args.strategy)
        run(system, episodes[:1], Path(tmp) / "warmup.jsonl")  # untimed: page faults, first requests
        backend.bodies.clear()
        out = Path(tmp) / "t.jsonl"
        run(system, episodes, out)  # records the requests the bare loop sends
        bodies = list(backend.bodies)
        records = read_trace(out).records
        outputs: list[list[str]] = []
        rounds = iter(range(args.pairs))

        def harness() -> None:
            run(system, episodes, Path(tmp) / f"h{next(rounds)}.jsonl")

        times = interleaved(harness, lambda: outputs.append(bare_loop(server.url, bodies)), args.pairs)
        system.close()
    raws = [r.raw_output for r in records if isinstance(r, (Decision, MemoryOpRecord))]
    print(f"episodes {len(episodes)}  requests {len(bodies)}  strategy {args.strategy}  server llama-cpp-python")
    print(f"same outputs in both loops: {all(o == raws for o in outputs)}")
    print(summary(times, 1.10))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
