"""One instance per process of each heavy model (featurizers, QA models, retrievers).

Inspect scores samples concurrently and may build a scorer or solver more than once per
process (``inspect score``, several tasks); a model is loaded the first time it is asked for
and shared after that.
"""

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_instances: dict[Hashable, Any] = {}
_lock = threading.Lock()


def shared_instance(key: Hashable, factory: Callable[[], T]) -> T:
    """The instance stored under ``key``, created with ``factory`` on first use."""
    with _lock:
        if key not in _instances:
            _instances[key] = factory()
        return _instances[key]
