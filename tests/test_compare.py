"""`memriskbench compare`: a re-run against a released trace, and the build difference named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memriskbench.cli.main import main
from memriskbench.play.actions import Action
from memriskbench.play.runner import run

from .test_runner import Scripted, branching


class Built(Scripted):
    """A scripted system that reports a model build, as a llama system does."""

    def __init__(self, replies: list[Any], system_info: str) -> None:
        super().__init__(replies)
        self.system_info = system_info

    def model_identity(self) -> dict[str, Any]:  # type: ignore[override]
        return {"sha256": "ab" * 32, "llama_cpp_version": "0.3.36", "system_info": self.system_info}


PORTABLE = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | FMA = 1 |"
NATIVE = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | FMA = 1 | AVX512 = 1 | AMX_INT8 = 1 |"


def _trace(tmp_path: Path, name: str, answer: str, info: str) -> str:
    out = tmp_path / f"{name}.jsonl"
    run(Built([Action("clarify", "Which Chris?"), Action("answer", answer)], info), [branching()], out)
    return str(out)


def test_identical_reruns_compare_equal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _trace(tmp_path, "a", "4pm", PORTABLE)
    b = _trace(tmp_path, "b", "4pm", PORTABLE)
    assert main(["compare", a, b]) == 0
    assert "1 of 1 common episode(s) identical" in capsys.readouterr().out


def test_a_difference_names_the_decision_and_the_build(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _trace(tmp_path, "a", "4pm", PORTABLE)
    b = _trace(tmp_path, "b", "4 pm", NATIVE)
    assert main(["compare", a, b]) == 1
    out = capsys.readouterr().out
    assert "differs: t-branch: first at decision d2 step 0" in out
    assert "the builds differ" in out and "only in new: AMX_INT8 = 1, AVX512 = 1" in out


def test_same_build_different_output_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _trace(tmp_path, "a", "4pm", PORTABLE)
    b = _trace(tmp_path, "b", "16:00", PORTABLE)
    assert main(["compare", a, b]) == 1
    assert "the builds and model files are the same" in capsys.readouterr().out


def test_compare_of_a_missing_trace_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(tmp_path / "nope.jsonl"), str(tmp_path / "nope2.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "nope.jsonl" in err and len(err.strip().splitlines()) == 1
