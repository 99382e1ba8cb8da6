r"""What the model saw: one evidence record per sample, written by its solver, read by every scorer.

A citation earns credit only from a document the model saw, and only from the text it saw.
Every strategy's solver (ALCE's baselines, prompt, constrained, posthoc, native, agent) writes
one record, ``state.metadata["evidence"]`` (:func:`record_evidence`), once the documents its
answer refers to are final:

- ``format``: how the answer refers to documents: ``alce`` (``[n]``: the n-th document of
  ``metadata["docs"]``) or ``fullcite`` (``{doc_id: X, ...}``: the document with id X);
- ``seen``: one entry per document the model saw, in ``metadata["docs"]`` order:
  ``position`` (1-based in ``metadata["docs"]``), ``id``, ``ref`` (how the answer refers to
  it: ``[3]`` or its id), ``via`` (how it was seen, first way first: ``prompt`` shown in the
  prompt, ``document`` given as a document (native citations, with ``document_index``),
  ``search``/``read`` returned by that tool, ``posthoc`` cited afterwards by the solver from
  the documents it searched), and ``text`` only where the model saw less than the document's
  whole text (a document a ``search`` previewed and no ``read`` showed).

Every scorer reads it through :func:`read_evidence`, and nothing else decides what counts as
evidence: a citation of a document outside ``seen`` is invalid (it earns nothing and is
evidence for no class of ``diagnose``), and a seen document is judged by the text the model
saw. A sample without a record (a task of one's own, a log written before records existed)
is read by the document contract: every document of ``metadata["docs"]`` was shown in the
prompt; an older agent log's ``metadata["agent"]["returned"]`` still says which its tools
returned.

The sources of ``source_support`` come from the same record (:meth:`Evidence.sources`). A log
this project did not write (another tool-using model, no record) has as evidence what its
transcript's tool results hold (:mod:`inspect_cite.evidence.transcript`), plus the documents of
``metadata["docs"]`` when the sample has them; there a ``[n]`` marker is mapped only when
that is unambiguous (see :meth:`Evidence.resolve`).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, NotRequired, TypedDict

from inspect_ai.model import ChatMessage, ModelOutput

from inspect_cite.benchmarks.alce import is_alce_dataset
from inspect_cite.evidence.documents import Document, DocumentError, format_doc, get_docs
from inspect_cite.evidence.transcript import (
    CitedRef,
    Source,
    TranscriptSources,
    doc_key,
    transcript_sources,
)

EVIDENCE_KEY: Final = "evidence"
"""The sample metadata key of the evidence record."""

LEGACY_AGENT_KEY: Final = "agent"
"""Where agent logs written before evidence records kept the documents their tools returned."""

EvidenceFormat = Literal["alce", "fullcite"]
"""How an answer refers to documents: ALCE's ``[n]`` (by position) or FullCite's doc ids."""

SeenVia = Literal["prompt", "document", "search", "read", "posthoc"]
"""How the model saw a document (``posthoc``: the solver cited it afterwards)."""


class SeenEntry(TypedDict):
    """One seen document in the record (a plain dict in the sample metadata)."""

    position: int
    """1-based place in ``metadata["docs"]``."""
    id: str
    """The document id."""
    ref: str
    """How the answer refers to it: ``[n]`` (ALCE) or the doc id (FullCite)."""
    via: list[str]
    """How it was seen, the first way first (:data:`SeenVia`)."""
    document_index: NotRequired[int]
    """Its 0-based index among the documents given as documents (native citations)."""
    text: NotRequired[str]
    """The text the model saw, when it is not the document's whole text."""


def _ref(format: EvidenceFormat, position: int, doc_id: str) -> str:
    return f"[{position}]" if format == "alce" else doc_id


def record_evidence(
    metadata: dict[str, Any],
    *,
    format: EvidenceFormat,
    via: SeenVia | Mapping[str, Sequence[str]],
    texts: Mapping[str, str] | None = None,
    document_indexes: bool = False,
) -> None:
    """Write the sample's evidence record over its final ``metadata["docs"]``.

    Args:
        metadata: The sample's metadata; ``metadata["docs"]`` must be the documents the
            answer's citations refer to, in the order they number from.
        format: How the answer refers to documents.
        via: How every document was seen (one way for all), or, per document id, how each
            seen one was (the others were not seen).
        texts: Per document id, the text the model saw when it saw less than the whole.
        document_indexes: The documents were given as documents, in order (native
            citations number them from 0).

    Raises:
        DocumentError: When ``metadata["docs"]`` breaks the document contract.

    """
    docs = get_docs(metadata)
    seen: list[SeenEntry] = []
    first: set[str] = set()
    for i, doc in enumerate(docs):
        doc_id = doc["id"]
        ways: list[str] = [via] if isinstance(via, str) else list(via.get(doc_id, ()))
        # A tool returns a repeated id's first document (documents.docs_by_id); a prompt
        # shows every document at its place.
        if not ways or (not isinstance(via, str) and doc_id in first):
            continue
        first.add(doc_id)
        entry = SeenEntry(position=i + 1, id=doc_id, ref=_ref(format, i + 1, doc_id), via=ways)
        if document_indexes:
            entry["document_index"] = i
        if texts and doc_id in texts and texts[doc_id] != doc["text"]:
            entry["text"] = texts[doc_id]
        seen.append(entry)
    metadata[EVIDENCE_KEY] = {"format": format, "seen": seen}


@dataclass(frozen=True)
class SeenDocument:
    """A document the model saw.

    Attributes:
        index: 0-based place in ``metadata["docs"]``.
        doc: The document as judged: its text is the text the model saw.
        via: How it was seen.
        partial: The model saw only part of its text (``doc["text"]`` is that part).
        document_index: Its index among the documents given as documents (native), if any.

    """

    index: int
    doc: Document
    via: tuple[str, ...]
    partial: bool = False
    document_index: int | None = None


@dataclass(frozen=True)
class Evidence:
    """What one sample's model saw, as every scorer reads it.

    Attributes:
        docs: ``metadata["docs"]`` as the answer numbers them (the text as given).
        seen: Each seen document by its 0-based place in ``docs``.
        origin: Where this was read from: ``record``, ``agent record`` (an older agent
            log), ``docs`` (no record: every document was shown) or ``transcript`` (a log
            without documents).
        format: How the answer refers to documents, when the record says so.
        transcript: The sources the conversation's tools returned (logs without a record).

    """

    docs: list[Document]
    seen: dict[int, SeenDocument]
    origin: str
    format: EvidenceFormat | None = None
    transcript: TranscriptSources | None = None
    _ids: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for index, doc in enumerate(self.docs):
            self._ids.setdefault(doc["id"], index)

    @property
    def all_seen(self) -> bool:
        """Whether the model saw every document whole (no restriction applies)."""
        return len(self.seen) == len(self.docs) and not any(s.partial for s in self.seen.values())

    def allowed(self) -> frozenset[int] | None:
        """The 0-based places a citation may name, or None when every document was seen."""
        if len(self.seen) == len(self.docs):
            return None
        return frozenset(self.seen)

    def index_of(self, doc_id: str) -> int | None:
        """The place of the first document with this id (None: no such document)."""
        return self._ids.get(doc_id)

    def seen_id(self, doc_id: str) -> bool:
        """Whether the model saw the document with this id."""
        index = self.index_of(doc_id)
        return index is not None and index in self.seen

    def judged_docs(self) -> list[Document]:
        """``docs`` with each seen document's text as the model saw it (others as given).

        A citation of an unseen document never reaches a judge (it is invalid), so its text
        is only ever shown, not judged.
        """
        return [self.seen[i].doc if i in self.seen else doc for i, doc in enumerate(self.docs)]

    def premises(self) -> list[str | None]:
        """Each document as an NLI premise (:func:`format_doc`), None where it was not seen.

        What ``diagnose`` judges an unsupported claim against: only what the model saw.
        """
        return [
            format_doc(self.seen[i].doc) if i in self.seen else None for i in range(len(self.docs))
        ]

    def sources(self, messages: Sequence[ChatMessage], output: ModelOutput | None) -> "Sources":
        """The sources a tool-using model's citations are checked against (``source_support``).

        With a record: the seen documents, under their doc id (and their document index, for
        native citations). Without one: what the transcript's tools returned, plus the
        sample's documents when it has them.
        """
        if self.origin == "transcript" or (self.origin == "docs" and self.transcript):
            base = self.transcript or transcript_sources(messages, output)
        else:
            base = TranscriptSources()
        by_document: dict[int, str] = {}
        for index in sorted(self.seen):
            seen = self.seen[index]
            key = doc_key(seen.doc["id"])
            base.add(key, seen.doc["id"], seen.doc["text"], seen.doc["title"] or None)
            if seen.document_index is not None:
                by_document[seen.document_index] = key
        return Sources(base, self, by_document)


@dataclass
class Sources:
    """A sample's sources for ``source_support``: its evidence, keyed as citations name them."""

    sources: TranscriptSources
    evidence: Evidence
    by_document: dict[int, str]

    @property
    def with_text(self) -> list[Source]:
        """The sources that hold text, in the order they were recorded."""
        return [s for s in self.sources.by_key.values() if s.texts]

    def resolve(self, ref: CitedRef) -> tuple[Source | None, str | None]:
        """The source a citation names, or None; and why it cannot be told, if it cannot.

        - A marker ``[n]`` of a sample with a record in ALCE's format names the n-th document
          (the document shown as ``[n]``), nothing else. Without a record it names the
          document with id ``n`` or search result ``n``: when both exist and differ, the
          citation is ambiguous (None and the reason); when one exists, that one.
        - A native document citation names the document given at its index.
        - Every other citation names its source by key (URL, doc id).
        """
        if ref.kind == "marker":
            number = int(ref.target.strip("[]"))
            if self.evidence.origin != "transcript" and self.evidence.format == "alce":
                index = number - 1
                if index in self.evidence.seen:
                    return self.sources.by_key.get(doc_key(self.evidence.docs[index]["id"])), None
                return None, None
            by_id = self.sources.by_key.get(doc_key(number))
            by_place_key = self.sources.numbered.get(number)
            by_place = self.sources.by_key.get(by_place_key) if by_place_key else None
            if by_id is not None and by_place is not None and by_id is not by_place:
                return None, (
                    f"{ref.target} may be the document with id {number} or search result "
                    f"{number} ({by_place.label}): ambiguous, not counted"
                )
            return by_id or by_place, None
        if ref.kind == "document" and ref.target.isdigit():
            key = self.by_document.get(int(ref.target))
            if key is not None:
                return self.sources.by_key.get(key), None
        return self.sources.resolve(ref), None


def _legacy_returned(metadata: Mapping[str, Any]) -> set[str] | None:
    """The doc ids an older agent log's tools returned (None: no such record)."""
    record = metadata.get(LEGACY_AGENT_KEY)
    returned = record.get("returned") if isinstance(record, Mapping) else None
    if not isinstance(returned, Mapping):
        return None
    return {str(doc_id) for doc_id in returned}


def _from_record(docs: list[Document], record: Mapping[str, Any]) -> Evidence | None:
    """The evidence a well-formed record gives (None: it is not well-formed)."""
    entries = record.get("seen")
    fmt = record.get("format")
    if not isinstance(entries, list) or fmt not in ("alce", "fullcite"):
        return None
    seen: dict[int, SeenDocument] = {}
    for entry in entries:
        if not isinstance(entry, Mapping):
            return None
        position, via = entry.get("position"), entry.get("via")
        if (
            isinstance(position, bool)
            or not isinstance(position, int)
            or not 1 <= position <= len(docs)
            or docs[position - 1]["id"] != entry.get("id")
            or not isinstance(via, list)
        ):
            return None
        doc = docs[position - 1]
        text = entry.get("text")
        partial = isinstance(text, str)
        if isinstance(text, str):
            doc = Document(id=doc["id"], title=doc["title"], text=text)
        document_index = entry.get("document_index")
        seen[position - 1] = SeenDocument(
            position - 1,
            doc,
            tuple(str(v) for v in via),
            partial,
            document_index if isinstance(document_index, int) else None,
        )
    return Evidence(docs, seen, "record", fmt)


def read_evidence(
    metadata: Mapping[str, Any] | None,
    where: str = "sample",
    *,
    messages: Sequence[ChatMessage] | None = None,
    output: ModelOutput | None = None,
) -> Evidence:
    """What the model of one sample saw (see the module docstring); the one reading of it.

    Args:
        metadata: The sample's metadata.
        where: Names the sample in error messages.
        messages: The conversation, read for a log without documents or record (tool
            results); give it where the transcript counts (``source_support``).
        output: The final output (providers keep some search results there).

    Raises:
        DocumentError: When ``metadata["docs"]`` is present but breaks the document
            contract, or is absent and no conversation is given.

    """
    metadata = metadata or {}
    if "docs" not in metadata and messages is not None:
        return Evidence([], {}, "transcript", None, transcript_sources(messages, output))
    docs = get_docs(metadata, where)
    record = metadata.get(EVIDENCE_KEY)
    if isinstance(record, Mapping):
        evidence = _from_record(docs, record)
        if evidence is None:
            raise DocumentError(
                f'{where}: metadata["{EVIDENCE_KEY}"] is not a well-formed evidence record '
                '(each seen entry needs "position", "id" matching metadata["docs"] and "via")'
            )
        return evidence
    returned = _legacy_returned(metadata)
    seen: dict[int, SeenDocument] = {}
    taken: set[str] = set()
    for i, doc in enumerate(docs):
        if returned is None:
            seen[i] = SeenDocument(i, doc, ("prompt",))
        elif doc["id"] in returned and doc["id"] not in taken:
            # A tool returned a repeated id's first document.
            taken.add(doc["id"])
            seen[i] = SeenDocument(i, doc, ("tool",))
    if returned is not None:
        return Evidence(docs, seen, "agent record", "alce" if _alce(metadata) else "fullcite")
    transcript = transcript_sources(messages, output) if messages is not None else None
    return Evidence(docs, seen, "docs", None, transcript)


def _alce(metadata: Mapping[str, Any]) -> bool:
    return is_alce_dataset(metadata.get("dataset"))
