"""Where inspect-cite keeps downloaded data, and how a cached file is checked and repaired.

Every cached file is written atomically (``inspect_cite.downloads.files.write_atomic``) and checked
against a SHA-256 before it is used: the pinned checksum of a prompt file, the manifest of a
downloaded dataset, the content a generated file must have. A file that fails its check is
reported as corrupt, moved aside (``<name>.corrupt-<time>``, kept for inspection) and
rebuilt or fetched again; only when no good source is reachable does the run stop, with an
error that says the cached copy was corrupt.
"""

import json
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from platformdirs import user_cache_dir

from inspect_cite.downloads.download import sha256_file
from inspect_cite.downloads.files import json_problem, loads, write_atomic

CACHE_ENV = "INSPECT_CITE_CACHE_DIR"

logger = logging.getLogger(__name__)

_SHA256 = re.compile(r"[0-9a-f]{64}")
_DOWNLOAD_PREFIX = ".download-"
# A download folder of a process that is gone is removed by the next download; one whose
# owner cannot be told (or lives on another machine) only once it is this old.
_STALE_SECONDS = 24 * 3600


def cache_dir(*parts: str) -> Path:
    """Return (and create) a directory under the inspect-cite cache.

    The root is ``$INSPECT_CITE_CACHE_DIR`` when set, otherwise the platform's user cache
    directory (``~/.cache/inspect-cite`` on Linux).
    """
    root = os.environ.get(CACHE_ENV) or user_cache_dir("inspect-cite")
    path = Path(root, *parts)
    path.mkdir(parents=True, exist_ok=True)
    return path


NOT_CACHED = "is not cached"


def corrupt_path(path: Path) -> Path:
    """Where a corrupt cached file (or the corrupt part of one) is kept for inspection."""
    return path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}")


def quarantine(path: Path, reason: str) -> str:
    """Report a corrupt cached file and move it aside (``<name>.corrupt-<time>``).

    A file that cannot be moved is deleted if possible, so that it is not used again.

    Returns:
        What was wrong and what was done, for an error message:
        ``"<reason>; moved aside to <name>"``.

    """
    dest = corrupt_path(path)
    try:
        os.replace(path, dest)
        where = f"moved aside to {dest.name}"
    except FileNotFoundError:
        where = "moved aside by another process"
    except OSError as e:
        try:
            path.unlink()
            where = f"deleted: it could not be moved ({e.strerror or e})"
        except OSError:
            where = f"it could not be moved or deleted ({e.strerror or e})"
    logger.warning(f"cached file {path} is corrupt ({reason}); {where}")
    return f"{reason}; {where}"


def cached_file_problem(path: Path, sha256: str) -> str | None:
    """None when ``path`` holds content with this SHA-256, else what is wrong with it.

    Returns:
        None (good), :data:`NOT_CACHED`, or, for a file with other content (then moved
        aside), what :func:`quarantine` says.

    """
    if not path.is_file():
        return NOT_CACHED
    actual = sha256_file(path)
    if actual == sha256:
        return None
    return quarantine(path, f"SHA-256 {actual[:12]}..., expected {sha256[:12]}...")


def read_manifest(path: Path) -> dict[str, Any] | str:
    """The JSON object in a cache manifest, or what is wrong (a corrupt one is quarantined).

    Returns:
        The manifest, :data:`NOT_CACHED`, or what :func:`quarantine` says.

    """
    if not path.is_file():
        return NOT_CACHED
    try:
        data = loads(path.read_bytes().decode("utf-8"))
    except ValueError as e:
        return quarantine(path, json_problem(e))
    if not isinstance(data, dict):
        return quarantine(path, f"is a JSON {type(data).__name__}, not an object")
    return data


def verified_file(
    path: Path, manifest_path: Path, recorded: Callable[[dict[str, Any]], Any]
) -> Path | str:
    """``path`` when it matches the SHA-256 its manifest records, else why it cannot be used.

    A corrupt manifest (not JSON, not an object, a recorded sum that is not a SHA-256) or a
    file with other content is reported and moved aside, so the caller fetches it again.

    Args:
        path: The cached file.
        manifest_path: The manifest recording its SHA-256.
        recorded: Reads the SHA-256 of ``path`` from the manifest (a missing or mistyped
            entry, or one that raises ``KeyError``/``TypeError``, makes the manifest corrupt).

    Returns:
        ``path``, or a phrase for an error message: ``"is not cached in <dir>"``,
        ``"has a corrupt cache manifest in <dir> (...)"`` or ``"is corrupt in the cache <dir>
        (...)"``.

    """
    folder = path.parent
    manifest = read_manifest(manifest_path)
    if isinstance(manifest, dict):
        try:
            digest = recorded(manifest)
        except (KeyError, TypeError, AttributeError):
            digest = None
        if not (isinstance(digest, str) and _SHA256.fullmatch(digest)):
            manifest = quarantine(manifest_path, f"no SHA-256 recorded for {path.name}")
    if isinstance(manifest, str):
        if manifest == NOT_CACHED:
            return f"{NOT_CACHED} in {folder}"
        return f"has a corrupt cache manifest in {folder} ({manifest})"
    problem = cached_file_problem(path, digest)
    if problem is None:
        return path
    if problem == NOT_CACHED:
        return f"{NOT_CACHED} in {folder}"
    return f"is corrupt in the cache {folder} ({problem})"


def write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """Write a cache manifest atomically."""
    write_atomic(path, json.dumps(manifest, indent=2))


def _owner_gone(folder: Path) -> bool:
    pid_text = folder.name[len(_DOWNLOAD_PREFIX) :].split("-", 1)[0]
    try:
        age = time.time() - folder.stat().st_mtime
    except OSError:
        return False
    if not pid_text.isdigit() or len(pid_text) > 9:
        return age > _STALE_SECONDS
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, owned by someone else
        return False
    return int(pid_text) != os.getpid() and age > _STALE_SECONDS


@contextmanager
def download_folder(directory: Path) -> Iterator[Path]:
    """A temporary folder in ``directory`` for one download, removed afterwards.

    Folders left by downloads that were killed (their process is gone) are removed first, so
    an interrupted download leaves nothing behind for long.
    """
    for folder in directory.glob(f"{_DOWNLOAD_PREFIX}*"):
        if folder.is_dir() and _owner_gone(folder):
            shutil.rmtree(folder, ignore_errors=True)
    with tempfile.TemporaryDirectory(
        dir=directory, prefix=f"{_DOWNLOAD_PREFIX}{os.getpid()}-"
    ) as tmp:
        yield Path(tmp)
