"""The PubMed efetch client against a local HTTP server: batching, 429 retry, cache, errors."""

import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from fullcite_tasks.data.pubmed import PubMedClient, PubMedError, parse_efetch_xml
from inspect_cite.checks.errors import PreflightError
from tests.helpers.http_servers import TricklingServer, within

RECORDS = {
    "101": (
        "First <i>title</i>",
        [("BACKGROUND", "Alpha beta."), ("RESULTS", "Gamma <sup>2</sup> delta.")],
    ),
    "102": ("Second title", [(None, "Plain abstract text.")]),
    "103": ("Third title", [(None, "Another abstract.")]),
    "104": ("Fourth title", [(None, "Yet another abstract.")]),
}


def efetch_xml(ids: list[str]) -> str:
    parts = ["<?xml version='1.0'?><PubmedArticleSet>"]
    for pmid in ids:
        if pmid not in RECORDS:
            continue  # efetch silently leaves out unknown ids
        title, sections = RECORDS[pmid]
        texts = "".join(
            f'<AbstractText Label="{label}">{body}</AbstractText>'
            if label
            else f"<AbstractText>{body}</AbstractText>"
            for label, body in sections
        )
        parts.append(
            f"<PubmedArticle><MedlineCitation><PMID Version='1'>{pmid}</PMID><Article>"
            f"<ArticleTitle>{title}</ArticleTitle><Abstract>{texts}</Abstract></Article>"
            "</MedlineCitation><PubmedData><ReferenceList><Reference><ArticleIdList>"
            "<ArticleId IdType='pubmed'>999</ArticleId></ArticleIdList></Reference>"
            "</ReferenceList></PubmedData></PubmedArticle>"
        )
    parts.append("</PubmedArticleSet>")
    return "".join(parts)


class FakeEutils:
    """A local E-utilities: records each request, answers 429 to the first ``fail_first``."""

    def __init__(self, fail_first: int = 0, status: int = 429):
        self.requests: list[dict[str, list[str]]] = []
        self.fail_first = fail_first
        self.status = status
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                params = urllib.parse.parse_qs(body)
                outer.requests.append(params | {"path": [self.path]})
                if len(outer.requests) <= outer.fail_first:
                    self.send_response(outer.status)
                    self.send_header("Retry-After", "0")
                    self.end_headers()
                    return
                data = efetch_xml(params["id"][0].split(",")).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/xml")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/eutils/"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def client(server: FakeEutils, tmp_path, **kwargs) -> PubMedClient:
    args = {"cache": tmp_path / "pubmed", "requests_per_second": 1000.0, "backoff": 0.01} | kwargs
    return PubMedClient(base_url=server.url, **args)


def test_batches_retries_429_and_caches(tmp_path, monkeypatch):
    monkeypatch.delenv("NCBI_API_KEY", raising=False)
    with FakeEutils(fail_first=1) as server:
        pubmed = client(server, tmp_path, batch_size=2, email="me@example.org")
        got = pubmed.fetch(["101", "102", "103", "104", "105", 101])
        # 3 batches (2 + 2 + 1 ids), the first answered 429 once and retried.
        assert [r["id"][0] for r in server.requests] == ["101,102", "101,102", "103,104", "105"]
        assert all(r["path"] == ["/eutils/efetch.fcgi"] for r in server.requests)
        assert server.requests[0]["db"] == ["pubmed"] and server.requests[0]["retmode"] == ["xml"]
        assert server.requests[0]["email"] == ["me@example.org"]
        assert "api_key" not in server.requests[0]
        assert pubmed.requests_made == 4
        assert got["101"].title == "First title"
        assert got["101"].abstract == "BACKGROUND: Alpha beta.\nRESULTS: Gamma 2 delta."
        assert got["102"].abstract == "Plain abstract text."
        assert got["105"].missing and got["105"].abstract == ""
        # A second client on the same cache asks nothing, missing PMIDs included.
        again = client(server, tmp_path)
        assert again.fetch(["105", "104", "101"]) == {k: got[k] for k in ("105", "104", "101")}
        assert again.requests_made == 0 and len(server.requests) == 4
        assert sorted(p.name for p in (tmp_path / "pubmed").iterdir()) == [
            f"{p}.json" for p in ("101", "102", "103", "104", "105")
        ]


def test_api_key_is_sent_and_raises_the_rate(tmp_path, monkeypatch):
    monkeypatch.setenv("NCBI_API_KEY", "secret-key")
    with FakeEutils() as server:
        pubmed = PubMedClient(base_url=server.url, cache=tmp_path / "c")
        assert pubmed.limiter.interval == pytest.approx(0.1)
        pubmed.fetch(["102"])
        assert server.requests[0]["api_key"] == ["secret-key"]
    monkeypatch.delenv("NCBI_API_KEY")
    assert PubMedClient(
        base_url=server.url, cache=tmp_path / "c"
    ).limiter.interval == pytest.approx(1 / 3)


def test_gives_up_after_retries_with_a_helpful_error(tmp_path):
    with FakeEutils(fail_first=100, status=503) as server:
        pubmed = client(server, tmp_path, max_retries=2)
        with pytest.raises(PubMedError, match="after 3 attempts.*abstracts_path") as failed:
            pubmed.fetch(["101"])
        # Raised while the task is built: Inspect prints a PreflightError without a traceback.
        assert isinstance(failed.value, PreflightError)
        assert len(server.requests) == 3
    # Nothing was cached for the failed batch.
    assert not list((tmp_path / "pubmed").iterdir())


def test_client_errors_are_not_retried(tmp_path):
    with FakeEutils(fail_first=100, status=400) as server:
        with pytest.raises(PubMedError, match="HTTP 400"):
            client(server, tmp_path).fetch(["101"])
        assert len(server.requests) == 1


def test_rejects_non_numeric_ids(tmp_path):
    with pytest.raises(ValueError, match="not a PubMed id"):
        PubMedClient(base_url="http://127.0.0.1:9/", cache=tmp_path).fetch(["12a"])


def test_book_records_and_unreadable_cache(tmp_path):
    xml = (
        "<PubmedArticleSet><PubmedBookArticle><BookDocument><PMID>7</PMID>"
        "<ArticleTitle>Book part</ArticleTitle><Abstract><AbstractText>Book abstract."
        "</AbstractText></Abstract></BookDocument></PubmedBookArticle></PubmedArticleSet>"
    )
    assert parse_efetch_xml(xml)["7"].abstract == "Book abstract."
    pubmed = PubMedClient(base_url="http://127.0.0.1:9/", cache=tmp_path)
    (tmp_path / "7.json").write_text("{not json")
    assert pubmed.cached("7") is None


@pytest.mark.parametrize("part", ["headers", "unsized body"])
def test_a_trickling_efetch_ends_at_the_timeout(tmp_path, part):
    # Each byte comes within the timeout of one read: only a total deadline ends the request.
    with TricklingServer(part) as slow:
        client = PubMedClient(
            base_url=slow.url + "/", cache=tmp_path, timeout=0.5, max_retries=1, backoff=0
        )
        with pytest.raises(PubMedError) as e:
            within(60, client.fetch, ["101"])
    assert slow.connections == 2
    assert "(TimeoutError: no complete reply within 0.5 s)" in str(e.value)
    assert not list(tmp_path.glob("*.json")), "nothing is cached from a cut reply"
