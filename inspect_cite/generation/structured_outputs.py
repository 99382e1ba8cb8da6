"""Constraints sent to OpenAI-compatible servers (vLLM) as ``extra_body["structured_outputs"]``.

vLLM (>= 0.12) enforces ``structured_outputs`` (``grammar``, ``choice``, ``regex``, ``json``)
during decoding. The older ``guided_grammar``/``guided_choice`` keys are silently ignored by
current servers (HTTP 200, unconstrained text), so they are never sent. A server that ignores
the constraint anyway still answers; callers always validate the reply (:func:`json_in_reply`).
"""

import re
from typing import Any

from inspect_ai.model import Model, ModelName

from inspect_cite.downloads.files import loads

# Providers that forward extra_body to an OpenAI-compatible server that may enforce it.
EXTRA_BODY_PROVIDERS = ("vllm", "openai-api")


def forwards_extra_body(model: Model) -> bool:
    """Whether ``model``'s provider passes ``extra_body`` on to a server that may enforce it."""
    return ModelName(str(model)).api in EXTRA_BODY_PROVIDERS


def with_structured_outputs(extra_body: dict[str, Any] | None, **constraint: Any) -> dict[str, Any]:
    """``extra_body`` plus a ``structured_outputs`` constraint, keeping what was there."""
    body = dict(extra_body or {})
    structured = dict(body.get("structured_outputs") or {})
    structured.update(constraint)
    body["structured_outputs"] = structured
    return body


_JSON_IN_REPLY = re.compile(r"(\{.*\}|\[.*\])", re.DOTALL)


def json_in_reply(reply: str) -> Any | None:
    """The JSON object or list in a model reply (from the first bracket to the last), or None.

    Never raises: text with no JSON, invalid JSON, nesting too deep for the parser and numbers
    too long for ``int()`` all give None. ``NaN`` and ``Infinity`` parse (as Python's json does):
    callers check every value they read.
    """
    m = _JSON_IN_REPLY.search(reply)
    if m is None:
        return None
    try:
        return loads(m.group(1))
    except ValueError:
        return None
