"""TRUST-SCORE's evaluation data: pinned download, verified cache, validation, record -> Sample.

The authors' evaluation files ``Trust-Score/<dataset>_eval_top100_calibrated.json`` (ASQA,
QAMPARI, ELI5 and ExpertQA: ALCE's questions and top-100 documents, each document with
``answers_found``, one 0/1 per gold answer, and ``rec_score``) live in a Hugging Face dataset
repository. The authors' README links it as ``declare-lab/Trust-Score``; the hub lists the
same ``Trust-Score/`` files under ``declare-lab/Trust-Data``, whose commit pinned here is the
one this project could see holding them. A file is downloaded once with ``huggingface_hub``,
checked against the object id the hub records for it at that commit, cached with a manifest
of its SHA-256 (:func:`inspect_cite.downloads.hub_files.cached_pinned_file`), and logged with that
provenance; ``-T dataset_path=`` reads a local copy instead.
"""

from pathlib import Path
from typing import Any

from inspect_cite.alce.data import AlceDataError, load_items
from inspect_cite.alce.trust.metrics import EVAL_TYPES, answers_found_problem, check_dataset
from inspect_cite.benchmarks.alce import ALCE_DATASETS
from inspect_cite.benchmarks.trust import TRUST_DATASETS
from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.cache import cache_dir
from inspect_cite.downloads.files import read_json
from inspect_cite.downloads.hub_files import PinnedHubFile, cached_pinned_file, dataset_file

TRUST_DATA_REPO = "declare-lab/Trust-Data"
TRUST_DATA_REVISION = "b2179d357457f00adaf533011c65d63403101d41"


class TrustDataError(PreflightError, ValueError):
    """TRUST-SCORE data is missing, corrupt or malformed."""


def pinned_data(dataset: str) -> PinnedHubFile:
    """The pinned evaluation file of a dataset."""
    return PinnedHubFile(
        TRUST_DATA_REPO, TRUST_DATA_REVISION, TRUST_DATASETS[check_dataset(dataset)].data_file
    )


def trust_data_path(dataset: str, dataset_path: str | None = None) -> tuple[Path, dict[str, Any]]:
    """The evaluation file (``dataset_path``, or the pinned download) and its provenance.

    Raises:
        TrustDataError: When ``dataset_path`` does not exist, or the pinned file cannot be
            had (naming its URL and ``-T dataset_path``).

    """
    pin = pinned_data(dataset)

    def pinned() -> tuple[Path, dict[str, Any]]:
        directory = cache_dir("trust", "data", TRUST_DATA_REVISION[:12])
        path = cached_pinned_file(
            pin,
            directory,
            TrustDataError,
            name=f"TRUST-SCORE {dataset} data",
            flag="-T dataset_path",
        )
        return path, pin.provenance()

    return dataset_file(dataset_path, pinned, TrustDataError)


def record_problem(item: Any, dataset: str) -> str | None:
    """What a Trust-Score record lacks (naming the field), or None.

    A record needs ``question``, ``answers`` (non-empty lists of strings: aliases, or one
    claim for ELI5/ExpertQA) and at least one document with ``title``, ``text`` and
    ``answers_found`` (0 or 1 per gold answer); ``rec_score`` is kept when present.
    """
    if not isinstance(item, dict):
        return "must be an object"
    question, answers, docs = item.get("question"), item.get("answers"), item.get("docs")
    if not isinstance(question, str) or not question.strip():
        return 'needs a non-empty string "question"'
    if not isinstance(answers, list) or not answers:
        return 'needs "answers", a non-empty list of answer lists'
    for i, group in enumerate(answers):
        if not isinstance(group, list) or not group or not all(isinstance(a, str) for a in group):
            return f'"answers"[{i}] must be a non-empty list of strings'
    if not isinstance(docs, list) or not docs:
        return 'needs "docs", a non-empty list of documents'
    for j, doc in enumerate(docs):
        if not isinstance(doc, dict):
            return f'"docs"[{j}] must be an object'
        for key in ("title", "text"):
            if not isinstance(doc.get(key), str):
                return f'"docs"[{j}] needs a string "{key}"'
        problem = answers_found_problem(doc, j, len(answers), holds="hold", of="answers")
        if problem is not None:
            return problem
    return None


def load_trust_items(path: str | Path, dataset: str) -> list[dict[str, Any]]:
    """Read a Trust-Score file (a list, or ``{"data": [...]}``) and check every record.

    Raises:
        TrustDataError: Naming the file, the record and the field at fault.

    """
    check_dataset(dataset, flag="dataset")
    path = Path(path)
    data = read_json(path, "dataset file", TrustDataError, flag="-T dataset_path")
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    if not isinstance(data, list) or not data:
        raise TrustDataError(f"dataset file {path}: expected a non-empty JSON list of records")
    for i, item in enumerate(data):
        problem = record_problem(item, dataset)
        if problem is not None:
            raise TrustDataError(f"dataset file {path} record {i}: {problem} (-T dataset_path)")
    return data


def trust_file_problem(path: str | Path, dataset: str) -> str | None:
    """One line saying ``path`` is a Trust-Score file that an ALCE run was given, or None.

    A Trust-Score file (every record as :func:`record_problem` wants it: ``answers`` and
    documents each with ``answers_found``) given to an ALCE task without ``-T trust=true``
    fails ALCE's checks once per record and field; this says what the file is instead, and
    the flag that reads it. Only read after ALCE's own checks refused the file.
    """
    try:
        data = read_json(Path(path), "dataset file", TrustDataError)
    except TrustDataError:
        return None
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        data = data["data"]
    if not isinstance(data, list) or not data:
        return None
    if any(record_problem(item, dataset) is not None for item in data):
        return None
    return (
        f"{dataset} dataset file {path} (-T dataset_path) is a TRUST-SCORE file (records with "
        '"answers" and documents marked "answers_found"), not ALCE\'s: add -T trust=true'
    )


def alce_file_problem(path: str | Path, dataset: str) -> str | None:
    """One line saying ``path`` is an ALCE file that a TRUST-SCORE run was given, or None.

    The mirror of :func:`trust_file_problem`: an ALCE eval file (every item as ALCE's checks
    want it, no document marked ``answers_found``) given with ``-T trust=true`` fails the first
    record's Trust-Score fields; this says what the file is and the flag to drop. Only read
    after the Trust-Score checks refused the file.
    """
    if dataset not in ALCE_DATASETS:
        return None
    try:
        load_items(path, dataset)  # type: ignore[arg-type]
    except AlceDataError:
        return None
    return (
        f"{dataset} dataset file {path} (-T dataset_path) is an ALCE file (no documents "
        'marked "answers_found"), not TRUST-SCORE\'s: drop -T trust=true'
    )


def shown_docs(item: dict[str, Any], ndoc: int) -> list[dict[str, Any]]:
    """The first ``ndoc`` documents, as the project shows them.

    Each has ``id`` "1".."n", ``title``, ``text``, ``answers_found`` and ``rec_score``
    (trust-eval keeps the same first ``ndoc`` in its result files).
    """
    shown = []
    for i, doc in enumerate(item["docs"][:ndoc]):
        entry: dict[str, Any] = {
            "id": str(i + 1),
            "title": doc["title"],
            "text": doc["text"],
            "answers_found": list(doc["answers_found"]),
        }
        if "rec_score" in doc:
            entry["rec_score"] = doc["rec_score"]
        shown.append(entry)
    return shown


def trust_record_to_sample(
    item: dict[str, Any], index: int, dataset: str, prompt: str, ndoc: int
) -> Any:
    """A checked Trust-Score record as an Inspect ``Sample``.

    ``metadata`` holds ``question``, ``answers`` (as in the file), ``dataset`` and ``docs``,
    the documents shown (:func:`shown_docs`); the target is each gold answer's first alias
    (its claim for ELI5 and ExpertQA). Other fields of the record are kept, but the 100
    retrieved documents.
    """
    from inspect_ai.dataset import Sample

    check_dataset(dataset, flag="dataset")
    metadata = {k: v for k, v in item.items() if k not in ("docs", "output", "prompt")}
    metadata["dataset"] = dataset
    metadata["eval_type"] = EVAL_TYPES[dataset]
    metadata["docs"] = shown_docs(item, ndoc)
    sample_id = item.get("sample_id", item.get("id", index))
    target = [group[0] for group in item["answers"]]
    return Sample(id=str(sample_id), input=prompt, target=target, metadata=metadata)
