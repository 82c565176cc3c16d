"""Build llama-cpp-python once per set of build flags and install it from a keyed wheelhouse.

pip caches the wheel it builds from an sdist without regard to CMAKE_ARGS, so a wheel built for
another CPU (or for CUDA) would be reused without a word. Here every build goes into a folder named
by a hash of (llama-cpp-python version, CMAKE_ARGS, Python tag, machine); pip's own cache is never
consulted for it. Same flags: the wheel is reused. New flags: a new build.

Standard library only: this runs with the fresh venv's Python before anything else is installed.

    python scripts/install_llama.py --version 0.3.36 --cmake-args "..." --wheelhouse DIR [--key | --dry-run]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

PACKAGE = "llama-cpp-python"


def build_key(version: str, cmake_args: str) -> str:
    """A short hash of everything that changes the built binary; flag order and spacing are kept as given."""
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    text = "\n".join([PACKAGE, version, " ".join(shlex.split(cmake_args)), tag, platform.machine()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def wheel_in(folder: Path, version: str) -> Path | None:
    wheels = sorted(folder.glob(f"llama_cpp_python-{version}-*.whl")) if folder.is_dir() else []
    return wheels[0] if wheels else None


def installed_key(venv_python: str) -> str | None:
    """The key recorded beside the installed package by the last install, if any."""
    marker = _marker(venv_python)
    return marker.read_text().split("\n")[0].strip() if marker.is_file() else None


def _marker(venv_python: str) -> Path:
    # Not resolve(): a venv's python is a symlink to the base interpreter, outside the venv.
    return Path(venv_python).absolute().parent.parent / ".llama-build-key"


def _step(message: str) -> None:
    print(f"install: {message}", flush=True)


def _quiet(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> None:
    """Run a noisy command with its output in the log; on failure point at the log and exit."""
    with log.open("a") as fh:
        fh.write(f"\n$ {' '.join(cmd)}\n")
        fh.flush()
        code = subprocess.call(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)
    if code != 0:
        print(f"install: failed (exit {code}): {' '.join(cmd[:6])} ...; see {log}", file=sys.stderr)
        sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version", required=True)
    ap.add_argument("--cmake-args", default="")
    ap.add_argument("--wheelhouse", type=Path, required=True)
    ap.add_argument("--python", default=sys.executable, help="the venv's python, which pip installs into")
    ap.add_argument("--log", type=Path, default=Path(".venv/install.log"))
    ap.add_argument("--key", action="store_true", help="print the build key and exit")
    ap.add_argument("--dry-run", action="store_true", help="say what would be done (build, reuse, install, nothing)")
    args = ap.parse_args(argv)

    key = build_key(args.version, args.cmake_args)
    if args.key:
        print(key)
        return 0
    folder = args.wheelhouse / key
    wheel = wheel_in(folder, args.version)
    needs_install = installed_key(args.python) != key
    if args.dry_run:
        print(f"key {key} {'reuse' if wheel else 'build'} {'install' if needs_install else 'nothing'} {folder}")
        return 0

    args.log.parent.mkdir(parents=True, exist_ok=True)
    if wheel is None:
        _step(
            f"building {PACKAGE} {args.version} from source (about 7 min on 2 cores) with CMAKE_ARGS={args.cmake_args!r}"
        )
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / "partial"
        partial.mkdir(exist_ok=True)
        env = {**os.environ, "CMAKE_ARGS": args.cmake_args}
        start = time.monotonic()
        # --no-cache-dir: pip's cache is keyed on the sdist alone and would hand back a wheel built with other flags.
        cmd = [
            args.python,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-cache-dir",
            "--no-binary",
            PACKAGE,
            "-w",
            str(partial),
            f"{PACKAGE}=={args.version}",
        ]
        _quiet(cmd, args.log, env)
        built = wheel_in(partial, args.version)
        if built is None:
            print(f"install: pip wheel left no wheel in {partial}; see {args.log}", file=sys.stderr)
            return 1
        wheel = built.rename(folder / built.name)  # only a finished build lands where the next install looks
        partial.rmdir()
        (folder / "CMAKE_ARGS").write_text(args.cmake_args + "\n")
        _step(f"built {wheel.name} in {time.monotonic() - start:.0f} s, kept in {folder}")
    else:
        _step(f"reusing {wheel} (same version and flags)")
    if needs_install:
        _step(f"installing {wheel.name}")
        _quiet(
            [args.python, "-m", "pip", "install", "--no-deps", "--force-reinstall", "--no-index", str(wheel)], args.log
        )
        # The key, then the flags: tests read the flags to know what the binary must report.
        _marker(args.python).write_text(f"{key}\n{args.cmake_args}\n")
    else:
        _step(f"{PACKAGE} already installed with these flags")
    return 0


if __name__ == "__main__":
    sys.exit(main())
