"""BioASQ task b: questions, their PubMed documents, and gold snippets located in the abstracts.

BioASQ data needs a (free) registration, so there is no download: pass a local task-b JSON
(``{"questions": [{id, type, body, documents, snippets, exact_answer, ideal_answer}]}``).
Documents are PubMed URLs; their titles and abstracts come from NCBI (see ``pubmed.py``) or
from a local JSON file ``{PMID: {"title", "abstract"}}``.
"""

import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from fullcite_tasks.data.pubmed import Abstract, PubMedClient
from fullcite_tasks.data.records import FullciteRecord, SourceData
from fullcite_tasks.data.spans import locate_snippet
from inspect_cite.checks.errors import ArgumentError, PreflightError
from inspect_cite.checks.record_check import (
    INTEGER,
    LIST,
    OBJECT,
    STRING,
    STRING_OR_LIST,
    RecordCheck,
    each_problem,
    problems_error,
)
from inspect_cite.downloads.files import read_json
from inspect_cite.downloads.http_client import redact_url
from inspect_cite.downloads.hub_files import file_provenance
from inspect_cite.evidence.documents import docs_by_id
from inspect_cite.evidence.gold_spans import GoldSpan, SpanTable

BIOASQ_DATASETS_URL = "https://participants-area.bioasq.org/datasets/"

BioasqQuestionType = Literal["yesno", "factoid", "list", "summary"]
QUESTION_TYPES: tuple[str, ...] = ("yesno", "factoid", "list", "summary")
_TYPE_ALIASES = {"yes/no": "yesno", "yes_no": "yesno", "yes-no": "yesno"}

_PMID_AT_END = re.compile(r"(\d+)\s*/?\s*$")
_SNIPPET_OFFSETS = ("offsetInBeginSection", "offsetInEndSection")


class BioasqDataError(PreflightError, ValueError):
    """BioASQ data or abstracts are missing or malformed."""


def _registration_hint() -> str:
    return (
        "BioASQ data needs a free registration: sign up at participants-area.bioasq.org, "
        f"download a Task B set with gold answers ({BIOASQ_DATASETS_URL}, e.g. the training "
        "set or a test batch with golden answers) and pass -T dataset_path=<path to the JSON>"
    )


def load_bioasq(path: str | Path | None) -> list[dict[str, Any]]:
    """Read and validate a BioASQ task-b JSON file.

    Raises:
        BioasqDataError: The file is missing (with where to get it) or malformed (naming,
            for every question at fault, its index and field).

    """
    if path is None:
        raise BioasqDataError(
            f"fullcite_tasks/bioasq needs -T dataset_path. {_registration_hint()}"
        )
    path = Path(path)
    data = read_json(path, "BioASQ file", BioasqDataError, f". {_registration_hint()}")
    questions = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(questions, list):
        raise BioasqDataError(f'BioASQ file {path}: expected an object with a "questions" list')
    # Every question is checked before the file is refused: one error names each at fault.
    problems = each_problem(
        enumerate(questions),
        lambda entry: _check_question(entry[1], f"BioASQ file {path} question {entry[0]}"),
        BioasqDataError,
    )
    if problems:
        raise problems_error(f"BioASQ file {path}", problems, BioasqDataError)
    return questions


def _check_question(q: Any, where: str) -> None:
    """Every field of a question the loader reads, at every depth (``RecordCheck``)."""
    check = RecordCheck(where, BioasqDataError)
    check.require(q, (), OBJECT)
    check.where = f"{where} (id {json.dumps(check.require(q, ('id',), STRING))})"
    check.require(q, ("body",), STRING)
    if normalise_type(check.require(q, ("type",), STRING)) not in QUESTION_TYPES:
        check.fail(f'field "type" is {q["type"]!r}, expected one of {QUESTION_TYPES}')
    for k, url in enumerate(check.list_of(q, ("documents",), STRING)):
        pmid_from_url(url, f'{check.where}: field "documents[{k}]"')
    for j, _ in enumerate(check.require(q, ("snippets",), LIST, optional=True) or []):
        check.require(q, ("snippets", j), OBJECT)
        check.require(q, ("snippets", j, "text"), STRING)
        url = check.require(q, ("snippets", j, "document"), STRING)
        pmid_from_url(url, f'{check.where}: field "snippets[{j}].document"')
        for key in _SNIPPET_OFFSETS:
            check.require(q, ("snippets", j, key), INTEGER, optional=True)
        check.require(q, ("snippets", j, "beginSection"), STRING, optional=True)
    if isinstance(check.require(q, ("ideal_answer",), STRING_OR_LIST, optional=True), list):
        check.list_of(q, ("ideal_answer",), STRING)
    # yesno: "yes"; factoid and list: synonym lists [["a", "a2"], ["b"]] (older: ["a", "b"]).
    if isinstance(check.require(q, ("exact_answer",), STRING_OR_LIST, optional=True), list):
        for k, entry in enumerate(check.list_of(q, ("exact_answer",), STRING_OR_LIST)):
            if isinstance(entry, list):
                check.list_of(q, ("exact_answer", k), STRING)


def normalise_type(value: str) -> str:
    """BioASQ's type name (``yesno``) from common spellings (``yes/no``)."""
    value = value.strip().lower()
    return _TYPE_ALIASES.get(value, value)


def parse_question_types(value: str | Iterable[str] | None) -> tuple[str, ...] | None:
    """``-T question_types=`` as a tuple of BioASQ types (comma-separated string or list).

    Raises:
        ArgumentError: An unknown type (a ``ValueError``).

    """
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    types = tuple(dict.fromkeys(normalise_type(str(t)) for t in items if str(t).strip()))
    unknown = [t for t in types if t not in QUESTION_TYPES]
    if unknown or not types:
        raise ArgumentError(
            f"-T question_types={value}: question_types must be among {QUESTION_TYPES}, "
            "comma-separated"
        )
    return types


def pmid_from_url(url: str, where: str = "BioASQ") -> str:
    """The PMID at the end of a PubMed URL (``http://www.ncbi.nlm.nih.gov/pubmed/15858239``)."""
    m = _PMID_AT_END.search(url)
    if m is None:
        raise BioasqDataError(f"{where}: cannot read a PubMed id from {url!r}")
    return m.group(1)


def load_abstracts_file(path: str | Path) -> dict[str, Abstract]:
    """Read ``{PMID: {"title": ..., "abstract": ...}}`` (``-T abstracts_path``).

    Raises:
        BioasqDataError: The file is missing or malformed (naming the PMID and field).

    """
    path = Path(path)
    data = read_json(path, "abstracts file", BioasqDataError, " (-T abstracts_path)")
    if not isinstance(data, dict):
        raise BioasqDataError(
            f"abstracts file {path}: expected an object PMID -> {{title, abstract}}"
        )
    out = {}
    for pmid, entry in data.items():
        check = RecordCheck(f"abstracts file {path} PMID {pmid!r}", BioasqDataError)
        check.require(entry, (), OBJECT)
        title = check.require(entry, ("title",), STRING, optional=True)
        abstract = check.require(entry, ("abstract",), STRING, optional=True)
        out[str(pmid)] = Abstract(pmid=str(pmid), title=title or "", abstract=abstract or "")
    return out


def question_pmids(question: Mapping[str, Any]) -> list[str]:
    """The question's PMIDs in the order BioASQ lists them, without duplicates."""
    return list(dict.fromkeys(pmid_from_url(u) for u in question["documents"]))


def select_abstracts(
    questions: list[dict[str, Any]],
    ndoc: int,
    fetch: Callable[[list[str]], Mapping[str, Abstract]],
) -> dict[str, Abstract]:
    """Fetch abstracts until every question has ``ndoc`` documents with one (or runs out).

    The first ``ndoc`` PMIDs of each question are fetched first; where some have no abstract,
    the next ones are fetched in further rounds, so a run asks only for what it shows.
    """
    have: dict[str, Abstract] = {}
    cursor = [0] * len(questions)
    while True:
        wanted: list[str] = []
        for i, q in enumerate(questions):
            pmids = question_pmids(q)
            usable = sum(1 for p in pmids[: cursor[i]] if _usable(have.get(p)))
            need = ndoc - usable
            if need <= 0 or cursor[i] >= len(pmids):
                continue
            nxt = pmids[cursor[i] : cursor[i] + need]
            cursor[i] += len(nxt)
            wanted += [p for p in nxt if p not in have]
        if not wanted:
            return have
        have.update(fetch(list(dict.fromkeys(wanted))))


def _usable(abstract: Abstract | None) -> bool:
    return abstract is not None and not abstract.missing and bool(abstract.abstract.strip())


def _ideal_answers(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str) and v.strip()]
    return []


def bioasq_records(
    questions: list[dict[str, Any]],
    abstracts: Mapping[str, Abstract],
    ndoc: int,
    question_types: tuple[str, ...] | None = None,
) -> tuple[list[FullciteRecord], dict[str, int]]:
    """Turn BioASQ questions into records: up to ``ndoc`` documents with abstracts, gold spans.

    Gold spans are the question's snippets from the shown documents, located in the abstract
    (``locate_snippet``: offsets, then search, title, alignment). Snippets that cannot be
    located are listed in ``extra["unlocated_snippets"]``, never silently dropped.

    Returns:
        The records and counts (``questions``, ``kept``, ``filtered_type``, ``no_documents``,
        ``snippets_located``, ``snippets_unlocated``, ``snippets_outside_context``).

    """
    stats = dict.fromkeys(
        (
            "questions",
            "kept",
            "filtered_type",
            "no_documents",
            "snippets_located",
            "snippets_unlocated",
            "snippets_outside_context",
        ),
        0,
    )
    records = []
    for q in questions:
        stats["questions"] += 1
        qtype = normalise_type(q["type"])
        if question_types is not None and qtype not in question_types:
            stats["filtered_type"] += 1
            continue
        docs = []
        for pmid in question_pmids(q):
            abstract = abstracts.get(pmid)
            if abstract is not None and _usable(abstract):
                docs.append({"id": pmid, "title": abstract.title, "text": abstract.abstract})
            if len(docs) == ndoc:
                break
        if not docs:
            stats["no_documents"] += 1
            continue
        by_id = docs_by_id(docs)
        gold: list[GoldSpan] = []
        located: list[dict[str, Any]] = []
        unlocated: list[dict[str, Any]] = []
        for s in q.get("snippets") or []:
            pmid = pmid_from_url(s["document"], f"question {q['id']}")
            if pmid not in by_id:
                stats["snippets_outside_context"] += 1
                continue
            doc = by_id[pmid]
            found = locate_snippet(
                s["text"],
                doc["text"],
                doc["title"],
                begin=s.get("offsetInBeginSection"),
                end=s.get("offsetInEndSection"),
                section=s.get("beginSection"),
            )
            if found is None:
                stats["snippets_unlocated"] += 1
                unlocated.append({"doc_id": pmid, "text": s["text"]})
                continue
            stats["snippets_located"] += 1
            located.append(
                {"doc_id": pmid, "method": found.method, "start": found.start, "end": found.end}
            )
            if not any(g["doc_id"] == pmid and g["span"] == found.span for g in gold):
                gold.append(GoldSpan(doc_id=pmid, span=found.span))
        records.append(
            FullciteRecord(
                id=q["id"],
                source="bioasq",
                question=q["body"],
                question_type=qtype,
                docs=docs,
                gold_spans=gold,
                reference_answers=_ideal_answers(q.get("ideal_answer")),
                extra={
                    "exact_answer": q.get("exact_answer"),
                    "snippet_locations": located,
                    "unlocated_snippets": unlocated,
                    "gold_spans_status": "bioasq",
                },
            )
        )
        stats["kept"] += 1
    return records, stats


def bioasq_source(
    dataset_path: str | None,
    ndoc: int,
    *,
    spans: SpanTable | None = None,
    abstracts_path: str | None = None,
    question_types: str | list[str] | None = None,
) -> SourceData:
    """FullCite's BioASQ records: questions from ``dataset_path``, abstracts from a file or NCBI.

    Gold spans are BioASQ's own snippets located in the abstracts (``spans`` is not read: the
    task offers no spans file for BioASQ).

    Raises:
        BioasqDataError: The data file is missing or malformed.

    """
    questions = load_bioasq(dataset_path)
    types = parse_question_types(question_types)
    kept = [q for q in questions if types is None or normalise_type(q["type"]) in types]
    data = file_provenance(dataset_path) if dataset_path else {}
    if abstracts_path:
        abstracts = load_abstracts_file(abstracts_path)
        data["abstracts"] = file_provenance(abstracts_path)
    else:
        client = PubMedClient()
        abstracts = select_abstracts(kept, ndoc, client.fetch)
        data["abstracts"] = {
            "eutils": redact_url(client.base_url),
            "requests": client.requests_made,
        }
    records, counts = bioasq_records(questions, abstracts, ndoc, types)
    return SourceData(
        records=records,
        counts=counts,
        data=data,
        gold_source="bioasq snippets located in the abstracts",
    )
