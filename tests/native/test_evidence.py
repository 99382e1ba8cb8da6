"""One evidence set per sample: a citation earns credit only from what the model saw.

The faults of issue 35 (items 1-5), each on the public entry points: the agent solver run by
Inspect with a scripted tool-calling model, the native renderer, and the scorers.
"""

import json
import math

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageTool, ContentText, DocumentCitation, ModelOutput
from inspect_ai.scorer import Target

from inspect_cite.citations.native import AnswerBlock, answer_blocks, render_native
from inspect_cite.evidence.record import read_evidence, record_evidence
from scorers.citation_nli import citation_nli
from scorers.citation_similarity import citation_similarity
from scorers.claim_support import claim_support
from scorers.doc_snippet_f1 import doc_snippet_f1
from scorers.source_support import source_support
from solvers.agent import agent_citations
from tests.helpers.scripted_models import scripted_model, scripted_output
from tests.helpers.task_states import state

NLI = "python:tests.helpers.nli_fns:word_entail"

# Documents 2, 4 and 5 mention the Rhine; document 3 alone says what the answer claims.
DOCS = [
    {"id": "1", "title": "Paris", "text": "Paris is the capital of France."},
    {"id": "2", "title": "Rhine", "text": "The Rhine flows through Switzerland."},
    {"id": "3", "title": "Borders", "text": "Germany borders France."},
    {"id": "4", "title": "Rhine border", "text": "Germany borders France along the Rhine."},
    {"id": "5", "title": "Rhine delta", "text": "The Rhine ends in the Netherlands."},
]


def tool_agent(steps: list[tuple[str, object]]):
    """A scripted tool-calling model: each step is ``("search", query)``, ``("read", doc_id)``
    or ``("answer", text)``, taken in order, one per generation."""
    queue = list(steps)

    def respond(input, tools, tool_choice, config):
        kind, arg = queue.pop(0)
        if kind == "answer":
            return scripted_output(str(arg))
        key = "query" if kind == "search" else "doc_id"
        output = ModelOutput.for_tool_call("mockllm/model", kind, {key: arg})
        output.usage = scripted_output("").usage
        return output

    return scripted_model(respond)[0]


def run_agent(metadata: dict, steps, scorer, format: str):
    task = Task(
        dataset=MemoryDataset([Sample(id="s", input="Question?", metadata=metadata)]),
        solver=agent_citations(format=format, search_results=3),
        scorer=scorer,
    )
    [log] = inspect_eval(task, model=tool_agent(steps), display="none", log_dir=None)
    assert log.status == "success", log.error
    return log.samples[0]


def test_alce_agent_marker_is_the_document_never_a_search_result(fresh_nli, tmp_path):
    # Issue 35, item 2: [3] is document 3, which no tool returned; the third search result
    # (a Rhine document that entails the claim) must not be read as [3].
    sample = run_agent(
        {"docs": DOCS, "question": "Q", "dataset": "asqa"},
        [("search", "Rhine"), ("answer", "Germany borders France [3].")],
        [source_support(nli=NLI), citation_nli(nli=NLI, dataset="asqa")],
        "alce",
    )
    returned = json.loads(next(m for m in sample.messages if isinstance(m, ChatMessageTool)).text)
    assert {r["doc_id"] for r in returned} == {"2", "4", "5"}
    support = sample.scores["source_support"].value
    assert support["cited_source_seen"] == 0 and support["supported_claims"] == 0
    assert sample.scores["citation_nli"].value["citation_rec"] == 0


def test_fullcite_agent_unreturned_snippet_is_no_evidence_anywhere(fresh_nli):
    # Issue 35, item 1: document 3's snippet is verbatim, but no tool returned document 3.
    metadata = {"docs": DOCS, "gold_spans": [{"doc_id": "3", "span": "Germany borders France"}]}
    answer = "Germany borders France {doc_id: 3, snippet: Germany borders France}."
    sample = run_agent(
        metadata,
        [("search", "Rhine"), ("answer", answer)],
        [claim_support(nli=NLI), doc_snippet_f1(), citation_similarity(similarity_model="x")],
        "fullcite",
    )
    support = sample.scores["claim_support"].value
    assert support["snippet_support"] == 0 and support["doc_support"] == 0
    assert support["unsupported_claims"] == 100
    f1 = sample.scores["doc_snippet_f1"].value
    assert f1["invalid_citations"] == 1 and f1["doc_f1"] == 0 and f1["snippet_f1"] == 0
    # Never compared: the similarity model is not even loaded for it (the name is bogus).
    assert sample.scores["citation_similarity"].value["n_scored"] == 0


def test_agent_diagnose_never_names_an_unseen_document(fresh_nli):
    # Issue 35, item 3: the claim cites document 2 (returned, does not support it); only
    # document 3 (never returned) supports it: unsupported, not misattributed.
    metadata = {"docs": DOCS, "question": "Q", "dataset": "asqa"}
    sample = run_agent(
        metadata,
        [("search", "Rhine"), ("answer", "Germany borders France [2].")],
        citation_nli(nli=NLI, dataset="asqa", diagnose=True),
        "alce",
    )
    value = sample.scores["citation_nli"].value
    # Document 4 (returned) also entails it: misattributed to 4, and only to 4.
    assert value["misattributed"] == 100
    [claim] = sample.scores["citation_nli"].metadata["diagnose"]["claims"]
    assert claim["supporting"] == [4]

    sample = run_agent(
        metadata,
        [("search", "Paris"), ("answer", "Germany borders France [1].")],
        citation_nli(nli=NLI, dataset="asqa", diagnose=True),
        "alce",
    )
    value = sample.scores["citation_nli"].value
    assert value["unsupported"] == 100 and value["misattributed"] == 0


async def test_source_support_diagnose_judges_citations_past_at_most(fresh_nli):
    # Issue 35, item 4: only source 4 entails the claim, and it is the fourth citation.
    metadata = {"docs": [dict(d) for d in DOCS], "question": "Q", "dataset": "asqa"}
    record_evidence(metadata, format="alce", via="prompt")
    answer = "Germany borders France along the Rhine [1][2][5][4]."
    s = state(answer, metadata)
    support = await source_support(nli=NLI, diagnose=True)(s, Target(""))
    nli = await citation_nli(nli=NLI, dataset="asqa", diagnose=True)(s, Target(""))
    assert support.value["misattributed"] == 100 == nli.value["misattributed"]
    assert support.value["supported_claims"] == 0


def native_state(blocks: list[AnswerBlock], fmt: str, docs: list[dict]):
    answer, records = render_native(blocks, docs, fmt)
    metadata = {"docs": [dict(d) for d in docs], "question": "Q", "dataset": "asqa"}
    if fmt == "fullcite":
        del metadata["dataset"]
        metadata["gold_spans"] = [{"doc_id": d["id"], "span": d["text"]} for d in docs]
    record_evidence(metadata, format=fmt, via="document", document_indexes=True)
    metadata["native"] = {"format": fmt, "citations": records}
    return state(answer, metadata)


def cite(index: int, text: str) -> DocumentCitation:
    return DocumentCitation(cited_text=text, internal={"document_index": index})


PARIS, BERLIN = "Paris is the capital of France.", "Berlin is the capital of Germany."
CAPITALS = [
    {"id": "a", "title": "France", "text": PARIS},
    {"id": "b", "title": "Germany", "text": BERLIN},
]


async def test_native_block_of_two_sentences_cites_both(fresh_nli):
    # Issue 35, item 5: one block, two sentences, citing documents 1 and 2.
    both = (cite(0, PARIS), cite(1, BERLIN))
    one = [AnswerBlock(f"{PARIS} {BERLIN}", 0, len(PARIS) + 1 + len(BERLIN), both)]
    split = [
        AnswerBlock(f"{PARIS} ", 0, len(PARIS) + 1, both),
        AnswerBlock(BERLIN, len(PARIS) + 1, len(PARIS) + 1 + len(BERLIN), both),
    ]
    for fmt, scorer, key in (
        ("alce", citation_nli(nli=NLI, dataset="asqa"), "citation_rec"),
        ("fullcite", claim_support(nli=NLI), "snippet_support"),
    ):
        values = []
        for blocks in (one, split):
            s = native_state(blocks, fmt, CAPITALS)
            values.append((await scorer(s, Target(""))).value)
        assert values[0] == values[1] and values[0][key] == 100, (fmt, values)


def test_native_blocks_join_as_the_reply_wrote_them():
    reply = [ContentText(text=f"{PARIS} {BERLIN}", citations=[cite(0, PARIS), cite(1, BERLIN)])]
    from inspect_ai.model import ChatMessageAssistant

    blocks = answer_blocks(ChatMessageAssistant(content=reply))
    answer, records = render_native(blocks, CAPITALS, "alce")
    assert (
        answer
        == "Paris is the capital of France [1] [2]. Berlin is the capital of Germany [1] [2]."
    )
    # One record per citation; its offsets are those of its first written copy.
    assert [answer[r["start"] : r["end"]] for r in records] == ["[1]", "[2]"]


def test_a_record_that_does_not_fit_the_documents_is_refused():
    metadata = {"docs": [dict(d) for d in DOCS]}
    record_evidence(metadata, format="alce", via={"3": ["search"]})
    metadata["evidence"]["seen"][0]["id"] = "9"
    try:
        read_evidence(metadata, "sample 7")
    except ValueError as e:
        assert "sample 7" in str(e) and "evidence" in str(e)
    else:
        raise AssertionError("a record naming another document was accepted")


def test_an_older_agent_log_is_read_from_its_returned_ids():
    evidence = read_evidence({"docs": DOCS, "agent": {"returned": {"2": "search"}}})
    assert evidence.allowed() == frozenset({1}) and not evidence.seen_id("3")


def test_search_preview_is_the_text_seen(fresh_nli):
    long_doc = {"id": "1", "title": "Long", "text": " ".join(f"w{i}" for i in range(60))}
    sample = run_agent(
        {"docs": [long_doc], "gold_spans": [{"doc_id": "1", "span": "w50 w51"}]},
        [("search", "w1"), ("answer", "Words {doc_id: 1, snippet: w50 w51}.")],
        doc_snippet_f1(),
        "fullcite",
    )
    [seen] = sample.metadata["evidence"]["seen"]
    assert seen["via"] == ["search"] and seen["text"].split()[-1] == "w39"
    # The model saw 40 words: w50 is not in what it saw.
    assert sample.scores["doc_snippet_f1"].value["verbatim_rate"] == 0
    assert not math.isnan(sample.scores["doc_snippet_f1"].value["doc_f1"])
