"""One FullCite question with its context documents and gold evidence spans, before ordering."""

from dataclasses import dataclass, field
from typing import Any

from inspect_cite.evidence.gold_spans import GoldSpan


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


@dataclass
class SourceData:
    """What a FullCite source loader returns: the records and what to log about them.

    Attributes:
        records: The questions, in the data file's order.
        counts: How many questions were kept and why others were not.
        data: Provenance of the data (``path`` or ``repo``/``revision``/``file``, ``sha256``,
            and the source's own files, e.g. BioASQ's abstracts).
        gold_source: Where gold spans come from when the source has its own (BioASQ's
            snippets); None when they come from a spans file or the annotator.
        span_documents: With a spans file: every document of every item, by sample id and
            doc id (its text), which the spans file is checked against
            (``inspect_cite.evidence.gold_spans.check_spans_file``).

    """

    records: list[FullciteRecord]
    counts: dict[str, int]
    data: dict[str, Any]
    gold_source: str | None = None
    span_documents: dict[str, dict[str, str]] | None = None
