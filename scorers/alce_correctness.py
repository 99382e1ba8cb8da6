"""ALCE answer correctness as eval.py defines it (per item; callers average), and its scorer.

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
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from inspect_cite.alce.helmet import ScoringRules, check_rules, scoring_output
from inspect_cite.alce.items import field_problem
from inspect_cite.alce.prompts import AlceDatasetName, check_dataset_argument
from inspect_cite.benchmarks.alce import ALCE_DATASETS
from inspect_cite.citations.alce import remove_citations
from inspect_cite.generation.thinking import think_opened_by_prompt
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.markdown import literal
from inspect_cite.text.sentences import sent_tokenize
from inspect_cite.text.squad import normalize_answer
from scorers._no_answer import no_answer_score

CORRECTNESS_KEYS: dict[str, tuple[str, ...]] = {
    name: dataset.correctness for name, dataset in ALCE_DATASETS.items()
}
"""eval.py's correctness keys, per dataset (its row in the registry)."""
ALL_CORRECTNESS_KEYS = tuple(dict.fromkeys(k for keys in CORRECTNESS_KEYS.values() for k in keys))
"""Every key of every dataset, once (a run logs its dataset's)."""


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


def _rouge_text(text: str) -> str:
    # rougeLsum splits summaries at newlines: eval.py puts one sentence per line, lower-cased.
    return "\n".join(sent_tokenize(text.lower()))


def best_rouge_lsum(output: str, references: Sequence[str]) -> Any:
    """eval.py's ROUGE-Lsum of ``output`` against its better reference (a rouge_score ``Score``).

    As eval.py, a later reference wins a tie.
    """
    hyp = _rouge_text(output)
    best = None
    for ref in references:
        score = _rouge_scorer().score(_rouge_text(ref), hyp)["rougeLsum"]
        if best is None or not best.fmeasure > score.fmeasure:
            best = score
    return best


def rouge_lsum(output: str, references: list[str]) -> float:
    """eval.py's ROUGE-Lsum F-measure, keeping the better of the references (fraction)."""
    return float(best_rouge_lsum(output, references).fmeasure)


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


def gold_problems(item: dict[str, Any], dataset: AlceDatasetName) -> dict[str, str]:
    """Why each correctness key cannot be computed: its gold field is missing or malformed.

    ``length`` and ``num_preds`` need no gold. Returns ``{key: problem}``, empty when every
    key can be computed (the fields as :mod:`inspect_cite.alce.items` checks them).
    """
    needs: dict[str, tuple[str, ...]] = {}
    if dataset == "asqa":
        needs["qa_pairs"] = ("str_em", "str_hit")
    if dataset in ("asqa", "eli5"):
        # eval.py compares with ASQA's two annotated long answers when present.
        asqa_annotations = dataset == "asqa" and item.get("annotations") is not None
        needs["annotations" if asqa_annotations else "answer"] = ("rougeLsum",)
    if dataset == "qampari":
        needs["answers"] = tuple(k for k in CORRECTNESS_KEYS["qampari"][2:])
    problems = {}
    for field, keys in needs.items():
        problem = field_problem(item, field)
        if problem is not None:
            problems.update(dict.fromkeys(keys, problem))
    return problems


def correctness(output: str, item: dict[str, Any], dataset: AlceDatasetName) -> dict[str, float]:
    """All correctness values of one item, on eval.py's scale (x100 for rates).

    A key whose gold field the item lacks (:func:`gold_problems`) is nan.

    Args:
        output: The first-line output, citations still in (as eval.py's ``data[i]["output"]``).
        item: The ALCE item (``qa_pairs``/``annotations``, ``answers`` or ``answer``).
        dataset: Which dataset's metrics to compute.

    """
    text = remove_citations(output)
    missing = gold_problems(item, dataset)
    values: dict[str, float] = {"length": float(len(text.split()))}
    if dataset == "asqa" and "str_em" not in missing:
        em, hit = str_em(text, item["qa_pairs"])
        values["str_em"], values["str_hit"] = 100 * em, 100 * hit
    if dataset in ("asqa", "eli5") and "rougeLsum" not in missing:
        annotations = item.get("annotations") if dataset == "asqa" else None
        refs = (
            [annotations[0]["long_answer"], annotations[1]["long_answer"]]
            if annotations
            else [item["answer"]]
        )
        values["rougeLsum"] = 100 * rouge_lsum(text, refs)
    if dataset == "qampari":
        if "qampari_rec" in missing:
            values["num_preds"] = qampari_scores(text, [])["num_preds"]
        else:
            for key, value in qampari_scores(text, item["answers"]).items():
                values[key] = value if key == "num_preds" else 100 * value
    return {key: values.get(key, math.nan) for key in CORRECTNESS_KEYS[dataset]}


def _explanation(
    output: str,
    values: dict[str, float],
    dataset: str,
    missing: dict[str, str],
    rules: ScoringRules = "alce",
) -> str:
    rows = "\n".join(f"| {k} | {v:.2f} |" for k, v in values.items())
    # What the metrics read (eval.py's cut, or HELMET's), with its citations removed.
    scored = remove_citations(output)
    shown = literal(scored) if scored.strip() else "*(empty output)*"
    cut = "the output's first line" if rules == "alce" else "newlines as spaces (HELMET)"
    text = (
        f"**Scored text ({dataset}: {cut}, citations removed):**"
        f"\n\n{shown}\n\n| metric | value |\n|---|---|\n{rows}"
    )
    if missing:
        return f"**Not scored:** {_reason(missing)}.\n\n{text}"
    return text


def _reason(missing: dict[str, str]) -> str:
    """``str_em, str_hit: missing field "qa_pairs"``, one clause per gold field."""
    by_problem: dict[str, list[str]] = {}
    for key, problem in missing.items():
        by_problem.setdefault(problem, []).append(key)
    return "; ".join(f"{', '.join(keys)}: {problem}" for problem, keys in by_problem.items())


# Inspect reports the declared keys a run's values hold: each dataset's own.
@scorer(metrics={key: [mean(), stderr()] for key in ALL_CORRECTNESS_KEYS})
@accept_cli_values("-S")
def alce_correctness(
    dataset: AlceDatasetName | None = None, rules: ScoringRules = "alce"
) -> Scorer:
    """ALCE correctness (length, STR-EM/HIT, ROUGE-Lsum, QAMPARI precision/recall) as eval.py.

    The output is cleaned as ALCE does (the reasoning it starts with, ``<|im_end|>`` and a trailing
    ``End.`` removed), cut to its first line, and citations are removed. Gold answers come from
    the metadata (ASQA ``qa_pairs`` and ``annotations`` or ``answer``, QAMPARI ``answers``,
    ELI5 ``answer``; the target stands in for a missing ``answer``): a key whose gold field a
    sample lacks is nan, with the field named in the explanation and ``metadata["reason"]``.

    Args:
        dataset: ``asqa``, ``qampari`` or ``eli5``; ``None`` reads ``metadata["dataset"]``.
        rules: ``alce`` scores as ALCE's eval.py; ``helmet`` as HELMET's eval_alce.py (the
            whole output, newlines made spaces; :mod:`inspect_cite.alce.helmet`).

    """
    check_dataset_argument(dataset, who="alce_correctness")
    check_rules(rules, who="alce_correctness")

    async def score(state: TaskState, target: Target) -> Score:
        ds = dataset or (state.metadata or {}).get("dataset")
        if ds not in CORRECTNESS_KEYS:
            raise ValueError(
                f'sample {state.sample_id}: alce_correctness needs dataset= or metadata["dataset"] '
                f"in {sorted(CORRECTNESS_KEYS)}, got {ds!r}"
            )
        if unscored := no_answer_score(state, CORRECTNESS_KEYS[ds]):
            return unscored
        output = scoring_output(
            state.output.completion,
            rules,
            state.metadata or {},
            prompt_opened=think_opened_by_prompt(state.output),
        )
        item = dict(state.metadata or {})
        if "answer" not in item and target.text:
            item["answer"] = target.text  # a task of one's own: the target is the reference
        values = correctness(output, item, ds)
        missing = gold_problems(item, ds)
        return Score(
            value=values,
            answer=output,
            explanation=_explanation(output, values, ds, missing, rules),
            metadata={"reason": _reason(missing)} if missing else None,
        )

    return score
