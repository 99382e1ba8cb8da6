import asyncio
import unicodedata

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from inspect_cite.citations import parse_citations
from inspect_cite.generation.thinking import mark_think_opened
from scorers import citation_bias, doc_snippet_f1
from scorers._cited_answer import read_cited_answer
from solvers.posthoc import align_answer, posthoc_citations
from tests.helpers.scripted_models import scripted_model
from tests.helpers.task_states import state

DOCS = [
    {
        "id": "4556515",
        "title": "",
        "text": "The coefficient of friction between wheel and rail is at most 0,5 on a dry rail.",
    },
    {"id": "7", "title": "", "text": "Sets are written {a, b} in braces } sometimes."},
]

ANSWER = (
    "<think>reasoning {doc_id: 7, snippet: ignored}</think>"
    "Friction is limited {doc_id: 4556515, snippet: coefficient of friction between wheel and "
    'rail is at most 0.5 on a dry rail}. It is verbatim here [doc:4556515 snippet:"on a dry '
    'rail"]. Not supported {doc_id: 4556515, snippet: trains fly to the moon}. Wrong doc '
    "{doc_id: 99, snippet: anything}. Braces {doc_id: 7, snippet: written a b in braces}."
)


def test_align_answer_records_and_rewrites():
    rewritten, records = align_answer(ANSWER.split("</think>")[1], DOCS)
    assert [r["status"] for r in records] == [
        "aligned",
        "aligned",
        "unaligned",
        "invalid_doc_id",
        "aligned",
    ]
    first = records[0]
    # Word sets: the second "rail" adds nothing, so the shortest best window stops before it.
    assert (
        first["aligned"] == "coefficient of friction between wheel and rail is at most 0,5 on a dry"
    )
    assert DOCS[0]["text"][first["doc_start"] : first["doc_end"]] == first["aligned"]
    assert first["jaccard"] == 1.0 and not first["verbatim"]
    assert records[1]["verbatim"] and records[1]["aligned"] == "on a dry rail"
    assert records[2]["aligned"] is None and records[2]["jaccard"] is None
    # Balanced braces inside an aligned span are fine in the brace format.
    assert records[4]["aligned"] == "written {a, b} in braces"
    parsed = parse_citations(rewritten, doc_ids=[d["id"] for d in DOCS] + ["99"])
    assert [c.snippet for c in parsed.citations] == [
        first["aligned"],
        "on a dry rail",
        "trains fly to the moon",
        "anything",
        records[4]["aligned"],
    ]
    # Aligned citations are rewritten in the brace format; the others are kept as written.
    assert "{doc_id: 4556515, snippet: on a dry rail}" in rewritten
    assert "{doc_id: 99, snippet: anything}" in rewritten
    assert rewritten.startswith("Friction is limited {doc_id: 4556515, snippet: coefficient")
    assert "{doc_id: 7, snippet: written {a, b} in braces}." in rewritten


def test_a_snippet_canonically_equal_to_the_document_is_verbatim():
    # The document spells its accents as combining marks (NFD), the model precomposed (NFC).
    text = unicodedata.normalize("NFD", "Zoë ate crème brûlée in São Paulo.")
    docs = [{"id": "d", "title": "", "text": text}]
    snippet = unicodedata.normalize("NFC", "crème brûlée in São Paulo")
    rewritten, [record] = align_answer(f"Dessert {{doc_id: d, snippet: {snippet}}}.", docs)
    assert record["status"] == "aligned" and record["verbatim"] and record["jaccard"] == 1.0
    # Written back in the document's own spelling.
    assert record["aligned"] == text[record["doc_start"] : record["doc_end"]] != snippet
    assert unicodedata.normalize("NFC", record["aligned"]) == snippet
    assert f"{{doc_id: d, snippet: {record['aligned']}}}" in rewritten


def test_span_with_lone_brace_is_written_in_bracket_style():
    docs = [{"id": "7", "title": "", "text": "odd } brace here"}]
    rewritten, records = align_answer("Claim {doc_id: 7, snippet: odd brace here}", docs)
    assert records[0]["aligned"] == "odd } brace here"
    assert rewritten == 'Claim [doc:7 snippet:"odd } brace here"]'
    assert parse_citations(rewritten).citations[0].snippet == "odd } brace here"


def test_posthoc_solver(tmp_path):
    model, _ = scripted_model([ANSWER])
    [log] = eval(
        Task(
            dataset=MemoryDataset([Sample(input="Q?", metadata={"question": "Q?", "docs": DOCS})]),
            solver=posthoc_citations(),
        ),
        model=model,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    sample = log.samples[0]
    meta = sample.metadata["posthoc"]
    assert meta["original"] == ANSWER
    assert meta["threshold"] == 0.7
    assert (meta["aligned"], meta["unaligned"], meta["invalid_doc_id"]) == (3, 1, 1)
    assert len(meta["citations"]) == 5
    # The output is the rewritten answer, without the think block, in message and completion.
    assert sample.output.completion == sample.messages[-1].text
    assert sample.output.completion.startswith("Friction is limited")
    assert "0,5 on a dry}" in sample.output.completion
    assert [m.role for m in sample.messages] == ["user", "assistant"]


def test_posthoc_answer_without_citations(tmp_path):
    model, _ = scripted_model(["Yes."])
    [log] = eval(
        Task(
            dataset=MemoryDataset([Sample(input="Q?", metadata={"docs": DOCS})]),
            solver=posthoc_citations(threshold=0.9),
        ),
        model=model,
        display="none",
        log_dir=str(tmp_path),
    )
    meta = log.samples[0].metadata["posthoc"]
    assert meta["citations"] == [] and meta["threshold"] == 0.9
    assert log.samples[0].output.completion == "Yes."


def test_records_give_each_citations_offsets_in_the_rewritten_answer():
    rewritten, records = align_answer(ANSWER.split("</think>")[1], DOCS)
    parsed = parse_citations(rewritten, doc_ids=[d["id"] for d in DOCS] + ["99"])
    assert [(r["start"], r["end"]) for r in records] == [(c.start, c.end) for c in parsed.citations]


def _posthoc_state(answer: str, records: list[dict]) -> TaskState:
    s = state(answer, {"docs": DOCS, "posthoc": {"citations": records}})
    mark_think_opened(s.output, False)  # as posthoc_citations records its rewritten answer
    return s


def test_scorers_join_posthoc_records_by_offset():
    # Two citations written identically; only the second is unaligned. With fewer records than
    # parsed citations, a join on counts or on what was written cannot tell them apart.
    cite = "{doc_id: 7, snippet: trains fly}"
    answer = f"One {cite}. Two {cite}."
    second = answer.rindex(cite)
    record = {"doc_id": "7", "snippet": "trains fly", "status": "unaligned"}
    state = _posthoc_state(answer, [{**record, "start": second, "end": second + len(cite)}])
    assert [c.status for c in read_cited_answer(state).citations] == ["valid", "unaligned"]


def test_records_without_offsets_from_older_logs_still_mark_unaligned_citations():
    # Logs written before records carried offsets: the unaligned record marks the first citation
    # with its doc id and snippet, as rescoring such a log did before.
    cite = "{doc_id: 7, snippet: trains fly}"
    state = _posthoc_state(
        f"One {{doc_id: 7, snippet: boats sail}}. Two {cite}. Three {cite}.",
        [
            {"doc_id": "7", "snippet": "boats sail", "status": "aligned"},
            {"doc_id": "7", "snippet": "trains fly", "status": "unaligned"},
        ],
    )
    statuses = [c.status for c in read_cited_answer(state).citations]
    assert statuses == ["valid", "unaligned", "valid"]


def test_a_record_is_joined_by_offset_only_to_the_citation_it_describes():
    # An aligned snippet holding a literal "</think>" is answer text (the rewritten output
    # records that it holds no reasoning): it neither cuts the answer nor shifts the offsets.
    docs = [
        {"id": "d4", "title": "T", "text": "Models close reasoning with </think> then answer."},
        {"id": "d1", "title": "T", "text": "The quick brown fox jumps over the lazy dog."},
    ]
    answer = (
        "A {doc_id: d4, snippet: close reasoning with </think> then answer} "
        "B {doc_id: d1, snippet: unrelated nonsense words entirely}."
    )
    rewritten, records = align_answer(answer, docs, 0.7)
    state = _posthoc_state(rewritten, records)
    state.metadata["docs"] = docs
    assert [c.status for c in read_cited_answer(state).citations] == ["valid", "unaligned"]


def test_the_answer_is_parsed_once_for_all_scorers_of_a_sample(monkeypatch):
    import scorers._cited_answer as cited

    calls = []
    real = cited.parse_citations
    monkeypatch.setattr(cited, "parse_citations", lambda *a, **k: calls.append(1) or real(*a, **k))
    state = _posthoc_state("Sets {doc_id: 7, snippet: written {a, b} in braces}.", [])
    for score in (doc_snippet_f1(), citation_bias()):
        asyncio.run(score(state, Target("")))
    assert len(calls) == 1
    state.output.completion = "Other {doc_id: 7, snippet: in braces}."
    assert read_cited_answer(state).citations[0].snippet == "in braces"
    assert len(calls) == 2
