"""Bad input: hostile model output is scored (nan with a reason where unknown), never raises;
malformed dataset records are clear errors naming the record and the field.
"""

import asyncio
import copy
import json
import math
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai import eval as inspect_eval
from inspect_ai.scorer import Score, Target

from alce_tasks import asqa as alce_asqa
from fullcite_tasks import asqa as fullcite_asqa
from fullcite_tasks.data.asqa import asqa_source
from fullcite_tasks.data.bioasq import BioasqDataError, bioasq_source, load_bioasq
from fullcite_tasks.data.expertqa import ExpertqaDataError, expertqa_source, load_expertqa
from fullcite_tasks.data.incite import incite_records
from inspect_cite.alce.autoais import citation_scores
from inspect_cite.alce.data import AlceDataError, load_items, validate_item
from inspect_cite.checks.errors import ArgumentError, PreflightError
from inspect_cite.citations import parse_citations, strip_citations
from inspect_cite.citations.alce import alce_scoring_output
from inspect_cite.evidence.gold_spans import SpansFileError, load_span_cache, load_spans_file
from inspect_cite.nli import get_nli, reset_nli
from scorers import (
    alce_correctness,
    citation_bias,
    citation_nli,
    claim_coverage,
    claim_support,
    doc_snippet_f1,
    fullcite_answer,
    native_counts,
    source_support,
)
from scorers.alce_correctness import CORRECTNESS_KEYS, correctness
from scorers.citation_judge import citation_judge, parse_judgement
from scorers.claim_coverage import claims_score
from scorers.mauve import mauve
from solvers.alce_baselines import alce_summ
from solvers.alce_postcite import alce_postcite
from solvers.alce_rerank import alce_rerank
from solvers.constrained import constrained_citations
from solvers.grammar import AnswerLimits
from solvers.posthoc import posthoc_citations
from solvers.prompted import prompted_citations
from tests.conftest import FIXTURES, load_fixture
from tests.helpers.scripted_models import scripted_model, scripted_output
from tests.helpers.task_states import state

NLI = "python:tests.helpers.nli_fns:word_entail"
DOCS = [
    {"id": "A", "title": "Doc A", "text": "The cat sat on the mat."},
    {"id": "B", "title": "Doc B", "text": "Dogs bark loudly at night."},
]
GOLD = [{"doc_id": "A", "span": "The cat sat"}, {"doc_id": "B", "span": "Dogs bark"}]
ASQA_ITEM = load_fixture("alce_asqa.json")[0]
BIOASQ = FIXTURES / "fullcite_bioasq.json"
BIOASQ_ABSTRACTS = FIXTURES / "fullcite_bioasq_abstracts.json"
EXPERTQA = FIXTURES / "fullcite_expertqa.jsonl"

# Hand-written hostile outputs (each a str that JSON can carry: no lone surrogates).
HOSTILE = {
    "empty": "",
    "whitespace": " \t\n\r\u00a0\u2003 \n",
    "huge": ("The cat sat on the mat [1]. " * 4000)[:100_000],
    "huge_no_space": "x" * 100_000,
    "control": "A\x00B\x01\x07\x1b[31m red \x7f\x08 [1] {doc_id: A, snippet: \x00}.",
    "mixed_script": "猫がマットに座った [1]. Кошка сидела [2]. القط جلس {doc_id: B, snippet: كلب}. 🐈‍⬛ [1]",
    "rtl_and_combining": "\u202eevil\u202c e\u0301\u0301\u0301 [1] {doc_id: A, snippet: e\u0301}",
    "many_alce": " ".join(f"Claim {i} [{i % 7}][{i}]." for i in range(3000)),
    "many_fullcite": " ".join(f"Claim {i} {{doc_id: A, snippet: cat {i}}}." for i in range(3000)),
    "absent_docs": "Ghosts exist [99][1000000000000000000000]. {doc_id: ZZZ, snippet: boo}",
    "unbalanced": "{doc_id: A, snippet: {{{{ [doc: [[[ snippet: } ] [1, [2; [",
    "numbers_only": "[1][2][3][4][5][6][7][8][9]",
    "think": "<think>[1] {doc_id: A, snippet: x}</think>",
    "im_end": "<|im_end|>[1]",
    # More digits than int() reads (4,300): an out-of-range citation, never an exception.
    "huge_citation_number": "The cat sat [" + "9" * 5000 + "][1]. Dogs [2, " + "7" * 4400 + "].",
}
SURROGATE = "lone \ud800 surrogate [1] {doc_id: A, snippet: \udfff}"

# Hypothesis text: any code point except surrogates (what a JSON API can return), with
# citation syntax mixed in so the parsers' interesting paths are reached.
_PIECES = st.sampled_from(
    ["[1]", "[2]", "[0]", "[99]", "[1, 2]", "{doc_id: A, snippet: ", "{doc_id: ZZ, snippet: x}",
     "[doc:B snippet:\"Dogs\"]", "}", "]", "{", "[", ". ", "\n", ",", "<think>", "</think>"]
)  # fmt: skip
HOSTILE_TEXT = st.lists(st.one_of(st.text(max_size=30), _PIECES), max_size=25).map("".join)
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(autouse=True)
def _fresh_backends(fresh_nli, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))


def assert_valid_score(score: Score, keys: set[str] | None = None) -> None:
    """A dict of floats in range (nan allowed, with a reason), JSON-serialisable."""
    assert isinstance(score.value, dict)
    if keys is not None:
        assert set(score.value) == keys
    for key, v in score.value.items():
        assert isinstance(v, (int, float)), (key, v)
        if key.startswith("n_") or key in ("length", "num_preds", "invalid_citations"):
            assert math.isnan(v) or v >= 0, (key, v)
        else:
            assert math.isnan(v) or -1e-9 <= v <= 100 + 1e-9, (key, v)
    assert isinstance(score.explanation, str) and score.explanation
    if all(isinstance(v, float) and math.isnan(v) for v in score.value.values()):
        assert "Not scored" in score.explanation or (score.metadata or {}).get("reason")
    json.loads(score.model_dump_json())


def scorer_cases() -> list[tuple[str, Any, dict[str, Any]]]:
    """Every scorer that needs no model download, with metadata it is meant for."""
    asqa_meta = {k: v for k, v in ASQA_ITEM.items() if k != "docs"} | {
        "dataset": "asqa",
        "docs": [{"id": str(i + 1), "title": "T", "text": d["text"]} for i, d in enumerate(DOCS)],
    }
    fullcite_meta = {
        "docs": DOCS,
        "gold_spans": GOLD,
        "question": "q",
        "question_type": "factoid",
        "exact_answer": [["cat"]],
        "reference_answers": ["The cat sat."],
        "source": "bioasq",
        "group": "factoid",
    }
    return [
        ("citation_nli", citation_nli(nli=NLI), asqa_meta),
        ("citation_nli_fixed", citation_nli(nli=NLI, alce_compat=False), asqa_meta),
        (
            "citation_nli_qampari",
            citation_nli(nli=NLI, dataset="qampari"),
            asqa_meta | {"question": "Which?"},
        ),
        ("claim_coverage", claim_coverage(nli=NLI), asqa_meta | {"claims": ["cat sat", "x"]}),
        ("alce_correctness", alce_correctness("asqa"), asqa_meta),
        ("doc_snippet_f1", doc_snippet_f1(), fullcite_meta),
        ("claim_support", claim_support(nli=NLI), fullcite_meta),
        ("citation_bias", citation_bias(), fullcite_meta),
        ("fullcite_answer", fullcite_answer("bioasq"), fullcite_meta),
        (
            "fullcite_answer_list",
            fullcite_answer("bioasq"),
            fullcite_meta | {"question_type": "list"},
        ),
        (
            "fullcite_answer_yesno",
            fullcite_answer("bioasq"),
            fullcite_meta | {"question_type": "yesno", "exact_answer": "yes"},
        ),
        ("fullcite_answer_asqa", fullcite_answer("asqa"), fullcite_meta | {"source": "asqa"}),
        ("source_support", source_support(nli=NLI), asqa_meta),
        ("native_counts", native_counts(), fullcite_meta),
    ]


SCORERS = scorer_cases()


def score_all(text: str, keys: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Run every scorer on ``text``; check each score and that keys match ``keys``."""
    seen: dict[str, set[str]] = {}

    async def go() -> None:
        for name, scorer_fn, metadata in SCORERS:
            score = await scorer_fn(state(text, metadata), Target(""))
            assert score is not None
            assert_valid_score(score, keys[name] if keys else None)
            assert isinstance(score.value, dict)
            seen[name] = set(score.value)

    asyncio.run(go())
    return seen


@pytest.fixture(scope="module")
def reference_keys() -> dict[str, set[str]]:
    """Each scorer's keys on an ordinary answer: every hostile output must give the same."""
    reset_nli()
    return score_all("The cat sat on the mat [1] {doc_id: A, snippet: The cat sat}.")


@pytest.mark.parametrize("name", list(HOSTILE))
def test_every_scorer_scores_hostile_output(name, reference_keys):
    score_all(HOSTILE[name], reference_keys)


@given(text=HOSTILE_TEXT)
@FAST
def test_every_scorer_scores_arbitrary_output(reference_keys, text):
    score_all(text, reference_keys)


def test_empty_output_is_nan_with_a_reason(reference_keys):
    async def go() -> dict[str, Score]:
        out = {}
        for name, scorer_fn, metadata in SCORERS[:2]:
            out[name] = await scorer_fn(state("", metadata), Target(""))
        return out

    for score in asyncio.run(go()).values():
        assert all(math.isnan(v) for v in score.value.values())  # type: ignore[union-attr]
        assert "empty" in score.explanation  # type: ignore[operator]


def test_citations_to_absent_documents_count_against_the_answer():
    parsed = parse_citations("Claim {doc_id: ZZZ, snippet: boo}.", doc_ids={"A", "B"})
    assert [c.doc_id for c in parsed.citations] == ["ZZZ"]
    assert any("unknown" in p.kind or "ZZZ" in p.message for p in parsed.problems)
    meta = {"docs": DOCS, "gold_spans": GOLD, "question": "q", "question_type": "factoid"}
    score = asyncio.run(
        doc_snippet_f1()(state("Claim {doc_id: ZZZ, snippet: boo}.", meta), Target(""))
    )
    assert score is not None and isinstance(score.value, dict)
    assert score.value["invalid_citations"] == 1 and score.value["doc_precision"] == 0

    nli = get_nli(NLI)
    result = asyncio.run(citation_scores("Ghosts exist [99].", DOCS, "q", nli))
    assert result.recall == 0 and result.statements[0].status == "invalid"


# --- parsers and core functions, including lone surrogates (Python str, not JSON) -------


@given(text=st.one_of(HOSTILE_TEXT, st.text(alphabet=st.characters(codec=None), max_size=80)))
@FAST
def test_parse_citations_never_raises_and_offsets_are_in_range(text):
    parsed = parse_citations(text, doc_ids={"A", "B"})
    for c in parsed.citations:
        assert 0 <= c.start < c.end <= len(text)
    assert isinstance(strip_citations(text), str)


@pytest.mark.parametrize("text", [*HOSTILE.values(), SURROGATE], ids=[*HOSTILE, "surrogate"])
def test_core_functions_on_hostile_text(text):
    parse_citations(text, doc_ids={"A"})
    parse_judgement(text)
    cleaned = alce_scoring_output(text)
    nli = get_nli(NLI)
    alce_docs = [{"title": d["title"], "text": d["text"]} for d in DOCS]
    for qampari in (False, True):
        for compat in (True, False):
            result = asyncio.run(
                citation_scores(cleaned, alce_docs, "q", nli, qampari=qampari, alce_compat=compat)
            )
            if result.skipped is None:
                assert 0 <= result.recall <= 1 and 0 <= result.precision <= 1  # type: ignore[operator]
    claims = asyncio.run(claims_score(cleaned, ["cat sat", ""], nli))
    assert claims.score is not None and 0 <= claims.score <= 1
    for dataset, item in (
        ("asqa", ASQA_ITEM),
        ("eli5", load_fixture("alce_eli5.json")[0]),
        ("qampari", load_fixture("alce_qampari.json")[0]),
    ):
        values = correctness(cleaned, item, dataset)  # type: ignore[arg-type]
        assert set(values) == set(CORRECTNESS_KEYS[dataset])


def test_documents_with_no_text_and_no_docs():
    nli = get_nli(NLI)
    empty_docs = [{"title": "", "text": ""}]
    result = asyncio.run(citation_scores("A claim [1].", empty_docs, "q", nli))
    assert result.recall == 0
    result = asyncio.run(citation_scores("A claim [1][0].", [], "q", nli))
    assert result.recall == 0 and result.statements[0].status == "invalid"
    score = asyncio.run(doc_snippet_f1()(state("x {doc_id: A, snippet: y}", {}), Target("")))
    assert score is not None
    assert_valid_score(score)


# --- malformed dataset records: clear errors naming the record and field --------------


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda it: it.pop("question"), ":1:question: missing"),
        (lambda it: it.update(question=7), ":1:question: must be a string, got a number"),
        (lambda it: it.update(docs="nope"), ":1:docs: must be a list, got a string"),
        (lambda it: it["docs"].__setitem__(2, 5), ":1:docs[2]: must be an object"),
        (lambda it: it["docs"][0].pop("text"), ":1:docs[0].text: must be a string"),
        (lambda it: it["docs"][1].update(title=None), ":1:docs[1].title: must be a string, got"),
        (lambda it: it.update(qa_pairs=[{"x": 1}]), ':1:qa_pairs[0]: needs a list "short_answers"'),
    ],
)
def test_malformed_alce_records_name_item_and_field(tmp_path, mutate, message):
    items = load_fixture("alce_asqa.json")[:2]
    mutate(items[1])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises(AlceDataError) as e:
        load_items(path, "asqa")
    assert str(path) in str(e.value) and message in str(e.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "is not valid JSON"),
        ("\x00\x01", "is not valid JSON"),
        ('{"x": 1}', "expected a JSON list of items"),
        ("[3]", r"bad.json:0:\(item\): must be an object, got a number"),
    ],
)
def test_malformed_alce_files(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(AlceDataError, match=message):
        load_items(path, "asqa")


def test_unreadable_dataset_files_are_one_line_naming_the_file(tmp_path, own_prompts):
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes('[{"question": "caf\u00e9"}]'.encode("latin-1"))
    for path, problem in ((latin1, "is not UTF-8 text"), (tmp_path, "is a directory")):
        with pytest.raises(AlceDataError) as e:
            load_items(path, "asqa")
        assert f"dataset file {path} {problem}" in str(e.value)
        # The task constructor says the same, before anything else reads the file.
        with pytest.raises(AlceDataError) as e:
            alce_asqa(dataset_path=str(path), nli=NLI, ndoc=3, shot=0)
        assert f"dataset file {path} {problem}" in str(e.value)
        assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(question=["a", "list"]), 'demos[1] field "question" must be a string'),
        (lambda d: d.pop("docs"), 'demos[1] needs a list "docs"'),
        (lambda d: d.update(answer=None), 'demos[1] field "answer" must be a string or a list'),
        (lambda d: d["docs"][0].update(title=3), 'demos[1] "docs"[0] field "title" must be'),
    ],
)
def test_malformed_prompt_file_demos_name_the_demo_and_field(
    tmp_path, alce_prompt_dir, mutate, message
):
    from inspect_cite.alce.prompts import PromptFile, PromptFileError

    data = json.loads((alce_prompt_dir / "asqa_default.json").read_text(encoding="utf-8"))
    mutate(data["demos"][1])
    path = tmp_path / "prompt.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PromptFileError) as e:
        PromptFile.load(path)
    assert f"prompt file {path}: " in str(e.value) and message in str(e.value)


@pytest.mark.parametrize(
    "reply",
    [
        '{"support": true, "relevance": true}',  # was 1/1
        '{"support": 4.9, "relevance": 4.9}',  # was 4/4
        '{"support": 4, "relevance": 4.5}',
        '{"support": Infinity, "relevance": 3}',  # OverflowError failed the eval
        '{"support": -Infinity, "relevance": 3}',
        '{"support": 1e400, "relevance": 3}',
        "Support: -3\nRelevance: 2",  # was 3/2
        '{"support": ' * 100_000 + "3" + "}" * 100_000,  # RecursionError
    ],
)
def test_judge_replies_other_than_whole_numbers_1_to_5_are_invalid(reply):
    assert parse_judgement(reply) is None


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (
            '{"support": NaN, "relevance": 3}',
            '"support" must be a whole number from 1 to 5, got nan',
        ),
        ('{"Support": 7, "Relevance": 3}', '"support" must be a whole number from 1 to 5, got 7'),
        ('{"support": 2, "relevance": "high"}', '"relevance" must be a whole number'),
        ('{"support": 4}', 'no "relevance" rating'),
        ('{"support": ' + "9" * 5000 + ', "relevance": 3}', "no Support and Relevance ratings"),
        ("Support: 4.9\nRelevance: 2", "no Support and Relevance ratings from 1 to 5"),
        ("Support: 4\nSupport: 5\nRelevance: 2", "more than one rating"),
    ],
)
def test_invalid_judge_replies_say_why(reply, reason):
    from scorers.citation_judge import read_judgement

    assert parse_judgement(reply) is None
    assert reason in read_judgement(reply)  # type: ignore[operator]
    assert read_judgement('{"support": "4", "relevance": 5}') == (4, 5)


@pytest.mark.parametrize(
    "build, named",
    [
        (lambda: citation_bias(max_positions=0), "max_positions"),
        (lambda: citation_nli(nli=NLI, at_most_citations=0), "at_most_citations"),
        (lambda: citation_judge(attempts=0), "attempts"),
        (lambda: citation_judge(backoff=-1), "backoff"),
        (lambda: mauve(mauve_seeds=0), "mauve_seeds"),
        (lambda: prompted_citations(template="{documents}"), "template"),
        (lambda: prompted_citations(document_template="{nope}"), "document_template"),
        (lambda: constrained_citations(format="json"), "format"),  # type: ignore[arg-type]
        (lambda: constrained_citations(backend="magic"), "backend"),  # type: ignore[arg-type]
        (lambda: constrained_citations(retries=-1), "retries"),
        (lambda: constrained_citations(max_claims=0), "max_claims"),
        (lambda: alce_postcite(base="magic"), "base"),
        (lambda: alce_rerank(nli=NLI, n=0), "n must be"),
        (lambda: alce_rerank(nli=NLI, at_most_citations=0), "at_most_citations"),
        (lambda: posthoc_citations(threshold=0), "threshold"),
        (lambda: AnswerLimits(max_claims=True), "max_claims"),
        (lambda: alce_summ(ndoc=-1), "ndoc must be 0 or more"),
        (lambda: alce_summ(shot=-2), "shot must be 0 or more"),
        (lambda: alce_summ(dataset="bogus"), "dataset must be one of asqa, qampari, eli5"),
        (lambda: alce_postcite(dataset="bogus"), "alce_postcite: dataset must be one of"),
        (lambda: alce_correctness(dataset="bogus"), "alce_correctness: dataset must be one of"),
        (lambda: citation_nli(nli=NLI, dataset="bogus"), "citation_nli: dataset must be one of"),
    ],
)
def test_bad_factory_arguments_are_refused_by_name(build, named):
    # A PreflightError, so `inspect score --scorer FILE` / `--solver` print the message alone
    # (tests/cli/test_preflight_cli.py); still a ValueError for Python callers.
    with pytest.raises(ArgumentError, match=named) as refused:
        build()
    assert isinstance(refused.value, PreflightError) and isinstance(refused.value, ValueError)


def test_at_most_citations_below_one_is_refused_at_construction():
    with pytest.raises(ValueError, match="at_most_citations must be a whole number of at least 1"):
        citation_nli(nli=NLI, at_most_citations=-1)
    with pytest.raises(ValueError, match="at least 1"):
        asyncio.run(citation_scores("A [1].", DOCS, "q", get_nli(NLI), at_most_citations=0))


def test_validate_item_other_datasets():
    qampari = load_fixture("alce_qampari.json")[0]
    qampari["answers"] = [["a"], [1]]
    with pytest.raises(AlceDataError, match=r'here: "answers"\[1\] must be a list of strings'):
        validate_item(qampari, "qampari", "here")
    eli5 = load_fixture("alce_eli5.json")[0]
    eli5["claims"] = ["ok", None]
    with pytest.raises(AlceDataError, match='here: "claims" must be a list of strings'):
        validate_item(eli5, "eli5", "here")
    asqa = load_fixture("alce_asqa.json")[0]
    asqa["annotations"][1]["long_answer"] = None  # ROUGE reads both annotations
    with pytest.raises(AlceDataError, match=r'here: "annotations"\[1\] needs a string'):
        validate_item(asqa, "asqa", "here")


@pytest.mark.parametrize(
    ("question", "message"),
    [
        (5, "question 0: expected an object, got the number 5"),
        (
            {"id": "q", "body": 3, "type": "factoid"},
            'question 0 (id "q"): field "body" must be a string, got the number 3',
        ),
    ],
)
def test_malformed_bioasq_records(tmp_path, question, message):
    path = tmp_path / "bioasq.json"
    path.write_text(json.dumps({"questions": [question]}), encoding="utf-8")
    with pytest.raises(BioasqDataError) as e:
        load_bioasq(path)
    assert str(path) in str(e.value) and message in str(e.value)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"answers": {}}, 'field "question" must be a string, it is missing'),
        ({"question": "q", "answers": []}, 'field "answers" must be an object, got a list'),
        (
            {"question": "q", "answers": {"gpt4": {"claims": 3}}},
            'field "answers.gpt4.claims" must be a list or null, got the number 3',
        ),
        (
            {"question": "q", "answers": {}, "metadata": 1},
            'field "metadata" must be an object or null, got the number 1',
        ),
    ],
)
def test_malformed_expertqa_records(tmp_path, row, message):
    path = tmp_path / "expertqa.jsonl"
    good = (FIXTURES / "fullcite_expertqa.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path.write_text(good + "\n\n" + json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(ExpertqaDataError) as e:
        load_expertqa(path)
    # Line 3 of the file is the second row: sample id "1".
    assert str(e.value) == f'ExpertQA file {path}:3 (sample id "1"): {message}'


def _set(path: tuple[str | int, ...], value: Any) -> Callable[[Any], None]:
    def mutate(record: Any) -> None:
        for key in path[:-1]:
            record = record[key]
        record[path[-1]] = value

    return mutate


# Wrong types below the top level, where the loaders used to raise a bare TypeError or
# AttributeError: (mutation of the first record, field, what the message says).
BIOASQ_WRONG_TYPES = [
    (
        _set(("snippets", 0, "offsetInBeginSection"), "143"),
        "snippets[0].offsetInBeginSection",
        "an integer or null, got the string '143'",
    ),
    (
        _set(("snippets", 2, "offsetInEndSection"), True),
        "snippets[2].offsetInEndSection",
        "an integer or null, got true",
    ),
    (
        _set(("snippets", 2, "beginSection"), 7),
        "snippets[2].beginSection",
        "a string or null, got the number 7",
    ),
    (_set(("snippets", 1), "text"), "snippets[1]", "an object, got the string 'text'"),
    (_set(("snippets", 3, "text"), None), "snippets[3].text", "a string, got null"),
    (_set(("documents", 1), 31000003), "documents[1]", "a string, got the number 31000003"),
    (_set(("ideal_answer",), {"a": 1}), "ideal_answer", "a string or a list or null, got an object"),
    (_set(("ideal_answer",), ["a", None]), "ideal_answer[1]", "a string, got null"),
    (_set(("exact_answer",), [["yes"], 1]), "exact_answer[1]", "a string or a list, got the number 1"),
    (_set(("exact_answer",), [["yes", 2]]), "exact_answer[0][1]", "a string, got the number 2"),
]  # fmt: skip


@pytest.mark.parametrize(("mutate", "field", "expected"), BIOASQ_WRONG_TYPES)
def test_bioasq_wrong_types_at_any_depth_name_file_question_and_field(
    tmp_path, mutate, field, expected
):
    data = load_fixture("fullcite_bioasq.json")
    mutate(data["questions"][0])
    path = tmp_path / "bioasq.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(BioasqDataError) as e:
        bioasq_source(str(path), 5, abstracts_path=str(BIOASQ_ABSTRACTS))
    assert str(e.value) == (
        f'BioASQ file {path} question 0 (id "bq-yesno"): field "{field}" must be {expected}'
    )


EXPERTQA_WRONG_TYPES = [
    (
        _set(("answers", "rr_gs_gpt4", "claims", 0, "evidence"), 5),
        "answers.rr_gs_gpt4.claims[0].evidence",
        "a list or null, got the number 5",
    ),
    (
        _set(("answers", "rr_gs_gpt4", "claims", 1, "evidence"), "[2] https://x\n\ntext"),
        "answers.rr_gs_gpt4.claims[1].evidence",
        "a list or null, got the string '[2] https://x\\n\\ntext'",
    ),
    (
        _set(("answers", "rr_gs_gpt4", "claims", 0, "evidence", 0), 5),
        "answers.rr_gs_gpt4.claims[0].evidence[0]",
        "a string, got the number 5",
    ),
    (
        _set(("answers", "rr_gs_gpt4", "claims", 1), ["evidence"]),
        "answers.rr_gs_gpt4.claims[1]",
        "an object, got a list",
    ),
    (
        _set(("answers", "rr_gs_gpt4", "revised_answer_string"), 3),
        "answers.rr_gs_gpt4.revised_answer_string",
        "a string or null, got the number 3",
    ),
    (
        _set(("metadata", "question_type"), ["a", "b"]),
        "metadata.question_type",
        "a string or null, got a list",
    ),
]


@pytest.mark.parametrize(("mutate", "field", "expected"), EXPERTQA_WRONG_TYPES)
def test_expertqa_wrong_types_at_any_depth_name_file_row_and_field(
    tmp_path, mutate, field, expected
):
    rows = [json.loads(line) for line in EXPERTQA.read_text(encoding="utf-8").splitlines()]
    mutate(rows[2])
    path = tmp_path / "expertqa.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    for system in ("any", "rr_gs_gpt4"):
        with pytest.raises(ExpertqaDataError) as e:
            expertqa_source(str(path), 5, spans=None, system=system)
        assert str(e.value) == (
            f'ExpertQA file {path}:3 (sample id "2"): field "{field}" must be {expected}'
        )


def test_abstracts_and_spans_files_name_the_entry_and_field(tmp_path):
    abstracts = tmp_path / "abstracts.json"
    abstracts.write_text(json.dumps({"31000001": {"title": "t", "abstract": ["a"]}}))
    with pytest.raises(BioasqDataError) as e:
        bioasq_source(str(BIOASQ), 5, abstracts_path=str(abstracts))
    assert str(e.value) == (
        f"abstracts file {abstracts} PMID '31000001': field \"abstract\" must be a string or "
        "null, got a list"
    )
    spans = tmp_path / "spans.jsonl"
    spans.write_text('{"sample_id": "s", "doc_id": true, "span": "x"}\n')
    with pytest.raises(SpansFileError) as e:
        load_spans_file(spans)
    assert str(e.value) == (f'{spans}:1: field "doc_id" must be a string or an integer, got true')


# --- every FullCite loader, fuzzed: a loader error naming the file, or records --------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)  # fmt: skip


def _json_paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in items:
        yield from _json_paths(child, (*prefix, key))


# fmt: skip


@st.composite
def mutated(draw: Any, record: Any) -> Any:
    """``record`` with one value at any depth replaced by any JSON value, or deleted."""
    record = copy.deepcopy(record)
    path = draw(st.sampled_from(list(_json_paths(record))))
    if not path:
        return draw(JSON_VALUES)
    parent = record
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(parent, dict) and draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = draw(JSON_VALUES)
    return record


def _bioasq(folder: Path, record: Any) -> None:
    data = load_fixture("fullcite_bioasq.json")
    data["questions"][0] = record
    path = folder / "bioasq.json"
    path.write_text(json.dumps(data))
    bioasq_source(str(path), 5, abstracts_path=str(BIOASQ_ABSTRACTS))


def _abstracts(folder: Path, record: Any) -> None:
    data = json.loads(BIOASQ_ABSTRACTS.read_text())
    data["31000001"] = record
    path = folder / "abstracts.json"
    path.write_text(json.dumps(data))
    bioasq_source(str(BIOASQ), 5, abstracts_path=str(path))


def _expertqa(folder: Path, record: Any) -> None:
    lines = EXPERTQA.read_text(encoding="utf-8").splitlines()
    path = folder / "expertqa.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(record), *lines[3:]]) + "\n")
    for system in ("any", "rr_gs_gpt4"):
        expertqa_source(str(path), 5, spans=None, system=system)


def _asqa(folder: Path, record: Any) -> None:
    path = folder / "asqa.json"
    path.write_text(json.dumps([record, *load_fixture("alce_asqa.json")[1:]]))
    spans = load_spans_file(FIXTURES / "fullcite_asqa_spans.jsonl")
    asqa_source(str(path), 5, spans=spans)


def _spans(folder: Path, record: Any) -> None:
    path = folder / "spans.jsonl"
    path.write_text(json.dumps(record) + "\n")
    load_span_cache(path)  # the annotation cache never raises: a bad line is set aside
    path.write_text(json.dumps(record) + "\n")
    load_spans_file(path)


def _incite(folder: Path, record: Any) -> None:
    path = folder / "human_eval.json"
    path.write_text(json.dumps([record]))
    incite_records(path)


INCITE_ROW = {
    "question": "Who sang it?",
    "source": "asqa",
    "generated_answer": "Simon sang it {doc_id: a, snippet: Simon sang}.",
    "citations": [
        {"doc_id": "a snippet", "snippet": "Simon sang", "full_document": "Simon sang it."}
    ],
}
FUZZED_LOADERS = {
    "bioasq": (_bioasq, load_fixture("fullcite_bioasq.json")["questions"][0], BioasqDataError),
    "abstracts": (_abstracts, json.loads(BIOASQ_ABSTRACTS.read_text())["31000001"], BioasqDataError),
    "expertqa": (_expertqa, json.loads(EXPERTQA.read_text().splitlines()[2]), ExpertqaDataError),
    "asqa": (_asqa, load_fixture("alce_asqa.json")[0], AlceDataError),
    "spans": (_spans, {"sample_id": "s", "doc_id": "d", "span": "x"}, SpansFileError),
    "incite": (_incite, INCITE_ROW, ValueError),
}  # fmt: skip


@pytest.mark.parametrize("name", FUZZED_LOADERS)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_fullcite_records_load_or_fail_naming_the_file(name, data):
    load, record, error = FUZZED_LOADERS[name]
    bad = data.draw(mutated(record))
    with tempfile.TemporaryDirectory() as folder:
        try:
            load(Path(folder), bad)
        except error as e:
            message = str(e)
            assert folder in message and "\n" not in message, message


# --- 1,000 hostile samples through inspect_ai.eval ------------------------------------

# The 100k-character and thousands-of-citations cases are scored above, scorer by scorer;
# here they are cut to 3,000 characters so 1,000 samples (and their log) stay fast.
ADVERSARIAL = [text[:3000] for text in HOSTILE.values()] + [
    "The cat sat on the mat [1].",
    "{doc_id: A, snippet: The cat sat}",
    "\x00",
    "[1" * 500,
    "{doc_id:" * 300,
]


def hostile_model() -> Any:
    counter = {"n": 0}

    def respond(input, tools, tool_choice, config):
        counter["n"] += 1
        return scripted_output(ADVERSARIAL[counter["n"] % len(ADVERSARIAL)])

    model, _ = scripted_model(respond)
    return model


def assert_every_sample_scored(log: Any, n: int) -> None:
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == n
    for s in log.samples:
        assert s.error is None
        assert s.scores
        for score in s.scores.values():
            assert isinstance(score.value, dict)
            assert isinstance(score.explanation, str)


@pytest.mark.slow
def test_thousand_hostile_alce_samples(tmp_path, own_prompts):
    items = load_fixture("alce_asqa.json")
    data = []
    for i in range(1000):
        item = json.loads(json.dumps(items[i % len(items)]))
        item["sample_id"] = f"s{i}"
        data.append(item)
    path = tmp_path / "asqa.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    task = alce_asqa(dataset_path=str(path), nli=NLI, ndoc=3, shot=0)
    [log] = inspect_eval(
        task, model=hostile_model(), display="none", log_dir=str(tmp_path), max_connections=50
    )
    assert_every_sample_scored(log, 1000)


@pytest.mark.slow
def test_thousand_hostile_fullcite_samples(tmp_path, cache_root):
    items = load_fixture("alce_asqa.json")
    data = []
    for i in range(1000):
        item = json.loads(json.dumps(items[i % len(items)]))
        item["sample_id"] = f"s{i}"
        data.append(item)
    path = tmp_path / "asqa.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    task = fullcite_asqa(
        dataset_path=str(path),
        spans_path=str(FIXTURES / "fullcite_asqa_spans.jsonl"),
        similarity_model=None,
    )
    [log] = inspect_eval(
        task, model=hostile_model(), display="none", log_dir=str(tmp_path), max_connections=50
    )
    assert_every_sample_scored(log, 1000)
