"""The backend every spec resolves to: a decision procedure behind a memory and disk cache."""

from collections.abc import Awaitable, Callable, Sequence

from inspect_cite.nli.base import NLIError, NLIResult, Pair
from inspect_cite.nli.batching import BatchQueue
from inspect_cite.nli.cache import DiskCache

Infer = Callable[[list[Pair]], Awaitable[list[NLIResult | Exception]]]
"""Decides a list of distinct pairs; a pair it could not decide gets its exception."""


class CachedNLI:
    """An ``NLIBackend``: answers from its caches, sends the rest to ``infer`` once per pair.

    Args:
        identity: Names the decision procedure (the cache key's first part); a callable is
            evaluated at each call (an Inspect model role resolves only inside an eval).
        infer: Decides a list of distinct pairs.
        disk: An on-disk cache shared across processes and runs, or None.
        queue: The batching queue behind ``infer``, if any (its statistics are public).

    """

    def __init__(
        self,
        identity: str | Callable[[], str],
        infer: Infer,
        disk: DiskCache | None = None,
        queue: BatchQueue | None = None,
    ) -> None:
        self._identity = identity
        self.queue = queue
        self._infer = infer
        self.disk = disk
        self._memory: dict[tuple[str, Pair], NLIResult] = {}
        self.model_pairs = 0
        """How many pairs were sent to the model (cache misses)."""

    @property
    def identity(self) -> str:
        """The identity of the decision procedure."""
        return self._identity() if callable(self._identity) else self._identity

    async def entail(self, pairs: Sequence[Pair]) -> list[NLIResult]:
        """Decide each (premise, hypothesis) pair, from the caches where possible.

        Raises:
            NLIError: When a pair could not be decided (decided pairs are still cached).

        """
        identity = self.identity
        known: dict[Pair, NLIResult] = {}
        missing: list[Pair] = []
        for pair in dict.fromkeys(pairs):
            hit = self._memory.get((identity, pair))
            if hit is None:
                missing.append(pair)
            else:
                known[pair] = hit
        if missing and self.disk is not None:
            found = self.disk.get_many(identity, missing)
            known.update(found)
            for pair, cached in found.items():
                self._memory[(identity, pair)] = cached
            missing = [p for p in missing if p not in found]
        if missing:
            self.model_pairs += len(missing)
            results = await self._infer(missing)
            new: dict[Pair, NLIResult] = {}
            error: Exception | None = None
            for pair, result in zip(missing, results, strict=True):
                if isinstance(result, Exception):
                    error = error or result
                else:
                    new[pair] = result
                    self._memory[(identity, pair)] = result
            known.update(new)
            if self.disk is not None and new:
                self.disk.put_many(identity, new)
            if error is not None:
                if isinstance(error, NLIError):
                    raise error
                raise NLIError(f"{identity}: {type(error).__name__}: {error}") from error
        return [known[p] for p in pairs]
