"""FullCite posthoc span alignment: generate freely, then repair snippets against the documents.

Every citation whose doc id is one of the sample's documents has its snippet replaced by the
most similar verbatim span of that document (word-set Jaccard, threshold 0.7; the rules are in
:mod:`inspect_cite.text.alignment`). The rewritten answer becomes the output; the original answer
and one :class:`~inspect_cite.evidence.posthoc_records.PosthocCitation` per citation go to
``state.metadata["posthoc"]``.
"""

from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.citations import parse_citations, render_citation_any
from inspect_cite.evidence.documents import Document, doc_texts, get_docs
from inspect_cite.evidence.posthoc_records import (
    ALIGNED,
    INVALID_DOC_ID,
    STATUSES,
    UNALIGNED,
    PosthocCitation,
    PosthocStatus,
)
from inspect_cite.generation.thinking import (
    NO_ANSWER_THINKING,
    ended_while_thinking,
    set_answer_text,
    split_output,
)
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.options.forwarding import forwards_to
from inspect_cite.text.alignment import DEFAULT_THRESHOLD, align, align_snippet
from solvers.prompted import prompted_citations

__all__ = ["align_snippet", "posthoc_citations", "align_answer"]


def align_answer(
    answer: str, docs: list[Document], threshold: float = DEFAULT_THRESHOLD
) -> tuple[str, list[PosthocCitation]]:
    """Rewrite an answer with aligned snippets.

    Aligned citations are written back in the FullCite brace format (quoted bracket format
    when the span holds a lone brace); unaligned citations and citations of unknown documents
    are kept exactly as written.

    Args:
        answer: The model's answer (think blocks removed).
        docs: The context documents.
        threshold: The least Jaccard accepted.

    Returns:
        The rewritten answer and one :class:`~inspect_cite.evidence.posthoc_records.PosthocCitation`
        per citation, in order: ``doc_id``, ``snippet`` (as written), ``aligned`` (the
        verbatim span or None), ``jaccard`` (None when unaligned), ``doc_start``/``doc_end``
        (offsets of the span in the document), ``verbatim`` (the snippet was already
        verbatim), ``status``, and ``start``/``end`` (offsets of the citation's markup in the
        rewritten answer).

    """
    texts = doc_texts(docs)
    parsed = parse_citations(answer, doc_ids=texts)
    records: list[PosthocCitation] = []
    pieces: list[str] = []
    pos = 0
    written = 0  # length of the rewritten answer so far
    for citation in parsed.citations:
        markup = answer[citation.start : citation.end]
        status: PosthocStatus = UNALIGNED
        found = None
        if citation.doc_id not in texts:
            status = INVALID_DOC_ID
        else:
            found = align(citation.snippet, texts[citation.doc_id], threshold)
            if found is not None:
                try:
                    markup = render_citation_any(citation.doc_id, found.text)
                    status = ALIGNED
                except ValueError:
                    # A span holding both a lone brace and '"]' fits neither style.
                    found = None
        before = answer[pos : citation.start]
        start = written + len(before)
        records.append(
            PosthocCitation(
                doc_id=citation.doc_id,
                snippet=citation.snippet,
                aligned=found.text if found else None,
                jaccard=found.jaccard if found else None,
                doc_start=found.start if found else None,
                doc_end=found.end if found else None,
                verbatim=found.verbatim if found else False,
                status=status,
                start=start,
                end=start + len(markup),
            )
        )
        pieces += [before, markup]
        written = start + len(markup)
        pos = citation.end
    pieces.append(answer[pos:])
    return "".join(pieces), records


@solver
@accept_cli_values("-S")
@forwards_to(prompted_citations)
def posthoc_citations(threshold: float = DEFAULT_THRESHOLD, **options: Any) -> Solver:
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
        **options: ``template``, ``document_template``, ``system_message``, ``thinking``:
            the generation's, defined and documented at
            :func:`solvers.prompted.prompted_citations`.

    """
    if not 0 < threshold <= 1:
        raise ArgumentError(f"threshold must be in (0, 1], got {threshold}")
    prompted = prompted_citations(**options)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        docs = get_docs(state.metadata, where=f"sample {state.sample_id}")
        state = await prompted(state, generate)
        original = state.output.completion
        if ended_while_thinking(state.output):
            state.metadata["posthoc"] = {"original": original, "skipped": NO_ANSWER_THINKING}
            return state
        answer = split_output(state.output).answer.strip()
        rewritten, records = align_answer(answer, docs, threshold)
        set_answer_text(state.output, rewritten)
        state.metadata["posthoc"] = {
            "original": original,
            "threshold": threshold,
            "citations": records,
            **{status: sum(r["status"] == status for r in records) for status in STATUSES},
        }
        return state

    return solve
