"""Local HTTP servers on 127.0.0.1: one that records each request and answers from a function
(``json_api`` makes it a JSON API: Anthropic's Messages API in the native-citation tests), one
standing in for an OpenAI-compatible chat-completions endpoint, and one that trickles its reply
one byte at a time."""

import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from inspect_ai.model import GenerateConfig, get_model


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    """What the server answers."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


class RecordingServer:
    """Answers every GET/POST/HEAD with ``reply(request)``; ``requests`` lists what arrived."""

    def __init__(self, reply: Callable[[Seen], Reply]) -> None:
        self.requests: list[Seen] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                seen = Seen(
                    self.command, self.path, dict(self.headers.items()), self.rfile.read(length)
                )
                outer.requests.append(seen)
                answer = reply(seen)
                self.send_response(answer.status)
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(answer.body)

            do_GET = do_POST = do_HEAD = _handle  # noqa: N815 - http.server's naming

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "RecordingServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def redirect_to(target: str, status: int = 302) -> Callable[[Seen], Reply]:
    """A reply function sending every request to ``target`` + its own path."""
    return lambda seen: Reply(status, headers={"Location": target + seen.path})


class ChatServer:
    """An OpenAI-compatible chat-completions stand-in replying from a script (the last reply
    repeats); ``bodies`` lists the request bodies, ``model()`` an openai-api/ model for it."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.bodies: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.bodies.append(body)
                reply = server.replies[min(len(server.bodies), len(server.replies)) - 1]
                payload = json.dumps(
                    {
                        "id": f"c{len(server.bodies)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def model(self, **config: object):
        return get_model(
            "openai-api/standin/tiny",
            base_url=self.url,
            api_key="x",
            config=GenerateConfig(**config),  # type: ignore[arg-type]
            memoize=False,
        )


class TricklingServer:
    """Answers every request by sending one byte every ``interval`` seconds, for ever.

    ``part`` says where the trickle is: ``headers`` (the status line and one endless header),
    ``body`` (a 1 MB ``Content-Length``) or ``unsized body`` (no length: the body ends when the
    connection does). Each read a client makes returns in time, so only a total deadline ends
    the exchange. A connection's trickle stops when the client goes or the server closes.
    """

    def __init__(self, part: str, interval: float = 0.05) -> None:
        self.connections = 0
        self.stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _trickle(self) -> None:
                server.connections += 1
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if part == "headers":
                    head = b"HTTP/1.1 200 OK\r\nX-Slow: "
                else:
                    length = "Content-Length: 1000000\r\n" if part == "body" else ""
                    head = f"HTTP/1.1 200 OK\r\n{length}Connection: close\r\n\r\n".encode()
                try:
                    self.wfile.write(head)
                    while not server.stopped.wait(interval):
                        self.wfile.write(b"a")
                        self.wfile.flush()
                except OSError:  # the client shut the connection down
                    pass
                self.close_connection = True

            do_GET = do_POST = _trickle  # noqa: N815 - http.server's naming

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "TricklingServer":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()


T = TypeVar("T")


def within(seconds: float, fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, or ``TimeoutError`` if it has not returned after ``seconds``.

    A client that hangs on a trickling server fails the test instead of stalling the suite;
    its thread is left to end when the server stops.
    """
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        return pool.submit(fn, *args).result(timeout=seconds)
    finally:
        pool.shutdown(wait=False)


def json_api(answer: Callable[[dict[str, Any]], dict[str, Any]]) -> Callable[[Seen], Reply]:
    """A reply function for a JSON API: the request body in, ``answer(body)`` out as JSON.

    With :class:`RecordingServer` and :func:`tests.helpers.native_models.messages_reply` it
    stands in for Anthropic's Messages API (point ``anthropic/`` models at its ``url``).
    """

    def reply(seen: Seen) -> Reply:
        body = json.dumps(answer(json.loads(seen.body))).encode()
        return Reply(200, body, {"Content-Type": "application/json"})

    return reply
