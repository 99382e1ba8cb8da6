"""ALCE evaluation data: pinned download, verified cache and validation.

The data is ``ALCE-data.tar`` in the Hugging Face dataset repository ``princeton-nlp/ALCE-data``
at a pinned commit. The tarball is fetched once with ``huggingface_hub``, checked against the
SHA-256 that the hub records for it (the Git LFS object id at that commit), and only the eval
files are extracted into the inspect-cite cache; the tarball itself is then deleted. Later runs
read the cache and need no network. Both benchmarks read it (FullCite's ASQA too); each turns
an item into its own samples.
"""

import os
from pathlib import Path
from typing import Any

from inspect_cite.alce.items import REQUIRED_FIELDS, item_problem, item_problems
from inspect_cite.benchmarks.alce import AlceDatasetName, Retriever
from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.models import hub_offline
from inspect_cite.checks.network import ensure_hub_reachable
from inspect_cite.checks.record_check import problems_error
from inspect_cite.downloads.cache import cache_dir, download_folder, verified_file, write_manifest
from inspect_cite.downloads.download import (
    describe_failure,
    extract_members,
    sha256_file,
)
from inspect_cite.downloads.files import read_json
from inspect_cite.downloads.hub_files import PinnedHubFile

ALCE_DATA_REPO = "princeton-nlp/ALCE-data"
ALCE_DATA_REVISION = "334fa2e7dd32040c3fef931a123c4be1a81e91a0"
ALCE_DATA_FILE = "ALCE-data.tar"
ALCE_DATA_HUB = PinnedHubFile(ALCE_DATA_REPO, ALCE_DATA_REVISION, ALCE_DATA_FILE)
ALCE_DATA_URL = ALCE_DATA_HUB.url
# Point this at a directory holding ALCE's extracted data/ files to skip the download.
ALCE_DATA_DIR_ENV = "INSPECT_CITE_ALCE_DATA_DIR"

# The eval files this project uses, and how many items each holds (a second integrity check).
EVAL_FILES: dict[str, int | None] = {  # None: count not known
    "asqa_eval_gtr_top100.json": 948,
    "asqa_eval_dpr_top100.json": None,
    "asqa_eval_gtr_top100_reranked_oracle.json": None,
    "qampari_eval_gtr_top100.json": 1000,
    "qampari_eval_dpr_top100.json": None,
    "qampari_eval_gtr_top100_reranked_oracle.json": None,
    "eli5_eval_bm25_top100.json": 1000,
    "eli5_eval_bm25_top100_reranked_oracle.json": None,
}
_MANIFEST = "manifest.json"


class AlceDataError(PreflightError, ValueError):
    """ALCE data is missing, corrupt or malformed."""


def eval_file_name(dataset: AlceDatasetName, retriever: Retriever, oracle: bool) -> str:
    """The ALCE eval file for a dataset, retriever and oracle choice."""
    allowed = {"asqa": ("gtr", "dpr"), "qampari": ("gtr", "dpr"), "eli5": ("bm25",)}[dataset]
    if retriever not in allowed:
        raise AlceDataError(
            f"-T retriever={retriever}: {dataset} has retrieval results from "
            f"{' and '.join(allowed)} only"
        )
    if oracle and retriever != allowed[0]:
        raise AlceDataError(
            f"-T retriever={retriever}: {dataset}'s reranked oracle file (-T oracle=true or "
            f"-T strategy=oracle) exists only for -T retriever={allowed[0]}"
        )
    name = f"{dataset}_eval_{retriever}_top100"
    return f"{name}_reranked_oracle.json" if oracle else f"{name}.json"


def data_cache_dir() -> Path:
    """The cache directory for this revision's extracted files."""
    return cache_dir("alce", "data", ALCE_DATA_REVISION[:12])


def _verified_cached(directory: Path, name: str) -> Path | str:
    """The cached file when it matches the manifest's SHA-256, else why it cannot be used."""
    return verified_file(directory / name, directory / _MANIFEST, lambda m: m["files"][name])


def _download_and_extract(directory: Path) -> None:
    with download_folder(directory) as tmp:
        tar_path = ALCE_DATA_HUB.download(tmp, AlceDataError)
        # Verified above: an LFS blob's name is its SHA-256, so the archive is not hashed again.
        blob = tar_path.resolve().name
        actual = blob if len(blob) == 64 else sha256_file(tar_path)
        members = {f"ALCE-data/{name}": name for name in EVAL_FILES}
        staged = tmp / "staged"
        extract_members(tar_path, members, staged)
        for name, count in EVAL_FILES.items():
            n = len(read_json(staged / name, f"{ALCE_DATA_URL}: member", AlceDataError))
            if count is not None and n != count:
                raise AlceDataError(f"{ALCE_DATA_URL}: {name} has {n} items, expected {count}")
        files = {name: sha256_file(staged / name) for name in EVAL_FILES}
        for name in EVAL_FILES:
            os.replace(staged / name, directory / name)
        manifest = {
            "repo": ALCE_DATA_REPO,
            "revision": ALCE_DATA_REVISION,
            "archive_sha256": actual,
            "files": files,
        }
        write_manifest(directory / _MANIFEST, manifest)


def _unavailable(
    name: str, state: str, error: Exception, flag: str = "-T dataset_path"
) -> AlceDataError:
    return AlceDataError(
        f"ALCE data file {name} {state} and could not be downloaded "
        f"({describe_failure(error)}).\nDownload {ALCE_DATA_URL} (451 MB) yourself and pass "
        f"{flag}=<path to {name}>,\nor set {ALCE_DATA_DIR_ENV} to the directory "
        "holding its extracted files."
    )


def _local_data(name: str) -> Path | str:
    """The eval file from ``$INSPECT_CITE_ALCE_DATA_DIR`` or the verified cache, else why not."""
    if name not in EVAL_FILES:
        raise AlceDataError(f"unknown ALCE eval file {name!r}; known: {sorted(EVAL_FILES)}")
    local_dir = os.environ.get(ALCE_DATA_DIR_ENV)
    if local_dir:
        path = Path(local_dir, name)
        if not path.exists():
            raise AlceDataError(f"{ALCE_DATA_DIR_ENV}={local_dir} but {path} does not exist")
        return path
    return _verified_cached(data_cache_dir(), name)


def local_alce_data(name: str, flag: str = "-T dataset_path") -> Path | None:
    """An ALCE eval file already on this machine, or None when it has to be downloaded.

    Looks in ``$INSPECT_CITE_ALCE_DATA_DIR``, then the verified cache; downloads nothing.
    ``flag`` is the option the refusal offers for a file of one's own.

    Raises:
        AlceDataError: When the file is not here and the hub cannot be reached (offline), or
            ``INSPECT_CITE_ALCE_DATA_DIR`` lacks it.

    """
    local = _local_data(name)
    if isinstance(local, Path):
        return local
    try:
        if hub_offline():
            raise ConnectionError("HF_HUB_OFFLINE is set")
        ensure_hub_reachable()
    except ConnectionError as e:
        raise _unavailable(name, local, e, flag) from e
    return None


def alce_data_path(name: str, flag: str = "-T dataset_path") -> Path:
    """Return a local path to an ALCE eval file, downloading the pinned tarball if needed.

    Order: ``$INSPECT_CITE_ALCE_DATA_DIR/<name>``, then the verified cache, then the download.
    A cached file or manifest that fails its check is reported, moved aside and downloaded
    again. ``flag`` is the option the refusal offers for a file of one's own.

    Raises:
        AlceDataError: When the file is not available locally and cannot be downloaded.

    """
    local = _local_data(name)
    if isinstance(local, Path):
        return local
    directory = data_cache_dir()
    try:
        ensure_hub_reachable()
        _download_and_extract(directory)
    except AlceDataError:
        raise
    except Exception as e:
        raise _unavailable(name, local, e, flag) from e
    cached = _verified_cached(directory, name)
    if not isinstance(cached, Path):
        raise AlceDataError(f"{directory / name}: extraction did not produce a verified file")
    return cached


def load_items(
    path: str | Path, dataset: AlceDatasetName, flag: str = "-T dataset_path"
) -> list[dict[str, Any]]:
    """Read an ALCE-format JSON list (or ``{"data": [...]}`` result file) and validate its items.

    Every item is checked for every field its dataset needs (docs/alce.md, "Your own data
    file") before the file is refused, so one error names them all, each as
    ``<file>:<index>:<field>: <problem>`` (``data.json:3:qa_pairs[0].short_answers: must be a
    list of strings``; the index counts items from 0).

    Args:
        path: The file.
        dataset: Whose fields the items need.
        flag: How the user named the file, for the messages (``-T dataset_path``).

    Raises:
        AlceDataError: Naming the file, and every item and field at fault.

    """
    path = Path(path)
    data = read_json(path, "dataset file", AlceDataError, flag=flag)
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    if not isinstance(data, list):
        raise AlceDataError(f"dataset file {path}: expected a JSON list of items ({flag})")
    if not data:
        raise AlceDataError(f"dataset file {path}: no items to run ({flag})")
    problems = [
        problem.at(f"{path}:{i}")
        for i, item in enumerate(data)
        for problem in item_problems(item, REQUIRED_FIELDS[dataset])
    ]
    if problems:
        raise problems_error(f"{dataset} dataset file {path} ({flag})", problems, AlceDataError)
    return data


def validate_item(item: Any, dataset: AlceDatasetName, where: str) -> None:
    """Check one ALCE item has what prompts and scorers need (``inspect_cite.alce.items``).

    Raises:
        AlceDataError: ``"<where>: <problem>"``, naming the field (the first problem).

    """
    problem = item_problem(item, REQUIRED_FIELDS[dataset])
    if problem is not None:
        raise AlceDataError(f"{where}: {problem}")
