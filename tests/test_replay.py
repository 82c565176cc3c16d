"""Human baselines and batch APIs: `prompts` writes what a model would see at each step waiting for
a reply, a person (here: the test, copying the oracle's replies) answers, `run --agent replay`
plays the answers, and the steps still open go to a pending file for the next round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memriskbench.cli.main import main
from memriskbench.traces.records import Decision
from memriskbench.traces.trace import read_trace

# r1-office-server-room-code: the oracle looks the code up with a tool first, so its answer comes
# in a second round, after the tool result.
EPISODES = ("r1-office-server-room-code", "r2-household-appointment-correction", "r4-household-spare-key")


def _oracle_replies(trace: Path) -> dict[str, str]:
    return {
        f"{r.episode}/{r.decision}/{r.step}": r.raw_output
        for r in read_trace(trace).records
        if isinstance(r, Decision) and r.episode in EPISODES
    }


def _answer(pending: Path, replies: dict[str, str], answers: Path) -> list[dict]:
    """Answer every pending step with the oracle's reply (and the prompt's digest), as a person would."""
    steps = [json.loads(line) for line in pending.read_text().splitlines()]
    with answers.open("a") as fh:
        for s in steps:
            fh.write(
                json.dumps({"key": s["key"], "reply": replies[s["key"]], "prompt_sha256": s["prompt_sha256"]}) + "\n"
            )
    return steps


def _replay(answers: Path, subset: Path, out: Path) -> int:
    return main(
        ["run", "--agent", "replay", "--answers", str(answers), "--subset", str(subset), "--out", str(out), "--quiet"]
    )


def _scores(capsys: pytest.CaptureFixture[str], trace: Path) -> dict:
    capsys.readouterr()
    assert main(["score", str(trace), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["systems"][0]["default"]


def test_prompts_answers_replay_and_score_over_two_rounds(
    reference_traces: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replies = _oracle_replies(reference_traces["oracle"])
    subset = tmp_path / "subset.txt"
    subset.write_text("\n".join(EPISODES) + "\n")
    prompts, answers, trace = tmp_path / "prompts.jsonl", tmp_path / "answers.jsonl", tmp_path / "replay.jsonl"

    assert main(["prompts", "--subset", str(subset), "--out", str(prompts)]) == 0
    first = _answer(prompts, replies, answers)
    assert [s["key"].split("/")[0] for s in first] == sorted(EPISODES)  # one step per episode so far
    assert all(s["key"].endswith("/0") and s["messages"][0]["role"] == "system" and s["schema"] for s in first)

    rounds, after_tool = 0, []
    pending = tmp_path / "replay.pending.jsonl"
    while True:
        rounds += 1
        assert _replay(answers, subset, trace) == 0
        if not pending.exists():
            break
        steps = _answer(pending, replies, answers)
        after_tool += [s for s in steps if s["messages"][-1]["content"].startswith("Tool result:")]
        assert rounds < 6
    assert rounds >= 2 and after_tool, "some step must be answered in a later round, after a tool result"
    assert len(read_trace(trace).episodes()) == len(EPISODES)
    assert main(["audit", str(trace)]) == 0

    oracle_part = tmp_path / "oracle.jsonl"
    assert main(["run", "--agent", "oracle", "--subset", str(subset), "--out", str(oracle_part), "--quiet"]) == 0
    replayed, oracle = _scores(capsys, trace), _scores(capsys, oracle_part)
    # memory_status is not applicable to a system without a store of its own, so the check counts differ
    assert {k: replayed[k] for k in ("pass_rate", "per_risk", "mean_score")} == {
        k: oracle[k] for k in ("pass_rate", "per_risk", "mean_score")
    }
    assert replayed["pass_rate"] == 1.0 and replayed["checks"]["passed"] == replayed["checks"]["total"] > 0


def test_an_answer_written_for_another_prompt_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    subset = tmp_path / "subset.txt"
    subset.write_text(EPISODES[0] + "\n")
    prompts = tmp_path / "prompts.jsonl"
    assert main(["prompts", "--subset", str(subset), "--out", str(prompts)]) == 0
    key = json.loads(prompts.read_text().splitlines()[0])["key"]
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"key": key, "reply": "{}", "prompt_sha256": "0" * 64}) + "\n")
    capsys.readouterr()
    rc = _replay(answers, subset, tmp_path / "t.jsonl")
    err = capsys.readouterr().err
    assert rc == 2 and f"the answer for {key} was written for another prompt" in err
    answers.write_text('{"key": 1}\n')
    rc = _replay(answers, subset, tmp_path / "u.jsonl")
    assert rc == 2 and f"{answers}:1:" in capsys.readouterr().err
