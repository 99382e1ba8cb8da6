"""ASQA for FullCite: ALCE's ASQA items with Wikipedia-title doc ids.

The items come from ALCE's loader (``inspect_cite.alce.data``: pinned download or a local copy); the
context is the top ``ndoc`` retrieved passages. Doc ids are slugified Wikipedia titles, as in
the FullCite authors' outputs (``the-sound-of-silence``, ``wednesday-morning,-3-a.m.``): lower
case, spaces to ``-``, brackets, braces and quotes dropped; a title seen again in the same
context gets ``-2``, ``-3``, ... so ids stay unique.
"""

import re
from typing import Any

from fullcite_tasks.data.records import FullciteRecord, SourceData
from fullcite_tasks.data.spans import gold_spans_for, span_status
from inspect_cite.downloads.hub_files import dataset_file
from inspect_cite.evidence.gold_spans import SpanTable

# Characters that would break the citation markup or read as quoting.
_DROP = re.compile(r"[()\[\]{}\"'`“”‘’]")


def slugify_title(title: str) -> str:
    """``The Sound of Silence`` -> ``the-sound-of-silence`` (``untitled`` when nothing is left)."""
    slug = "-".join(_DROP.sub("", title).lower().split())
    return slug or "untitled"


def unique_slugs(titles: list[str]) -> list[str]:
    """Slugs of ``titles``, with ``-2``, ``-3``, ... appended to repeats."""
    used: set[str] = set()
    out = []
    for title in titles:
        base = slug = slugify_title(title)
        n = 1
        while slug in used:
            n += 1
            slug = f"{base}-{n}"
        used.add(slug)
        out.append(slug)
    return out


def asqa_sample_id(item: dict[str, Any], index: int) -> str:
    """The id ALCE's tasks give an item (``sample_id``, else ``id``, else its index)."""
    return str(item.get("sample_id", item.get("id", index)))


def asqa_records(
    items: list[dict[str, Any]], ndoc: int, spans: SpanTable | None
) -> list[FullciteRecord]:
    """Turn validated ALCE ASQA items into records with the top ``ndoc`` passages.

    Gold spans come from ``spans`` (a spans file); ``extra["gold_spans_status"]`` says
    whether they were ``given``, ``not_in_spans_file``, or ``missing`` (no file: the task
    annotates them first).
    """
    records = []
    for index, item in enumerate(items):
        passages = item["docs"][:ndoc]
        ids = unique_slugs([p["title"] for p in passages])
        docs = []
        for doc_id, p in zip(ids, passages, strict=True):
            doc: dict[str, Any] = {"id": doc_id, "title": p["title"], "text": p["text"]}
            if "id" in p:
                doc["passage_id"] = str(p["id"])
            docs.append(doc)
        sample_id = asqa_sample_id(item, index)
        gold = gold_spans_for(spans, sample_id, ids)
        annotations = item.get("annotations") or []
        references = [
            a["long_answer"] for a in annotations if isinstance(a.get("long_answer"), str)
        ]
        records.append(
            FullciteRecord(
                id=sample_id,
                source="asqa",
                question=item["question"],
                question_type="factoid",
                docs=docs,
                gold_spans=gold or [],
                reference_answers=references or [item["answer"]],
                extra={
                    "qa_pairs": item["qa_pairs"],
                    "gold_spans_status": span_status(spans, gold),
                },
            )
        )
    return records


def asqa_source(
    dataset_path: str | None, ndoc: int, *, spans: SpanTable | None = None
) -> SourceData:
    """FullCite's ASQA records from ``dataset_path`` or ALCE's pinned ASQA file (GTR top 100).

    Raises:
        AlceDataError: The file is missing, cannot be downloaded or is malformed.

    """
    from inspect_cite.alce.data import (
        ALCE_DATA_HUB,
        AlceDataError,
        alce_data_path,
        eval_file_name,
        load_items,
    )

    name = eval_file_name("asqa", "gtr", False)
    path, info = dataset_file(
        dataset_path,
        lambda: (alce_data_path(name), ALCE_DATA_HUB.provenance(name)),
        AlceDataError,
    )
    items = load_items(path, "asqa")
    records = asqa_records(items, ndoc, spans)
    return SourceData(
        records=records,
        counts={"items": len(records)},
        data=info,
        span_documents=asqa_span_documents(items) if spans is not None else None,
    )


def asqa_span_documents(items: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Every passage of every item (not only the ``ndoc`` shown), by sample id and doc id.

    The ids are those :func:`asqa_records` gives: a passage's slug depends only on the titles
    before it, so the first ``ndoc`` get the same ids here as in a run.
    """
    documents: dict[str, dict[str, str]] = {}
    for index, item in enumerate(items):
        ids = unique_slugs([p["title"] for p in item["docs"]])
        by_id = dict(zip(ids, (p["text"] for p in item["docs"]), strict=True))
        documents.setdefault(asqa_sample_id(item, index), {}).update(by_id)
    return documents
