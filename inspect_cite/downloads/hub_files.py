"""Pinned data files and the provenance a task logs for its data.

A benchmark's data is either a local file (``-T dataset_path``) or a file of a Hugging Face dataset
repository (:class:`PinnedHubFile`) or of a GitHub repository (:class:`PinnedGitHubFile`) at a
pinned commit, downloaded once, verified against the object id the repository records for it at that
commit, and cached with a manifest (:func:`cached_pinned_file`,
:mod:`inspect_cite.downloads.cache`). Either way the task logs where the data came from and its
SHA-256 (:func:`dataset_file`).
"""

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_cite.checks.network import ensure_hub_reachable, ensure_reachable, hub_offline
from inspect_cite.downloads import http_client
from inspect_cite.downloads.cache import (
    NOT_CACHED,
    cached_file_problem,
    download_folder,
    verified_file,
    write_manifest,
)
from inspect_cite.downloads.download import describe_failure, hub_blob_problem, sha256_file

GITHUB_RAW_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def manifest_path(target: Path) -> Path:
    """The manifest recording ``target``'s SHA-256, beside it.

    One manifest per file: several pinned files share a cache folder (TRUST-SCORE's four data
    files, AttributionBench's two, CiteCheck's three), and a folder-wide manifest held only the
    last one's checksum, so every other file read as corrupt and was downloaded again (offline:
    not at all).
    """
    return target.with_name(f"{target.name}.manifest.json")


@dataclass(frozen=True)
class PinnedHubFile:
    """One file of a hub dataset repository at a pinned commit."""

    repo: str
    revision: str
    filename: str

    @property
    def url(self) -> str:
        """Where a user can download the file by hand."""
        return (
            f"https://huggingface.co/datasets/{self.repo}/resolve/{self.revision}/{self.filename}"
        )

    def provenance(self, file: str | None = None) -> dict[str, Any]:
        """``repo``, ``revision`` and ``file`` (or the given member of it) for the log."""
        return {"repo": self.repo, "revision": self.revision, "file": file or self.filename}

    def download(self, folder: Path, error: Callable[[str], Exception]) -> Path:
        """Download the file into ``folder`` (a hub cache) and verify it.

        Args:
            folder: A scratch hub cache (``inspect_cite.downloads.cache.download_folder``).
            error: Builds the exception raised when the content does not match the hub.

        Raises:
            Exception: ``error(...)`` when the download is corrupt; hub errors as they come.

        """
        from huggingface_hub import hf_hub_download

        path = Path(
            hf_hub_download(
                repo_id=self.repo,
                filename=self.filename,
                repo_type="dataset",
                revision=self.revision,
                cache_dir=folder,
            )
        )
        # The hub cache names a blob after its object id at the pinned commit.
        problem = hub_blob_problem(path)
        if problem:
            raise error(f"{self.url}: {problem}; the download is corrupt, nothing was cached")
        return path


@dataclass(frozen=True)
class PinnedGitHubFile:
    """One file of a GitHub repository at a pinned commit, with the blob id its tree records.

    The git blob id (``git ls-tree <commit> <path>``) pins the content exactly: a download is
    used only when ``git hash-object`` of it gives that id.
    """

    repo: str
    commit: str
    path: str
    git_blob: str

    @property
    def filename(self) -> str:
        """The file's name, without its folder."""
        return Path(self.path).name

    @property
    def url(self) -> str:
        """Where a user can download the file by hand."""
        return GITHUB_RAW_URL.format(repo=self.repo, commit=self.commit, path=self.path)

    def provenance(self) -> dict[str, Any]:
        """``repo``, ``commit``, ``file`` and ``git_blob`` for the log."""
        return {
            "repo": self.repo,
            "commit": self.commit,
            "file": self.path,
            "git_blob": self.git_blob,
        }

    def download(self, folder: Path, error: Callable[[str], Exception]) -> Path:
        """Download the file into ``folder`` and verify its blob id.

        Raises:
            Exception: ``error(...)`` when the content does not match; HTTP errors as they come.

        """
        ensure_reachable(self.url)
        try:
            # download() hashes the body and keeps it only when the blob id matches.
            return http_client.download(
                self.url, None, folder / self.filename, timeout=60.0, git_blob=self.git_blob
            )
        except ValueError as e:
            raise error(f"{e}; the download is corrupt, nothing was cached") from e


def cached_pinned_file(
    pin: "PinnedHubFile | PinnedGitHubFile",
    directory: Path,
    error: type[Exception],
    *,
    name: str,
    flag: str,
) -> Path:
    """A verified cached copy of a pinned file, downloading it when needed.

    The copy is checked against the SHA-256 its manifest records; a corrupt file or manifest is
    reported, moved aside and downloaded again.

    Args:
        pin: The pinned file.
        directory: Its cache folder (one per pinned commit).
        error: The exception class raised when it cannot be had.
        name: What the file is, for the message (``"ExpertQA"``).
        flag: The option that gives a local copy instead (``-T dataset_path``).

    Raises:
        Exception: ``error``, one line: the file, its cache folder, why it could not be
            downloaded, its URL and the flag.

    """
    target = directory / Path(pin.filename).name
    cached = verified_file(target, manifest_path(target), lambda m: m["sha256"])
    if isinstance(cached, Path):
        return cached
    try:
        if isinstance(pin, PinnedHubFile):
            if hub_offline():
                # The hub client's own refusal is 600 characters of nested exceptions.
                raise ConnectionError("HF_HUB_OFFLINE is set")
            # The hub client retries an unreachable host for minutes; this answers at once.
            ensure_hub_reachable()
        with download_folder(directory) as tmp:
            path = pin.download(tmp, error)
            staged = tmp / "staged"
            shutil.copyfile(path, staged)
            os.replace(staged, target)
    except error:
        raise
    except Exception as e:
        # The folder is named for what is there, not as a place to copy to: the cache reads
        # only files it downloaded and verified (a manifest each), so a copy put there is not
        # read; the flag is the route that works offline.
        raise error(
            f"{name} {cached} and could not be downloaded ({describe_failure(e)}). "
            f"Download {pin.url} yourself and pass {flag}=<path> (a copy put in that folder "
            "is not read: the cache holds only what it downloaded and verified)."
        ) from e
    write_manifest(manifest_path(target), {**pin.provenance(), "sha256": sha256_file(target)})
    return target


def cached_download(
    url: str,
    sha256: str,
    dest: Path,
    *,
    error: Callable[[str], Exception],
    what: str,
    fix: str,
    git_blob: str | None = None,
) -> Path:
    """``dest`` when its cached copy has the SHA-256 ``sha256``, else downloaded from ``url``.

    A cached copy with other content is reported and moved aside before it is fetched again;
    :func:`inspect_cite.downloads.http_client.download` verifies the checksum (and ``git_blob``)
    and writes atomically, refusing a redirect to another origin.

    Args:
        url: Where the file is downloaded from.
        sha256: Its pinned SHA-256.
        dest: Its place in the cache.
        error: Builds the exception raised when it cannot be had.
        what: The file, for the message (``HELMET demonstration file asqa.json``).
        fix: What the user can do instead, the message's second line.
        git_blob: Its git blob id too, where the repository's tree pins it.

    Raises:
        Exception: ``error(...)``: "<what> is not cached" (or "was corrupt (...)") "and could
            not be downloaded (<why>).", then ``fix`` on a line of its own.

    """
    problem = cached_file_problem(dest, sha256)
    if problem is None:
        return dest
    try:
        ensure_reachable(url)
        return http_client.download(url, sha256, dest, timeout=30.0, git_blob=git_blob)
    except Exception as e:
        state = NOT_CACHED if problem == NOT_CACHED else f"was corrupt ({problem})"
        raise error(
            f"{what} {state} and could not be downloaded ({describe_failure(e)}).\n{fix}"
        ) from e


def file_provenance(path: str | Path) -> dict[str, Any]:
    """A local file's ``path`` and ``sha256`` for the log."""
    return {"path": str(path), "sha256": sha256_file(Path(path))}


def check_dataset_path(dataset_path: str | Path, error: Callable[[str], Exception]) -> None:
    """Refuse a ``-T dataset_path`` that does not exist or is a directory, naming the flag."""
    if not Path(dataset_path).exists():
        raise error(f"dataset file {dataset_path} does not exist (-T dataset_path)")
    if Path(dataset_path).is_dir():
        raise error(f"dataset file {dataset_path} is a directory, not a file (-T dataset_path)")


def dataset_file(
    dataset_path: str | Path | None,
    pinned: Callable[[], tuple[Path, dict[str, Any]]],
    error: Callable[[str], Exception],
) -> tuple[Path, dict[str, Any]]:
    """The task's data file and its provenance: ``-T dataset_path`` or the pinned download.

    Args:
        dataset_path: The user's local file, or None for the pinned download.
        pinned: Returns the verified cached copy of the pinned file and its
            :meth:`PinnedHubFile.provenance`.
        error: Builds the exception raised when ``dataset_path`` does not exist.

    Returns:
        The path and ``{"path", "sha256"}`` or ``{"repo", "revision", "file", "sha256"}``.

    """
    if dataset_path is not None:
        check_dataset_path(dataset_path, error)
        return Path(dataset_path), file_provenance(dataset_path)
    path, info = pinned()
    return path, {**info, "sha256": sha256_file(path)}
