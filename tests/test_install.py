"""The llama-cpp-python install: one wheel per (version, build flags), never reused under others,
and a default build that is portable across x86-64 CPUs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "install_llama.py"
PORTABLE = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DLLAVA_BUILD=OFF"


def _dry(wheelhouse: Path, venv_python: Path, cmake_args: str) -> str:
    out = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--version",
            "0.3.36",
            "--cmake-args",
            cmake_args,
            "--wheelhouse",
            str(wheelhouse),
            "--python",
            str(venv_python),
            "--dry-run",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def _key(cmake_args: str) -> str:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--version", "0.3.36", "--cmake-args", cmake_args, "--wheelhouse", "x", "--key"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_new_flags_build_a_new_wheel_and_the_same_flags_reuse_it(tmp_path: Path) -> None:
    venv_python = tmp_path / "venv" / "bin" / "python"
    venv_python.parent.mkdir(parents=True)
    house = tmp_path / "wheels"
    # nothing built yet: build, then install
    assert _dry(house, venv_python, PORTABLE).split()[2:4] == ["build", "install"]
    key = _key(PORTABLE)
    (house / key).mkdir(parents=True)
    (house / key / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl").write_bytes(b"stand-in")
    # the same flags: the kept wheel is reused
    assert _dry(house, venv_python, PORTABLE).split()[2:4] == ["reuse", "install"]
    # once installed with these flags (the marker the installer writes), nothing is left to do
    (venv_python.parent.parent / ".llama-build-key").write_text(key + "\n")
    assert _dry(house, venv_python, PORTABLE).split()[2:4] == ["reuse", "nothing"]
    # other flags (a CUDA build, a native build): a new key, a new build, a reinstall
    for other in (PORTABLE + " -DGGML_CUDA=on", "-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF"):
        assert _key(other) != key
        assert _dry(house, venv_python, other).split()[2:4] == ["build", "install"]


def test_the_key_ignores_spacing_but_not_flag_values() -> None:
    assert _key(PORTABLE) == _key("  " + PORTABLE.replace(" ", "   ") + " ")
    assert _key(PORTABLE) != _key(PORTABLE.replace("AVX512=OFF", "AVX512=ON"))


def test_makefile_default_build_is_portable() -> None:
    """`make install` with no arguments asks for the x86-64-v3 set and nothing newer, and pip's
    wheel cache is bypassed for the build."""
    out = subprocess.run(
        ["make", "-n", "-B", "install", "PYTHON=" + sys.executable],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(ln for ln in out.splitlines() if "install_llama.py" in ln and "--cmake-args" in ln)
    if "x86_64" in subprocess.run(["uname", "-m"], capture_output=True, text=True).stdout:
        for flag in (
            "-DGGML_NATIVE=OFF",
            "-DGGML_AVX2=ON",
            "-DGGML_FMA=ON",
            "-DGGML_F16C=ON",
            "-DGGML_BMI2=ON",
            "-DGGML_AVX512=OFF",
            "-DGGML_AMX_INT8=OFF",
        ):
            assert flag in line
    assert "--no-cache-dir" in SCRIPT.read_text()


def test_installed_build_reports_no_avx512_or_amx() -> None:
    """What the binary itself says it was compiled with: the portable build never uses AVX-512 or
    AMX, whatever CPU it runs on (ggml reports compile-time features here)."""
    llama_cpp = pytest.importorskip("llama_cpp")
    marker = Path(sys.prefix) / ".llama-build-key"
    flags = marker.read_text().split("\n")[1] if marker.is_file() else ""
    if "-DGGML_NATIVE=OFF" not in flags.split():
        pytest.skip("llama-cpp-python was not installed by `make install` with the portable default")
    info = llama_cpp.llama_print_system_info().decode()
    assert "AVX2 = 1" in info or "NEON = 1" in info
    assert "AVX512 = 1" not in info and "AMX_INT8 = 1" not in info
