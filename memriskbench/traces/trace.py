"""JSONL traces: a hash-chained writer, a verifying reader, and resume (the records: `records.py`).

Each line is canonical JSON carrying `seq` and `chain` = sha256(previous chain + the line's canonical
form without `chain`). Any changed byte, inserted line or reordering breaks the chain. Timing lives
under `timing` only, so `strip_timing` gives the part that must repeat byte for byte.
"""

from __future__ import annotations

import fcntl
import gzip
import os
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from memriskbench.common.canonical import dumps, sha256_text
from memriskbench.common.jsonsafe import JSONError, loads
from memriskbench.errors import TraceError
from memriskbench.traces.records import EpisodeEnd, EpisodeStart, Header, Record, record_from_dict

GENESIS = "0" * 64


def chain_of(prev: str, body: dict[str, Any]) -> str:
    return sha256_text(prev + dumps(body))


def encode_line(record: Record, seq: int, prev: str) -> tuple[bytes, str]:
    """The line a record is written as at `seq` after chain `prev`, and its chain."""
    body = asdict(record)
    body["seq"] = seq
    body["chain"] = chain_of(prev, body)
    return (dumps(body) + "\n").encode("utf-8"), body["chain"]


class TraceLock:
    """An exclusive lock on a trace (`TRACE.lock` beside it, flock'd), so that a second run on the
    same `--out` is refused instead of interleaving its lines with the first. The kernel drops
    the lock when the holder exits, killed or not, so a stale lock file never blocks a resume.
    The lock sits beside the resolved path: a symlink to a trace being written meets the same lock."""

    def __init__(self, path: Path) -> None:
        real = Path(os.path.realpath(path))
        self.path = real.with_name(real.name + ".lock")
        real.parent.mkdir(parents=True, exist_ok=True)
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
        data, chain = encode_line(record, self.seq, self.chain)
        self._fh.write(data)
        self._fh.flush()
        self.seq += 1
        self.chain = chain

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
HEADER_LIMIT = 16 << 20  # bytes of a first line read to tell a trace (a header holds ~100 bytes an episode)


def holds_trace(path: str | Path) -> bool:
    """Whether `path` is a trace: a file (plain or gzip-packed) whose first line is a header
    record. Commands check their output paths with it, so that none writes over a trace."""
    p = Path(path)
    if not p.is_file():
        return False
    try:
        with open(p, "rb") as fh:
            packed = fh.read(2) == GZIP_MAGIC
            fh.seek(0)
            first = (gzip.GzipFile(fileobj=fh) if packed else fh).readline(HEADER_LIMIT)
        obj = loads(first.decode("utf-8"))
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, JSONError):
        return False
    return isinstance(obj, dict) and obj.get("type") == "header" and "seq" in obj and "chain" in obj


def read_lines(path: str | Path, *, strict: bool = True, salvage: bool = False) -> TraceRead:
    """Read and verify every line. Lenient mode drops one unterminated last line (a killed run).
    Salvage mode also stops at the first bad line instead of raising, keeping the verified prefix."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise TraceError(f"cannot read trace: {exc}", file=str(p)) from None
    except MemoryError:
        raise TraceError("cannot read trace: too large to hold in memory", file=str(p)) from None
    return lines_of(data, str(p), strict=strict, salvage=salvage)


def lines_of(data: bytes, name: str, *, strict: bool = True, salvage: bool = False) -> TraceRead:
    """`read_lines` on a file's bytes already read (`name` names it in messages)."""
    data, damage = unpack(data, name, salvage)
    if not salvage:
        return _verify(data, name, strict)
    try:
        got = _verify(data, name, strict=False)
    except TraceError as exc:
        prefix = _verify(data[: _line_start(data, (exc.line or 1) - 1)], name, strict=False)
        prefix.error = exc if damage is None else TraceError(f"{exc.message} ({damage})", file=name, line=exc.line)
        return prefix
    if damage is not None:
        # The line the damage cut into is lost with everything after it, as for a plain trace
        # cut mid-line; it is named, and so is the byte where decompression stopped.
        got.partial_tail = False
        got.error = TraceError(f"{damage}; this line and those after it are lost", file=name, line=len(got.lines) + 1)
    return got


def unpack(data: bytes, name: str, salvage: bool = False) -> tuple[bytes, str | None]:
    """A file's trace bytes: gzip-packed ones decompressed (see `memriskbench.traces.pack`).
    Where the compressed stream is damaged, salvage mode keeps what decompressed before the
    damage and says where it is (the second value); otherwise the damage is a TraceError."""
    if data[:2] != GZIP_MAGIC:
        return data, None
    try:
        return gzip.decompress(data), None
    except (OSError, EOFError, zlib.error) as exc:
        if not salvage:
            raise TraceError(f"cannot read trace: {exc}", file=name) from None
    except MemoryError:  # a gzip bomb, or a file larger than memory
        raise TraceError("cannot read trace: too large to hold in memory", file=name) from None
    try:
        return _gunzip_prefix(data)
    except MemoryError:
        raise TraceError("cannot read trace: too large to hold in memory", file=name) from None


GZIP_STEP = 4096  # compressed bytes fed at a time while salvaging; the damage is then found to the byte


def _gunzip_prefix(data: bytes) -> tuple[bytes, str]:
    """What decompresses before the damage in a gzip stream `gzip.decompress` refused, and where
    it stopped. zlib notices a changed byte where the stream stops making sense, at or after it."""
    out = bytearray()
    start = 0  # where the current gzip member starts (a file may hold several, as gzip allows)
    d = zlib.decompressobj(wbits=31)
    pos = 0
    while True:
        if d.eof:  # a member ended: what follows is another member, padding, or damage
            rest = data[pos - len(d.unused_data) :].lstrip(b"\0")
            if not rest:
                return bytes(out), f"the gzip stream is damaged (it ends at byte offset {len(data)})"
            start = pos = len(data) - len(rest)
            d = zlib.decompressobj(wbits=31)
        if pos >= len(data):
            return bytes(out), f"the gzip stream ends early (the file is cut short at byte offset {len(data)})"
        before = d.copy()
        chunk = data[pos : pos + GZIP_STEP]
        try:
            out += d.decompress(chunk)
        except zlib.error:
            return _gunzip_at(before, chunk, pos, start, out)
        pos += len(chunk)


def _gunzip_at(d: Any, chunk: bytes, pos: int, start: int, out: bytearray) -> tuple[bytes, str]:
    """The chunk zlib refused, fed again one byte at a time, to name the byte it stopped at."""
    for i in range(len(chunk)):
        try:
            out += d.decompress(chunk[i : i + 1])
        except zlib.error as exc:
            where = "header" if pos + i - start < 10 else "stream"
            why = str(exc).rsplit(": ", 1)[-1]  # zlib's own words, without "Error -3 while decompressing"
            return bytes(out), f"the gzip {where} is damaged: decompression stops at byte offset {pos + i} ({why})"
    return bytes(out), f"the gzip stream is damaged near byte offset {pos}"


def _line_start(data: bytes, k: int) -> int:
    """Byte offset where line `k` (0-based) starts. Lines end at a newline only, as `_verify`
    reads them (bytes.splitlines would also split at a stray carriage return, and miscount)."""
    pos = 0
    for _ in range(k):
        nl = data.find(b"\n", pos)
        if nl < 0:
            return len(data)
        pos = nl + 1
    return pos


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
            obj = loads(text)
        except (UnicodeDecodeError, JSONError) as exc:
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
        # Only part of a first line: a run killed while writing its header, or a file that is no
        # trace at all (a note, an answers file without its last newline). Only the first is ours.
        if not encode_line(header, 0, GENESIS)[0].startswith(p.read_bytes()):
            raise TraceError(
                "not a trace of this run (one line without a newline, not the start of this run's "
                "header); refusing to write over it: use another --out",
                file=str(p),
            )
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
