"""TRUST-SCORE as an Inspect scorer: each sample judged while the eval runs, the run once.

Each sample's score judges its output as trust-eval 0.1.5 does
(:func:`inspect_cite.alce.trust.metrics.trust_item`: refusal by fuzzy match, answerability from the
shown documents' ``answers_found``, correctness, citations by NLI) and keeps the judgement in
``Score.metadata["trust_item"]``; the ``trust_corpus`` metric aggregates every judged sample
into all the keys trust-eval's ``Evaluator.compute_metrics()`` returns for the dataset
(:func:`inspect_cite.alce.trust.metrics.trust_keys`), under its names and scale. The same
definition scores result files (``alce-eval --trust``).

Per sample, the value holds ``answered`` and ``answerable`` (1 or 0), the refusal's
``refusal_ratio``, ``correct`` (the item's own regular correctness x100: ASQA's answer share,
QAMPARI's top-5 F1, the claim share for ELI5/ExpertQA) and ``citation_rec``/``citation_prec``
(x100; nan for an output without statements). The explanation says why the item counts as
answered or refused and as answerable or not.
"""

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from inspect_cite.alce.autoais import at_most_citations_problem
from inspect_cite.alce.trust.metrics import (
    AT_MOST_CITATIONS,
    EVAL_TYPES,
    TrustItem,
    TrustItemError,
    TrustSettings,
    check_dataset,
    trust_item,
    trust_scores,
)
from inspect_cite.alce.trust.refusal import REFUSAL_FLAG, REFUSAL_THRESHOLD
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.evidence.documents import DocumentError
from inspect_cite.evidence.record import read_evidence
from inspect_cite.generation.thinking import think_opened_by_prompt
from inspect_cite.nli import NLIError
from inspect_cite.nli.judge import nli_judge
from inspect_cite.options.cli_values import accept_cli_values
from inspect_cite.text.think import split_think
from scorers._no_answer import no_answer_score, unscored_score

logger = logging.getLogger(__name__)

ITEM_KEY = "trust_item"
SAMPLE_KEYS = (
    "answered",
    "answerable",
    "refusal_ratio",
    "correct",
    "citation_rec",
    "citation_prec",
)


def trust_evidence(
    metadata: Mapping[str, Any], where: str
) -> tuple[list[dict[str, Any]], frozenset[int] | None]:
    """The documents the model saw (with each one's ``answers_found``), and which it saw.

    Read through the sample's evidence record (:func:`inspect_cite.evidence.record.read_evidence`,
    the one reading every scorer shares): a citation of a document the model did not see is
    invalid, as one out of range is.

    Raises:
        DocumentError: When the documents or the record are malformed.

    """
    evidence = read_evidence(metadata, where)
    return [dict(doc) for doc in evidence.judged_docs()], evidence.allowed()


def trust_output(completion: str, prompt_opened: bool | None) -> str | None:
    """The output trust-eval scores: the answer after any reasoning, cleaned as its generator.

    trust-eval's generator removes ``<|im_end|>``, trailing whitespace and a final
    ``End.`` before saving; the evaluator then reads every line. None: no answer (the
    output ended while thinking).
    """
    split = split_think(completion, prompt_opened=prompt_opened)
    if split.unfinished:
        return None
    text = split.answer.replace("<|im_end|>", "").rstrip()
    return text[: -len("End.")] if text.endswith("End.") else text


@metric
def trust_corpus() -> Metric:
    """Every trust-eval key over the run, from the judgement each sample's score carries.

    Samples without a judgement (not scored, with their reason) are left out. The dataset,
    and whether trust-eval's defects are corrected, are read from the scores.
    """

    def compute(scores: list[SampleScore]) -> Value:
        items: list[TrustItem] = []
        dataset, corrected = None, False
        for s in scores:
            meta = s.score.metadata or {}
            if isinstance(meta.get(ITEM_KEY), Mapping):
                items.append(TrustItem.from_json(meta[ITEM_KEY]))
                dataset = meta["trust_dataset"]
                corrected = bool(meta.get("trust_corrected", False))
        if dataset is None:
            return {"trust_score": math.nan}
        result = trust_scores(items, dataset, corrected=corrected)
        for key, reason in result.reasons.items():
            logger.warning(f"trust_score: {key} is nan: {reason}")
        # TRUST-SCORE first: Inspect shows a run's first metric as its headline.
        return {"trust_score": result.values["trust_score"], **result.values}  # type: ignore[return-value]

    return compute


def _percent(value: float | None) -> float:
    return math.nan if value is None else 100 * value


def _correct(item: TrustItem, eval_type: str) -> float:
    if eval_type == "em5":
        found = sum(item.hits)
        flat = {a for g in item.answers for a in g}
        prec = sum(p in flat for p in item.preds) / len(item.preds) if item.preds else 0.0
        rec5 = min(5, found) / min(5, len(item.answers))
        return 0.0 if prec + rec5 == 0 else 100 * 2 * prec * rec5 / (prec + rec5)
    return 100 * sum(item.hits) / len(item.hits)


def _class(item: TrustItem) -> str:
    if item.refused:
        if item.answerable:
            return "**refused an answerable question** (an over-refusal)"
        return "**a grounded refusal** (refused a question its documents cannot answer)"
    if item.answerable:
        return "**answered an answerable question**"
    return (
        "**answered an unanswerable question** (its documents support no gold answer: any "
        "correct answer comes from the model's own knowledge)"
    )


def _found_in(docs: Sequence[Mapping[str, Any]], answer: int) -> str:
    """Where gold answer ``answer`` is found: ``in document [2]``, ``in documents [1], [3]``."""
    refs = [f"[{j + 1}]" for j, d in enumerate(docs) if d["answers_found"][answer]]
    return f"in document{'s' if len(refs) > 1 else ''} {', '.join(refs)}"


def _explanation(
    item: TrustItem,
    answers: Sequence[Sequence[str]],
    docs: Sequence[Mapping[str, Any]],
    settings: TrustSettings,
    eval_type: str,
) -> str:
    verdict = "a refusal" if item.refused else "answered"
    lines = [
        f"**Counts as:** {_class(item)}.",
        "",
        f'**Refusal:** the output\'s partial ratio with "{settings.rejection_flag}" is '
        f"{item.refusal_ratio} (a refusal needs more than {settings.rejection_threshold:g}): "
        f"{verdict}.",
    ]
    if item.refused_stripped != item.refused:
        other = "a refusal" if item.refused_stripped else "answered"
        lines.append(
            f"Without its citations the ratio is {item.refusal_ratio_stripped}: {other}; "
            "trust-eval's calibrated correctness reads it so (see docs/alce.md, Grounded "
            "refusals)."
        )
    found = [i for i, s in enumerate(item.supported) if s]
    if found:
        which = ", ".join(f"{i + 1} ({_found_in(docs, i)})" for i in found)
        lines += [
            "",
            f"**Answerable:** yes: gold answer(s) {which} are found in the shown "
            "documents (their `answers_found`).",
        ]
    else:
        lines += [
            "",
            "**Answerable:** no: no shown document's `answers_found` marks any of "
            f"the {len(answers)} gold answers.",
        ]
    kind = "claim entailed" if eval_type == "cm" else "found in the output"
    lines += [
        "",
        f"**Correctness** ({kind}; calibrated correctness counts only the gold "
        "answers marked found):",
        "",
    ]
    for i, group in enumerate(answers):
        mark = "yes" if item.hits[i] else "no"
        support = "found in documents" if item.supported[i] else "in no document"
        lines.append(f"- {group[0]}: {mark} ({support})")
    if item.citation_rec is None:
        lines += ["", "**Citations:** no statements (empty output): left out of citation scores."]
    else:
        lines += [
            "",
            f"**Citations:** recall {100 * item.citation_rec:.1f}, precision "
            f"{100 * (item.citation_prec or 0):.1f}.",
            "",
        ]
        for s in item.citations:
            refs = ", ".join(f"[{r}]" if r is not None else "[?]" for r in s["refs"]) or "none"
            lines.append(
                f"- {s['text']} (cites {refs}; {s['status']}; supported: "
                f"{'yes' if s['recall'] else 'no'})"
            )
    return "\n".join(lines)


@scorer(metrics=[trust_corpus()])
@accept_cli_values("-S")
def trust_score(
    dataset: str | None = None,
    nli: str = "true",
    rejection_flag: str = REFUSAL_FLAG,
    rejection_threshold: float = REFUSAL_THRESHOLD,
    corrected: bool = False,
    at_most_citations: int = AT_MOST_CITATIONS,
    nli_cache: str | None = None,
) -> Scorer:
    """TRUST-SCORE (grounded refusals, calibrated correctness, citations), as trust-eval 0.1.5.

    Reads ``metadata["question"]``, ``metadata["answers"]`` (alias lists; ``[claim]`` lists
    for ELI5 and ExpertQA) and the shown documents with their ``answers_found``
    (:func:`trust_evidence`). The run's values are the ``trust_corpus`` metric: every key
    trust-eval returns for the dataset.

    Args:
        dataset: ``asqa``, ``qampari``, ``eli5`` or ``expertqa``; None reads
            ``metadata["dataset"]``.
        nli: NLI backend spec (``true``: the TRUE T5-11B model trust-eval uses); any form of
            :data:`inspect_cite.nli.registry.NLI_SPECS`.
        rejection_flag: The refusal sentence (trust-eval's ``rejection_flag``).
        rejection_threshold: A refusal's fuzzy partial ratio must exceed it (trust-eval: 85).
        corrected: Fix trust-eval's defects (docs/alce.md, "Grounded refusals"): an undefined
            rate is nan, not 0; one refusal decision serves every metric.
        at_most_citations: Citations judged per statement (trust-eval: 3).
        nli_cache: SQLite file caching NLI decisions (default ``$INSPECT_CITE_NLI_CACHE``).

    """
    if dataset is not None:
        try:
            check_dataset(dataset, flag="trust_score: dataset")
        except ValueError as e:
            raise ArgumentError(str(e)) from e
    if not isinstance(rejection_flag, str) or not rejection_flag.strip():
        raise ArgumentError("trust_score: rejection_flag must be a non-empty sentence")
    if (
        isinstance(rejection_threshold, bool)
        or not isinstance(rejection_threshold, int | float)
        or not 0 <= rejection_threshold <= 100
    ):
        raise ArgumentError(
            f"trust_score: rejection_threshold must be a number from 0 to 100, got "
            f"{rejection_threshold!r}"
        )
    problem = at_most_citations_problem(at_most_citations)
    if problem is not None:
        raise ArgumentError(f"trust_score: {problem}")
    settings = TrustSettings(
        rejection_flag=rejection_flag,
        rejection_threshold=rejection_threshold,
        at_most_citations=at_most_citations,
        corrected=corrected,
    )
    backend = nli_judge(nli, nli_cache=nli_cache).backend

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        where = f"sample {state.sample_id}"
        name = dataset or metadata.get("dataset")
        if name not in EVAL_TYPES:
            return unscored_score(
                SAMPLE_KEYS, f"no TRUST-SCORE dataset: metadata['dataset'] is {name!r}"
            )
        if unscored := no_answer_score(state, SAMPLE_KEYS):
            return unscored
        output = trust_output(
            state.output.completion, prompt_opened=think_opened_by_prompt(state.output)
        )
        if output is None:
            return unscored_score(SAMPLE_KEYS, "the output ended while thinking")
        try:
            docs, allowed = trust_evidence(metadata, where)
        except DocumentError as e:
            return unscored_score(SAMPLE_KEYS, str(e), output)
        item = {
            "question": metadata.get("question"),
            "answers": metadata.get("answers"),
            "docs": docs,
            "output": output,
        }
        try:
            judged = await trust_item(item, name, backend, settings, allowed=allowed)
        except TrustItemError as e:
            return unscored_score(SAMPLE_KEYS, f"{where}: {e}", output)
        except NLIError as e:
            return unscored_score(SAMPLE_KEYS, f"NLI failed: {e}", output)
        eval_type = EVAL_TYPES[name]
        return Score(
            value={
                "answered": 0.0 if judged.refused else 1.0,
                "answerable": 1.0 if judged.answerable else 0.0,
                "refusal_ratio": float(judged.refusal_ratio),
                "correct": _correct(judged, eval_type),
                "citation_rec": _percent(judged.citation_rec),
                "citation_prec": _percent(judged.citation_prec),
            },
            answer=output,
            explanation=_explanation(judged, metadata["answers"], docs, settings, eval_type),
            metadata={
                ITEM_KEY: judged.to_json(),
                "trust_dataset": name,
                "trust_corrected": corrected,
            },
        )

    return score
