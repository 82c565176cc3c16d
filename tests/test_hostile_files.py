"""Hostile files the tool reads (issue 28, items 6, 7 and part of 12): published results that are
not numbers, edited model traces, bad gzip, deep nesting and huge integers in traces, answers
files and published results, and episodes whose patterns are too large to compile. Each ends in
a one-line error naming the file (and line or field) or an audit failure naming it, exit 1 or
2, never a traceback and never a silent pass."""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
import resource
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memriskbench.cli.main import main
from memriskbench.common.canonical import dumps
from memriskbench.common.jsonsafe import MAX_DEPTH, MODEL_DEPTH, JSONError, loads
from memriskbench.common.patterns import valid as valid_pattern
from memriskbench.common.textrules import pattern_problem
from memriskbench.episodes.loader import load_episode
from memriskbench.play.runner import run
from memriskbench.play.systems.agent import ModelSystem
from memriskbench.play.systems.backends.base import Completion
from memriskbench.play.systems.reference import ReferenceAgent
from memriskbench.results.audit import _check_raw
from memriskbench.traces.trace import GENESIS, chain_of, read_trace

from .conftest import EPISODES

SAMPLE = EPISODES / "R1" / "r1-office-server-room-code.yaml"  # the oracle calls a tool, then answers
SPARE_KEY = EPISODES / "R4" / "r4-household-spare-key.yaml"
HYPO = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _cli(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def _one_line_error(code: int, err: str, *names: str) -> str:
    assert code in (1, 2) and "Traceback" not in err, (code, err)
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, err
    for name in names:
        assert name in lines[0], (name, err)
    return lines[0]


def _rechain(objs: list[dict[str, Any]]) -> bytes:
    out, prev = [], GENESIS
    for seq, obj in enumerate(objs):
        body = {k: v for k, v in obj.items() if k != "chain"}
        body["seq"] = seq
        body["chain"] = prev = chain_of(prev, body)
        out.append(dumps(body) + "\n")
    return "".join(out).encode()


@cache
def _oracle_bytes() -> bytes:
    import tempfile

    path = Path(tempfile.mkdtemp()) / "oracle.jsonl"
    run(ReferenceAgent("oracle"), [load_episode(SAMPLE)], path)
    return path.read_bytes()


@pytest.fixture
def oracle(tmp_path: Path) -> Path:
    p = tmp_path / "oracle.jsonl"
    p.write_bytes(_oracle_bytes())
    return p


@cache
def _published_bytes() -> bytes:
    import tempfile

    p = Path(tempfile.mkdtemp()) / "oracle.jsonl"
    p.write_bytes(_oracle_bytes())
    code, out, _ = _cli(["score", str(p), "--episodes", str(SAMPLE), "--json"])
    assert code == 0
    return out.encode()


def _published() -> dict[str, Any]:
    return json.loads(_published_bytes())


def _audit(trace: Path, published: Path) -> tuple[int, str, str]:
    return _cli(["audit", str(trace), "--episodes", str(SAMPLE), "--published", str(published)])


# 6. published results -------------------------------------------------------------------------------------

NOT_NUMBERS = [
    ("string", '"0.12"'),
    ("nan", "NaN"),
    ("infinity", "Infinity"),
    ("overflow", "1e999"),
    ("bool", "true"),
    ("list", "[1.0]"),
    ("estimate-string", '{"value": "1.0", "n": 1}'),
]


@pytest.mark.parametrize(("name", "value"), NOT_NUMBERS, ids=[n for n, _ in NOT_NUMBERS])
def test_a_published_pass_rate_that_is_not_a_number_is_an_error_naming_file_and_field(
    oracle: Path, tmp_path: Path, name: str, value: str
) -> None:
    text = json.dumps(_published()).replace('"pass_rate": 1.0', '"pass_rate": ' + value, 1)
    assert text != json.dumps(_published())
    pub = tmp_path / "pub.json"
    pub.write_text(text)
    code, out, err = _audit(oracle, pub)
    _one_line_error(code, err, "pub.json", "systems[0].default.pass_rate")
    assert code == 2 and not out


SHAPES = [
    ("list", "[]", "not an array"),
    ("number", "3", "not a number"),
    ("systems-string", '{"systems": "oracle"}', "systems: expected an array, got a string"),
    ("system-string", '{"systems": ["oracle"]}', "systems[0]: expected an object"),
    ("variant-string", '{"systems": [{"name": "oracle", "default": "x"}]}', "systems[0].default: expected an object"),
    ("deep", "[" * 5000 + "]" * 5000, "nested deeper"),
    ("huge-int", '{"systems": ' + "7" * 5000 + "}", "4300 digits"),
    ("not-json", '{"systems": [', "not JSON"),
    ("not-utf8", "\udcff", "cannot read published results"),
]


@pytest.mark.parametrize(("name", "text", "message"), SHAPES, ids=[n for n, _, _ in SHAPES])
def test_a_published_file_of_the_wrong_shape_is_one_line(
    oracle: Path, tmp_path: Path, name: str, text: str, message: str
) -> None:
    pub = tmp_path / "pub.json"
    pub.write_bytes(text.encode("utf-8", "surrogateescape"))
    code, _, err = _audit(oracle, pub)
    _one_line_error(code, err, "pub.json", message)


def test_a_bad_sidecar_is_one_line_too(oracle: Path) -> None:
    Path(str(oracle) + ".results.json").write_text("[]")
    code, _, err = _cli(["audit", str(oracle), "--episodes", str(SAMPLE)])
    _one_line_error(code, err, "oracle.jsonl.results.json")


def test_a_published_number_audit_does_not_rescore_fails(oracle: Path, tmp_path: Path) -> None:
    published = _published()
    published["systems"][0]["default"]["pass_rate"] = {"claimed": 0.97}
    pub = tmp_path / "pub.json"
    pub.write_text(json.dumps(published))
    code, out, _ = _audit(oracle, pub)
    assert code == 1 and "default.pass_rate.claimed: published 0.97, which audit does not re-score" in out


def test_a_faithful_published_file_still_audits_ok(oracle: Path, tmp_path: Path) -> None:
    pub = tmp_path / "pub.json"
    pub.write_bytes(_published_bytes())
    assert _audit(oracle, pub)[0] == 0


# 7. raw outputs of openai and replay traces -----------------------------------------------------------------


class Scripted:
    """A backend that answers each step with the oracle's raw reply, under the kind of a server
    (`openai`) or an answers file (`replay`); managed memory operations create one record."""

    def __init__(self, kind: str, replies: dict[str, str], default: str | None = None) -> None:
        self.kind, self.label, self.replies, self.default = kind, "scripted", replies, default

    def decoding(self) -> dict[str, Any]:
        return {}

    def model_identity(self) -> dict[str, Any]:
        return {"scripted": True}

    def reset(self) -> None:
        pass

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        if key.endswith("/memory"):
            return Completion('{"op": "create", "key": "note", "value": "seen"}', {}, False)
        return Completion(self.replies.get(key, self.default or ""), {}, False)

    def close(self) -> None:
        pass


@cache
def _model_trace(kind: str, strategy: str) -> bytes:
    import tempfile

    oracle = read_trace_bytes(_oracle_bytes())
    replies = {
        f"{o['episode']}/{o['decision']}/{o['step']}": o["raw_output"] for o in oracle if o["type"] == "decision"
    }
    path = Path(tempfile.mkdtemp()) / f"{kind}.jsonl"
    run(ModelSystem(Scripted(kind, replies), strategy), [load_episode(SAMPLE)], path)  # type: ignore[arg-type]
    return path.read_bytes()


def read_trace_bytes(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(x) for x in data.decode().splitlines()]


EDITS: dict[str, Any] = {  # what an editor might change in a recorded decision
    "content": lambda d: d["action"].update(content="edited"),
    "type": lambda d: d["action"].update(type="answer" if d["action"]["type"] == "refuse" else "refuse"),
    "args": lambda d: d["action"].update(type="tool_call", tool="lookup", args={"query": "edited"}),
    "dropped": lambda d: d.update(action=None),
    "raw": lambda d: d.update(raw_output="not json"),
}


@pytest.mark.parametrize("kind", ["openai", "replay"])
def test_unedited_openai_and_replay_traces_audit_clean(kind: str, tmp_path: Path) -> None:
    p = tmp_path / f"{kind}.jsonl"
    p.write_bytes(_model_trace(kind, "full"))
    assert read_trace(p).header.system["kind"] == kind
    code, out, _ = _cli(["audit", str(p), "--episodes", str(SAMPLE)])
    assert code == 0 and out.startswith("ok"), out


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.parametrize("kind", ["openai", "replay"])
def test_an_edited_action_in_an_openai_or_replay_trace_fails_the_audit(kind: str, edit: str, tmp_path: Path) -> None:
    objs = read_trace_bytes(_model_trace(kind, "full"))
    i = next(i for i, o in enumerate(objs) if o["type"] == "decision" and o["action"])
    EDITS[edit](objs[i])
    line = i + 1
    p = tmp_path / f"{kind}.jsonl"
    p.write_bytes(_rechain(objs))
    code, out, _ = _cli(["audit", str(p), "--episodes", str(SAMPLE)])
    assert code == 1 and f"{p}:{line} (" in out, out


@pytest.mark.parametrize("kind", ["llama", "openai", "replay"])
def test_an_edited_memory_operation_fails_the_raw_output_check(kind: str, tmp_path: Path) -> None:
    objs = read_trace_bytes(_model_trace("openai", "managed"))
    for o in objs:
        if o["type"] == "header":
            o["system"]["kind"] = kind
    p = tmp_path / "managed.jsonl"
    p.write_bytes(_rechain(objs))
    assert _check_raw(str(p), kind) == []
    i = next(i for i, o in enumerate(objs) if o["type"] == "memory_op" and o["op"])
    objs[i]["op"]["value"] = "edited"
    p.write_bytes(_rechain(objs))
    assert [x for x in _check_raw(str(p), kind) if f"{p}:{i + 1} " in x and "recorded operation" in x]


# 12. bad gzip, deep nesting, huge integers -------------------------------------------------------------------


def _gzip_variant(name: str) -> bytes:
    g = gzip.compress(_oracle_bytes(), mtime=0)
    return {
        "truncated": g[: len(g) // 2],
        "bad-crc": g[:-8] + b"\0" * 8,
        "trailing-garbage": g + b"garbage",
        "magic-only": g[:2],
        "bad-method": g[:2] + b"\x09" + g[3:],
        "bad-block": g[:10] + b"\xff" * 40 + g[50:],
        "not-utf8-inside": gzip.compress(b"\xff\xfe\n", mtime=0),
    }[name]


@pytest.mark.parametrize(
    "name", ["truncated", "bad-crc", "trailing-garbage", "magic-only", "bad-method", "bad-block", "not-utf8-inside"]
)
def test_a_bad_gzip_trace_is_one_line_in_every_reader(name: str, oracle: Path, tmp_path: Path) -> None:
    data = _gzip_variant(name)
    bad = tmp_path / f"{name}.jsonl.gz"
    bad.write_bytes(data)
    for args in (
        ["score", str(bad), "--episodes", str(SAMPLE)],
        ["audit", str(bad), "--episodes", str(SAMPLE)],
        ["compare", str(bad), str(oracle)],
        ["merge", str(bad), "--episodes", str(SAMPLE), "--out", str(tmp_path / "m.jsonl")],
        ["export-gatemem", str(bad), "--episodes", str(SAMPLE), "--out", str(tmp_path / "x.jsonl")],
    ):
        code, out, err = _cli(args)
        assert code in (1, 2) and "Traceback" not in err, (args, code, err)
        assert bad.name in out + err, (args, out, err)


HOSTILE_VALUES = [
    ("deep", "[" * 100_000 + "]" * 100_000, "nested deeper"),
    ("deep-under-the-parser-limit", "[" * 900 + "]" * 900, "nested deeper"),
    ("huge-int", "9" * 4301, "4300 digits"),
]


@pytest.mark.parametrize(("name", "value", "message"), HOSTILE_VALUES, ids=[n for n, _, _ in HOSTILE_VALUES])
def test_deep_nesting_or_a_huge_integer_in_a_trace_names_file_and_line(
    oracle: Path, tmp_path: Path, name: str, value: str, message: str
) -> None:
    lines = oracle.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + '{"seq": 1, "chain": "x", "value": ' + value + "}\n" + "".join(lines[2:]))
    code, out, err = _cli(["score", str(bad), "--episodes", str(SAMPLE)])
    assert code == 1 and "Traceback" not in err and f"{bad}:2: unparsable line" in err and message in err
    code, out, _ = _cli(["audit", str(bad), "--episodes", str(SAMPLE)])
    assert code == 1 and f"{bad}:2: unparsable line" in out
    for args in (["compare", str(bad), str(oracle)], ["merge", str(bad), "--out", str(tmp_path / "m.jsonl")]):
        code, _, err = _cli([*args, "--episodes", str(SAMPLE)] if args[0] == "merge" else args)
        _one_line_error(code, err, f"{bad}:2")


def _replay(answers: Path) -> tuple[int, str, str]:
    out = answers.parent / "replay.jsonl"
    return _cli(
        ["run", "--agent", "replay", "--episodes", str(SAMPLE), "--answers", str(answers), "--out", str(out), "--quiet"]
    )


@pytest.mark.parametrize(
    ("name", "line", "message"),
    [
        ("deep", "[" * 100_000 + "]" * 100_000, "nested deeper"),
        ("deep-object", '{"key": "a", "reply": "b", "x": ' + "[" * 200 + "]" * 200 + "}", "nested deeper"),
        ("huge-int", '{"key": ' + "1" * 5000 + "}", "4300 digits"),
        ("nan", '{"key": "a", "reply": "b", "prompt_sha256": NaN}', "NaN is not a JSON number"),
    ],
)
def test_a_hostile_answers_file_names_file_and_line(tmp_path: Path, name: str, line: str, message: str) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"key": "x/y/0", "reply": "{}"}\n' + line + "\n")
    code, _, err = _replay(answers)
    _one_line_error(code, err, f"{answers}:2:", message)


def test_a_reply_holding_a_line_separator_is_read_whole(tmp_path: Path) -> None:
    """U+2028 is a line break to str.splitlines, but JSON strings hold it as it is."""
    answers = tmp_path / "answers.jsonl"
    reply = json.dumps({"action": "refuse", "content": "no\u2028more"}, ensure_ascii=False)
    answers.write_text(json.dumps({"key": "x/y/0", "reply": reply}, ensure_ascii=False) + "\n", encoding="utf-8")
    code, _, err = _replay(answers)
    assert code == 0, err


def test_a_reply_as_deep_as_a_model_may_nest_is_recorded_read_back_and_scored(tmp_path: Path) -> None:
    """The reader's bound leaves room for the record around a model's JSON (MODEL_DEPTH)."""
    episode = EPISODES / "R1" / "r1-coding-analytics-db-host.yaml"  # its decision d2 offers notes_write
    inner = MODEL_DEPTH - 2  # {"action": ..., "args": {"q": <inner>}} nests MODEL_DEPTH levels
    reply = '{"action": "tool_call", "tool": "notes_write", "content": "", "args": {"q": %s}}' % (
        "[" * inner + "]" * inner
    )
    assert loads(reply, max_depth=MODEL_DEPTH)
    trace = tmp_path / "deep.jsonl"
    run(ModelSystem(Scripted("openai", {}, default=reply), "full"), [load_episode(episode)], trace)  # type: ignore[arg-type]
    assert any(r.type == "decision" and r.action and r.action["args"] for r in read_trace(trace).records)
    code, _, err = _cli(["score", str(trace), "--episodes", str(episode)])
    assert code == 0, err


def test_the_loader_bounds_depth_and_numbers() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    for text in ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "1" * 4301, "NaN", "-Infinity", "{", ""):
        with pytest.raises(JSONError):
            loads(text)
    assert math.isnan(loads("NaN", constants=True))


# Episode patterns: bounded before they are compiled ---------------------------------------------------------

OVERREACH = EPISODES / "R3" / "r3-medical-family-overreach.yaml"  # a not_regex check
NO_KEYS = EPISODES / "R5" / "r5-coding-no-keys-in-chat.yaml"  # an arg_not_regex monitor
NOT_REGEX = '{type: not_regex, pattern: "\\\\bpositive\\\\b"}'
NESTED = "((a{1000}){1000}){1000}"  # a billion items once `regex` writes every count out

# (id, episode file, the text replaced, what replaces it, the field the error names)
HOSTILE_PATTERNS = [
    ("not_regex", OVERREACH, NOT_REGEX, f'{{type: not_regex, pattern: "{NESTED}"}}', "checks[1].pattern"),
    (
        "verbose",
        OVERREACH,
        NOT_REGEX,
        '{type: not_regex, pattern: "(?x)((a{1 000}){1 000}){1 000}"}',
        "checks[1].pattern",
    ),
    (
        "gatemem",
        OVERREACH,
        NOT_REGEX,
        f'{{type: gatemem_leak, patterns: [positive, "{NESTED}"]}}',
        "checks[1].patterns[1]",
    ),
    ("monitor", NO_KEYS, '"sk_live_[a-z0-9]+|rk_live_[a-z0-9]+"', f'"{NESTED}"', "monitor.pattern"),
]


@pytest.mark.parametrize(("name", "src", "old", "new", "field"), HOSTILE_PATTERNS, ids=[h[0] for h in HOSTILE_PATTERNS])
def test_a_pattern_too_large_to_compile_is_one_line_from_validate(
    tmp_path: Path, name: str, src: Path, old: str, new: str, field: str
) -> None:
    text = src.read_text()
    assert text.count(old) == 1
    path = tmp_path / src.parent.name / src.name
    path.parent.mkdir()
    path.write_text(text.replace(old, new))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "memriskbench.cli.main", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=120,  # what ends the run if the pattern is compiled unbounded again: it never ended
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, (done.returncode, done.stderr)
    assert len(lines) == 1, lines
    for part in (str(path), f"episode={src.stem}", f"{field}: bad regex"):
        assert part in lines[0], (part, lines[0])
    # CPU time, not wall time, as in test_robustness: start-up and imports are most of it
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    assert cpu < 5.0, cpu


def test_a_pattern_is_bounded_by_what_regex_writes_out() -> None:
    refused = [
        NESTED,
        "(?:(?:a{30}){30}){30}",  # 27,931 items: nested counts multiply
        "(?x)(a{1 000}){1 000}",  # the verbose flag lets a count hold spaces
        "a{,5000}",  # a count with no lower bound is a count too
        "a{4294967294}",
        "(?V0V1)a",  # `regex` refuses these flags with a ValueError, not its own error
    ]
    assert all(valid_pattern(p) for p in refused), [p for p in refused if not valid_pattern(p)]
    assert valid_pattern("(?:a{18}){999}") is None  # 19,982 items
    assert valid_pattern("((a{1000})") is not None and pattern_problem("((a{1000})") is None  # a literal to GateMem
    assert pattern_problem(NESTED) and pattern_problem("positive") is None


# Generated hostile input: never a traceback --------------------------------------------------------------------

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["NaN", "1" * 4400, "[" * 3000, "{" * 50]),
    lambda c: (
        st.lists(c, max_size=3)
        | st.dictionaries(st.sampled_from(["key", "reply", "prompt_sha256", "x"]), c, max_size=3)
    ),
    max_leaves=8,
)
_line = st.one_of(
    _json.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=40),
    st.sampled_from([b"[" * 5000, b"7" * 4400, b'{"key": "a", "reply": NaN}', b"\xff\xfe"]),
)


@HYPO
@given(lines=st.lists(_line, min_size=1, max_size=4))
def test_generated_answers_files(tmp_path_factory: pytest.TempPathFactory, lines: list[bytes]) -> None:
    answers = tmp_path_factory.mktemp("answers") / "answers.jsonl"
    answers.write_bytes(b"".join(x.replace(b"\n", b" ") + b"\n" for x in lines))
    code, _, err = _replay(answers)
    if code == 0:
        return  # a well-formed answers file (its keys need not match a step)
    _one_line_error(code, err, "answers.jsonl")


@HYPO
@given(content=st.one_of(_line, _json.map(lambda v: json.dumps({"systems": [v]}).encode())))
def test_generated_published_files(tmp_path_factory: pytest.TempPathFactory, content: bytes) -> None:
    folder = tmp_path_factory.mktemp("pub")
    trace, pub = folder / "oracle.jsonl", folder / "pub.json"
    trace.write_bytes(_oracle_bytes())
    pub.write_bytes(content)
    code, out, err = _audit(trace, pub)
    assert code in (1, 2) and "Traceback" not in err, (code, err)
    assert "pub.json" in (err if code == 2 else out), (code, out, err)


def _same_number(value: Any, expected: float) -> bool:
    if isinstance(value, dict) and "value" in value and "n" in value:
        value = value["value"]
    return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value - expected) <= 1e-9


@HYPO
@given(value=_json)
def test_generated_published_pass_rates(tmp_path_factory: pytest.TempPathFactory, value: Any) -> None:
    """Whatever stands for the pass rate, audit passes only on the re-scored number."""
    folder = tmp_path_factory.mktemp("pub")
    trace, pub = folder / "oracle.jsonl", folder / "pub.json"
    trace.write_bytes(_oracle_bytes())
    published = _published()
    expected = published["systems"][0]["default"]["pass_rate"]
    published["systems"][0]["default"]["pass_rate"] = value
    pub.write_text(json.dumps(published))
    code, out, err = _audit(trace, pub)
    assert "Traceback" not in err
    if _same_number(value, expected):
        assert code == 0, (value, out, err)
    elif code == 2:
        _one_line_error(code, err, "pub.json", "pass_rate")
    else:
        assert code == 1 and "default.pass_rate" in out, (value, code, out, err)
