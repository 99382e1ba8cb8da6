"""Every HTTP request the project makes, under one policy, and URLs made safe to record.

Redirects are followed only within the origin (scheme, host and port) of the URL asked for. A
redirect to another origin is refused with ``CrossOriginRedirectError`` naming both URLs: the
credentials sent with a request (the ``remote:`` NLI bearer key, the NCBI API key) never leave
their origin, and no other host's reply is used. Clients: ``remote:`` NLI and the PubMed client
(``read_url``), the ALCE prompt files (``download``). Hugging Face hub files go through
huggingface_hub, which follows the hub's redirects to its CDN, drops the token on a cross-host
redirect itself, and whose files are checked against the hub's object ids.

Every request also has a total deadline (:class:`Deadline`): a per-read timeout alone never ends
an exchange with a server that trickles one byte at a time, since each read returns in time.

``redact_url`` and ``redact_text`` hide user-info and secret-looking query values wherever a URL
or spec is recorded (metadata, explanations, error messages, reports).
"""

import hashlib
import http.client
import os
import re
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import httpx

from inspect_cite.downloads.download import git_blob_sha1, sha256_file

_DEFAULT_PORTS = {"http": 80, "https": 443}
# Query parameters whose values are secrets (api_key=, access_token=, sig=, ...).
_SECRET_PARAM = re.compile(r"key|token|secret|passw|auth|sig|credential|session", re.IGNORECASE)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`|]+")
# Outside URLs, free text (error messages, model and task arguments) shows secrets as an
# assignment (api_key=..., "token": "...", password: ...), an Authorization header, or by
# their shape: OpenAI/Anthropic sk-..., Hugging Face hf_..., GitHub, AWS, Google and Slack keys.
# A name counts when it ends in key (api_key, not a bare "key"), token, secret, password or
# credential(s), so that max_tokens=... or "missing key: docs" keep their values. A name at
# the end of a path (".../etc/passwd: ... does not exist") is a file, not an assignment, and
# what an unset argument reads (the report's "default", JSON's null, Python's None) holds no
# secret: a label that showed "token=***" for it would claim the run had a token.
_SECRET_ASSIGNMENT = re.compile(
    r"""(?<![/\\])(?P<name>\b(?:[\w.-]+key|[\w.-]*(?:token|secret|passw(?:or)?d|pwd|credentials?))["']?)"""
    r"""(?P<sep>\s*[:=]\s*["']?)"""
    r"""(?P<value>(?!(?:\*\*\*|default|null|none)(?![^\s"',;&)}\]]))[^\s"',;&)}\]]+)""",
    re.IGNORECASE,
)
_AUTHORIZATION = re.compile(
    r"(?P<head>\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(?:(?:bearer|basic|token)\s+)?)"
    r"(?P<value>(?!\*\*\*)[^\s\"',;)}\]]+)",
    re.IGNORECASE,
)
# Whatever follows "Bearer " is the token, whatever its characters (letters only, "!", "$",
# an escaped "\r" as Python's HTTP library shows a header it refused), up to the end of the
# word; only the words a message says about bearer tokens ("a bearer header", "Bearer
# authentication") keep their text.
_BEARER_WORDS = (
    "auth|authentication|authorization|credentials?|headers?|keys?|schemes?|strings?|tokens?"
    "|values?|and|or|is|are|was|the|a|an|in|of|for|with|without|not"
)
_BEARER = re.compile(
    r"\b(?P<head>bearer\s+)"
    rf"""(?P<value>(?!\*\*\*|(?:{_BEARER_WORDS})(?![^\s"',;)}}\]]))[^\s"',;)}}\]]+)""",
    re.IGNORECASE,
)
_KEY_SHAPES = re.compile(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_\w{20,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|xox[abprs]-[A-Za-z0-9-]{10,})"
)
_REDACTED = "***"
_CHUNK = 1 << 20

DOWNLOAD_DEADLINE = 120.0
"""Seconds one attempt of :func:`download` may take in all (connect, headers and body)."""


class CrossOriginRedirectError(RuntimeError):
    """A server redirected a request to another origin; the redirect was not followed."""

    def __init__(self, source: str, target: str) -> None:
        super().__init__(
            f"refused a redirect from {redact_url(source)} to {redact_url(target)}: it leaves "
            "the origin (scheme, host and port) that was asked, so no credentials are sent "
            "there and its reply is not used. Use the final URL directly if you trust it."
        )
        self.source = source
        self.target = target


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of ``url``, with the scheme's default port filled in."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


def check_redirect(source: str, target: str) -> None:
    """Allow a redirect from ``source`` to ``target`` only within one origin.

    Raises:
        CrossOriginRedirectError: When ``target`` is on another scheme, host or port.

    """
    if origin(urllib.parse.urljoin(source, target)) != origin(source):
        raise CrossOriginRedirectError(source, urllib.parse.urljoin(source, target))


def redact_url(url: str) -> str:
    """``url`` without user-info and with secret-looking query values replaced by ``***``."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return _URL.sub(_REDACTED, url)
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{_REDACTED}@{netloc.rsplit('@', 1)[1]}"
    query = parts.query
    if query:
        query = "&".join(
            f"{name}={_REDACTED}" if sep and _SECRET_PARAM.search(name) else f"{name}{sep}{value}"
            for name, sep, value in (item.partition("=") for item in query.split("&"))
        )
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query))


def redact_text(text: str) -> str:
    """``text`` (a spec, a message, an argument) with every credential in it replaced by ``***``.

    Every URL in it goes through ``redact_url`` (user-info, secret query values); outside
    URLs, the values of secret-looking assignments (``api_key=...``, ``"token": "..."``),
    ``Authorization`` headers and bearer tokens, and strings shaped like API keys (``sk-...``,
    ``hf_...``) are replaced.
    """
    text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    text = _AUTHORIZATION.sub(lambda m: m["head"] + _REDACTED, text)
    text = _BEARER.sub(lambda m: m["head"] + _REDACTED, text)
    text = _SECRET_ASSIGNMENT.sub(lambda m: m["name"] + m["sep"] + _REDACTED, text)
    return _KEY_SHAPES.sub(_REDACTED, text)


def url_credentials(url: str) -> str | None:
    """What in ``url`` is a credential (user-info, a secret-looking query value), or None."""
    parts = urllib.parse.urlsplit(url)
    if parts.username is not None or parts.password is not None:
        return "user-info (user:password@)"
    secret = [n for n, _, _ in (i.partition("=") for i in parts.query.split("&")) if n]
    secret = [n for n in secret if _SECRET_PARAM.search(n)]
    return f"query parameter {secret[0]!r}" if secret else None


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        try:
            check_redirect(req.full_url, newurl)
        except CrossOriginRedirectError:
            fp.close()
            raise
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Deadline:
    """A wall-clock limit on one HTTP exchange: connecting, the reply's headers and its body.

    At the deadline the exchange's sockets are shut down, so a read blocked on a server that
    trickles bytes returns at once and the client fails; the caller then raises
    :meth:`error` instead of that failure (see :func:`read_url`, :func:`download`).

    Args:
        seconds: How long the exchange may take.

    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> "Deadline":
        self._timer.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._timer.cancel()

    def watch(self, sock: socket.socket | None) -> None:
        """Shut ``sock`` down at the deadline (at once if it has passed)."""
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """The ``trace`` request extension of httpx: watches each connection's socket once open."""
        # connect_tcp, then start_tls for https, which wraps the socket in a new one.
        if event.endswith((".connect_tcp.complete", ".start_tls.complete")):
            stream = info.get("return_value")
            if stream is not None:
                self.watch(stream.get_extra_info("socket"))

    def error(self) -> TimeoutError:
        """What the caller raises once the deadline has passed."""
        return TimeoutError(f"no complete reply within {self.seconds:g} s")

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    # shutdown, not close: it wakes a read blocked in another thread; close may not.
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed or never connected
        pass


class _WatchedConnection(http.client.HTTPConnection):
    """Connects as its class does (TCP, then TLS for https), then hands the socket over."""

    def __init__(self, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline = deadline

    def connect(self) -> None:
        # A TLS handshake inside is bounded by the per-read timeout; what follows by the
        # deadline, on the socket the exchange uses.
        super().connect()
        self._deadline.watch(self.sock)


class _WatchedHTTPSConnection(_WatchedConnection, http.client.HTTPSConnection):
    pass


class _WatchedHandler(urllib.request.HTTPSHandler, urllib.request.HTTPHandler):
    """Opens http and https connections whose sockets ``deadline`` watches."""

    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_WatchedConnection, deadline=self._deadline), req)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(partial(_WatchedHTTPSConnection, deadline=self._deadline), req)


def read_url(request: urllib.request.Request, *, timeout: float, deadline: float) -> bytes:
    """The whole reply body to ``request``, following same-origin redirects only.

    Args:
        request: The request (``remote:`` NLI, PubMed efetch).
        timeout: Seconds one socket operation may wait.
        deadline: Seconds the whole exchange may take, the body included.

    Raises:
        CrossOriginRedirectError: When the server redirects to another origin.
        urllib.error.HTTPError: For an HTTP error status.
        urllib.error.URLError: When the server cannot be reached.
        TimeoutError: When a read times out, or the deadline passes (naming the URL).

    """
    with Deadline(deadline) as limit:
        opener = urllib.request.build_opener(_SameOriginRedirects, _WatchedHandler(limit))
        try:
            with opener.open(request, timeout=min(timeout, deadline)) as response:
                body: bytes = response.read()
        except urllib.error.HTTPError:
            raise  # a whole reply: its status
        except Exception as e:  # a cut exchange fails as http.client or the socket sees it
            if limit.expired:
                raise limit.error() from e
            raise
        # A body without a length just ends where the socket was shut down.
        if limit.expired:
            raise limit.error()
        return body


def urlopen(request: urllib.request.Request, timeout: float) -> Any:
    """``urllib.request.urlopen`` that follows same-origin redirects only.

    Its ``timeout`` bounds each socket operation, not the exchange: :func:`read_url` also has
    a total deadline, and is what the project's clients use.

    Raises:
        CrossOriginRedirectError: When the server redirects to another origin.

    """
    return urllib.request.build_opener(_SameOriginRedirects).open(request, timeout=timeout)


def _refuse_cross_origin(response: httpx.Response) -> None:
    if response.has_redirect_location:
        check_redirect(str(response.request.url), response.headers["Location"])


def _transient(error: BaseException) -> bool:
    """HTTP 408, 429 and 5xx, transport errors and a passed deadline: worth another attempt."""
    if isinstance(error, httpx.HTTPStatusError):
        status = error.response.status_code
        return status in (408, 429) or status >= 500
    return isinstance(error, httpx.TransportError | TimeoutError)


def download(
    url: str, sha256: str | None, dest: Path, *, timeout: float = 30.0, git_blob: str | None = None
) -> Path:
    """Fetch ``url`` to ``dest`` unless ``dest`` already has the SHA-256 ``sha256``.

    Inspect's ``inspect_ai.util.download`` policy (five attempts or 60 s with jittered
    exponential backoff on 408/429/5xx and transport errors; the body is hashed on the way and
    moved into place only when it matches), under this module's redirect policy; each attempt
    may take :data:`DOWNLOAD_DEADLINE` seconds in all, each read ``timeout``.

    Args:
        url: What to fetch.
        sha256: The content's SHA-256, or None when ``git_blob`` pins it instead.
        dest: Where the file goes.
        timeout: Seconds per request.
        git_blob: The content's git blob id (``git hash-object``), as a repository's tree
            records it: for a file whose SHA-256 was never published.

    Raises:
        CrossOriginRedirectError: When the server redirects to another origin.
        httpx.HTTPStatusError: For a status that is not retried.
        ValueError: When the content does not match ``sha256`` / ``git_blob``.
        TimeoutError: When the last attempt passed its deadline.

    """
    # Imported here: the NLI backends import this module on a GPU machine that has no tenacity.
    from tenacity import (
        retry,
        retry_if_exception,
        stop_after_attempt,
        stop_after_delay,
        wait_exponential_jitter,
    )

    if sha256 is None and git_blob is None:
        raise ValueError(f"{url}: no checksum to verify the download against")

    def problem(path: Path, digest: str) -> str | None:
        if sha256 is not None and digest != sha256:
            return f"expected {sha256}, got {digest}"
        if git_blob is not None and (blob := git_blob_sha1(path)) != git_blob:
            return f"expected git blob {git_blob}, got {blob}"
        return None

    if dest.exists() and problem(dest, sha256_file(dest)) is None:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f"{dest.name}.{uuid.uuid4().hex}.partial")

    @retry(
        wait=wait_exponential_jitter(),
        stop=stop_after_attempt(5) | stop_after_delay(60),
        retry=retry_if_exception(_transient),
    )
    def fetch() -> str:
        digest = hashlib.sha256()
        hooks = {"response": [_refuse_cross_origin]}
        with (
            Deadline(DOWNLOAD_DEADLINE) as limit,
            httpx.Client(follow_redirects=True, timeout=timeout, event_hooks=hooks) as client,
        ):
            try:
                with client.stream("GET", url, extensions={"trace": limit.trace}) as response:
                    response.raise_for_status()
                    with open(tmp, "wb") as f:
                        for chunk in response.iter_bytes(_CHUNK):
                            f.write(chunk)
                            digest.update(chunk)
            except httpx.TransportError as e:  # how a shut-down socket fails
                if limit.expired:
                    raise limit.error() from e
                raise
            if limit.expired:
                raise limit.error()
        return digest.hexdigest()

    try:
        mismatch = problem(tmp, fetch())
        if mismatch is not None:
            raise ValueError(f"Checksum mismatch for {url}: {mismatch}")
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()
    return dest
