"""One instance per process of each heavy model (featurizers, QA models, retrievers).

Inspect scores samples concurrently and may build a scorer or solver more than once per
process (``inspect score``, several tasks); a model is loaded the first time it is asked for
and shared after that. A load that failed is not tried again for every later sample (which
repeated each download's retries per sample): its error is remembered and raised at once.
"""

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_instances: dict[Hashable, Any] = {}
_failures: dict[Hashable, Exception] = {}
_lock = threading.Lock()


class LoadFailedError(RuntimeError):
    """A shared model failed to load earlier in this process; its error is the cause."""


def shared_instance(key: Hashable, factory: Callable[[], T]) -> T:
    """The instance stored under ``key``, created with ``factory`` on first use.

    Raises:
        LoadFailedError: When ``factory`` failed for ``key`` earlier in this process.

    """
    with _lock:
        failed = _failures.get(key)
        if failed is not None:
            # A new exception each time: re-raising the first would grow its traceback.
            raise LoadFailedError(
                f"{type(failed).__name__}: {failed} (failed once in this process; not retried)"
            ) from failed
        if key not in _instances:
            try:
                _instances[key] = factory()
            except Exception as e:
                _failures[key] = e
                raise
        return _instances[key]
