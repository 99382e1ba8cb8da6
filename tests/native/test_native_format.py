"""Native citations written in the tasks' formats (inspect_cite.citations.native)."""

from inspect_ai.model import ChatMessageAssistant, ContentReasoning, ContentText, DocumentCitation

from inspect_cite.citations import parse_citations
from inspect_cite.citations.alce import marker_refs
from inspect_cite.citations.native import (
    answer_blocks,
    document_index,
    joined_text,
    native_counts,
    render_native,
)

DOCS = [
    {"id": "d1", "title": "Sky", "text": "The sky is blue on a clear day. Clouds are white."},
    {"id": "d2", "title": "Grass", "text": "Grass is green because of chlorophyll."},
]


def cite(index: int, doc: dict, snippet: str) -> DocumentCitation:
    start = doc["text"].index(snippet)
    return DocumentCitation(
        cited_text=snippet,
        title=doc["id"],
        range={"type": "char", "start_index": start, "end_index": start + len(snippet)},
        internal={"document_index": index},
    )


def anthropic_style_reply() -> ChatMessageAssistant:
    # Anthropic splits one text into blocks: cited pieces carry their citations.
    return ChatMessageAssistant(
        content=[
            ContentReasoning(reasoning="thinking", redacted=False),
            ContentText(text="According to the documents, "),
            ContentText(
                text="the sky is blue on a clear day",
                citations=[cite(0, DOCS[0], "The sky is blue on a clear day.")],
            ),
            ContentText(text=" and "),
            ContentText(
                text="grass is green.",
                citations=[
                    cite(1, DOCS[1], "Grass is green because of chlorophyll."),
                    cite(1, DOCS[1], "chlorophyll"),
                ],
            ),
            ContentText(
                text="Clouds are white.", citations=[cite(0, DOCS[0], "Clouds are white.")]
            ),
        ]
    )


def test_blocks_join_as_one_text_and_sentences_do_not_run_together():
    blocks = answer_blocks(anthropic_style_reply())
    text = joined_text(blocks)
    assert text == (
        "According to the documents, the sky is blue on a clear day and grass is green. "
        "Clouds are white."
    )
    assert [text[b.start : b.end] for b in blocks] == [b.text for b in blocks]
    assert document_index(blocks[1].citations[0]) == 0


def test_fullcite_rendering_reads_back_every_citation_verbatim():
    answer, records = render_native(answer_blocks(anthropic_style_reply()), DOCS, "fullcite")
    parsed = parse_citations(answer, doc_ids=["d1", "d2"])
    assert not parsed.problems
    got = [(c.doc_id, c.snippet) for c in parsed.citations]
    assert got == [
        ("d1", "The sky is blue on a clear day."),
        ("d2", "Grass is green because of chlorophyll."),
        ("d2", "chlorophyll"),
        ("d1", "Clouds are white."),
    ]
    assert all(snippet in {d["id"]: d["text"] for d in DOCS}[doc] for doc, snippet in got)
    # Each claim is its block's text; the citations go before the block's closing period.
    assert [c.text for c in parsed.claims] == [
        "According to the documents, the sky is blue on a clear day",
        "and grass is green",
        "Clouds are white",
    ]
    # The records point at the written citations and keep the provider's range.
    for record, citation in zip(records, parsed.citations, strict=True):
        assert (record["start"], record["end"]) == (citation.start, citation.end)
        assert record["status"] == "cited" and record["range"][0] == "char"
    assert native_counts(records) == {"native_citations": 4, "cited": 4, "unmapped_citations": 0}


def test_alce_rendering_writes_markers_before_the_period_once_per_document():
    answer, records = render_native(answer_blocks(anthropic_style_reply()), DOCS, "alce")
    assert answer == (
        "According to the documents, the sky is blue on a clear day [1] and grass is green [2]. "
        "Clouds are white [1]."
    )
    assert marker_refs(answer, alce_compat=False) == [0, 1]
    assert len(records) == 4


def test_unknown_documents_stay_visible_as_invalid_citations():
    reply = ChatMessageAssistant(
        content=[
            ContentText(
                text="Rain is wet.",
                citations=[
                    DocumentCitation(cited_text="Rain is wet", internal={"document_index": 7}),
                    DocumentCitation(cited_text="no index"),
                ],
            )
        ]
    )
    answer, records = render_native(answer_blocks(reply), DOCS, "fullcite")
    parsed = parse_citations(answer, doc_ids=["d1", "d2"])
    assert [c.doc_id for c in parsed.citations] == ["document 8"]
    assert [p.kind for p in parsed.problems] == ["unknown_doc_id"]
    assert [r["status"] for r in records] == ["unknown_document", "unknown_document"]
    assert native_counts(records)["unmapped_citations"] == 2
    alce, _ = render_native(answer_blocks(reply), DOCS, "alce")
    assert alce == "Rain is wet [8]."


def test_a_reply_without_citations_is_its_text():
    reply = ChatMessageAssistant(content="Plain answer.")
    answer, records = render_native(answer_blocks(reply), DOCS, "fullcite")
    assert (answer, records) == ("Plain answer.", [])
