"""One FullCite question with its context documents and gold evidence spans, before ordering."""

from dataclasses import dataclass, field
from typing import Any, TypedDict


class GoldSpan(TypedDict):
    """One gold evidence span: verbatim text of a context document."""

    doc_id: str
    span: str


@dataclass
class FullciteRecord:
    """A question ready to become a Sample (documents still in retrieval order).

    Attributes:
        id: Stable sample id.
        source: ``bioasq``, ``asqa`` or ``expertqa``.
        question: The question text.
        question_type: The grouping key for bias reports (BioASQ's type, ExpertQA's first
            question type, ``factoid`` for ASQA).
        docs: Context documents ``{"id", "title", "text"}`` in retrieval order (at most ndoc).
        gold_spans: Gold evidence spans of those documents.
        reference_answers: Reference long answers (ideal answers, annotations, revised answer).
        extra: Dataset-specific metadata kept on the sample (exact answers, qa_pairs, ...).

    """

    id: str
    source: str
    question: str
    question_type: str
    docs: list[dict[str, Any]]
    gold_spans: list[GoldSpan] = field(default_factory=list)
    reference_answers: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
