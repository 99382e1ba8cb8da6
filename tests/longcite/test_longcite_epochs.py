"""LongBench-Cite under --epochs: citation_length pools every epoch's citations.

Inspect reduces a sample's epochs before the metrics and keeps the first epoch's metadata, where
the citation count that weights ``citation_length`` lives; the task's reducer
(``scorers/epoch_mean``) pools the weighted key over the epochs (scorers/_epoch_weights.py).
"""

import json
import math

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.scorer import Score

from inspect_cite.app.log_metrics import log_metrics
from scorers._epoch_weights import EPOCH_WEIGHTS_KEY, reduce_weighted
from scorers._judge_correction import epoch_mean
from tests.helpers.scripted_models import scripted_model, scripted_output
from tests.longcite.conftest import RecordingGrader

TWELVE = "One two three four five six seven eight nine ten eleven twelve."
# Chunk 0 is TWELVE (12 words, so 12 tokens of the word tokenizer), chunk 1 the rest.
ITEM = {
    "idx": 0,
    "dataset": "hotpotqa",
    "query": "How many words does the first sentence have?",
    "context": f"{TWELVE} The second sentence has six words.",
    "answer": ["Twelve."],
}
ANSWERS = (
    "<statement>The first sentence counts words.</statement>",  # epoch 1: no citation
    "<statement>The first sentence counts words.<cite>[0-0]</cite></statement>",  # epoch 2
)


def test_citation_length_pools_the_citations_of_every_epoch(
    longcite_files, tmp_path, word_tokenizer
):
    from longcite_tasks import longbench_cite

    data = tmp_path / "data.json"
    data.write_text(json.dumps([ITEM]))
    calls = {"n": 0}

    def respond(input, *args):
        calls["n"] += 1
        return scripted_output(ANSWERS[calls["n"] - 1])

    model, _ = scripted_model(respond)
    [log] = inspect_eval(
        longbench_cite,
        task_args={"dataset_path": str(data), "tokenizer": str(word_tokenizer)},
        model=model,
        model_roles={"grader": RecordingGrader().model},
        epochs=2,
        max_samples=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    by_epoch = {s.epoch: s.scores["longcite_citation"] for s in log.samples}
    # The case of the finding: epoch 1 cites nothing, epoch 2 one 12-token chunk.
    assert by_epoch[1].metadata["n_citations"] == 0
    assert math.isnan(by_epoch[1].value["citation_length"])
    assert by_epoch[2].metadata["n_citations"] == 1
    assert by_epoch[2].value["citation_length"] == 12.0
    # All tokens over all citations of the run (cnt_citation_len.py's figure): 12 / 1.
    metrics = log_metrics(log)["citation_length"]
    assert metrics["longbench_cite"] == pytest.approx(12.0)
    assert metrics["mean"] == pytest.approx(12.0)
    assert log.eval.config.epochs_reducer == ["scorers/epoch_mean"]


def _score(length: float, citations: int, **extra: object) -> Score:
    return Score(
        value={"citation_f1": 50.0, "citation_length": length},
        metadata={
            "n_citations": citations,
            EPOCH_WEIGHTS_KEY: {"citation_length": "n_citations"},
            **extra,
        },
    )


def test_the_reduced_length_is_tokens_over_citations_of_the_epochs():
    # 10 tokens in 2 citations, then 12 in 1: 22 / 3, weighted by 1.5 citations per epoch.
    reduced = epoch_mean()([_score(5.0, 2), _score(12.0, 1)])
    assert reduced.value["citation_length"] == pytest.approx(22 / 3)
    assert reduced.value["citation_f1"] == pytest.approx(50.0)
    assert reduced.metadata["n_citations"] == pytest.approx(1.5)
    # No citation in either epoch: nan, with the first epoch's reason kept.
    none = {"reasons": {"citation_length": "no citations"}}
    reduced = reduce_weighted(
        [_score(math.nan, 0, **none), _score(math.nan, 0, **none)],
        epoch_mean()([_score(math.nan, 0, **none), _score(math.nan, 0, **none)]),
    )
    assert math.isnan(reduced.value["citation_length"])
    assert reduced.metadata["reasons"] == {"citation_length": "no citations"}
    # A reason of epoch 1 no longer holds once epoch 2's citation counts.
    reduced = epoch_mean()([_score(math.nan, 0, **none), _score(12.0, 1)])
    assert reduced.value["citation_length"] == 12.0
    assert reduced.metadata["reasons"] == {}


def test_scores_without_weighted_keys_reduce_as_inspects_mean():
    plain = [Score(value={"a": 1.0}, metadata={"x": 1}), Score(value={"a": 3.0})]
    assert epoch_mean()(plain).value == {"a": 2.0}
    assert epoch_mean()(plain).metadata == {"x": 1}
