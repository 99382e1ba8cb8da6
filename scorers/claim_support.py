r"""FullCite claim attribution by NLI: does each claim's own evidence entail it.

Doc-F1 and Snippet-F1 compare the *set* of cited documents and snippets with the gold set, so
an answer whose claims swap their citations among themselves keeps its scores. This scorer asks
an NLI model, per claim, whether what the claim cites entails it. Definitions (per sample x100,
then the mean over samples):

- Claims are those of :func:`inspect_cite.citations.parse_citations` (via
  :func:`scorers._cited_answer.read_cited_answer`): a cited claim is the text before its
  citations; every uncited sentence is an uncited claim. A citation with no claim text before
  it is not a claim (nothing to judge) and is only listed. The hypothesis is the claim text,
  which holds no citation markup.
- A citation gives evidence only when it is valid (its doc id is a context document the model
  saw and, after posthoc, its snippet was aligned: the project's invalid citations support
  nothing, as they count wrong in Doc-F1). Its snippet is evidence only when non-empty and
  found in the cited document, verbatim or near-verbatim (see ``doc_snippet_f1``'s
  ``near_verbatim_rate``): a snippet the document does not hold (a rewording, or the claim
  restated) is not evidence from that document, else copying the claim into the snippet
  would always be "supported".
- The evidence is the document's own text of the span holding the snippet
  (:attr:`scorers._cited_answer.CheckedCitation.evidence`), never the model's words: a
  near-verbatim snippet shows the document's spelling, case and punctuation.
- Premises are joined as ALCE joins documents (``"Title: {title}\n{text}"``, one per line;
  :func:`inspect_cite.evidence.documents.format_doc`): the snippet premise shows each distinct
  evidence span of the claim, in citation order, under its document's title; the document
  premise shows each distinct validly cited document's full text.
- ``snippet_support``: share of cited claims whose snippet premise entails the claim (a claim
  without any evidence snippet is not supported);
- ``doc_support``: share of cited claims whose document premise entails the claim;
- ``unsupported_claims``: share of all claims (cited or not) that neither premise entails;
  uncited claims count here as unsupported and are left out of the two shares above.
- No claims at all (an empty answer): all three nan, with the reason. No cited claim: the two
  shares are nan (reason given), ``unsupported_claims`` is 100. An NLI failure: all three nan
  with the reason, never 0.

With ``diagnose=true`` every claim is also classified ``supported`` (as above: either premise
entails it), ``misattributed``, ``unsupported`` or ``uncited`` (:mod:`inspect_cite.nli.diagnose`):
a claim its citations do not support is judged against each shown document it does not validly
cite, an uncited claim against every shown document.

Pairs go through :func:`inspect_cite.nli.get_nli`: the same specs, batching queue across
concurrent samples, and memory/disk cache (``INSPECT_CITE_NLI_CACHE``) as ``citation_nli``.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.downloads.http_client import redact_text
from inspect_cite.evidence.documents import format_doc
from inspect_cite.nli import NLIBackend, NLIError, Pair
from inspect_cite.nli.diagnose import DIAGNOSE_KEYS, ClaimToDiagnose, Diagnosis, classify_claims
from inspect_cite.nli.judge import failed_score, nli_judge
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import cell, code, italic, one_line
from scorers._cited_answer import CheckedCitation, CitedAnswer, read_cited_answer
from scorers._judge_correction import calibration_metadata, corrected, share
from scorers._no_answer import no_answer_score

CLAIM_SUPPORT_KEYS = ("snippet_support", "doc_support", "unsupported_claims")


@dataclass
class ClaimVerdict:
    """How one claim was judged.

    Attributes:
        text: The claim (the NLI hypothesis).
        citations: Its checked citations (empty for an uncited claim).
        snippet_premise: The joined evidence spans (the documents' words), or None when it
            has none.
        doc_premise: The joined cited documents, or None when no citation is valid.
        snippet_entailed: Whether the snippet premise entails the claim (False without one).
        doc_entailed: Whether the document premise entails the claim (False without one).

    """

    text: str
    citations: list[CheckedCitation]
    snippet_premise: str | None = None
    doc_premise: str | None = None
    snippet_entailed: bool = False
    doc_entailed: bool = False

    @property
    def cited(self) -> bool:
        """The claim has at least one citation."""
        return bool(self.citations)

    @property
    def supported(self) -> bool:
        """Its snippets or its documents entail it."""
        return self.snippet_entailed or self.doc_entailed


def is_evidence(citation: CheckedCitation) -> bool:
    """A valid citation whose snippet the cited document holds (verbatim or near-verbatim)."""
    return citation.no_evidence is None


def snippet_premise(answer: CitedAnswer, citations: Sequence[CheckedCitation]) -> str | None:
    """The claim's evidence: the documents' own text of each span its snippets cite.

    Each distinct span, in citation order, under its document's title, one per line.
    """
    shown = dict.fromkeys(
        (c.doc_id, c.doc_start, c.doc_end, c.evidence) for c in citations if is_evidence(c)
    )
    parts = []
    for doc_id, _, _, evidence in shown:
        doc = answer.doc(doc_id)
        assert doc is not None and evidence  # evidence citations are valid
        parts.append(format_doc({"title": doc["title"], "text": evidence}))
    return "\n".join(parts) or None


def doc_premise(answer: CitedAnswer, citations: Sequence[CheckedCitation]) -> str | None:
    """The claim's validly cited documents (full text, each once), one per line."""
    shown = dict.fromkeys(c.doc_id for c in citations if c.valid)
    parts = []
    for doc_id in shown:
        doc = answer.doc(doc_id)
        assert doc is not None
        parts.append(format_doc(doc))
    return "\n".join(parts) or None


async def judge_claims(answer: CitedAnswer, nli: NLIBackend) -> list[ClaimVerdict]:
    """Every claim of the answer (cited ones first, in order; then uncited) with its verdicts.

    All pairs of the answer go to the backend in one call (which batches them with other
    samples' pairs and answers repeats from its cache).

    Raises:
        NLIError: When the backend could not decide a pair.

    """
    verdicts = [
        ClaimVerdict(
            claim.text,
            citations,
            snippet_premise(answer, citations),
            doc_premise(answer, citations),
        )
        for claim, citations in answer.claim_citations()
        if claim.text
    ]
    pairs: list[Pair] = []
    for v in verdicts:
        pairs += [(p, v.text) for p in (v.snippet_premise, v.doc_premise) if p is not None]
    results = iter(await nli.entail(pairs))
    for v in verdicts:
        if v.snippet_premise is not None:
            v.snippet_entailed = next(results).entailed
        if v.doc_premise is not None:
            v.doc_entailed = next(results).entailed
    return verdicts + [ClaimVerdict(text, []) for text in answer.parsed.uncited]


def support_values(verdicts: Sequence[ClaimVerdict]) -> tuple[dict[str, float], str | None]:
    """The three values (x100) of one answer, and why any of them is nan (else None)."""
    values = dict.fromkeys(CLAIM_SUPPORT_KEYS, math.nan)
    if not verdicts:
        return values, "no claims: the answer has no text to judge"
    cited = [v for v in verdicts if v.cited]
    values["unsupported_claims"] = 100 * sum(not v.supported for v in verdicts) / len(verdicts)
    if not cited:
        return values, "no cited claim: snippet_support and doc_support are undefined"
    values["snippet_support"] = 100 * sum(v.snippet_entailed for v in cited) / len(cited)
    values["doc_support"] = 100 * sum(v.doc_entailed for v in cited) / len(cited)
    return values, None


async def diagnose_claims(
    answer: CitedAnswer, verdicts: Sequence[ClaimVerdict], nli: NLIBackend
) -> Diagnosis:
    r"""Every claim as supported, misattributed, unsupported or uncited.

    ``supported`` is this scorer's verdict (its snippet or document premise entails it). A
    cited claim that is not supported is judged against each seen document it does not
    validly cite, an uncited claim against every seen document, one document at a time
    (``Title: {title}\n{text}``), through ``nli`` (the same batching and cache).
    """
    claims = []
    for v in verdicts:
        valid = {c.doc_id for c in v.citations if c.valid}
        claims.append(
            ClaimToDiagnose(
                text=v.text,
                hypothesis=v.text,
                cited=v.cited,
                supported=v.supported,
                cited_positions=tuple(
                    dict.fromkeys(c.position for c in v.citations if c.position is not None)
                ),
                judged=frozenset(j for j, doc in enumerate(answer.docs) if doc["id"] in valid),
            )
        )
    # Only what the model saw is judged (an agent's unreturned documents never are).
    premises = answer.evidence.premises() if answer.evidence is not None else []
    return await classify_claims(claims, premises, nli)


def _doc_label(answer: CitedAnswer, doc_id: str) -> str:
    """A document as explanations name it: its id as code, its title in italics."""
    return f"{code(doc_id, 60)} {italic(one_line(answer.title(doc_id), 80))}"


def _verdict(entailed: bool, premise: str | None, missing: str) -> str:
    if premise is None:
        return f"not supported ({missing})"
    return "**supported**" if entailed else "**not supported**"


def _citation_line(answer: CitedAnswer, c: CheckedCitation) -> str:
    check: str
    if not c.valid:
        check = "unknown doc id" if c.status == "unknown_doc_id" else c.status
    else:
        check = c.match + ("" if is_evidence(c) or not c.snippet else ": not evidence")
    return f"   - {_doc_label(answer, c.doc_id)}: “{cell(c.snippet)}” ({check})"


def explanation(
    answer: CitedAnswer, verdicts: Sequence[ClaimVerdict], values: dict[str, float], nli: str
) -> str:
    """Markdown: the values, then each claim with its citations and both verdicts."""
    shown = ", ".join(f"{k} {'nan' if math.isnan(v) else f'{v:.1f}'}" for k, v in values.items())
    cited = sum(v.cited for v in verdicts)
    lines = [
        f"**Claim support:** {shown} ({cited} cited, {len(verdicts) - cited} uncited claims; "
        f"NLI {code(redact_text(nli))})",
        "",
    ]
    for i, v in enumerate(verdicts, 1):
        lines.append(f"{i}. {cell(v.text)}")
        if not v.cited:
            lines.append("   - no citation: unsupported")
            continue
        lines += [_citation_line(answer, c) for c in v.citations]
        snippet = _verdict(v.snippet_entailed, v.snippet_premise, "no evidence snippet")
        doc = _verdict(v.doc_entailed, v.doc_premise, "no valid citation")
        lines.append(f"   - snippet: {snippet}; document: {doc}")
    empty = [c for claim, cs in answer.claim_citations() if not claim.text for c in cs]
    if empty:
        lines += ["", f"{len(empty)} citation(s) follow no claim text and are not judged."]
    return "\n".join(lines)


def judged_shares(verdicts: Sequence[ClaimVerdict]) -> dict[str, float]:
    """Per value, the share of its claims the judge decided (the rest have no premise)."""
    cited = [v for v in verdicts if v.cited]
    return {
        "snippet_support": share(sum(v.snippet_premise is not None for v in cited), len(cited)),
        "doc_support": share(sum(v.doc_premise is not None for v in cited), len(cited)),
        "unsupported_claims": share(
            sum(v.snippet_premise is not None or v.doc_premise is not None for v in verdicts),
            len(verdicts),
        ),
    }


# The diagnose keys are declared here and logged only with diagnose=true: Inspect resolves a
# scorer's metric keys against the keys its samples' values hold, so keys that no sample of a
# run holds are not reported (every sample of a run holds the same keys).
@scorer(
    metrics={
        **{
            key: [mean(), stderr(), corrected(key, negative=key == "unsupported_claims")]
            for key in CLAIM_SUPPORT_KEYS
        },
        **{key: [mean(), stderr()] for key in DIAGNOSE_KEYS},
    }
)
@accept_cli_values("-S")
def claim_support(
    nli: str = "true",
    nli_cache: str | None = None,
    calibration: str | None = None,
    diagnose: bool = False,
) -> Scorer:
    """FullCite claim attribution by NLI: snippet_support, doc_support, unsupported_claims (x100).

    For each claim, an NLI model judges whether the document text its snippets cite (joined)
    and, separately, its cited documents (joined) entail it; definitions in this module's
    docstring. Reads the answer in the FullCite format (``{doc_id: X, snippet: Y}``) and
    ``metadata["docs"]``.

    Args:
        nli: NLI backend spec: ``true`` (ALCE's T5-11B), ``seq2seq:<model>``,
            ``classifier:<model>``, ``model:<model or role>``, ``remote:<url>#<model>`` or
            ``python:<module>:<fn>``.
        nli_cache: SQLite file caching NLI decisions (default ``$INSPECT_CITE_NLI_CACHE``).
        calibration: ``FILE[#DATA[/SUBSET]]``, a ``calibration.json`` measuring this ``nli``
            judge: the log then carries each value corrected for the judge's errors.
        diagnose: Also classify every claim as ``supported``, ``misattributed``,
            ``unsupported`` or ``uncited`` (x100 shares, plus ``uncited_but_supported``;
            :mod:`inspect_cite.nli.diagnose`), judging each unsupported claim against the shown
            documents it does not cite.

    """
    judge = nli_judge(nli, nli_cache=nli_cache, calibration=calibration)
    backend, judge_calibration = judge.backend, judge.calibration
    keys = (*CLAIM_SUPPORT_KEYS, *DIAGNOSE_KEYS) if diagnose else CLAIM_SUPPORT_KEYS

    async def score(state: TaskState, target: Target) -> Score:
        if unscored := no_answer_score(state, keys):
            return unscored
        answer = read_cited_answer(state)
        try:
            verdicts = await judge_claims(answer, backend)
        except NLIError as e:
            return failed_score(keys, e, answer=answer.text, diagnose=diagnose)
        values, reason = support_values(verdicts)
        shown = explanation(answer, verdicts, values, nli)
        if reason:
            shown = f"**nan:** {reason}\n\n{shown}"
        extra: dict[str, Any] = {}
        if diagnose:
            diagnosis = await diagnose_claims(answer, verdicts, backend)
            labels = [_doc_label(answer, doc["id"]) for doc in answer.docs]
            values, shown, extra = diagnosis.added_to(
                labels, value=values, explanation=shown, metadata=extra
            )
        return Score(
            value=values,
            answer=answer.text,
            explanation=shown,
            metadata={
                "reason": reason,
                "claims": [
                    {
                        "claim": v.text,
                        "citations": [c.index for c in v.citations],
                        "snippet_entailed": v.snippet_entailed if v.snippet_premise else None,
                        "doc_entailed": v.doc_entailed if v.doc_premise else None,
                    }
                    for v in verdicts
                ],
                **calibration_metadata(judge_calibration, judged_shares(verdicts), values),
                **extra,
            },
        )

    return score
