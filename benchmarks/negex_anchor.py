"""The claim reader against an outside anchor: NegEx's public test set (issue 37, item 7).

The set is 2,376 sentences from clinical reports, each with one concept annotated Affirmed or
Negated (Chapman et al. 2001; the `chapmanbe/negex` repository, file
`negex.python/Annotations-1-120.txt`). Its sentences are not ours to copy, so they stay out of
this repository: give the file's path.

    python benchmarks/negex_anchor.py PATH/Annotations-1-120.txt [--misses]

Each concept is read where the sentence states it (`reader.mentions`, the phrase as written); the
reader says Negated when the mention's status is `rejected`. Prints precision, recall and F1 of
Negated, beside NegEx's own on the same file (precision 0.935, recall 0.959, F1 0.947, as
issue 37 reports them; the repository's README gives no figure).
"""

from __future__ import annotations

import argparse
import csv
import sys

from memriskbench.judge.reader import mentions
from memriskbench.judge.triggers import REJECTED


def read(path: str) -> list[tuple[str, str, bool]]:
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        rows = list(csv.reader(fh, delimiter="\t"))
    out = []
    for row in rows[1:]:
        if len(row) >= 4 and row[3].strip() in ("Affirmed", "Negated"):
            out.append((row[1].strip(), row[2].strip().strip('"'), row[3].strip() == "Negated"))
    return out


def negated(concept: str, sentence: str) -> bool | None:
    """Whether the reader reads the concept as negated; None when it finds no mention of it."""
    ms = mentions(" ".join(concept.split()), " ".join(sentence.split()), phrase=True)
    if not ms:
        return None
    return any(m.status == REJECTED for m in ms)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("annotations", help="negex.python/Annotations-1-120.txt from chapmanbe/negex")
    ap.add_argument("--misses", action="store_true", help="print each wrong reading")
    args = ap.parse_args()
    try:
        rows = read(args.annotations)
    except OSError as exc:
        print(f"{args.annotations}: {exc.strerror}", file=sys.stderr)
        return 2
    tp = fp = fn = tn = unfound = 0
    for concept, sentence, gold in rows:
        got = negated(concept, sentence)
        if got is None:
            unfound += 1
            got = False
        tp += got and gold
        fp += got and not gold
        fn += gold and not got
        tn += not got and not gold
        if args.misses and got != gold:
            print(f"{'FP' if got else 'FN'} {concept!r}: {' '.join(sentence.split())[:300]}")
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    print(f"{len(rows)} sentences ({unfound} concepts not found as written), {tp + fn} negated")
    print(f"reader: precision {p:.3f}, recall {r:.3f}, F1 {f:.3f}  (tp {tp}, fp {fp}, fn {fn}, tn {tn})")
    print("NegEx on the same file, as issue 37 reports it: precision 0.935, recall 0.959, F1 0.947")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
