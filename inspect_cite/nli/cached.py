"""The backend every spec resolves to: a decision procedure behind a memory and disk cache.

A pair the procedure fails to decide (a flaky server, a transient CUDA error) is retried with
exponential backoff before the failure is reported; the scorers then give that sample nan with
the reason, never "not supported". Configuration errors (a missing model, a bad spec) are not
retried.
"""

import os
import threading
from collections.abc import Awaitable, Callable, Sequence

import anyio
import anyio.to_thread

from inspect_cite.models.batching import BatchQueue
from inspect_cite.nli.base import (
    NLIConfigError,
    NLIError,
    NLIResult,
    Pair,
    checked_result,
    number_setting,
)
from inspect_cite.nli.cache import DiskCache
from inspect_cite.nli.fingerprint import FileDigest

Infer = Callable[[list[Pair]], Awaitable[list[NLIResult | Exception]]]
"""Decides a list of distinct pairs; a pair it could not decide gets its exception."""

NLI_RETRIES_ENV = "INSPECT_CITE_NLI_RETRIES"
"""Retries of an undecided pair (default 3, at most ``MAX_RETRIES``)."""
NLI_BACKOFF_ENV = "INSPECT_CITE_NLI_BACKOFF"
"""Seconds before the first retry, doubling at each (default 0.5, at most ``MAX_BACKOFF``)."""

MAX_RETRIES = 20
MAX_BACKOFF = 60.0
"""Longest wait before one retry, in seconds: the doubling stops there."""


class CachedNLI:
    """An ``NLIBackend``: answers from its caches, sends the rest to ``infer`` once per pair.

    Args:
        identity: Names the decision procedure (the cache key's first part); a callable is
            evaluated at each call (an Inspect model role resolves only inside an eval).
        infer: Decides a list of distinct pairs.
        disk: An on-disk cache shared across processes and runs, or None.
        queue: The batching queue behind ``infer``, if any (its statistics are public).
        retries: Retries of a pair that failed, 0 to 20 (None: ``$INSPECT_CITE_NLI_RETRIES``
            or 3).
        backoff: Seconds before the first retry, doubled at each next one up to 60 (None:
            ``$INSPECT_CITE_NLI_BACKOFF`` or 0.5).
        fingerprint: What identifies the model beyond ``identity`` (content digests, a
            revision; see ``inspect_cite.nli.fingerprint``), given a file digest function;
            computed once per identity, on its first disk lookup, and added to the disk
            cache's key. None from it: the model cannot be identified, and its decisions are
            cached in memory only.

    Raises:
        NLIConfigError: For a retry setting that is not a finite number in its range.

    """

    def __init__(
        self,
        identity: str | Callable[[], str],
        infer: Infer,
        disk: DiskCache | None = None,
        queue: BatchQueue[Pair, NLIResult | Exception] | None = None,
        retries: int | None = None,
        backoff: float | None = None,
        fingerprint: Callable[[FileDigest], str | None] | None = None,
    ) -> None:
        self._identity = identity
        self._fingerprint = fingerprint
        # Per identity: a model role resolves to the model each eval binds.
        self._fingerprints: dict[str, str | None] = {}
        self._fingerprint_lock = threading.Lock()
        self.retries = int(
            number_setting(
                NLI_RETRIES_ENV if retries is None else "retries",
                os.environ.get(NLI_RETRIES_ENV) if retries is None else retries,
                3,
                MAX_RETRIES,
                integer=True,
            )
        )
        self.backoff = number_setting(
            NLI_BACKOFF_ENV if backoff is None else "backoff",
            os.environ.get(NLI_BACKOFF_ENV) if backoff is None else backoff,
            0.5,
            MAX_BACKOFF,
            integer=False,
        )
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
        disk_key = None
        if missing and self.disk is not None:
            disk_key = await self._disk_key(identity)
        if missing and self.disk is not None and disk_key is not None:
            found = self.disk.get_many(disk_key, missing)
            known.update(found)
            for pair, cached in found.items():
                self._memory[(identity, pair)] = cached
            missing = [p for p in missing if p not in found]
        if missing:
            self.model_pairs += len(missing)
            new, error = await self._decide(identity, missing, disk_key)
            known.update(new)
            if error is not None:
                # An error that is not retryable ended the pair's tries at once.
                n = self.retries + 1
                tries = f"after {n} attempt{'s' if n > 1 else ''}"
                if not getattr(error, "retryable", True):
                    tries = "not retried"
                if isinstance(error, NLIError):
                    raise NLIError(f"{error} ({tries})") from error
                raise NLIError(f"{identity}: {type(error).__name__}: {error} ({tries})") from error
        return [known[p] for p in pairs]

    async def _disk_key(self, identity: str) -> str | None:
        """The disk cache's identity: ``identity`` plus the model's fingerprint.

        None when the model cannot be identified: its decisions are not stored on disk.
        """
        if self._fingerprint is None:
            return identity
        if identity not in self._fingerprints:
            # Hashing model files reads from disk: not in the event loop.
            await anyio.to_thread.run_sync(
                self._compute_fingerprint, identity, abandon_on_cancel=True
            )
        fingerprint = self._fingerprints[identity]
        return None if fingerprint is None else f"{identity}@{fingerprint}"

    def _compute_fingerprint(self, identity: str) -> None:
        assert self._fingerprint is not None and self.disk is not None
        with self._fingerprint_lock:
            if identity not in self._fingerprints:
                try:
                    self._fingerprints[identity] = self._fingerprint(self.disk.file_digest)
                except OSError as e:
                    raise NLIConfigError(
                        f"{identity}: cannot read the model's files to key the NLI "
                        f"cache ({type(e).__name__}: {e})"
                    ) from e

    async def _decide(
        self, identity: str, pairs: list[Pair], disk_key: str | None
    ) -> tuple[dict[Pair, NLIResult], Exception | None]:
        """Decide ``pairs``, retrying failures; returns the decisions and the last error."""
        decided: dict[Pair, NLIResult] = {}
        error: Exception | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                await anyio.sleep(min(self.backoff * 2 ** (attempt - 1), MAX_BACKOFF))
            try:
                results = await self._infer(pairs)
            except NLIConfigError:
                raise
            except Exception as e:  # the whole batch failed: retry all of it
                error = e
                if not getattr(e, "retryable", True):
                    return decided, error
                continue
            failed: list[Pair] = []
            final = False
            new: dict[Pair, NLIResult] = {}
            for pair, raw in zip(pairs, results, strict=True):
                if isinstance(raw, NLIConfigError):
                    raise raw
                # Every backend's decisions enter here: an invalid one is a failure, not a verdict.
                result = raw if isinstance(raw, Exception) else checked_result(raw, identity)
                if isinstance(result, Exception):
                    error = result
                    if getattr(result, "retryable", True):
                        failed.append(pair)
                    else:
                        final = True
                else:
                    new[pair] = result
                    self._memory[(identity, pair)] = result
            if self.disk is not None and disk_key is not None and new:
                self.disk.put_many(disk_key, new)
            decided.update(new)
            pairs = failed
            if final:
                return decided, error
            if not pairs:
                return decided, None
        return decided, error
