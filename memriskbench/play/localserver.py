"""llama-cpp-python's own OpenAI-compatible server (its `server` extra) as a child process on
127.0.0.1: what the server tests and `benchmarks/server_overhead.py` talk to. It is stopped by
`stop`, or on leaving the `with` block, even when the caller fails."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ALIAS = "smollm2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalServer:
    """`start` and `stop`, and `start` again on the same port (to test a server that dies mid-run)."""

    def __init__(self, model: Path, port: int | None = None, n_threads: int = 2, n_ctx: int = 4096) -> None:
        self.model, self.port = model, port or free_port()
        self.n_threads, self.n_ctx = n_threads, n_ctx
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def start(self, wait_s: float = 120.0) -> None:
        cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", ALIAS]
        cmd += ["--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx)]
        cmd += ["--n_threads", str(self.n_threads), "--seed", "0"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}")
            try:
                if httpx.get(self.url + "/models", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the server did not come up within {wait_s:.0f} s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
