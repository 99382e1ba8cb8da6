"""An NLI classifier served elsewhere: ``remote:<base url>#<model>`` (vLLM's ``/classify`` API).

Serve a sequence-classification NLI model with ``vllm serve <model>`` (or any server speaking
vLLM's classification API: SGLang, Dynamo) and score against it, so the NLI model runs on its own
GPU or cluster. Each pair is sent as one text, ``premise`` + separator + ``hypothesis``, because
the classification API takes single texts; the separator defaults to `` [SEP] ``, which
BERT/DeBERTa-style tokenizers read as their pair separator (``INSPECT_CITE_NLI_PAIR_SEP``
changes it). A pair is entailed when the returned label starts with "entail"; an item without a
label is a failure, never "not entailed".

The bearer key comes from ``INSPECT_CITE_NLI_API_KEY`` only: a URL carrying credentials is
refused (Inspect records the spec in the log), and a redirect to another origin is not followed
(``inspect_cite.downloads.http_client``), so the key reaches no other host. A key an HTTP header
cannot carry (a trailing carriage return from a Windows ``.env`` file, a typographic quote) is
refused before the run, without showing it: Python's HTTP library would otherwise fail with an
error quoting the whole header, key included. Every error text is redacted of the key.
"""

import http.client
import json
import logging
import os
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from inspect_cite.downloads.http_client import (
    CrossOriginRedirectError,
    read_url,
    redact_text,
    redact_url,
    url_credentials,
)
from inspect_cite.nli.base import NLIConfigError, NLIError, NLIResult, Pair, number_setting

logger = logging.getLogger(__name__)

PAIR_SEP_ENV = "INSPECT_CITE_NLI_PAIR_SEP"
API_KEY_ENV = "INSPECT_CITE_NLI_API_KEY"
TIMEOUT_ENV = "INSPECT_CITE_NLI_TIMEOUT"
"""Seconds one request may take in all, the reply's body included (default ``TIMEOUT``)."""
TIMEOUT = 120.0
MAX_TIMEOUT = 3600.0
# HTTP statuses worth another try (rate limit, server errors).
_TRANSIENT = (429, 500, 502, 503, 504)
# Why a character in the key is likely there, by how it got in.
_KEY_CHAR_HINTS = {
    "\r": "a Windows line ending?",
    "\n": "a line ending?",
    " ": "a space around the key?",
    "\t": "a tab around the key?",
}


def api_key_problem(key: str) -> str | None:
    """Why ``key`` cannot be sent as a bearer header, or None; never quotes the key.

    A bearer token is printable ASCII without spaces (RFC 6750's ``b64token`` and the keys of
    every API seen): a control character (a carriage return a Windows ``.env`` leaves at the
    end), a space or a character outside ASCII (a typographic quote a word processor put
    around it) is refused, naming the character and where it is, not the key.
    """
    for i, char in enumerate(key):
        if "!" <= char <= "~":
            continue
        name = unicodedata.name(char, "a control character")
        hint = _KEY_CHAR_HINTS.get(char)
        if hint is None and unicodedata.category(char).startswith("P"):
            hint = "a typographic quote or punctuation from a word processor?"
        where = f"U+{ord(char):04X} {name} at character {i + 1} of {len(key)}"
        return (
            f"{API_KEY_ENV} holds a character an HTTP header cannot carry ({where}"
            f"{'; ' + hint if hint else ''}): set it to the key alone (the key is not shown)"
        )
    return None


def without_key(text: str) -> str:
    r"""``text`` with every credential redacted, the key of ``INSPECT_CITE_NLI_API_KEY`` too.

    :func:`redact_text` finds credentials by their form; the key itself is also replaced
    as given and as Python quotes it (``repr`` of the text or of its bytes, where a
    carriage return reads ``\r``), so that no error text carries it whatever it holds.
    """
    key = os.environ.get(API_KEY_ENV, "")
    forms = {
        key,
        key.strip(),
        repr(key)[1:-1],
        ascii(key)[1:-1],
        repr(key.encode("utf-8", "backslashreplace"))[2:-1],
        repr(key.encode("latin-1", "backslashreplace"))[2:-1],
    }
    # Longest first: a form inside a longer one must not leave the rest of that one.
    for form in sorted((f for f in forms if len(f) >= 4), key=len, reverse=True):
        text = text.replace(form, "***")
    return redact_text(text)


def check_base_url(base: str) -> None:
    """Refuse a base URL that carries credentials or a query string.

    Inspect records task and scorer arguments in every log, and the spec is shown in
    explanations, so a secret in the URL would be copied into logs; the key belongs in
    ``INSPECT_CITE_NLI_API_KEY``, sent as a bearer header to that origin only.

    Raises:
        NLIConfigError: Naming what to remove and where the secret goes instead.

    """
    try:
        parts = urllib.parse.urlsplit(base)
        found = url_credentials(base)
    except ValueError as e:
        raise NLIConfigError(f"remote:{redact_url(base)}: not a valid URL ({e})") from e
    if found is None and parts.query:
        found = "a query string"
    if found is not None:
        raise NLIConfigError(
            f"remote:{redact_url(base)}: the URL carries {found}. Inspect records task and "
            f"scorer arguments in the log, so give the URL without it and put the key in "
            f"{API_KEY_ENV} (sent as a bearer header to that server only)."
        )


class RemoteNLI:
    """Batches of pairs to ``POST <base>/classify``; 429, 5xx and network errors are retryable.

    Args:
        arg: ``<base url>#<model>`` (the model is optional).
        timeout: Seconds one socket read may wait.

    Each request may take ``$INSPECT_CITE_NLI_TIMEOUT`` seconds in all (default 120), so a
    server that trickles its reply cannot hold a batch for ever.

    Raises:
        NLIConfigError: For a URL that is not http(s), carries credentials, or a timeout
            setting that is not a number above 0 and at most an hour.

    """

    def __init__(self, arg: str, timeout: float = 60.0) -> None:
        base, _, model = arg.partition("#")
        if not base.startswith(("http://", "https://")):
            raise NLIConfigError(
                f"remote:{redact_text(arg)}: expected remote:<http(s) base url>#<model>"
            )
        check_base_url(base)
        key_problem = api_key_problem(os.environ.get(API_KEY_ENV, ""))
        if key_problem is not None:
            raise NLIConfigError(f"remote:{redact_url(base)}: {key_problem}")
        self.base = base.rstrip("/")
        self.model = model or None
        self.sep = os.environ.get(PAIR_SEP_ENV, " [SEP] ")
        self.timeout = timeout
        self.deadline = number_setting(
            TIMEOUT_ENV, os.environ.get(TIMEOUT_ENV), TIMEOUT, MAX_TIMEOUT, False, positive=True
        )
        self.identity = f"remote:{self.base}#{self.model or ''}|sep={self.sep!r}"

    def served_model(self) -> str | None:
        """The model the server says it serves: the disk cache key of a spec without ``#model``.

        vLLM (and servers speaking its API) list what they serve at ``GET /v1/models``, each
        model with the weights it loaded (``root``). When the server lists one model, that is
        what decides; otherwise (no such endpoint, several models) nothing tells which model
        answers, so decisions are not stored on disk, with one warning saying why.
        """
        try:
            listed = self._request("/v1/models")["data"]
            models = [f"{m['id']}|root={m.get('root')}" for m in listed]
        except NLIConfigError:
            raise
        except (NLIError, KeyError, TypeError, ValueError) as e:
            why = f"GET /v1/models gave no model list ({without_key(str(e))[:120]})"
        else:
            if len(models) == 1:
                return f"served:{models[0]}"
            why = f"the server lists {len(models)} models at /v1/models"
        logger.warning(
            f"remote:{self.base}: NLI decisions are not cached on disk: the spec names no "
            f"model and {why}. Name it (remote:<url>#<model>) to cache them."
        )
        return None

    def _request(self, path: str, payload: dict[str, Any] | None = None) -> Any:
        """POST ``payload`` as JSON (GET without one); the JSON reply.

        Raises:
            NLIConfigError: When the key in ``INSPECT_CITE_NLI_API_KEY`` cannot be sent.
            NLIError: When the exchange failed; retryable where the server or the network
                may answer another time, not where the request could not be sent at all.

        """
        headers = {"Content-Type": "application/json"}
        # The key comes from the environment only, so it never lands in specs, logs or reports.
        key = os.environ.get(API_KEY_ENV)
        if key:
            problem = api_key_problem(key)
            if problem is not None:
                raise NLIConfigError(f"remote:{self.base}: {problem}")
            headers["Authorization"] = f"Bearer {key}"
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            self.base + path, data=data, headers=headers, method="GET" if data is None else "POST"
        )
        # One attempt: CachedNLI retries retryable failures with its backoff, outside the
        # batch thread, so a server that is busy does not block other batches while waiting.
        where = f"{self.base}{path}"
        try:
            body = read_url(request, timeout=self.timeout, deadline=self.deadline)
        except CrossOriginRedirectError as e:
            raise NLIError(f"{where}: {e}", retryable=False) from e
        except urllib.error.HTTPError as e:
            raise NLIError(
                f"{where}: HTTP {e.code} {without_key(str(e.reason))}",
                retryable=e.code in _TRANSIENT,
            ) from e
        except (ValueError, http.client.InvalidURL) as e:
            # Raised while the request is written, before anything is sent (a header value
            # http.client refuses; its message quotes the header): asking again fails the same.
            raise NLIError(
                f"{where}: the request could not be sent ({type(e).__name__}: "
                f"{without_key(str(e))})",
                retryable=False,
            ) from e
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            # A read that timed out, or the whole request: say which setting bounds it.
            hint = f" ({TIMEOUT_ENV}={self.deadline:g})" if isinstance(e, TimeoutError) else ""
            raise NLIError(f"{where}: {without_key(str(e))}{hint}", retryable=True) from e
        return json.loads(body)

    def __call__(self, pairs: list[Pair]) -> list[NLIResult | Exception]:
        """Classify a batch in one request; a failed request fails every pair of the batch."""
        texts = [f"{premise}{self.sep}{hypothesis}" for premise, hypothesis in pairs]
        payload: dict[str, Any] = {"input": texts}
        if self.model:
            payload["model"] = self.model
        try:
            data = sorted(self._request("/classify", payload)["data"], key=lambda d: d["index"])
        except NLIConfigError:
            raise  # the run's configuration (the key), not this batch: CachedNLI stops
        except (NLIError, KeyError, TypeError, ValueError) as e:
            error = (
                e
                if isinstance(e, NLIError)
                else NLIError(f"{self.base}: malformed reply {without_key(repr(e))}")
            )
            return [error] * len(pairs)
        if len(data) != len(pairs):
            return [NLIError(f"{self.base}: {len(data)} results for {len(pairs)} inputs")] * len(
                pairs
            )
        if [d["index"] for d in data] != list(range(len(pairs))):
            # Duplicated or out-of-range indices: no way to tell which result is whose.
            return [NLIError(f"{self.base}: reply indices do not match the inputs", False)] * len(
                pairs
            )
        return [self._decision(i, item) for i, item in enumerate(data)]

    def _decision(self, index: int, item: dict[str, Any]) -> NLIResult | Exception:
        """One reply item as a decision; one without a label is a failure, never "not entailed"."""
        label = item.get("label")
        if not isinstance(label, str) or not label.strip():
            return NLIError(
                f"{self.base}: reply item {index} has no label (got {label!r:.80})",
                retryable=False,
            )
        entailed = label.lower().startswith("entail")
        probs = item.get("probs")
        if not entailed or not probs:
            return NLIResult(entailed)
        if not isinstance(probs, list):
            return NLIError(f"{self.base}: reply item {index} has probs {probs!r:.80}", False)
        try:
            prob = max(probs)
        except TypeError:
            return NLIError(f"{self.base}: reply item {index} has probs {probs!r:.80}", False)
        # Range and finiteness are checked with every backend's results (checked_result).
        return NLIResult(entailed, prob)
