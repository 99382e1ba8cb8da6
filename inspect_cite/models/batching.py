"""Batches per-sample model calls made by concurrent Inspect samples.

Inspect has no batch-scorer API: each sample's scorer awaits its own call, while a model (an
NLI model, MAUVE's featurizer, a sentence encoder) is far faster on one padded batch than on
many single inputs. ``BatchQueue.submit`` parks the caller's items; the first caller to arrive
while no batch is being run becomes the *leader*: it waits ``max_wait`` seconds for others to
join, then runs batches of up to ``max_batch`` distinct items in a worker thread until the
queue is empty, handing each caller its results. No background task is needed, so it works
under any event loop anyio supports, and a process-wide queue survives the
one-loop-per-``eval`` lifecycle of Inspect. Used by the NLI backends, MAUVE and
``citation_similarity``.
"""

import threading
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T", bound=Hashable)
R = TypeVar("R")


@dataclass(eq=False)
class _Request(Generic[T, R]):
    items: list[T]
    event: anyio.Event = field(default_factory=anyio.Event)
    results: list[R] | None = None
    error: BaseException | None = None
    promoted: bool = False

    @property
    def done(self) -> bool:
        return self.results is not None or self.error is not None


class BatchQueue(Generic[T, R]):
    """Batches concurrent ``submit`` calls into calls of a synchronous batch function.

    Args:
        fn: Maps a list of distinct items to one result per item (called in a worker thread,
            one call at a time). A per-item failure may be returned as a result; an exception
            it raises fails every caller in that batch.
        max_batch: Most items per call of ``fn``; a larger submission is split.
        max_wait: Seconds the leader waits for more requests before the first batch (0: just
            let callers that are ready at the same moment join).

    """

    def __init__(
        self, fn: Callable[[list[T]], Sequence[R]], max_batch: int = 64, max_wait: float = 0.0
    ) -> None:
        if max_batch < 1:
            raise ValueError(f"max_batch must be >= 1, got {max_batch}")
        self.fn = fn
        self.max_batch = max_batch
        self.max_wait = max_wait
        self._pending: deque[_Request[T, R]] = deque()
        self._leading = False
        # The model is used by one thread at a time even if two event loops share this queue.
        self._fn_lock = threading.Lock()
        self.batch_sizes: list[int] = []
        """Number of distinct items in each call of ``fn`` (for tests and benchmarks)."""

    async def submit(self, items: Sequence[T]) -> list[R]:
        """Results of ``fn`` for ``items`` (in order), computed in batches shared with others.

        Raises:
            Exception: Whatever ``fn`` raised for a batch holding some of ``items``.

        """
        if not items:
            return []
        chunks = [list(items[i : i + self.max_batch]) for i in range(0, len(items), self.max_batch)]
        requests = [_Request[T, R](chunk) for chunk in chunks]
        self._pending.extend(requests)
        results: list[R] = []
        try:
            for req in requests:
                results += await self._wait_for(req)
        except BaseException:
            # Cancelled (or failed): withdraw this caller's other chunks, and if nobody leads
            # now, wake the next waiter to lead, since a promotion may have gone to a chunk
            # of ours that nobody waits on any more.
            for req in requests:
                if not req.done and req in self._pending:
                    self._pending.remove(req)
            if not self._leading:
                self._promote_next()
            raise
        return results

    async def _wait_for(self, req: _Request[T, R]) -> list[R]:
        if not self._leading and not req.done:
            await self._lead(req)
        while not req.done:
            await req.event.wait()
            if not req.done and req.promoted:
                # The previous leader was cancelled with work left over: take over.
                req.promoted = False
                req.event = anyio.Event()
                await self._lead(req)
        if req.error is not None:
            raise req.error
        assert req.results is not None
        return req.results

    async def _lead(self, own: _Request[T, R]) -> None:
        self._leading = True
        try:
            await anyio.sleep(self.max_wait)
            while self._pending:
                batch = self._take()
                try:
                    await self._run(batch)
                except BaseException:
                    # Cancelled while the thread ran (its results are lost): requeue.
                    self._pending.extendleft(r for r in reversed(batch) if not r.done)
                    raise
        finally:
            self._leading = False
            if not own.done and own in self._pending:
                self._pending.remove(own)
            self._promote_next()

    def _promote_next(self) -> None:
        if self._pending:
            nxt = self._pending[0]
            nxt.promoted = True
            nxt.event.set()

    def _take(self) -> list[_Request[T, R]]:
        batch = [self._pending.popleft()]
        size = len(batch[0].items)
        while self._pending and size + len(self._pending[0].items) <= self.max_batch:
            req = self._pending.popleft()
            batch.append(req)
            size += len(req.items)
        return batch

    async def _run(self, batch: list[_Request[T, R]]) -> None:
        flat = [item for r in batch for item in r.items]
        try:
            # Cancellable: a sample's time or working limit (Inspect cancels its task) ends the
            # wait at once even when the model call hangs; the thread finishes on its own, its
            # results are dropped and the batch is requeued for the callers still waiting.
            results = await anyio.to_thread.run_sync(self._call, flat, abandon_on_cancel=True)
        except Exception as e:
            for r in batch:
                r.error = e
                r.event.set()
            return
        start = 0
        for r in batch:
            r.results = results[start : start + len(r.items)]
            start += len(r.items)
            r.event.set()

    def _call(self, flat: list[T]) -> list[R]:
        unique = list(dict.fromkeys(flat))
        with self._fn_lock:
            out = list(self.fn(unique))
        if len(out) != len(unique):
            raise RuntimeError(f"batch function returned {len(out)} results for {len(unique)}")
        self.batch_sizes.append(len(unique))
        by_item = dict(zip(unique, out, strict=True))
        return [by_item[item] for item in flat]
