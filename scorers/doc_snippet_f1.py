"""FullCite document- and span-level citation correctness: Doc-F1 and Snippet-F1.

Definitions (per sample, then the mean over samples, x100):

- Gold documents: the context documents holding at least one gold span
  (``metadata["gold_spans"] = [{"doc_id", "span"}]``; spans of other documents are ignored).
- Doc P = |cited ∩ gold| / |cited|, R = |cited ∩ gold| / |gold|, F1 their harmonic mean, over
  *sets* of documents. An invalid citation (unknown doc id, or unaligned after posthoc) adds
  a wrong entry to the cited set (one per distinct doc id and status), so it lowers
  precision and never counts as a hit. No citations: P = R = F1 = 0.
- Snippet score of a cited snippet: the best token F1 (SQuAD normalisation) against the gold
  spans of the same document; 0 when the document has no gold span or the citation is
  invalid. Snippet P = mean over cited snippets (each citation counts, repeats too);
  Snippet R = mean over gold spans of the best F1 against the valid cited snippets of that
  document (0 when none); Snippet-F1 = their harmonic mean. No citations: P = R = F1 = 0.
- The exact-match variant (``snippet_em_*``) replaces token F1 by exact match of the
  normalised texts.
- ``verbatim_rate``: share of cited snippets that are non-empty substrings of the cited
  document's text, up to Unicode canonical equivalence (nan without citations).
- ``near_verbatim_rate``: share of cited snippets that are not verbatim but have exactly the
  words of a span of the cited document (typography, spacing or case differ, no word does;
  see :mod:`inspect_cite.text.verbatim`); nan without citations. The rest of the citations hold
  reworded, empty or invalid snippets.
- Snippet-F1, its exact-match variant and both rates measure the model's snippet itself (the
  FullCite definitions); the scorers that take a snippet as evidence of what its source says
  read the document's own text instead (:mod:`scorers._cited_answer`).
- A sample without any gold span in its context is not scored for Doc/Snippet (nan, with
  the reason in the explanation): there is nothing to find.
"""

import math
from collections.abc import Callable, Sequence

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import bold, cell, one_line
from inspect_cite.text.squad import compute_exact, compute_f1
from scorers._cited_answer import CitedAnswer, citations_markdown, read_cited_answer
from scorers._no_answer import no_answer_score

SNIPPET_KEYS = (
    "doc_precision",
    "doc_recall",
    "doc_f1",
    "snippet_precision",
    "snippet_recall",
    "snippet_f1",
    "snippet_em_precision",
    "snippet_em_recall",
    "snippet_em_f1",
    "verbatim_rate",
    "near_verbatim_rate",
    "n_citations",
    "invalid_citations",
)

# (doc_id, snippet, valid) for each citation, in order.
CitedSnippet = tuple[str, str, bool]


def token_f1(prediction: str, gold: str) -> float:
    """SQuAD token F1 (eval.py's QA-F1): symmetric, 1.0 when both texts are empty."""
    return compute_f1(gold, prediction)


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the normalised texts are equal (eval.py's QA-EM)."""
    return float(compute_exact(gold, prediction))


def f1_of(precision: float, recall: float) -> float:
    """Harmonic mean (0 when both are 0, nan when either is nan)."""
    if math.isnan(precision) or math.isnan(recall):
        return math.nan
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def doc_prf(cited: Sequence[CitedSnippet], gold_docs: set[str]) -> tuple[float, float, float]:
    """Doc precision, recall and F1 (fractions) of one sample's citations."""
    if not cited:
        return 0.0, 0.0, 0.0
    keys = {doc_id if valid else f"\0invalid\0{doc_id}" for doc_id, _, valid in cited}
    hits = len({doc_id for doc_id, _, valid in cited if valid} & gold_docs)
    p = hits / len(keys)
    r = hits / len(gold_docs) if gold_docs else math.nan
    return p, r, f1_of(p, r)


def snippet_prf(
    cited: Sequence[CitedSnippet],
    gold: dict[str, list[str]],
    similarity: Callable[[str, str], float] = token_f1,
) -> tuple[float, float, float, list[float]]:
    """Snippet precision, recall, F1 (fractions) and each citation's best score.

    Args:
        cited: The citations in order.
        gold: Gold spans by doc id (context documents only).
        similarity: ``token_f1`` or ``exact_match``.

    """
    per_citation = [
        max((similarity(snippet, g) for g in gold.get(doc_id, [])), default=0.0) if valid else 0.0
        for doc_id, snippet, valid in cited
    ]
    n_gold = sum(len(spans) for spans in gold.values())
    if not cited:
        return 0.0, (0.0 if n_gold else math.nan), (0.0 if n_gold else math.nan), []
    p = sum(per_citation) / len(per_citation)
    if not n_gold:
        return p, math.nan, math.nan, per_citation
    recalls = []
    for doc_id, spans in gold.items():
        mine = [snippet for d, snippet, valid in cited if valid and d == doc_id]
        recalls += [max((similarity(s, g) for s in mine), default=0.0) for g in spans]
    r = sum(recalls) / len(recalls)
    return p, r, f1_of(p, r), per_citation


def _gold_by_doc(state: TaskState, doc_ids: set[str]) -> dict[str, list[str]]:
    gold: dict[str, list[str]] = {}
    for g in (state.metadata or {}).get("gold_spans") or []:
        if not isinstance(g, dict):
            continue
        doc_id, span = str(g.get("doc_id", "")), g.get("span")
        if doc_id in doc_ids and isinstance(span, str) and span.strip():
            gold.setdefault(doc_id, []).append(span)
    return gold


def snippet_values(
    answer: CitedAnswer, gold: dict[str, list[str]]
) -> tuple[dict[str, float], list[float]]:
    """All ``doc_snippet_f1`` values of one sample (x100) and per-citation token F1."""
    cited = [(c.doc_id, c.snippet, c.valid) for c in answer.citations]
    n = len(cited)
    values = dict.fromkeys(SNIPPET_KEYS, math.nan)
    values["n_citations"] = float(n)
    values["invalid_citations"] = float(sum(not c.valid for c in answer.citations))
    if n:
        values["verbatim_rate"] = 100 * sum(c.verbatim for c in answer.citations) / n
        values["near_verbatim_rate"] = 100 * sum(c.near_verbatim for c in answer.citations) / n
    if not gold:
        return values, [math.nan] * n
    tokens = snippet_prf(cited, gold)
    exact = snippet_prf(cited, gold, exact_match)
    for prefix, triple in (
        ("doc", doc_prf(cited, set(gold))),
        ("snippet", tokens[:3]),
        ("snippet_em", exact[:3]),
    ):
        for name, v in zip(("precision", "recall", "f1"), triple, strict=True):
            values[f"{prefix}_{name}"] = 100 * v
    return values, tokens[3]


def _explanation(
    answer: CitedAnswer, gold: dict[str, list[str]], values: dict[str, float], per: list[float]
) -> str:
    verdicts = {
        c.index: ("no gold" if math.isnan(f) else f"best gold F1 {100 * f:.0f}")
        for c, f in zip(answer.citations, per, strict=True)
    }
    parts = [citations_markdown(answer, verdicts)]
    if gold:
        lines = [
            f"- {bold(one_line(doc_id))} ({cell(answer.title(doc_id), 80, empty='')}): "
            + " / ".join(f"“{cell(s, 200)}”" for s in spans)
            for doc_id, spans in gold.items()
        ]
        parts.append("**Gold spans:**\n" + "\n".join(lines))
    else:
        parts.append("**No gold spans in this sample's context: Doc/Snippet metrics not scored.**")
    parts.append(
        "| metric | value |\n|---|---|\n"
        + "\n".join(f"| {k} | {v:.2f} |" for k, v in values.items())
    )
    return "\n\n".join(parts)


# Snippet-F1 and Doc-F1 first: Inspect shows a run's first score as its headline.
HEADLINE_KEYS = ("snippet_f1", "doc_f1")


@scorer(
    metrics={
        key: [mean(), stderr()]
        for key in (*HEADLINE_KEYS, *(k for k in SNIPPET_KEYS if k not in HEADLINE_KEYS))
    }
)
@accept_cli_values("-S")
def doc_snippet_f1() -> Scorer:
    """FullCite Doc-F1 and Snippet-F1 (with P/R), exact-match Snippet-F1, (near-)verbatim rates.

    Reads the context from ``metadata["docs"]`` and gold evidence from
    ``metadata["gold_spans"]``; definitions in this module's docstring. Values are x100 except
    the counts ``n_citations`` and ``invalid_citations``.
    """

    async def score(state: TaskState, target: Target) -> Score:
        if unscored := no_answer_score(state, SNIPPET_KEYS):
            return unscored
        answer = read_cited_answer(state)
        gold = _gold_by_doc(state, {d["id"] for d in answer.docs})
        values, per = snippet_values(answer, gold)
        return Score(
            value=values,
            answer=answer.text,
            explanation=_explanation(answer, gold, values, per),
            metadata={
                "gold_docs": sorted(gold),
                "cited_docs": sorted({c.doc_id for c in answer.citations}),
                "citation_token_f1": [None if math.isnan(f) else f for f in per],
                "reason": None if gold else "no gold spans in the context",
            },
        )

    return score
