"""The FullCite tasks end to end in-process: fixtures, scripted models, the tiny local model."""

import json
import math
import re

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model

from fullcite_tasks import annotate_spans, asqa, bioasq, expertqa
from fullcite_tasks.options import FullciteTaskError
from fullcite_tasks.task import FULLCITE_TASK_VERSION
from inspect_cite.app.log_metrics import log_metrics
from inspect_cite.evidence.gold_spans import SpansFileError, load_spans_file
from solvers.span_annotation import annotation_cache_path
from tests.conftest import ASQA_ARGS, BIOASQ_ARGS, EXPERTQA_ARGS, FIXTURES
from tests.helpers.scripted_models import cite_first_document, scripted_model, scripted_output

TASKS = {
    "bioasq": (bioasq, BIOASQ_ARGS),
    "asqa": (asqa, ASQA_ARGS),
    "expertqa": (expertqa, EXPERTQA_ARGS),
}


@pytest.mark.parametrize("strategy", ["prompt", "constrained", "posthoc"])
@pytest.mark.parametrize("name", ["bioasq", "asqa", "expertqa"])
def test_task_runs_with_each_strategy(name, strategy, tmp_path, cache_root):
    task_fn, args = TASKS[name]
    model, _ = scripted_model(cite_first_document)
    task = task_fn(**args, strategy=strategy, similarity_model=None)
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert log.eval.task_version == FULLCITE_TASK_VERSION
    meta = log.eval.metadata
    assert meta["benchmark"] == "fullcite" and meta["source"] == name
    assert meta["parameters"]["strategy"] == strategy and meta["data"]["sha256"]
    scorers = {s.scorer for s in log.results.scores}
    assert scorers == {"doc_snippet_f1", "citation_bias", "fullcite_answer"}
    metrics = log_metrics(log)
    # Every answer cites the first document verbatim: Doc precision is 100 wherever that
    # document holds gold, and every citation goes to position 1.
    assert metrics["verbatim_rate"]["mean"] == 100
    assert metrics["pos_1"]["weighted_mean"] == 100
    assert metrics["omission_rate"]["mean"] == 0
    for sample in log.samples:
        md = sample.metadata
        assert md["source"] == name and md["question"] == sample.input
        assert all(set(d) >= {"id", "title", "text", "retrieval_rank"} for d in md["docs"])
        assert all(set(g) == {"doc_id", "span"} for g in md["gold_spans"])
        assert {"question_type", "reference_answers", "gold_spans_status"} <= set(md)
        assert "dataset" not in md  # reserved for ALCE samples
        if strategy == "posthoc":
            assert md["posthoc"]["aligned"] == 1
        if strategy == "constrained":
            assert md["constrained"]["format"] == "fullcite" and md["constrained"]["valid"]
            assert md["constrained"]["decoding"] == "unconstrained"  # mockllm has no grammar


def test_bioasq_sample_contents(tmp_path, cache_root):
    task = bioasq(**BIOASQ_ARGS, question_types="yesno,factoid", ndoc=2, similarity_model=None)
    samples = {s.id: s for s in task.dataset}
    assert set(samples) == {"bq-yesno", "bq-factoid"}
    yesno = samples["bq-yesno"].metadata
    assert [d["id"] for d in yesno["docs"]] == ["31000001", "31000002"]
    assert yesno["gold_spans"] == [
        {
            "doc_id": "31000001",
            "span": "AXL overexpression is linked to poor prognosis in breast cancer.",
        },
        {"doc_id": "31000002", "span": "Deregulated Axl expression reduces the sensitivity"},
    ]
    assert yesno["question_type"] == "yesno" and yesno["exact_answer"] == "yes"
    assert yesno["gold_spans_status"] == "bioasq"
    assert samples["bq-yesno"].target == [
        "Yes, AXL promotes tumour progression and drug resistance."
    ]
    assert task.metadata["counts"]["snippets_outside_context"] == 2  # both on 31000004
    assert task.metadata["data"]["abstracts"]["sha256"]


def test_bioasq_fetches_abstracts_from_eutils(tmp_path, cache_root, monkeypatch):
    from tests.fullcite.test_pubmed import FakeEutils

    abstracts = json.loads((FIXTURES / "fullcite_bioasq_abstracts.json").read_text())
    calls = []

    def fake_fetch(self, pmids):
        calls.append(list(pmids))
        from fullcite_tasks.data.pubmed import Abstract

        return {
            p: Abstract(p, **abstracts[p]) if p in abstracts else Abstract(p, "", "", True)
            for p in pmids
        }

    monkeypatch.setattr("fullcite_tasks.data.pubmed.PubMedClient.fetch", fake_fetch)
    with FakeEutils() as server:
        monkeypatch.setenv("INSPECT_CITE_EUTILS_URL", server.url)
        task = bioasq(
            dataset_path=BIOASQ_ARGS["dataset_path"],
            ndoc=1,
            question_types=["list"],
            similarity_model=None,
        )
    assert calls == [["31000006"]]
    assert task.metadata["data"]["abstracts"]["eutils"] == server.url


def test_bioasq_needs_registration_data():
    with pytest.raises(ValueError, match="participants-area.bioasq.org"):
        bioasq()


def test_doc_order_shuffled_and_reversed_are_per_sample_and_deterministic(cache_root):
    args = {**ASQA_ARGS, "similarity_model": None}
    base = [s.metadata["docs"] for s in asqa(**args).dataset]
    rev = [s.metadata["docs"] for s in asqa(**args, doc_order="reversed").dataset]
    shuf = [s.metadata["docs"] for s in asqa(**args, doc_order="shuffled", seed=3).dataset]
    again = [s.metadata["docs"] for s in asqa(**args, doc_order="shuffled", seed=3).dataset]
    other = [s.metadata["docs"] for s in asqa(**args, doc_order="shuffled", seed=4).dataset]
    assert [d["retrieval_rank"] for d in base[0]] == [1, 2, 3, 4, 5]
    assert rev[0] == base[0][::-1]
    assert shuf == again and shuf != other
    for b, s in zip(base, shuf, strict=True):
        assert sorted(s, key=lambda d: d["retrieval_rank"]) == b
    with pytest.raises(
        FullciteTaskError,
        match="-T doc_order=random: unknown document order; use one of retrieval, shuffled",
    ):
        asqa(**args, doc_order="random")
    with pytest.raises(FullciteTaskError, match="^-T seed=-1: must be a whole number from 0 to "):
        asqa(**args, doc_order="shuffled", seed=-1)
    with pytest.raises(
        FullciteTaskError,
        match="-T strategy=magic: unknown strategy; use one of prompt, constrained",
    ):
        asqa(**args, strategy="magic")
    with pytest.raises(FullciteTaskError, match="-T ndoc"):
        asqa(**args, ndoc=0)


def test_every_missing_input_is_in_one_refusal(cache_root, tmp_path):
    """The data and each model the run needs, checked together, as on ALCE."""
    from inspect_cite.checks.errors import PreflightErrors

    missing = tmp_path / "nowhere.jsonl"
    with pytest.raises(PreflightErrors) as refused:
        expertqa(
            dataset_path=str(missing),
            similarity_model=str(tmp_path / "no-model"),
            nli=f"classifier:{tmp_path / 'no-nli'}",
            attribution=True,
        )
    message = str(refused.value)
    assert message.startswith("3 problems stop this run:")
    for flag in ("-T dataset_path", "-T similarity_model", "-T nli"):
        assert flag in message, message


def test_expertqa_system_choice(cache_root):
    task = expertqa(**EXPERTQA_ARGS, system="any", similarity_model=None)
    assert {s.metadata["system"] for s in task.dataset} == {"rr_gs_gpt4", "post_hoc_gs_gpt4"}
    assert task.metadata["counts"]["no_passages"] == 1
    with pytest.raises(FullciteTaskError, match="-T system"):
        expertqa(**EXPERTQA_ARGS, system="gpt5")


def annotator_script(fail_first: set[str]):
    """Annotates with the document's first sentence; some documents first get garbage."""
    calls = []

    def annotate(input, tools, tool_choice, config):
        prompt = input[-1].text
        document = prompt.split("):\n", 1)[1].split("\n\nList every piece", 1)[0]
        calls.append(document)
        first = re.split(r"(?<=\.)\s", document)[0]
        if document in fail_first:
            fail_first.discard(document)
            return scripted_output("Sure! Here are the spans: none")
        return scripted_output(
            json.dumps({"spans": [first, "A sentence that is not there at all."]})
        )

    return annotate, calls


def test_asqa_without_spans_annotates_first_and_caches(tmp_path, cache_root, caplog):
    first_doc = "The Ninth Doctor is an incarnation of the Doctor, portrayed by Christopher Eccleston in the 2005 revival of the series."
    annotate, calls = annotator_script({first_doc})
    annotator, _ = scripted_model(annotate)
    model, _ = scripted_model(cite_first_document)
    task = asqa(dataset_path=ASQA_ARGS["dataset_path"], ndoc=2, similarity_model=None)
    assert "annotated first by the 'annotator' model role" in caplog.text
    [log] = eval(
        task,
        model=model,
        model_roles={"annotator": annotator},
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert len(calls) == 3 * 2 + 1  # 3 samples x 2 documents, one retried
    sample = next(s for s in log.samples if s.id == "-1234567890123")
    md = sample.metadata
    assert md["gold_spans_status"] == "annotated"
    assert md["gold_spans"][0] == {"doc_id": "ninth-doctor", "span": first_doc}
    ann = md["span_annotation"]["docs"]["ninth-doctor"]
    assert ann["rejected"] == ["A sentence that is not there at all."] and ann["error"] is None
    assert md["span_annotation"]["status"] == "annotated"
    # The answer cites the first six words of the annotated span: Doc-F1 is scored.
    assert sample.scores["doc_snippet_f1"].value["doc_precision"] == 100
    cache = annotation_cache_path(log.eval.metadata["data_key"], str(annotator))
    assert cache.exists() and len(cache.read_text().splitlines()) == 6

    # A second run reuses the cache: the annotator is never called.
    def refuse(*args):
        raise AssertionError("annotator called despite the cache")

    annotator2, _ = scripted_model(refuse)
    assert str(annotator2) == str(annotator)  # the cache is keyed by the model's name
    [log2] = eval(
        task,
        model=model,
        model_roles={"annotator": annotator2},
        display="none",
        log_dir=str(tmp_path),
    )
    assert log2.status == "success", log2.error
    assert len(calls) == 7
    assert {s.metadata["span_annotation"]["status"] for s in log2.samples} == {"cached"}


def test_cut_lines_in_the_annotation_cache_cost_only_their_documents(tmp_path, cache_root, caplog):
    annotate, calls = annotator_script(set())
    annotator, _ = scripted_model(annotate)
    model, _ = scripted_model(cite_first_document)
    task = asqa(dataset_path=ASQA_ARGS["dataset_path"], ndoc=2, similarity_model=None)
    roles = {"annotator": annotator}

    def run() -> object:
        [log] = eval(task, model=model, model_roles=roles, display="none", log_dir=str(tmp_path))
        assert log.status == "success", log.error
        return log

    log = run()
    assert len(calls) == 6
    cache = annotation_cache_path(log.eval.metadata["data_key"], str(annotator))
    lines = cache.read_bytes().splitlines(keepends=True)
    assert len(lines) == 6
    lost = {json.loads(lines[1])["span"], json.loads(lines[5])["span"]}
    # Line 2 overwritten by a disk error, line 6 cut by a killed write (no newline).
    cut = lines[5][: lines[5].index(b'"span": ') + 12]
    cache.write_bytes(lines[0] + b"\x00\xff garbage\n" + b"".join(lines[2:5]) + cut)
    from solvers import span_annotation as annotation

    annotation._tables.clear()  # a new process
    caplog.clear()
    run()
    # Exactly the two documents whose lines were lost are annotated again.
    assert len(calls) == 8
    assert {span for span in lost for doc in calls[6:] if doc.startswith(span)} == lost
    assert f"{cache}:2: not UTF-8" in caplog.text and f"{cache}:6: not valid JSON" in caplog.text
    assert len(list(cache.parent.glob(f"{cache.name}.corrupt-*"))) == 1
    repaired = cache.read_text(encoding="utf-8").splitlines()
    assert len(repaired) == 6 and all(json.loads(line) for line in repaired)

    annotation._tables.clear()
    run()
    assert len(calls) == 8  # nothing left to annotate


def test_asqa_without_spans_or_annotator_is_a_clear_error(tmp_path, cache_root):
    model, _ = scripted_model(cite_first_document)
    task = asqa(dataset_path=ASQA_ARGS["dataset_path"], similarity_model=None)
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "error"
    assert "--model-role annotator=<model>" in log.error.message
    assert "spans_path" in log.error.message


def test_annotate_spans_on_bioasq_reports_rouge_l(tmp_path, cache_root):
    annotate, calls = annotator_script(set())
    model, _ = scripted_model(annotate)
    out = tmp_path / "spans.jsonl"
    task = annotate_spans(dataset="bioasq", **BIOASQ_ARGS, output_path=str(out))
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert len(calls) == 3 + 2 + 1 + 1
    by_id = {s.id: s for s in log.samples}
    # The list question: annotation = the document's first sentence (13 ROUGE tokens), gold =
    # two snippets (14 tokens: "the sox10 transcript factor is requir olig2 and nkx2 2 also
    # specifi the lineag"); their longest common subsequence has 7 tokens.
    lst = by_id["bq-list"].scores["span_agreement"].value
    assert lst["rougeL_precision"] == pytest.approx(700 / 13)
    assert lst["rougeL_recall"] == pytest.approx(50)
    assert lst["n_spans"] == 1 and lst["rejected_spans"] == 1
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert 0 < metrics["rougeL_f1"] <= 100
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert {
        "sample_id": "bq-list",
        "doc_id": "31000006",
        "span": "The Sox10 transcription factor is required during the differentiation of oligodendrocyte progenitor cells.",
    } in written
    # The dataset's gold spans are kept for comparison, not replaced.
    assert by_id["bq-list"].metadata["gold_spans_status"] == "bioasq"
    assert log.eval.metadata["output_path"] == str(out)


def test_annotate_spans_resumes_an_output_path_whose_last_line_was_cut(
    tmp_path, cache_root, caplog
):
    annotate, _ = annotator_script(set())
    model, _ = scripted_model(annotate)
    out = tmp_path / "spans.jsonl"

    def run() -> None:
        task = annotate_spans(dataset="bioasq", **BIOASQ_ARGS, output_path=str(out))
        [log] = eval(task, model=model, display="none", log_dir=str(tmp_path))
        assert log.status == "success", log.error

    run()
    whole = load_spans_file(out)
    lines = out.read_bytes().splitlines(keepends=True)
    # A rerun over a whole file writes nothing again.
    run()
    assert out.read_bytes().splitlines(keepends=True) == lines
    # The run was killed while writing its last row: -T spans_path refuses the file by line.
    out.write_bytes(b"".join(lines[:-1]) + lines[-1][:25])
    with pytest.raises(SpansFileError, match=f"{re.escape(str(out))}:{len(lines)}: not valid"):
        load_spans_file(out)
    # The refusal names the flag and the fix.
    with pytest.raises(SpansFileError, match="(?s)last line is cut.*-T spans_path.*again"):
        load_spans_file(out)
    caplog.clear()
    run()  # resumed: the cut row is set aside, not glued onto the next one
    assert load_spans_file(out) == whole
    # Only the cut write's sample (and the one before, which the cut may belong to) is
    # written again: the cut row is set aside, every other row of the others is there once.
    again = {json.loads(lines[-1])["sample_id"], json.loads(lines[-2])["sample_id"]}
    rows = out.read_bytes().splitlines()
    assert len(rows) == len(lines) - 1 + sum(json.loads(r)["sample_id"] in again for r in lines)
    assert len(rows) < 2 * len(lines) - 1
    cut = [r for r in caplog.records if "the last line is cut" in r.getMessage()]
    assert len(cut) == 1 and f"spans file {out}:{len(lines)}: " in cut[0].getMessage()


@pytest.fixture(scope="module")
def tiny_model(tiny_qwen3):
    return get_model("hf/tiny", model_path=str(tiny_qwen3), device="cpu", do_sample=False)


@pytest.mark.parametrize("strategy", ["prompt", "constrained", "posthoc"])
@pytest.mark.parametrize("name", ["bioasq", "asqa", "expertqa"])
def test_task_runs_with_the_tiny_local_model(name, strategy, tiny_model, tmp_path, cache_root):
    task_fn, args = TASKS[name]
    task = task_fn(**args, strategy=strategy, similarity_model=None)
    # One connection: the hf provider then runs each request at once instead of waiting
    # up to 2 s to fill a batch.
    [log] = eval(
        task,
        model=tiny_model,
        limit=1,
        max_tokens=32,
        max_connections=1,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert {s.name for s in log.results.scores} >= {"doc_f1", "snippet_f1", "first_two_share"}
    for sample in log.samples:
        assert set(sample.scores) == {"doc_snippet_f1", "citation_bias", "fullcite_answer"}
        if strategy == "constrained":
            assert sample.metadata["constrained"]["backend"] == "hf"
        if strategy == "posthoc":
            assert "original" in sample.metadata["posthoc"]


@pytest.mark.parametrize("dataset", ["asqa", "expertqa"])
def test_annotate_spans_builds_for_every_source(dataset):
    # annotate_spans passes every source's options; each loader takes only its own.
    args = {"asqa": ASQA_ARGS, "expertqa": EXPERTQA_ARGS}[dataset]
    task = annotate_spans(dataset=dataset, dataset_path=args["dataset_path"])
    assert len(task.dataset) > 0


async def test_span_agreement_leaves_out_a_document_whose_annotation_failed():
    from inspect_ai.scorer import Target

    from scorers.span_agreement import span_agreement
    from tests.helpers.task_states import state

    gold = [{"doc_id": "a", "span": "the sky is blue"}, {"doc_id": "b", "span": "grass is green"}]
    docs = {
        "a": {"spans": ["the sky is blue"]},
        "b": {"spans": [], "error": "annotator timed out"},
    }
    meta = {"gold_spans": gold, "span_annotation": {"model": "m", "docs": docs}}
    score = await span_agreement()(state("", meta), Target(""))
    # b's spans are unknown, not empty: the agreement is a's alone.
    assert score.value["rougeL_f1"] == 100 and score.value["failed_docs"] == 1
    all_failed = {"a": {"spans": [], "error": "x"}, "b": {"spans": [], "error": "x"}}
    meta["span_annotation"]["docs"] = all_failed
    score = await span_agreement()(state("", meta), Target(""))
    assert math.isnan(score.value["rougeL_f1"]) and math.isnan(score.value["rougeL_recall"])
    assert score.metadata["reason"].startswith("every document's annotation failed")
