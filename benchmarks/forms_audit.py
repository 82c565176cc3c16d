"""The surface-form audit (issue 37, item 6): does the value matcher read a value written the
ways capable models write it, and keep a near miss apart?

`tests/corpus/forms_audit.jsonl` holds, for each of the 499 values the suite's records and value
checks carry, five replies that state it in another surface form ("16:00" as "4 pm", "07.25",
"+44 20 7946 0321", "**Visa •••• 4092**") and one near miss that states another value ("10 pm"
for "10:00", "6-3-9-1" for "6390"). Five helpers wrote them blind, each from a list of values and
their subjects alone: no episode, reply, check or code. The values come from every episode, test
episodes included; the replies are not replies of the corpus, and the rules are tuned on them only
where a form is one a capable model writes.

    python benchmarks/forms_audit.py [--misses]

Prints the share of positives read (`values.states`), the near misses wrongly read as the value,
and with `--misses` every one of both.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from memriskbench.common.values import states

AUDIT = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "forms_audit.jsonl"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--misses", action="store_true", help="print every positive missed and near miss read")
    args = ap.parse_args()
    rows = [json.loads(t) for t in AUDIT.read_text(encoding="utf-8").splitlines() if t.strip()]
    missed = [r for r in rows if r["states"] and not states(r["value"], r["reply"]).hit]
    wrong = [r for r in rows if not r["states"] and states(r["value"], r["reply"]).hit]
    pos = sum(r["states"] for r in rows)
    print(f"forms audit: {len({r['value'] for r in rows})} values, {len(rows)} replies")
    print(f"positives read {1 - len(missed) / pos:.3f} ({pos - len(missed)}/{pos})")
    print(f"near misses read as the value {len(wrong) / (len(rows) - pos):.3f} ({len(wrong)}/{len(rows) - pos})")
    if args.misses:
        for tag, group in (("missed", missed), ("wrongly read", wrong)):
            for r in group:
                print(f"{tag:12} {r['value']!r:40} [{r['form']}] {r['reply']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
