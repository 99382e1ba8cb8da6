"""LongCite's files at a pinned commit: LongBench-Cite's data, its one-shot prompt, its graders.

Nothing of LongCite is copied into this project. Its files are downloaded from THUDM/LongCite
at :data:`LONGCITE_COMMIT`, checked against the git blob id that commit's tree records (and
the SHA-256 of the small ones), and cached under ``$INSPECT_CITE_CACHE_DIR/longcite/``. The
graders' prompts are read from the scorer files themselves (:mod:`inspect_cite.longcite.prompts`).

``INSPECT_CITE_LONGCITE_DIR`` names a local folder to read the prompt and scorer files from
instead: a LongCite checkout (or its ``LongBench-Cite`` folder), or a folder of files in
LongCite's format. The log then records whether each file is the pinned one (its SHA-256
matches) or the folder's own. LongBench-Cite's data is LongCite's ``LongBench-Cite.json``
(``-T dataset_path`` gives a local copy).
"""

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.cache import cache_dir
from inspect_cite.downloads.download import sha256_file
from inspect_cite.downloads.hub_files import (
    GITHUB_RAW_URL,
    PinnedGitHubFile,
    cached_download,
    cached_pinned_file,
)

LONGCITE_REPO = "THUDM/LongCite"
LONGCITE_COMMIT = "d7d772e39fb15357749f54a2fe1e2dce77df5255"
LONGCITE_DIR_ENV = "INSPECT_CITE_LONGCITE_DIR"
FOLDER = "LongBench-Cite"

LONGBENCH_CITE_DATA = PinnedGitHubFile(
    repo=LONGCITE_REPO,
    commit=LONGCITE_COMMIT,
    path=f"{FOLDER}/LongBench-Cite.json",
    # git ls-tree d7d772e LongBench-Cite/LongBench-Cite.json (a plain blob, not Git LFS).
    git_blob="2d89480acf84af20df2bea1db745b760afe59d46",
)

LongciteFileName = Literal["one_shot_prompt.txt", "auto_scorer.py", "eval_correct.py"]


@dataclass(frozen=True)
class LongciteFile:
    """One small file of ``LongBench-Cite/`` at the pinned commit."""

    name: LongciteFileName
    git_blob: str
    sha256: str
    what: str

    @property
    def path(self) -> str:
        """Its path in the repository."""
        return f"{FOLDER}/{self.name}"

    @property
    def url(self) -> str:
        """Where it is downloaded from."""
        return GITHUB_RAW_URL.format(repo=LONGCITE_REPO, commit=LONGCITE_COMMIT, path=self.path)


LONGCITE_FILES: dict[str, LongciteFile] = {
    f.name: f
    for f in (
        LongciteFile(
            "one_shot_prompt.txt",
            "2cfe15ba05bd7e4eff458b40170b543de2ef405d",
            "1b9ca314afcc33383730d35f7e277fb6e1366349c968abb181f3c2acf146486b",
            "the one-shot prompt of LongBench-Cite's answers",
        ),
        LongciteFile(
            "auto_scorer.py",
            "026cb74f6ad2faf63f74e72456cef0d0260b1f7a",
            "c502da395740dc6a5a1e2d97ccd5e43f2f6abecd1c62993b6f57d2c5ebb582e3",
            "the citation grader's prompts",
        ),
        LongciteFile(
            "eval_correct.py",
            "d0d533561c81352e41b03c3c805427be5052bc2c",
            "60956941347f91a9d31726675ff40890a8a42b386ebc502915dbd7d619fc081d",
            "the correctness grader's prompts",
        ),
    )
}


class LongciteFileError(PreflightError, ValueError):
    """A LongCite file is missing, cannot be downloaded, or cannot be read."""


class LongciteDataError(PreflightError, ValueError):
    """LongBench-Cite's data cannot be had or read."""


def override_dir() -> Path | None:
    """The folder ``INSPECT_CITE_LONGCITE_DIR`` names, or None when it is unset."""
    value = os.environ.get(LONGCITE_DIR_ENV, "")
    return Path(value) if value else None


def _local_file(folder: Path, name: str) -> Path:
    for candidate in (folder / FOLDER / name, folder / name):
        if candidate.is_file():
            return candidate
    raise LongciteFileError(
        f"{LONGCITE_DIR_ENV}={folder} holds no {name} (looked for {folder / FOLDER / name} "
        f"and {folder / name}); add it, or unset {LONGCITE_DIR_ENV} to use LongCite's file "
        f"at {LONGCITE_COMMIT[:7]}"
    )


def longcite_file(name: LongciteFileName) -> tuple[Path, dict[str, Any]]:
    """A LongCite file and its provenance for the log, from the override folder or the cache.

    Returns:
        The path, and ``{"repo", "commit", "file", "sha256"}`` when it is the pinned file or
        ``{"path", "sha256"}`` when it is a local file with other content.

    Raises:
        LongciteFileError: Naming the file, why, the URL and the fix.

    """
    pin = LONGCITE_FILES[name]
    pinned = {
        "repo": LONGCITE_REPO,
        "commit": LONGCITE_COMMIT,
        "file": pin.path,
        "sha256": pin.sha256,
    }
    folder = override_dir()
    if folder is not None:
        path = _local_file(folder, name)
        digest = sha256_file(path)
        if digest == pin.sha256:
            return path, {**pinned, "path": str(path)}
        return path, {"path": str(path), "sha256": digest}
    dest = cache_dir("longcite", LONGCITE_COMMIT[:12]) / name
    cached_download(
        pin.url,
        pin.sha256,
        dest,
        error=LongciteFileError,
        what=f"LongCite file {name} ({pin.what})",
        fix=f"Download {pin.url} yourself and copy it to {dest}, or set {LONGCITE_DIR_ENV} to a "
        "LongCite checkout.",
        git_blob=pin.git_blob,
    )
    return dest, pinned


def read_longcite_file(name: LongciteFileName) -> tuple[str, dict[str, Any]]:
    """The text of a LongCite file (UTF-8) and its provenance (:func:`longcite_file`).

    Raises:
        LongciteFileError: When it cannot be had or is not UTF-8 text.

    """
    path, provenance = longcite_file(name)
    try:
        return path.read_text(encoding="utf-8"), provenance
    except (OSError, UnicodeDecodeError) as e:
        raise LongciteFileError(f"{path}: cannot be read as UTF-8 text ({e})") from e


def longbench_cite_data() -> tuple[Path, dict[str, Any]]:
    """LongBench-Cite's data file (the verified cached copy) and its provenance.

    Raises:
        LongciteDataError: When it is not cached and cannot be downloaded, naming the flag.

    """
    directory = cache_dir("longcite", LONGCITE_COMMIT[:12], "data")
    path = cached_pinned_file(
        LONGBENCH_CITE_DATA,
        directory,
        LongciteDataError,
        name="LongBench-Cite's data",
        flag="-T dataset_path",
    )
    return path, LONGBENCH_CITE_DATA.provenance()
