"""claim_support's diagnose: every FullCite claim supported, misattributed, unsupported or uncited.

The answers of tests/helpers/diagnose_cases.py, judged by word inclusion.
"""

import math

import pytest

from fullcite_tasks import asqa
from inspect_cite.nli.diagnose import DIAGNOSE_CLASSES, DIAGNOSE_KEYS
from scorers import claim_support
from tests.conftest import ASQA_ARGS
from tests.helpers.diagnose_cases import FOUR_PAIRS, FULLCITE_FOUR, NLI, fullcite_sample
from tests.helpers.evals import eval_one, score_answers
from tests.helpers.scripted_models import cite_first_document, scripted_model

SUPPORT_KEYS = {"snippet_support", "doc_support", "unsupported_claims"}


@pytest.fixture(autouse=True)
def _fresh(fresh_nli):
    pass


def score(answers: dict[str, str], tmp_path, nli: str = NLI, **scorer_args):
    samples = [fullcite_sample(answer, sample_id) for sample_id, answer in answers.items()]
    scorer = claim_support(nli=nli, **scorer_args)
    replay = {a: a for a in answers.values()}
    log = score_answers(samples, replay, [scorer], log_dir=str(tmp_path))
    return log, {s.id: s.scores["claim_support"] for s in log.samples}


def test_four_claims_one_of_each_class(tmp_path):
    log, scores = score({"four": FULLCITE_FOUR}, tmp_path, diagnose=True)
    s = scores["four"]
    assert {k: s.value[k] for k in DIAGNOSE_KEYS} == dict.fromkeys(DIAGNOSE_KEYS, 25.0)
    # Supported as claim_support judges it: the misattributed, unsupported and uncited claims
    # are its unsupported_claims.
    assert s.value["unsupported_claims"] == 75.0
    diagnosis = s.metadata["diagnose"]
    assert diagnosis["pairs"] == FOUR_PAIRS
    assert [(c["class"], c["cited"], c["supporting"]) for c in diagnosis["claims"]] == [
        ("supported", [1], []),
        ("misattributed", [1], [2]),
        ("unsupported", [2], []),
        ("uncited", [], [3]),
    ]
    assert "supported by `de` *Germany* (position 2)" in s.explanation
    means = {r.name: r.metrics["mean"].value for r in log.results.scores}
    assert {k: means[k] for k in DIAGNOSE_KEYS} == dict.fromkeys(DIAGNOSE_KEYS, 25.0)


def test_without_diagnose_nothing_changes(tmp_path):
    _, off = score({"four": FULLCITE_FOUR}, tmp_path / "off")
    log, on = score({"four": FULLCITE_FOUR}, tmp_path / "on", diagnose=True)
    assert set(off["four"].value) == SUPPORT_KEYS
    assert "diagnose" not in off["four"].metadata
    assert {k: on["four"].value[k] for k in SUPPORT_KEYS} == off["four"].value
    assert on["four"].explanation.startswith(off["four"].explanation + "\n\n**Diagnose:**")
    assert {k: v for k, v in on["four"].metadata.items() if k != "diagnose"} == off["four"].metadata


def test_a_claim_citing_an_unknown_document_is_judged_against_every_shown_one(tmp_path):
    answer = "Berlin is the capital of Germany {doc_id: nowhere, snippet: Berlin}."
    _, scores = score({"unknown": answer}, tmp_path, diagnose=True)
    [claim] = scores["unknown"].metadata["diagnose"]["claims"]
    assert (claim["class"], claim["cited"], claim["supporting"]) == ("misattributed", [], [2])
    assert scores["unknown"].metadata["diagnose"]["pairs"] == 3
    assert "cites no shown document; supported by `de` *Germany*" in scores["unknown"].explanation


def test_no_claims_and_nli_failure_are_nan_with_the_reason(tmp_path):
    failing = "python:tests.helpers.nli_fns:failing_on_fail"
    answers = {
        "empty": "",
        "late": "Paris is the capital of France {doc_id: fr, snippet: Paris}. Plans fail.",
        "early": "Plans fail {doc_id: fr, snippet: Paris}.",
    }
    log, scores = score(answers, tmp_path, nli=failing, diagnose=True)
    for s in scores.values():
        assert set(s.value) == SUPPORT_KEYS | set(DIAGNOSE_KEYS)
        assert all(math.isnan(s.value[k]) for k in DIAGNOSE_KEYS)
    assert scores["empty"].metadata["diagnose"]["reason"].startswith("no claims")
    assert scores["late"].value["doc_support"] == 100
    assert scores["late"].metadata["diagnose"]["reason"].startswith("NLI failed")
    assert scores["early"].metadata["diagnose"]["reason"].startswith("NLI failed")
    assert set(DIAGNOSE_KEYS) <= {r.name for r in log.results.scores}


def test_task_option_turns_attribution_and_diagnose_on(tmp_path):
    model = scripted_model(cite_first_document)[0]
    args = {**ASQA_ARGS, "similarity_model": None, "nli": NLI}
    log = eval_one(asqa(**args, diagnose=True), model, limit=2, log_dir=str(tmp_path))
    names = {r.name for r in log.results.scores}
    assert SUPPORT_KEYS | set(DIAGNOSE_KEYS) <= names
    for sample in log.samples:
        value = sample.scores["claim_support"].value
        assert sum(value[k] for k in DIAGNOSE_CLASSES) == pytest.approx(100)
    assert log.eval.metadata["parameters"]["diagnose"] is True
    plain = eval_one(asqa(**args, attribution=True), model, limit=2, log_dir=str(tmp_path))
    assert not set(DIAGNOSE_KEYS) & {r.name for r in plain.results.scores}
