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
(``inspect_cite.downloads.http_client``), so the key reaches no other host.
"""

import http.client
import json
import logging
import os
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
        except (NLIError, KeyError, TypeError, ValueError) as e:
            why = f"GET /v1/models gave no model list ({redact_text(str(e))[:120]})"
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
        """POST ``payload`` as JSON (GET without one); the JSON reply."""
        headers = {"Content-Type": "application/json"}
        # The key comes from the environment only, so it never lands in specs, logs or reports.
        if os.environ.get(API_KEY_ENV):
            headers["Authorization"] = f"Bearer {os.environ[API_KEY_ENV]}"
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(
            self.base + path, data=data, headers=headers, method="GET" if data is None else "POST"
        )
        # One attempt: CachedNLI retries retryable failures with its backoff, outside the
        # batch thread, so a server that is busy does not block other batches while waiting.
        try:
            body = read_url(request, timeout=self.timeout, deadline=self.deadline)
        except CrossOriginRedirectError as e:
            raise NLIError(f"{self.base}{path}: {e}", retryable=False) from e
        except urllib.error.HTTPError as e:
            raise NLIError(
                f"{self.base}{path}: HTTP {e.code} {e.reason}", retryable=e.code in _TRANSIENT
            ) from e
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            # A read that timed out, or the whole request: say which setting bounds it.
            hint = f" ({TIMEOUT_ENV}={self.deadline:g})" if isinstance(e, TimeoutError) else ""
            raise NLIError(f"{self.base}{path}: {e}{hint}", retryable=True) from e
        return json.loads(body)

    def __call__(self, pairs: list[Pair]) -> list[NLIResult | Exception]:
        """Classify a batch in one request; a failed request fails every pair of the batch."""
        texts = [f"{premise}{self.sep}{hypothesis}" for premise, hypothesis in pairs]
        payload: dict[str, Any] = {"input": texts}
        if self.model:
            payload["model"] = self.model
        try:
            data = sorted(self._request("/classify", payload)["data"], key=lambda d: d["index"])
        except (NLIError, KeyError, TypeError, ValueError) as e:
            error = (
                e if isinstance(e, NLIError) else NLIError(f"{self.base}: malformed reply {e!r}")
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
