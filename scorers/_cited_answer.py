"""A sample's answer as the FullCite scorers see it: claims, citations and their validity.

Shared by ``doc_snippet_f1``, ``citation_similarity``, ``citation_judge`` and ``citation_bias``
so that they agree on what a citation is. Decisions:

- The output has the reasoning it starts with removed
  (:func:`inspect_cite.generation.thinking.split_output`), then is parsed with
  :func:`inspect_cite.citations.parse_citations` (never raises).
- A citation is **invalid** when its doc id is not one of the context documents
  (``unknown_doc_id``), or when the posthoc solver could not align its snippet
  (``unaligned``: the posthoc record at the citation's offsets in the output says so, see
  :mod:`inspect_cite.evidence.posthoc_records`), or when the model never saw its document
  (``not_retrieved``: no agent tool returned it; the sample's evidence record,
  :mod:`inspect_cite.evidence.record`). Invalid citations stay in every count (they are wrong in
  precision), never match gold and are never evidence.
- A seen document is read as the model saw it: a document an agent's ``search`` only
  previewed holds its preview, so a snippet from beyond it is not verbatim there.
- A citation's ``position`` is the 1-based place of its document in ``metadata["docs"]``.
- ``verbatim``: the snippet is a non-blank substring of the cited document's text, up to
  Unicode canonical equivalence (:func:`inspect_cite.text.verbatim.find_verbatim`).
- ``near_verbatim``: the snippet is not verbatim, but it has exactly the words (tokens) of a
  span of the document: it differs only in typography (compatibility forms, case, quotes,
  dashes, spacing, punctuation), never in a word
  (:func:`inspect_cite.text.verbatim.find_near_verbatim`).
- The document's **evidence** for a citation is its own text of that verbatim or
  near-verbatim span (``doc_start``, ``doc_end``, ``evidence``): whatever scores a citation's
  snippet as evidence of what the source says reads the document's words there, never the
  model's. A citation without evidence (empty snippet, invalid, or a snippet the document
  does not hold) says why in ``no_evidence``.
"""

from dataclasses import dataclass, field
from typing import Any, Literal
from weakref import WeakKeyDictionary

from inspect_ai.solver import TaskState

from inspect_cite.citations import Claim, ParsedAnswer, parse_citations
from inspect_cite.evidence.documents import (
    Document,
    DocumentError,
    doc_positions,
    docs_by_id,
)
from inspect_cite.evidence.posthoc_records import unaligned_spans
from inspect_cite.evidence.record import EVIDENCE_KEY, LEGACY_AGENT_KEY, Evidence, read_evidence
from inspect_cite.generation.thinking import split_output
from inspect_cite.text.markdown import cell, highlight_markdown
from inspect_cite.text.verbatim import match_snippet

CitationStatus = Literal["valid", "unknown_doc_id", "unaligned", "not_retrieved"]


@dataclass(frozen=True)
class CheckedCitation:
    """One citation of the answer with what the scorers need to know about it.

    Attributes:
        index: Its place among the answer's citations (0-based).
        claim: The claim text it follows.
        doc_id: The cited document id, as written.
        snippet: The snippet as the model wrote it.
        status: ``valid``, ``unknown_doc_id``, ``unaligned`` or ``not_retrieved``.
        position: 1-based place of its document in ``metadata["docs"]`` (None when unknown).
        verbatim: The cited document holds the snippet verbatim.
        near_verbatim: The cited document holds the snippet's words in another typography.
        doc_start: Offset in the cited document of the span holding the snippet (None when
            it holds neither verbatim nor near-verbatim).
        doc_end: Offset just past that span.
        evidence: The document's own text of that span (None without one).

    """

    index: int
    claim: str
    doc_id: str
    snippet: str
    status: CitationStatus
    position: int | None
    verbatim: bool
    near_verbatim: bool = False
    doc_start: int | None = None
    doc_end: int | None = None
    evidence: str | None = None

    @property
    def valid(self) -> bool:
        """The citation names a context document, aligned (posthoc) and returned (agent)."""
        return self.status == "valid"

    @property
    def no_evidence(self) -> str | None:
        """Why the citation shows nothing its document says (None when it does).

        Its evidence is the document's own text of the span holding the snippet; a citation
        that is invalid, has an empty snippet, or cites a snippet its document does not hold
        has none.
        """
        if not self.snippet:
            return "empty snippet"
        if self.status == "unknown_doc_id":
            return "unknown doc id"
        if self.status == "unaligned":
            return "unaligned"
        if self.status == "not_retrieved":
            return "the model did not see this document"
        if not self.evidence:
            return "the cited document does not hold this snippet"
        return None

    @property
    def match(self) -> str:
        """How the snippet matches the cited document, for explanations."""
        if not self.snippet:
            return "empty snippet"
        if self.verbatim:
            return "verbatim"
        return "near-verbatim" if self.near_verbatim else "not verbatim"


@dataclass
class CitedAnswer:
    """The parsed answer of a sample and its checked citations."""

    text: str
    parsed: ParsedAnswer
    docs: list[Document]
    citations: list[CheckedCitation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    evidence: Evidence | None = None
    """What the model saw (None when ``metadata["docs"]`` is unusable)."""

    @property
    def omitted(self) -> bool:
        """No citation at all (citation omission)."""
        return not self.citations

    def claim_citations(self) -> list[tuple[Claim, list[CheckedCitation]]]:
        """Each parsed claim with its checked citations (``citations`` is in claim order)."""
        out = []
        rest = iter(self.citations)
        for claim in self.parsed.claims:
            out.append((claim, [next(rest) for _ in claim.citations]))
        return out

    def __post_init__(self) -> None:
        self.by_id = docs_by_id(self.docs)

    def doc(self, doc_id: str) -> Document | None:
        """The first context document with this id."""
        return self.by_id.get(doc_id)

    def title(self, doc_id: str) -> str:
        """A document's title for explanations (``?`` for unknown ids)."""
        doc = self.doc(doc_id)
        return (doc["title"] or "(untitled)") if doc is not None else "?"


# Inspect hands every scorer of a sample the same TaskState, so the answer is parsed, its
# documents validated and its snippets matched once per sample (by whichever FullCite scorer
# runs first); the key notices a changed output or metadata (e.g. a test reusing a state).
_READ: "WeakKeyDictionary[TaskState, tuple[tuple[Any, ...], CitedAnswer]]" = WeakKeyDictionary()


def read_cited_answer(state: TaskState) -> CitedAnswer:
    """Parse and check a sample's answer; never raises on malformed output or metadata.

    The result is shared by the sample's scorers (cached per ``TaskState``): treat it as
    read-only.
    """
    metadata = state.metadata or {}
    answer_text = split_output(state.output).answer.strip()
    key = (
        answer_text,
        id(metadata),
        id(metadata.get("docs")),
        id(metadata.get("posthoc")),
        id(metadata.get(EVIDENCE_KEY)),
        id(metadata.get(LEGACY_AGENT_KEY)),
    )
    cached = _READ.get(state)
    if cached is not None and cached[0] == key:
        return cached[1]
    answer = _read(state.sample_id, metadata, answer_text)
    _READ[state] = (key, answer)
    return answer


def _read(sample_id: Any, metadata: dict[str, Any], text: str) -> CitedAnswer:
    problems: list[str] = []
    seen: Evidence | None
    try:
        seen = read_evidence(metadata, where=f"sample {sample_id}")
        # Each seen document as the model saw it; unseen ones are never evidence.
        docs = seen.judged_docs()
    except DocumentError as e:
        seen, docs = None, []
        problems.append(str(e))
    positions = doc_positions(docs)
    parsed = parse_citations(text, doc_ids=positions)
    problems += [f"{p.kind}: {p.message}" for p in parsed.problems]
    unaligned = unaligned_spans(
        metadata, citations=[(c.doc_id, c.snippet, c.start, c.end) for c in parsed.citations]
    )
    answer = CitedAnswer(text=text, parsed=parsed, docs=docs, problems=problems, evidence=seen)
    index = 0
    for claim in parsed.claims:
        for c in claim.citations:
            position = positions.get(c.doc_id)
            status: CitationStatus = "valid"
            if position is None:
                status = "unknown_doc_id"
            elif (c.start, c.end) in unaligned:
                status = "unaligned"
            elif seen is not None and not seen.seen_id(c.doc_id):
                status = "not_retrieved"
            # A document the model did not see holds nothing it could have copied.
            doc = answer.doc(c.doc_id) if status != "not_retrieved" else None
            found = match_snippet(c.snippet, doc["text"]) if doc is not None else None
            evidence = None
            if doc is not None and found is not None:
                evidence = doc["text"][found.start : found.end]
            answer.citations.append(
                CheckedCitation(
                    index,
                    claim.text,
                    c.doc_id,
                    c.snippet,
                    status,
                    position,
                    verbatim=found is not None and found.verbatim,
                    near_verbatim=found is not None and not found.verbatim,
                    doc_start=found.start if found else None,
                    doc_end=found.end if found else None,
                    evidence=evidence,
                )
            )
            index += 1
    return answer


def citations_markdown(answer: CitedAnswer, verdicts: dict[int, str] | None = None) -> str:
    """A markdown table of the answer's citations (claim, document, snippet, verdicts)."""
    if answer.omitted:
        shown = cell(answer.text, 600, empty="*(empty output)*")
        return f"**No citations** (citation omission). Output: {shown}"
    verdicts = verdicts or {}
    spans = [(c.start, c.end) for c in answer.parsed.citations]
    shown = f"**Answer:** {highlight_markdown(answer.parsed.text, spans)}\n\n"
    rows = ["| # | claim | doc (title) | snippet | check |", "|---|---|---|---|---|"]
    for c in answer.citations:
        status = c.status if not c.valid else c.match
        verdict = verdicts.get(c.index)
        # The status is one of this module's names; a verdict may quote a judge's words.
        check = f"{status}; {cell(verdict, None)}" if verdict else status
        rows.append(
            f"| {c.index + 1} | {cell(c.claim, empty='*(none)*')} | {cell(c.doc_id, 60)} "
            f"({cell(answer.title(c.doc_id), 80, empty='')}) | {cell(c.snippet)} | {check} |"
        )
    out = shown + "\n".join(rows)
    if answer.problems:
        out += "\n\n**Parse problems:** " + "; ".join(cell(p, 200) for p in answer.problems[:10])
    return out
