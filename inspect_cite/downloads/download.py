"""Verified downloads and safe archive extraction."""

import hashlib
import os
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path

_CHUNK = 1 << 20


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file, streamed."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def git_blob_sha1(path: Path) -> str:
    """Git's object id of a file (``git hash-object``), streamed."""
    h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def hub_blob_problem(path: Path) -> str | None:
    """Why a file from ``hf_hub_download`` does not match the hub's object id, or None.

    The hub cache names each blob after its object id at the pinned commit: the SHA-256 for
    LFS files, git's blob SHA-1 otherwise; the file is checked against that name.
    """
    object_id = path.resolve().name
    if len(object_id) == 64:
        actual = sha256_file(path)
    elif len(object_id) == 40:
        actual = git_blob_sha1(path)
    else:
        return f"unexpected hub object id {object_id!r}"
    if actual != object_id:
        return f"checksum mismatch (hub says {object_id}, got {actual})"
    return None


def describe_failure(error: BaseException) -> str:
    """One line naming why a download failed, down to the HTTP error that caused it.

    HTTP clients wrap the useful part: tenacity's ``RetryError`` hides the last attempt's
    exception, and huggingface_hub raises "cannot find the file in the local cache" from the
    ``HTTPError`` that was the real reason. Both are unwrapped here.
    """
    text = ""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        last_attempt = getattr(current, "last_attempt", None)
        if last_attempt is not None and last_attempt.failed:
            text += f"{last_attempt.attempt_number} attempts failed, the last with "
            current = last_attempt.exception()
            continue
        text += f"{type(current).__name__}: {current}"
        current = current.__cause__
        if current is not None:
            text += "; caused by "
    return text


class UnsafeArchiveError(ValueError):
    """An archive member would be written outside the target directory."""


def extract_members(archive: Path, members: Iterable[str], dest: Path) -> dict[str, Path]:
    """Extract named regular files from a tar archive into ``dest``, flat and atomically.

    Only the requested members are read. A member whose name is absolute, climbs out with
    ``..``, or is not a regular file (links, devices) is refused. Each file is written to a
    temporary name and renamed into place, so an interrupted extraction leaves no partial file.

    Returns:
        A mapping from member name to the extracted path (``dest / basename``).

    Raises:
        UnsafeArchiveError: For a member that is not a plain relative file.
        KeyError: When a requested member is not in the archive.

    """
    wanted = set(members)
    dest.mkdir(parents=True, exist_ok=True)
    out: dict[str, Path] = {}
    with tarfile.open(archive, "r:*") as tar:
        for info in tar:
            if info.name not in wanted:
                continue
            parts = Path(info.name).parts
            if Path(info.name).is_absolute() or ".." in parts:
                raise UnsafeArchiveError(
                    f"{archive}: refusing member with unsafe path {info.name!r}"
                )
            if not info.isreg():
                raise UnsafeArchiveError(f"{archive}: refusing non-regular member {info.name!r}")
            target = dest / Path(info.name).name
            src = tar.extractfile(info)
            assert src is not None  # regular files always have a stream
            fd, tmp = tempfile.mkstemp(dir=dest, prefix=f".{target.name}.")
            try:
                with os.fdopen(fd, "wb") as f:
                    while chunk := src.read(_CHUNK):
                        f.write(chunk)
                os.replace(tmp, target)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            out[info.name] = target
    missing = wanted - set(out)
    if missing:
        raise KeyError(f"{archive}: members not found: {sorted(missing)}")
    return out
