"""FullCite scorers on hand-built samples with hand-computed values."""

import math

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import generate

from inspect_cite.app.log_metrics import log_metrics
from inspect_cite.evidence.documents import doc_texts
from scorers import (
    citation_bias,
    citation_judge,
    citation_similarity,
    doc_snippet_f1,
    fullcite_answer,
)
from scorers.citation_judge import parse_judgement
from scorers.doc_snippet_f1 import doc_prf, snippet_prf, token_f1
from scorers.fullcite_answer import (
    candidates,
    extract_yesno,
    factoid_scores,
    list_scores,
    rouge_su,
    su_units,
)
from tests.helpers.evals import score_answers
from tests.helpers.scripted_models import scripted_model, scripted_output
from tests.helpers.tiny_eval_models import minilm_path

DOCS = [
    {"id": "A", "title": "Doc A", "text": "Yesterday the cat sat on the mat quietly."},
    {"id": "B", "title": "Doc B", "text": "Dogs bark loudly. Birds sing at dawn."},
    {"id": "C", "title": "Doc C", "text": "Something else entirely."},
]
GOLD = [
    {"doc_id": "A", "span": "the cat sat on the mat"},
    {"doc_id": "B", "span": "Dogs bark loudly"},
    {"doc_id": "B", "span": "Birds sing"},
]
ANSWER = (
    "The cat sat {doc_id: A, snippet: the cat sat}. Something happened "
    "{doc_id: C, snippet: Something}. Dogs bark {doc_id: Z, snippet: Dogs bark loudly}."
)


def sample(question, metadata=None, **extra):
    meta = {"docs": DOCS, "gold_spans": GOLD, "question": question, "question_type": "factoid"}
    return Sample(input=question, id=question, metadata=meta | (metadata or {}) | extra)


def values(log, scorer, sample_id):
    [s] = [s for s in log.samples if s.id == sample_id]
    return s.scores[scorer].value


def test_token_f1_and_plain_list_math():
    assert token_f1("the cat sat", "the cat sat on the mat") == pytest.approx(2 / 3)
    assert token_f1("", "") == 1.0 and token_f1("x", "") == 0.0
    cited = [("A", "the cat sat", True), ("C", "Something", True), ("Z", "Dogs bark loudly", False)]
    gold = {"A": ["the cat sat on the mat"], "B": ["Dogs bark loudly", "Birds sing"]}
    assert doc_prf(cited, set(gold)) == pytest.approx((1 / 3, 1 / 2, 0.4))
    p, r, f, per = snippet_prf(cited, gold)
    assert (p, r, f) == pytest.approx((2 / 9, 2 / 9, 2 / 9))
    assert per == pytest.approx([2 / 3, 0.0, 0.0])
    # Citing the same gold document twice: doc sets count it once, snippets twice.
    cited = [("A", "the cat sat on the mat", True), ("A", "quietly", True)]
    assert doc_prf(cited, {"A", "B"}) == pytest.approx((1.0, 0.5, 2 / 3))
    assert snippet_prf(cited, {"A": ["the cat sat on the mat"]})[:3] == pytest.approx(
        (0.5, 1.0, 2 / 3)
    )


def test_doc_snippet_f1_hand_computed(tmp_path):
    samples = [
        sample("q1"),
        sample("q2"),  # no citations
        sample("q3", gold_spans=[]),  # no gold: not scored
        sample(
            "q4",
            posthoc={
                "citations": [
                    # Offsets of the citation in the output below (records join by offset).
                    {"doc_id": "A", "snippet": "the cat sat", "status": "unaligned"}
                    | {"start": 12, "end": 45}
                ]
            },
        ),
        sample("q5"),  # malformed output
    ]
    outputs = {
        "q1": ANSWER,
        "q2": "Cats sit on mats.",
        "q3": ANSWER,
        "q4": "The cat sat {doc_id: A, snippet: the cat sat}.",
        "q5": "<think>plan</think>Broken {doc_id: A, snippet: the cat {doc_id: {{ }",
    }
    log = score_answers(samples, outputs, [doc_snippet_f1()], log_dir=str(tmp_path))
    v = values(log, "doc_snippet_f1", "q1")
    assert v["doc_precision"] == pytest.approx(100 / 3)
    assert v["doc_recall"] == pytest.approx(50)
    assert v["doc_f1"] == pytest.approx(40)
    for key in ("snippet_precision", "snippet_recall", "snippet_f1"):
        assert v[key] == pytest.approx(200 / 9)
    assert v["snippet_em_f1"] == 0 and v["verbatim_rate"] == pytest.approx(200 / 3)
    assert (v["n_citations"], v["invalid_citations"]) == (3, 1)
    v = values(log, "doc_snippet_f1", "q2")
    assert (v["doc_f1"], v["snippet_f1"], v["doc_recall"]) == (0, 0, 0) and math.isnan(
        v["verbatim_rate"]
    )
    v = values(log, "doc_snippet_f1", "q3")
    assert math.isnan(v["doc_f1"]) and math.isnan(v["snippet_precision"]) and v["n_citations"] == 3
    # The unaligned citation is invalid: wrong in precision, never a hit.
    v = values(log, "doc_snippet_f1", "q4")
    assert (v["doc_precision"], v["snippet_precision"], v["invalid_citations"]) == (0, 0, 1)
    v = values(log, "doc_snippet_f1", "q5")
    assert set(v) == set(values(log, "doc_snippet_f1", "q1"))
    [s1] = [s for s in log.samples if s.id == "q1"]
    explanation = s1.scores["doc_snippet_f1"].explanation
    assert "| 3 | Dogs bark | Z (?) | Dogs bark loudly | unknown_doc_id" in explanation
    assert "best gold F1 67" in explanation and "**Gold spans:**" in explanation
    # Means skip unscored (nan) samples: q1, q2, q4, q5 are averaged.
    metrics = {s.name: s.metrics["mean"].value for s in log.results.scores}
    assert metrics["doc_recall"] == pytest.approx((50 + 0 + 0 + v["doc_recall"]) / 4)


def test_citation_bias_positions_omission_and_groups(tmp_path):
    # Shown in order 1..5; their retrieval ranks are 5, 1, 2, 3, 4.
    docs = [
        {"id": str(i), "title": f"T{i}", "text": f"text {i}", "retrieval_rank": (i + 3) % 5 + 1}
        for i in range(1, 6)
    ]
    samples = [
        Sample(id="a", input="a", metadata={"docs": docs, "question_type": "yesno"}),
        Sample(id="b", input="b", metadata={"docs": docs, "question_type": "list"}),
        Sample(id="c", input="c", metadata={"docs": docs, "question_type": "yesno"}),
    ]
    outputs = {
        "a": "X {doc_id: 1, snippet: text 1}. Y {doc_id: 1, snippet: text}. "
        "Z {doc_id: 3, snippet: text 3}. W {doc_id: 9, snippet: nope}.",
        "b": "X {doc_id: 2, snippet: text 2}.",
        "c": "Yes.",
    }
    log = score_answers(samples, outputs, [citation_bias(max_positions=5)], log_dir=str(tmp_path))
    a = values(log, "citation_bias", "a")
    assert (a["pos_1"], a["pos_2"], a["pos_3"], a["invalid_share"]) == (50, 0, 25, 25)
    assert (a["first_two_share"], a["omission_rate"], a["n_citations"]) == (50, 0, 4)
    assert a["first_two_rank_share"] == 25  # only doc 3 (rank 2) of the four citations
    c = values(log, "citation_bias", "c")
    assert c["omission_rate"] == 100 and math.isnan(c["first_two_share"]) and math.isnan(c["pos_1"])
    metrics = log_metrics(log)
    first_two = metrics["first_two_share"]
    assert first_two["mean"] == pytest.approx(75)  # (50 + 100) / 2 samples
    assert first_two["weighted_mean"] == pytest.approx(60)  # 3 of 5 citations
    assert first_two["weighted_mean_by_group_yesno"] == pytest.approx(50)
    assert first_two["weighted_mean_by_group_list"] == pytest.approx(100)
    assert metrics["omission_rate"]["mean_by_group_yesno"] == pytest.approx(50)
    assert metrics["omission_rate"]["mean_by_group_list"] == 0
    assert metrics["pos_1"]["weighted_mean"] == pytest.approx(40)
    with pytest.raises(ValueError):
        citation_bias(max_positions=0)


def test_a_repeated_document_id_means_its_first_document(tmp_path):
    # A retriever can return one id twice; the first shown is the one cited, for its text, its
    # position and its retrieval rank (the repeat has no rank and must not turn the rank off).
    docs = [
        {"id": "1", "title": "T1", "text": "first text", "retrieval_rank": 2},
        {"id": "2", "title": "T2", "text": "other text", "retrieval_rank": 1},
        {"id": "1", "title": "T1 again", "text": "repeated text"},
    ]
    assert doc_texts(docs) == {"1": "first text", "2": "other text"}
    samples = [Sample(id="a", input="a", metadata={"docs": docs, "question_type": "yesno"})]
    outputs = {"a": "X {doc_id: 1, snippet: first text}."}
    log = score_answers(samples, outputs, [citation_bias(max_positions=3)], log_dir=str(tmp_path))
    a = values(log, "citation_bias", "a")
    assert (a["pos_1"], a["pos_3"], a["first_two_rank_share"]) == (100, 0, 100)


def test_citation_similarity_with_a_local_sentence_transformer(tmp_path):
    samples = [sample("s1"), sample("s2")]
    outputs = {
        "s1": "The cat sat on the mat {doc_id: A, snippet: The cat sat on the mat}. "
        "Stock markets fell sharply {doc_id: B, snippet: Birds sing at dawn}.",
        "s2": "No citation here.",
    }
    log = score_answers(
        samples, outputs, [citation_similarity(minilm_path())], log_dir=str(tmp_path)
    )
    v = values(log, "citation_similarity", "s1")
    sims = (
        [s for s in log.samples if s.id == "s1"][0]
        .scores["citation_similarity"]
        .metadata["similarities"]
    )
    assert sims[0] == pytest.approx(1.0, abs=1e-4) and sims[1] < 0.5
    assert v["similarity"] == pytest.approx(sum(sims) / 2) and v["n_scored"] == 2
    v = values(log, "citation_similarity", "s2")
    assert math.isnan(v["similarity"]) and v["n_scored"] == 0


def test_citation_similarity_compares_the_claim_with_the_documents_words(tmp_path):
    # Doc C does not hold a claim restated as its snippet: before, that compared the claim
    # with itself (cosine 1.0).
    outputs = {
        "s1": "The cat sat on the mat {doc_id: C, snippet: The cat sat on the mat}. "
        "Birds sing at dawn {doc_id: B, snippet: BIRDS SING at dawn}."
    }
    log = score_answers(
        [sample("s1")], outputs, [citation_similarity(minilm_path())], log_dir=str(tmp_path)
    )
    [s] = log.samples
    score = s.scores["citation_similarity"]
    assert score.value["n_scored"] == 1 and len(score.metadata["similarities"]) == 1
    assert "not compared (the cited document does not hold this snippet)" in score.explanation


def test_citation_judge_rates_the_documents_words(tmp_path):
    prompts: list[str] = []

    def grade(input, tools, tool_choice, config):
        prompts.append(input[-1].text)
        return scripted_output("Support: 5\nRelevance: 5")

    grader, _ = scripted_model(grade)
    answer = (
        "The cat sat {doc_id: A, snippet: THE CAT   SAT}. "
        "Cats purr {doc_id: C, snippet: Cats purr when happy}."
    )
    log = score_answers(
        [sample("j")],
        {"j": answer},
        [citation_judge()],
        log_dir=str(tmp_path),
        model_roles={"grader": grader},
    )
    # The grader sees the document's own text of the span; the snippet doc C does not hold
    # (the model's words only) is not judged.
    [prompt] = prompts
    assert "Snippet: the cat sat\n" in prompt and "THE CAT" not in prompt
    [s] = log.samples
    v = s.scores["citation_judge"].value
    assert (v["support"], v["coverage"], v["n_citations"]) == (5, 50, 2)
    reason = s.scores["citation_judge"].metadata["judgements"][1]["reason"]
    assert reason == "the cited document does not hold this snippet"


def test_parse_judgement():
    assert parse_judgement("Support: 4\nRelevance: 5") == (4, 5)
    assert parse_judgement('```json\n{"support": 2, "relevance": 1}\n```') == (2, 1)
    assert parse_judgement("**Support**: 3\n**Relevance** - 2") == (3, 2)
    assert parse_judgement("Support: 4.5\nRelevance: 5") is None
    assert parse_judgement("Support: 7\nRelevance: 5") is None
    assert parse_judgement("Support: 1 or 2\nSupport: 2\nRelevance: 3") is None
    assert parse_judgement("I cannot tell.") is None


UNKNOWN = " Cats fly {doc_id: Z, snippet: Cats fly}."


def test_citation_judge_retries_then_records_missing(tmp_path):
    replies = {
        "the cat sat": ["Support: 5\nRelevance: 4"],
        "Something": ["Hmm, hard to say.", "Support: 2\nRelevance: 3"],
        "Dogs bark loudly": ["no idea", "Support: 9", RuntimeError("provider down")],
    }
    calls: list[str] = []
    prompts: list[str] = []

    def grade(input, tools, tool_choice, config):
        prompt = input[-1].text
        prompts.append(prompt)
        snippet = next(s for s in replies if f"Snippet: {s}\n" in prompt)
        calls.append(snippet)
        reply = replies[snippet].pop(0)
        if isinstance(reply, Exception):
            raise reply
        return scripted_output(reply)

    grader, _ = scripted_model(grade)
    log = score_answers(
        [sample("j1"), sample("j2")],
        {"j1": ANSWER.replace("doc_id: Z", "doc_id: B") + UNKNOWN, "j2": "No citations."},
        [citation_judge(attempts=3)],
        log_dir=str(tmp_path),
        model_roles={"grader": grader},
    )
    v = values(log, "citation_judge", "j1")
    assert v["support"] == pytest.approx((5 + 2) / 2) and v["relevance"] == pytest.approx(
        (4 + 3) / 2
    )
    assert v["coverage"] == pytest.approx(50) and v["n_citations"] == 4
    # The citation of an unknown document shows nothing of a source: never sent to the grader.
    assert sorted(calls) == ["Dogs bark loudly"] * 3 + ["Something"] * 2 + ["the cat sat"]
    [s] = [s for s in log.samples if s.id == "j1"]
    judgements = s.scores["citation_judge"].metadata["judgements"]
    assert judgements[2]["support"] is None and "provider down" in judgements[2]["reason"]
    assert judgements[3] == {"support": None, "relevance": None, "reason": "unknown doc id"}
    assert "not judged (unparsable reply" in s.scores["citation_judge"].explanation
    v = values(log, "citation_judge", "j2")
    assert math.isnan(v["support"]) and math.isnan(v["coverage"]) and v["n_citations"] == 0
    cat_prompt = next(p for p in prompts if "Snippet: the cat sat\n" in p)
    assert "Question: j1\n\nStatement: The cat sat\n\nCited document: Doc A\n" in cat_prompt
    assert "4 = Support (not all points addressed)" in cat_prompt


def test_citation_judge_needs_a_grader(tmp_path):
    model, _ = scripted_model(lambda *a: scripted_output(ANSWER))
    task = Task(dataset=MemoryDataset([sample("q")]), solver=generate(), scorer=citation_judge())
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "error" and "--model-role grader" in log.error.message


def test_answer_extraction_rules():
    assert extract_yesno("Yes, respiratory measures decline.") == "yes"
    assert extract_yesno("Studies show no association. However yes...") == "no"
    assert extract_yesno("It is unclear.") is None
    assert candidates("Sox10, Olig2 and Nkx2.2 matter. Also PDGFRA or none") == [
        "sox10",
        "olig2",
        "nkx22 matter",
        "also pdgfra",
        "none",
    ]
    assert factoid_scores("It is CD20, not claudin 18.2.", [["claudin 18.2", "CLDN18.2"]]) == (
        0.0,
        1.0,
        0.5,
    )
    assert factoid_scores("Unknown.", ["CD19"]) == (0.0, 0.0, 0.0)
    p, r, f = list_scores("Sox10, Olig2 and cats.", [["Sox10"], ["Olig2"], ["Nkx2.2", "NKX2-2"]])
    assert (p, r) == pytest.approx((2 / 3, 2 / 3)) and f == pytest.approx(2 / 3)


def test_rouge_su4_hand_computed():
    # 7 tokens: skip-bigrams with gaps of at most 4 words: 6 + 5 + 4 + 3 + 2 = 20, plus 7 unigrams.
    seven = "alpha bravo charlie delta echo foxtrot golf"
    assert sum(su_units(seven.split()).values()) == 27
    # Reference units: alpha, golf, (alpha, golf). (alpha, golf) is 5 words apart in the
    # candidate, too far: overlap 2 -> P = 2/27, R = 2/3, F = 2/15.
    assert rouge_su(seven, "alpha golf") == pytest.approx(2 / 15)
    # 6 tokens: (alpha, foxtrot) has 4 words between, inside the gap: overlap 3 of 21 and 3.
    assert rouge_su("alpha bravo charlie delta echo foxtrot", "alpha foxtrot") == pytest.approx(
        0.25
    )
    # Hand count for "a c b" vs "a b c": unigrams 3 of 3, skip-bigrams (a,c), (a,b) of 3.
    assert rouge_su("a c b", "a b c") == pytest.approx(5 / 6)
    assert rouge_su("x y", "a b") == 0.0


def test_fullcite_answer_per_source(tmp_path):
    bio = [
        Sample(
            id="yn",
            input="yn",
            metadata={"source": "bioasq", "question_type": "yesno", "exact_answer": "yes"},
        ),
        Sample(
            id="fa",
            input="fa",
            metadata={
                "source": "bioasq",
                "question_type": "factoid",
                "exact_answer": [["claudin 18.2"]],
            },
        ),
        Sample(
            id="su",
            input="su",
            metadata={
                "source": "bioasq",
                "question_type": "summary",
                "reference_answers": ["alpha bravo charlie delta echo foxtrot"],
            },
        ),
    ]
    outputs = {
        # The snippet says "no": citations must be removed before extracting the answer.
        "yn": "{doc_id: 1, snippet: no} Yes, it is {doc_id: 1, snippet: No effect}.",
        "fa": "Claudin 18.2 {doc_id: 2, snippet: claudin}.",
        "su": "alpha foxtrot {doc_id: 1, snippet: alpha bravo charlie delta echo foxtrot}",
    }
    log = score_answers(bio, outputs, [fullcite_answer("bioasq")], log_dir=str(tmp_path / "b"))
    assert values(log, "fullcite_answer", "yn")["yesno_accuracy"] == 100
    assert math.isnan(values(log, "fullcite_answer", "yn")["factoid_mrr"])
    assert values(log, "fullcite_answer", "fa")["factoid_strict"] == 100
    su = values(log, "fullcite_answer", "su")
    assert su["summary_rouge_su4"] == pytest.approx(25)  # the 6-token hand count above
    assert set(su) == {
        "yesno_accuracy",
        "factoid_strict",
        "factoid_lenient",
        "factoid_mrr",
        "list_precision",
        "list_recall",
        "list_f1",
        "summary_rouge2",
        "summary_rouge_su4",
    }
    qa_pairs = [{"short_answers": ["Christopher Eccleston"]}, {"short_answers": ["David Tennant"]}]
    asqa = [Sample(id="as", input="as", metadata={"source": "asqa", "qa_pairs": qa_pairs})]
    expert = [
        Sample(
            id="ex",
            input="ex",
            metadata={"source": "expertqa", "reference_answers": ["the cat sat"]},
        )
    ]
    log = score_answers(
        asqa + expert,
        {
            "as": "Christopher Eccleston {doc_id: ninth-doctor, snippet: David Tennant}.",
            "ex": "the cat sat {doc_id: 1, snippet: dogs}",
        },
        [fullcite_answer()],
        log_dir=str(tmp_path / "a"),
    )
    v = values(log, "fullcite_answer", "as")
    assert (v["str_em"], v["str_hit"]) == (50, 0) and math.isnan(v["rougeL"])
    assert values(log, "fullcite_answer", "ex")["rougeL"] == pytest.approx(100)
    assert set(v) == set(values(log, "fullcite_answer", "ex"))


def test_scores_survive_outputs_without_text(tmp_path):
    model, _ = scripted_model(lambda *args: scripted_output(""))
    task = Task(
        dataset=MemoryDataset([sample("e", source="bioasq")]),
        solver=generate(),
        scorer=[doc_snippet_f1(), citation_bias(), fullcite_answer("bioasq")],
    )
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert log.samples[0].scores["citation_bias"].value["omission_rate"] == 100
