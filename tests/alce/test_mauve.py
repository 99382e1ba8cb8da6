import math
import string

import numpy as np
import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.solver import generate

from inspect_cite.app.log_metrics import log_metrics
from scorers.mauve import (
    FEATURES_KEY,
    Featurizer,
    alce_mauve_texts,
    compute_alce_mauve,
    decode_features,
    encode_features,
    mauve,
    mauve_corpus,
    mauve_from_features,
    mauve_text,
)
from tests.conftest import fixture_corpus, load_fixture


@pytest.fixture(scope="module")
def tiny_gpt2(tmp_path_factory):
    from tests.helpers.tiny_eval_models import build_tiny_gpt2

    return build_tiny_gpt2(tmp_path_factory.mktemp("m") / "tiny-gpt2", fixture_corpus())


def _items(n_per_item: int = 3) -> list[dict]:
    """Distinct eval.py-style items built from the fixtures' questions and documents."""
    items = []
    for name in ("alce_asqa.json", "alce_eli5.json"):
        for item in load_fixture(name):
            for k in range(n_per_item):
                doc = item["docs"][k]["text"]
                items.append(
                    {
                        "question": f"{item['question']} ({k})",
                        "answer": item["answer"],
                        "output": f"{doc[: 80 + 40 * k]} [1][2].\nSecond line is dropped.",
                    }
                )
    return items


def test_mauve_text_is_alce_preprocessing():
    words = " ".join(f"w{i}" for i in range(150))
    assert mauve_text("Who?", f"  {words}  ") == "Who? " + " ".join(f"w{i}" for i in range(99))
    # whitespace collapsed, trailing punctuation (string.punctuation only) stripped
    assert mauve_text("Why\nnot?", "It  is.\n\nSo!?") == "Why not? It is. So"
    assert mauve_text("Q", 'ends in quote."') == "Q ends in quote"
    assert mauve_text("Q", "dash —") == "Q dash —"  # not ASCII punctuation
    assert mauve_text("Q", "").rstrip(string.punctuation) == "Q"


def test_texts_use_citation_free_first_line():
    p, q = alce_mauve_texts(
        [{"question": "Q?", "answer": "Ref [1] stays.", "output": "A [1][2] b [3].\nMore."}]
    )
    assert p == ["Q? Ref [1] stays"]  # references are not citation-stripped (eval.py)
    assert q == ["Q? A b"]


def test_features_roundtrip():
    v = np.arange(7, dtype=np.float32) / 3
    assert np.array_equal(decode_features(encode_features(v)), v)


def _scores_from(p: np.ndarray, q: np.ndarray, seeds: int = 1) -> list[SampleScore]:
    return [
        SampleScore(
            sample_id=i,
            score=Score(
                value={"mauve": 1.0},
                metadata={
                    FEATURES_KEY: {"p": encode_features(p[i]), "q": encode_features(q[i])},
                    "mauve_seeds": seeds,
                },
            ),
        )
        for i in range(len(p))
    ]


def test_metric_equals_compute_mauve_on_fixed_features():
    import mauve as mauve_lib

    rng = np.random.default_rng(0)
    p = rng.normal(size=(60, 16)).astype(np.float32)
    q = (rng.normal(size=(60, 16)) + 0.4).astype(np.float32)
    expected = 100 * mauve_lib.compute_mauve(p_features=p, q_features=q).mauve
    assert mauve_corpus()(_scores_from(p, q)) == expected
    assert mauve_from_features(p, q) == expected
    assert 0 < expected < 100

    spread = mauve_corpus()(_scores_from(p, q, seeds=3))
    per_seed = [
        100 * mauve_lib.compute_mauve(p_features=p, q_features=q, seed=s).mauve
        for s in (25, 26, 27)
    ]
    assert spread["mean"] == pytest.approx(np.mean(per_seed))
    assert spread["min"] == min(per_seed) and spread["max"] == max(per_seed)
    assert spread["std"] == pytest.approx(np.std(per_seed, ddof=1))


def test_metric_without_features_is_nan():
    scores = [SampleScore(sample_id=1, score=Score(value={"mauve": 1.0}, metadata={}))]
    assert math.isnan(mauve_corpus()(scores))


def test_featurizer_matches_mauve_text_path(tiny_gpt2):
    """Same features and score as mauve.compute_mauve(p_text=..., q_text=...) (eval.py's call)."""
    import mauve as mauve_lib
    from mauve.compute_mauve import get_features_from_input

    items = _items()
    p_text, q_text = alce_mauve_texts(items)
    ours = Featurizer(str(tiny_gpt2), "cpu").featurize(p_text, 512, 8)
    theirs = get_features_from_input(
        None, None, p_text, str(tiny_gpt2), 512, -1, name="p", batch_size=8
    )
    assert np.array_equal(ours, theirs)

    value = compute_alce_mauve(items, model=str(tiny_gpt2), device="cpu")
    out = mauve_lib.compute_mauve(
        p_text=p_text,
        q_text=q_text,
        featurize_model_name=str(tiny_gpt2),
        device_id=-1,
        max_text_length=512,
        batch_size=8,
    )
    assert value == 100 * out.mauve


def test_featurizer_truncates_to_max_text_length(tiny_gpt2):
    f = Featurizer(str(tiny_gpt2), "cpu")
    long = " ".join(["word"] * 400)
    assert len(f.tokenize(long, 16)) == 16
    # a padded batch gives each text the features it has alone
    a, b = "short text", "a much longer text than the other one"
    batch = f.featurize([a, b], 512, 8)
    alone = f.featurize([a], 512, 8)
    assert np.allclose(batch[0], alone[0], atol=1e-5)


def test_scorer_in_eval_matches_cli_value(tiny_gpt2, tmp_path):
    items = _items()
    samples = [
        Sample(
            id=i,
            input=item["question"],
            target=item["answer"],
            metadata={"question": item["question"], "answer": item["answer"]},
        )
        for i, item in enumerate(items)
    ]
    outputs = {item["question"]: item["output"] for item in items}

    def respond(input, tools, tool_choice, config):
        text = outputs[input[-1].text]
        return ModelOutput.from_content(model="mockllm", content=text).model_copy(
            update={"usage": ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)}
        )

    task = Task(
        dataset=MemoryDataset(samples),
        solver=generate(),
        scorer=mauve(mauve_model=str(tiny_gpt2), mauve_seeds=2, device="cpu", batch_size=4),
    )
    [log] = inspect_eval(
        task,
        model=get_model("mockllm/model", custom_outputs=respond),
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    metrics = log_metrics(log)["mauve"]
    expected = [
        compute_alce_mauve(items, model=str(tiny_gpt2), device="cpu", seed=s) for s in (25, 26)
    ]
    # features batched across samples differ from eval.py's fixed batches only in float noise
    assert metrics["mauve_corpus_min"] == pytest.approx(min(expected), abs=1e-6)
    assert metrics["mauve_corpus_max"] == pytest.approx(max(expected), abs=1e-6)
    sample = log.samples[0]
    assert sample.scores["mauve"].value == {"mauve": 1.0}
    assert "corpus-level" in sample.scores["mauve"].explanation
