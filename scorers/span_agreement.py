"""Agreement of model-annotated evidence spans with gold spans (ROUGE-L), for the annotation step.

Reads the annotation made by ``solvers/span_annotator`` (``metadata["span_annotation"]``)
and the dataset's gold spans (``metadata["gold_spans"]``, e.g. BioASQ snippets). For every
document with gold or annotated spans, the annotated spans (joined in document order) are
compared with the gold spans (joined) by ROUGE-L (rouge_score, stemming): precision, recall,
F1, x100, averaged over those documents. The FullCite paper reports > 90% ROUGE-L for
GPT-5.4-mini against BioASQ's snippets.
"""

import math
from functools import lru_cache
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import cell

AGREEMENT_KEYS = (
    "rougeL_precision",
    "rougeL_recall",
    "rougeL_f1",
    "n_spans",
    "rejected_spans",
    "failed_docs",
)


@lru_cache(maxsize=1)
def _rouge_l() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def rouge_l(annotated: list[str], gold: list[str]) -> tuple[float, float, float]:
    """ROUGE-L (precision, recall, F1) of joined annotated spans against joined gold spans."""
    if not annotated or not gold:
        return 0.0, 0.0, 0.0
    s = _rouge_l().score(" ".join(gold), " ".join(annotated))["rougeL"]
    return s.precision, s.recall, s.fmeasure


@scorer(metrics={key: [mean(), stderr()] for key in AGREEMENT_KEYS})
@accept_cli_values("-S")
def span_agreement() -> Scorer:
    """ROUGE-L of annotated evidence spans against gold spans.

    A document whose annotation failed is left out (its spans are unknown, not empty); the
    values are nan without gold spans or when every document's annotation failed.
    """

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        annotation = metadata.get("span_annotation") or {}
        per_doc: dict[str, Any] = annotation.get("docs") or {}
        gold: dict[str, list[str]] = {}
        for g in metadata.get("gold_spans") or []:
            if isinstance(g, dict) and isinstance(g.get("span"), str):
                gold.setdefault(str(g.get("doc_id")), []).append(g["span"])
        values = dict.fromkeys(AGREEMENT_KEYS, math.nan)
        values["n_spans"] = float(sum(len(d.get("spans") or []) for d in per_doc.values()))
        values["rejected_spans"] = float(
            sum(len(d.get("rejected") or []) for d in per_doc.values())
        )
        values["failed_docs"] = float(sum(1 for d in per_doc.values() if d.get("error")))
        rows = []
        if gold:
            triples = []
            for doc_id in list(dict.fromkeys([*gold, *per_doc])):
                doc = per_doc.get(doc_id) or {}
                if doc.get("error"):
                    # Its spans are unknown, not empty: it is left out, never scored 0.
                    n_gold = len(gold.get(doc_id, []))
                    rows.append(f"| {cell(doc_id)} | annotation failed | {n_gold} | - | - | - |")
                    continue
                mine = doc.get("spans") or []
                if not mine and doc_id not in gold:
                    continue
                p, r, f = rouge_l(mine, gold.get(doc_id, []))
                triples.append((p, r, f))
                rows.append(
                    f"| {cell(doc_id)} | {len(mine)} | {len(gold.get(doc_id, []))} | "
                    f"{100 * p:.1f} | {100 * r:.1f} | {100 * f:.1f} |"
                )
            for k, name in enumerate(("rougeL_precision", "rougeL_recall", "rougeL_f1")):
                if triples:
                    values[name] = 100 * sum(t[k] for t in triples) / len(triples)
        table = (
            "| doc | annotated | gold | P | R | F1 |\n|---|---|---|---|---|---|\n" + "\n".join(rows)
            if rows
            else "*No gold spans: agreement not scored.*"
        )
        reason = None
        if gold and math.isnan(values["rougeL_f1"]):
            reason = "every document's annotation failed: agreement not scored"
            table = f"**nan:** {reason}\n\n{table}"
        return Score(
            value=values,
            explanation=f"**Annotator:** {cell(str(annotation.get('model', '?')))}\n\n{table}",
            metadata={"reason": reason} if reason else None,
        )

    return score
