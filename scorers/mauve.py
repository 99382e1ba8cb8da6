"""ALCE fluency (MAUVE) as an Inspect scorer: features per sample, divergence once per run.

Each sample's scorer featurizes its two texts (ALCE's reference side and model side) on a
shared, batching featurizer while the eval runs, and keeps the features in
``Score.metadata``; the ``mauve_corpus`` metric compares all references with all outputs
once, with ``mauve.compute_mauve(p_features=..., q_features=...)``.

The definition (MAUVE between reference answers and model outputs, as ALCE's eval.py):
ALCE's ``compute_mauve`` puts ``question + " " + text`` through: whitespace collapsed, the
first 100 words kept, trailing ASCII punctuation stripped; the reference side is the item's
``answer``, the model side its citation-free first-line output. ``mauve.compute_mauve`` then
featurizes both sides with ``gpt2-large`` (512 tokens, batches of 8) and compares them with
mauve-text's defaults (k-means seed 25, scaling factor 5, buckets = n/10); the score is x100.

Featurization here reproduces mauve-text's ``featurize_tokens_from_model`` (tokenizer
``encode`` with truncation, right padding with id 0, the final layer's hidden state at each
text's last token) for any causal LM, so features can be computed per sample while an eval
runs and the divergence once over the run (``mauve_from_features``). ``compute_alce_mauve``
is the same computation over eval.py-style items, for a command-line scorer.
"""

import base64
import logging
import math
import string
import threading
from collections.abc import Sequence
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

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.citations.alce import alce_answer_text
from inspect_cite.generation.thinking import think_opened_by_prompt
from inspect_cite.models.batching import BatchQueue
from inspect_cite.models.shared import shared_instance
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import code, literal
from scorers._no_answer import no_answer_score, unscored_score

MAUVE_MODEL = "gpt2-large"
MAUVE_MAX_WORDS = 100
MAUVE_MAX_TEXT_LENGTH = 512
MAUVE_BATCH_SIZE = 8
# mauve-text's default k-means seed; further seeds count up from it.
MAUVE_SEED = 25


def mauve_text(question: str, text: str) -> str:
    """One side of ALCE's MAUVE input: question and text, 100 words, no trailing punctuation."""
    words = (question + " " + text.strip()).split()
    return " ".join(words[:MAUVE_MAX_WORDS]).rstrip(string.punctuation)


def kmeans_seeds(n: int) -> list[int]:
    """The k-means seeds used for ``n`` MAUVE runs: 25 (ALCE's), 26, ..."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    return [MAUVE_SEED + i for i in range(n)]


def _default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class Featurizer:
    """A language model's final hidden state at the last token, as mauve-text featurizes.

    Args:
        model_name: A Hugging Face model id or local directory (any model ``AutoModel`` loads;
            ALCE uses ``gpt2-large``).
        device: Torch device; ``None`` picks CUDA when available.

    """

    def __init__(self, model_name: str, device: str | None = None) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.model_name = model_name
        self.device = device or _default_device()
        self.tokenizer = AutoTokenizer.from_pretrained(model_name)
        # mauve-text loads the base model with the EOS token as padding id.
        self.model = AutoModel.from_pretrained(
            model_name, pad_token_id=self.tokenizer.eos_token_id
        ).to(self.device)
        self.model.eval()
        self._lock = threading.Lock()

    def tokenize(self, text: str, max_text_length: int) -> list[int]:
        """Token ids as mauve-text's ``TOKENIZER.encode(..., truncation=True, max_length=...)``."""
        return list(self.tokenizer.encode(text, truncation=True, max_length=max_text_length))

    def featurize_tokens(self, batch: Sequence[Sequence[int]]) -> np.ndarray:
        """Features of one batch of token id lists, shape ``(len(batch), hidden size)``."""
        import torch

        lengths = [len(ids) for ids in batch]
        if min(lengths, default=1) == 0:
            raise ValueError("cannot featurize an empty token sequence")
        chunk = [torch.tensor(ids, dtype=torch.long) for ids in batch]
        with self._lock, torch.no_grad():
            padded = torch.nn.utils.rnn.pad_sequence(chunk, batch_first=True, padding_value=0)
            mask = torch.nn.utils.rnn.pad_sequence(
                [torch.ones(n).long() for n in lengths], batch_first=True, padding_value=0
            )
            outs = self.model(
                input_ids=padded.to(self.device),
                attention_mask=mask.to(self.device),
                output_hidden_states=True,
                return_dict=True,
            )
            last = outs.hidden_states[-1]
            feats = torch.stack([last[i, n - 1] for i, n in enumerate(lengths)], dim=0)
            return feats.cpu().numpy()

    def featurize(
        self,
        texts: Sequence[str],
        max_text_length: int = MAUVE_MAX_TEXT_LENGTH,
        batch_size: int = MAUVE_BATCH_SIZE,
    ) -> np.ndarray:
        """Features of ``texts`` in consecutive batches, as ``mauve.compute_mauve(p_text=...)``."""
        tokens = [self.tokenize(t, max_text_length) for t in texts]
        parts = [
            self.featurize_tokens(tokens[i : i + batch_size])
            for i in range(0, len(tokens), batch_size)
        ]
        return np.concatenate(parts, axis=0)


def get_featurizer(model_name: str = MAUVE_MODEL, device: str | None = None) -> Featurizer:
    """The process-wide featurizer for a model and device (loaded on first use)."""
    device = device or _default_device()
    return shared_instance(("mauve", model_name, device), lambda: Featurizer(model_name, device))


def encode_features(vector: np.ndarray) -> str:
    """A feature vector as base64 float32 (compact enough to keep in a log's score)."""
    return base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode("ascii")


def decode_features(data: str) -> np.ndarray:
    """Inverse of ``encode_features``."""
    return np.frombuffer(base64.b64decode(data), dtype=np.float32).copy()


def mauve_from_features(
    p_features: np.ndarray, q_features: np.ndarray, seed: int = MAUVE_SEED
) -> float:
    """``mauve.compute_mauve(p_features=..., q_features=..., seed=seed).mauve`` x100.

    Everything else is mauve-text's default, as in ALCE (which only sets the featurizer
    options): buckets n/10, scaling factor 5, PCA to 90% variance, 5 k-means restarts.
    """
    import mauve

    out = mauve.compute_mauve(p_features=p_features, q_features=q_features, seed=seed)
    return 100 * float(out.mauve)


def mauve_spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, sample standard deviation, min and max of MAUVE over seeds."""
    arr = np.asarray(values, dtype=float)
    return {
        "mean": float(arr.mean()),
        "std": float(arr.std(ddof=1)) if len(arr) > 1 else math.nan,
        "min": float(arr.min()),
        "max": float(arr.max()),
    }


def alce_mauve_texts(
    items: Sequence[dict[str, Any]], *, prompt_opened: bool | None = None
) -> tuple[list[str], list[str]]:
    """Reference and model texts of eval.py-style items (``question``, ``answer``, ``output``).

    ``output`` is the generation as run.py saved it; it is cut to its first line and its
    citations removed, as eval.py does (after :func:`inspect_cite.text.think.split_think` with
    ``prompt_opened``). Empty texts are dropped, as mauve-text drops them.
    """
    p_text, q_text = [], []
    for i, item in enumerate(items):
        for key in ("question", "answer", "output"):
            if not isinstance(item.get(key), str):
                raise ValueError(f'item {i}: MAUVE needs a string field "{key}"')
        p_text.append(mauve_text(item["question"], item["answer"]))
        q_text.append(
            mauve_text(
                item["question"], alce_answer_text(item["output"], prompt_opened=prompt_opened)
            )
        )
    return [t for t in p_text if t], [t for t in q_text if t]


def compute_alce_mauve(
    items: Sequence[dict[str, Any]],
    model: str = MAUVE_MODEL,
    max_text_length: int = MAUVE_MAX_TEXT_LENGTH,
    batch_size: int = MAUVE_BATCH_SIZE,
    seed: int = MAUVE_SEED,
    device: str | None = None,
    *,
    prompt_opened: bool | None = None,
) -> float:
    """eval.py's ``compute_mauve`` on ALCE items: MAUVE x100 of references vs outputs.

    Args:
        items: Dicts with ``question``, ``answer`` (the reference) and ``output``.
        model: The featurizing model (``gpt2-large`` in ALCE; any causal LM id or directory).
        max_text_length: Tokens kept per text.
        batch_size: Texts per forward pass.
        seed: k-means seed (25 is ALCE's).
        device: Torch device for the featurizer; ``None`` picks CUDA when available.
        prompt_opened: :func:`inspect_cite.text.think.split_think`'s for every output (False:
            answers, no reasoning; None infers it).

    """
    p_text, q_text = alce_mauve_texts(items, prompt_opened=prompt_opened)
    if not p_text or not q_text:
        raise ValueError("MAUVE needs at least one non-empty reference and output text")
    featurizer = get_featurizer(model, device)
    p = featurizer.featurize(p_text, max_text_length, batch_size)
    q = featurizer.featurize(q_text, max_text_length, batch_size)
    return mauve_from_features(p, q, seed=seed)


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
            for seed in kmeans_seeds(n_seeds):
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
        f"({code(model)}, last hidden state at the last token); the value 1 marks a featurized "
        f"sample and the run's MAUVE is the `mauve_corpus` metric ({n_seeds} seed(s)).\n\n"
        f"**Reference side:** {literal(p_text) if p_text else '*(empty, skipped)*'}\n\n"
        f"**Model side:** {literal(q_text) if q_text else '*(empty, skipped)*'}"
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
    if isinstance(mauve_seeds, bool) or not isinstance(mauve_seeds, int) or mauve_seeds < 1:
        raise ArgumentError(
            f"mauve_seeds must be a whole number of at least 1, got {mauve_seeds!r}"
        )
    seeds_count = mauve_seeds

    def featurize(texts: list[str]) -> list[np.ndarray]:
        featurizer = get_featurizer(mauve_model, device)
        tokens = [featurizer.tokenize(t, max_text_length) for t in texts]
        return list(featurizer.featurize_tokens(tokens))

    queue: BatchQueue[str, np.ndarray] = BatchQueue(featurize, max_batch=batch_size)

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        question = metadata.get("question")
        reference = metadata.get("answer")
        if not isinstance(reference, str):
            reference = target.text
        if unscored := no_answer_score(state, ["mauve"], {"mauve_seeds": seeds_count}):
            return unscored  # no features: the sample stays out of the corpus MAUVE
        if not isinstance(question, str):
            return unscored_score(  # no features either
                ["mauve"],
                'MAUVE texts are "question answer": metadata["question"] is missing',
                metadata={"mauve_seeds": seeds_count},
            )
        output = alce_answer_text(
            state.output.completion, prompt_opened=think_opened_by_prompt(state.output)
        )
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
