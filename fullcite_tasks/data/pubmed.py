"""PubMed titles and abstracts by PMID from NCBI E-utilities (efetch), cached on disk.

NCBI's usage rules: at most 3 requests per second, 10 with an API key (``NCBI_API_KEY``);
ids are sent in batches (POST, up to 200 per request). Requests that get HTTP 429 or 5xx, or
fail to connect, are retried with exponential backoff (``Retry-After`` honoured); a redirect to
another origin is refused (``inspect_cite.downloads.http_client``). Every PMID
fetched is cached as one JSON file, written atomically, so a rerun makes no request; a PMID
that efetch does not return (withdrawn, or not in PubMed) is cached as missing.
"""

import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from email.utils import parsedate_to_datetime
from logging import getLogger
from pathlib import Path

from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.cache import cache_dir, quarantine
from inspect_cite.downloads.files import json_problem, loads, write_atomic
from inspect_cite.downloads.http_client import CrossOriginRedirectError, read_url, redact_url

logger = getLogger(__name__)

EUTILS_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
# Point the client elsewhere (a mirror, or a local server in tests).
EUTILS_URL_ENV = "INSPECT_CITE_EUTILS_URL"
NCBI_API_KEY_ENV = "NCBI_API_KEY"
NCBI_EMAIL_ENV = "NCBI_EMAIL"
TOOL_NAME = "inspect-cite"

RATE_WITHOUT_KEY = 3.0
RATE_WITH_KEY = 10.0
DEFAULT_BATCH_SIZE = 200
_RETRY_STATUS = {429, 500, 502, 503, 504}


class PubMedError(PreflightError, RuntimeError):
    """Abstracts could not be fetched from PubMed (before any sample: printed as one message)."""


@dataclass(frozen=True)
class Abstract:
    """A PubMed record's title and abstract (``missing`` when efetch returned no record)."""

    pmid: str
    title: str
    abstract: str
    missing: bool = False


class RateLimiter:
    """Spaces calls at least ``1 / rate`` seconds apart (thread-safe)."""

    def __init__(self, rate: float):
        if rate <= 0:
            raise ValueError(f"rate must be positive, got {rate}")
        self.interval = 1.0 / rate
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Block until the next call is allowed."""
        with self._lock:
            now = time.monotonic()
            if now < self._next:
                time.sleep(self._next - now)
                now = time.monotonic()
            self._next = now + self.interval


def _text(element: ET.Element | None) -> str:
    return " ".join("".join(element.itertext()).split()) if element is not None else ""


def parse_efetch_xml(xml: bytes | str) -> dict[str, Abstract]:
    """Titles and abstracts from an efetch ``PubmedArticleSet`` (articles and book records).

    Structured abstracts keep their section labels (``BACKGROUND: ...``), one section per
    line; inline markup (``<i>``, ``<sup>``) is flattened to its text.
    """
    root = ET.fromstring(xml)
    out: dict[str, Abstract] = {}
    for article in root:
        if article.tag == "PubmedArticle":
            pmid_el = article.find("MedlineCitation/PMID")
            title_el = article.find("MedlineCitation/Article/ArticleTitle")
            sections = article.findall("MedlineCitation/Article/Abstract/AbstractText")
        elif article.tag == "PubmedBookArticle":
            pmid_el = article.find("BookDocument/PMID")
            title_el = article.find("BookDocument/ArticleTitle")
            if title_el is None:
                title_el = article.find("BookDocument/Book/BookTitle")
            sections = article.findall("BookDocument/Abstract/AbstractText")
        else:
            continue
        pmid = _text(pmid_el)
        if not pmid:
            continue
        parts = []
        for section in sections:
            body = _text(section)
            label = section.get("Label")
            if body:
                parts.append(f"{label}: {body}" if label else body)
        out[pmid] = Abstract(pmid=pmid, title=_text(title_el), abstract="\n".join(parts))
    return out


class PubMedClient:
    """Fetch PubMed titles and abstracts by PMID: batched, rate-limited, retried, cached.

    Args:
        base_url: E-utilities base URL (default ``$INSPECT_CITE_EUTILS_URL`` or NCBI's).
        api_key: NCBI API key (default ``$NCBI_API_KEY``); raises the rate to 10 requests/s.
        cache: Directory for the per-PMID cache (default ``<inspect-cite cache>/pubmed``).
        batch_size: PMIDs per request (NCBI suggests at most 200).
        requests_per_second: Overrides the rate NCBI allows (3, or 10 with a key).
        max_retries: Retries of one request after 429, 5xx or a connection error.
        backoff: First retry delay in seconds; doubled on each retry.
        timeout: Seconds one response may take in all (connecting, waiting, reading).
        email: Contact address sent to NCBI (default ``$NCBI_EMAIL``).

    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        cache: str | Path | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        requests_per_second: float | None = None,
        max_retries: int = 5,
        backoff: float = 1.0,
        timeout: float = 60.0,
        email: str | None = None,
    ):
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        base = base_url or os.environ.get(EUTILS_URL_ENV) or EUTILS_URL
        self.base_url = base if base.endswith("/") else base + "/"
        self.api_key = api_key if api_key is not None else os.environ.get(NCBI_API_KEY_ENV)
        self.email = email if email is not None else os.environ.get(NCBI_EMAIL_ENV)
        self.cache = Path(cache) if cache is not None else cache_dir("pubmed")
        self.cache.mkdir(parents=True, exist_ok=True)
        self.batch_size = batch_size
        rate = requests_per_second or (RATE_WITH_KEY if self.api_key else RATE_WITHOUT_KEY)
        self.limiter = RateLimiter(rate)
        self.max_retries = max_retries
        self.backoff = backoff
        self.timeout = timeout
        self.requests_made = 0

    def _cache_path(self, pmid: str) -> Path:
        return self.cache / f"{pmid}.json"

    def cached(self, pmid: str) -> Abstract | None:
        """The cached record of a PMID, or None when it must be fetched.

        A cache file that cannot be read as a record is reported as corrupt and moved aside.
        """
        path = self._cache_path(pmid)
        try:
            raw = path.read_bytes()
        except OSError:
            return None
        try:
            data = loads(raw.decode("utf-8"))
        except ValueError as e:
            quarantine(path, json_problem(e))
            return None
        fields = ("pmid", "title", "abstract")
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in fields):
            quarantine(path, "not a record with string pmid, title and abstract")
            return None
        return Abstract(
            pmid=data["pmid"],
            title=data["title"],
            abstract=data["abstract"],
            missing=bool(data.get("missing", False)),
        )

    def fetch(self, pmids: Iterable[str | int]) -> dict[str, Abstract]:
        """Title and abstract of every PMID (from the cache where possible).

        Raises:
            ValueError: A PMID is not a positive integer.
            PubMedError: A batch still fails after all retries.

        """
        wanted: list[str] = []
        for p in pmids:
            pmid = str(p).strip()
            if not pmid.isdigit():
                raise ValueError(f"not a PubMed id: {p!r}")
            if pmid not in wanted:
                wanted.append(pmid)
        out: dict[str, Abstract] = {}
        todo = []
        for pmid in wanted:
            hit = self.cached(pmid)
            if hit is not None:
                out[pmid] = hit
            else:
                todo.append(pmid)
        for i in range(0, len(todo), self.batch_size):
            batch = todo[i : i + self.batch_size]
            found = parse_efetch_xml(self._request(batch))
            for pmid in batch:
                record = found.get(pmid) or Abstract(pmid=pmid, title="", abstract="", missing=True)
                write_atomic(self._cache_path(pmid), json.dumps(asdict(record)))
                out[pmid] = record
        return out

    def _request(self, batch: list[str]) -> bytes:
        params = {"db": "pubmed", "id": ",".join(batch), "retmode": "xml", "tool": TOOL_NAME}
        if self.email:
            params["email"] = self.email
        if self.api_key:
            params["api_key"] = self.api_key
        body = urllib.parse.urlencode(params).encode()
        url = self.base_url + "efetch.fcgi"
        last_error = ""
        retry_after: str | None = None
        for attempt in range(self.max_retries + 1):
            if attempt:
                delay = self._retry_delay(attempt, retry_after)
                logger.warning(
                    f"PubMed efetch: {last_error}; retry {attempt}/{self.max_retries} "
                    f"in {delay:.1f}s"
                )
                time.sleep(delay)
            self.limiter.wait()
            self.requests_made += 1
            request = urllib.request.Request(url, data=body, method="POST")
            try:
                # A total deadline, not only per read: a trickling reply cannot hold the run.
                return read_url(request, timeout=self.timeout, deadline=self.timeout)
            except CrossOriginRedirectError as e:
                raise PubMedError(f"PubMed efetch: {e}") from e
            except urllib.error.HTTPError as e:
                if e.code not in _RETRY_STATUS:
                    raise PubMedError(
                        f"PubMed efetch at {redact_url(url)} failed with HTTP {e.code} for PMIDs "
                        f"{batch[0]}..{batch[-1]}"
                    ) from e
                last_error = f"HTTP {e.code}"
                retry_after = e.headers.get("Retry-After") if e.headers else None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
                last_error = f"{type(e).__name__}: {getattr(e, 'reason', e)}"
                retry_after = None
        raise PubMedError(
            f"PubMed efetch at {redact_url(url)} failed after {self.max_retries + 1} attempts "
            f"({last_error}) for {len(batch)} PMIDs starting {batch[0]}; retry later, set "
            f"{NCBI_API_KEY_ENV} for a higher rate, or pass -T abstracts_path=<JSON file "
            "PMID -> {title, abstract}>"
        )

    def _retry_delay(self, attempt: int, retry_after: str | None) -> float:
        """Exponential backoff, at least what the server's Retry-After asks, at most 2 min."""
        delay = self.backoff * 2 ** (attempt - 1)
        if retry_after:
            try:
                delay = max(delay, float(retry_after))
            except ValueError:
                try:
                    when = parsedate_to_datetime(retry_after).timestamp()
                    delay = max(delay, when - time.time())
                except (TypeError, ValueError):
                    pass
        return min(delay, 120.0)
