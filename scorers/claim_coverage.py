"""ELI5 claim coverage (claims_nli): how many reference claims the answer entails.

The definition (eval.py's ``compute_claims``, :func:`claims_score`) and its Inspect scorer.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.alce.items import field_problem
from inspect_cite.citations.alce import alce_scoring_output, remove_citations
from inspect_cite.downloads.http_client import redact_text
from inspect_cite.generation.thinking import think_opened_by_prompt
from inspect_cite.nli import NLIBackend, NLIError
from inspect_cite.nli.judge import failed_score, nli_judge
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import cell, code
from scorers._judge_correction import calibration_metadata, corrected
from scorers._no_answer import no_answer_score, unscored_score

NO_CLAIMS_REASON = "no reference claims to check (eval.py divides by their number)"
"""Why a sample without claims has no claims_nli (nan): eval.py defines no value for it."""


@dataclass
class ClaimsResult:
    """ELI5 claim coverage of one output.

    Attributes:
        score: Share of reference claims entailed by the citation-free output; None if no
            claims (:data:`NO_CLAIMS_REASON`).
        verdicts: (claim, entailed) for each claim.

    """

    score: float | None
    verdicts: list[tuple[str, bool]]


async def claims_score(output: str, claims: Sequence[str], nli: NLIBackend) -> ClaimsResult:
    """ELI5 claim coverage as eval.py's ``compute_claims``: entailed claims / all claims.

    Args:
        output: The output; citations are removed to form the premise.
        claims: The reference claims (hypotheses).
        nli: The entailment backend.

    Raises:
        NLIError: When the backend could not decide a pair.

    """
    premise = remove_citations(output)
    results = await nli.entail([(premise, c) for c in claims])
    verdicts = [(c, r.entailed) for c, r in zip(claims, results, strict=True)]
    score = sum(e for _, e in verdicts) / len(verdicts) if verdicts else None
    return ClaimsResult(score, verdicts)


@scorer(metrics={"claims_nli": [mean(), stderr(), corrected("claims_nli")]})
@accept_cli_values("-S")
def claim_coverage(
    nli: str = "true", nli_cache: str | None = None, calibration: str | None = None
) -> Scorer:
    """ALCE ELI5 claims_nli (x100): share of ``metadata["claims"]`` entailed by the output.

    As eval.py: the premise is the first-line output with citations removed, each claim is a
    hypothesis. A sample whose NLI call fails, or that has no claims (or no valid
    ``metadata["claims"]``), is not scored (nan, with the reason).

    Args:
        nli: NLI backend spec (see ``citation_nli``).
        nli_cache: SQLite file caching NLI decisions (default ``$INSPECT_CITE_NLI_CACHE``).
        calibration: ``FILE[#DATA[/SUBSET]]``, a ``calibration.json`` measuring this ``nli``
            judge: the log then carries ``claims_nli`` corrected for the judge's errors.

    """
    judge = nli_judge(nli, nli_cache=nli_cache, calibration=calibration)
    backend, judge_calibration = judge.backend, judge.calibration

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        if unscored := no_answer_score(state, ["claims_nli"]):
            return unscored
        output = alce_scoring_output(
            state.output.completion, prompt_opened=think_opened_by_prompt(state.output)
        )
        problem = field_problem(metadata, "claims")
        if problem is not None:
            return unscored_score(["claims_nli"], f"{problem} (ELI5's reference claims)", output)
        claims = metadata["claims"]
        try:
            result = await claims_score(output, claims, backend)
        except NLIError as e:
            return failed_score(["claims_nli"], e, answer=output)
        if result.score is None:
            return unscored_score(["claims_nli"], NO_CLAIMS_REASON, output)
        rows = "\n".join(
            f"{i}. {'✅ entailed' if ok else '❌ not entailed'}: {cell(claim, None)}"
            for i, (claim, ok) in enumerate(result.verdicts, 1)
        )
        value = {"claims_nli": 100 * result.score}
        return Score(
            value=value,
            answer=output,
            explanation=(
                f"**Claims entailed: {sum(ok for _, ok in result.verdicts)}/"
                f"{len(result.verdicts)}** (NLI {code(redact_text(nli))}; premise = the output "
                f"without citations)\n\n{rows}"
            ),
            # Every claim is judged.
            metadata=calibration_metadata(judge_calibration, {"claims_nli": 1.0}, value) or None,
        )

    return score
