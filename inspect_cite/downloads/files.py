"""Reading and writing the project's JSON files: errors that name the place, atomic writes.

Every loader of a user-given or cached JSON / JSON Lines file reads it here, so a missing file,
a directory, bytes that are not UTF-8 and invalid JSON all give one line naming the file (and
the line of a JSON Lines file), never a traceback. Files the cache rewrites whole (manifests,
Punkt data, PubMed records, a repaired annotation cache, alce-eval's ``.score``) go through
:func:`write_atomic`, so a reader never sees half a file.
"""

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


def _not_a_file(path: Path, hint: str) -> str | None:
    if not path.exists():
        return f"does not exist{hint}"
    if path.is_dir():
        return f"is a directory, not a file{hint}"
    return None


def json_problem(error: Exception) -> str:
    """Why ``json.loads`` refused a text, in a few words (never the whole exception chain)."""
    if isinstance(error, UnicodeDecodeError):
        return f"is not UTF-8 text (byte {error.start}: {error.reason})"
    if isinstance(error, RecursionError):
        return "is not valid JSON: nested too deeply"
    return f"is not valid JSON: {error}"


def loads(text: str | bytes) -> Any:
    """``json.loads`` that raises only ``ValueError`` (deep nesting and huge numbers included).

    Raises:
        ValueError: For anything that is not a JSON text Python can hold (a
            ``UnicodeDecodeError`` for bytes that are not UTF-8).

    """
    try:
        return json.loads(text)
    except RecursionError as e:
        raise ValueError("nested too deeply") from e


def read_json(
    path: Path,
    what: str,
    error: type[Exception],
    missing_hint: str = "",
    *,
    flag: str | None = None,
) -> Any:
    """Parse a JSON file, raising ``error`` naming ``what`` and the file when it cannot.

    Args:
        path: The file.
        what: What the file is, for the message (``"dataset file"``).
        error: The exception class to raise.
        missing_hint: Appended to the message when there is no such file (default: the
            flag).
        flag: The option that names the file (``-T dataset_path``): every message names it,
            a truncated or unreadable file's too, so the user knows which flag to fix.

    """
    named = f" ({flag})" if flag else ""
    problem = _not_a_file(path, missing_hint or named)
    if problem is not None:
        raise error(f"{what} {path} {problem}")
    try:
        data = path.read_bytes()
    except OSError as e:
        raise error(f"{what} {path} cannot be read ({e.strerror or e}){named}") from e
    try:
        # utf-8-sig: a byte-order mark (Windows editors and spreadsheets write one) is not data.
        return loads(data.decode("utf-8-sig"))
    except ValueError as e:
        raise error(f"{what} {path} {json_problem(e)}{named}") from e


def read_jsonl(
    path: Path, what: str, error: type[Exception], flag: str, problems: list[str] | None = None
) -> Iterator[tuple[str, Any]]:
    """Parsed non-blank lines of a JSON Lines file as ``("<file>:<line>", value)``.

    Args:
        path: The file.
        what: What the file is, for the message (``"spans file"``).
        error: The exception class to raise.
        flag: The option that names the file, for the message.
        problems: When given, a line that is not UTF-8 or not valid JSON is added to it
            (``"<file>:<line>: <why>"``) and skipped, so that a caller can name every bad
            line at once; otherwise it is raised.

    Raises:
        error: Naming the file (missing, a directory, unreadable) or the file and line (not
            UTF-8, not valid JSON).

    """
    problem = _not_a_file(path, f" ({flag})")
    if problem is not None:
        raise error(f"{what} {path} {problem}")
    try:
        lines = path.read_bytes().splitlines()
    except OSError as e:
        raise error(f"{what} {path} cannot be read ({e.strerror or e})") from e
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            # A byte-order mark can only open the file (Windows editors and spreadsheets).
            value = loads(line.decode("utf-8-sig" if lineno == 1 else "utf-8"))
        except ValueError as e:
            problem = f"{where}: {json_problem(e).removeprefix('is ')}"
            if problems is None:
                raise error(problem) from e
            problems.append(problem)
            continue
        yield where, value


def _umask() -> int:
    """The process's umask, read without changing it where the system tells it (Linux)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: set and restore at once
    os.umask(mask)
    return mask


def _file_mode(path: Path) -> int:
    """The mode ``open(path, "w")`` leaves: an existing file's own, else 0o666 less the umask.

    ``tempfile.mkstemp`` creates its file 0o600, which a rename would carry over.
    """
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


@contextmanager
def atomic_writer(path: Path) -> Iterator[IO[bytes]]:
    """A binary file that replaces ``path`` only when the block ends without an error.

    The data goes to a temporary file beside ``path`` (same file system), is flushed to disk,
    and is renamed over ``path`` in one step: readers see the old file or the new one, never a
    part. On an error the temporary file is removed and ``path`` is left as it was. The file
    gets the permissions ``open()`` would give it (a file it replaces keeps its own), not the
    owner-only ones of the temporary file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = _file_mode(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.tmp-{os.getpid()}-")
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (UTF-8 when text) atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)


def unwritable_dir_problem(directory: Path) -> str | None:
    """Why files cannot be written into ``directory``, or None; leaves nothing behind.

    Tried for real (the folders made, a temporary file written, then all removed): permission
    bits do not tell, since root may write anywhere they allow and still not under ``/proc``.
    """
    missing: list[Path] = []
    existing = directory
    while not existing.exists() and existing != existing.parent:
        missing.append(existing)
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is not a directory"
    made: list[Path] = []
    try:
        for folder in reversed(missing):
            folder.mkdir()
            made.append(folder)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as e:
        return f"cannot write there ({e.strerror or e})"
    finally:
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                pass
    return None
