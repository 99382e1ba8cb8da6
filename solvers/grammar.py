"""Citation grammars for constrained decoding, in llguidance's Lark syntax.

One grammar is built per sample from its documents:

- FullCite: claim text, one sentence (no braces or brackets, no line break, no ``.``, ``!``
  or ``?`` that could end a sentence, with a letter or digit among its first 17 characters and
  at most ``max_claim_chars`` characters from there, a sentence mark inside it and the character
  after it counting as one), then
  one to ``max_citations`` citations ``{doc_id: <id>, snippet: <text>}`` where ``<id>`` is one
  of the sample's ids and ``<text>`` is a non-empty run of whole words of *that* document
  (llguidance's ``substring_words`` lexeme, intersected with a pattern that forbids blank
  snippets, surrounding whitespace and braces), repeated up to ``max_claims`` times, then
  optional closing punctuation.
- ALCE: statements (one sentence each, as claims are), each followed by one to
  ``max_citations`` markers ``[1]``..``[ndoc]``, repeated, then optional punctuation.

So every sentence of an answer ends with its citations: a claim of several sentences would
leave all but its last uncited (scorers split answers into sentences).

The bounds keep a weak model from running to ``max_tokens`` inside a claim; they are
parameters of the solver. Document texts enter the grammar as JSON strings inside
``%regex {...}`` and ids as JSON-escaped Lark literals, so quotes, backslashes, braces,
newlines and Lark syntax in a document cannot change the grammar.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.citations import render_citation
from inspect_cite.citations.alce import ids_problem, render_marker
from inspect_cite.evidence.documents import Document

DEFAULT_MAX_CLAIMS = 16
DEFAULT_MAX_CLAIM_CHARS = 600
DEFAULT_MAX_CITATIONS = 3

# Claim/statement text: no citation delimiters; a few leading non-word characters (". " after
# the previous citation), then a letter or digit, then one sentence on one line: scorers split
# answers into sentences with Punkt (ALCE's statements, FullCite's claims), and a sentence end
# inside a claim leaves the sentence before it uncited. Punkt may end a sentence at ".", "!" or
# "?" followed by a space or by one of ?!)";}]*:@'({[‘’“”«» (so "big.[1]" ends before it):
# inside a claim such a mark is followed by another character ("0.5 mg", "U.S.A", "etc., and"),
# and a claim does not end with one (the period goes after the citation). Up to
# max_claim_chars - 1 characters follow the first letter or digit, a sentence mark and the
# character after it counting as one. One plain regex rather than an intersection: llguidance
# can then use its precomputed token "slices" for claim text (TEXT_SLICES), ~3x cheaper masks.
_PLAIN = r"[^{}\[\]\n\r.!?]"
_MARK_THEN = r"[.!?][^{}\[\]\s.!?)\";*:@'(\u2018\u2019\u201c\u201d\u00ab\u00bb]"
_LEAD = r"[^{}\[\]\p{L}\p{N}]{0,16}[\p{L}\p{N}]"


def _claim_regex(max_claim_chars: int) -> str:
    return f"/{_LEAD}(?:{_PLAIN}|{_MARK_THEN}){{0,{max_claim_chars - 1}}}/"


# Token classes llguidance precomputes (see solvers.constrained_hf): runs of claim text without
# sentence marks (what a claim allows anywhere), then runs of any text.
TEXT_SLICES = [
    r"[^{}\[\]\x00-\x1F\x7F.!?]{1,10}",
    r"[^{}\[\]\x00-\x1F\x7F.!?]{1,30}",
    r"[\x20\x09]+",
    r"[^{}\[\]\x00-\x1F\x7F]{1,10}",
    r"[^{}\[\]\x00-\x1F\x7F]{1,30}",
    r"[\x20\x0A\x0D\x09]+",
]
# Trailing punctuation after the last citation (no letters or digits: it is not a claim).
_TAIL = r"/[^{}\[\]\p{L}\p{N}]{1,8}/"
# A snippet: non-blank, no surrounding whitespace, no braces (so it cannot end a citation).
_SNIPPET_SHAPE = r"/[^{}\s]([^{}]*[^{}\s])?/"
_WORD = re.compile(r"\w")


class GrammarError(ValueError):
    """A sample's documents cannot be turned into a citation grammar."""


@dataclass(frozen=True)
class AnswerLimits:
    """How long an answer a citation grammar allows.

    Args:
        max_claims: Most claims (statements) in an answer.
        max_claim_chars: Most characters in one claim's text (from its first letter or digit).
        max_citations: Most citations after one claim.

    Raises:
        ArgumentError: A limit is not a positive integer (a ``ValueError``).

    """

    max_claims: int = DEFAULT_MAX_CLAIMS
    max_claim_chars: int = DEFAULT_MAX_CLAIM_CHARS
    max_citations: int = DEFAULT_MAX_CITATIONS

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ArgumentError(f"{name} must be a positive integer, got {value!r}")


def lark_literal(value: str) -> str:
    """A Lark string literal matching ``value`` exactly."""
    return json.dumps(value, ensure_ascii=False)


def answer_limits(limits: AnswerLimits | None) -> AnswerLimits:
    """``limits``, or the defaults for None; anything else is refused by name."""
    if limits is None:
        return AnswerLimits()
    if not isinstance(limits, AnswerLimits):
        raise TypeError(f"limits must be an AnswerLimits, got {limits!r}")
    return limits


def fullcite_grammar(docs: Sequence[Document], limits: AnswerLimits | None = None) -> str:
    """The FullCite answer grammar for one sample's documents.

    Args:
        docs: The context documents (``metadata["docs"]``).
        limits: How long an answer may be (default :class:`AnswerLimits`'s).

    Raises:
        GrammarError: No document has citable text, or an id cannot be written in a citation.

    """
    limits = answer_limits(limits)
    alternatives: list[str] = []
    rules: list[str] = []
    seen: set[str] = set()
    for i, doc in enumerate(docs):
        doc_id = doc["id"]
        if doc_id in seen or not _WORD.search(doc["text"]):
            continue  # the first document with an id is the one a citation refers to
        seen.add(doc_id)
        try:
            ok = render_citation(doc_id, "x") == f"{{doc_id: {doc_id}, snippet: x}}"
        except ValueError:
            ok = False
        if not ok:
            raise GrammarError(
                f'metadata["docs"][{i}]["id"] = {doc_id!r} cannot be written in a citation '
                "(it must be non-empty, without surrounding spaces, braces, newlines or "
                "'snippet:')"
            )
        n = len(alternatives)
        alternatives.append(f'{lark_literal(doc_id)} ", snippet: " SNIP{n}')
        rules.append(
            f"SUB{n}: %regex {json.dumps({'substring_words': doc['text']}, ensure_ascii=False)}"
        )
        rules.append(f"SNIP{n}: SUB{n} & {_SNIPPET_SHAPE}")
    if not alternatives:
        raise GrammarError('no document in metadata["docs"] has text to cite')
    return "\n".join(
        [
            f"start: item{{1,{limits.max_claims}}} TAIL?",
            f'item: CLAIM cite (" "? cite){{0,{limits.max_citations - 1}}}',
            'cite: "{doc_id: " (' + " | ".join(alternatives) + ') "}"',
            f"CLAIM: {_claim_regex(limits.max_claim_chars)}",
            f"TAIL: {_TAIL}",
            *rules,
        ]
    )


def alce_grammar(doc_ids: Sequence[str], limits: AnswerLimits | None = None) -> str:
    """The ALCE answer grammar: statements each followed by markers ``[1]``..``[n]``.

    Args:
        doc_ids: The ids of the n documents shown, which markers cite by position: ``"1"``..
            ``"n"`` in order (as the ALCE tasks number them).
        limits: How long an answer may be (default :class:`AnswerLimits`'s); a claim is a
            statement, a citation a marker.

    Raises:
        GrammarError: There are no ids, or they are not the positions ``"1"``..``"n"``.

    """
    limits = answer_limits(limits)
    if not doc_ids:
        raise GrammarError('ALCE grammar needs at least one document in metadata["docs"]')
    problem = ids_problem(doc_ids)
    if problem is not None:
        raise GrammarError(
            f'metadata["docs"]: {problem}; the ALCE format cites documents by position, as the '
            "ALCE tasks number them: use -S format=fullcite (or auto) for documents cited by id"
        )
    refs = " | ".join(lark_literal(render_marker(i)) for i in range(1, len(doc_ids) + 1))
    return "\n".join(
        [
            f"start: item{{1,{limits.max_claims}}} TAIL?",
            f"item: TEXT ref{{1,{limits.max_citations}}}",
            f"ref: {refs}",
            f"TEXT: {_claim_regex(limits.max_claim_chars)}",
            f"TAIL: {_TAIL}",
        ]
    )
