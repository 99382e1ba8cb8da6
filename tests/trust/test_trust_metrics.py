"""TRUST-SCORE's core equals trust-eval 0.1.5 on every fixture; its corrected mode fixes defects."""

import asyncio
import math

import pytest

from inspect_cite.alce.autoais import citation_scores
from inspect_cite.alce.trust.metrics import (
    TrustItemError,
    TrustSettings,
    trust_item,
    trust_item_problem,
    trust_keys,
    trust_scores,
)
from inspect_cite.nli.registry import get_nli
from tests.trust.helpers import (
    EXPECTED,
    MAIN_FILES,
    NLI,
    RUNS,
    THRESHOLDS,
    assert_same,
    expected,
    items,
)


def judge(name: str, threshold: float = 85, corrected: bool = False):
    dataset = EXPECTED["files"][name]["dataset"]
    nli = get_nli(NLI)
    settings = TrustSettings(rejection_threshold=threshold, corrected=corrected)

    async def run():
        return await asyncio.gather(*(trust_item(it, dataset, nli, settings) for it in items(name)))

    return dataset, asyncio.run(run())


@pytest.mark.parametrize("name, label", RUNS)
def test_every_key_equals_trust_eval(fresh_nli, name, label):
    dataset, judged = judge(name, THRESHOLDS[label])
    got = trust_scores(judged, dataset).values
    assert list(got) == list(EXPECTED["files"][name][label])  # trust-eval's keys, its order
    assert_same(got, expected(name, label))


@pytest.mark.parametrize("dataset", ["asqa", "qampari", "eli5", "expertqa"])
def test_key_lists_per_dataset(dataset):
    assert trust_keys(dataset) == list(EXPECTED["files"][MAIN_FILES[dataset]]["default"])


def test_raw_and_citation_free_refusal_tests_are_both_used(fresh_nli):
    _, judged = judge("trust_asqa.json")
    differ = [j for j in judged if j.refused != j.refused_stripped]
    assert len(differ) == 3
    flipped = trust_scores(
        [type(j)(**{**j.to_json(), "refused_stripped": j.refused}) for j in judged], "asqa"
    ).values
    # Calibrated correctness reads the citation-free decision: the numbers move without it.
    want = expected("trust_asqa.json")
    assert flipped["calib_answerable_str_em"] < want["calib_answerable_str_em"]
    assert flipped["answered_num"] == want["answered_num"]


def test_redundant_citation_sharing_a_gold_answer_keeps_its_credit(fresh_nli):
    """trust-eval's change to ALCE's precision (the answers_found overlap)."""
    item = items("trust_asqa.json")[0]
    nli = get_nli(NLI)
    alce = asyncio.run(citation_scores(item["output"], item["docs"], item["question"], nli))
    _, judged = judge("trust_asqa.json")
    assert alce.precision == pytest.approx(2 / 3)  # [3] is redundant for ALCE
    assert judged[0].citation_prec == 1.0  # ... but [1] and [3] support the same answer


def test_corrected_mode_gives_nan_with_reasons_never_zero(fresh_nli):
    dataset, judged = judge("trust_edge_asqa_all_refused.json", corrected=True)
    default = expected("trust_edge_asqa_all_refused.json")
    result = trust_scores(judged, dataset, corrected=True)
    for key in ("answered_str_em", "answerable_prec", "answered_citation_f1"):
        assert default[key] == 0.0  # trust-eval's number
        assert math.isnan(result.values[key])
        assert result.reasons[key]
    assert default["trust_score"] > 0  # a mean with two zeros standing for undefined rates
    assert math.isnan(result.values["trust_score"])
    assert result.reasons["answered_str_em"] == "no output was answered (every one is a refusal)"
    # Defined values are unchanged.
    assert result.values["reject_rec"] == default["reject_rec"]
    assert set(result.reasons) == {k for k, v in result.values.items() if math.isnan(v)}


def test_corrected_mode_uses_one_refusal_decision(fresh_nli):
    dataset, judged = judge("trust_asqa.json", corrected=True)
    fixed = trust_scores(judged, dataset, corrected=True).values
    same_test = [type(j)(**{**j.to_json(), "refused_stripped": j.refused}) for j in judged]
    assert (
        fixed["calib_answered_str_em"]
        == trust_scores(same_test, dataset).values["calib_answered_str_em"]
    )
    assert fixed["answered_ratio"] == pytest.approx(100 * 9 / 14)  # not rounded
    assert expected("trust_asqa.json")["answered_ratio"] == 64.29


def test_corrected_mode_keeps_trust_eval_numbers_where_defined(fresh_nli):
    dataset, judged = judge("trust_edge_asqa_all_answered.json")
    default = trust_scores(judged, dataset).values
    fixed = trust_scores(judged, dataset, corrected=True)
    assert default["reject_rec"] == 0.0
    assert math.isnan(fixed.values["reject_rec"])
    assert fixed.reasons["reject_rec"] == "every question is answerable"
    for key in ("regular_str_em", "calib_str_em_f1", "answered_citation_f1"):
        assert fixed.values[key] == pytest.approx(default[key])


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"output": None}, 'needs a string "output"'),
        ({"answers": []}, '"answers" must be a non-empty list'),
        ({"answers": ["Berg"]}, '"answers"[0] must be a non-empty list of strings'),
        ({"docs": []}, '"docs" must list the documents shown'),
    ],
)
def test_item_problems_name_the_field(change, problem):
    item = {**items("trust_asqa.json")[0], **change}
    assert problem in trust_item_problem(item, "em")


def test_answers_found_must_match_the_answers(fresh_nli):
    item = items("trust_asqa.json")[0]
    item["docs"][0]["answers_found"] = [1]
    with pytest.raises(TrustItemError, match=r'"docs"\[0\]\["answers_found"\] must list 0 or 1'):
        asyncio.run(trust_item(item, "asqa", get_nli(NLI)))


def test_unknown_dataset_is_refused():
    with pytest.raises(ValueError, match="--dataset must be one of asqa, qampari, eli5, expertqa"):
        trust_keys("nq")


@pytest.mark.parametrize("dataset", ["asqa", "qampari", "eli5", "expertqa"])
def test_every_trust_key_has_a_direction(dataset):
    from inspect_cite.app.log_metrics import UNKNOWN_DIRECTION, metric_direction

    assert [k for k in trust_keys(dataset) if metric_direction(k) == UNKNOWN_DIRECTION] == []
