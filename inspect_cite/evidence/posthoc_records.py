"""The posthoc solver's citation records: what ``solvers/posthoc`` writes and the scorers read.

``posthoc_citations`` rewrites the model's answer and stores one :class:`PosthocCitation` per
citation in ``state.metadata["posthoc"]["citations"]``. Each record carries ``start``/``end``,
the offsets of the citation's markup in the rewritten answer (the sample's output with think
blocks removed and whitespace stripped), so a scorer finds the record of a citation it parsed
by offset, whatever the other citations re-parse to.
"""

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, TypedDict

PosthocStatus = Literal["aligned", "unaligned", "invalid_doc_id"]
"""What alignment did to one citation."""

ALIGNED: Final = "aligned"
"""The snippet was replaced by (or already was) a verbatim span of the cited document."""
UNALIGNED: Final = "unaligned"
"""No span reached the threshold: the citation is kept as written and counts as invalid."""
INVALID_DOC_ID: Final = "invalid_doc_id"
"""The doc id is not one of the context documents: kept as written."""
STATUSES: Final[tuple[PosthocStatus, ...]] = (ALIGNED, UNALIGNED, INVALID_DOC_ID)


class PosthocCitation(TypedDict):
    """One citation after posthoc alignment (stored as a plain dict in the sample metadata)."""

    doc_id: str
    """The cited document id, as written."""
    snippet: str
    """The snippet as the model wrote it."""
    aligned: str | None
    """The verbatim span that replaced it (None when unaligned)."""
    jaccard: float | None
    """Word-set Jaccard of snippet and span (None when unaligned)."""
    doc_start: int | None
    """Offset of the span in the document's text (None when unaligned)."""
    doc_end: int | None
    """End offset of the span in the document's text (None when unaligned)."""
    verbatim: bool
    """The snippet was already verbatim in the document."""
    status: PosthocStatus
    """What alignment did."""
    start: int
    """Offset of the citation's markup in the rewritten answer."""
    end: int
    """End offset of the citation's markup in the rewritten answer."""


def unaligned_spans(
    metadata: Mapping[str, Any], citations: Sequence[tuple[str, str, int, int]] = ()
) -> set[tuple[int, int]]:
    """``(start, end)`` in the rewritten answer of every citation posthoc could not align.

    Empty for samples the posthoc solver did not handle; records that are not well-formed are
    ignored, never raised on.

    Args:
        metadata: The sample's metadata.
        citations: The answer's parsed citations as ``(doc_id, snippet, start, end)``, in order.
            A record is joined by its offsets when the citation there is the one it describes
            (an unaligned citation stays in the answer as written). Otherwise (a log written
            before records had offsets, or text the scorer's reading removed before the
            citation, such as a literal ``</think>`` in an aligned snippet) it marks the first
            citation not yet marked that has its doc id and snippet.

    """
    posthoc = metadata.get("posthoc")
    records = posthoc.get("citations") if isinstance(posthoc, Mapping) else None
    if not isinstance(records, list):
        return set()
    unaligned = [r for r in records if isinstance(r, Mapping) and r.get("status") == UNALIGNED]
    by_offset = {(start, end): (doc_id, snippet) for doc_id, snippet, start, end in citations}
    spans: set[tuple[int, int]] = set()
    unjoined = []
    for r in unaligned:
        start, end = r.get("start"), r.get("end")
        written = (r.get("doc_id"), r.get("snippet"))
        if (
            isinstance(start, int)
            and isinstance(end, int)
            and (not citations or by_offset.get((start, end)) == written)
        ):
            spans.add((start, end))
        else:
            unjoined.append(written)
    for written in unjoined:
        for doc_id, snippet, start, end in citations:
            if (doc_id, snippet) == written and (start, end) not in spans:
                spans.add((start, end))
                break
    return spans
