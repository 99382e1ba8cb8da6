"""citation_nli's diagnose: every ALCE statement supported, misattributed, unsupported or uncited.

Four-claim answers over three capitals (tests/helpers/diagnose_cases.py), judged by word
inclusion, so each class is known by hand.
"""

import math

import pytest
from inspect_ai.dataset import Sample

from alce_tasks import asqa
from inspect_cite.nli import get_nli, reset_nli
from inspect_cite.nli.diagnose import DIAGNOSE_CLASSES, DIAGNOSE_KEYS
from scorers import citation_nli
from tests.conftest import FIXTURES
from tests.helpers import nli_fns
from tests.helpers.diagnose_cases import ALCE_FOUR, DOCS, FOUR_PAIRS, NLI, alce_sample
from tests.helpers.evals import eval_one, score_answers
from tests.helpers.scripted_models import scripted_model

CITATION_KEYS = {"citation_rec", "citation_prec"}


@pytest.fixture(autouse=True)
def _fresh(fresh_nli):
    pass


def score(samples: list[Sample], tmp_path, nli: str = NLI, **scorer_args):
    answers = {str(s.input): str(s.input) for s in samples}
    scorer = citation_nli(nli=nli, **scorer_args)
    return score_answers(samples, answers, [scorer], log_dir=str(tmp_path))


def results(log) -> dict[str, float]:
    return {s.name: s.metrics["mean"].value for s in log.results.scores}


def test_four_claims_one_of_each_class(tmp_path):
    log = score([alce_sample(ALCE_FOUR)], tmp_path, diagnose=True)
    [sample] = log.samples
    s = sample.scores["citation_nli"]
    # Precision: one of the three citations earns credit.
    assert s.value == {
        "citation_rec": 25.0,
        "citation_prec": pytest.approx(100 / 3),
        "supported": 25.0,
        "misattributed": 25.0,
        "unsupported": 25.0,
        "uncited": 25.0,
        "uncited_but_supported": 25.0,
    }
    assert sum(s.value[k] for k in DIAGNOSE_CLASSES) == 100
    diagnosis = s.metadata["diagnose"]
    assert diagnosis["pairs"] == FOUR_PAIRS and diagnosis["reason"] is None
    assert [(c["class"], c["cited"], c["supporting"]) for c in diagnosis["claims"]] == [
        ("supported", [1], []),
        ("misattributed", [1], [2]),
        ("unsupported", [2], []),
        ("uncited", [], [3]),
    ]
    # The explanation names the document that supports the misattributed claim and where.
    assert (
        "**misattributed**: Berlin is the capital of Germany. (cites [1] *France*" in s.explanation
    )
    assert "supported by [2] *Germany* (position 2)" in s.explanation
    assert f"diagnose added {FOUR_PAIRS} NLI pairs" in s.explanation
    assert results(log) == s.value


def test_without_diagnose_nothing_changes(tmp_path):
    plain = score([alce_sample(ALCE_FOUR)], tmp_path / "plain")
    default = score([alce_sample(ALCE_FOUR)], tmp_path / "off", diagnose=False)
    diagnosed = score([alce_sample(ALCE_FOUR)], tmp_path / "on", diagnose=True)
    for log in (plain, default):
        [s] = log.samples
        assert set(s.scores["citation_nli"].value) == CITATION_KEYS
        assert s.scores["citation_nli"].metadata is None
        assert {r.name for r in log.results.scores} == CITATION_KEYS
        assert [(r.name, r.metrics) for r in log.results.scores] == [
            (r.name, r.metrics) for r in plain.results.scores
        ]
    off, on = plain.samples[0].scores["citation_nli"], diagnosed.samples[0].scores["citation_nli"]
    assert {k: on.value[k] for k in CITATION_KEYS} == off.value
    # The diagnosis is appended: what the explanation said before is unchanged.
    assert on.explanation.startswith(off.explanation + "\n\n**Diagnose:**")


def test_pairs_added_are_counted_batched_and_cached(tmp_path, monkeypatch):
    counting = "python:tests.helpers.nli_fns:counting_entail"
    nli_fns.CALLS["count"] = 0
    score([alce_sample(ALCE_FOUR)], tmp_path / "off", nli=counting)
    plain_calls = nli_fns.CALLS["count"]

    reset_nli()
    monkeypatch.setenv("INSPECT_CITE_NLI_CACHE", str(tmp_path / "nli.sqlite"))
    nli_fns.CALLS["count"] = 0
    log = score([alce_sample(ALCE_FOUR)], tmp_path / "on", nli=counting, diagnose=True)
    pairs = log.samples[0].scores["citation_nli"].metadata["diagnose"]["pairs"]
    assert pairs == FOUR_PAIRS == nli_fns.CALLS["count"] - plain_calls
    # Every pair went through the backend's batching queue, recall's and diagnose's alike.
    assert sum(get_nli(counting).queue.batch_sizes) == nli_fns.CALLS["count"]

    reset_nli()  # a new process: only the disk cache remembers
    nli_fns.CALLS["count"] = 0
    again = score([alce_sample(ALCE_FOUR)], tmp_path / "again", nli=counting, diagnose=True)
    assert nli_fns.CALLS["count"] == 0
    assert (
        again.samples[0].scores["citation_nli"].value == log.samples[0].scores["citation_nli"].value
    )


def test_recall_rules_decide_supported(tmp_path):
    """Supported is recall's verdict: at_most_citations and the out-of-range rule included."""
    beyond = "Berlin is the capital of Germany [1][2]."  # recall judges [1] alone
    out_of_range = "Paris is the capital of France [1][7]."  # [7] is not shown: recall 0
    log = score(
        [alce_sample(beyond, "beyond"), alce_sample(out_of_range, "range")],
        tmp_path,
        diagnose=True,
        at_most_citations=1,
    )
    by_id = {s.id: s.scores["citation_nli"] for s in log.samples}
    claim = by_id["beyond"].metadata["diagnose"]["claims"][0]
    assert (claim["class"], claim["cited"], claim["supporting"]) == ("misattributed", [1, 2], [2])
    # The explanation says the supporting document is one it cites, not another.
    assert "(position 2) is among its citations but was not judged" in by_id["beyond"].explanation
    # Recall judged none of its citations, so every shown document is judged: one holds it.
    claim = by_id["range"].metadata["diagnose"]["claims"][0]
    assert (claim["class"], claim["cited"], claim["supporting"]) == ("misattributed", [1], [1])
    assert by_id["range"].metadata["diagnose"]["pairs"] == len(DOCS)
    assert by_id["range"].value["citation_rec"] == 0


def test_qampari_statements_are_question_plus_entity(tmp_path):
    docs = [
        {"id": d["id"], "title": d["title"], "text": f"Which capital cities? {city}."}
        for d, city in zip(DOCS, ("Paris", "Berlin", "Rome"), strict=True)
    ]
    sample = Sample(
        id="q",
        input="Paris [1], Berlin [1], Madrid [2], Rome.",
        metadata={"docs": docs, "dataset": "qampari", "question": "Which capital cities"},
    )
    log = score([sample], tmp_path, diagnose=True)
    s = log.samples[0].scores["citation_nli"]
    assert {k: s.value[k] for k in DIAGNOSE_CLASSES} == dict.fromkeys(DIAGNOSE_CLASSES, 25.0)
    claims = s.metadata["diagnose"]["claims"]
    assert claims[1]["claim"].startswith("Which capital cities Berlin")


@pytest.mark.parametrize("alce_compat", [True, False])
def test_empty_answer_is_nan_with_the_reason(tmp_path, alce_compat):
    # eval.py's QAMPARI reading makes an empty answer one statement; ASQA's has none.
    log = score([alce_sample("", "empty")], tmp_path, diagnose=True, alce_compat=alce_compat)
    s = log.samples[0].scores["citation_nli"]
    assert set(s.value) == CITATION_KEYS | set(DIAGNOSE_KEYS)
    assert all(math.isnan(s.value[k]) for k in DIAGNOSE_KEYS)
    assert s.metadata["diagnose"]["reason"].startswith("no statements")


def test_an_empty_qampari_answer_has_no_class_but_keeps_eval_py_s_recall(tmp_path):
    """eval.py reads "" as one QAMPARI item (recall 0); it claims nothing, so diagnose is nan."""
    sample = alce_sample("", "empty", dataset="qampari")
    log = score([sample], tmp_path, diagnose=True)
    s = log.samples[0].scores["citation_nli"]
    assert s.value["citation_rec"] == 0
    assert all(math.isnan(s.value[k]) for k in DIAGNOSE_KEYS), s.value
    assert s.metadata["diagnose"]["reason"].startswith("no statements")


def test_nli_failure_is_nan_and_keeps_what_recall_decided(tmp_path):
    failing = "python:tests.helpers.nli_fns:failing_on_fail"
    # Recall judges the first statement only; diagnose's pairs for the uncited one fail.
    late = alce_sample("Paris is the capital of France [1]. Plans fail.", "late")
    early = alce_sample("Plans fail [1].", "early")
    log = score([late, early], tmp_path, nli=failing, diagnose=True)
    by_id = {s.id: s.scores["citation_nli"] for s in log.samples}
    assert by_id["late"].value["citation_rec"] == 50
    assert all(math.isnan(by_id["late"].value[k]) for k in DIAGNOSE_KEYS)
    assert by_id["late"].metadata["diagnose"]["reason"].startswith("NLI failed")
    assert "**Diagnose:** nan, NLI failed" in by_id["late"].explanation
    assert all(math.isnan(v) for v in by_id["early"].value.values())
    assert set(by_id["early"].value) == CITATION_KEYS | set(DIAGNOSE_KEYS)
    assert by_id["early"].metadata["diagnose"]["reason"].startswith("NLI failed")
    # Every sample holds every key, so the run reports a mean for each (over the known ones).
    assert {r.name for r in log.results.scores} == CITATION_KEYS | set(DIAGNOSE_KEYS)


def test_unfinished_thinking_is_nan_for_every_key(tmp_path):
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.solver import generate

    model, _ = scripted_model([("<think>Paris is the capital", "max_tokens")])
    task = Task(
        dataset=MemoryDataset([alce_sample("q")]),
        solver=generate(),
        scorer=citation_nli(nli=NLI, diagnose=True),
    )
    log = eval_one(task, model, log_dir=str(tmp_path))
    s = log.samples[0].scores["citation_nli"]
    assert set(s.value) == CITATION_KEYS | set(DIAGNOSE_KEYS)
    assert all(math.isnan(v) for v in s.value.values())


def test_task_option_turns_diagnose_on(own_prompts, tmp_path):
    answers = [ALCE_FOUR, ALCE_FOUR]
    args = {"dataset_path": str(FIXTURES / "alce_asqa.json"), "nli": NLI}
    run = {"limit": 2, "log_dir": str(tmp_path)}
    on = eval_one(asqa(**args, diagnose=True), scripted_model(answers)[0], **run)
    off = eval_one(asqa(**args), scripted_model(answers)[0], **run)
    assert set(DIAGNOSE_KEYS) <= {r.name for r in on.results.scores}
    assert not set(DIAGNOSE_KEYS) & {r.name for r in off.results.scores}
    assert on.eval.metadata["parameters"]["diagnose"] is True
