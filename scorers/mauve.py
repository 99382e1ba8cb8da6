"""ALCE fluency (MAUVE) as an Inspect scorer: features per sample, divergence once per run.

Each sample's scorer featurizes its two texts (ALCE's reference side and model side) on a
shared, batching featurizer while the eval runs, and keeps the features in
``Score.metadata``; the ``mauve_corpus`` metric compares all references with all outputs
once, with ``mauve.compute_mauve(p_features=..., q_features=...)``.
"""

import logging
import math
from typing import Any

import numpy as np
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState

from inspect_cite.batching import BatchQueue
from inspect_cite.citations.alce import alce_answer_text
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.mauve_score import (
    MAUVE_BATCH_SIZE,
    MAUVE_MAX_TEXT_LENGTH,
    MAUVE_MODEL,
    decode_features,
    encode_features,
    get_featurizer,
    mauve_from_features,
    mauve_spread,
    mauve_text,
)
from inspect_cite.mauve_score import mauve_seeds as seed_list
from scorers.no_answer import no_answer_score

logger = logging.getLogger(__name__)

FEATURES_KEY = "mauve_features"


def _features(scores: list[SampleScore], side: str) -> np.ndarray | None:
    rows = []
    for s in scores:
        feats = (s.score.metadata or {}).get(FEATURES_KEY) or {}
        if feats.get(side):
            rows.append(decode_features(feats[side]))
    if not rows:
        return None
    if len({len(r) for r in rows}) != 1:
        raise ValueError("MAUVE features of different sizes in one run (featurizer changed?)")
    return np.stack(rows)


@metric
def mauve_corpus() -> Metric:
    """MAUVE x100 over the whole run, from the features each sample's score carries.

    Samples are taken in the order Inspect passes them (dataset order for a finished eval).
    With one seed the value is ALCE's number; with ``mauve_seeds`` > 1 (a scorer argument
    recorded in each score) it is a dict of ``mean``, ``std`` (sample), ``min`` and ``max``
    over k-means seeds 25, 26, ...
    """

    def compute(scores: list[SampleScore]) -> Value:
        n_seeds = max(int((s.score.metadata or {}).get("mauve_seeds", 1)) for s in scores)
        p, q = _features(scores, "p"), _features(scores, "q")
        values: list[float] = []
        if p is not None and q is not None:
            for seed in seed_list(n_seeds):
                try:
                    values.append(mauve_from_features(p, q, seed=seed))
                except Exception as e:  # too few samples for k-means/PCA (e.g. mid-run)
                    logger.warning(f"MAUVE on {len(p)} x {len(q)} features failed: {e}")
                    values.append(math.nan)
        else:
            values = [math.nan] * n_seeds
        if n_seeds == 1:
            return values[0]
        return mauve_spread(values)  # type: ignore[return-value]

    return compute


def _explanation(p_text: str, q_text: str, model: str, n_seeds: int) -> str:
    return (
        "MAUVE is a corpus-level metric: this sample only contributes features "
        f"(`{model}`, last hidden state at the last token); the value 1 marks a featurized "
        f"sample and the run's MAUVE is the `mauve_corpus` metric ({n_seeds} seed(s)).\n\n"
        f"**Reference side:** {p_text or '*(empty, skipped)*'}\n\n"
        f"**Model side:** {q_text or '*(empty, skipped)*'}"
    )


@scorer(metrics={"mauve": [mauve_corpus()]})
@accept_cli_values("-S")
def mauve(
    mauve_model: str = MAUVE_MODEL,
    mauve_seeds: int = 1,
    max_text_length: int = MAUVE_MAX_TEXT_LENGTH,
    batch_size: int = MAUVE_BATCH_SIZE,
    device: str | None = None,
) -> Scorer:
    """ALCE fluency: MAUVE between reference answers and outputs (x100), as eval.py.

    Both sides are ``question + " " + text`` cut to 100 words without trailing punctuation;
    the reference is ``metadata["answer"]`` (the target when absent), the output its
    citation-free first line. Features come from ``mauve_model``'s last hidden state, batched
    across concurrently scored samples; the divergence is computed once over the run.

    Args:
        mauve_model: Featurizing model, a Hugging Face id or local directory (ALCE: gpt2-large).
        mauve_seeds: Number of k-means seeds (25, 26, ...); 1 is ALCE's single run, more report
            mean, std, min and max (MAUVE varies by seed at ALCE's 1,000 items).
        max_text_length: Tokens kept per text (ALCE: 512).
        batch_size: Most texts per forward pass of the featurizer (ALCE: 8).
        device: Torch device for the featurizer; default CUDA when available.

    """
    seeds_count = len(seed_list(mauve_seeds))  # validates the argument before the run

    def featurize(texts: list[str]) -> list[np.ndarray]:
        featurizer = get_featurizer(mauve_model, device)
        tokens = [featurizer.tokenize(t, max_text_length) for t in texts]
        return list(featurizer.featurize_tokens(tokens))

    queue: BatchQueue[str, np.ndarray] = BatchQueue(featurize, max_batch=batch_size)

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        question = metadata.get("question")
        if not isinstance(question, str):
            raise ValueError(f'sample {state.sample_id}: MAUVE needs metadata["question"]')
        reference = metadata.get("answer")
        if not isinstance(reference, str):
            reference = target.text
        if unscored := no_answer_score(state, ["mauve"], {"mauve_seeds": seeds_count}):
            return unscored  # no features: the sample stays out of the corpus MAUVE
        output = alce_answer_text(state.output.completion if state.output else "")
        p_text, q_text = mauve_text(question, reference), mauve_text(question, output)
        texts = [t for t in (p_text, q_text) if t]
        feats = iter(await queue.submit(texts))
        encoded: dict[str, Any] = {"model": mauve_model}
        for side, text in (("p", p_text), ("q", q_text)):
            encoded[side] = encode_features(next(feats)) if text else None
        return Score(
            value={"mauve": 1.0},
            answer=output,
            explanation=_explanation(p_text, q_text, mauve_model, seeds_count),
            metadata={FEATURES_KEY: encoded, "mauve_seeds": seeds_count},
        )

    return score
