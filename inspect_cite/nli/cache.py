"""Decision cache for NLI backends: in memory, and optionally on disk (SQLite).

The disk cache is enabled by ``get_nli(..., cache_path=...)`` or the environment variable
``INSPECT_CITE_NLI_CACHE`` (a file path). It is keyed by (backend identity and the model's
fingerprint, premise, hypothesis; see ``inspect_cite.nli.fingerprint``), so rescoring a log with
the same model makes no model calls, and a changed model never reuses stale decisions. Several
processes may share one file (SQLite WAL mode).
"""

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from inspect_cite.download import sha256_file
from inspect_cite.nli.base import NLIResult, Pair
from inspect_cite.nli.fingerprint import file_signature

NLI_CACHE_ENV = "INSPECT_CITE_NLI_CACHE"

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
    """A SQLite file of NLI decisions, safe to use from several threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=60)
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(_SCHEMA)
            self._conn.execute(_DIGESTS)
            self._conn.commit()

    def get_many(self, identity: str, pairs: Sequence[Pair]) -> dict[Pair, NLIResult]:
        """The cached decisions among ``pairs``."""
        keys = {_key(identity, p): p for p in pairs}
        found: dict[Pair, NLIResult] = {}
        items = list(keys)
        with self._lock:
            for start in range(0, len(items), 500):
                chunk = items[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, entailed, prob FROM nli WHERE key IN ({marks})", chunk
                ).fetchall()
                for key, entailed, prob in rows:
                    found[keys[key]] = NLIResult(bool(entailed), prob)
        return found

    def put_many(self, identity: str, results: dict[Pair, NLIResult]) -> None:
        """Store decisions (replacing any earlier ones for the same key)."""
        rows = [(_key(identity, p), identity, int(r.entailed), r.prob) for p, r in results.items()]
        with self._lock:
            self._conn.executemany("INSERT OR REPLACE INTO nli VALUES (?, ?, ?, ?)", rows)
            self._conn.commit()

    def file_digest(self, path: Path) -> str:
        """SHA-256 of a file's content, remembered while its signature stays the same."""
        path = path.resolve()
        signature = file_signature(path)
        with self._lock:
            row = self._conn.execute(
                "SELECT signature, sha256 FROM file_digest WHERE path = ?", (str(path),)
            ).fetchone()
        if row is not None and row[0] == signature:
            return str(row[1])
        digest = sha256_file(path)
        if file_signature(path) == signature:  # not rewritten while it was read
            with self._lock:
                self._conn.execute(
                    "INSERT OR REPLACE INTO file_digest VALUES (?, ?, ?)",
                    (str(path), signature, digest),
                )
                self._conn.commit()
        return digest

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._conn.close()
