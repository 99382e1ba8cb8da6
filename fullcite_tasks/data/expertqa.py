r"""ExpertQA (Malaviya et al., 2024): expert questions with system answers and evidence passages.

The data is ``r2_compiled_anon.jsonl`` (config ``main``) of the Hugging Face dataset
``cmalaviya/expertqa`` at a pinned commit, fetched once, verified and cached by
:mod:`inspect_cite.benchmarks.expertqa_file` (the pin lives in the core, which ``inspect-cite
calibrate`` reads too).

Each line is one question answered by one system (``answers`` has one key). The context of a
sample is that answer's evidence passages: claim evidences look like
``"[2] https://...\\n\\n<passage>"``; the bracket number is the doc id, the URL the title.
Evidence that is only a URL (``bing_chat``, ``gpt4``) has no passage and is not shown.
"""

from logging import getLogger
from typing import Any, Literal

from fullcite_tasks.data.records import FullciteRecord, SourceData
from fullcite_tasks.data.spans import gold_spans_for, span_status
from inspect_cite.benchmarks.expertqa_file import (
    EXPERTQA_EXAMPLES,
    EXPERTQA_FILE,
    EXPERTQA_HUB,
    EXPERTQA_REPO,
    EXPERTQA_REVISION,
    EXPERTQA_URL,
    ExpertqaDataError,
    evidence_passages,
    expertqa_data_path,
    load_expertqa,
)
from inspect_cite.citations.alce import strip_markers
from inspect_cite.downloads.hub_files import dataset_file
from inspect_cite.evidence.gold_spans import SpanTable

logger = getLogger(__name__)

# The pin, the download and the file's format live in the core
# (inspect_cite.benchmarks.expertqa_file), which `inspect-cite calibrate` reads too; they are named
# here for this package's readers.
__all__ = [
    "EXPERTQA_EXAMPLES",
    "EXPERTQA_FILE",
    "EXPERTQA_REPO",
    "EXPERTQA_REVISION",
    "EXPERTQA_URL",
    "ExpertqaDataError",
    "evidence_passages",
    "expertqa_data_path",
    "expertqa_records",
    "expertqa_source",
    "load_expertqa",
]

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
    dataset_path: str | None,
    ndoc: int,
    *,
    spans: SpanTable | None = None,
    system: str = DEFAULT_SYSTEM,
) -> SourceData:
    """FullCite's ExpertQA records from ``dataset_path`` or the pinned download.

    Raises:
        ExpertqaDataError: The file is missing, cannot be downloaded or is malformed.

    """
    path, info = dataset_file(
        dataset_path, lambda: (expertqa_data_path(), EXPERTQA_HUB.provenance()), ExpertqaDataError
    )
    rows = load_expertqa(path)
    records, counts = expertqa_records(rows, system, ndoc, spans)
    return SourceData(
        records=records,
        counts=counts,
        data=info,
        span_documents=expertqa_span_documents(rows) if spans is not None else None,
    )


def expertqa_span_documents(rows: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Every evidence passage of every row, whichever system answered, by sample id and doc id.

    Sample ids are row positions, as :func:`expertqa_records` gives them; doc ids are bracket
    numbers.
    """
    documents: dict[str, dict[str, str]] = {}
    for index, row in enumerate(rows):
        by_id = documents.setdefault(str(index), {})
        for answer in row["answers"].values():
            for passage in evidence_passages(answer):
                by_id.setdefault(str(passage["number"]), passage["text"])
    return documents
