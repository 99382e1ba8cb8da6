"""What each field of an ALCE item must hold: one check for the Inspect tasks and ``alce-eval``.

The ALCE tasks (``inspect_cite.alce.data``) check every field their dataset needs when they load a
file; ``alce-eval`` checks the fields the requested metrics read. Both ask the checks here, so
an item one route rejects is never scored as 0 by the other. Problems are returned, never
raised: :func:`item_problems` lists every one with its field path (the tasks name each as
``file:index:field``), :func:`item_problem` and :func:`field_problem` give the first as a
sentence (``'"answers"[0] must be a list of strings'``); each caller adds the file and item and
raises its own error.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from inspect_cite.benchmarks.alce import ALCE_DATASETS
from inspect_cite.checks.record_check import field_name

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


@dataclass(frozen=True)
class FieldProblem:
    """One problem of an ALCE item, at a field path.

    Attributes:
        path: From the item to the field at fault (``("docs", 2, "text")``); empty for the
            item itself.
        problem: What is wrong there (``must be a string, got null``), for ``file:index:field``
            lines (:meth:`at`).
        message: The same as one sentence naming the field (``"docs"[2] field "text" must be a
            string``): what the scorers' and ``alce-eval``'s messages say.

    """

    path: tuple[str | int, ...]
    problem: str
    message: str

    def at(self, where: str) -> str:
        """``<where>:<field path>: <problem>``, e.g. ``data.json:3:docs[2].text: missing``."""
        return f"{where}:{field_name(self.path) or '(item)'}: {self.problem}"


_JSON_NAMES = {
    bool: "true or false",
    int: "a number",
    float: "a number",
    str: "a string",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


def _json_name(value: Any) -> str:
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _in_list(field: str, j: int, problem: str) -> FieldProblem:
    return FieldProblem((field, j), problem, f'"{field}"[{j}] {problem}')


def _in_entry(
    field: str, j: int, key: str, problem: str, entry: Mapping[str, Any] | None = None
) -> FieldProblem:
    # The file:index:field line also says what `entry` holds there (when given).
    shown = problem
    if entry is not None:
        shown += " (it is missing)" if key not in entry else f", got {_json_name(entry[key])}"
    return FieldProblem((field, j, key), shown, f'"{field}"[{j}] field "{key}" {problem}')


def _of_field(field: str, problem: str) -> FieldProblem:
    return FieldProblem((field,), problem, f'"{field}" {problem}')


def docs_problems(docs: list[Any], field: str = "docs", nli: bool = False) -> list[FieldProblem]:
    """Every problem of a document list: each needs a string ``title`` and ``text``.

    Args:
        docs: The documents.
        field: The field name to report.
        nli: Check the documents as eval.py reads them for NLI, where a ``sent`` field
            replaces ``text``.

    """
    problems = []
    for j, doc in enumerate(docs):
        if not isinstance(doc, dict):
            problems.append(_in_list(field, j, "must be an object"))
            continue
        text_field = "sent" if nli and "sent" in doc else "text"
        for key in ("title", text_field):
            if not isinstance(doc.get(key), str):
                problems.append(_in_entry(field, j, key, "must be a string", doc))
        for key in _DOC_TEXT_FIELDS:
            if key in doc and not isinstance(doc[key], str):
                problems.append(_in_entry(field, j, key, "must be a string", doc))
    return problems


def docs_problem(docs: list[Any], field: str = "docs", nli: bool = False) -> str | None:
    """The first of :func:`docs_problems` as a sentence, or None."""
    problems = docs_problems(docs, field, nli)
    return problems[0].message if problems else None


def _qa_pairs_problems(pairs: list[Any], qa: bool) -> list[FieldProblem]:
    problems = []
    for j, pair in enumerate(pairs):
        if not isinstance(pair, dict) or not isinstance(pair.get("short_answers"), list):
            problems.append(_in_list("qa_pairs", j, 'needs a list "short_answers"'))
            continue
        if not _strings(pair["short_answers"]):
            problems.append(_in_entry("qa_pairs", j, "short_answers", "must be a list of strings"))
        if ("question" in pair or qa) and not isinstance(pair.get("question"), str):
            problems.append(_in_entry("qa_pairs", j, "question", "must be a string", pair))
        if qa and not pair["short_answers"]:
            problems.append(
                _in_list("qa_pairs", j, 'has no "short_answers" to score QA accuracy against')
            )
    if qa and not pairs:
        problems.append(_of_field("qa_pairs", "is empty: QA accuracy needs at least one"))
    return problems


def _content_problems(field: str, value: Any, nli: bool, qa: bool) -> list[FieldProblem]:
    if field == "docs":
        return docs_problems(value, nli=nli)
    if field == "qa_pairs":
        return _qa_pairs_problems(value, qa)
    if field == "answers":
        return [
            _in_list("answers", j, "must be a list of strings")
            for j, group in enumerate(value)
            if not _strings(group)
        ]
    if field == "claims" and not _strings(value):
        return [_of_field("claims", "must be a list of strings")]
    if field == "annotations":
        problems = [
            _in_list("annotations", j, 'needs a string "long_answer"')
            for j, annotation in enumerate(value)
            if not isinstance(annotation, dict)
            or not isinstance(annotation.get("long_answer"), str)
        ]
        if len(value) < 2:
            # eval.py and the ROUGE scorer compare with the first two annotations.
            problems.append(
                _of_field("annotations", f"must hold two annotations, got {len(value)}")
            )
        return problems
    return []


def field_problems(
    item: Mapping[str, Any], field: str, nli: bool = False, qa: bool = False
) -> list[FieldProblem]:
    """Every problem that makes ``item[field]`` missing or unusable ([] when none does).

    Args:
        item: The ALCE item.
        field: One of question, answer, qa_pairs, answers, claims, docs, annotations.
        nli: Documents are read as eval.py's NLI reads them (``sent`` replaces ``text``).
        qa: ``qa_pairs`` feed QA accuracy (each needs a question and a short answer).

    """
    if field not in item:
        return [FieldProblem((field,), "missing", f'missing field "{field}"')]
    value = item[field]
    typ = FIELD_TYPES[field]
    if not isinstance(value, typ):
        return [
            FieldProblem(
                (field,),
                f"must be {_JSON_NAMES[typ]}, got {_json_name(value)}",
                f'field "{field}" must be {typ.__name__}, got {type(value).__name__}',
            )
        ]
    return _content_problems(field, value, nli, qa)


def field_problem(
    item: Mapping[str, Any], field: str, nli: bool = False, qa: bool = False
) -> str | None:
    """Why ``item[field]`` is missing or unusable (the first of :func:`field_problems`), or None."""
    problems = field_problems(item, field, nli=nli, qa=qa)
    return problems[0].message if problems else None


def item_problems(
    item: Any, fields: Iterable[str], nli: bool = False, qa: bool = False
) -> list[FieldProblem]:
    """Every problem that makes an ALCE item unusable for what reads ``fields``.

    ``annotations`` (ASQA's two long answers, read by ROUGE) is checked whenever it is present
    and not null.
    """
    if not isinstance(item, dict):
        what = f"expected an object, got {type(item).__name__}"
        return [FieldProblem((), f"must be an object, got {_json_name(item)}", what)]
    wanted = list(fields)
    if item.get("annotations") is not None and "annotations" not in wanted:
        wanted.append("annotations")
    return [p for field in wanted for p in field_problems(item, field, nli=nli, qa=qa)]


def item_problem(
    item: Any, fields: Iterable[str], nli: bool = False, qa: bool = False
) -> str | None:
    """Why an ALCE item is unusable for what reads ``fields`` (the first problem), or None."""
    problems = item_problems(item, fields, nli=nli, qa=qa)
    return problems[0].message if problems else None


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
