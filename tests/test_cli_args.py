"""Command-line numbers that used to end in a traceback or a hang (issue 28, item 12 and the
`--parallel` part of item 11): each gives a one-line error naming the option with exit 2, or a
correct result.

`report` and `select` run over three tiny traces of "model" systems: reference agents on two or
three episodes, whose headers say they are models, so that the selector (which ranks model
systems only) and its k-medoids run on them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memriskbench.cli.main import build_parser, main
from memriskbench.episodes.episode import Episode
from memriskbench.play.runner import run
from memriskbench.play.systems.reference import ReferenceAgent

from .conftest import EPISODES

SAMPLE = EPISODES / "R1" / "r1-office-server-room-code.yaml"
FEW = ("r1-office-server-room-code", "r2-household-garage-code-scope", "r3-medical-family-overreach")


class PretendModel(ReferenceAgent):
    """A reference agent whose trace header says it is a model, as a llama run's does."""

    def identity(self) -> dict[str, Any]:
        return {**super().identity(), "kind": "llama", "name": f"llama:{self.name}"}


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one command, whether it returns or argparse exits."""
    try:
        code = main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _refused(code: int, err: str, option: str) -> None:
    assert code == 2 and "Traceback" not in err, (code, err)
    errors = [ln for ln in err.splitlines() if "error:" in ln]
    assert len(errors) == 1 and option in errors[0], err


def _model_traces(episodes: list[Episode], folder: Path, ids: tuple[str, ...]) -> list[str]:
    folder.mkdir(exist_ok=True)
    chosen = [e for e in episodes if e.id in ids]
    paths = []
    for name in ("oracle", "leaky", "stale"):
        path = folder / f"{name}.jsonl"
        run(PretendModel(name), chosen, path)
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def three_models(episodes: list[Episode], tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return _model_traces(episodes, tmp_path_factory.mktemp("models3"), FEW)


@pytest.fixture(scope="module")
def two_episode_models(episodes: list[Episode], tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return _model_traces(episodes, tmp_path_factory.mktemp("models2"), FEW[:2])


# run ------------------------------------------------------------------------------------------------------


def _run_args(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--agent",
        "openai",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--episodes",
        str(SAMPLE),
        "--out",
        str(tmp_path / "t.jsonl"),
        "--quiet",
        *extra,
    ]


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "-inf", "1e300", "soon"])
def test_timeout_must_be_a_finite_positive_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    code, _, err = _cli(_run_args(tmp_path, "--timeout", value), capsys)
    _refused(code, err, "--timeout")
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.parametrize("value", ["100000", "65", "0"])
def test_parallel_is_capped(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    code, _, err = _cli(_run_args(tmp_path, "--parallel", value), capsys)
    _refused(code, err, "--parallel")
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--n-ctx", "255"),
        ("--n-ctx", "0"),
        ("--n-ctx", "1048577"),
        ("--n-ctx", "1" + "0" * 400),
        ("--max-tokens", "0"),
        ("--max-tokens", "65537"),
        ("--max-tokens", "many"),
    ],
)
def test_n_ctx_and_max_tokens_are_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    code, _, err = _cli(_run_args(tmp_path, option, value), capsys)
    _refused(code, err, option)
    assert not (tmp_path / "t.jsonl").exists()


def test_sane_values_still_parse() -> None:
    args = build_parser().parse_args(_run_args(Path("/tmp"), "--parallel", "64", "--timeout", "0.5"))
    assert args.parallel == 64 and args.timeout == 0.5
    args = build_parser().parse_args(["select", "a.jsonl", "--seed", "0", "--fraction", "1"])
    assert args.seed == 0 and args.fraction == 1.0 and args.resamples == 1000
    args = build_parser().parse_args(_run_args(Path("/tmp")))
    assert args.n_ctx == 4096 and args.max_tokens == 256  # the defaults the README gives
    for n_ctx, max_tokens in (("256", "1"), ("1048576", "65536")):
        args = build_parser().parse_args(_run_args(Path("/tmp"), "--n-ctx", n_ctx, "--max-tokens", max_tokens))
        assert (args.n_ctx, args.max_tokens) == (int(n_ctx), int(max_tokens))
    args = build_parser().parse_args(["select", "a.jsonl", "--resamples", "100000"])
    assert args.resamples == 100_000


# select -----------------------------------------------------------------------------------------------------


def test_select_seed_below_zero_is_refused(three_models: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(["select", *three_models, "--episodes", str(EPISODES), "--seed", "-1"], capsys)
    _refused(code, err, "--seed")


@pytest.mark.parametrize("value", ["0", "100001", "-5", "1e3"])
def test_select_resamples_is_bounded(three_models: list[str], capsys: pytest.CaptureFixture[str], value: str) -> None:
    code, _, err = _cli(["select", *three_models, "--episodes", str(EPISODES), "--resamples", value], capsys)
    _refused(code, err, "--resamples")


def test_select_a_fraction_that_selects_nothing_is_refused(
    three_models: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(["select", *three_models, "--episodes", str(EPISODES), "--fraction", "1e-9"], capsys)
    _refused(code, err, "--fraction")
    assert "1/3" in err or "0.34" in err  # it says what would select one


def test_select_over_three_small_model_traces_runs_every_method(
    three_models: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for method in ("greedy", "k-medoids", "feature-clusters", "risk-stratified", "random"):
        code, out, err = _cli(
            ["select", *three_models, "--episodes", str(EPISODES), "--method", method, "--resamples", "5", "--json"],
            capsys,
        )
        assert code == 0 and "Traceback" not in err, err
        chosen = json.loads(out)
        assert len(chosen["episodes"]) == 1 and set(chosen["episodes"]) <= set(FEW)


# report -----------------------------------------------------------------------------------------------------


def test_report_over_three_small_model_traces(
    three_models: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(["report", *three_models, "--episodes", str(EPISODES), "--out", str(tmp_path / "r")], capsys)
    assert code == 0 and "Traceback" not in err, err
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    methods = {row["method"] for row in results["selector"]["table"]}
    assert {"k-medoids", "feature-clusters"} <= methods


def test_report_over_two_episodes_says_why_there_is_no_method_table(
    two_episode_models: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(
        ["report", *two_episode_models, "--episodes", str(EPISODES), "--out", str(tmp_path / "r")], capsys
    )
    assert code == 0 and "Traceback" not in err, err
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert "selects no episode" in results["selector"]["skipped"]
    assert "No method table" in (tmp_path / "r" / "report.md").read_text()


def test_a_json_subset_with_a_huge_number_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 28, item 12: a number of more than 4,300 digits in a --subset file."""
    subset = tmp_path / "subset.json"
    subset.write_text('{"episodes": [1' + "0" * 5000 + "]}")
    assert main(["run", "--agent", "oracle", "--subset", str(subset), "--out", str(tmp_path / "t.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "subset.json" in err and "Traceback" not in err
