"""The model: NLI backend and citation_judge constrain their replies on OpenAI-compatible servers.

Inspect's real ``openai-api/`` provider talks to a local stand-in for a chat-completions
endpoint that records each request body and answers from a script, so what reaches the wire
is checked: ``structured_outputs`` with a choice (NLI) or a regex (judge), never the
removed ``guided_*`` keys, and the user's own ``extra_body`` kept.
"""

import asyncio
import re
from collections.abc import Iterator

import pytest

from inspect_cite.nli.llm import ModelNLI
from scorers.citation_judge import JUDGE_REPLY_REGEX, judge_citation, parse_judgement
from tests.helpers.http_servers import ChatServer
from tests.helpers.nli_judge import CITATION
from tests.helpers.scripted_models import scripted_model


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
