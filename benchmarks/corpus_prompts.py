"""The prompts a blind writer answers: what a model sees at the first step of every decision.

Each episode is played by the replay backend with every earlier step answered as the oracle
answered it in its released trace (`traces/ref-oracle.jsonl.gz`), so the prompt of decision d3
holds the history a careful system would have made. A prompt is written under an opaque name
(`q` + 8 hex digits of the key's sha256): the episode id names its risk, which a model never sees,
so a writer must not either. The key for each name goes to a separate map that writers are not
given.

    python benchmarks/corpus_prompts.py --out /tmp/corpus-prompts

writes `/tmp/corpus-prompts/prompts/<name>.txt` (the messages and the reply schema, as a model
reads them) and `/tmp/corpus-prompts/map.json` ({name: key}).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memriskbench.cli.episodes import load_episodes  # noqa: E402
from memriskbench.play.runner import play_buffered  # noqa: E402
from memriskbench.play.systems.agent import ModelSystem  # noqa: E402
from memriskbench.play.systems.backends.replay import Answer, ReplayBackend  # noqa: E402

ORACLE = ROOT / "traces" / "ref-oracle.jsonl.gz"


def name_of(key: str) -> str:
    return "q" + hashlib.sha256(key.encode()).hexdigest()[:8]


def oracle_answers(path: Path = ORACLE) -> dict[str, list[tuple[str, str]]]:
    """Per episode, the oracle's (key, raw reply) for every step, in the order it played them."""
    out: dict[str, list[tuple[str, str]]] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line)
            if obj.get("type") == "decision":
                key = f"{obj['episode']}/{obj['decision']}/{obj['step']}"
                out.setdefault(obj["episode"], []).append((key, obj["raw_output"]))
    return out


def render(pending: dict) -> str:
    parts = []
    for m in pending["messages"]:
        parts.append(f"=== {m['role']} ===\n{m['content']}")
    parts.append("=== the reply must be one JSON object of this schema ===\n" + json.dumps(pending["schema"]))
    return "\n\n".join(parts) + "\n"


def prompts(episodes_dir: str) -> list[tuple[str, dict]]:
    """(key, pending prompt) of step 0 of every decision the oracle reached, in suite order."""
    answers = oracle_answers()
    found = []
    for ep in load_episodes([episodes_dir], None):
        steps = answers.get(ep.id, [])
        for i, (key, _) in enumerate(steps):
            if not key.endswith("/0"):
                continue
            given = {k: Answer(r, None) for k, r in steps[:i]}
            backend = ReplayBackend("corpus", given)
            system = ModelSystem(backend, "full")
            play_buffered(ep, system)
            hit = [p for p in backend.pending if p["key"] == key]
            if hit:
                found.append((key, hit[0]))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--episodes", default=str(ROOT / "episodes"))
    args = ap.parse_args()
    out = Path(args.out)
    (out / "prompts").mkdir(parents=True, exist_ok=True)
    mapping = {}
    for key, pending in prompts(args.episodes):
        name = name_of(key)
        mapping[name] = key
        (out / "prompts" / f"{name}.txt").write_text(render(pending), encoding="utf-8")
    (out / "map.json").write_text(json.dumps(mapping, indent=1, sort_keys=True), encoding="utf-8")
    print(f"{out}: {len(mapping)} prompt(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
