"""-T strategy=native: documents as documents, the provider's citations as the task's format."""

import json

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ContentDocument, DocumentCitation, get_model

import tests.helpers.native_models  # noqa: F401 - registers the citingdocs/ provider
from alce_tasks import asqa as alce_asqa
from fullcite_tasks import asqa, bioasq, expertqa
from inspect_cite.app.log_metrics import log_metrics
from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.run import check_native_citations, native_citations_problem
from solvers.native import NATIVE_FIX
from tests.conftest import ASQA_ARGS, BIOASQ_ARGS, EXPERTQA_ARGS, FIXTURES, ROOT
from tests.helpers.http_servers import ChatServer, RecordingServer, json_api
from tests.helpers.native_models import first_sentence, messages_reply

NLI = "python:tests.helpers.nli_fns:word_entail"
TASKS = {
    "bioasq": (bioasq, BIOASQ_ARGS),
    "asqa": (asqa, ASQA_ARGS),
    "expertqa": (expertqa, EXPERTQA_ARGS),
}


def sent_documents(sample) -> list[ContentDocument]:
    user = next(m for m in sample.messages if m.role == "user")
    return [c for c in user.content if isinstance(c, ContentDocument)]


@pytest.mark.parametrize("name", ["bioasq", "asqa", "expertqa"])
def test_fullcite_native_counts_every_citation_verbatim_and_valid(name, tmp_path, cache_root):
    task_fn, args = TASKS[name]
    task = task_fn(**args, strategy="native", similarity_model=None)
    [log] = inspect_eval(task, model="citingdocs/model", display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    metrics = log_metrics(log)
    assert metrics["verbatim_rate"]["mean"] == 100
    assert metrics["invalid_citations"]["mean"] == 0
    assert metrics["native_citations"]["total"] == metrics["n_citations"]["mean"] * len(log.samples)
    assert metrics["replies_without_citations"]["total"] == 0
    for sample in log.samples:
        docs = sample.metadata["docs"]
        # One document per shown document, in order, named by its id, its text as plain text.
        sent = sent_documents(sample)
        assert [d.filename for d in sent] == [d["id"] for d in docs]
        assert all(d.citations and d.mime_type == "text/plain" for d in sent)
        value = sample.scores["doc_snippet_f1"].value
        assert value["n_citations"] == len(docs) and value["invalid_citations"] == 0
        native = sample.metadata["native"]
        assert native["native_citations"] == len(docs) and native["cited"] == len(docs)
        assert [r["doc_id"] for r in native["citations"]] == [d["id"] for d in docs]
        assert [r["cited_text"] for r in native["citations"]] == [
            first_sentence(d["text"]) for d in docs
        ]
        # The reply, with its citations, stays in the log; the output is the written answer.
        reply = sample.messages[-1]
        assert any(
            isinstance(c, DocumentCitation)
            for block in reply.content
            if block.type == "text"
            for c in block.citations or []
        )
        assert sample.output.completion.count("{doc_id:") == len(docs)


def test_a_reply_without_citations_is_scored_and_counted(tmp_path, cache_root):
    task = asqa(**ASQA_ARGS, strategy="native", similarity_model=None)
    [log] = inspect_eval(task, model="citingdocs/silent", display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    metrics = log_metrics(log)
    assert metrics["replies_without_citations"]["total"] == len(log.samples)
    assert metrics["omission_rate"]["mean"] == 100
    assert all(s.metadata["native"]["without_citations"] for s in log.samples)


def test_alce_native_writes_markers_that_citation_nli_reads(own_prompts, tmp_path):
    task = alce_asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI, strategy="native")
    [log] = inspect_eval(task, model="citingdocs/model", display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    sample = log.samples[0]
    assert [d.filename for d in sent_documents(sample)] == ["1", "2", "3", "4", "5"]
    assert sample.output.completion.startswith("From the documents: document 1 makes a point [1].")
    assert sample.scores["citation_nli"].value["citation_rec"] >= 0
    assert sample.metadata["native"]["cited"] == 5
    assert log_metrics(log)["native_citations"]["mean"] == 5


def test_anthropic_provider_through_the_real_sdk(tmp_path, cache_root):
    with RecordingServer(json_api(messages_reply)) as server:
        model = get_model(
            "anthropic/claude-test", base_url=server.url, api_key="test-key", memoize=False
        )
        task = asqa(**ASQA_ARGS, strategy="native", similarity_model=None)
        [log] = inspect_eval(task, model=model, display="none", log_dir=str(tmp_path), limit=1)
    assert log.status == "success", log.error
    [request] = server.requests
    assert request.path == "/v1/messages"
    body = json.loads(request.body)
    blocks = body["messages"][-1]["content"]
    docs = [b for b in blocks if b["type"] == "document"]
    sample = log.samples[0]
    # Inspect's provider sends each document as plain text with citations on, titled by its id.
    assert [d["title"] for d in docs] == [d["id"] for d in sample.metadata["docs"]]
    assert {json.dumps(d["source"]["type"]) for d in docs} == {'"text"'}
    assert all(d["citations"] == {"enabled": True} for d in docs)
    assert [d["source"]["data"] for d in docs] == [d["text"] for d in sample.metadata["docs"]]
    value = sample.scores["doc_snippet_f1"].value
    assert value["n_citations"] == len(docs)
    assert value["verbatim_rate"] == 100 and value["invalid_citations"] == 0
    assert sample.metadata["native"]["cited"] == len(docs)


def test_providers_that_cannot_cite_documents_are_refused_in_one_line():
    for model in ("hf/Qwen/Qwen3-8B", "vllm/x", "openai-api/standin/tiny", "openai/gpt-4o"):
        problem = native_citations_problem(model)
        assert problem is not None and "anthropic/" in problem and "\n" not in problem
    for model in ("anthropic/claude-sonnet-4-5", "mockllm/model", "citingdocs/model"):
        assert native_citations_problem(model) is None
    with pytest.raises(PreflightError, match=r"^-T strategy=native with hf/x: the hf/ provider"):
        check_native_citations("hf/x", what="-T strategy=native", fix=NATIVE_FIX)


def test_refused_before_generation_when_the_task_is_built_by_name(
    tmp_path, cache_root, monkeypatch
):
    monkeypatch.chdir(ROOT)
    server = ChatServer(["never used"])
    args = {**ASQA_ARGS, "strategy": "native", "similarity_model": None}
    with pytest.raises(PreflightError, match="openai-api/ provider cannot return document"):
        inspect_eval(
            "fullcite_tasks/asqa.py",
            model=server.model(),
            task_args=args,
            display="none",
            log_dir=str(tmp_path),
        )
    assert server.bodies == []


def test_refused_before_generation_when_the_model_comes_later(tmp_path, cache_root):
    server = ChatServer(["never used"])
    task = asqa(**ASQA_ARGS, strategy="native", similarity_model=None)
    [log] = inspect_eval(task, model=server.model(), display="none", log_dir=str(tmp_path))
    assert log.status == "error" and "cannot return document citations" in log.error.message
    assert server.bodies == []
