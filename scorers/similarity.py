"""Claim-snippet semantic similarity with a sentence-transformers model.

Each citation with a non-empty claim and snippet gets the cosine similarity of the two
embeddings (raw cosine, -1..1, not x100). Per sample: the mean over those citations
(``similarity``), nan without any. The model is loaded once per process and name; texts
from concurrent samples are encoded together in batches.
"""

import asyncio
import math
import threading
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from scorers.cited_answer import citations_markdown, read_cited_answer

DEFAULT_SIMILARITY_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

_models: dict[str, Any] = {}
_load_lock = threading.Lock()


def load_sentence_model(name_or_path: str) -> Any:
    """A ``SentenceTransformer``, loaded once per process for each name or path."""
    with _load_lock:
        if name_or_path not in _models:
            from sentence_transformers import SentenceTransformer

            _models[name_or_path] = SentenceTransformer(name_or_path)
        return _models[name_or_path]


class EmbeddingBatcher:
    """Collects texts from concurrent callers and embeds them in shared batches.

    The first request waits up to ``max_wait`` seconds for company (or until ``batch_size``
    texts are queued); the batch is encoded in a worker thread, so the event loop keeps
    running.
    """

    def __init__(self, model_name: str, batch_size: int = 64, max_wait: float = 0.02):
        """Create a batcher for the running event loop."""
        self.model_name = model_name
        self.batch_size = batch_size
        self.max_wait = max_wait
        self._pending: list[tuple[list[str], asyncio.Future[Any]]] = []
        self._flush_task: asyncio.Task[None] | None = None
        self._encode_lock: asyncio.Lock | None = None
        self.loop = asyncio.get_running_loop()

    async def embed(self, texts: list[str]) -> Any:
        """Normalised embeddings of ``texts`` (a numpy array, one row per text)."""
        if not texts:
            import numpy as np

            return np.zeros((0, 0))
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((texts, future))
        if sum(len(t) for t, _ in self._pending) >= self.batch_size:
            await self._flush()
        elif self._flush_task is None or self._flush_task.done():
            self._flush_task = asyncio.create_task(self._delayed_flush())
        return await future

    async def _delayed_flush(self) -> None:
        await asyncio.sleep(self.max_wait)
        await self._flush()

    async def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if not batch:
            return
        if self._encode_lock is None:
            self._encode_lock = asyncio.Lock()
        texts = [t for group, _ in batch for t in group]
        try:
            async with self._encode_lock:
                embeddings = await asyncio.to_thread(self._encode, texts)
        except Exception as e:  # every waiting sample gets the error, none hangs
            for _, future in batch:
                if not future.done():
                    future.set_exception(e)
            return
        start = 0
        for group, future in batch:
            if not future.done():
                future.set_result(embeddings[start : start + len(group)])
            start += len(group)

    def _encode(self, texts: list[str]) -> Any:
        model = load_sentence_model(self.model_name)
        return model.encode(
            texts,
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )


_batchers: dict[str, EmbeddingBatcher] = {}


def _batcher(model_name: str) -> EmbeddingBatcher:
    # A batcher's futures and lock belong to one event loop: a new eval gets a new batcher.
    batcher = _batchers.get(model_name)
    if batcher is None or batcher.loop is not asyncio.get_running_loop():
        batcher = _batchers[model_name] = EmbeddingBatcher(model_name)
    return batcher


@scorer(metrics={"*": [mean(), stderr()]})
def citation_similarity(similarity_model: str = DEFAULT_SIMILARITY_MODEL) -> Scorer:
    """Cosine similarity of each claim and its cited snippet (sentence-transformers).

    Values: ``similarity`` (mean cosine over the sample's citations with claim and snippet,
    nan without any) and ``n_scored`` (how many citations were compared).

    Args:
        similarity_model: A sentence-transformers model name on the Hugging Face hub or a
            local directory (``-S similarity_model=``; tasks take ``-T similarity_model=``).

    """

    async def score(state: TaskState, target: Target) -> Score:
        answer = read_cited_answer(state)
        pairs = [(c.index, c.claim, c.snippet) for c in answer.citations if c.claim and c.snippet]
        verdicts: dict[int, str] = {}
        sims: list[float] = []
        if pairs:
            embeddings = await _batcher(similarity_model).embed(
                [p[1] for p in pairs] + [p[2] for p in pairs]
            )
            n = len(pairs)
            for k, (index, _, _) in enumerate(pairs):
                sim = float((embeddings[k] * embeddings[n + k]).sum())
                sims.append(sim)
                verdicts[index] = f"cosine {sim:.3f}"
        for c in answer.citations:
            verdicts.setdefault(c.index, "not compared (empty claim or snippet)")
        value = sum(sims) / len(sims) if sims else math.nan
        shown = "nan (no citation with claim and snippet)" if math.isnan(value) else f"{value:.3f}"
        return Score(
            value={"similarity": value, "n_scored": float(len(sims))},
            answer=answer.text,
            explanation=f"{citations_markdown(answer, verdicts)}\n\n**Mean similarity:** {shown}",
            metadata={"model": similarity_model, "similarities": sims},
        )

    return score
