"""JSONL traces: a hash-chained writer, a verifying reader, and resume (the records: `records.py`).

Each line is canonical JSON carrying `seq` and `chain` = sha256(previous chain + the line's canonical
form without `chain`). Any changed byte, inserted line or reordering breaks the chain. Timing lives
under `timing` only, so `strip_timing` gives the part that must repeat byte for byte.
"""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memriskbench.common.canonical import dumps, sha256_text
from memriskbench.errors import TraceError
from memriskbench.traces.records import EpisodeEnd, EpisodeStart, Header, Record, record_from_dict

GENESIS = "0" * 64


def chain_of(prev: str, body: dict[str, Any]) -> str:
    return sha256_text(prev + dumps(body))


class TraceLock:
    """An exclusive lock on a trace (`TRACE.lock` beside it, flock'd), so that a second run on the
    same `--out` is refused instead of interleaving its lines with the first. The kernel drops
    the lock when the holder exits, killed or not, so a stale lock file never blocks a resume."""

    def __init__(self, path: Path) -> None:
        self.path = path.with_name(path.name + ".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a")  # noqa: SIM115 (held while the run writes)
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.close()
            raise TraceError(
                f"another run is writing this trace (lock held on {self.path}); wait for it to finish or use another --out",
                file=str(path),
            ) from None

    def release(self) -> None:
        if not self._fh.closed:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_UN)
            self._fh.close()


class TraceWriter:
    """Appends records one line at a time, flushed, continuing a verified prefix on resume."""

    def __init__(self, path: str | Path, seq: int = 0, chain: str = GENESIS, lock: TraceLock | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "ab")  # noqa: SIM115 (held for the writer's lifetime)
        self.seq = seq
        self.chain = chain
        self.lock = lock

    def write(self, record: Record) -> None:
        body = asdict(record)
        body["seq"] = self.seq
        body["chain"] = chain_of(self.chain, body)
        self._fh.write((dumps(body) + "\n").encode("utf-8"))
        self._fh.flush()
        self.seq += 1
        self.chain = body["chain"]

    def close(self) -> None:
        self._fh.close()
        if self.lock is not None:
            self.lock.release()

    def __enter__(self) -> TraceWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class TraceRead:
    lines: list[dict[str, Any]]
    ends: list[int]  # byte offset just after each verified line
    partial_tail: bool  # a last line without newline was dropped (lenient mode only)
    error: TraceError | None = None  # where verification stopped (salvage mode only)


GZIP_MAGIC = b"\x1f\x8b"


def read_lines(path: str | Path, *, strict: bool = True, salvage: bool = False) -> TraceRead:
    """Read and verify every line. Lenient mode drops one unterminated last line (a killed run).
    Salvage mode also stops at the first bad line instead of raising, keeping the verified prefix."""
    p = Path(path)
    try:
        data = p.read_bytes()
        if data[:2] == GZIP_MAGIC:  # a released, compressed trace (see `memriskbench.traces.pack`)
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise TraceError(f"cannot read trace: {exc}", file=str(p)) from None
    if not salvage:
        return _verify(data, str(p), strict)
    try:
        return _verify(data, str(p), strict=False)
    except TraceError as exc:
        lines = data.splitlines(keepends=True)[: (exc.line or 1) - 1]
        prefix = _verify(b"".join(lines), str(p), strict=False)
        prefix.error = exc
        return prefix


def _verify(data: bytes, name: str, strict: bool) -> TraceRead:
    out: list[dict[str, Any]] = []
    ends: list[int] = []
    prev = GENESIS
    pos = 0
    partial = False
    n = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            if strict:
                raise TraceError("truncated mid-line (no newline at end)", file=name, line=n + 1)
            partial = True
            break
        raw = data[pos:nl]
        n += 1
        try:
            text = raw.decode("utf-8")
            obj = json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise TraceError(f"unparsable line: {exc}", file=name, line=n) from None
        if not isinstance(obj, dict) or "chain" not in obj or "seq" not in obj:
            raise TraceError("line lacks seq/chain", file=name, line=n)
        if obj["seq"] != n - 1:
            raise TraceError(f"broken chain: seq {obj['seq']!r}, expected {n - 1}", file=name, line=n)
        body = {k: v for k, v in obj.items() if k != "chain"}
        try:
            canonical = dumps(obj)
        except ValueError as exc:
            raise TraceError(f"non-canonical line: {exc}", file=name, line=n) from None
        if canonical != text:
            raise TraceError("broken chain: line is not in canonical form", file=name, line=n)
        if chain_of(prev, body) != obj["chain"]:
            raise TraceError("broken chain: hash mismatch", file=name, line=n)
        prev = obj["chain"]
        out.append(obj)
        ends.append(nl + 1)
        pos = nl + 1
    if out and out[0].get("type") != "header":
        raise TraceError("first line is not a header", file=name, line=1)
    return TraceRead(out, ends, partial)


@dataclass
class Trace:
    path: str
    header: Header
    records: list[Record]

    def episodes(self) -> dict[str, list[Record]]:
        """Records of each finished episode, in trace order."""
        out: dict[str, list[Record]] = {}
        current: list[Record] = []
        for r in self.records:
            if isinstance(r, EpisodeStart):
                current = [r]
            elif current:
                current.append(r)
                if isinstance(r, EpisodeEnd):
                    out[r.episode] = current
                    current = []
        return out


def read_trace(path: str | Path) -> Trace:
    """Strictly read, verify and type a trace."""
    got = read_lines(path, strict=True)
    if not got.lines:
        raise TraceError("empty trace", file=str(path))
    records: list[Record] = []
    for i, obj in enumerate(got.lines):
        try:
            records.append(record_from_dict(obj))
        except (TypeError, ValueError) as exc:
            raise TraceError(f"bad record: {exc}", file=str(path), line=i + 1) from None
    header = records[0]
    assert isinstance(header, Header)
    return Trace(str(path), header, records[1:])


def strip_timing(obj: Any) -> Any:
    """Drop `timing` (and the chain, which covers timing) to compare runs for determinism."""
    if isinstance(obj, dict):
        return {k: strip_timing(v) for k, v in obj.items() if k not in ("timing", "chain")}
    if isinstance(obj, list):
        return [strip_timing(v) for v in obj]
    return obj


def comparable_lines(path: str | Path) -> list[str]:
    return [dumps(strip_timing(o)) for o in read_lines(path).lines]


def prepare_resume(path: str | Path, header: Header) -> tuple[TraceWriter, set[str]]:
    """Lock `path` and open it for appending. Keep finished episodes, drop an unfinished one,
    never re-run. A gzip-packed trace is refused: appending to it would destroy it."""
    p = Path(path)
    if p.name.endswith(".gz") or _starts_with(p, GZIP_MAGIC):
        raise TraceError(
            "a gzip-packed trace cannot be resumed: unpack it first (gunzip -k) and run with --out on the .jsonl",
            file=str(p),
        )
    lock = TraceLock(p)
    try:
        return _resume(p, header, lock)
    except BaseException:
        lock.release()
        raise


def _starts_with(p: Path, magic: bytes) -> bool:
    if not p.is_file():
        return False
    with open(p, "rb") as fh:
        return fh.read(len(magic)) == magic


def _resume(p: Path, header: Header, lock: TraceLock) -> tuple[TraceWriter, set[str]]:
    if not p.exists() or p.stat().st_size == 0:
        w = TraceWriter(p, lock=lock)
        w.write(header)
        return w, set()
    got = read_lines(p, strict=False)
    if not got.lines:
        p.write_bytes(b"")
        w = TraceWriter(p, lock=lock)
        w.write(header)
        return w, set()
    old = {k: v for k, v in got.lines[0].items() if k not in ("seq", "chain")}
    new = asdict(header)
    if strip_timing(old) != strip_timing(new):
        differing = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise TraceError(
            f"trace belongs to another run (header differs in {', '.join(differing)}); use a new --out",
            file=str(p),
        )
    keep = 0  # index of the last line to keep
    finished: set[str] = set()
    for i, obj in enumerate(got.lines):
        if obj.get("type") == "episode_end":
            keep = i
            finished.add(obj["episode"])
    with open(p, "r+b") as fh:
        fh.truncate(got.ends[keep])
        fh.flush()
        os.fsync(fh.fileno())
    return TraceWriter(p, seq=keep + 1, chain=got.lines[keep]["chain"], lock=lock), finished
