"""Compress a finished trace for release, byte for byte reproducibly.

    python -m memriskbench.traces.pack runs/release/NAME.jsonl traces/NAME.jsonl.gz

gzip with no file name and a zero mtime in its header, so the same trace always gives the same
bytes with the same zlib. Every reader (`score`, `report`, `audit`) opens .gz traces directly.
The trace is verified (hash chain, complete episodes) before it is packed.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from memriskbench.traces.trace import read_trace


def pack(src: str | Path, dst: str | Path) -> int:
    trace = read_trace(src)  # refuses a damaged or unfinished trace
    data = Path(src).read_bytes()
    out = Path(dst)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    return len(trace.episodes())


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m memriskbench.traces.pack SRC.jsonl DST.jsonl.gz", file=sys.stderr)
        return 2
    n = pack(argv[0], argv[1])
    print(f"{argv[1]}: {n} episode(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
