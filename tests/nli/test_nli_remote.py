"""The remote: NLI backend against a local stand-in for vLLM's /classify endpoint."""

import asyncio
import json
import math
import re
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from inspect_ai.scorer import Target

from inspect_cite.nli import get_nli, reset_nli
from inspect_cite.nli.base import NLIConfigError, NLIError
from scorers import citation_nli
from tests.helpers.http_servers import TricklingServer, within
from tests.helpers.task_states import state

WORD = re.compile(r"[a-z0-9]+")


class Classify(BaseHTTPRequestHandler):
    requests: list[dict] = []
    fail_next: list[int] = []
    # Rewrites the reply items (malformed-reply tests); None sends them as they are.
    rewrite: Callable[[list[dict]], list[dict]] | None = None
    # What GET /v1/models lists; None: no such endpoint (404).
    models: list[dict] | None = None

    def do_GET(self):  # noqa: N802 - http.server's naming
        if self.path != "/v1/models" or Classify.models is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        payload = json.dumps({"object": "list", "data": Classify.models}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self):  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Classify.requests.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        if Classify.fail_next:
            self.send_response(Classify.fail_next.pop(0))
            self.end_headers()
            return
        data = []
        for i, text in enumerate(body["input"]):
            premise, hypothesis = text.split(" [SEP] ")
            entailed = set(WORD.findall(hypothesis.lower())) <= set(WORD.findall(premise.lower()))
            label = "entailment" if entailed else "neutral"
            data.append({"index": i, "label": label, "probs": [0.9, 0.1], "num_classes": 2})
        if Classify.rewrite is not None:
            data = Classify.rewrite(data)
        payload = json.dumps(
            {"object": "list", "model": body.get("model"), "data": data[::-1]}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("INSPECT_CITE_NLI_API_KEY", "secret-key")
    Classify.requests, Classify.fail_next, Classify.rewrite, Classify.models = [], [], None, None
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Classify)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    reset_nli()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    reset_nli()


def test_remote_classifier_batches_and_reads_labels(server):
    nli = get_nli(f"remote:{server}#nli-model")
    pairs = [("the sky is blue", "sky is blue"), ("the sky is blue", "grass is green")]
    results = asyncio.run(nli.entail(pairs))
    assert [r.entailed for r in results] == [True, False]
    assert results[0].prob == pytest.approx(0.9)
    [request] = Classify.requests
    assert request["path"] == "/classify"
    assert request["body"]["model"] == "nli-model"
    assert request["body"]["input"][0] == "the sky is blue [SEP] sky is blue"
    assert request["auth"] == "Bearer secret-key"
    assert "secret-key" not in nli.identity


def test_remote_retries_429_then_reports_failures(server):
    Classify.fail_next = [429]
    nli = get_nli(f"remote:{server}#m")
    assert asyncio.run(nli.entail([("a b", "a")]))[0].entailed is True
    assert len(Classify.requests) == 2
    Classify.fail_next = [400]
    with pytest.raises(NLIError, match="HTTP 400"):
        asyncio.run(nli.entail([("x y", "z")]))


def test_remote_spec_needs_a_url():
    with pytest.raises(NLIConfigError, match="remote:<http"):
        get_nli("remote:localhost:8000")


def drop_label(item: dict) -> dict:
    return {k: v for k, v in item.items() if k != "label"}


@pytest.mark.parametrize(
    "rewrite, reason",
    [
        (lambda data: [drop_label(d) for d in data], "has no label (got None)"),
        (lambda data: [d | {"label": None} for d in data], "has no label (got None)"),
        (lambda data: [d | {"label": ""} for d in data], "has no label (got '')"),
        (lambda data: [d | {"label": 1} for d in data], "has no label (got 1)"),
        (lambda data: [d | {"probs": [float("nan")]} for d in data], "probability nan"),
        (lambda data: [d | {"probs": [3.0]} for d in data], "probability 3.0"),
        (lambda data: [d | {"index": d["index"] + 1} for d in data], "indices do not match"),
    ],
)
def test_remote_reply_without_a_valid_decision_is_a_failure_not_a_verdict(
    server, monkeypatch, rewrite, reason
):
    monkeypatch.setenv("INSPECT_CITE_NLI_RETRIES", "0")
    Classify.rewrite = rewrite
    nli = get_nli(f"remote:{server}#m")
    with pytest.raises(NLIError, match=re.escape(reason)):
        asyncio.run(nli.entail([("the sky is blue", "sky is blue"), ("a b", "c")]))
    # Through the scorer: nan with the reason, never "not supported".
    docs = [{"id": "1", "title": "T", "text": "The sky is blue."}]
    meta = {"docs": docs, "dataset": "asqa", "question": "q"}
    scorer = citation_nli(nli=f"remote:{server}#m")
    score = asyncio.run(scorer(state("The sky is blue [1].", meta), Target("")))
    assert score is not None and isinstance(score.value, dict)
    assert all(math.isnan(v) for v in score.value.values())
    assert reason in (score.explanation or "")


def test_a_spec_without_model_is_cached_by_what_the_server_serves(server, tmp_path, caplog):
    db = str(tmp_path / "nli.sqlite")
    pair = ("the sky is blue", "sky is blue")

    def run() -> int:
        reset_nli()  # a new process
        backend = get_nli(f"remote:{server}", db)
        assert [r.entailed for r in asyncio.run(backend.entail([pair]))] == [True]
        return backend.model_pairs

    Classify.models = [{"id": "nli", "root": "/models/deberta-nli-v1"}]
    assert (run(), run()) == (1, 0)
    # The server now serves other weights under the same name: the decisions are not reused.
    Classify.models = [{"id": "nli", "root": "/models/deberta-nli-v2"}]
    assert (run(), run()) == (1, 0)
    # Nothing tells which model answers: decisions stay in memory, and the log says why once.
    for models in (None, [{"id": "a", "root": "a"}, {"id": "b", "root": "b"}]):
        Classify.models = models
        caplog.clear()
        assert (run(), run()) == (1, 1)
        warnings = [
            r.getMessage() for r in caplog.records if "not cached on disk" in r.getMessage()
        ]
        assert len(warnings) == 2 and "remote:<url>#<model>" in warnings[0]


@pytest.mark.parametrize("part", ["headers", "body", "unsized body"])
def test_a_trickling_server_ends_at_the_request_deadline(fresh_nli, monkeypatch, part):
    # Each byte comes well within the per-read timeout: only a total deadline ends the request.
    monkeypatch.setenv("INSPECT_CITE_NLI_TIMEOUT", "1")
    monkeypatch.setenv("INSPECT_CITE_NLI_RETRIES", "0")
    with TricklingServer(part) as slow:
        nli = get_nli(f"remote:{slow.url}#m")
        with pytest.raises(NLIError) as e:
            within(60, asyncio.run, nli.entail([("a b", "a")]))
        if part == "body":  # through a scorer: nan with the reason
            scorer = citation_nli(nli=f"remote:{slow.url}#m")
            docs = [{"id": "1", "title": "T", "text": "The sky is blue."}]
            meta = {"docs": docs, "dataset": "asqa", "question": "q"}
            score = within(60, asyncio.run, scorer(state("The sky is blue [1].", meta), Target("")))
            assert score is not None and isinstance(score.value, dict)
            assert all(math.isnan(v) for v in score.value.values())
            assert "no complete reply within 1 s" in (score.explanation or "")
    assert str(e.value).startswith(
        f"{slow.url}/classify: no complete reply within 1 s (INSPECT_CITE_NLI_TIMEOUT=1)"
    )


@pytest.mark.parametrize("value", ["0", "-1", "inf", "an hour", "3601"])
def test_a_request_deadline_outside_its_bounds_is_a_config_error(fresh_nli, monkeypatch, value):
    monkeypatch.setenv("INSPECT_CITE_NLI_TIMEOUT", value)
    with pytest.raises(NLIConfigError, match="INSPECT_CITE_NLI_TIMEOUT"):
        get_nli("remote:http://127.0.0.1:9#m")
