"""The document contract between datasets, solvers and scorers.

Every sample that solvers and scorers work on carries its context documents in
``metadata["docs"]``: a list of ``{"id": str, "title": str, "text": str}`` in the order the
model saw them. Extra keys are allowed and kept (ALCE's ``summary``, ``extraction``, ``score``).

Every NLI judge reads a document as ALCE's eval.py shows it (:func:`format_doc`): ALCE's
citation scores, FullCite's claim support, native citations' source support and the human
labels ``inspect-cite calibrate`` measures judges against.
"""

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, TypeVar, cast

DOC_TEMPLATE = "Title: {title}\n{text}"
"""How eval.py shows a document to the NLI model (``sent`` replaces ``text`` when present)."""


class Document(TypedDict):
    """One context document as shown to the model."""

    id: str
    title: str
    text: str


DocT = TypeVar("DocT", bound=Mapping[str, object])
"""A document-like mapping (``Document`` or a loader's plain dict) with a string ``id``."""


class DocumentError(ValueError):
    """Raised when ``metadata["docs"]`` does not follow the document contract."""


def get_docs(metadata: Mapping[str, Any] | None, where: str = "sample") -> list[Document]:
    """Read and validate ``metadata["docs"]``.

    Args:
        metadata: The sample's metadata.
        where: Names the sample in error messages (e.g. ``"sample 12"``).

    Raises:
        DocumentError: Naming the sample and the offending field.

    """
    if metadata is None or "docs" not in metadata:
        raise DocumentError(
            f'{where}: metadata has no "docs" field; solvers and scorers need the context '
            'documents as metadata["docs"] = [{"id", "title", "text"}, ...]'
        )
    docs = metadata["docs"]
    if not isinstance(docs, Sequence) or isinstance(docs, str):
        raise DocumentError(f'{where}: metadata["docs"] must be a list, got {type(docs).__name__}')
    for i, doc in enumerate(docs):
        if not isinstance(doc, Mapping):
            raise DocumentError(f'{where}: metadata["docs"][{i}] must be an object')
        for key in ("id", "title", "text"):
            if not isinstance(doc.get(key), str):
                raise DocumentError(
                    f'{where}: metadata["docs"][{i}]["{key}"] must be a string, '
                    f"got {type(doc.get(key)).__name__}"
                )
    return [doc for doc in docs]  # type: ignore[misc]


def docs_by_id(docs: Sequence[DocT]) -> dict[str, DocT]:
    """Each document id with its document, in the order shown.

    When two documents share an id, the first one shown wins: that is the document a
    citation of the id is checked against everywhere (solvers, scorers, report).
    """
    out: dict[str, DocT] = {}
    for doc in docs:
        out.setdefault(cast(str, doc["id"]), doc)
    return out


def doc_texts(docs: Sequence[Mapping[str, object]]) -> dict[str, str]:
    """Each document id with its text, in the order shown (first one wins, as ``docs_by_id``)."""
    return {doc_id: cast(str, doc["text"]) for doc_id, doc in docs_by_id(docs).items()}


def doc_positions(docs: Sequence[Mapping[str, object]]) -> dict[str, int]:
    """Each document id with its 1-based position in the order shown (first one wins)."""
    out: dict[str, int] = {}
    for i, doc in enumerate(docs):
        out.setdefault(cast(str, doc["id"]), i + 1)
    return out


def format_doc(doc: Mapping[str, Any]) -> str:
    """A document as eval.py shows it to NLI."""
    text = doc["sent"] if "sent" in doc else doc["text"]
    return DOC_TEMPLATE.format(title=doc["title"], text=text)


def format_passage(docs: Sequence[Mapping[str, Any]]) -> str:
    """Documents joined as eval.py joins the cited documents of a statement for NLI."""
    return "\n".join(format_doc(doc) for doc in docs)
