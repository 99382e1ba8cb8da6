"""A local HTTP server on 127.0.0.1 that records each request and answers from a function."""

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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
