"""Helpers shared by the transformers backends: device choice and loading errors."""

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_cite.nli.base import NLIConfigError

logger = logging.getLogger(__name__)

BATCH_SIZE_ENV = "INSPECT_CITE_NLI_BATCH_SIZE"


def default_batch_size(fallback: int) -> int:
    """``$INSPECT_CITE_NLI_BATCH_SIZE`` if set (1 reproduces eval.py's unbatched calls)."""
    value = os.environ.get(BATCH_SIZE_ENV)
    if not value:
        return fallback
    try:
        size = int(value)
    except ValueError:
        size = 0
    if size < 1:
        raise NLIConfigError(f"{BATCH_SIZE_ENV}={value!r}: must be a positive integer")
    return size


def model_ref(name_or_path: str) -> str:
    """A hub id as given, or a local directory made absolute (a stable cache identity)."""
    path = Path(name_or_path).expanduser()
    return str(path.resolve()) if path.exists() else name_or_path


def cuda_available() -> bool:
    """Whether torch sees a CUDA GPU."""
    import torch

    return bool(torch.cuda.is_available())


def load_pretrained(loader: Any, name: str, **kwargs: Any) -> Any:
    """``loader.from_pretrained(name)`` with an error that names the spec at fault."""
    try:
        return loader.from_pretrained(name, **kwargs)
    except (OSError, ValueError) as e:
        raise NLIConfigError(
            f"cannot load NLI model {name!r} ({type(e).__name__}: {e}). Give a local directory "
            "or a Hugging Face hub id that is downloaded or reachable."
        ) from e


class LazyModel:
    """A transformers model and tokenizer, loaded once on first use.

    A loading failure is remembered and raised again at once, not retried for every batch.
    """

    def __init__(self, model: str) -> None:
        self.model_name = model_ref(model)
        self._model: Any = None
        self._tokenizer: Any = None
        self._load_error: Exception | None = None
        self._lock = threading.Lock()
        self.batch_size = 32

    def shrink_batch(self, size: int) -> None:
        """After an out-of-memory, later batches start at the size that fit."""
        self.batch_size = max(1, min(self.batch_size, size))

    def _load(self) -> tuple[Any, Any]:
        """Return (tokenizer, model); subclasses load here."""
        raise NotImplementedError

    def load(self) -> tuple[Any, Any]:
        """The (tokenizer, model), loading them on the first call."""
        with self._lock:
            if self._model is None:
                if self._load_error is not None:
                    raise self._load_error
                try:
                    self._tokenizer, self._model = self._load()
                except Exception as e:
                    self._load_error = e
                    raise
                self._model.eval()
            return self._tokenizer, self._model


# A row joins the current batch only if it is at least this fraction of the batch's longest
# row: padded rows pay for attention over the padded length, so on CPU, where a batch buys
# little beyond fewer calls, mixing a 100-token row into a 600-token batch costs more than
# it saves (measured on the TRUE-format T5: ms/pair 5.9 unbucketed, 4.7 at 0.8).
MIN_LENGTH_RATIO = 0.8


def chunks_by_length(
    lengths: list[int], max_batch: int, max_tokens: int, min_ratio: float = MIN_LENGTH_RATIO
) -> list[list[int]]:
    """Indices grouped into batches of similar length (less padding), longest first.

    A batch holds at most ``max_batch`` rows, padded at most ``max_tokens`` tokens (a single
    longer row still gets its own batch), and no row shorter than ``min_ratio`` times its
    longest row.
    """
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        width = lengths[current[0]] if current else lengths[i]
        if current and (
            len(current) >= max_batch
            or width * (len(current) + 1) > max_tokens
            or lengths[i] < min_ratio * width
        ):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def is_out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is an accelerator out-of-memory (torch's class or its message)."""
    if type(error).__name__ == "OutOfMemoryError":
        return True
    return isinstance(error, RuntimeError) and "out of memory" in str(error).lower()


def run_halving(
    batch: list[int], forward: Callable[[list[int]], None], shrink: Callable[[int], None]
) -> None:
    """Run ``forward`` on ``batch``; on out-of-memory, run each half instead (recursively).

    ``shrink`` is told the halved size so later batches start smaller. A single row that
    still runs out of memory re-raises (the sample is then reported with the reason).
    """
    try:
        forward(batch)
    except Exception as e:
        if not is_out_of_memory(e) or len(batch) == 1:
            raise
        logger.warning(
            "NLI batch of %d ran out of memory; retrying in halves of %d",
            len(batch),
            len(batch) // 2,
        )
        _free_accelerator_memory()
        half = len(batch) // 2
        shrink(half)
        run_halving(batch[:half], forward, shrink)
        run_halving(batch[half:], forward, shrink)


def _free_accelerator_memory() -> None:
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except Exception:  # freeing is best effort: the halved batch is tried regardless
        pass
