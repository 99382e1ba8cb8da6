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


# Rows and padded tokens per forward pass when neither the caller nor the environment says.
# On CPU a batch buys only fewer calls (for a seq2seq judge: one short greedy decode per batch
# instead of one per pair): its encoder pass costs what its rows cost one by one, and more once
# its activations outgrow the caches (each pass then also allocates fresh pages: system time).
# Measured on a t5-small-sized TRUE-format T5 on 2 cores, 152 distinct ALCE pairs of 200-760
# tokens (bench/README.md, "alce-eval vs eval.py", --nli-alone): 1,024 tokens within 95% of
# the longest row 12.2 s, one pair at a time 13.2 s, 65,536 tokens within 80% 17.8 s.
# On a GPU each pass has fixed costs that leave the device idle or underused (decoder steps of
# a handful of tokens, kernel launches, host syncs, ~20-30 ms a pass for T5-11B): a pass of 32k
# tokens (~0.3 PFLOP of T5-11B encoder, about a second on an H200) keeps them to a few percent.
# Rows are then limited by tokens, and tokens by the memory a pass needs
# (``LazyModel.bytes_per_token``).
CPU_BATCH = (32, 1024)
GPU_BATCH = (512, 32768)

GPU_MEMORY_SHARE = 0.5
"""Share of the GPU memory left free by the weights that one pass may plan to use (the rest
is headroom for attention scores, which grow with the square of the length, and fragments)."""


def gpu_token_budget(model: Any, bytes_per_token: int) -> int:
    """Most input tokens a pass can hold in the free memory of ``model``'s GPU."""
    import torch

    device = model.device
    free = torch.cuda.mem_get_info(device)[0]
    # Blocks torch's allocator holds but no tensor uses are free for the next pass too.
    free += torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)
    return max(1, int(free * GPU_MEMORY_SHARE) // bytes_per_token)


def default_batch_size(fallback: int | None = None) -> int | None:
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

    Args:
        model: Hub id or local directory.
        batch_size: Most pairs per forward pass (None: ``$INSPECT_CITE_NLI_BATCH_SIZE``, else
            ``CPU_BATCH``, or ``GPU_BATCH`` once the model is loaded on a GPU).
        max_batch_tokens: Most padded tokens per forward pass (None: ``CPU_BATCH``, or
            ``GPU_BATCH`` on a GPU but no more than its free memory holds, see
            ``bytes_per_token``).

    """

    queue_batch = 512
    """Most pairs the batching queue hands over per call: enough for several full GPU passes
    bucketed by length, so the queue's hand-offs are rare against the model's work."""

    def __init__(
        self, model: str, *, batch_size: int | None = None, max_batch_tokens: int | None = None
    ) -> None:
        batch_size = batch_size or default_batch_size()
        self.model_name = model_ref(model)
        self._model: Any = None
        self._tokenizer: Any = None
        self._load_error: Exception | None = None
        self._lock = threading.Lock()
        self._given = (batch_size, max_batch_tokens)
        self.batch_size = batch_size or CPU_BATCH[0]
        self.max_batch_tokens = max_batch_tokens or CPU_BATCH[1]
        self.min_length_ratio = CPU_MIN_LENGTH_RATIO
        """A row joins a batch only if it is at least this share of the batch's longest row."""

    def shrink_batch(self, size: int) -> None:
        """After an out-of-memory, later batches start at the size that fit."""
        self.batch_size = max(1, min(self.batch_size, size))

    def batch_limits(self) -> tuple[int, int]:
        """(rows, padded tokens) per forward pass, for the device the model is loaded on."""
        self.load()
        return self.batch_size, self.max_batch_tokens

    def run_batched(self, lengths: list[int], forward: Callable[[list[int]], None]) -> None:
        """Call ``forward`` on every row index, in batches of similar length.

        Batches respect :meth:`batch_limits`; one that runs out of GPU memory is halved and
        later batches start at the size that fit (:func:`run_halving`).

        Args:
            lengths: Each row's length in tokens.
            forward: Runs the model on a batch of row indices and stores their results.

        """
        rows, tokens = self.batch_limits()
        for batch in chunks_by_length(lengths, rows, tokens, self.min_length_ratio):
            run_halving(batch, forward, self.shrink_batch)

    def bytes_per_token(self, model: Any) -> int:
        """GPU memory a pass holds per input token beyond transient activations (0: unknown)."""
        return 0

    def preload(self, *, tokenizer: Any, model: Any) -> None:
        """Use an already built tokenizer and model instead of loading ``model_name``.

        For benchmarks that build a model with random weights in place (no checkpoint).
        """
        with self._lock:
            self._tokenizer, self._model = tokenizer, model.eval()
            self._size_batches(model)

    def _size_batches(self, model: Any) -> None:
        """Batch limits the caller left open, for the device the model was loaded on."""
        if model.device.type != "cuda":
            return
        self.min_length_ratio = MIN_LENGTH_RATIO
        rows, tokens = GPU_BATCH
        if self._given[0] is None:
            self.batch_size = rows
        if self._given[1] is None:
            per_token = self.bytes_per_token(model)
            self.max_batch_tokens = (
                min(tokens, gpu_token_budget(model, per_token)) if per_token else tokens
            )

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
                self._size_batches(self._model)
            return self._tokenizer, self._model


# A row joins the current batch only if it is at least this fraction of the batch's longest
# row: padded rows pay for attention over the padded length, so mixing a 100-token row into a
# 600-token batch costs more than it saves (measured on the TRUE-format T5 on CPU: ms/pair 5.9
# unbucketed, 4.7 at 0.8). On a GPU, where a pass must be large to keep the device busy, 0.8;
# on CPU, where the encoder gains nothing from batching (see CPU_BATCH), 0.95.
MIN_LENGTH_RATIO = 0.8
CPU_MIN_LENGTH_RATIO = 0.95


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
