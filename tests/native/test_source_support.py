"""scorers/source_support on transcripts of tool-using models, built with Inspect's log API."""

import math

import pytest
from inspect_ai import score as inspect_score
from inspect_ai.log import EvalLog, EvalSample, EvalSpec, write_eval_log
from inspect_ai.log._log import EvalConfig, EvalDataset  # noqa: F401 - see eval_log below
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    ContentText,
    ContentToolUse,
    ModelOutput,
    UrlCitation,
)
from inspect_ai.tool import ToolCall

from inspect_cite.evidence.transcript import answer_claims, transcript_sources
from inspect_cite.evidence.urls import normalize_url
from scorers.source_support import source_support

NLI = "python:tests.helpers.nli_fns:claim_overlap"

PAGES = {
    "https://example.org/eiffel": "The Eiffel Tower stands in Paris and was completed in 1889.",
    "https://example.org/louvre": "The Louvre holds thousands of paintings from many periods.",
}


def fetch(call_id: str, url: str) -> list:
    return [
        ChatMessageAssistant(
            content="", tool_calls=[ToolCall(id=call_id, function="fetch", arguments={"url": url})]
        ),
        ChatMessageTool(content=PAGES[url], tool_call_id=call_id, function="fetch"),
    ]


def agent_messages(answer: list[ContentText]) -> list:
    return [
        ChatMessageUser(content="Tell me about Paris landmarks."),
        *fetch("c1", "https://example.org/eiffel"),
        *fetch("c2", "https://example.org/louvre"),
        ChatMessageAssistant(content=answer),
    ]


def acceptance_answer() -> list[ContentText]:
    return [
        ContentText(
            text="The Eiffel Tower stands in Paris. ",
            # The citation's URL differs from the fetched one only in form.
            citations=[UrlCitation(url="HTTP://Example.org/eiffel/?utm_source=chat#top")],
        ),
        ContentText(
            text="The Louvre was built by the Romans in 1889. ",
            citations=[UrlCitation(url="https://example.org/louvre")],
        ),
        ContentText(
            text="Notre-Dame burned in 2019. ",
            citations=[UrlCitation(url="https://example.org/notre-dame")],
        ),
        ContentText(text="Paris has many bridges."),
    ]


def eval_log(samples: list[EvalSample]) -> EvalLog:
    return EvalLog(
        eval=EvalSpec(
            created="2026-01-01T00:00:00+00:00",
            task="agent_task",
            dataset=EvalDataset(),
            model="mockllm/model",
            config=EvalConfig(),
        ),
        samples=samples,
        status="success",
    )


def sample(messages: list, id: int = 1, output: ModelOutput | None = None) -> EvalSample:
    return EvalSample(
        id=id,
        epoch=1,
        input=messages[0].text,
        target="",
        messages=messages,
        output=output or ModelOutput.from_content("mockllm/model", messages[-1].content),
    )


def test_acceptance_shape_scores_seen_supported_uncited(tmp_path, fresh_nli):
    log = eval_log([sample(agent_messages(acceptance_answer()))])
    rescored = inspect_score(log, scorers=[source_support(nli=NLI)], display="none")
    value = rescored.samples[0].scores["source_support"].value
    assert value["cited_source_seen"] == pytest.approx(200 / 3)
    assert value["supported_claims"] == 25
    assert value["uncited_claims"] == 25
    assert value["n_citations"] == 3
    explanation = rescored.samples[0].scores["source_support"].explanation
    assert "never retrieved" in explanation and "**supported**" in explanation


def test_url_normalisation():
    same = [
        "https://example.org/a",
        "http://EXAMPLE.org/a/",
        "https://example.org:443/a#section",
        "https://example.org/a?utm_source=x&utm_medium=y&fbclid=z",
        "https://user:secret@example.org/a",
    ]
    assert {normalize_url(u) for u in same} == {"https://example.org/a"}
    assert normalize_url("https://example.org/a?id=2&utm_term=q") == "https://example.org/a?id=2"
    assert normalize_url("https://example.org/a?id=2") != normalize_url(
        "https://example.org/a?id=3"
    )
    assert normalize_url("https://www.example.org/") != normalize_url("https://example.org/")
    assert normalize_url("not a url ") == "not a url"


def test_search_results_numbers_links_and_server_side_search(fresh_nli):
    search = ChatMessageAssistant(
        content="", tool_calls=[ToolCall(id="s1", function="search", arguments={"query": "q"})]
    )
    results = ChatMessageTool(
        content=(
            '{"results": [{"url": "https://a.org/x", "title": "A", "content": "Cats purr when '
            'content."}, {"url": "https://b.org/y", "content": "Dogs bark at strangers."}]}'
        ),
        tool_call_id="s1",
        function="search",
    )
    # Inspect's own web_search tool: a text block whose UrlCitations carry each page's text.
    web = ChatMessageAssistant(
        content="", tool_calls=[ToolCall(id="w1", function="web_search", arguments={"query": "q"})]
    )
    web_result = ChatMessageTool(
        content=[
            ContentText(
                text="Summary.",
                citations=[UrlCitation(url="https://c.org/z", cited_text="Owls hunt at night.")],
            )
        ],
        tool_call_id="w1",
        function="web_search",
    )
    # Server-side search, as Anthropic's results are recorded (content encrypted).
    server_side = ContentToolUse(
        tool_type="web_search",
        id="srv",
        name="web_search",
        arguments='{"query": "q"}',
        result='[{"type": "web_search_result", "url": "https://d.org/w", "encrypted_content": "x"}]',
    )
    searched = ChatMessageAssistant(content=[server_side, ContentText(text="Searching.")])
    answer = ChatMessageAssistant(
        content=[
            ContentText(text="Cats purr when content [1]. Dogs bark at strangers [2]. "),
            ContentText(text="Owls hunt at night, see [this page](https://c.org/z). "),
            ContentText(text="Bees dance.", citations=[UrlCitation(url="https://d.org/w")]),
        ]
    )
    # The JSON search comes last: its results are numbers 1 and 2 for the [n] markers.
    messages = [
        ChatMessageUser(content="Animals?"),
        searched,
        web,
        web_result,
        search,
        results,
        answer,
    ]
    sources = transcript_sources(messages)
    assert set(sources.by_key) == {
        "url:https://a.org/x",
        "url:https://b.org/y",
        "url:https://c.org/z",
        "url:https://d.org/w",
    }
    assert sources.numbered == {1: "url:https://a.org/x", 2: "url:https://b.org/y"}
    assert sources.by_key["url:https://d.org/w"].texts == []
    claims = answer_claims(answer)
    assert [c.hypothesis for c in claims.claims] == [
        "Cats purr when content.",
        "Dogs bark at strangers.",
        "Owls hunt at night, see this page.",
        "Bees dance.",
    ]
    log = eval_log([sample(messages)])
    rescored = inspect_score(log, scorers=[source_support(nli=NLI)], display="none")
    value = rescored.samples[0].scores["source_support"].value
    assert value["n_citations"] == 4 and value["cited_source_seen"] == 100
    assert value["uncited_claims"] == 0
    # "Bees dance." cites a page whose text the transcript does not hold: not judged.
    assert value["supported_claims"] == 100
    verdicts = [
        c["verdict"] for c in rescored.samples[0].scores["source_support"].metadata["claims"]
    ]
    assert verdicts == ["supported", "supported", "supported", "no text"]


def test_nli_failure_and_empty_answers_are_nan_with_a_reason(fresh_nli):
    failing = "python:tests.helpers.nli_fns:failing_on_fail"
    answer = [
        ContentText(text="We fail here.", citations=[UrlCitation(url="https://example.org/eiffel")])
    ]
    empty = [ContentText(text="")]
    log = eval_log([sample(agent_messages(answer), 1), sample(agent_messages(empty), 2)])
    rescored = inspect_score(log, scorers=[source_support(nli=failing)], display="none")
    failed, blank = (s.scores["source_support"] for s in rescored.samples)
    assert all(math.isnan(v) for v in failed.value.values())
    assert "NLI failed" in failed.metadata["reason"]
    assert blank.value["n_citations"] == 0 and math.isnan(blank.value["supported_claims"])
    assert "no claims" in blank.metadata["reason"]


def test_written_log_rescored_in_process(tmp_path, fresh_nli):
    path = tmp_path / "agent.eval"
    write_eval_log(eval_log([sample(agent_messages(acceptance_answer()))]), str(path))
    from inspect_ai.log import read_eval_log

    rescored = inspect_score(
        read_eval_log(str(path)), scorers=[source_support(nli=NLI)], display="none"
    )
    assert rescored.samples[0].scores["source_support"].value["supported_claims"] == 25


def test_an_answer_only_in_the_output_is_read_from_there(fresh_nli):
    # A hand-built log whose conversation ends with the last tool result.
    messages = agent_messages(acceptance_answer())
    answer = messages.pop()
    output = ModelOutput.from_content("mockllm/model", answer.content)
    log = eval_log([sample(messages, output=output)])
    rescored = inspect_score(log, scorers=[source_support(nli=NLI)], display="none")
    value = rescored.samples[0].scores["source_support"].value
    assert (value["n_citations"], value["supported_claims"]) == (3, 25)


def test_credentials_in_cited_urls_never_reach_the_score(fresh_nli):
    secret = "https://user:hunter2@example.org/eiffel?api_key=hunter2"
    answer = [
        ContentText(text="The Eiffel Tower stands in Paris.", citations=[UrlCitation(url=secret)])
    ]
    log = eval_log([sample(agent_messages(answer))])
    rescored = inspect_score(log, scorers=[source_support(nli=NLI)], display="none")
    score = rescored.samples[0].scores["source_support"]
    assert "hunter2" not in score.explanation + str(score.metadata)
    # A markdown link in the claim's own text, quoted in the explanation.
    linked = [ContentText(text=f"The Eiffel Tower stands in [Paris]({secret}) today.")]
    log = eval_log([sample(agent_messages(linked))])
    rescored = inspect_score(log, scorers=[source_support(nli=NLI)], display="none")
    score = rescored.samples[0].scores["source_support"]
    assert "Paris" in score.explanation
    assert "hunter2" not in score.explanation + str(score.metadata) + str(score.answer)


def test_links_that_only_cite_add_no_words_to_the_claim():
    """``([source](url))`` cites as a ``[n]`` marker does; ``[Paris](url)`` is part of the text."""
    answer = ChatMessageAssistant(
        content=[
            ContentText(
                text="Quell lamps shine blue at night ([source](http://EX.org/c/?utm_source=y#top)). "
                "The tower is in [Paris](https://a.org/p). "
                "Cats purr ([a](https://a.org/x), [b](https://b.org/y)). "
                "Dogs bark [2](https://b.org/y)."
            )
        ]
    )
    claims = answer_claims(answer).claims
    assert [c.hypothesis for c in claims] == [
        "Quell lamps shine blue at night.",
        "The tower is in Paris.",
        "Cats purr.",
        "Dogs bark.",
    ]
    assert [len(c.citations) for c in claims] == [1, 1, 2, 1]


def test_n_is_the_place_in_the_results_list_unusable_items_included():
    """A model numbers results as it was shown them: an ad without a URL still takes place 1."""
    search = ChatMessageAssistant(
        content="", tool_calls=[ToolCall(id="s1", function="search", arguments={"query": "q"})]
    )
    results = ChatMessageTool(
        content=(
            '[{"title": "an ad, no url"}, {"url": 5, "title": "a bad url"}, '
            '{"url": "https://example.org/a", "content": "The Eiffel Tower stands in Paris."}]'
        ),
        tool_call_id="s1",
        function="search",
    )
    sources = transcript_sources([ChatMessageUser(content="Paris?"), search, results])
    assert sources.numbered == {3: "url:https://example.org/a"}


def test_diagnose_classifies_each_claim_against_the_retrieved_sources(fresh_nli):
    """One claim of each class: 25 each; the misattributed one names the page that holds it."""
    eiffel, louvre = "https://example.org/eiffel", "https://example.org/louvre"
    answer = [
        ContentText(text="The Eiffel Tower stands in Paris. ", citations=[UrlCitation(url=eiffel)]),
        ContentText(
            text="The Louvre holds thousands of paintings. ", citations=[UrlCitation(url=eiffel)]
        ),
        ContentText(text="The Seine freezes every winter. ", citations=[UrlCitation(url=louvre)]),
        ContentText(text="The Eiffel Tower was completed in 1889."),
    ]
    log = eval_log([sample(agent_messages(answer))])
    plain = inspect_score(log, scorers=[source_support(nli=NLI)], display="none")
    log = eval_log([sample(agent_messages(answer))])
    rescored = inspect_score(log, scorers=[source_support(nli=NLI, diagnose=True)], display="none")
    score = rescored.samples[0].scores["source_support"]
    assert {
        k: score.value[k] for k in ("supported", "misattributed", "unsupported", "uncited")
    } == {
        "supported": 25,
        "misattributed": 25,
        "unsupported": 25,
        "uncited": 25,
    }
    assert score.value["uncited_but_supported"] == 25
    # Without diagnose the values are those of the plain scorer.
    before = plain.samples[0].scores["source_support"].value
    assert {k: score.value[k] for k in before} == before
    assert set(before) == {"cited_source_seen", "supported_claims", "uncited_claims", "n_citations"}
    claims = score.metadata["diagnose"]["claims"]
    assert [c["class"] for c in claims] == ["supported", "misattributed", "unsupported", "uncited"]
    assert claims[1]["cited"] == [1] and claims[1]["supporting"] == [2]
    assert "`https://example.org/louvre` (position 2)" in score.explanation
