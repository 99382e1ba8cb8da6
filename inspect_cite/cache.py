"""Where inspect-cite keeps downloaded data."""

import os
from pathlib import Path

from platformdirs import user_cache_dir

CACHE_ENV = "INSPECT_CITE_CACHE_DIR"


def cache_dir(*parts: str) -> Path:
    """Return (and create) a directory under the inspect-cite cache.

    The root is ``$INSPECT_CITE_CACHE_DIR`` when set, otherwise the platform's user cache
    directory (``~/.cache/inspect-cite`` on Linux).
    """
    root = os.environ.get(CACHE_ENV) or user_cache_dir("inspect-cite")
    path = Path(root, *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path
