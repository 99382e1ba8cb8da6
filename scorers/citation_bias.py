"""Where citations go: share per context position (primacy bias) and citation omission.

Per sample (x100):

- ``pos_1`` .. ``pos_N``: share of the sample's citations whose document is shown at that
  position (``metadata["docs"]`` order); ``pos_rest``: positions after N; ``invalid_share``:
  citations of ids that are not context documents. They sum to 100. Unaligned posthoc
  citations still count at their document's position: they show where the model pointed.
- ``first_two_share``: ``pos_1 + pos_2``.
- ``first_two_rank_share``: share of citations to the two best-*retrieved* documents
  (``retrieval_rank`` 1-2 in ``metadata["docs"]``; nan when the docs carry no rank). Under
  ``doc_order=shuffled`` the two shares tell position from relevance: primacy bias shows as
  ``first_two_share`` well above ``first_two_rank_share``.
- All shares are nan for a sample without citations.
- ``omission_rate``: 100 when the answer has no citation at all, else 0 (its mean is the
  citation omission rate).
- ``n_citations``: the number of citations.

Metrics: ``mean`` and ``stderr`` of the per-sample values; for the shares also
``weighted_mean`` (weighted by citations: the share over all citations of the run, the
paper's "81.8% of citations go to the first two documents") and, for the shares and
``omission_rate``, the same per group (``weighted_mean_by_group`` / ``mean_by_group``), the
group being ``metadata[group_key]`` (BioASQ question type by default).
"""

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.checks.errors import ArgumentError
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import cell
from scorers._cited_answer import CheckedCitation, citations_markdown, read_cited_answer
from scorers._fullcite_metrics import mean_by_group, weighted_mean, weighted_mean_by_group
from scorers._no_answer import no_answer_score


def position_shares(
    citations: list[CheckedCitation], max_positions: int, ranks: dict[str, int] | None = None
) -> dict[str, float]:
    """Per-position shares (x100) of a sample's citations; nan when there are none.

    Args:
        citations: The sample's checked citations.
        max_positions: Positions reported one by one.
        ranks: Retrieval rank by doc id, for ``first_two_rank_share`` (None: nan).

    """
    keys = [f"pos_{k}" for k in range(1, max_positions + 1)] + ["pos_rest", "invalid_share"]
    n = len(citations)
    if n == 0:
        return dict.fromkeys([*keys, "first_two_share", "first_two_rank_share"], math.nan)
    counts = dict.fromkeys(keys, 0)
    for c in citations:
        if c.position is None:
            counts["invalid_share"] += 1
        elif c.position <= max_positions:
            counts[f"pos_{c.position}"] += 1
        else:
            counts["pos_rest"] += 1
    shares = {k: 100 * v / n for k, v in counts.items()}
    first_two = sum(1 for c in citations if c.position is not None and c.position <= 2)
    shares["first_two_share"] = 100 * first_two / n
    shares["first_two_rank_share"] = math.nan
    if ranks is not None:
        top = sum(1 for c in citations if c.position is not None and ranks.get(c.doc_id, 99) <= 2)
        shares["first_two_rank_share"] = 100 * top / n
    return shares


def _retrieval_ranks(by_id: Mapping[str, Any]) -> dict[str, int] | None:
    if not all(isinstance(doc.get("retrieval_rank"), int) for doc in by_id.values()):
        return None
    return {doc_id: doc["retrieval_rank"] for doc_id, doc in by_id.items()}


_SHARE_METRICS = [mean(), stderr(), weighted_mean(), weighted_mean_by_group()]


@scorer(
    metrics={
        "n_citations": [mean(), stderr()],
        "omission_rate": [mean(), stderr(), mean_by_group()],
        # pos_1 .. pos_<max_positions> and pos_rest: as many as the task shows documents.
        "pos_*": _SHARE_METRICS,
        "invalid_share": _SHARE_METRICS,
        "first_two_share": _SHARE_METRICS,
        "first_two_rank_share": _SHARE_METRICS,
    }
)
@accept_cli_values("-S")
def citation_bias(max_positions: int = 5, group_key: str = "question_type") -> Scorer:
    """Citation position distribution (primacy bias) and citation omission, also by group.

    Args:
        max_positions: Positions reported one by one (``pos_1`` .. ``pos_N``); the task
            passes its ``ndoc``. Later positions go to ``pos_rest``.
        group_key: Sample metadata key to group by (``question_type``; ``source`` to compare
            datasets).

    """
    if max_positions < 1:
        raise ArgumentError(f"max_positions must be at least 1, got {max_positions}")

    async def score(state: TaskState, target: Target) -> Score:
        group = (state.metadata or {}).get(group_key)
        group = str(group) if group not in (None, "") else "unknown"
        keys = ["n_citations", "omission_rate", *position_shares([], max_positions)]
        if unscored := no_answer_score(
            state, keys, {"n_citations": 0, "group": group, "positions": []}
        ):
            return unscored  # neither an omission nor a citation: no answer at all
        answer = read_cited_answer(state)
        n = len(answer.citations)
        values = {"n_citations": float(n), "omission_rate": 100.0 if n == 0 else 0.0}
        ranks = _retrieval_ranks(answer.by_id)
        values |= position_shares(answer.citations, max_positions, ranks)
        positions = [c.position for c in answer.citations]
        table = "\n".join(
            f"| {k} | {v:.1f} |"
            for k, v in values.items()
            if not (isinstance(v, float) and math.isnan(v))
        )
        explanation = (
            f"**Group** ({cell(group_key)}): {cell(str(group))}\n\n"
            "**Cited positions** (1 = first document shown): "
            f"{', '.join('invalid' if p is None else str(p) for p in positions) or 'none'}\n\n"
            f"{citations_markdown(answer)}\n\n| value | x100 |\n|---|---|\n{table}"
        )
        # A share of no citations is undefined: nan, and why.
        reason = "no citations: the position shares are undefined" if n == 0 else None
        return Score(
            value=values,
            answer=answer.text,
            explanation=f"**nan:** {reason}\n\n{explanation}" if reason else explanation,
            metadata={"n_citations": n, "group": group, "positions": positions, "reason": reason},
        )

    return score
