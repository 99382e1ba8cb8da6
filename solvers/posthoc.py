"""FullCite posthoc span alignment: generate freely, then repair snippets against the documents.

Every citation whose doc id is one of the sample's documents has its snippet replaced by the
most similar verbatim span of that document (word-set Jaccard, threshold 0.7; the rules are in
:mod:`inspect_cite.alignment`). The rewritten answer becomes the output; the original answer
and one record per citation go to ``state.metadata["posthoc"]``.
"""

from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.alignment import DEFAULT_THRESHOLD, align, align_snippet
from inspect_cite.citations import parse_citations, render_citation_any
from inspect_cite.cli_values import accept_cli_values
from inspect_cite.documents import Document, docs_by_id, get_docs
from inspect_cite.text import strip_think
from inspect_cite.thinking import NO_ANSWER_THINKING, ended_while_thinking
from solvers.prompted import (
    FULLCITE_DOCUMENT,
    FULLCITE_PROMPT,
    check_templates,
    set_fullcite_prompt,
)
from solvers.thinking import thinking_generate

__all__ = ["align_snippet", "posthoc_citations", "align_answer"]

# Status of one citation after alignment.
ALIGNED = "aligned"  # snippet replaced by (or already) a verbatim span of the cited document
UNALIGNED = "unaligned"  # no span reached the threshold: kept as written, counted as invalid
INVALID_DOC_ID = "invalid_doc_id"  # the doc id is not one of the context documents


def align_answer(
    answer: str, docs: list[Document], threshold: float = DEFAULT_THRESHOLD
) -> tuple[str, list[dict[str, Any]]]:
    """Rewrite an answer with aligned snippets.

    Aligned citations are written back in the FullCite brace format (quoted bracket format
    when the span holds a lone brace); unaligned citations and citations of unknown documents
    are kept exactly as written.

    Args:
        answer: The model's answer (think blocks removed).
        docs: The context documents.
        threshold: The least Jaccard accepted.

    Returns:
        The rewritten answer and one record per citation, in order: ``doc_id``, ``snippet``
        (as written), ``aligned`` (the verbatim span or None), ``jaccard`` (None when
        unaligned), ``doc_start``/``doc_end`` (offsets of the span in the document),
        ``verbatim`` (the snippet was already verbatim) and ``status``.

    """
    texts = {doc_id: doc["text"] for doc_id, doc in docs_by_id(docs).items()}
    parsed = parse_citations(answer, doc_ids=texts)
    records: list[dict[str, Any]] = []
    pieces: list[str] = []
    pos = 0
    for citation in parsed.citations:
        record: dict[str, Any] = {
            "doc_id": citation.doc_id,
            "snippet": citation.snippet,
            "aligned": None,
            "jaccard": None,
            "doc_start": None,
            "doc_end": None,
            "verbatim": False,
            "status": UNALIGNED,
        }
        markup = answer[citation.start : citation.end]
        if citation.doc_id not in texts:
            record["status"] = INVALID_DOC_ID
        else:
            found = align(citation.snippet, texts[citation.doc_id], threshold)
            if found is not None:
                try:
                    markup = render_citation_any(citation.doc_id, found.text)
                except ValueError:
                    # A span holding both a lone brace and '"]' fits neither style.
                    found = None
            if found is not None:
                record.update(
                    aligned=found.text,
                    jaccard=found.jaccard,
                    doc_start=found.start,
                    doc_end=found.end,
                    verbatim=found.verbatim,
                    status=ALIGNED,
                )
        records.append(record)
        pieces += [answer[pos : citation.start], markup]
        pos = citation.end
    pieces.append(answer[pos:])
    return "".join(pieces), records


@solver
@accept_cli_values("-S")
def posthoc_citations(
    threshold: float = DEFAULT_THRESHOLD,
    template: str = FULLCITE_PROMPT,
    document_template: str = FULLCITE_DOCUMENT,
    system_message: str | None = None,
    thinking: bool = False,
) -> Solver:
    """FullCite posthoc span alignment.

    Generates once with the FullCite prompt (as ``prompted_citations``), then aligns every
    citation with a known doc id to the most similar verbatim span of its document (word-set
    Jaccard over all contiguous word windows; ties: shortest, then earliest). The rewritten
    answer is the output. ``state.metadata["posthoc"]`` holds ``original`` (the model's
    answer), ``threshold``, ``citations`` (one record per citation, see :func:`align_answer`)
    and counts ``aligned``, ``unaligned``, ``invalid_doc_id``. An output that ended inside the
    model's thinking is left as it is (``metadata["posthoc"]["skipped"]`` says why).

    Args:
        threshold: The least Jaccard for a span to replace a snippet (0.7 in the paper).
        template: The prompt, with ``{documents}`` and ``{question}`` fields.
        document_template: One document, with ``{number}``, ``{id}``, ``{title}``, ``{text}``.
        system_message: A system message to add when the sample has none.
        thinking: Generate with the chat template's thinking on (off by default).

    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    check_templates(template, document_template)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
        generate = thinking_generate(state, generate, thinking)
        set_fullcite_prompt(state, template, document_template, system_message)
        state = await generate(state)
        original = state.output.completion
        if ended_while_thinking(state.output):
            state.metadata["posthoc"] = {"original": original, "skipped": NO_ANSWER_THINKING}
            return state
        rewritten, records = align_answer(strip_think(original).strip(), docs, threshold)
        if not state.output.empty:
            state.output.message.text = rewritten
        state.output.completion = rewritten
        state.metadata["posthoc"] = {
            "original": original,
            "threshold": threshold,
            "citations": records,
            **{
                status: sum(r["status"] == status for r in records)
                for status in (ALIGNED, UNALIGNED, INVALID_DOC_ID)
            },
        }
        return state

    return solve
