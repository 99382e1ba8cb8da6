r"""Why a citation fails: every claim is supported, misattributed, unsupported or uncited.

Citation recall and Snippet-F1 say how often citations fail, not why. ALCE and FullCite show
the model every document, so a failed claim can be judged against the documents it did not
cite. ``-S diagnose=true`` on ``citation_nli`` (ALCE statements) and ``claim_support``
(FullCite claims) gives every claim one class:

- ``supported``: its citations support it, as the scorer itself judges (ALCE: the cited
  passages together entail it, as citation recall judges, ``at_most_citations`` and the
  out-of-range rule included; FullCite: its snippets' or its documents' premise entails it);
- ``misattributed``: its citations do not support it, but another document the model saw
  does, alone (the right content, the wrong source). "Another" is a seen document outside the
  premise the scorer judged: for a statement whose citation is out of range, that premise is
  empty, so every seen document is judged. A document the model did not see (one no agent
  tool returned, :mod:`inspect_cite.evidence.record`) is never judged: it supports no class;
- ``unsupported``: no other shown document supports it either (the model's own knowledge, or
  made up);
- ``uncited``: it has no citation, whatever the documents say.

The four classes partition the claims, so their shares (x100) sum to 100. Whether an uncited
claim is supported by some shown document is reported apart: ``uncited_but_supported`` is the
share of all claims that are uncited yet entailed by a shown document (a part of ``uncited``).

Cost: one NLI pair per claim that is not ``supported`` and per shown document not already
judged for it (each document alone, ``Title: {title}\n{text}``), all of a sample's in one call
to the scorer's backend, which batches them with other samples' pairs and answers repeats from
its cache. The count is in the score metadata (``diagnose.pairs``).

Unknowable values are nan with the reason (``diagnose.reason``): no claims (an empty answer),
an NLI failure.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from inspect_cite.nli.base import NLIBackend, NLIError, Pair
from inspect_cite.text.markdown import cell

ClaimClass = Literal["supported", "misattributed", "unsupported", "uncited"]

DIAGNOSE_CLASSES: tuple[ClaimClass, ...] = ("supported", "misattributed", "unsupported", "uncited")
"""The four classes, in the order they are shown (their shares sum to 100)."""

UNCITED_BUT_SUPPORTED = "uncited_but_supported"
"""The share of claims that are uncited although a shown document entails them."""

DIAGNOSE_KEYS: tuple[str, ...] = (*DIAGNOSE_CLASSES, UNCITED_BUT_SUPPORTED)
"""The log keys ``diagnose`` adds to a scorer's value."""

METADATA_KEY = "diagnose"
"""Where a score's metadata keeps the diagnosis (read by ``inspect-cite report``)."""


@dataclass(frozen=True)
class ClaimToDiagnose:
    """One claim as the scorer judged it, with what diagnose needs to know.

    Attributes:
        text: The claim as shown in explanations.
        hypothesis: The text the NLI judges (ALCE: citations removed; QAMPARI: question +
            entity).
        cited: Whether the claim has any citation (valid or not).
        supported: The scorer's own verdict: its citations support it.
        cited_positions: 1-based positions of the shown documents it cites.
        judged: 0-based indexes of the shown documents the scorer already judged it against
            (its premise); they are not judged again.

    """

    text: str
    hypothesis: str
    cited: bool
    supported: bool
    cited_positions: tuple[int, ...] = ()
    judged: frozenset[int] = frozenset()


@dataclass
class ClaimDiagnosis:
    """The class of one claim.

    Attributes:
        text: The claim.
        label: ``supported``, ``misattributed``, ``unsupported`` or ``uncited``.
        cited: 1-based positions of the shown documents it cites.
        supporting: 1-based positions of the documents judged here that entail it alone (the
            other shown documents; every shown document for an uncited claim).

    """

    text: str
    label: ClaimClass
    cited: list[int]
    supporting: list[int] = field(default_factory=list)

    @property
    def uncited_but_supported(self) -> bool:
        """An uncited claim that a shown document entails."""
        return self.label == "uncited" and bool(self.supporting)


@dataclass
class Diagnosis:
    """Every claim's class, the NLI pairs diagnose added, and why values are nan (if so)."""

    claims: list[ClaimDiagnosis]
    pairs: int
    reason: str | None = None

    def added_to(
        self,
        doc_labels: Sequence[str],
        *,
        value: dict[str, float],
        explanation: str,
        metadata: dict[str, Any],
    ) -> tuple[dict[str, float], str, dict[str, Any]]:
        """A score's value, explanation and metadata, each with this diagnosis added.

        Args:
            doc_labels: Each shown document as the scorer names it (``[2] *Title*``), in order.
            value: The scorer's own values.
            explanation: The scorer's own explanation.
            metadata: The scorer's own metadata.

        """
        return (
            value | diagnose_values(self),
            f"{explanation}\n\n{diagnose_explanation(self, doc_labels)}",
            {**metadata, METADATA_KEY: diagnose_metadata(self)},
        )

    @staticmethod
    def failed(reason: str) -> dict[str, Any]:
        """The metadata entry of a sample that could not be judged at all (nan, the reason)."""
        return {METADATA_KEY: diagnose_metadata(not_diagnosed(reason))}


async def classify_claims(
    claims: Sequence[ClaimToDiagnose], documents: Sequence[str | None], nli: NLIBackend
) -> Diagnosis:
    """Classify each claim, judging the unsupported ones against the other seen documents.

    Args:
        claims: The claims with the scorer's verdicts.
        documents: Each document as the NLI premise, in the order shown; None for one the
            model did not see (:meth:`inspect_cite.evidence.record.Evidence.premises`), never
            judged.
        nli: The scorer's backend (its batching queue and cache).

    Returns:
        The classes; an NLI failure gives no classes and the reason.

    """
    pairs: list[Pair] = []
    owners: list[tuple[int, int]] = []
    for i, claim in enumerate(claims):
        if claim.cited and claim.supported:
            continue
        for j, premise in enumerate(documents):
            if premise is None or j in claim.judged:
                continue
            pairs.append((premise, claim.hypothesis))
            owners.append((i, j))
    try:
        results = await nli.entail(pairs)
    except NLIError as e:
        return Diagnosis([], len(pairs), f"NLI failed: {e}")
    supporting: dict[int, list[int]] = {}
    for (i, j), result in zip(owners, results, strict=True):
        if result.entailed:
            supporting.setdefault(i, []).append(j + 1)
    out = []
    for i, claim in enumerate(claims):
        found = supporting.get(i, [])
        label: ClaimClass
        if not claim.cited:
            label = "uncited"
        elif claim.supported:
            label = "supported"
        else:
            label = "misattributed" if found else "unsupported"
        out.append(ClaimDiagnosis(claim.text, label, list(claim.cited_positions), found))
    reason = None if out else "no claims: the answer has no statement to classify"
    return Diagnosis(out, len(pairs), reason)


def not_diagnosed(reason: str) -> Diagnosis:
    """The diagnosis of a sample that could not be judged at all (nan values, the reason)."""
    return Diagnosis([], 0, reason)


def diagnose_values(diagnosis: Diagnosis) -> dict[str, float]:
    """The shares (x100) of the four classes and ``uncited_but_supported``; nan without claims."""
    claims = diagnosis.claims
    if diagnosis.reason is not None or not claims:
        return dict.fromkeys(DIAGNOSE_KEYS, math.nan)
    values: dict[str, float] = {
        c: 100 * sum(d.label == c for d in claims) / len(claims) for c in DIAGNOSE_CLASSES
    }
    values[UNCITED_BUT_SUPPORTED] = 100 * sum(d.uncited_but_supported for d in claims) / len(claims)
    return values


def diagnose_metadata(diagnosis: Diagnosis) -> dict[str, Any]:
    """What the log keeps per sample: pairs added, the reason for nan, each claim's class."""
    return {
        "pairs": diagnosis.pairs,
        "reason": diagnosis.reason,
        "claims": [
            {"claim": d.text, "class": d.label, "cited": d.cited, "supporting": d.supporting}
            for d in diagnosis.claims
        ],
    }


def _positions(positions: Sequence[int], labels: Sequence[str]) -> str:
    return ", ".join(
        f"{labels[p - 1]} (position {p})" if 0 < p <= len(labels) else f"position {p}"
        for p in positions
    )


def diagnose_explanation(diagnosis: Diagnosis, doc_labels: Sequence[str]) -> str:
    """Markdown: the class shares, then each claim's class and the documents that support it.

    Args:
        diagnosis: The sample's diagnosis.
        doc_labels: Each shown document as the scorer names it (``[2] *Title*``), in order.

    """
    added = f"diagnose added {diagnosis.pairs} NLI pairs"
    if diagnosis.reason is not None:
        return f"**Diagnose:** nan, {cell(diagnosis.reason, None)} ({added})."
    values = diagnose_values(diagnosis)
    shares = ", ".join(f"{k} {values[k]:.1f}" for k in DIAGNOSE_CLASSES)
    lines = [
        f"**Diagnose:** {shares}; {UNCITED_BUT_SUPPORTED} {values[UNCITED_BUT_SUPPORTED]:.1f} "
        f"({len(diagnosis.claims)} claims; {added})",
        "",
    ]
    for i, d in enumerate(diagnosis.claims, 1):
        line = f"{i}. **{d.label}**: {cell(d.text, 200)}"
        if d.label == "misattributed":
            cited = _positions(d.cited, doc_labels) or "no shown document"
            line += f" (cites {cited}; supported by {_positions(d.supporting, doc_labels)})"
            # ALCE judges a statement's first at_most_citations citations, and none beside an
            # out-of-range one: a document it cites can be the one that supports it.
            unjudged = [p for p in d.supporting if p in d.cited]
            if unjudged:
                line += (
                    f"; {_positions(unjudged, doc_labels)} is among its citations but was not "
                    "judged (past at_most_citations, or beside an out-of-range citation)"
                )
        elif d.uncited_but_supported:
            line += f" (supported by {_positions(d.supporting, doc_labels)})"
        lines.append(line)
    return "\n".join(lines)
