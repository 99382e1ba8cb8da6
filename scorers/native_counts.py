"""Counts of the citations a provider returned natively (``-T strategy=native``).

Read from the reply itself (the last assistant message, which keeps its ``ContentText``
citations in the log), so a rescore needs nothing else:

- ``native_citations``: the reply's ``DocumentCitation``s;
- ``unmapped_citations``: those that name no shown document (no or an out-of-range document
  index) or whose text no citation format can carry: they are invalid or missing in the
  written answer (:mod:`inspect_cite.citations.native`);
- ``replies_without_citations``: 1 for a reply with no document citation (scored by the other
  scorers as an answer without citations), else 0.

Each is summed over the run (``total``) besides the per-sample mean: the log counts the
replies without citations.
"""

import math

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from inspect_cite.citations.native import (
    CITED,
    answer_blocks,
    final_assistant,
    render_native,
)
from inspect_cite.citations.native import (
    native_counts as count_records,
)
from inspect_cite.evidence.documents import DocumentError, get_docs
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import cell

NATIVE_COUNT_KEYS = ("native_citations", "unmapped_citations", "replies_without_citations")


@metric
def total() -> Metric:
    """The sum of the (non-nan) values over the samples."""

    def compute(scores: list[SampleScore]) -> Value:
        values = [s.score.as_float() for s in scores]
        return float(sum(v for v in values if not math.isnan(v)))

    return compute


@scorer(
    metrics={
        "native_citations": [mean(), stderr(), total()],
        "unmapped_citations": [mean(), total()],
        "replies_without_citations": [total(), mean()],
    }
)
@accept_cli_values("-S")
def native_counts() -> Scorer:
    """Counts of each reply's document citations, the unmapped ones, and replies without any.

    Definitions in the module docstring.
    """

    async def score(state: TaskState, target: Target) -> Score:
        try:
            docs = list(get_docs(state.metadata, where=f"sample {state.sample_id}"))
        except DocumentError:
            docs = []
        blocks = answer_blocks(final_assistant(state.messages))
        native = (state.metadata or {}).get("native")
        fmt = native.get("format") if isinstance(native, dict) else None
        _, records = render_native(blocks, docs, "alce" if fmt == "alce" else "fullcite")
        counts = count_records(records)
        values = {
            "native_citations": float(counts["native_citations"]),
            "unmapped_citations": float(counts["unmapped_citations"]),
            "replies_without_citations": float(counts["native_citations"] == 0),
        }
        lines = [
            f"- document {r['document_index']} → "
            f"{cell(str(r['doc_id'] or ''), empty='(no shown document)')}: "
            f"{r['status'] if r['status'] != CITED else 'cited'}"
            for r in records
        ]
        head = (
            "**The reply carried no document citation** (scored as an answer without citations)."
            if not records
            else f"**{len(records)} document citations**, {counts['unmapped_citations']} unmapped:"
        )
        return Score(value=values, explanation="\n".join([head, *lines]))

    return score
