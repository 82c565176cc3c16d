"""Any OpenAI-compatible chat server (llama-server, llama-cpp-python's server, vLLM, Ollama) over HTTP.

Greedy settings (temperature 0, a fixed seed, explicit max_tokens); the reply's JSON schema goes
in `response_format`, in one of two forms (`--structured-output`): `json_schema` (OpenAI's form:
`{"type": "json_schema", "json_schema": {"schema": ...}}`, read by llama-server, vLLM and Ollama's
OpenAI endpoint) or `json_object` (`{"type": "json_object", "schema": ...}`, the form
llama-cpp-python's own server reads; llama-server reads it too). The API key is read from the environment
variable the user names and is never recorded. Connection failures, timeouts and 5xx answers are
retried with bounded exponential backoff (tenacity); a 4xx is a one-line error naming the status
and the server's message.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from memriskbench.errors import MemRiskError
from memriskbench.play.systems.backends.base import Completion
from memriskbench.play.systems.base import ModelError


@dataclass(frozen=True, slots=True)
class ServerSettings:
    max_tokens: int = 256
    seed: int = 0
    timeout_s: float = 120.0
    attempts: int = 6  # tries per request before the run stops (it resumes like any other)
    structured_output: str = "json_schema"  # or json_object
    k: int = 8  # the strategies' k, recorded with the decoding settings as for llama


class _Retryable(Exception):
    """A failure worth another try: the server was unreachable, slow or failed (5xx)."""


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, _Retryable)


class OpenAIBackend:
    kind = "openai"

    def __init__(
        self, base_url: str, model: str, api_key_env: str | None = None, settings: ServerSettings | None = None
    ) -> None:
        self.settings = settings or ServerSettings()
        self.base_url = base_url.rstrip("/")
        if not self.base_url.endswith("/v1"):
            self.base_url += "/v1"
        self.model = model
        self.label = model
        headers = {}
        if api_key_env:
            key = os.environ.get(api_key_env)
            if not key:
                raise MemRiskError(f"--api-key-env {api_key_env}: that environment variable is not set")
            headers["Authorization"] = f"Bearer {key}"
        self.client = httpx.Client(headers=headers, timeout=self.settings.timeout_s)
        self._identity = self._describe()

    # identity --------------------------------------------------------------------------------
    def _describe(self) -> dict[str, Any]:
        """The server's own description: its /v1/models entry for this model, and where the server
        has one, its properties endpoint (llama-server's /props: model file, build)."""
        models = self._request("GET", "/models").get("data") or []
        entry = next((m for m in models if isinstance(m, dict) and m.get("id") == self.model), None)
        if entry is None:
            names = ", ".join(str(m.get("id")) for m in models if isinstance(m, dict))
            raise MemRiskError(
                f"{self.base_url}: the server offers no model {self.model!r} (it has: {names or 'none'})"
            )
        identity: dict[str, Any] = {"server": self.base_url, "model": entry}
        root = self.base_url.removesuffix("/v1")
        try:
            props = self.client.get(root + "/props")
            if props.status_code == 200 and isinstance(props.json(), dict):
                p = props.json()
                identity["props"] = {k: p[k] for k in ("model_path", "build_info", "n_ctx", "chat_template") if k in p}
        except (httpx.HTTPError, ValueError):
            pass  # not every server has one
        return identity

    def model_identity(self) -> dict[str, Any]:
        return self._identity

    def decoding(self) -> dict[str, Any]:
        # What shapes the replies; the timeout and the number of tries only decide when a run stops,
        # so a resumed run may change them.
        s = self.settings
        return {
            "temperature": 0.0,
            "max_tokens": s.max_tokens,
            "seed": s.seed,
            "structured_output": s.structured_output,
            "k": s.k,
        }

    # requests ------------------------------------------------------------------------------
    def _once(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        try:
            r = self.client.request(method, self.base_url + path, json=body)
        except httpx.TransportError as exc:  # refused, reset, timed out
            raise _Retryable(f"{type(exc).__name__}: {exc}") from None
        if r.status_code >= 500:
            raise _Retryable(f"HTTP {r.status_code}: {r.text[:200]}")
        if r.status_code >= 400:
            raise MemRiskError(f"{self.base_url}{path}: HTTP {r.status_code}: {_message(r)}")
        try:
            data = r.json()
        except ValueError:
            raise ModelError(f"{self.base_url}{path}: the answer is not JSON") from None
        if not isinstance(data, dict):
            raise ModelError(f"{self.base_url}{path}: the answer is not a JSON object")
        return data

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        retry = Retrying(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(self.settings.attempts),
            wait=wait_exponential(multiplier=0.5, max=8.0),
            reraise=True,
        )
        try:
            return retry(self._once, method, path, body)
        except _Retryable as exc:
            raise MemRiskError(f"{self.base_url}{path}: gave up after {self.settings.attempts} tries: {exc}") from None

    def reset(self) -> None:
        """Each request carries the whole conversation: a server keeps no state between them."""

    def body(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> dict[str, Any]:
        """The chat-completions request for these messages: greedy, seeded, schema-constrained."""
        return {
            "model": self.model,
            "messages": messages,
            "temperature": 0.0,
            "seed": self.settings.seed,
            "max_tokens": self.settings.max_tokens,
            "response_format": _response_format(self.settings.structured_output, schema),
        }

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        data = self._request("POST", "/chat/completions", self.body(messages, schema))
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise ModelError("the server's answer has no choices[0].message.content") from None
        usage = data.get("usage") or {}
        tokens = {
            "prompt": int(usage.get("prompt_tokens", 0)),
            "cached": 0,
            "completion": int(usage.get("completion_tokens", 0)),
        }
        return Completion(str(text), tokens, choice.get("finish_reason") == "length")

    def close(self) -> None:
        self.client.close()


def _response_format(form: str, schema: dict[str, Any]) -> dict[str, Any]:
    if form == "json_object":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": True}}


def _message(r: httpx.Response) -> str:
    try:
        data = r.json()
        err = data.get("error", data) if isinstance(data, dict) else data
        msg = err.get("message", err) if isinstance(err, dict) else err
        return " ".join(str(msg).split())[:300]
    except ValueError:
        return " ".join(r.text.split())[:300]


def from_args(args: Any) -> OpenAIBackend:
    """`--agent openai`: the server at --base-url, the model id --model."""
    if not args.base_url or args.model == "default":
        raise MemRiskError("--agent openai needs --base-url URL and --model NAME (the server's model id)")
    settings = ServerSettings(
        max_tokens=args.max_tokens, timeout_s=args.timeout, k=args.k, structured_output=args.structured_output
    )
    return OpenAIBackend(args.base_url, args.model, args.api_key_env, settings)
