"""Assemble the blind corpus (`tests/corpus/`) from the writers' replies and the second readers'
verdicts, and split it by episode into dev and test.

The writers saw only the prompt files `corpus_prompts.py` writes (opaque names, no episode id);
each wrote `out_<batch>.jsonl` ({prompt, class, reply, values, why}). A second reader, another
helper who also saw only the prompts, re-read each label and wrote `verdict_<batch>.jsonl`
({line, agree, class, reason}). Here:

- an entry both readers agree on is kept as labelled;
- an entry the second reader relabels is kept only when the new class is of the same kind as the
  writer's (both careful, or both a mistake): the readers then agree on the verdict the checks
  must give, and the second reader's class is kept. Otherwise it is dropped, with the reason
  counted;
- the split is by episode, within each risk: episodes in order of the sha256 of their id, every
  third one to test. It is written to `split.json` and never changes once the corpus is tuned on.

    python benchmarks/corpus_build.py --work /tmp/corpus --map /tmp/cp/map.json
    python benchmarks/corpus_build.py --work /tmp/corpus --map /tmp/cp/map.json --append b34,b35
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from corpus import CAREFUL, CORPUS, FLAWED


def split_of(episodes: list[str]) -> dict[str, list[str]]:
    by_risk: dict[str, list[str]] = defaultdict(list)
    for e in episodes:
        by_risk[e.split("-", 1)[0]].append(e)
    out: dict[str, list[str]] = {"dev": [], "test": []}
    for risk in sorted(by_risk):
        ordered = sorted(by_risk[risk], key=lambda e: hashlib.sha256(e.encode()).hexdigest())
        for i, e in enumerate(ordered):
            out["test" if i % 3 == 2 else "dev"].append(e)
    return {k: sorted(v) for k, v in out.items()}


def entries(
    work: Path, mapping: dict[str, str], batches: set[str] | None
) -> tuple[list[dict[str, Any]], Counter[str], int]:
    """The kept entries of the writing batches in `work` (all, or only `batches`), the drop
    reasons counted, and how many were relabelled."""
    kept: list[dict[str, Any]] = []
    dropped: Counter[str] = Counter()
    relabelled = 0
    for out in sorted(work.glob("out_*.jsonl")):
        batch = out.stem.removeprefix("out_")
        if batches is not None and batch not in batches:
            continue
        rows = [json.loads(t) for t in out.read_text(encoding="utf-8").splitlines() if t.strip()]
        verdicts = {
            v["line"]: v
            for v in (json.loads(t) for t in (work / f"verdict_{batch}.jsonl").read_text().splitlines() if t.strip())
        }
        for n, row in enumerate(rows, 1):
            v = verdicts.get(n)
            cls = row["class"]
            if cls not in CAREFUL and cls not in FLAWED:
                dropped["unknown class"] += 1
                continue
            if row["prompt"] not in mapping:
                dropped["unknown prompt"] += 1
                continue
            if v is None:
                dropped["not reviewed"] += 1
                continue
            if not v["agree"]:
                other = v.get("class", "drop")
                same_kind = (other in CAREFUL and cls in CAREFUL) or (other in FLAWED and cls in FLAWED)
                if not same_kind:
                    dropped["second reader: " + ("drop" if other == "drop" else "other verdict")] += 1
                    continue
                relabelled += 1
                cls = other
            kept.append(
                {
                    "id": f"{batch}-{n:03d}",
                    "key": mapping[row["prompt"]],
                    "class": cls,
                    "expect": "pass" if cls in CAREFUL else "fail",
                    "reply": json.dumps(row["reply"], ensure_ascii=False),
                    "values": row.get("values", {}),
                    "why": row.get("why", ""),
                }
            )
    return kept, dropped, relabelled


def append(work: Path, mapping: dict[str, str], batches: set[str]) -> int:
    """Add a later round (written on dev prompts only) to dev without rebuilding the rest: the
    earlier rounds' working files need not be at hand, and test cannot change."""
    split = json.loads((CORPUS / "split.json").read_text(encoding="utf-8"))
    dev_eps = set(split["dev"])
    have = {json.loads(t)["id"] for t in (CORPUS / "dev.jsonl").read_text(encoding="utf-8").splitlines() if t}
    kept, dropped, relabelled = entries(work, mapping, batches)
    outside = [e["id"] for e in kept if e["key"].split("/", 1)[0] not in dev_eps]
    again = [e["id"] for e in kept if e["id"] in have]
    if outside or again:
        print(f"corpus_build: refused: {len(outside)} entries outside dev, {len(again)} already in dev.jsonl")
        return 2
    with open(CORPUS / "dev.jsonl", "a", encoding="utf-8") as fh:
        fh.writelines(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n" for e in kept)
    print(f"dev: +{len(kept)} replies, relabelled {relabelled}, dropped {sum(dropped.values())}: {dict(dropped)}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", required=True, help="the folder holding out_*.jsonl and verdict_*.jsonl")
    ap.add_argument("--map", required=True, help="corpus_prompts.py's map.json (prompt name -> key)")
    ap.add_argument(
        "--append",
        help="only these batches (comma-separated: b34,b35), appended to dev; the split and test stay as they are",
    )
    args = ap.parse_args()
    work = Path(args.work)
    mapping = json.loads(Path(args.map).read_text(encoding="utf-8"))
    if args.append:
        return append(work, mapping, set(args.append.split(",")))
    kept, dropped, relabelled = entries(work, mapping, None)
    episodes = sorted({k.split("/", 1)[0] for k in mapping.values()})
    split = split_of(episodes)
    CORPUS.mkdir(parents=True, exist_ok=True)
    (CORPUS / "split.json").write_text(json.dumps(split, indent=1) + "\n", encoding="utf-8")
    test_eps = set(split["test"])
    for name in ("dev", "test"):
        rows = [e for e in kept if (e["key"].split("/", 1)[0] in test_eps) == (name == "test")]
        text = "".join(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n" for e in rows)
        (CORPUS / f"{name}.jsonl").write_text(text, encoding="utf-8")
        print(f"{name}: {len(rows)} replies from {len({e['key'].split('/', 1)[0] for e in rows})} episodes")
    print(f"kept {len(kept)}, relabelled {relabelled}, dropped {sum(dropped.values())}: {dict(dropped)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
