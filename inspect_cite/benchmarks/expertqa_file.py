r"""The ExpertQA file (Malaviya et al., 2024): its pin, download, validation and evidence format.

The data is ``r2_compiled_anon.jsonl`` (config ``main``) of the Hugging Face dataset
``cmalaviya/expertqa`` at a pinned commit. It is fetched once with ``huggingface_hub``, checked
against the object id the hub records for it at that commit (SHA-256 for a Git LFS file, the
git blob SHA-1 otherwise), and cached with a manifest; later runs re-check the cached file's
SHA-256 against the manifest and need no network.

In the core because two readers use it: FullCite's ExpertQA task (``fullcite_tasks``) and the
per-claim human support labels that ``inspect-cite calibrate --data expertqa`` measures judges
against (:mod:`inspect_cite.app.human_labels`).

Each line is one question answered by one system (``answers`` has one key). Claim evidences
look like ``"[2] https://...\\n\\n<passage>"``; the bracket number is the doc id, the URL the
title. Evidence that is only a URL (``bing_chat``, ``gpt4``) has no passage.
"""

import re
from pathlib import Path
from typing import Any

from inspect_cite.checks.errors import PreflightError
from inspect_cite.checks.record_check import (
    LIST,
    OBJECT,
    STRING,
    RecordCheck,
    each_problem,
    problems_error,
)
from inspect_cite.citations.alce import markers
from inspect_cite.downloads.cache import cache_dir
from inspect_cite.downloads.files import read_jsonl
from inspect_cite.downloads.hub_files import PinnedHubFile, cached_pinned_file

EXPERTQA_REPO = "cmalaviya/expertqa"
# The commit whose dataset card maps config "main" to r2_compiled_anon.jsonl.
EXPERTQA_REVISION = "c95ee97730022cac802346e614bc918ffd441258"
EXPERTQA_FILE = "r2_compiled_anon.jsonl"
EXPERTQA_HUB = PinnedHubFile(EXPERTQA_REPO, EXPERTQA_REVISION, EXPERTQA_FILE)
EXPERTQA_URL = EXPERTQA_HUB.url
EXPERTQA_EXAMPLES = 2177  # the dataset card's count for config main

# The text fields read from an answer (the reference answer) and from a row's metadata.
_ANSWER_TEXTS = ("revised_answer_string", "answer_string")
_METADATA_TEXTS = ("question_type", "field", "specific_field")
# What follows an evidence string's leading [n] marker: its URL, a blank line, the passage.
_EVIDENCE_BODY = re.compile(r"\s*(\S*)\s*?\n\s*\n(.*)$", re.DOTALL)


class ExpertqaDataError(PreflightError, ValueError):
    """ExpertQA data is missing, corrupt or malformed."""


def expertqa_data_path(flag: str = "-T dataset_path") -> Path:
    """A verified local copy of the pinned ExpertQA file, downloading it if needed.

    A cached file or manifest that fails its check is reported, moved aside and downloaded
    again.

    Args:
        flag: The option that gives a local copy instead, named in the error.

    Raises:
        ExpertqaDataError: Not cached and the download failed or did not verify.

    """
    return cached_pinned_file(
        EXPERTQA_HUB,
        cache_dir("expertqa", EXPERTQA_REVISION[:12]),
        ExpertqaDataError,
        name="ExpertQA",
        flag=flag,
    )


def load_expertqa(path: str | Path, flag: str = "-T dataset_path") -> list[dict[str, Any]]:
    """Read and validate ExpertQA JSON Lines.

    Raises:
        ExpertqaDataError: Naming the file, and the line and field of every row at fault.

    """
    rows: list[dict[str, Any]] = []
    checks: list[tuple[str, Any]] = []
    for where, row in read_jsonl(Path(path), "ExpertQA file", ExpertqaDataError, flag):
        # The sample id is the row's position among the file's rows (the task's record ids).
        checks.append((f'ExpertQA file {where} (sample id "{len(rows)}")', row))
        rows.append(row)
    # Every row is checked before the file is refused: one error names each at fault.
    problems = each_problem(
        checks,
        lambda check: _check_row(check[1], RecordCheck(check[0], ExpertqaDataError)),
        ExpertqaDataError,
    )
    if problems:
        raise problems_error(f"ExpertQA file {path} ({flag})", problems, ExpertqaDataError)
    return rows


def _check_row(row: Any, check: RecordCheck) -> None:
    """Every field of a row the readers use, at every depth."""
    check.require(row, (), OBJECT)
    check.require(row, ("question",), STRING)
    for system in check.require(row, ("answers",), OBJECT):
        check.require(row, ("answers", system), OBJECT)
        for key in _ANSWER_TEXTS:
            check.require(row, ("answers", system, key), STRING, optional=True)
        claims = check.require(row, ("answers", system, "claims"), LIST, optional=True)
        for k, _ in enumerate(claims or []):
            check.require(row, ("answers", system, "claims", k), OBJECT)
            evidence = ("answers", system, "claims", k, "evidence")
            check.list_of(row, evidence, STRING, optional=True)
    check.require(row, ("metadata",), OBJECT, optional=True)
    for key in _METADATA_TEXTS:
        check.require(row, ("metadata", key), STRING, optional=True)


def claim_passages(claim: dict[str, Any]) -> list[dict[str, Any]]:
    """The evidence passages of one claim, in its order: ``[{"number", "url", "text"}]``.

    Evidence without a passage (a URL only) or without a leading ``[n]`` is skipped.
    """
    out = []
    for evidence in claim.get("evidence") or []:
        if not isinstance(evidence, str):
            continue
        found = markers(evidence)
        marker = found[0] if found else None
        if marker is None or not marker.plain or evidence[: marker.start].strip():
            continue
        m = _EVIDENCE_BODY.match(evidence, marker.end)
        if m is None or not m.group(2).strip():
            continue
        if marker.refs[0] is None:  # too long to be a passage number
            continue
        out.append({"number": marker.refs[0] + 1, "url": m.group(1), "text": m.group(2).strip()})
    return out


def evidence_passages(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer's evidence passages, by bracket number, each once.

    Returns:
        ``[{"number", "url", "text"}]`` sorted by number; evidence without a passage (URL only)
        is skipped, and a passage identical to a lower-numbered one is dropped (one document
        shown twice would make doc-level scores arbitrary).

    """
    by_number: dict[int, dict[str, Any]] = {}
    for claim in answer.get("claims") or []:
        for passage in claim_passages(claim):
            by_number.setdefault(passage["number"], passage)
    out: list[dict[str, Any]] = []
    for number in sorted(by_number):
        passage = by_number[number]
        if all(p["text"] != passage["text"] for p in out):
            out.append(passage)
    return out
