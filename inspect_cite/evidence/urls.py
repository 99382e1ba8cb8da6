"""URL normalisation: when two URLs name the same page (a citation and what a tool fetched).

:func:`normalize_url` is the one rule. Two URLs are the same page when they differ only in:

- the scheme (``http`` and ``https``), the host's case, a default port (80, 443), user
  credentials (which never reach a log); ``www.`` is kept (it can be another host);
- a trailing slash of the path (``/a/`` and ``/a``; the root is ``/``), an empty query;
- the fragment (``#section``);
- common tracking parameters (:data:`TRACKING_PARAMETERS`, any ``utm_*``); the other query
  parameters keep their order and values.

Built on :mod:`urllib.parse`; a string that does not parse as a URL is returned stripped.
"""

import urllib.parse

TRACKING_PARAMETERS = frozenset(
    {
        "fbclid",
        "gclid",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "twclid",
        "igshid",
        "mc_cid",
        "mc_eid",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "mkt_tok",
        "ref_src",
        "ref_url",
        "spm",
        "srsltid",
    }
)
"""Query parameters that track a visit and never change the page (``utm_*`` too)."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _tracking(name: str) -> bool:
    name = name.lower()
    return name.startswith("utm_") or name in TRACKING_PARAMETERS


def normalize_url(url: str) -> str:
    """The form under which URLs of the same page compare equal (see the module docstring).

    Args:
        url: An absolute URL (``https://Example.org/a/?utm_source=x#top``).

    Returns:
        ``https://example.org/a`` for the example; the input stripped when it is not an
        ``http(s)`` URL with a host.

    """
    url = url.strip()
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if scheme not in _DEFAULT_PORTS or not host:
        return url
    netloc = host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc = f"{host}:{port}"
    path = parts.path.rstrip("/") or "/"
    query = urllib.parse.urlencode(
        [
            (k, v)
            for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
            if not _tracking(k)
        ]
    )
    # http and https name the same page: one scheme for both.
    return urllib.parse.urlunsplit(("https", netloc, path, query, ""))
