"""ALCE answer correctness, exactly as ALCE's eval.py defines it (per item; callers average).

Keys (x100 except ``length`` and ``num_preds``):
- all datasets: ``length`` (words in the citation-free output);
- ASQA: ``str_em`` (share of qa_pairs whose short answer appears), ``str_hit`` (all appear),
  ``rougeLsum`` (best of the two annotations' long answers);
- ELI5: ``rougeLsum`` against the reference answer;
- QAMPARI: ``num_preds``, ``qampari_prec``, ``qampari_rec``, ``qampari_rec_top5``,
  ``qampari_f1``, ``qampari_f1_top5``.
eval.py aggregates ROUGE with a bootstrap (its median of resampled means); the per-sample mean
reported here is that statistic's centre, and differs from a given eval.py run by its resampling
noise (well under 0.5 on ALCE's 948-1,000 items).
"""

import math
from functools import lru_cache
from typing import Any, Literal

import numpy as np

from inspect_cite.citations.alce import remove_citations
from inspect_cite.text import normalize_answer, sent_tokenize

AlceDataset = Literal["asqa", "qampari", "eli5"]

CORRECTNESS_KEYS: dict[str, tuple[str, ...]] = {
    "asqa": ("length", "str_em", "str_hit", "rougeLsum"),
    "qampari": (
        "length",
        "num_preds",
        "qampari_prec",
        "qampari_rec",
        "qampari_rec_top5",
        "qampari_f1",
        "qampari_f1_top5",
    ),
    "eli5": ("length", "rougeLsum"),
}


def exact_presence(short_answers: list[str], context: str) -> bool:
    """eval.py: a normalised short answer is a substring of the normalised context."""
    n_context = normalize_answer(context)
    return any(normalize_answer(sa) in n_context for sa in short_answers)


def str_em(output: str, qa_pairs: list[dict[str, Any]]) -> tuple[float, float]:
    """Per-item STR-EM and STR-HIT (fractions, not x100) on a citation-free output."""
    found = [exact_presence(qa["short_answers"], output) for qa in qa_pairs]
    if not found:
        return math.nan, math.nan
    em = float(np.mean(found))
    return em, float(em == 1)


@lru_cache(maxsize=1)
def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)


def rouge_lsum(output: str, references: list[str]) -> float:
    """eval.py's ROUGE-Lsum F-measure, keeping the better of the references (fraction)."""

    def prep(text: str) -> str:
        return "\n".join(sent_tokenize(text.lower()))

    hyp = prep(output)
    return max(_rouge_scorer().score(prep(ref), hyp)["rougeLsum"].fmeasure for ref in references)


def qampari_scores(output: str, answers: list[list[str]]) -> dict[str, float]:
    """eval.py's ``compute_qampari_f1`` for one item (fractions; num_preds a count)."""
    preds = [
        normalize_answer(x.strip()) for x in output.rstrip().rstrip(".").rstrip(",").split(",")
    ]
    preds = [p for p in preds if len(p) > 0]
    gold = [[normalize_answer(x) for x in group] for group in answers]
    flat = [x for group in gold for x in group]
    prec = sum(p in flat for p in preds) / len(preds) if preds else 0.0
    hits = sum(any(x in preds for x in group) for group in gold)
    if not gold:
        rec = rec5 = math.nan
    else:
        rec = hits / len(gold)
        rec5 = min(5, hits) / min(5, len(gold))

    def f1(p: float, r: float) -> float:
        if math.isnan(r):
            return math.nan
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    return {
        "num_preds": float(len(preds)),
        "qampari_prec": prec,
        "qampari_rec": rec,
        "qampari_rec_top5": rec5,
        "qampari_f1": f1(prec, rec),
        "qampari_f1_top5": f1(prec, rec5),
    }


def correctness(output: str, item: dict[str, Any], dataset: AlceDataset) -> dict[str, float]:
    """All correctness values of one item, on eval.py's scale (x100 for rates).

    Args:
        output: The first-line output, citations still in (as eval.py's ``data[i]["output"]``).
        item: The ALCE item (``qa_pairs``/``annotations``, ``answers`` or ``answer``).
        dataset: Which dataset's metrics to compute.

    """
    text = remove_citations(output)
    values: dict[str, float] = {"length": float(len(text.split()))}
    if dataset == "asqa":
        em, hit = str_em(text, item["qa_pairs"])
        values["str_em"], values["str_hit"] = 100 * em, 100 * hit
        annotations = item.get("annotations")
        refs = (
            [annotations[0]["long_answer"], annotations[1]["long_answer"]]
            if annotations
            else [item["answer"]]
        )
        values["rougeLsum"] = 100 * rouge_lsum(text, refs)
    elif dataset == "eli5":
        values["rougeLsum"] = 100 * rouge_lsum(text, [item["answer"]])
    else:
        for key, value in qampari_scores(text, item["answers"]).items():
            values[key] = value if key == "num_preds" else 100 * value
    return values
