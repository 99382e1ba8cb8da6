r"""ExpertQA (Malaviya et al., 2024): expert questions with system answers and evidence passages.

The data is ``r2_compiled_anon.jsonl`` (config ``main``) of the Hugging Face dataset
``cmalaviya/expertqa`` at a pinned commit. It is fetched once with ``huggingface_hub``, checked
against the object id the hub records for it at that commit (SHA-256 for a Git LFS file, the
git blob SHA-1 otherwise), and cached with a manifest; later runs re-check the cached file's
SHA-256 against the manifest and need no network.

Each line is one question answered by one system (``answers`` has one key). The context of a
sample is that answer's evidence passages: claim evidences look like
``"[2] https://...\\n\\n<passage>"``; the bracket number is the doc id, the URL the title.
Evidence that is only a URL (``bing_chat``, ``gpt4``) has no passage and is not shown.
"""

import os
import re
import shutil
from logging import getLogger
from pathlib import Path
from typing import Any, Literal

from fullcite_tasks.data.records import (
    LIST,
    OBJECT,
    STRING,
    FullciteRecord,
    RecordCheck,
    SourceData,
)
from fullcite_tasks.data.spans import SpanTable, gold_spans_for, span_status
from inspect_cite.cache import cache_dir, download_folder, verified_file, write_manifest
from inspect_cite.citations.alce import markers, strip_markers
from inspect_cite.download import describe_failure, sha256_file
from inspect_cite.errors import PreflightError
from inspect_cite.files import read_jsonl
from inspect_cite.hub_files import PinnedHubFile, dataset_file
from inspect_cite.preflight import ensure_hub_reachable

logger = getLogger(__name__)

EXPERTQA_REPO = "cmalaviya/expertqa"
# The commit whose dataset card maps config "main" to r2_compiled_anon.jsonl.
EXPERTQA_REVISION = "c95ee97730022cac802346e614bc918ffd441258"
EXPERTQA_FILE = "r2_compiled_anon.jsonl"
EXPERTQA_HUB = PinnedHubFile(EXPERTQA_REPO, EXPERTQA_REVISION, EXPERTQA_FILE)
EXPERTQA_URL = EXPERTQA_HUB.url
EXPERTQA_EXAMPLES = 2177  # the dataset card's count for config main

SYSTEMS = (
    "gpt4",
    "bing_chat",
    "rr_sphere_gpt4",
    "rr_gs_gpt4",
    "post_hoc_sphere_gpt4",
    "post_hoc_gs_gpt4",
)
# Retrieve-and-read over Google search results: GPT-4 answered from retrieved passages, the
# setting closest to FullCite's (answer from given documents).
ExpertqaSystem = Literal[
    "rr_gs_gpt4", "rr_sphere_gpt4", "post_hoc_gs_gpt4", "post_hoc_sphere_gpt4", "any"
]
DEFAULT_SYSTEM: ExpertqaSystem = "rr_gs_gpt4"
ANY_SYSTEM = "any"

_MANIFEST = "manifest.json"
# The text fields read from an answer (the reference answer) and from a row's metadata.
_ANSWER_TEXTS = ("revised_answer_string", "answer_string")
_METADATA_TEXTS = ("question_type", "field", "specific_field")
# What follows an evidence string's leading [n] marker: its URL, a blank line, the passage.
_EVIDENCE_BODY = re.compile(r"\s*(\S*)\s*?\n\s*\n(.*)$", re.DOTALL)


class ExpertqaDataError(PreflightError, ValueError):
    """ExpertQA data is missing, corrupt or malformed."""


def expertqa_data_path() -> Path:
    """A verified local copy of the pinned ExpertQA file, downloading it if needed.

    A cached file or manifest that fails its check is reported, moved aside and downloaded
    again.

    Raises:
        ExpertqaDataError: Not cached and the download failed or did not verify.

    """
    directory = cache_dir("expertqa", EXPERTQA_REVISION[:12])
    target = directory / EXPERTQA_FILE
    cached = verified_file(target, directory / _MANIFEST, lambda m: m["sha256"])
    if isinstance(cached, Path):
        return cached
    try:
        ensure_hub_reachable()
        with download_folder(directory) as tmp:
            path = EXPERTQA_HUB.download(tmp, ExpertqaDataError)
            staged = tmp / "staged"
            shutil.copyfile(path, staged)
            os.replace(staged, target)
    except ExpertqaDataError:
        raise
    except Exception as e:
        raise ExpertqaDataError(
            f"ExpertQA ({EXPERTQA_URL}) {cached} and could not be "
            f"downloaded ({describe_failure(e)}). Download {EXPERTQA_FILE} yourself and pass "
            "-T dataset_path=<path>."
        ) from e
    write_manifest(
        directory / _MANIFEST, {**EXPERTQA_HUB.provenance(), "sha256": sha256_file(target)}
    )
    return target


def load_expertqa(path: str | Path) -> list[dict[str, Any]]:
    """Read and validate ExpertQA JSON Lines.

    Raises:
        ExpertqaDataError: Naming the file, line and field at fault.

    """
    rows: list[dict[str, Any]] = []
    for where, row in read_jsonl(Path(path), "ExpertQA file", ExpertqaDataError, "-T dataset_path"):
        # The sample id is the row's position among the file's rows (expertqa_records).
        sample = f'ExpertQA file {where} (sample id "{len(rows)}")'
        _check_row(row, RecordCheck(sample, ExpertqaDataError))
        rows.append(row)
    return rows


def _check_row(row: Any, check: RecordCheck) -> None:
    """Every field of a row the loader reads, at every depth."""
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


def evidence_passages(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer's evidence passages, by bracket number, each once (of a checked row).

    Returns:
        ``[{"number", "url", "text"}]`` sorted by number; evidence without a passage (URL only)
        is skipped, and a passage identical to a lower-numbered one is dropped (one document
        shown twice would make doc-level scores arbitrary).

    """
    by_number: dict[int, dict[str, Any]] = {}
    for claim in answer.get("claims") or []:
        for evidence in claim.get("evidence") or []:
            found = markers(evidence)
            marker = found[0] if found else None
            if marker is None or not marker.plain or evidence[: marker.start].strip():
                continue
            m = _EVIDENCE_BODY.match(evidence, marker.end)
            if m is None or not m.group(2).strip():
                continue
            if marker.refs[0] is None:  # too long to be a passage number
                continue
            number = marker.refs[0] + 1
            by_number.setdefault(
                number, {"number": number, "url": m.group(1), "text": m.group(2).strip()}
            )
    out: list[dict[str, Any]] = []
    for number in sorted(by_number):
        passage = by_number[number]
        if all(p["text"] != passage["text"] for p in out):
            out.append(passage)
    return out


def _reference(answer: dict[str, Any]) -> str:
    text = answer.get("revised_answer_string") or answer.get("answer_string") or ""
    return " ".join(strip_markers(text, plain_only=True).split())


def expertqa_records(
    rows: list[dict[str, Any]], system: str, ndoc: int, spans: SpanTable | None
) -> tuple[list[FullciteRecord], dict[str, int]]:
    """Turn ExpertQA rows into records for one system (``any``: whichever answered).

    Sample ids are line positions in the file (``"0"``, ``"1"``, ...), stable for the pinned
    file and across ``system`` choices.

    Returns:
        The records and counts (``rows``, ``kept``, ``other_system``, ``no_passages``).

    """
    stats = {"rows": 0, "kept": 0, "other_system": 0, "no_passages": 0}
    records = []
    for index, row in enumerate(rows):
        stats["rows"] += 1
        answers = row["answers"]
        if system == ANY_SYSTEM:
            chosen = next((s for s, a in answers.items() if evidence_passages(a)), None)
            if chosen is None:
                stats["no_passages"] += 1
                continue
        elif system in answers:
            chosen = system
        else:
            stats["other_system"] += 1
            continue
        passages = evidence_passages(answers[chosen])[:ndoc]
        if not passages:
            stats["no_passages"] += 1
            continue
        docs = [{"id": str(p["number"]), "title": p["url"], "text": p["text"]} for p in passages]
        sample_id = str(index)
        gold = gold_spans_for(spans, sample_id, [d["id"] for d in docs])
        meta = row.get("metadata") or {}
        types = [t.strip() for t in (meta.get("question_type") or "").split("|") if t.strip()]
        reference = _reference(answers[chosen])
        records.append(
            FullciteRecord(
                id=sample_id,
                source="expertqa",
                question=row["question"],
                question_type=types[0] if types else "unknown",
                docs=docs,
                gold_spans=gold or [],
                reference_answers=[reference] if reference else [],
                extra={
                    "system": chosen,
                    "field": meta.get("field"),
                    "specific_field": meta.get("specific_field"),
                    "question_types": types,
                    "gold_spans_status": span_status(spans, gold),
                },
            )
        )
        stats["kept"] += 1
    return records, stats


def expertqa_source(
    dataset_path: str | None, ndoc: int, spans: SpanTable | None, system: str = DEFAULT_SYSTEM
) -> SourceData:
    """FullCite's ExpertQA records from ``dataset_path`` or the pinned download.

    Raises:
        ExpertqaDataError: The file is missing, cannot be downloaded or is malformed.

    """
    path, info = dataset_file(
        dataset_path, lambda: (expertqa_data_path(), EXPERTQA_HUB.provenance()), ExpertqaDataError
    )
    records, counts = expertqa_records(load_expertqa(path), system, ndoc, spans)
    return SourceData(records=records, counts=counts, data=info)
