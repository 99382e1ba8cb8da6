"""Pinned hub data files and the provenance a task logs for its data.

A benchmark's data is either a local file (``-T dataset_path``) or a file of a Hugging Face
dataset repository at a pinned commit, downloaded once, verified against the hub's object id
and cached with a manifest (:mod:`inspect_cite.cache`). Either way the task logs where the data
came from and its SHA-256 (:func:`dataset_file`).
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_cite.download import hub_blob_problem, sha256_file


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
            folder: A scratch hub cache (``inspect_cite.cache.download_folder``).
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
