"""Dense search within a question's documents, as ALCE's ``SearcherWithinDocs`` (GTR mode).

POSTCITE and INLINESEARCH pick the single document most similar to a statement or query:
documents are embedded as ``title + ". " + text`` and queries as they are, both L2-normalised
by a sentence-transformers model (ALCE: ``sentence-transformers/gtr-t5-large``), and the
document with the largest dot product wins (the first on ties, as ``np.argmax``).
"""

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from inspect_cite.preflight import check_model
from inspect_cite.shared import shared_instance

GTR_RETRIEVER = "sentence-transformers/gtr-t5-large"


def doc_to_text(doc: Mapping[str, Any]) -> str:
    """The text a document is embedded as (ALCE's ``doc_to_text_dense``)."""
    return f"{doc['title']}. {doc['text']}"


class Retriever:
    """A sentence-transformers encoder shared by every search in a process.

    Args:
        model: Hugging Face id or local directory of a sentence-transformers model.
        device: Torch device; ``None`` picks CUDA when available.

    """

    def __init__(self, model: str, device: str | None = None) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        self.model_name = model
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model = SentenceTransformer(model, device=self.device)
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised embeddings, one row per text."""
        with self._lock:
            return np.asarray(
                self.model.encode(
                    list(texts),
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            )

    def searcher(self, docs: Sequence[Mapping[str, Any]]) -> "DocSearcher":
        """A searcher over ``docs`` (their embeddings computed once)."""
        return DocSearcher(self, docs)


class DocSearcher:
    """Top-1 search within a fixed list of documents."""

    def __init__(self, retriever: Retriever, docs: Sequence[Mapping[str, Any]]) -> None:
        if not docs:
            raise ValueError("cannot search an empty document list")
        self.retriever = retriever
        self.embeddings = retriever.encode([doc_to_text(d) for d in docs])

    def search(self, query: str) -> int:
        """Index (0-based) of the document most similar to ``query``."""
        q = self.retriever.encode([query])[0]
        return int(np.argmax(self.embeddings @ q))


def get_retriever(model: str = GTR_RETRIEVER, device: str | None = None) -> Retriever:
    """The process-wide retriever for a model and device (loaded on first use)."""
    return shared_instance(("retriever", model, device), lambda: Retriever(model, device))


def check_retriever(model: str, *, flag: str) -> None:
    """Refuse, before anything is generated, a retrieval model that cannot be loaded here.

    Args:
        model: Hub id or local directory of a sentence-transformers model.
        flag: How the user gave it (``-T retrieval_model``, ``-S retriever``).

    Raises:
        PreflightError: Naming the flag, the model, why, and the fix.

    """
    check_model(
        model,
        flag=flag,
        kind="sentence-transformers",
        fix=f"Pass a local sentence-transformers folder (ALCE's: GTR-large): {flag}=DIR",
    )
