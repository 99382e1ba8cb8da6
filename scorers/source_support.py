r"""Citations of tool-using models and agents, checked against what the transcript retrieved.

For any Inspect log whose model used tools or web search (agents, server-side search, the
``-T strategy=agent`` runs, provider-native citations). The sources are the sample's evidence
(:func:`inspect_cite.evidence.record.read_evidence`, the one reading every scorer shares): for this
project's strategies, the documents its evidence record says the model saw, as it saw them;
for a log this project did not write, what the conversation's tools returned
(:mod:`inspect_cite.evidence.transcript`: the text of a fetched URL, search results with their
content, a document read by id, server-side search results Inspect recorded, documents given
to the model) and the sample's ``metadata["docs"]`` when it has them. A claim is a sentence
of the final answer, and its citations are the ``UrlCitation``/``DocumentCitation``\ s of its
text blocks, its markdown links, its ``[n]`` markers and FullCite citations. A ``[n]`` of this
project's ALCE strategies names the n-th document, as everywhere; in a log without a record
it names the document with id ``n`` or search result ``n``, and is counted apart (ambiguous,
with the reason) when both exist and differ. URLs are compared after
:func:`inspect_cite.evidence.urls.normalize_url`; no page is fetched again.

Per sample (x100 except the count, then the mean over samples):

- ``cited_source_seen``: share of the answer's citations whose source the model saw. A URL
  never retrieved is a fabricated citation. An ambiguous ``[n]`` is left out of this share
  and of the claim's premise (``ambiguous_citations`` in the metadata). nan without
  citations that can be told.
- ``supported_claims``: share of the claims entailed by their cited, retrieved text: the
  claim's retrieved cited sources (the first ``at_most_citations``, in citation order) are joined as
  ALCE joins documents (``"Title: {title}\n{text}"`` per source, one per line;
  :func:`inspect_cite.evidence.documents.format_passage`) and judged by ``-S nli`` as
  ``citation_nli`` judges ALCE's citation recall. A claim with no citation, or whose citations name
  nothing retrieved, is unsupported. A claim whose retrieved sources hold no text in the transcript
  (server-side results some providers record encrypted) cannot be judged: it is left out of this
  share (nan when no claim can be judged), with the reason.
- ``uncited_claims``: share of the claims without any citation. nan without claims.
- ``n_citations``: citations in the answer (a text block's citation counts once, however
  many sentences the block holds).

With ``diagnose=true`` every claim is also classified (:mod:`inspect_cite.nli.diagnose`):
``supported`` (as above), ``misattributed`` (not supported by its premise, but another
seen source entails it alone, a cited one past ``at_most_citations`` included, as
``citation_nli``'s diagnose judges it), ``unsupported`` (no seen source does) or ``uncited``;
the "shown documents" are the seen sources that hold text, in the order seen.
"""

import math
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.alce.autoais import at_most_citations_problem
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.downloads.http_client import redact_text
from inspect_cite.evidence.documents import DocumentError, format_passage
from inspect_cite.evidence.record import Sources, read_evidence
from inspect_cite.evidence.transcript import (
    AnswerClaim,
    ClaimedAnswer,
    Source,
    answer_claims,
    final_answer,
)
from inspect_cite.nli import NLIBackend, NLIError, Pair
from inspect_cite.nli.diagnose import DIAGNOSE_KEYS, ClaimToDiagnose, Diagnosis, classify_claims
from inspect_cite.nli.judge import failed_score, nli_judge
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import cell, code
from scorers._no_answer import no_answer_score

SOURCE_SUPPORT_KEYS = ("cited_source_seen", "supported_claims", "uncited_claims", "n_citations")


@dataclass
class ClaimCheck:
    """How one claim was judged.

    Attributes:
        claim: The claim and its citations.
        sources: The seen source of each citation (None: never seen, or ambiguous).
        ambiguous: Per citation, why it cannot be told which source it names (else None).
        judged: The keys of the sources its premise holds.
        premise: The joined seen text it is judged against (None: nothing to judge).
        verdict: ``supported``, ``not supported``, ``uncited``, ``not retrieved``,
            ``ambiguous`` or ``no text`` (the last two cannot be judged).

    """

    claim: AnswerClaim
    sources: list[Source | None] = field(default_factory=list)
    ambiguous: list[str | None] = field(default_factory=list)
    judged: tuple[str, ...] = ()
    premise: str | None = None
    verdict: str = "uncited"


def check_claims(
    answer: ClaimedAnswer, sources: Sources, at_most_citations: int | None
) -> list[ClaimCheck]:
    """Each claim with its citations' sources and the premise to judge (verdicts but NLI's)."""
    checks = []
    for claim in answer.claims:
        resolved = [sources.resolve(answer.citations[i]) for i in claim.citations]
        check = ClaimCheck(claim, [s for s, _ in resolved], [why for _, why in resolved])
        seen = list({s.key: s for s in check.sources if s is not None}.values())
        with_text = [s for s in seen if s.texts]
        if at_most_citations is not None:
            with_text = with_text[:at_most_citations]
        if not claim.citations:
            check.verdict = "uncited"
        elif not seen and all(check.ambiguous):
            check.verdict = "ambiguous"
        elif not seen:
            check.verdict = "not retrieved"
        elif not with_text:
            check.verdict = "no text"
        else:
            check.judged = tuple(s.key for s in with_text)
            check.premise = format_passage(
                [{"title": s.title or s.label, "text": s.text} for s in with_text]
            )
        checks.append(check)
    return checks


def support_values(answer: ClaimedAnswer, checks: list[ClaimCheck]) -> tuple[dict[str, float], str]:
    """The four values of one answer and the reasons for any nan ("" when none)."""
    values = dict.fromkeys(SOURCE_SUPPORT_KEYS, math.nan)
    n = len(answer.citations)
    values["n_citations"] = float(n)
    reasons = []
    citation_seen = _citations_seen(answer, checks)
    told = [seen for seen in citation_seen if seen is not None]
    if told:
        values["cited_source_seen"] = 100 * sum(told) / len(told)
    elif n:
        reasons.append("every citation is ambiguous: cited_source_seen is undefined")
    else:
        reasons.append("no citations: cited_source_seen is undefined")
    if not checks:
        reasons.append("no claims: the answer has no text to judge")
        return values, "; ".join(reasons)
    values["uncited_claims"] = 100 * sum(not c.claim.citations for c in checks) / len(checks)
    judged = [c for c in checks if c.verdict not in ("no text", "ambiguous")]
    if judged:
        values["supported_claims"] = (
            100 * sum(c.verdict == "supported" for c in judged) / len(judged)
        )
    elif any(c.verdict == "ambiguous" for c in checks):
        reasons.append("no claim can be judged: their citations are ambiguous")
    else:
        reasons.append("no claim can be judged: the transcript holds no text of its sources")
    return values, "; ".join(reasons)


def _citations_seen(answer: ClaimedAnswer, checks: list[ClaimCheck]) -> list[bool | None]:
    """Whether each citation names a seen source (None: ambiguous), each citation once."""
    seen: dict[int, bool | None] = {}
    for check in checks:
        for i, source, why in zip(
            check.claim.citations, check.sources, check.ambiguous, strict=True
        ):
            seen[i] = None if why else source is not None
    # Every citation belongs to a claim, except one on a block with no claim text: unseen.
    return [seen.get(i, False) for i in range(len(answer.citations))]


async def diagnose_checks(
    checks: list[ClaimCheck], sources: Sources, nli: NLIBackend
) -> tuple[Diagnosis, list[str]]:
    r"""Every claim as supported, misattributed, unsupported or uncited, and the sources' labels.

    A claim that is not supported is judged against each seen source with text that its
    premise did not hold (a cited source past ``at_most_citations`` included), one source at
    a time (``Title: {title}\n{text}``), through ``nli`` (the same batching and cache).
    """
    documents = sources.with_text
    position = {s.key: i for i, s in enumerate(documents)}
    claims = []
    for check in checks:
        cited = [s for s in check.sources if s is not None]
        # Only what the premise held was judged: the rest is judged here, one at a time.
        judged = frozenset(position[key] for key in check.judged if key in position)
        claims.append(
            ClaimToDiagnose(
                text=redact_text(check.claim.text),
                hypothesis=check.claim.hypothesis,
                cited=bool(check.claim.citations),
                supported=check.verdict == "supported",
                cited_positions=tuple(
                    dict.fromkeys(position[s.key] + 1 for s in cited if s.key in position)
                ),
                judged=judged,
            )
        )
    premises = [format_passage([{"title": s.title or s.label, "text": s.text}]) for s in documents]
    labels = [code(redact_text(s.label), 120) or "*(no label)*" for s in documents]
    return await classify_claims(claims, premises, nli), labels


def explanation(
    answer: ClaimedAnswer, checks: list[ClaimCheck], values: dict[str, float], nli: str
) -> str:
    """Markdown: the values, then each claim, its citations (retrieved or not) and verdict."""
    shown = ", ".join(f"{k} {'nan' if math.isnan(v) else f'{v:.2f}'}" for k, v in values.items())
    lines = [f"**Source support:** {shown} (NLI {code(redact_text(nli))})", ""]
    for i, check in enumerate(checks, 1):
        lines.append(f"{i}. {cell(redact_text(check.claim.text))}")
        for index, source, why in zip(
            check.claim.citations, check.sources, check.ambiguous, strict=True
        ):
            ref = answer.citations[index]
            if why:
                where = f"**ambiguous**: {cell(redact_text(why), 200)}"
            elif source is not None:
                where = (
                    f"retrieved ({cell(redact_text(source.label), 120)}"
                    + ("" if source.texts else ", no text recorded")
                    + ")"
                )
            else:
                where = "**never retrieved** (fabricated citation)"
            target = code(redact_text(ref.target), 200) or "*(empty)*"
            lines.append(f"   - {ref.kind} {target}: {where}")
        if not check.claim.citations:
            lines.append("   - no citation")
        lines.append(f"   - verdict: **{check.verdict}**")
    if not checks:
        lines.append("*(no claims)*")
    return "\n".join(lines)


# The diagnose keys are declared here and logged only with diagnose=true (as claim_support's).
@scorer(metrics={key: [mean(), stderr()] for key in (*SOURCE_SUPPORT_KEYS, *DIAGNOSE_KEYS)})
@accept_cli_values("-S")
def source_support(
    nli: str = "true",
    at_most_citations: int = 3,
    nli_cache: str | None = None,
    diagnose: bool = False,
) -> Scorer:
    """Citations of tool-using models checked against the transcript's retrieved sources.

    ``cited_source_seen``, ``supported_claims``, ``uncited_claims`` (x100) and
    ``n_citations``; definitions in this module's docstring.

    Args:
        nli: NLI backend spec, as ``citation_nli``'s (``true``: ALCE's T5-11B,
            ``classifier:<model>``, ``python:<module>:<fn>``, ...).
        at_most_citations: Judge a claim against at most this many of its retrieved cited
            sources (``citation_nli``: 3).
        nli_cache: SQLite file caching NLI decisions (default ``$INSPECT_CITE_NLI_CACHE``).
        diagnose: Also classify every claim as ``supported``, ``misattributed``,
            ``unsupported`` or ``uncited`` (x100 shares, plus ``uncited_but_supported``;
            :mod:`inspect_cite.nli.diagnose`), judging each unsupported claim against the other
            retrieved sources.

    """
    if not isinstance(diagnose, bool):
        raise ArgumentError(f"-S diagnose must be true or false, got {diagnose!r}")
    problem = at_most_citations_problem(at_most_citations)
    if problem is not None:
        raise ArgumentError(f"source_support: {problem}")
    backend = nli_judge(nli, nli_cache=nli_cache).backend
    keys = (*SOURCE_SUPPORT_KEYS, *DIAGNOSE_KEYS) if diagnose else SOURCE_SUPPORT_KEYS

    async def score(state: TaskState, target: Target) -> Score:
        if unscored := no_answer_score(state, keys):
            return unscored
        answer = answer_claims(final_answer(state.messages, state.output))
        try:
            evidence = read_evidence(
                state.metadata,
                f"sample {state.sample_id}",
                messages=state.messages,
                output=state.output,
            )
        except DocumentError as e:
            return Score(
                value=dict.fromkeys(keys, math.nan),
                answer=redact_text(answer.text),
                explanation=f"**Not scored:** {cell(str(e), None)}",
                metadata={"reason": str(e)},
            )
        sources = evidence.sources(state.messages, state.output)
        checks = check_claims(answer, sources, at_most_citations)
        judged = [c for c in checks if c.premise is not None]
        pairs: list[Pair] = [(c.premise, c.claim.hypothesis) for c in judged if c.premise]
        try:
            results = await backend.entail(pairs)
        except NLIError as e:
            return failed_score(keys, e, answer=redact_text(answer.text), diagnose=diagnose)
        for check, result in zip(judged, results, strict=True):
            check.verdict = "supported" if result.entailed else "not supported"
        values, reason = support_values(answer, checks)
        shown = explanation(answer, checks, values, nli)
        if reason:
            shown = f"**nan:** {reason}\n\n{shown}"
        extra: dict[str, Any] = {}
        if diagnose:
            diagnosis, labels = await diagnose_checks(checks, sources, backend)
            values, shown, extra = diagnosis.added_to(
                labels, value=values, explanation=shown, metadata=extra
            )
        return Score(
            value=values,
            answer=redact_text(answer.text),
            explanation=shown,
            metadata={
                **extra,
                "reason": reason or None,
                # URLs as the log may show them: credentials never reach it.
                "sources": sorted(redact_text(key) for key in sources.sources.by_key),
                "ambiguous_citations": sum(bool(why) for c in checks for why in c.ambiguous),
                "claims": [
                    {
                        "claim": redact_text(c.claim.hypothesis),
                        "citations": [
                            redact_text(answer.citations[i].target) for i in c.claim.citations
                        ],
                        "retrieved": [
                            None if why else s is not None
                            for s, why in zip(c.sources, c.ambiguous, strict=True)
                        ],
                        "verdict": c.verdict,
                    }
                    for c in checks
                ],
            },
        )

    return score
