"""-T strategy=agent: search and read tools over the sample's documents, with a scripted
tool-calling model (no network)."""

import json
import re

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage

from alce_tasks import asqa as alce_asqa
from alce_tasks import eli5, qampari
from fullcite_tasks import asqa, bioasq, expertqa
from inspect_cite.app.log_metrics import log_metrics
from inspect_cite.models.retrieval import BM25Searcher
from scorers.citation_nli import citation_nli
from scorers.doc_snippet_f1 import doc_snippet_f1
from solvers.agent import agent_citations
from tests.conftest import ASQA_ARGS, BIOASQ_ARGS, EXPERTQA_ARGS, FIXTURES
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"
QUESTION = re.compile(r"Question: (.*)")


def usage(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return output


def agent_model(alce: bool, uncited_id: str | None = None):
    """Searches the question, reads the first result, then answers citing it (and, when
    given, a document no tool returned)."""

    def respond(input, tools, tool_choice, config):
        assert {t.name for t in tools} == {"search", "read"}
        results = [m for m in input if isinstance(m, ChatMessageTool)]
        if not results:
            question = QUESTION.search(input[-1].text).group(1)
            return usage(ModelOutput.for_tool_call("mockllm/model", "search", {"query": question}))
        last = results[-1]
        if last.function == "search":
            first = json.loads(last.text)[0]["doc_id"]
            return usage(ModelOutput.for_tool_call("mockllm/model", "read", {"doc_id": first}))
        doc = json.loads(last.text)
        words = doc["text"].split()
        if alce:
            answer = f"{' '.join(words[:8])} [{doc['doc_id']}]."
            if uncited_id:
                answer += f" {' '.join(words[:8])} [{uncited_id}]."
        else:
            answer = (
                f"The documents say so {{doc_id: {doc['doc_id']}, snippet: {' '.join(words[:6])}}}."
            )
            if uncited_id:
                answer += f" Also {{doc_id: {uncited_id}, snippet: {' '.join(words[:6])}}}."
        return usage(ModelOutput.from_content("mockllm/model", answer))

    model, _ = scripted_model(respond)
    return model


ALCE = {"asqa": alce_asqa, "qampari": qampari, "eli5": eli5}
FULLCITE = {
    "bioasq": (bioasq, BIOASQ_ARGS),
    "asqa": (asqa, ASQA_ARGS),
    "expertqa": (expertqa, EXPERTQA_ARGS),
}


@pytest.mark.parametrize("name", ["asqa", "qampari", "eli5"])
def test_alce_agent_runs_end_to_end(name, own_prompts, tmp_path, fresh_nli):
    task = ALCE[name](dataset_path=str(FIXTURES / f"alce_{name}.json"), nli=NLI, strategy="agent")
    [log] = inspect_eval(task, model=agent_model(alce=True), display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    metrics = log_metrics(log)
    assert {"citation_rec", "cited_source_seen", "supported_claims"} <= set(metrics)
    pools = {
        item["question"]: len(item["docs"])
        for item in json.loads((FIXTURES / f"alce_{name}.json").read_text())
    }
    for sample in log.samples:
        record = sample.metadata["agent"]
        # The tools search the item's whole retrieval list; nothing is in the prompt.
        assert len(sample.metadata["docs"]) == pools[sample.metadata["question"]]
        assert record["turns"] == 3 and len(record["searches"]) == 1
        seen = sample.metadata["evidence"]["seen"]
        assert seen and all(set(entry["via"]) <= {"search", "read"} for entry in seen)
        assert "Question:" in sample.messages[1].text and "Document" not in sample.messages[1].text
        value = sample.scores["source_support"].value
        assert value["cited_source_seen"] == 100 and value["n_citations"] >= 1


@pytest.mark.parametrize("name", ["bioasq", "asqa", "expertqa"])
def test_fullcite_agent_runs_end_to_end(name, tmp_path, cache_root):
    task_fn, args = FULLCITE[name]
    task = task_fn(**args, strategy="agent", similarity_model=None)
    [log] = inspect_eval(task, model=agent_model(alce=False), display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    metrics = log_metrics(log)
    assert metrics["verbatim_rate"]["mean"] == 100 and metrics["invalid_citations"]["mean"] == 0
    for sample in log.samples:
        read = sample.metadata["agent"]["reads"]
        seen = {entry["id"]: entry["via"] for entry in sample.metadata["evidence"]["seen"]}
        assert seen[read[0]] == ["search", "read"]


DOCS = [
    {"id": "1", "title": "Eiffel", "text": "The Eiffel Tower is in Paris and is made of iron."},
    {"id": "2", "title": "Louvre", "text": "The Louvre is a museum in Paris with many paintings."},
    {"id": "3", "title": "Nile", "text": "The Nile is a long river in Africa flowing north."},
]


def test_documents_no_tool_returned_are_invalid_citations(tmp_path, fresh_nli):
    # One search result: document 3 (never returned) is cited too, and counts as invalid.
    fullcite = Sample(
        id="f",
        input="Where is the Eiffel Tower?",
        metadata={
            "docs": DOCS,
            "gold_spans": [{"doc_id": "1", "span": "The Eiffel Tower is in Paris"}],
        },
    )
    task = Task(
        dataset=MemoryDataset([fullcite]),
        solver=agent_citations(format="fullcite", search_results=1),
        scorer=doc_snippet_f1(),
    )
    [log] = inspect_eval(
        task, model=agent_model(alce=False, uncited_id="3"), display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    sample = log.samples[0]
    seen = sample.metadata["evidence"]["seen"]
    assert [(entry["id"], entry["via"]) for entry in seen] == [("1", ["search", "read"])]
    value = sample.scores["doc_snippet_f1"].value
    assert value["n_citations"] == 2 and value["invalid_citations"] == 1
    assert "not_retrieved" in sample.scores["doc_snippet_f1"].explanation

    alce = Sample(
        id="a",
        input="Where is the Eiffel Tower?",
        metadata={"docs": DOCS, "dataset": "asqa", "question": "Where is the Eiffel Tower?"},
    )
    task = Task(
        dataset=MemoryDataset([alce]),
        solver=agent_citations(format="alce", search_results=1),
        scorer=citation_nli(nli=NLI),
    )
    [log] = inspect_eval(
        task, model=agent_model(alce=True, uncited_id="3"), display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    # Both statements repeat document 1's words: the one citing document 3 (never returned)
    # is unsupported, as an out-of-range citation is.
    assert log.samples[0].scores["citation_nli"].value["citation_rec"] == 50


def test_bm25_ranks_by_the_query_words():
    searcher = BM25Searcher(DOCS)
    assert [i for i, _ in searcher.search("river Africa", 3)] == [2]
    assert [i for i, _ in searcher.search("Paris", 3)] == [0, 1]
    assert searcher.search("zebra", 3) == []
    assert BM25Searcher([]).search("Paris", 3) == []
