r"""What a document holds: its words, and where it holds a snippet verbatim or near-verbatim.

The one home of these rules: posthoc alignment (:mod:`inspect_cite.text.alignment`), the FullCite
scorers' ``verbatim`` and ``near_verbatim`` checks, the constrained solver's validation and
the gold-span loaders all read them here. Decisions:

- **Verbatim**: the snippet (not blank) is a substring of the document up to Unicode canonical
  equivalence (NFC and NFD spell the same text) that does not split a character from its
  combining marks ("Cafe" is not verbatim in a decomposed "Café"). It may start or end
  inside a word.
- **Tokens**: runs of letters, combining marks, digits and ``_`` (words), and single math,
  currency or other symbols (``<``, ``=``, ``€``, ``°``), each compared after NFKC and case
  folding. Punctuation (quotes, dashes, the minus sign, ``.``, ``,``), modifier symbols
  (``´``, `````) and whitespace only separate tokens: "0.5" and "0,5" are the same two
  tokens, "1.5" and "15" are not.
- **Near-verbatim**: the snippet's token sequence is exactly the token sequence of a span of
  the document. Such a snippet differs from the document only in typography (compatibility
  forms, case, quotes, dashes, spacing, punctuation), never in wording: a changed, inserted
  or dropped word, or two words run together ("tyrosinekinase"), is not near-verbatim.
- The span found is the document's own text, from the first character of its first token to
  the last character of its last token (or the verbatim substring): what the citation shows
  of its source. The first occurrence wins.

Cost: linear in the lengths of the snippet and the document: one tokenisation of each and a
substring search (CPython's two-way search for long needles) over the joined tokens. A
document's tokens are cached, since one answer cites the same documents many times.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import accumulate

import regex

# A word, or one symbol that is not typography (U+2212 MINUS SIGN is a dash, so a separator).
_TOKEN = regex.compile(r"[\p{L}\p{M}\p{N}_]+|(?!\u2212)[\p{Sm}\p{Sc}\p{So}]")
# Joins tokens into one searchable string; no token holds it (a control character).
_SEP = "\x1f"


@dataclass(frozen=True)
class TokenIndex:
    """The tokens of a text with their places in it.

    Attributes:
        tokens: Each token, NFKC-normalised and case-folded.
        starts: Offset in the text of each token's first character.
        ends: Offset in the text just past each token's last character. A character that
            NFKC splits into several tokens ("½" -> 1, ⁄, 2) gives each of them its offsets.

    """

    tokens: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    @cached_property
    def key(self) -> str:
        """The tokens joined, each preceded by a separator, with one more at the end."""
        return _SEP + _SEP.join(self.tokens) + _SEP if self.tokens else _SEP

    @cached_property
    def key_starts(self) -> list[int]:
        """Offset in :attr:`key` of the separator before each token."""
        return list(accumulate((len(t) + 1 for t in self.tokens[:-1]), initial=0))


@dataclass(frozen=True)
class SnippetMatch:
    """Where a document holds a snippet.

    Attributes:
        start: Offset of the span in the document.
        end: Offset just past the span.
        verbatim: True for a verbatim match, False for a near-verbatim one.

    """

    start: int
    end: int
    verbatim: bool


def fold(token: str) -> str:
    """A token as tokens are compared: NFKC-normalised and case-folded."""
    if token.isascii():
        return token.lower()
    # Case folding can leave text that is not NFKC ("ǰ" -> "ǰ"): normalise after it too.
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", token).casefold())


def _token_index(text: str) -> TokenIndex:
    spans = [m.span() for m in _TOKEN.finditer(text)]
    starts = [start for start, _ in spans]
    ends = [end for _, end in spans]
    if text.isascii():  # the common case: lower-casing is all the folding there is
        lower = text.lower()
        return TokenIndex(tuple(lower[s:e] for s, e in spans), tuple(starts), tuple(ends))
    tokens = [fold(text[start:end]) for start, end in spans]
    # NFKC may turn one token into text of several ("½" -> "1⁄2", "⑴" -> "(1)").
    if all(t.isascii() and t.isalnum() or _TOKEN.fullmatch(t) for t in tokens):
        return TokenIndex(tuple(tokens), tuple(starts), tuple(ends))
    split: list[tuple[str, int, int]] = [
        (part, start, end)
        for token, start, end in zip(tokens, starts, ends, strict=True)
        for part in _TOKEN.findall(token)
    ]
    return TokenIndex(
        tuple(t for t, _, _ in split), tuple(s for _, s, _ in split), tuple(e for _, _, e in split)
    )


@lru_cache(maxsize=64)
def document_index(document: str) -> TokenIndex:
    """The tokens of a document (cached: an answer cites the same documents many times)."""
    return _token_index(document)


def tokens(text: str) -> list[str]:
    """The tokens of ``text`` (NFKC-normalised, case-folded), in order."""
    return list(_token_index(text).tokens)


def find_verbatim(snippet: str, document: str) -> tuple[int, int] | None:
    """``(start, end)`` of the first span of ``document`` that is ``snippet`` verbatim.

    Verbatim means equal up to Unicode canonical equivalence; a blank snippet is never
    verbatim. Returns None when the document does not hold the snippet.
    """
    if not snippet.strip():
        return None
    found = document.find(snippet)
    end = found + len(snippet)
    if found != -1 and _starts_piece(document[found]) and _starts_piece(document[end : end + 1]):
        return found, end
    needle = unicodedata.normalize("NFD", snippet)
    if needle not in _nfd(document):
        return None
    decomposed, origin = _decomposed(document)
    found = decomposed.find(needle)
    while found != -1:
        start, end = origin[found], origin[found + len(needle)]
        if start >= 0 and end >= 0:  # neither end splits a character from its marks
            return start, end
        found = decomposed.find(needle, found + 1)
    return None


@lru_cache(maxsize=64)
def _nfd(document: str) -> str:
    return unicodedata.normalize("NFD", document)


def _starts_piece(ch: str) -> bool:
    """Whether canonical reordering never moves ``ch`` (or the end of text, ``""``) back."""
    return ch.isascii() or unicodedata.combining(unicodedata.normalize("NFD", ch)[0]) == 0


@lru_cache(maxsize=64)
def _decomposed(document: str) -> tuple[str, list[int]]:
    """NFD of ``document`` and, per offset in it (and its end), the document offset, or -1.

    The document is cut before every character that :func:`_starts_piece`, so canonical
    reordering never crosses a cut and the NFD of the whole is the NFD of its pieces joined.
    Offsets inside a piece (between a character and its marks) map to -1.
    """
    pieces: list[str] = []
    origin: list[int] = []
    start, n = 0, len(document)
    while start < n:
        end = start + 1
        while end < n and not _starts_piece(document[end]):
            end += 1
        piece = unicodedata.normalize("NFD", document[start:end])
        pieces.append(piece)
        origin += [start] + [-1] * (len(piece) - 1)
        start = end
    origin.append(n)
    return "".join(pieces), origin


def find_near_verbatim(snippet: str, document: str) -> tuple[int, int] | None:
    """``(start, end)`` of the first span of ``document`` with exactly the snippet's tokens.

    The span runs from its first token's first character to its last token's last character
    in the document's own text. None when the snippet has no token or no span has its tokens.
    """
    needle = _token_index(snippet)
    if not needle.tokens:
        return None
    index = document_index(document)
    found = index.key.find(needle.key)
    if found == -1:
        return None
    first = bisect_left(index.key_starts, found)
    last = first + len(needle.tokens) - 1
    return index.starts[first], index.ends[last]


def match_snippet(snippet: str, document: str) -> SnippetMatch | None:
    """Where ``document`` holds ``snippet``: verbatim, else near-verbatim, else None."""
    span = find_verbatim(snippet, document)
    if span is not None:
        return SnippetMatch(span[0], span[1], verbatim=True)
    span = find_near_verbatim(snippet, document)
    if span is not None:
        return SnippetMatch(span[0], span[1], verbatim=False)
    return None


def near_verbatim(snippet: str, document: str) -> bool:
    """Whether a snippet that is not verbatim in ``document`` has the words of a span of it.

    Near-verbatim: the same words (tokens) as a span of the document, differing only in
    typography. A verbatim or empty snippet is not near-verbatim.
    """
    found = match_snippet(snippet, document)
    return found is not None and not found.verbatim
