"""Search within a question's documents: dense (ALCE's) and lexical (BM25).

Dense search is ALCE's ``SearcherWithinDocs`` (GTR mode); BM25 serves the agent strategy's
``search`` tool.

POSTCITE and INLINESEARCH pick the single document most similar to a statement or query:
documents are embedded as ``title + ". " + text`` and queries as they are, both L2-normalised
by a sentence-transformers model (ALCE: ``sentence-transformers/gtr-t5-large``), and the
document with the largest dot product wins (the first on ties, as ``np.argmax``).

:class:`BM25Searcher` ranks the same texts by Okapi BM25 (``bm25s``: its tokenizer, English
stop words removed, words reduced by NLTK's Porter stemmer so that "vaccines" finds
"vaccine", its default k1 1.5 and b 0.75); documents that share no word with the query are
not returned, and ties keep the documents' order.
"""

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from inspect_cite.checks.models import check_model
from inspect_cite.models.shared import shared_instance

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


class BM25Searcher:
    """Ranked lexical search within a fixed list of documents (BM25, via ``bm25s``).

    Args:
        docs: The documents (``title``, ``text``), indexed as :func:`doc_to_text` writes them.

    """

    def __init__(self, docs: Sequence[Mapping[str, Any]]) -> None:
        import bm25s

        from inspect_cite.text.punkt import import_nltk

        import_nltk()  # nltk without scikit-learn and SciPy (inspect_cite.text.punkt)
        from nltk.stem import PorterStemmer

        porter = PorterStemmer()
        self._bm25s = bm25s
        self._stem = lambda words: [porter.stem(w) for w in words]
        self.n_docs = len(docs)
        self.index = bm25s.BM25()
        if docs:
            corpus = bm25s.tokenize(
                [doc_to_text(d) for d in docs],
                stopwords="en",
                stemmer=self._stem,
                show_progress=False,
            )
            self.index.index(corpus, show_progress=False)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """The best ``k`` documents for ``query``: (0-based index, score), best first."""
        if not self.n_docs:
            return []
        [words] = self._bm25s.tokenize(
            [query], stopwords="en", stemmer=self._stem, return_ids=False, show_progress=False
        )
        if not words:
            return []
        scores = np.asarray(self.index.get_scores(words), dtype=float)
        order = np.argsort(-scores, kind="stable")[:k]
        return [(int(i), float(scores[i])) for i in order if scores[i] > 0]
