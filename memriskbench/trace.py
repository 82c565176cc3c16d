"""JSONL traces: typed records, a hash-chained writer, a verifying reader, and resume.

Each line is canonical JSON carrying `seq` and `chain` = sha256(previous chain + the line's canonical
form without `chain`). Any changed byte, inserted line or reordering breaks the chain. Timing lives
under `timing` only, so `strip_timing` gives the part that must repeat byte for byte.
"""

from __future__ import annotations

import fcntl
import functools
import gzip
import json
import os
import types
import typing
import zlib
from dataclasses import asdict, dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from .canonical import dumps, sha256_text
from .errors import TraceError

GENESIS = "0" * 64


class Termination(str, Enum):
    COMPLETED = "completed"
    MAX_STEPS = "max_steps"
    PARSE_ERROR = "parse_error"
    MODEL_ERROR = "model_error"


@dataclass(frozen=True, slots=True, kw_only=True)
class Header:
    type: str = "header"
    schema_version: int
    memriskbench_version: str
    system: dict[str, Any]
    model: dict[str, Any] | None
    seed: int
    episodes: dict[str, str]  # episode id -> sha256 of its canonical form


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeStart:
    type: str = "episode_start"
    episode: str
    risk: str
    tier: str
    domain: str
    sha256: str


@dataclass(frozen=True, slots=True, kw_only=True)
class EventRecord:
    """An ingested non-decision event. `ground_truth` holds hidden annotations, for auditors."""

    type: str = "event"
    episode: str
    event: str
    kind: str
    speaker: str | None
    timestamp: str | None
    text: str
    ground_truth: dict[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryOpRecord:
    """A system's own memory operation on ingesting an event (the managed strategy)."""

    type: str = "memory_op"
    episode: str
    event: str
    raw_output: str
    op: dict[str, Any]
    result: str
    store: list[dict[str, Any]]
    tokens: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """One step of a decision: what the system saw, what it said, what it did, the world then."""

    type: str = "decision"
    episode: str
    decision: str
    step: int
    requester: str
    query: str
    tools: list[str]
    context: dict[str, Any]
    raw_output: str
    action: dict[str, Any] | None
    error: str | None
    tool_result: Any
    memory: list[dict[str, Any]]
    agent_memory: list[dict[str, Any]] | None
    constraints: dict[str, str]
    visible_scopes: list[str]
    tokens: dict[str, int]
    timing: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodeEnd:
    type: str = "episode_end"
    episode: str
    path: list[str]
    termination: str
    final_actions: dict[str, str]
    timing: dict[str, float] = field(default_factory=dict)


Record = Header | EpisodeStart | EventRecord | MemoryOpRecord | Decision | EpisodeEnd
RECORD_TYPES: dict[str, type] = {
    "header": Header,
    "episode_start": EpisodeStart,
    "event": EventRecord,
    "memory_op": MemoryOpRecord,
    "decision": Decision,
    "episode_end": EpisodeEnd,
}


def _shape_ok(value: Any, hint: Any) -> bool:
    """Does a JSON value have the shape a record field is declared with (one level deep)?"""
    if hint is Any:
        return True
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_shape_ok(value, h) for h in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if origin is list:
        (item,) = typing.get_args(hint)
        return isinstance(value, list) and all(_shape_ok(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(hint)
        return isinstance(value, dict) and all(isinstance(k, str) and _shape_ok(v, item) for k, v in value.items())
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _action_ok(action: Any) -> bool:
    if action is None:
        return True
    if (
        not isinstance(action, dict)
        or not isinstance(action.get("type"), str)
        or not isinstance(action.get("content", ""), str)
    ):
        return False
    return action["type"] != "tool_call" or (
        isinstance(action.get("tool"), str) and isinstance(action.get("args", {}), dict)
    )


def record_from_dict(d: dict[str, Any]) -> Record:
    """A typed record; ValueError naming the field when a value has the wrong shape (a trace whose
    chain verifies can still hold a malformed record, and the scorer must not trip on it)."""
    cls = RECORD_TYPES.get(d.get("type", ""))
    if cls is None:
        raise ValueError(f"unknown record type {d.get('type')!r}")
    body = {k: v for k, v in d.items() if k not in ("seq", "chain")}
    hints = _hints(cls)
    for name, value in body.items():
        if name in hints and not _shape_ok(value, hints[name]):
            raise ValueError(f"{d.get('type')}.{name} has the wrong shape: {str(value)[:60]!r}")
    if cls is Decision and not _action_ok(body.get("action")):
        raise ValueError(f"decision.action has the wrong shape: {str(body.get('action'))[:60]!r}")
    if cls is Decision and not all(
        isinstance(m, dict) and isinstance(m.get("id"), str) and isinstance(m.get("status"), str)
        for m in body.get("memory", [])
    ):
        raise ValueError("decision.memory has the wrong shape")
    record: Record = cls(**body)
    return record


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
        if data[:2] == GZIP_MAGIC:  # a released, compressed trace (see `memriskbench.pack`)
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
