"""Batches per-sample model calls made by concurrent Inspect samples.

Inspect has no batch-scorer API: each sample's scorer awaits its own call, while a model
(MAUVE's featurizer, an encoder) is much faster on one padded batch than on many single
inputs. ``BatchQueue.run`` parks a caller's items in a shared FIFO; whichever caller holds
the lock runs the oldest ``batch_size`` items in a worker thread and hands every caller its
results. Items that arrive while a batch runs form the next batch, so batching needs no timer
and no background task, and works under any event loop anyio supports.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import anyio
import anyio.lowlevel
import anyio.to_thread

T = TypeVar("T")
R = TypeVar("R")


@dataclass(eq=False)
class _Slot(Generic[T, R]):
    item: T
    done: bool = False
    result: R | None = None
    error: BaseException | None = None


class BatchQueue(Generic[T, R]):
    """Runs ``fn`` on batches of items collected from concurrent callers.

    Args:
        fn: Maps a list of items to a list of results of the same length; it runs in a
            worker thread, one call at a time per queue.
        batch_size: Most items per call of ``fn``.

    """

    def __init__(self, fn: Callable[[list[T]], Sequence[R]], batch_size: int) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self._fn = fn
        self._batch_size = batch_size
        self._pending: list[_Slot[T, R]] = []
        # One lock per event loop: Inspect runs each eval() in a fresh loop.
        self._lock: anyio.Lock | None = None
        self._loop: object = None

    def _current_lock(self) -> anyio.Lock:
        token = anyio.lowlevel.current_token()
        if self._lock is None or self._loop is not token:
            self._lock, self._loop = anyio.Lock(), token
            self._pending = [slot for slot in self._pending if not slot.done]
        return self._lock

    async def run(self, items: Sequence[T]) -> list[R]:
        """Results of ``fn`` for ``items``, computed in batches shared with other callers.

        Raises:
            BaseException: Whatever ``fn`` raised for the batch holding one of ``items``.

        """
        slots: list[_Slot[T, R]] = [_Slot(item) for item in items]
        self._pending.extend(slots)
        lock = self._current_lock()
        # Let samples that finished generating at the same moment join this batch.
        await anyio.lowlevel.checkpoint()
        while not all(slot.done for slot in slots):
            async with lock:
                if all(slot.done for slot in slots):
                    break
                batch = self._pending[: self._batch_size]
                del self._pending[: self._batch_size]
                try:
                    results = await anyio.to_thread.run_sync(
                        self._fn, [slot.item for slot in batch]
                    )
                    if len(results) != len(batch):
                        raise RuntimeError(
                            f"batch function returned {len(results)} results for {len(batch)}"
                        )
                    for slot, result in zip(batch, results, strict=True):
                        slot.result, slot.done = result, True
                except Exception as e:
                    for slot in batch:
                        slot.error, slot.done = e, True
        for slot in slots:
            if slot.error is not None:
                raise slot.error
        return [slot.result for slot in slots]  # type: ignore[misc]
