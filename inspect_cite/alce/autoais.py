r"""ALCE citation recall and precision (AutoAIS) over any NLI backend.

The definition behind the ``citation_nli`` scorer (``citation_rec``, ``citation_prec``), in the
core because the RERANK solver ranks its samples by it too.

``citation_scores`` reproduces the per-item loop of ALCE's eval.py (``compute_autoais``) by
default, quirks included:

- statements are ``nltk.sent_tokenize(output)``; for QAMPARI they are
  ``question + " " + entity`` for each comma-separated entity of
  ``output.rstrip().rstrip(".").rstrip(",")`` (commas inside ``[1, 2]`` split too);
- an item without statements is skipped (a QAMPARI output always has one: ``"".split(",")``);
- a statement's hypothesis is ``remove_citations(statement).strip()``; its citations are
  ``int(m[1:]) - 1`` for every ``re.findall(r"\[\d+", statement)``, so ``[0]`` cites the
  *last* document, ``[1, 2]`` cites only document 1, and ``[1][1]`` cites document 1 twice
  (numbers too long for ``int()`` are out of range); both readings of the markers are
  :mod:`inspect_cite.citations.alce`'s;
- recall is 0 without citations, 0 when any citation is out of range (checked *before*
  keeping the first ``at_most_citations``), else NLI(joined cited documents, hypothesis);
- precision: when recall is 1 with more than one citation, each cited document earns 1 if it
  entails the hypothesis alone, else 0 if the other citations (the list with one copy of it
  removed) still entail it, else 1; any other statement adds its recall. Item precision is the
  credit over the number of kept citations of in-range statements (0 when there are none).
- a citation of a document the model did not see (``allowed``: one no agent tool returned),
  which eval.py never had, makes its statement unsupported as an out-of-range one does, but
  its kept citations count in the precision denominator with no credit: citing something
  unseen never raises precision (eval.py's rule for out-of-range citations, which drops them
  from the denominator, can; see defect 4 below).

``alce_compat=False`` fixes what are defects rather than conventions:

1. ``[1, 2]`` / ``[1,2]`` / ``[1; 2]`` cite every listed document, and the whole group is
   removed from the hypothesis (eval.py leaves ", 2" in it).
2. ``[0]`` is an invalid citation, not the last document.
3. A repeated citation (``[1][1]``) counts once.
4. Only the kept citations (the first ``at_most_citations`` distinct ones) are checked for
   being in range, and invalid citations count in the precision denominator with no credit
   (eval.py drops them from it, so a bogus citation never lowers precision).
5. QAMPARI entities are split on commas outside citation brackets, citations are read from the
   entity only (not the question), and empty entities are dropped: an empty output has no
   statements and is skipped like an empty ASQA/ELI5 output (eval.py scores it as one uncited
   statement, recall 0 and precision 0).
6. Citations placed after a sentence's period (``"... France. [1] Berlin ..."``, which the
   sentence splitter attaches to the *next* sentence or leaves as a statement of its own) are
   given to the statement before them; a statement of citations alone is not judged.

:func:`diagnose_statements` classifies each statement as supported (recall's own verdict),
misattributed, unsupported or uncited (:mod:`inspect_cite.nli.diagnose`) for ``-S diagnose=true``.
"""

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from inspect_cite.citations.alce import (
    leading_markers_end,
    marker_refs,
    remove_citations,
    strip_markers,
)
from inspect_cite.evidence.documents import format_doc, format_passage
from inspect_cite.nli.base import NLIBackend, Pair
from inspect_cite.nli.diagnose import ClaimToDiagnose, Diagnosis, classify_claims, not_diagnosed
from inspect_cite.text.sentences import sent_tokenize

_COMMA_OUTSIDE_BRACKETS = re.compile(r",(?![^\[\]]*\])")

StatementStatus = Literal["uncited", "invalid", "checked"]


def at_most_citations_problem(value: int | None) -> str | None:
    """Why ``at_most_citations`` is unusable (it must be None or at least 1), or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return f"at_most_citations must be a whole number of at least 1, got {value!r}"
    return None


@dataclass
class CitationVerdict:
    """The precision check of one citation of a supported multi-citation statement.

    Attributes:
        ref: 0-based document index (``-1`` is eval.py's reading of ``[0]``: the last doc).
        alone: Whether the document alone entails the statement.
        others: Whether the other citations entail it (checked only when ``alone`` is False).
        credit: Precision credit (1 needed or not redundant, 0 irrelevant).

    """

    ref: int
    alone: bool
    others: bool | None
    credit: int


@dataclass
class StatementVerdict:
    """How one statement was judged.

    Attributes:
        text: The statement as split from the output (citations included).
        hypothesis: The citation-free text given to NLI.
        refs: Every citation parsed (0-based; None for a number too long for any document).
        used: The citations kept (after ``at_most_citations``), which count in the precision
            denominator; eval.py keeps none for ``uncited`` and ``invalid`` statements.
        status: ``uncited``, ``invalid`` (a citation out of range) or ``checked``.
        recall: 1 if the cited documents together entail the statement.
        credit: Precision credit added for this statement.
        citations: Per-citation precision checks (multi-citation supported statements only).

    """

    text: str
    hypothesis: str
    refs: list[int | None]
    used: list[int | None]
    status: StatementStatus
    recall: int = 0
    credit: int = 0
    citations: list[CitationVerdict] = field(default_factory=list)


@dataclass
class CitationResult:
    """Citation recall and precision of one output (fractions in [0, 1]).

    Attributes:
        recall: Share of statements supported by their citations; None when skipped.
        precision: Precision credit over counted citations; None when skipped.
        statements: Per-statement verdicts.
        total_citations: The precision denominator.
        skipped: Why the item has no scores (no statements), else None.

    """

    recall: float | None
    precision: float | None
    statements: list[StatementVerdict]
    total_citations: int
    skipped: str | None = None


def _passage(docs: Sequence[Mapping[str, Any]], refs: Sequence[int]) -> str:
    return format_passage([docs[r] for r in refs])


Statement = tuple[str, str, list[int | None]]


def _alce_statements(output: str, question: str, qampari: bool) -> list[Statement]:
    if qampari:
        parts = output.rstrip().rstrip(".").rstrip(",").split(",")
        sents = [question + " " + x.strip() for x in parts]
    else:
        sents = sent_tokenize(output)
    return [(s, remove_citations(s).strip(), marker_refs(s)) for s in sents]


def _fixed_statements(output: str, question: str, qampari: bool) -> list[Statement]:
    if qampari:
        parts = _COMMA_OUTSIDE_BRACKETS.split(output.rstrip().rstrip(".").rstrip(","))
    else:
        parts = sent_tokenize(output)
    statements: list[Statement] = []
    for part in parts:
        part = part.strip()
        lead = leading_markers_end(part)
        if lead and statements:
            # "... France. [1] Berlin ..." splits after the period: [1] is France's citation.
            text, hyp, prev = statements[-1]
            moved = part[:lead].strip()
            statements[-1] = (
                f"{text} {moved}",
                hyp,
                list(dict.fromkeys(prev + marker_refs(moved, alce_compat=False))),
            )
            part = part[lead:].strip()
        claim = strip_markers(part).strip()
        if not claim:
            continue
        hypothesis = f"{question} {claim}" if qampari else claim
        statements.append(
            (
                f"{question} {part}" if qampari else part,
                hypothesis,
                marker_refs(part, alce_compat=False),
            )
        )
    return statements


def _allowed(ref: int, docs: Sequence[Any], allowed: Collection[int] | None) -> bool:
    """Whether an in-range citation may be judged (``[0]``'s -1 is the last document)."""
    return allowed is None or ref % len(docs) in allowed


def _in_range(statement: StatementVerdict) -> list[int]:
    """The kept citations of a ``checked`` statement (all in range by then)."""
    refs = [r for r in statement.used if r is not None]
    assert len(refs) == len(statement.used), "only checked statements reach NLI"
    return refs


async def citation_scores(
    output: str,
    docs: Sequence[Mapping[str, Any]],
    question: str,
    nli: NLIBackend,
    qampari: bool = False,
    at_most_citations: int | None = 3,
    alce_compat: bool = True,
    allowed: Collection[int] | None = None,
    min_statement_chars: int = 0,
) -> CitationResult:
    """Citation recall and precision of one output, as ALCE's eval.py computes them.

    NLI calls are batched per round (all recall checks, then every "alone" check, then the
    "others" checks), which decides the same pairs eval.py decides one at a time.

    Args:
        output: The scored output WITH citations (eval.py: first line, ``<|im_end|>`` removed).
        docs: The documents the citations number from 1 (``title`` and ``text``/``sent``).
        question: The question (QAMPARI statements start with it).
        nli: The entailment backend.
        qampari: Judge each comma-separated entity as a statement (QAMPARI).
        at_most_citations: Judge at most this many citations per statement (None: all).
        alce_compat: Reproduce eval.py exactly (True) or fix its defects (see module doc).
        allowed: The documents (0-based) a citation may name; a citation of another one is
            invalid, as one out of range is (the documents the model saw,
            :meth:`inspect_cite.evidence.record.Evidence.allowed`). None: every document.
        min_statement_chars: Judge no sentence (ASQA/ELI5; not QAMPARI's entities) shorter
            than this once stripped: HELMET's eval_alce.py uses 5 (a lone "1." is no claim);
            eval.py judges every sentence (0).

    Returns:
        Recall, precision and the verdict on every statement.

    Raises:
        NLIError: When the backend could not decide a pair.
        ValueError: When ``at_most_citations`` is below 1.

    """
    problem = at_most_citations_problem(at_most_citations)
    if problem is not None:
        raise ValueError(problem)
    split = _alce_statements if alce_compat else _fixed_statements
    statements: list[StatementVerdict] = []
    for text, hypothesis, refs in split(output, question, qampari):
        if not qampari and len(text.strip()) < min_statement_chars:
            continue
        out_of_range = False
        if alce_compat:
            # eval.py: any(ref >= len(docs)) before truncation; "[0]" -> -1 is the last doc
            # (with no docs at all eval.py would crash; it is invalid here).
            out_of_range = any(r is None or r >= len(docs) or r < -len(docs) for r in refs)
            invalid = out_of_range or any(
                r is not None and not _allowed(r, docs, allowed) for r in refs
            )
            used = refs if at_most_citations is None else refs[:at_most_citations]
        else:
            used = refs if at_most_citations is None else refs[:at_most_citations]
            invalid = any(
                r is None or r < 0 or r >= len(docs) or not _allowed(r, docs, allowed) for r in used
            )
        if not refs:
            status: StatementStatus = "uncited"
        else:
            status = "invalid" if invalid else "checked"
        # eval.py forgets the citations of a statement citing out of range (so such a citation
        # never lowers precision); the fixed rules count them, and so does every rule for a
        # document the model did not see, which eval.py never had: it earns nothing.
        kept = (
            used
            if status == "checked" or (status == "invalid" and not (alce_compat and out_of_range))
            else []
        )
        statements.append(StatementVerdict(text, hypothesis, refs, kept, status))

    if not statements:
        reason = "no statements: the output is empty"
        if output.strip():
            reason = (
                f"no statements: every sentence is shorter than {min_statement_chars} characters"
            )
        return CitationResult(None, None, [], 0, reason)

    checked = [s for s in statements if s.status == "checked"]
    joint = await nli.entail([(_passage(docs, _in_range(s)), s.hypothesis) for s in checked])
    for s, result in zip(checked, joint, strict=True):
        s.recall = int(result.entailed)

    multi = [s for s in checked if s.recall and len(s.used) > 1]
    alone_pairs: list[Pair] = [
        (format_doc(docs[r]), s.hypothesis) for s in multi for r in _in_range(s)
    ]
    alone = iter(await nli.entail(alone_pairs))
    for s in multi:
        s.citations = [CitationVerdict(r, next(alone).entailed, None, 1) for r in _in_range(s)]

    others_pairs: list[Pair] = []
    for s in multi:
        for c in s.citations:
            if not c.alone:
                rest = _in_range(s)
                rest.remove(c.ref)  # one copy only, as eval.py's list.remove
                others_pairs.append((_passage(docs, rest), s.hypothesis))
    others = iter(await nli.entail(others_pairs))
    for s in multi:
        for c in s.citations:
            if not c.alone:
                c.others = next(others).entailed
                c.credit = 0 if c.others else 1

    multi_ids = {id(s) for s in multi}
    for s in statements:
        s.credit = sum(c.credit for c in s.citations) if id(s) in multi_ids else s.recall
    total = sum(len(s.used) for s in statements)
    credit = sum(s.credit for s in statements)
    return CitationResult(
        recall=sum(s.recall for s in statements) / len(statements),
        precision=credit / total if total > 0 else 0.0,
        statements=statements,
        total_citations=total,
    )


def _shown(ref: int | None, n_docs: int, alce_compat: bool) -> int | None:
    """The 0-based shown document a citation names, or None (out of range)."""
    if ref is None:
        return None
    if 0 <= ref < n_docs:
        return ref
    # eval.py reads "[0]" as -1, the last document; the fixed rules call it invalid.
    return ref % n_docs if alce_compat and -n_docs <= ref < 0 else None


def statement_claims(
    result: CitationResult, n_docs: int, alce_compat: bool = True
) -> list[ClaimToDiagnose]:
    """Each statement as :mod:`inspect_cite.nli.diagnose` classifies it, from recall's verdicts.

    ``supported`` is recall's own judgement (at most ``at_most_citations`` citations, none out
    of range); the documents recall judged together are not judged again.
    """
    claims = []
    for s in result.statements:
        shown = (_shown(r, n_docs, alce_compat) for r in s.refs)
        cited = tuple(dict.fromkeys(r + 1 for r in shown if r is not None))
        # The documents recall joined into its premise (none when it judged nothing).
        judged: frozenset[int] = frozenset()
        if s.status == "checked":
            judged = frozenset(r % n_docs for r in _in_range(s))
        claims.append(
            ClaimToDiagnose(
                text=s.hypothesis,
                hypothesis=s.hypothesis,
                cited=s.status != "uncited",
                supported=bool(s.recall),
                cited_positions=cited,
                judged=judged,
            )
        )
    return claims


async def diagnose_statements(
    result: CitationResult,
    docs: Sequence[Mapping[str, Any]],
    nli: NLIBackend,
    alce_compat: bool = True,
    allowed: Collection[int] | None = None,
) -> Diagnosis:
    """Every statement of a scored output as supported, misattributed, unsupported or uncited.

    Each statement recall did not support is judged against every seen document outside its
    judged citations, one document at a time (shown as eval.py shows it, :func:`format_doc`),
    through ``nli`` (the same batching and cache as recall).

    Args:
        result: The output's recall verdicts (:func:`citation_scores`).
        docs: The documents the citations number from 1.
        nli: The entailment backend.
        alce_compat: The rules ``result`` was computed with (eval.py's reads ``[0]`` as the
            last document).
        allowed: The documents (0-based) the model saw, as given to :func:`citation_scores`;
            no other is judged (None: every document).

    Returns:
        The classes (nan with the reason when the output was skipped or NLI failed).

    """
    if result.skipped:
        return not_diagnosed(result.skipped)
    claims = statement_claims(result, len(docs), alce_compat)
    premises = [
        format_doc(d) if allowed is None or i in allowed else None for i, d in enumerate(docs)
    ]
    return await classify_claims(claims, premises, nli)
