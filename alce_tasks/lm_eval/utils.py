"""Dataset loading and scoring hooks for the lm-eval ALCE tasks (referenced by the YAML files).

Options come from ``lm_eval run --metadata '{...}'``: ``dataset_path``, ``retriever``, ``oracle``,
``ndoc``, ``shot``, ``seed``, ``prompt``, ``prompt_file``, ``nli`` and ``at_most_citations``; the
defaults are the Inspect tasks' defaults. lm-eval adds ``--model_args`` to them, from which each
prompt's tokens are counted (:mod:`alce_tasks.lm_eval.context`).
"""

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from alce_tasks.lm_eval.context import context_limit
from inspect_cite.alce.autoais import citation_scores
from inspect_cite.alce.data import alce_data_path, eval_file_name, load_items, local_alce_data
from inspect_cite.alce.prompts import AlceDatasetName, AlcePromptBuilder, load_prompt_file
from inspect_cite.checks.errors import Refusals, report_uncaught_refusals
from inspect_cite.citations.alce import alce_scoring_output
from inspect_cite.generation.thinking import NO_ANSWER_THINKING
from inspect_cite.nli import NLIError
from inspect_cite.nli.checked import check_nli, checked_nli
from inspect_cite.text.think import split_think
from scorers.alce_correctness import CORRECTNESS_KEYS, correctness
from scorers.claim_coverage import claims_score

logger = logging.getLogger(__name__)

NLI_FLAG = "--metadata nli"
"""How lm-eval users give the NLI spec (``lm_eval run --metadata '{\"nli\": ...}'``)."""

_DEFAULT_RETRIEVER = {"asqa": "gtr", "qampari": "gtr", "eli5": "bm25"}

DEFAULT_SHOT = 2
"""Demonstrations in each prompt unless ``--metadata shot`` says otherwise (the Inspect tasks')."""


def _metadata_flag(key: str) -> str:
    """How lm-eval users give an option (``--metadata prompt_file``), for messages."""
    return f"--metadata {key}"


def _load(dataset: AlceDatasetName, options: dict[str, Any]) -> Any:
    import datasets

    # lm-eval loads its model before it builds a task: every option is checked here, before
    # anything is generated, and every problem found is one message (as the Inspect tasks
    # report them), printed alone if the refusal ends lm_eval (no traceback).
    refusals = Refusals()
    path: Path | None = None
    data_name = None
    with refusals.check():
        if options.get("dataset_path"):
            path = Path(options["dataset_path"])
        else:
            retriever = options.get("retriever", _DEFAULT_RETRIEVER[dataset])
            data_name = eval_file_name(dataset, retriever, bool(options.get("oracle", False)))
            path = local_alce_data(data_name, flag=_metadata_flag("dataset_path"))
    builder = None
    with refusals.check():
        builder = AlcePromptBuilder(
            load_prompt_file(
                dataset,
                options.get("prompt", "default"),
                prompt_file=options.get("prompt_file"),
                flag=_metadata_flag("prompt_file"),
            ),
            shot=int(options.get("shot", DEFAULT_SHOT)),
            ndoc=int(options.get("ndoc", 5)),
            seed=int(options.get("seed", 42)),
        )
    nli = None
    with refusals.check():
        # Checked before lm-eval generates anything, as the Inspect tasks check -T nli.
        nli = check_nli(options.get("nli", "true"), flag=NLI_FLAG)
    items: list[dict[str, Any]] = []
    if not refusals:
        with refusals.check():
            if path is None and data_name is not None:
                # The pinned data is downloaded only once nothing else is missing.
                path = alce_data_path(data_name, flag=_metadata_flag("dataset_path"))
            assert path is not None
            items = load_items(path, dataset, flag=_metadata_flag("dataset_path"))
    if refusals:
        report_uncaught_refusals()
        refusals.raise_any()
    assert builder is not None and nli is not None
    # What lm-eval's model keeps of each prompt (AlceTask.process_results reads it).
    limit = context_limit(options) if items else None
    records = []
    for item in items:
        prompt = builder.build(item)
        shown = [
            {"title": d["title"], "text": d["text"], **({"sent": d["sent"]} if "sent" in d else {})}
            for d in builder.docs(item)
        ]
        records.append(
            {
                "prompt": prompt,
                "question": item["question"],
                "dataset": dataset,
                "shots": len(builder.demo_ids),
                "prompt_tokens": limit.count(prompt) if limit is not None else None,
                "max_length": limit.max_length if limit is not None else None,
                # Nested ALCE fields travel as JSON so every item has the same (string) schema.
                "item": json.dumps(
                    {k: v for k, v in item.items() if k != "docs"} | {"docs": shown}
                ),
                "nli": nli,
                "at_most_citations": int(options.get("at_most_citations", 3)),
            }
        )
    return {"test": datasets.Dataset.from_list(records)}


def load_asqa(**options: Any) -> Any:
    """``custom_dataset`` hook for alce_asqa."""
    return _load("asqa", options)


def load_qampari(**options: Any) -> Any:
    """``custom_dataset`` hook for alce_qampari."""
    return _load("qampari", options)


def load_eli5(**options: Any) -> Any:
    """``custom_dataset`` hook for alce_eli5."""
    return _load("eli5", options)


def not_scored(dataset: AlceDatasetName, question: str, reason: str) -> dict[str, float]:
    """Every metric of a sample nan, and why in the log (the metrics' nanmean leaves it out).

    As the Inspect scorers: an answer that cannot be scored is nan, never 0.

    Args:
        dataset: The task's dataset.
        question: The sample's question (named in the log line).
        reason: Why it is not scored.

    """
    logger.warning(f"ALCE {dataset} {question!r:.80}: not scored: {reason}")
    keys = [*CORRECTNESS_KEYS[dataset], "citation_rec", "citation_prec"]
    return dict.fromkeys([*keys, "claims_nli"] if dataset == "eli5" else keys, float("nan"))


def _process(dataset: AlceDatasetName, doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    item = json.loads(doc["item"])
    nan = float("nan")
    if split_think(results[0]).unfinished:
        return not_scored(dataset, item["question"], NO_ANSWER_THINKING)
    output = alce_scoring_output(results[0])
    values = dict(correctness(output, item, dataset))
    nli = checked_nli(doc["nli"], flag=NLI_FLAG)
    # As the Inspect scorers: a failed NLI call makes this document's NLI metrics nan (with the
    # reason logged), never "not supported" and never the end of the whole run.
    try:
        cites = asyncio.run(
            citation_scores(
                output, item["docs"], item["question"], nli, qampari=dataset == "qampari",
                at_most_citations=doc["at_most_citations"],
            )
        )  # fmt: skip
    except NLIError as e:
        logger.warning(f"ALCE {dataset} {item['question']!r:.80}: citations not scored: {e}")
        values["citation_rec"] = values["citation_prec"] = nan
    else:
        # eval.py skips items without statements; lm-eval averages every doc: they count as nan.
        values["citation_rec"] = 100 * cites.recall if cites.recall is not None else nan
        values["citation_prec"] = 100 * cites.precision if cites.precision is not None else nan
    if dataset == "eli5":
        try:
            claims = asyncio.run(claims_score(output, item["claims"], nli))
        except NLIError as e:
            logger.warning(f"ALCE eli5 {item['question']!r:.80}: claims_nli not scored: {e}")
            values["claims_nli"] = nan
        else:
            values["claims_nli"] = 100 * claims.score if claims.score is not None else nan
    return values


def process_asqa(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """``process_results`` hook for alce_asqa."""
    return _process("asqa", doc, results)


def process_qampari(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """``process_results`` hook for alce_qampari."""
    return _process("qampari", doc, results)


def process_eli5(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """``process_results`` hook for alce_eli5."""
    return _process("eli5", doc, results)
