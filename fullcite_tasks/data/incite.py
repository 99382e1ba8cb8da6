"""The FullCite authors' released outputs (their human-evaluation app) as records to rescore.

Each record of ``human_eval_2.json`` / ``human_evaluation_data.json`` has ``question``,
``source``, ``generated_answer`` and ``citations[{doc_id, snippet, full_document}]``. There is
no context list: the documents are the cited ``full_document``s, in the order first cited,
and the gold spans are the cited snippets. Their extractor sometimes glued the snippet key to
the id (``"the-sound-of-silence snippet"``); that suffix is removed.
"""

from pathlib import Path
from typing import Any

from fullcite_tasks.data.records import FullciteRecord
from inspect_cite.checks.record_check import ID, LIST, OBJECT, STRING, RecordCheck
from inspect_cite.downloads.files import read_json
from inspect_cite.evidence.gold_spans import GoldSpan

_ROW_TEXTS = ("question", "source", "generated_answer")
_CITATION_TEXTS = ("snippet", "full_document")


def _doc_id(raw: Any) -> str:
    return str(raw).strip().removesuffix(" snippet").strip()


def incite_records(path: str | Path) -> list[tuple[FullciteRecord, str]]:
    """Records (documents = cited documents, gold = cited snippets) and each generated answer.

    Raises:
        ValueError: The file is not a list of records with the fields above (naming the
            record and field).

    """
    path = Path(path)
    rows = read_json(path, "FullCite outputs file", ValueError)
    if not isinstance(rows, list):
        raise ValueError(f"{path}: expected a list of records")
    out = []
    for i, row in enumerate(rows):
        check = RecordCheck(
            f'FullCite outputs file {path} record {i} (id "{path.stem}-{i}")', ValueError
        )
        check.require(row, (), OBJECT)
        for key in _ROW_TEXTS:
            check.require(row, (key,), STRING)
        for k, _ in enumerate(check.require(row, ("citations",), LIST)):
            check.require(row, ("citations", k), OBJECT)
            check.require(row, ("citations", k, "doc_id"), ID)
            for key in _CITATION_TEXTS:
                check.require(row, ("citations", k, key), STRING)
        docs: dict[str, dict[str, Any]] = {}
        gold: list[GoldSpan] = []
        for c in row["citations"]:
            doc_id = _doc_id(c["doc_id"])
            docs.setdefault(doc_id, {"id": doc_id, "title": doc_id, "text": c["full_document"]})
            if c["snippet"].strip() and not any(
                g["doc_id"] == doc_id and g["span"] == c["snippet"] for g in gold
            ):
                gold.append(GoldSpan(doc_id=doc_id, span=c["snippet"]))
        record = FullciteRecord(
            id=f"{path.stem}-{i}",
            source=row["source"],
            question=row["question"],
            question_type=row["source"],
            docs=list(docs.values()),
            gold_spans=gold,
        )
        out.append((record, row["generated_answer"]))
    return out
