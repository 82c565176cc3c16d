"""`memriskbench compare OLD NEW`: is a re-run the same as a released trace, and if not, why?

Episodes both traces finished are compared record by record once `timing`, `chain` and `seq`
are removed (the part that must repeat byte for byte). Where they differ, the headers say what
else differed: above all the build (`model.system_info` lists the CPU features llama.cpp was
compiled with, `model.llama_cpp_version` its version), the model file, or the settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memriskbench.common.canonical import dumps
from memriskbench.traces.trace import read_lines, strip_timing

# Header fields that name the build or the model file rather than the system's settings.
BUILD_FIELDS = ("model.system_info", "model.llama_cpp_version", "model.sha256", "model.chat_template_sha256")


def episode_records(path: str | Path, salvage: bool = False) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The header and, per finished episode, its records in comparable form (no timing, chain,
    seq). `salvage`: use the verified prefix of a damaged trace instead of raising."""
    lines = read_lines(path, strict=False, salvage=salvage).lines
    header = strip_timing(lines[0]) if lines else {}
    header.pop("seq", None)
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for obj in lines[1:]:
        body = strip_timing(obj)
        body.pop("seq", None)
        if obj.get("type") == "episode_start":
            current = []
        current.append(dumps(body))
        if obj.get("type") == "episode_end":
            out[obj["episode"]] = current
    return header, out


def _flat(obj: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            out.update(_flat(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: obj}


def _system_info_delta(a: str, b: str) -> str:
    """'AVX512 = 1' only in one of them, and so on: the features that differ."""
    fa = {p.strip() for p in a.split("|") if p.strip()}
    fb = {p.strip() for p in b.split("|") if p.strip()}
    only_a, only_b = sorted(fa - fb), sorted(fb - fa)
    return f"only in old: {', '.join(only_a) or 'nothing'}; only in new: {', '.join(only_b) or 'nothing'}"


@dataclass
class Comparison:
    common: int
    identical: list[str] = field(default_factory=list)
    differing: list[tuple[str, str]] = field(default_factory=list)  # (episode, first differing record)
    header: list[str] = field(default_factory=list)  # header fields that differ, episode digests aside
    build: list[str] = field(default_factory=list)  # the build or model file differences among them

    @property
    def same(self) -> bool:
        return self.common > 0 and not self.differing

    def lines(self) -> list[str]:
        out = [f"{len(self.identical)} of {self.common} common episode(s) identical (timing, chain and seq aside)"]
        for eid, where in self.differing:
            out.append(f"differs: {eid}: first at {where}")
        if self.build:
            out.append("the builds differ, which explains a difference in model output:")
            out += [f"  {b}" for b in self.build]
        elif self.differing:
            out.append("the builds and model files are the same")
        out += [f"header differs: {h}" for h in self.header]
        return out


def _where(record: str) -> str:
    import json

    obj = json.loads(record)
    kind = obj.get("type", "?")
    if kind == "decision":
        return f"decision {obj.get('decision')} step {obj.get('step')}"
    if kind in ("event", "memory_op"):
        return f"{kind} {obj.get('event')}"
    return kind


def compare(old: str | Path, new: str | Path) -> Comparison:
    h_old, e_old = episode_records(old)
    h_new, e_new = episode_records(new)
    common = sorted(set(e_old) & set(e_new))
    result = Comparison(common=len(common))
    for eid in common:
        a, b = e_old[eid], e_new[eid]
        if a == b:
            result.identical.append(eid)
            continue
        first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        where = _where(a[first]) if first < len(a) else f"record {first} (one trace has more records)"
        result.differing.append((eid, where))
    fa, fb = (
        _flat({k: v for k, v in h_old.items() if k != "episodes"}),
        _flat({k: v for k, v in h_new.items() if k != "episodes"}),
    )
    for key in sorted(set(fa) | set(fb)):
        if fa.get(key) == fb.get(key):
            continue
        if key == "model.system_info" and isinstance(fa.get(key), str) and isinstance(fb.get(key), str):
            line = f"{key}: {_system_info_delta(fa[key], fb[key])}"
        else:
            line = f"{key}: {fa.get(key)!r} -> {fb.get(key)!r}"
        (result.build if key in BUILD_FIELDS else result.header).append(line)
    return result
