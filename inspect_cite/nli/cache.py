"""Decision cache for NLI backends: in memory, and optionally on disk (SQLite).

The disk cache is enabled by ``get_nli(..., cache_path=...)`` or the environment variable
``INSPECT_CITE_NLI_CACHE`` (a file path). It is keyed by (backend identity and the model's
fingerprint, premise, hypothesis; see ``inspect_cite.nli.fingerprint``), so rescoring a log with
the same model makes no model calls, and a changed model never reuses stale decisions. Several
processes may share one file (SQLite WAL mode).

The cache only saves work: a path that cannot hold a cache (a directory, a file that is not
SQLite) is refused before any sample is generated (``check_nli`` for ``INSPECT_CITE_NLI_CACHE``,
and when the backend is built), but a read or
write that fails during a run (a full disk, a read-only file, an I/O error) is logged once and
the decisions are computed and scored as if there were no disk cache.
"""

import atexit
import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.download import sha256_file
from inspect_cite.nli.base import NLIResult, Pair
from inspect_cite.nli.fingerprint import file_signature

logger = logging.getLogger(__name__)

NLI_CACHE_ENV = "INSPECT_CITE_NLI_CACHE"

_SQLITE_HEADER = b"SQLite format 3\x00"


class NLICacheError(PreflightError):
    """The NLI disk cache's path cannot hold the cache (a directory, a file that is not SQLite).

    Not a ``ValueError`` (as ``NLIConfigError`` is): Inspect reads a ValueError raised while it
    builds a ``--scorer`` given by registry name as "couldn't be loaded" and drops the message.

    Args:
        message: What is wrong and the fix.
        path: The cache's path, when the error is about one.
        why: What is wrong with ``path``.

    """

    def __init__(self, message: str, *, path: Path | None = None, why: str = "") -> None:
        super().__init__(message)
        self.path, self.why = path, why

    def naming(self, flag: str) -> "NLICacheError":
        """The same error, telling the user to fix ``flag``: the way they gave the path."""
        if self.path is None:
            return self
        return NLICacheError(
            _cache_message(self.path, self.why, flag), path=self.path, why=self.why
        )


def cache_path_problem(path: Path, *, flag: str | None = None) -> str | None:
    """Why ``path`` cannot hold the NLI disk cache, or None; opens, creates and locks nothing.

    A missing file is fine: it is created on first use. ``flag`` is how the user gave the path
    (``--nli-cache``); None names every way it can be given.
    """
    why = _unusable(path)
    return None if why is None else _cache_message(path, why, flag)


def _unusable(path: Path) -> str | None:
    """What keeps ``path`` from holding the cache, or None."""
    if path.is_dir():
        why = "is a directory, not a SQLite file"
    elif path.exists() and not path.is_file():
        why = "is not a regular file"
    elif path.is_file():
        try:
            with open(path, "rb") as f:
                head = f.read(len(_SQLITE_HEADER))
        except OSError as e:
            why = f"cannot be read ({e.strerror or e})"
        else:
            if not head or head == _SQLITE_HEADER:  # SQLite takes an empty file as a new one
                return None
            why = "is not a SQLite file"
    else:
        return None
    return why


def _cache_message(path: Path, why: str, flag: str | None = None) -> str:
    if flag is None:
        return (
            f"NLI cache {path} {why}. Point {NLI_CACHE_ENV} (or -S nli_cache, alce-eval "
            "--nli_cache) at a SQLite file, created if missing, or unset it."
        )
    leave = "unset it" if flag == NLI_CACHE_ENV else "leave it out"
    return f"NLI cache {path} {why}. Point {flag} at a SQLite file, created if missing, or {leave}."


_SCHEMA = """
CREATE TABLE IF NOT EXISTS nli (
    key TEXT PRIMARY KEY,
    identity TEXT NOT NULL,
    entailed INTEGER NOT NULL,
    prob REAL
)
"""
# Content digests of model files, valid while the file's signature (size, mtime, ctime, inode)
# is unchanged: gigabytes of weights are hashed once, not at every run.
_DIGESTS = """
CREATE TABLE IF NOT EXISTS file_digest (
    path TEXT PRIMARY KEY,
    signature TEXT NOT NULL,
    sha256 TEXT NOT NULL
)
"""


def _key(identity: str, pair: Pair) -> str:
    h = hashlib.sha256()
    for part in (identity, pair[0], pair[1]):
        data = part.encode("utf-8")
        # Length-prefixed so that no two different triples hash the same bytes.
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


class DiskCache:
    """A SQLite file of NLI decisions, safe to use from several threads.

    Raises:
        NLICacheError: When ``path`` cannot hold the cache (a directory, a file that is not
            SQLite, a folder that cannot be created), naming the path and ``NLI_CACHE_ENV``.

    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        self._warned = False
        why = _unusable(self.path)
        if why is not None:
            raise NLICacheError(_cache_message(self.path, why), path=self.path, why=why)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=60)
            with self._lock:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute(_SCHEMA)
                self._conn.execute(_DIGESTS)
                self._conn.commit()
        except (OSError, sqlite3.Error) as e:
            why = f"cannot be opened ({type(e).__name__}: {e})"
            raise NLICacheError(_cache_message(self.path, why), path=self.path, why=why) from e
        # Closing moves the WAL's decisions into the file itself, so the .sqlite file alone
        # (copied, moved, shared) holds them all; a process that is killed keeps them in the WAL.
        atexit.register(self._close_at_exit)

    def _close_at_exit(self) -> None:
        # A thread still writing at exit keeps its lock: its decisions stay in the WAL.
        if not self._lock.acquire(timeout=5):
            return
        try:
            self._conn.close()
        except sqlite3.Error:
            pass
        finally:
            self._lock.release()

    def _failed(self, doing: str, error: sqlite3.Error) -> None:
        """Log a failed read or write once; the run goes on without it (it only saves work)."""
        try:
            self._conn.rollback()
        except sqlite3.Error:
            pass
        if not self._warned:
            self._warned = True
            logger.warning(
                f"NLI cache {self.path}: cannot {doing} ({type(error).__name__}: {error}); "
                "scoring goes on with the decisions computed now, which may not all be kept"
            )

    def _read(self, sql: str, args: Sequence[Any]) -> list[Any]:
        """Rows of a query, or none when the file cannot be read now."""
        try:
            with self._lock:
                return self._conn.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            with self._lock:
                self._failed("read it", e)
            return []

    def _write(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Store rows; a failure (full disk, read-only file, I/O error) is logged, not raised."""
        with self._lock:
            try:
                self._conn.executemany(sql, rows)
                self._conn.commit()
            except sqlite3.Error as e:
                self._failed("store decisions in it", e)

    def get_many(self, identity: str, pairs: Sequence[Pair]) -> dict[Pair, NLIResult]:
        """The cached decisions among ``pairs``."""
        keys = {_key(identity, p): p for p in pairs}
        found: dict[Pair, NLIResult] = {}
        items = list(keys)
        for start in range(0, len(items), 500):
            chunk = items[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._read(f"SELECT key, entailed, prob FROM nli WHERE key IN ({marks})", chunk)
            for key, entailed, prob in rows:
                found[keys[key]] = NLIResult(bool(entailed), prob)
        return found

    def put_many(self, identity: str, results: dict[Pair, NLIResult]) -> None:
        """Store decisions (replacing any earlier ones for the same key)."""
        rows = [(_key(identity, p), identity, int(r.entailed), r.prob) for p, r in results.items()]
        self._write("INSERT OR REPLACE INTO nli VALUES (?, ?, ?, ?)", rows)

    def file_digest(self, path: Path) -> str:
        """SHA-256 of a file's content, remembered while its signature stays the same."""
        path = path.resolve()
        signature = file_signature(path)
        rows = self._read("SELECT signature, sha256 FROM file_digest WHERE path = ?", [str(path)])
        if rows and rows[0][0] == signature:
            return str(rows[0][1])
        digest = sha256_file(path)
        if file_signature(path) == signature:  # not rewritten while it was read
            self._write(
                "INSERT OR REPLACE INTO file_digest VALUES (?, ?, ?)",
                [(str(path), signature, digest)],
            )
        return digest

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()
