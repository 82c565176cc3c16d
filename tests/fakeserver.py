"""A fake OpenAI-compatible server on 127.0.0.1 that answers deterministically and misbehaves on
command: the hostile server of issue 28, for tests only.

Replies depend only on the request's messages (a stateless, reproducible server: the same request
always gets the same answer, whatever came before), so a parallel run must equal a serial one.
`faults` is a queue of misbehaviours for the next chat requests; `always` is one for every chat
request until cleared. Every request the server saw is kept in `seen`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "fake-model"


def reply_for(messages: list[dict[str, Any]]) -> str:
    """The model's text: an answer whose words depend on the conversation only."""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()[:8]
    return json.dumps({"action": "answer", "content": f"I checked my notes ({digest})."})


class FakeServer:
    def __init__(self, owned_by: str = "llamacpp") -> None:
        self.owned_by = owned_by
        self.faults: deque[str] = deque()
        self.always: str | None = None
        self.fail_from: int | None = None  # from this many chat requests on, every one fails with 500
        self.models_body: bytes | None = None  # junk for /v1/models, when set
        self.chat_body: bytes | None = None  # a 200 with these bytes for every chat request, when set
        self.seen: list[tuple[str, str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                server.seen.append(("GET", self.path, None))
                if self.path.rstrip("/") == "/v1/models" and server.models_body is not None:
                    self._send(200, server.models_body)
                elif self.path.rstrip("/") == "/v1/models":
                    entry = {
                        "id": MODEL,
                        "object": "model",
                        "created": time.time_ns(),  # changes on every call, as llama-server's and vLLM's do
                        "owned_by": server.owned_by,
                        "permission": [{"id": f"modelperm-{uuid.uuid4().hex}", "created": time.time_ns()}],
                    }
                    self._send(200, {"object": "list", "data": [entry]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.seen.append(("POST", self.path, body))
                    fault = server.faults.popleft() if server.faults else server.always
                    if server.fail_from is not None and server.chats() > server.fail_from:
                        fault = "500"
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": "not found"}})
                    return
                server.misbehave(self, fault, body)

            def _send(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
                data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", (headers or {}).pop("content-type", "application/json"))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def misbehave(self, h: Any, fault: str | None, body: dict[str, Any]) -> None:
        text = reply_for(body.get("messages", []))
        ok = {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5},
        }
        if self.chat_body is not None:
            h._send(200, self.chat_body)
        elif fault is None:
            h._send(200, ok)
        elif fault == "500":
            h._send(500, {"error": {"message": "internal hiccup"}})
        elif fault == "html200":
            h._send(200, b"<html>upstream proxy error</html>", {"content-type": "text/html"})
        elif fault == "empty200":
            h._send(200, b"")
        elif fault == "no_choices":
            h._send(200, {"id": "chatcmpl-1", "object": "chat.completion"})
        elif fault == "empty_choices":
            h._send(200, {"id": "chatcmpl-1", "choices": []})
        elif fault == "429":
            h._send(429, {"error": {"message": "rate limited"}}, {"retry-after": "1"})
        elif fault == "redirect":
            h._send(307, b"", {"location": "http://127.0.0.1:9/v1/chat/completions"})
        elif fault == "stream":
            h._send(200, f"data: {json.dumps(ok)}\n\ndata: [DONE]\n\n".encode(), {"content-type": "text/event-stream"})
        elif fault == "context400":
            h._send(400, {"error": {"message": "the request exceeds the available context size, try increasing it"}})
        elif fault == "schema500":
            h._send(500, {"error": {"message": "1 validation error for CreateChatCompletionRequest response_format"}})
        elif fault == "bad_usage":
            ok["usage"] = {"prompt_tokens": "lots", "completion_tokens": [1]}
            h._send(200, ok)
        elif fault == "list":
            ok["choices"][0]["message"]["content"] = "[1, 2, 3]"
            h._send(200, ok)
        elif fault == "surrogate":
            ok["choices"][0]["message"]["content"] = '{"action": "answer", "content": "on its way \\ud83d"}'
            h._send(200, ok)
        elif fault == "nan":
            ok["choices"][0]["message"]["content"] = '{"action": "answer", "content": "x", "score": NaN}'
            h._send(200, ok)
        elif fault == "trickle":
            payload = json.dumps(ok).encode()
            h.send_response(200)
            h.send_header("content-type", "application/json")
            h.send_header("content-length", str(len(payload)))
            h.end_headers()
            try:
                for i in range(len(payload)):
                    h.wfile.write(payload[i : i + 1])
                    h.wfile.flush()
                    time.sleep(0.4)
            except (BrokenPipeError, ConnectionResetError):
                pass
        else:
            raise ValueError(fault)

    def chats(self) -> int:
        return sum(1 for m, p, _ in self.seen if m == "POST")

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
