"""The model: NLI backend and citation_judge constrain their replies on OpenAI-compatible servers.

Inspect's real ``openai-api/`` provider talks to a local stand-in for a chat-completions
endpoint that records each request body and answers from a script, so what reaches the wire
is checked: ``structured_outputs`` with a choice (NLI) or a regex (judge), never the
removed ``guided_*`` keys, and the user's own ``extra_body`` kept.
"""

import asyncio
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from inspect_ai.model import GenerateConfig, get_model

from inspect_cite.nli.llm import ModelNLI
from scorers.cited_answer import CheckedCitation
from scorers.judge import JUDGE_REPLY_REGEX, judge_citation, parse_judgement
from tests.helpers.scripted_models import scripted_model


class ChatServer:
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


@pytest.fixture
def chat() -> Iterator[type[ChatServer]]:
    servers: list[ChatServer] = []

    class Tracked(ChatServer):
        def __init__(self, replies: list[str]) -> None:
            super().__init__(replies)
            servers.append(self)

    yield Tracked
    for s in servers:
        s.httpd.shutdown()
        s.httpd.server_close()


def test_model_nli_sends_a_yes_no_choice(chat):
    server = chat(["yes", "no"])
    model = server.model(extra_body={"priority": 3})
    nli = ModelNLI("openai-api/standin/tiny", model=model)
    results = asyncio.run(nli([("the sky is blue", "sky is blue"), ("a", "b")]))
    assert sorted(r.entailed for r in results) == [False, True]  # type: ignore[union-attr]
    assert len(server.bodies) == 2
    for body in server.bodies:
        assert body["structured_outputs"] == {"choice": ["yes", "no"]}
        assert body["priority"] == 3  # the user's own extra_body is kept
        assert not any(k.startswith("guided_") for k in body)
        assert body["temperature"] == 0.0


def test_model_nli_still_validates_a_server_that_ignores_the_choice(chat):
    server = chat(["It depends.", "It depends.", "It depends."])
    nli = ModelNLI("openai-api/standin/tiny", model=server.model())
    [result] = asyncio.run(nli([("a", "b")]))
    assert isinstance(result, Exception) and "no yes/no answer after 3 tries" in str(result)


CITATION = CheckedCitation(
    index=0,
    claim="The sky is blue",
    doc_id="d1",
    snippet="The sky is blue.",
    status="valid",
    position=0,
    verbatim=True,
)


def test_judge_sends_the_reply_regex(chat):
    server = chat(["Support: 4\nRelevance: 2"])
    result = asyncio.run(judge_citation(server.model(), "Why?", CITATION, "Sky", attempts=2))
    assert (result["support"], result["relevance"]) == (4, 2)
    [body] = server.bodies
    assert body["structured_outputs"] == {"regex": JUDGE_REPLY_REGEX}
    assert not any(k.startswith("guided_") for k in body)


@pytest.mark.parametrize("support,relevance", [(1, 5), (3, 3), (5, 1)])
def test_every_reply_the_regex_allows_parses(support, relevance):
    reply = f"Support: {support}\nRelevance: {relevance}"
    assert re.fullmatch(JUDGE_REPLY_REGEX, reply)
    assert parse_judgement(reply) == (support, relevance)


def test_providers_without_a_server_get_no_structured_outputs():
    model, script = scripted_model(["yes"])
    [result] = asyncio.run(ModelNLI("scripted", model=model)([("a", "a")]))
    assert result.entailed is True  # type: ignore[union-attr]
    assert script.configs[0].extra_body is None
