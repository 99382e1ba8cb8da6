"""Collects concurrent NLI requests into batches for a model that runs off the event loop.

Inspect scores samples concurrently and each scorer awaits its own ``entail`` call; a heavy
model is far faster on one batch than on many single pairs. ``BatchQueue.submit`` parks the
caller's pairs; the first caller to arrive while no batch is being run becomes the *leader*:
it waits ``max_wait`` seconds for others to join, then runs batches of up to ``max_batch``
pairs in a worker thread until the queue is empty, handing each caller its slice of the
results. No background task is needed, so it works under any event loop anyio supports, and a
process-wide queue survives the one-loop-per-``eval`` lifecycle of Inspect.
"""

import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import anyio
import anyio.to_thread

from inspect_cite.nli.base import NLIResult, Pair

BatchFn = Callable[[list[Pair]], list[NLIResult | Exception]]
"""Decides a batch of distinct pairs; a per-pair failure is returned as an exception."""


@dataclass(eq=False)
class _Request:
    pairs: list[Pair]
    event: anyio.Event = field(default_factory=anyio.Event)
    results: list[NLIResult | Exception] | None = None
    error: BaseException | None = None
    promoted: bool = False

    @property
    def done(self) -> bool:
        return self.results is not None or self.error is not None


class BatchQueue:
    """Batches concurrent ``submit`` calls into calls of a synchronous batch function.

    Args:
        fn: Decides a list of distinct pairs (called in a worker thread, one call at a time).
        max_batch: Most pairs per call of ``fn`` (a single larger request is not split).
        max_wait: Seconds the leader waits for more requests before the first batch.

    """

    def __init__(self, fn: BatchFn, max_batch: int = 64, max_wait: float = 0.02) -> None:
        self.fn = fn
        self.max_batch = max_batch
        self.max_wait = max_wait
        self._pending: deque[_Request] = deque()
        self._leading = False
        # The model is used by one thread at a time even if two event loops share this queue.
        self._fn_lock = threading.Lock()
        self.batch_sizes: list[int] = []
        """Number of distinct pairs in each call of ``fn`` (for tests and benchmarks)."""

    async def submit(self, pairs: Sequence[Pair]) -> list[NLIResult | Exception]:
        """Decide ``pairs`` as part of whatever batch forms around them.

        Returns:
            One result per pair; a pair that ``fn`` could not decide has its exception.

        Raises:
            Exception: Whatever ``fn`` raised for the whole batch (e.g. a model that
                cannot be loaded).

        """
        if not pairs:
            return []
        req = _Request(list(pairs))
        self._pending.append(req)
        if not self._leading:
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

    async def _lead(self, own: _Request) -> None:
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
            if self._pending:
                nxt = self._pending[0]
                nxt.promoted = True
                nxt.event.set()

    def _take(self) -> list[_Request]:
        batch = [self._pending.popleft()]
        size = len(batch[0].pairs)
        while self._pending and size + len(self._pending[0].pairs) <= self.max_batch:
            req = self._pending.popleft()
            batch.append(req)
            size += len(req.pairs)
        return batch

    async def _run(self, batch: list[_Request]) -> None:
        flat = [p for r in batch for p in r.pairs]
        try:
            results = await anyio.to_thread.run_sync(self._call, flat)
        except Exception as e:
            for r in batch:
                r.error = e
                r.event.set()
            return
        start = 0
        for r in batch:
            r.results = results[start : start + len(r.pairs)]
            start += len(r.pairs)
            r.event.set()

    def _call(self, flat: list[Pair]) -> list[NLIResult | Exception]:
        unique = list(dict.fromkeys(flat))
        with self._fn_lock:
            out = self.fn(unique)
        if len(out) != len(unique):
            raise RuntimeError(f"NLI batch function returned {len(out)} results for {len(unique)}")
        self.batch_sizes.append(len(unique))
        by_pair = dict(zip(unique, out, strict=True))
        return [by_pair[p] for p in flat]
