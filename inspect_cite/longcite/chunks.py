"""A LongBench-Cite context as numbered sentence chunks, as LongCite's code splits it.

The definition is LongCite's ``text_split_by_punctuation`` (``utils/retrieve.py``) and the
passage ``pred_one_shot.py`` builds from it, at the pinned commit:

1. nltk's Punkt splitter with its default (untrained) parameters splits the text; each piece
   is split again after the Chinese sentence ends ``。；！？``, each mark staying with the
   text before it.
2. When that gives a single piece, the text is split at every blank line (two newlines) instead.
3. Pieces are stripped and empty ones dropped; each is located in the text by searching
   forward from the end of the one before.
4. Chunk ``i`` is the text from sentence ``i``'s start to sentence ``i + 1``'s start (the last
   one runs to the end of the text), so the text between sentences stays with the one before.
   The prompt shows ``<C{i}>`` before chunk ``i``; text before the first sentence (only
   whitespace) is not shown.

A citation ``[a-b]`` quotes chunks ``a`` to ``b`` as LongCite's ``postprocess`` cuts them: the
same chunks, except that the last one ends where its sentence ends
(:func:`citation_texts`). Both steps are linear in the text's length.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from inspect_cite.evidence.documents import Document

# The sentence ends LongCite adds for Chinese text; the group keeps each mark as its own piece.
CHINESE_SENTENCE_END = re.compile(r"([。；！？])")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a context: its stripped text and where it is (``text[start:end]``)."""

    index: int
    text: str
    start: int
    end: int


@cache
def _punkt() -> "object":
    from inspect_cite.text.punkt import import_nltk

    import_nltk()  # nltk without scikit-learn and SciPy (inspect_cite.text.punkt)
    from nltk.tokenize import PunktSentenceTokenizer

    # Untrained on purpose: LongCite builds it without parameters (no English abbreviations).
    return PunktSentenceTokenizer()


def _pieces(text: str) -> list[str]:
    pieces: list[str] = []
    for sentence in _punkt().tokenize(text):  # type: ignore[attr-defined]
        pieces.extend(CHINESE_SENTENCE_END.split(sentence))
    # A mark joins the piece before it (its split left it alone, between two others).
    for i in range(1, len(pieces)):
        if CHINESE_SENTENCE_END.match(pieces[i]):
            pieces[i - 1] += pieces[i]
            pieces[i] = ""
    pieces = [p for p in pieces if p != ""]
    if len(pieces) == 1:
        pieces = text.split("\n\n")
    return [p.strip() for p in pieces if p.strip() != ""]


def split_sentences(text: str) -> list[Sentence]:
    """The context's sentences, numbered from 0 (steps 1-3 of the module docstring)."""
    sentences: list[Sentence] = []
    pos = 0
    for piece in _pieces(text):
        start = text.find(piece, pos)
        if start == -1:  # every piece is a substring of the text, after the previous one
            raise ValueError(f"sentence {len(sentences)} not found in the text: {piece[:60]!r}")
        pos = start + len(piece)
        sentences.append(Sentence(len(sentences), piece, start, pos))
    return sentences


def chunk_texts(text: str, sentences: Sequence[Sentence]) -> list[str]:
    """Each sentence's chunk as the prompt shows it: up to the next sentence's start."""
    bounds = [s.start for s in sentences] + [len(text)]
    return [text[bounds[i] : bounds[i + 1]] for i in range(len(sentences))]


def chunk_docs(text: str) -> list[Document]:
    """The context as the documents the model sees: chunk ``i`` has the id ``str(i)``."""
    return [
        Document(id=str(i), title="", text=chunk)
        for i, chunk in enumerate(chunk_texts(text, split_sentences(text)))
    ]


def chunk_marker(index: int) -> str:
    """The marker the prompt puts before chunk ``index``."""
    return f"<C{index}>"


def numbered_passage(chunks: Sequence[str]) -> str:
    """The context as the prompt shows it: each chunk after its ``<C{i}>`` marker."""
    return "".join(f"{chunk_marker(i)}{chunk}" for i, chunk in enumerate(chunks))


def citation_texts(chunks: Sequence[str]) -> list[str]:
    """The chunks as a citation quotes them: the last one ends with its sentence.

    Only whitespace follows the last sentence (every other character of the text belongs to a
    stripped sentence), so its sentence is the shown chunk without trailing whitespace.
    """
    out = list(chunks)
    if out:
        out[-1] = out[-1].rstrip()
    return out
