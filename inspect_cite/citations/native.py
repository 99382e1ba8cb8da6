r"""Citations a provider returns with the text (Inspect's ``ContentText.citations``).

The one place that reads a reply's native citations and writes them in the tasks' own
citation formats, so that every existing scorer reads them unchanged:

- :func:`answer_blocks`: an assistant message's text blocks joined into one answer, each with
  its offsets in that answer and its citations (``DocumentCitation``, ``UrlCitation``, ...).
- :func:`render_native`: each sentence of a text block is a claim of the block's citations;
  each ``DocumentCitation`` becomes FullCite's ``{doc_id: X, snippet: Y}`` (``X``: the shown
  document at its document index, ``Y``: its ``cited_text``) or ALCE's ``[n]`` (``n``: the
  document index plus one), written after each sentence of the block (a provider that cites
  one block of two sentences cites both: written after the block alone, the first would read
  as uncited); one :class:`NativeCitation` record per citation.
- :func:`document_index`: the document a ``DocumentCitation`` points at (Anthropic's
  ``document_index``, which Inspect keeps in ``internal``).

Blocks are joined as the provider split them: Anthropic's blocks are consecutive pieces of one
text (``"The sky is "``, ``"blue"``, ``"."``), so nothing goes between them, except one space
where a block that ends a sentence meets one that starts with no space (a provider that returns
one sentence per block). Inspect's own ``message.text`` joins blocks with newlines, which would
cut an ALCE answer at its first block.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypedDict

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    Citation,
    ContentText,
    DocumentCitation,
)

from inspect_cite.citations.alce import render_marker
from inspect_cite.citations.fullcite import render_citation_any
from inspect_cite.text.sentences import sent_spans

NativeFormat = Literal["fullcite", "alce"]
"""The citation format native citations are written in: FullCite's or ALCE's."""

NativeStatus = Literal["cited", "unknown_document", "not_writable"]
"""What became of one native citation in the scored answer."""

CITED: Final = "cited"
"""Written in the task's format, citing a shown document."""
UNKNOWN_DOCUMENT: Final = "unknown_document"
"""Its document index is missing or names no shown document: written (FullCite: as an unknown
doc id; ALCE: as an out-of-range marker) when there is an index, so the scorers count it as
invalid; left out when there is none."""
NOT_WRITABLE: Final = "not_writable"
"""Its text cannot be written in the format (no cited text, or one no citation style can
carry); left out of the answer, kept in the record."""

# A block that ends a sentence ("... blue." or "... blue.)") before a block with no space.
_SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*$")
# Where citations go in a block: before the punctuation that closes it (ALCE's and FullCite's
# convention, "claim [1]." / "claim {doc_id: 1, snippet: ...}.").
_CLOSING = re.compile(r"[.!?;:,]+[\"'”’)\]]*$")


@dataclass(frozen=True)
class AnswerBlock:
    """One text block of an answer.

    Attributes:
        text: The block's text.
        start: Offset of the block in the joined answer.
        end: Offset after it.
        citations: The block's citations, as the provider returned them.

    """

    text: str
    start: int
    end: int
    citations: tuple[Citation, ...]


class NativeCitation(TypedDict):
    """One native citation and what it became (stored as a plain dict in sample metadata)."""

    document_index: int | None
    """The 0-based index of the cited document among those given (None when not known)."""
    doc_id: str | None
    """The shown document at that index (None when there is none)."""
    cited_text: str | None
    """The cited text as the provider returned it."""
    range: list[Any] | None
    """``[type, start, end]`` of the citation's range in the document (``char`` offsets)."""
    status: NativeStatus
    """What became of it."""
    start: int | None
    """Offset of its first written copy in the scored answer (None when not written)."""
    end: int | None
    """End offset of that copy in the scored answer."""


def final_assistant(messages: Sequence[ChatMessage]) -> ChatMessageAssistant | None:
    """The last assistant message of a conversation (the reply the answer was taken from)."""
    for message in reversed(messages):
        if isinstance(message, ChatMessageAssistant):
            return message
    return None


def answer_blocks(message: ChatMessage | None) -> list[AnswerBlock]:
    """A message's text blocks, joined as one answer (see the module docstring).

    Reasoning, tool use and other non-text content are left out; a message whose content is a
    string is one block without citations.
    """
    if message is None:
        return []
    content = message.content
    parts: list[tuple[str, tuple[Citation, ...]]]
    if isinstance(content, str):
        parts = [(content, ())]
    else:
        parts = [(c.text, tuple(c.citations or ())) for c in content if isinstance(c, ContentText)]
    blocks: list[AnswerBlock] = []
    pos = 0
    for text, citations in parts:
        if blocks and _needs_space(blocks[-1].text, text):
            pos += 1
        blocks.append(AnswerBlock(text, pos, pos + len(text), citations))
        pos += len(text)
    return blocks


def _needs_space(before: str, after: str) -> bool:
    return (
        bool(before and after)
        and not before[-1].isspace()
        and not after[0].isspace()
        and _SENTENCE_END.search(before) is not None
    )


def joined_text(blocks: Sequence[AnswerBlock]) -> str:
    """The answer the blocks make (:func:`answer_blocks`' offsets index it)."""
    out: list[str] = []
    pos = 0
    for block in blocks:
        out.append(" " * (block.start - pos) + block.text)
        pos = block.end
    return "".join(out)


def document_index(citation: Citation) -> int | None:
    """The 0-based index of the document a ``DocumentCitation`` cites, or None.

    Anthropic numbers the documents of a request in order; Inspect keeps the number in the
    citation's ``internal`` as ``document_index``.
    """
    if not isinstance(citation, DocumentCitation) or not citation.internal:
        return None
    index = citation.internal.get("document_index")
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        return None
    return index


def cited_text(citation: Citation, document: str | None) -> str | None:
    """A citation's cited text: its ``cited_text``, else the document's text at its range."""
    if isinstance(citation.cited_text, str):
        return citation.cited_text
    if (
        document is not None
        and isinstance(citation, DocumentCitation)
        and citation.range is not None
        and citation.range.type == "char"
    ):
        return document[citation.range.start_index : citation.range.end_index]
    return None


def _range(citation: Citation) -> list[Any] | None:
    if isinstance(citation, DocumentCitation) and citation.range is not None:
        r = citation.range
        return [r.type, r.start_index, r.end_index]
    return None


def _insert_point(text: str) -> int:
    """Where citations go in a sentence: before the punctuation and space that close it."""
    body = text.rstrip()
    closing = _CLOSING.search(body)
    return closing.start() if closing and closing.start() > 0 else len(body)


def _insert_points(text: str) -> list[int]:
    """Where a block's citations go: after each of its sentences (one point for a fragment)."""
    spans = sent_spans(text) or [(0, len(text))]
    return [start + _insert_point(text[start:end]) for start, end in spans]


def render_native(
    blocks: Sequence[AnswerBlock],
    docs: Sequence[Mapping[str, Any]],
    format: NativeFormat,
) -> tuple[str, list[NativeCitation]]:
    """The answer with each block's document citations written in the task's format.

    Args:
        blocks: The reply's text blocks (:func:`answer_blocks`).
        docs: The documents given to the model, in the order given (``id``, ``text``).
        format: ``fullcite`` (``{doc_id: X, snippet: Y}`` per citation) or ``alce`` (``[n]``
            per cited document, each document once per sentence), written after each
            sentence of the block.

    Returns:
        The answer (stripped) and one record per ``DocumentCitation``, in order. Citations of
        other kinds (``UrlCitation``) are not the documents' and are left out.

    """
    pieces: list[str] = []
    records: list[NativeCitation] = []
    written = 0  # length of the answer written so far
    pos = 0
    for block in blocks:
        pieces.append(" " * (block.start - pos))
        written += block.start - pos
        pos = block.end
        marks: list[tuple[str, NativeCitation]] = []
        for citation in block.citations:
            if not isinstance(citation, DocumentCitation):
                continue
            marks.append(_mark(citation, docs, format, {m for m, _ in marks}))
        done = 0  # how much of the block is written
        for cut in _insert_points(block.text) if marks else []:
            head = block.text[done:cut]
            pieces.append(head)
            written += len(head)
            done = cut
            for markup, record in marks:
                if markup:
                    written += 1  # the space before it
                    if record["start"] is None:
                        record["start"], record["end"] = written, written + len(markup)
                    pieces.append(" " + markup)
                    written += len(markup)
        records += [record for _, record in marks]
        tail = block.text[done:]
        pieces.append(tail)
        written += len(tail)
    answer = "".join(pieces)
    lead = len(answer) - len(answer.lstrip())
    for record in records:
        if record["start"] is not None and record["end"] is not None:
            record["start"] -= lead
            record["end"] -= lead
    return answer.strip(), records


def _mark(
    citation: DocumentCitation,
    docs: Sequence[Mapping[str, Any]],
    format: NativeFormat,
    already: set[str],
) -> tuple[str, NativeCitation]:
    """The markup of one citation ("" when it is not written) and its record."""
    index = document_index(citation)
    doc = docs[index] if index is not None and index < len(docs) else None
    text = cited_text(citation, str(doc["text"]) if doc is not None else None)
    record = NativeCitation(
        document_index=index,
        doc_id=str(doc["id"]) if doc is not None else None,
        cited_text=text,
        range=_range(citation),
        status=CITED if doc is not None else UNKNOWN_DOCUMENT,
        start=None,
        end=None,
    )
    if index is None:
        return "", record
    if format == "alce":
        markup = render_marker(index + 1)
        return ("" if markup in already else markup), record
    if not text or not text.strip():
        record["status"] = NOT_WRITABLE
        return "", record
    # A document index past the shown documents stays visible as an unknown doc id.
    doc_id = record["doc_id"] if doc is not None else f"document {index + 1}"
    try:
        return render_citation_any(str(doc_id), text), record
    except ValueError:
        record["status"] = NOT_WRITABLE
        return "", record


def native_counts(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many native citations there were, were written, and could not be mapped."""
    return {
        "native_citations": len(records),
        "cited": sum(r.get("status") == CITED for r in records),
        "unmapped_citations": sum(r.get("status") != CITED for r in records),
    }
