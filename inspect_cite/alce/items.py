"""What each field of an ALCE item must hold: one check for the Inspect tasks and ``alce-eval``.

The ALCE tasks (``inspect_cite.alce.data``) check every field their dataset needs when they load a
file; ``alce-eval`` checks the fields the requested metrics read. Both ask :func:`item_problem`,
so an item one route rejects is never scored as 0 by the other. Problems are returned as text
(``'"answers"[0] must be a list of strings'``); each caller adds the file and item and raises
its own error.
"""

from collections.abc import Iterable, Mapping
from typing import Any

from inspect_cite.benchmarks.alce import ALCE_DATASETS

REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    name: dataset.fields for name, dataset in ALCE_DATASETS.items()
}
"""The fields an ALCE task needs, per dataset (its row in the registry)."""

FIELD_TYPES: dict[str, type] = {
    "question": str,
    "answer": str,
    "qa_pairs": list,
    "answers": list,
    "claims": list,
    "docs": list,
    "annotations": list,
}
"""The JSON type of each field."""
# Optional document fields: when present they are read as text (sum_or_ext prompts, eval.py).
_DOC_TEXT_FIELDS = ("summary", "extraction", "sent")


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def docs_problem(docs: list[Any], field: str = "docs", nli: bool = False) -> str | None:
    """Why a document list is unusable: each needs a string ``title`` and ``text``.

    Args:
        docs: The documents.
        field: The field name to report.
        nli: Check the documents as eval.py reads them for NLI, where a ``sent`` field
            replaces ``text``.

    """
    for j, doc in enumerate(docs):
        if not isinstance(doc, dict):
            return f'"{field}"[{j}] must be an object'
        text_field = "sent" if nli and "sent" in doc else "text"
        for key in ("title", text_field):
            if not isinstance(doc.get(key), str):
                return f'"{field}"[{j}] field "{key}" must be a string'
        for key in _DOC_TEXT_FIELDS:
            if key in doc and not isinstance(doc[key], str):
                return f'"{field}"[{j}] field "{key}" must be a string'
    return None


def _qa_pairs_problem(pairs: list[Any], qa: bool) -> str | None:
    for j, pair in enumerate(pairs):
        if not isinstance(pair, dict) or not isinstance(pair.get("short_answers"), list):
            return f'"qa_pairs"[{j}] needs a list "short_answers"'
        if not _strings(pair["short_answers"]):
            return f'"qa_pairs"[{j}] field "short_answers" must be a list of strings'
        if ("question" in pair or qa) and not isinstance(pair.get("question"), str):
            return f'"qa_pairs"[{j}] field "question" must be a string'
        if qa and not pair["short_answers"]:
            return f'"qa_pairs"[{j}] has no "short_answers" to score QA accuracy against'
    if qa and not pairs:
        return '"qa_pairs" is empty: QA accuracy needs at least one'
    return None


def _content_problem(field: str, value: Any, nli: bool, qa: bool) -> str | None:
    if field == "docs":
        return docs_problem(value, nli=nli)
    if field == "qa_pairs":
        return _qa_pairs_problem(value, qa)
    if field == "answers":
        for j, group in enumerate(value):
            if not _strings(group):
                return f'"answers"[{j}] must be a list of strings'
    if field == "claims" and not _strings(value):
        return '"claims" must be a list of strings'
    if field == "annotations":
        for j, annotation in enumerate(value):
            if not isinstance(annotation, dict) or not isinstance(
                annotation.get("long_answer"), str
            ):
                return f'"annotations"[{j}] needs a string "long_answer"'
        if len(value) < 2:
            # eval.py and the ROUGE scorer compare with the first two annotations.
            return f'"annotations" must hold two annotations, got {len(value)}'
    return None


def field_problem(
    item: Mapping[str, Any], field: str, nli: bool = False, qa: bool = False
) -> str | None:
    """Why ``item[field]`` is missing or unusable, or None.

    Args:
        item: The ALCE item.
        field: One of question, answer, qa_pairs, answers, claims, docs, annotations.
        nli: Documents are read as eval.py's NLI reads them (``sent`` replaces ``text``).
        qa: ``qa_pairs`` feed QA accuracy (each needs a question and a short answer).

    """
    if field not in item:
        return f'missing field "{field}"'
    value = item[field]
    typ = FIELD_TYPES[field]
    if not isinstance(value, typ):
        return f'field "{field}" must be {typ.__name__}, got {type(value).__name__}'
    return _content_problem(field, value, nli, qa)


def item_problem(
    item: Any, fields: Iterable[str], nli: bool = False, qa: bool = False
) -> str | None:
    """Why an ALCE item is unusable for what reads ``fields``, or None.

    ``annotations`` (ASQA's two long answers, read by ROUGE) is checked whenever it is present
    and not null.
    """
    if not isinstance(item, dict):
        return f"expected an object, got {type(item).__name__}"
    wanted = list(fields)
    if item.get("annotations") is not None and "annotations" not in wanted:
        wanted.append("annotations")
    for field in wanted:
        problem = field_problem(item, field, nli=nli, qa=qa)
        if problem is not None:
            return problem
    return None


def demo_problem(demo: Any, needs_docs: bool) -> str | None:
    """Why a prompt file's demonstration is unusable (``question``, ``answer``, ``docs``)."""
    if not isinstance(demo, dict):
        return f"must be an object, got {type(demo).__name__}"
    for key in ("question", "answer"):
        if key not in demo:
            return f'has no "{key}"'
    if not isinstance(demo["question"], str):
        return f'field "question" must be a string, got {type(demo["question"]).__name__}'
    answer = demo["answer"]
    if not isinstance(answer, str) and not _strings(answer):
        return f'field "answer" must be a string or a list of strings, got {type(answer).__name__}'
    if needs_docs:
        if not isinstance(demo.get("docs"), list):
            return 'needs a list "docs" (the prompt shows documents)'
        return docs_problem(demo["docs"])
    return None
