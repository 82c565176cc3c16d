"""Any OpenAI-compatible chat server (llama-server, llama-cpp-python's server, vLLM, Ollama) over HTTP.

Greedy settings (temperature 0, a fixed seed, explicit max_tokens); the reply's JSON schema goes
in `response_format`, in one of two forms (`--structured-output`): `json_schema` (OpenAI's form,
read by llama-server, vLLM and Ollama) or `json_object` with a `schema` (the only form
llama-cpp-python's own server reads). `auto` picks from the server's `/v1/models` entry; the form
used is recorded in the trace header. To llama-server each request also says `cache_prompt:
false`, so that no request decodes from another's cache (recorded as well).

What happens to a failed request, so that a transient fault never becomes a verdict:

- **retried** (bounded exponential backoff, `attempts` tries): a refused or reset connection, a
  timeout, HTTP 5xx, HTTP 429 (after its `Retry-After`, at most 60 s), and a 200 whose body is
  not a JSON object or has no `choices`. Every request is bounded as a whole by `--timeout`: a
  server that trickles bytes is cut off.
- **recorded as the model's** (the episode ends with `model_error`, the run goes on): a prompt
  longer than the model's context (HTTP 400 that says so), as `--agent llama` does. Whatever the
  model wrote, in `choices[0].message.content`, is its reply, however broken.
- **a one-line error that stops the run** (it resumes later): any other 4xx, a redirect, a
  streamed reply, a schema form the server refuses, a fault still there after every try.

The API key is read from the environment variable the user names, checked, and never recorded;
credentials in `--base-url` (`http://user:pass@host`) are sent, never recorded.
"""

from __future__ import annotations

import math
import os
import re
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from memriskbench.errors import MemRiskError
from memriskbench.play.actions import ActionParseError, model_json
from memriskbench.play.systems.backends.base import Completion
from memriskbench.play.systems.base import ModelError

FORMS = ("auto", "json_schema", "json_object")
# What identifies a model in its /v1/models entry; `created` (llama-server, vLLM: the time of the
# request) and vLLM's per-request `permission` ids change on every call and are left out.
MODEL_FIELDS = ("id", "object", "owned_by", "root", "parent", "max_model_len", "meta")
RETRY_AFTER_MAX = 60.0
_CONTEXT = re.compile(
    r"context (?:length|size|window)|maximum context|too (?:long|many tokens)|exceed|n_ctx|context_length_exceeded",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class ServerSettings:
    max_tokens: int = 256
    seed: int = 0
    timeout_s: float = 120.0
    attempts: int = 6  # tries per request before the run stops (it resumes like any other)
    structured_output: str = "auto"  # or json_schema, json_object
    k: int = 8  # the strategies' k, recorded with the decoding settings as for llama


class _Retryable(Exception):
    """A failure worth another try; `wait` is how long the server asked us to wait (429)."""

    def __init__(self, message: str, wait: float = 0.0) -> None:
        super().__init__(message)
        self.wait = wait


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, _Retryable)


def _wait(state: Any) -> float:
    exc = state.outcome.exception() if state.outcome is not None else None
    asked = exc.wait if isinstance(exc, _Retryable) else 0.0
    return max(asked, float(wait_exponential(multiplier=0.5, max=8.0)(state)))


def _api_key(env: str) -> str:
    key = os.environ.get(env)
    if not key:
        raise MemRiskError(f"--api-key-env {env}: that environment variable is not set")
    # A header cannot carry it; httpx's error would print the key itself.
    if not key.isascii() or not key.isprintable() or any(c.isspace() for c in key):
        raise MemRiskError(
            f"--api-key-env {env}: the key holds a space, a line break, a control or a non-ASCII character; remove it"
        )
    return key


def _split_url(url: str) -> tuple[str, httpx.BasicAuth | None]:
    """(the URL without credentials, the credentials as auth). A bad URL is a one-line error."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise MemRiskError(f"--base-url {url!r}: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise MemRiskError(f"--base-url: {parts.scheme or 'no'} scheme or no host; give http://HOST:PORT/v1")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = host + (f":{port}" if port is not None else "")
    clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))
    auth = None
    if parts.username is not None:
        auth = httpx.BasicAuth(urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password or ""))
    return clean, auth


class OpenAIBackend:
    kind = "openai"

    def __init__(
        self, base_url: str, model: str, api_key_env: str | None = None, settings: ServerSettings | None = None
    ) -> None:
        self.settings = settings or ServerSettings()
        if not (math.isfinite(self.settings.timeout_s) and self.settings.timeout_s > 0):
            raise MemRiskError(f"--timeout {self.settings.timeout_s}: give a number of seconds above 0")
        url, auth = _split_url(base_url)
        self.base_url = url if url.endswith("/v1") else url + "/v1"
        self.model = model
        self.label = model
        headers = {"Authorization": f"Bearer {_api_key(api_key_env)}"} if api_key_env else {}
        self.client = httpx.Client(headers=headers, auth=auth, timeout=self.settings.timeout_s)
        self._identity = self._describe()
        self.form = self._form()
        # llama-server reuses a slot's cache across requests unless told not to.
        self.cache_prompt = False if self._owner() == "llamacpp" else None

    # identity --------------------------------------------------------------------------------
    def _describe(self) -> dict[str, Any]:
        """The server's own description: what identifies this model in its /v1/models entry, and
        where the server has one, its properties endpoint (llama-server's /props)."""
        listing = self._request("GET", "/models").get("data")
        models = [m for m in listing if isinstance(m, dict)] if isinstance(listing, list) else []
        entry = next((m for m in models if m.get("id") == self.model), None)
        if entry is None:
            names = ", ".join(str(m.get("id")) for m in models)[:300]
            raise MemRiskError(
                f"{self.base_url}: the server offers no model {self.model!r} (it has: {names or 'none'})"
            )
        identity: dict[str, Any] = {"server": self.base_url, "model": {k: entry[k] for k in MODEL_FIELDS if k in entry}}
        root = self.base_url.removesuffix("/v1")
        try:
            props = self.client.get(root + "/props")
            p = model_json(props.text) if props.status_code == 200 else None
            if isinstance(p, dict):
                identity["props"] = {k: p[k] for k in ("model_path", "build_info", "n_ctx", "chat_template") if k in p}
        except (httpx.HTTPError, ActionParseError):
            pass  # not every server has one
        return identity

    def _owner(self) -> str:
        return str(self._identity["model"].get("owned_by", ""))

    def _form(self) -> str:
        """llama-cpp-python's server (its entries say `owned_by: me`) reads only json_object."""
        if self.settings.structured_output != "auto":
            return self.settings.structured_output
        return "json_object" if self._owner() == "me" else "json_schema"

    def model_identity(self) -> dict[str, Any]:
        return self._identity

    def decoding(self) -> dict[str, Any]:
        # What shapes the replies; the timeout and the number of tries only decide when a run stops,
        # so a resumed run may change them.
        s = self.settings
        out = {"temperature": 0.0, "max_tokens": s.max_tokens, "seed": s.seed, "structured_output": self.form, "k": s.k}
        if self.cache_prompt is not None:
            out["cache_prompt"] = self.cache_prompt
        return out

    # requests ------------------------------------------------------------------------------
    def _once(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        url = self.base_url + path
        deadline = time.monotonic() + self.settings.timeout_s
        try:
            with self.client.stream(method, url, json=body) as r:
                chunks = []
                for chunk in r.iter_bytes():
                    chunks.append(chunk)
                    if time.monotonic() > deadline:  # a trickle defeats the per-read timeout
                        raise _Retryable(f"no whole answer within --timeout {self.settings.timeout_s:g} s")
                content = b"".join(chunks)
        except httpx.TransportError as exc:  # refused, reset, timed out
            raise _Retryable(f"{type(exc).__name__}: {exc}") from None
        except httpx.InvalidURL as exc:
            raise MemRiskError(f"{url}: {exc}") from None
        text = content.decode("utf-8", "replace")
        status = r.status_code
        if status == 429:
            raise _Retryable(f"HTTP 429: {_message(text)}", _retry_after(r.headers.get("retry-after")))
        if 300 <= status < 400:
            where = r.headers.get("location", "elsewhere")
            raise MemRiskError(
                f"{url}: HTTP {status}, the server sends this request to {where}; give that as --base-url"
            )
        if status >= 500 and _refuses_form(text):
            raise MemRiskError(
                f"{url}: HTTP {status}: the server refuses response_format {self.form}: {_message(text)}"
            )
        if status >= 500:
            raise _Retryable(f"HTTP {status}: {_message(text)}")
        if status >= 400:
            if path == "/chat/completions" and _CONTEXT.search(text):
                raise ModelError(f"the prompt does not fit the model's context: {_message(text)}")
            if _refuses_form(text):
                raise MemRiskError(
                    f"{url}: HTTP {status}: the server refuses response_format {self.form}: {_message(text)}"
                )
            raise MemRiskError(f"{url}: HTTP {status}: {_message(text)}")
        if "text/event-stream" in r.headers.get("content-type", ""):
            raise MemRiskError(f"{url}: the server streamed its answer though stream was not asked for")
        try:
            data = model_json(text)
        except ActionParseError:
            raise _Retryable(f"HTTP {status} with a body that is not JSON: {text[:80]!r}") from None
        if not isinstance(data, dict):
            raise _Retryable(f"HTTP {status} with a body that is not a JSON object")
        return data

    def _retried(self, path: str, fn: Any, *args: Any) -> Any:
        """`fn(*args)`, tried again on what is transient; a fault that lasts stops the run."""
        retry = Retrying(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(self.settings.attempts),
            wait=_wait,
            reraise=True,
        )
        try:
            return retry(fn, *args)
        except _Retryable as exc:
            raise MemRiskError(f"{self.base_url}{path}: gave up after {self.settings.attempts} tries: {exc}") from None

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        out: dict[str, Any] = self._retried(path, self._once, method, path, body)
        return out

    def reset(self) -> None:
        """Each request carries the whole conversation: a server keeps no state between them."""

    def body(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> dict[str, Any]:
        """The chat-completions request for these messages: greedy, seeded, schema-constrained."""
        out: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": 0.0,
            "seed": self.settings.seed,
            "max_tokens": self.settings.max_tokens,
            "response_format": _response_format(self.form, schema),
        }
        if self.cache_prompt is not None:
            out["cache_prompt"] = self.cache_prompt
        return out

    def _choice(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        data = self._once("POST", "/chat/completions", self.body(messages, schema))
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        message = choice.get("message") if choice else None
        if not isinstance(message, dict):
            raise _Retryable("the answer has no choices[0].message")
        return data, choice or {}

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], key: str = "") -> Completion:
        data, choice = self._retried("/chat/completions", self._choice, messages, schema)
        content = choice["message"].get("content")
        text = content if isinstance(content, str) else ""  # null: the model said nothing
        raw_usage = data.get("usage")
        usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
        tokens = {
            "prompt": _count(usage.get("prompt_tokens")),
            "cached": 0,
            "completion": _count(usage.get("completion_tokens")),
        }
        return Completion(text, tokens, choice.get("finish_reason") == "length")

    def close(self) -> None:
        self.client.close()


def _count(value: Any) -> int:
    """A token count as the server gave it; anything but a whole number is 0 (it is not a verdict)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**12 else 0


def _retry_after(header: str | None) -> float:
    try:
        seconds = float(header or 0)
    except ValueError:
        return 1.0  # an HTTP date or junk: wait a little
    return min(max(seconds, 0.0), RETRY_AFTER_MAX) if math.isfinite(seconds) else 1.0


def _refuses_form(text: str) -> bool:
    return "response_format" in text or "validation error" in text.lower()


def _response_format(form: str, schema: dict[str, Any]) -> dict[str, Any]:
    if form == "json_object":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema, "strict": True}}


def _message(text: str) -> str:
    try:
        data = model_json(text)
    except ActionParseError:
        return " ".join(text.split())[:300]
    err = data.get("error", data) if isinstance(data, dict) else data
    msg = err.get("message", err) if isinstance(err, dict) else err
    return " ".join(str(msg).split())[:300]


def from_args(args: Any) -> OpenAIBackend:
    """`--agent openai`: the server at --base-url, the model id --model."""
    if not args.base_url or args.model == "default":
        raise MemRiskError("--agent openai needs --base-url URL and --model NAME (the server's model id)")
    settings = ServerSettings(
        max_tokens=args.max_tokens, timeout_s=args.timeout, k=args.k, structured_output=args.structured_output
    )
    return OpenAIBackend(args.base_url, args.model, args.api_key_env, settings)
