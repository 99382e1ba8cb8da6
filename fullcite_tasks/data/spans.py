"""A sample's gold spans from a spans file, and locating a dataset's snippet in a document.

The spans file and its reading are :mod:`inspect_cite.evidence.gold_spans`'s.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from inspect_cite.evidence.gold_spans import GoldSpan, SpanTable
from inspect_cite.text.alignment import DEFAULT_THRESHOLD, align
from inspect_cite.text.verbatim import find_verbatim

LocateMethod = Literal["offset", "search", "title", "aligned"]


def gold_spans_for(
    table: SpanTable | None, sample_id: str, doc_ids: Iterable[str]
) -> list[GoldSpan] | None:
    """The gold spans of a sample's context documents; None when the sample is not in the table."""
    if table is None or sample_id not in table:
        return None
    by_doc = table[sample_id]
    return [
        GoldSpan(doc_id=doc_id, span=span) for doc_id in doc_ids for span in by_doc.get(doc_id, [])
    ]


def span_status(table: SpanTable | None, gold: list[GoldSpan] | None) -> str:
    """``given`` (from the file), ``not_in_spans_file`` or ``missing`` (no file: annotate)."""
    if gold is not None:
        return "given"
    return "missing" if table is None else "not_in_spans_file"


@dataclass(frozen=True)
class LocatedSpan:
    """Where a gold snippet was found in a document.

    Attributes:
        span: The verbatim document text (title text for ``method="title"``).
        start: Offset in the document text (or title).
        end: Offset just past the span.
        method: ``offset`` (the dataset's offsets matched), ``search`` (found by text search,
            exact or ignoring case and whitespace), ``title`` (found in the title), ``aligned``
            (word-set Jaccard alignment >= 0.7, for text that changed since annotation).

    """

    span: str
    start: int
    end: int
    method: LocateMethod


def _search(snippet: str, text: str) -> tuple[int, int] | None:
    found = find_verbatim(snippet, text)
    if found is not None:
        return found
    words = snippet.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.search(pattern, text, flags=re.IGNORECASE)
    return (m.start(), m.end()) if m else None


def locate_snippet(
    snippet: str,
    text: str,
    title: str = "",
    begin: int | None = None,
    end: int | None = None,
    section: str | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> LocatedSpan | None:
    """Find a gold snippet in a document: by its offsets, by search, in the title, by alignment.

    Args:
        snippet: The snippet text as the dataset gives it.
        text: The document text (abstract).
        title: The document title.
        begin: The dataset's start offset in ``section`` (BioASQ ``offsetInBeginSection``).
        end: The dataset's end offset (BioASQ ``offsetInEndSection``; exclusive, or inclusive in
            older releases: both are tried).
        section: ``title`` when the offsets refer to the title, else the text.
        threshold: Least word-set Jaccard for the alignment fallback.

    Returns:
        The located span, or None when the snippet is not in the document.

    """
    snippet = snippet.strip()
    if not snippet:
        return None
    in_title = section is not None and section.strip().lower() == "title"
    if begin is not None and end is not None and not in_title:
        for stop in (end, end + 1):
            if 0 <= begin < stop <= len(text) and text[begin:stop].strip() == snippet:
                return LocatedSpan(text[begin:stop], begin, stop, "offset")
    found = _search(snippet, text)
    if found is not None:
        return LocatedSpan(text[found[0] : found[1]], found[0], found[1], "search")
    found = _search(snippet, title) if title else None
    if found is not None:
        return LocatedSpan(title[found[0] : found[1]], found[0], found[1], "title")
    aligned = align(snippet, text, threshold)
    if aligned is not None:
        return LocatedSpan(aligned.text, aligned.start, aligned.end, "aligned")
    return None
