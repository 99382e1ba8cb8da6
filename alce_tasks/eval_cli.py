"""``alce-eval``: score an ALCE result file as ALCE's eval.py does, with any NLI backend.

Reads ``{"args": ..., "data": [items with "output"]}`` (run.py's format) or a plain list of
items, preprocesses every output exactly as eval.py (strip, first line, ``<|im_end|>``
removed; non-citation metrics on the citation-free text), and writes ``<file>.score`` with
eval.py's keys and scale. A thinking model's output is scored from its answer: the reasoning
it starts with is removed first (:func:`inspect_cite.text.think.split_think`), and an output that
ended while thinking has no answer: it is left out of every metric (as the Inspect scorers'
nan), counted under ``no_answer_thinking`` and named on stderr.

Example::

    alce-eval --f result/asqa-chatgpt.json --citations --nli true
    alce-eval --f result/eli5-run.json --citations --claims_nli --nli python:my_nli:entails
    alce-eval --f eval_data/asqa_refusal.json --trust --dataset asqa --nli true

``--trust`` scores a trust-eval result file as trust-eval 0.1.5 does instead
(:mod:`alce_tasks.trust_cli`).
"""

import argparse
import asyncio
import copy
import json
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from inspect_cite.alce.autoais import at_most_citations_problem, citation_scores
from inspect_cite.alce.items import FIELD_TYPES, field_problem
from inspect_cite.alce.trust.refusal import REFUSAL_FLAG, REFUSAL_THRESHOLD
from inspect_cite.benchmarks.trust import TRUST_DATASETS
from inspect_cite.checks.errors import PreflightError
from inspect_cite.citations.alce import remove_citations
from inspect_cite.downloads.files import read_json, write_atomic
from inspect_cite.generation.thinking import NO_ANSWER_THINKING
from inspect_cite.nli import NLI_SPECS, NLIBackend, NLICacheError, NLIConfigError, NLIError
from inspect_cite.nli.checked import checked_nli
from inspect_cite.nli.registry import parse_nli_spec
from inspect_cite.options.command_numbers import number_type
from inspect_cite.text.think import split_think
from scorers.alce_correctness import best_rouge_lsum, qampari_scores, str_em
from scorers.claim_coverage import NO_CLAIMS_REASON, claims_score


def _mauve(items: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, float]:
    from scorers.mauve import compute_alce_mauve

    # The items hold answers already (preprocess): their text is not split again.
    return {"mauve": compute_alce_mauve(items, model=args.mauve_model, prompt_opened=False)}


def _qa(items: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, float]:
    from scorers.alce_qa import compute_alce_qa

    return compute_alce_qa(items, qa_model=args.qa_model, prompt_opened=False)


# The metrics that load a model of their own: (switch, what it measures, default model, kind).
MODEL_METRICS = (
    (
        "qa",
        "QA-based accuracy (ASQA: QA-EM, QA-F1, QA-Hit)",
        "gaotianyu1350/roberta-large-squad",
        "extractive QA model",
    ),
    ("mauve", "MAUVE fluency (x100)", "gpt2-large", "featurizing causal LM"),
)

_CONCURRENT_ITEMS = 256
# How many left-out item indexes a note lists before "...".
_LISTED_ITEMS = 10


class ResultFileError(ValueError):
    """The result file is missing, unreadable or lacks a field a requested metric needs."""


_citation_limit = number_type(int, what="an integer", problem=at_most_citations_problem)


def _threshold(value: str) -> float:
    try:
        number = float(value)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number") from e
    if not 0 <= number <= 100:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number from 0 to 100")
    return number


def build_parser() -> argparse.ArgumentParser:
    """eval.py's flags plus ``--nli``, ``--nli_cache``, ``--dataset`` and ``--no_alce_compat``."""
    p = argparse.ArgumentParser(
        prog="alce-eval",
        description="Score an ALCE result file exactly as ALCE's eval.py (any NLI backend).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"NLI specs (--nli):\n{NLI_SPECS}",
    )
    p.add_argument("--f", required=True, help="result file: run.py's JSON or a list of items")
    p.add_argument("--no_rouge", action="store_true", help="do not compute ROUGE-Lsum")
    for name, what, model, model_kind in MODEL_METRICS:
        p.add_argument(f"--{name}", action="store_true", help=what)
        p.add_argument(
            f"--{name}_model",
            default=model,
            help=f"{model_kind} for --{name} (hub id or local dir)",
        )
    p.add_argument("--citations", action="store_true", help="citation recall and precision")
    p.add_argument(
        "--at_most_citations",
        type=_citation_limit,
        default=3,
        help="judge at most this many citations per statement (default 3)",
    )
    p.add_argument("--claims_nli", action="store_true", help="ELI5 claim coverage")
    p.add_argument(
        "--cot",
        action="store_true",
        help="QAMPARI: the answer list follows the first colon (chain of thought before it)",
    )
    p.add_argument("--nli", default="true", help="NLI backend spec (default: true)")
    p.add_argument(
        "--nli_cache",
        default=None,
        help="SQLite file caching NLI decisions (default: $INSPECT_CITE_NLI_CACHE)",
    )
    p.add_argument(
        "--dataset",
        choices=tuple(TRUST_DATASETS),
        default=None,
        help='default: QAMPARI when "qampari" is in --f (as eval.py), else per-item fields '
        "(expertqa: --trust only)",
    )
    p.add_argument(
        "--trust",
        action="store_true",
        help="TRUST-SCORE as trust-eval 0.1.5 (needs --dataset): every key its "
        "Evaluator.compute_metrics() returns",
    )
    p.add_argument(
        "--rejection_flag",
        default=REFUSAL_FLAG,
        help=f'--trust: the refusal sentence (default "{REFUSAL_FLAG}")',
    )
    p.add_argument(
        "--rejection_threshold",
        type=_threshold,
        default=REFUSAL_THRESHOLD,
        help=f"--trust: a refusal's fuzzy partial ratio must exceed it (default "
        f"{REFUSAL_THRESHOLD})",
    )
    p.add_argument(
        "--corrected",
        action="store_true",
        help="--trust: fix trust-eval's defects (undefined rates nan, not 0; numbers then "
        "differ from trust-eval)",
    )
    p.add_argument(
        "--no_alce_compat",
        action="store_true",
        help="fix eval.py's citation-parsing defects (numbers then differ from eval.py)",
    )
    return p


def load_result_file(path: str) -> list[dict[str, Any]]:
    """The items of a result file, each checked to have a string ``output``.

    Raises:
        ResultFileError: Naming the file, item and field at fault.

    """
    data = read_json(Path(path), "--f", ResultFileError)
    if isinstance(data, dict):
        if not isinstance(data.get("data"), list):
            raise ResultFileError(f'--f {path}: a JSON object needs a "data" list of items')
        data = data["data"]
    if not isinstance(data, list) or not data:
        raise ResultFileError(f"--f {path}: expected a non-empty list of items")
    for i, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("output"), str):
            raise ResultFileError(f'--f {path}: item {i} needs a string field "output"')
    return data


def _require(
    data: list[dict[str, Any]], path: str, field: str, why: str, nli: bool = False, qa: bool = False
) -> None:
    """Every item has ``field`` as the task's validation wants it (``inspect_cite.alce.items``)."""
    typ = FIELD_TYPES[field]
    for i, item in enumerate(data):
        if not isinstance(item.get(field), typ):
            raise ResultFileError(
                f'--f {path}: item {i} needs a {typ.__name__} field "{field}" for {why}'
            )
        problem = field_problem(item, field, nli=nli, qa=qa)
        if problem is not None:
            raise ResultFileError(f"--f {path}: item {i}: {problem} (read by {why})")


def answered(data: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[int]]:
    """The items whose output holds an answer; the indices of those that ended while thinking."""
    cut = [i for i, item in enumerate(data) if split_think(item["output"]).unfinished]
    return [item for i, item in enumerate(data) if i not in cut], cut


def preprocess(data: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """eval.py's cleanup: (items with first-line outputs, the same without citations).

    Each output is first reduced to its answer (the reasoning it starts with removed).
    """
    data = copy.deepcopy(data)
    for item in data:
        answer = split_think(item["output"]).answer
        item["output"] = answer.strip().split("\n")[0].replace("<|im_end|>", "")
    normalized = copy.deepcopy(data)
    for item in normalized:
        item["output"] = remove_citations(item["output"])
    return data, normalized


def compute_len(data: list[dict[str, Any]]) -> float:
    """Mean number of whitespace-separated words."""
    return sum(len(item["output"].split()) for item in data) / len(data)


def compute_str_em(data: list[dict[str, Any]]) -> tuple[float, float]:
    """STR-EM and STR-HIT x100; (0, 0) when the first item has no qa_pairs, as eval.py."""
    if data[0].get("qa_pairs") is None:
        return 0, 0
    pairs = [str_em(item["output"], item["qa_pairs"]) for item in data]
    return 100 * float(np.mean([p[0] for p in pairs])), 100 * float(np.mean([p[1] for p in pairs]))


def compute_qampari(data: list[dict[str, Any]], cot: bool) -> dict[str, float]:
    """eval.py's ``compute_qampari_f1`` (x100 except num_preds)."""
    per_item = []
    for item in data:
        output = item["output"]
        if cot:
            output = ":".join(output.split(":")[1:]) if ":" in output else ""
        per_item.append(qampari_scores(output, item["answers"]))
    keys = ("qampari_prec", "qampari_rec", "qampari_rec_top5", "qampari_f1", "qampari_f1_top5")
    result = {"num_preds": float(np.mean([s["num_preds"] for s in per_item]))}
    result.update({k: 100 * float(np.mean([s[k] for s in per_item])) for k in keys})
    return result


def compute_rouge(data: list[dict[str, Any]]) -> float:
    """ROUGE-Lsum x100 as eval.py: per item the better reference, bootstrap-aggregated."""
    from rouge_score import scoring

    aggregator = scoring.BootstrapAggregator()
    for item in data:
        if item.get("annotations") is not None:
            refs = [item["annotations"][0]["long_answer"], item["annotations"][1]["long_answer"]]
        else:
            refs = [item["answer"], item["answer"]]
        aggregator.add_scores({"rougeLsum": best_rouge_lsum(item["output"], refs)})
    return 100 * float(aggregator.aggregate()["rougeLsum"].mid.fmeasure)


async def _gather_items(fn: Callable[[int, dict[str, Any]], Any], data: Sequence[Any]) -> list:
    # Items run concurrently so the NLI queue can batch across them.
    semaphore = asyncio.Semaphore(_CONCURRENT_ITEMS)

    async def one(i: int, item: dict[str, Any]) -> Any:
        async with semaphore:
            try:
                return await fn(i, item)
            except NLIError as e:
                raise NLIError(f"item {i}: {e}") from e

    return await asyncio.gather(*(one(i, item) for i, item in enumerate(data)))


async def compute_citations(
    data: list[dict[str, Any]],
    nli: NLIBackend,
    qampari: bool,
    at_most_citations: int | None,
    alce_compat: bool = True,
) -> dict[str, float]:
    """eval.py's ``compute_autoais``: mean citation recall and precision x100 (skips empties)."""

    async def one(i: int, item: dict[str, Any]) -> Any:
        return await citation_scores(
            item["output"],
            item["docs"],
            item.get("question", ""),
            nli,
            qampari=qampari,
            at_most_citations=at_most_citations,
            alce_compat=alce_compat,
        )

    results = [r for r in await _gather_items(one, data) if r.skipped is None]
    rec = [r.recall for r in results]
    prec = [r.precision for r in results]
    return {
        "citation_rec": 100 * float(np.mean(rec)) if rec else math.nan,
        "citation_prec": 100 * float(np.mean(prec)) if prec else math.nan,
    }


async def compute_claims(normalized: list[dict[str, Any]], nli: NLIBackend) -> float:
    """eval.py's ``compute_claims`` on citation-free outputs (x100).

    eval.py divides by each item's number of claims, so an item without claims has no value
    there: it is left out of the mean (nan when no item has claims) and
    :func:`claims_left_out` names it.
    """

    async def one(i: int, item: dict[str, Any]) -> Any:
        return await claims_score(item["output"], item["claims"], nli)

    scores = [r.score for r in await _gather_items(one, normalized)]
    known = [s for s in scores if s is not None]
    return 100 * float(np.mean(known)) if known else math.nan


def claims_left_out(data: list[dict[str, Any]]) -> str | None:
    """The line saying which items ``claims_nli`` leaves out of its mean, or None."""
    left_out = [i for i, item in enumerate(data) if not item["claims"]]
    if not left_out:
        return None
    shown = ", ".join(map(str, left_out[:_LISTED_ITEMS]))
    more = ", ..." if len(left_out) > _LISTED_ITEMS else ""
    which = "items" if len(left_out) > 1 else "item"
    return (
        f"claims_nli: {len(left_out)} of {len(data)} items left out of the mean "
        f"({which} {shown}{more}): {NO_CLAIMS_REASON}"
    )


def _validate(
    args: argparse.Namespace, data: list[dict[str, Any]], qampari: bool, asqa: bool
) -> None:
    path = args.f
    if qampari:
        _require(data, path, "answers", "QAMPARI correctness")
    if not args.no_rouge:
        for i, item in enumerate(data):
            # eval.py reads the two annotations whenever they are not null, else "answer".
            field = "answer" if item.get("annotations") is None else "annotations"
            problem = field_problem(item, field)
            if problem is not None:
                raise ResultFileError(
                    f'--f {path}: item {i}: {problem}; ROUGE needs "answer" (or two '
                    '"annotations" with "long_answer"): pass --no_rouge to skip it'
                )
    uses_qa_pairs = data[0].get("qa_pairs") is not None
    if uses_qa_pairs or asqa:
        _require(data, path, "qa_pairs", "STR-EM (ASQA)")
    if args.qa and uses_qa_pairs:
        _require(data, path, "qa_pairs", "--qa", qa=True)
    if args.citations:
        _require(data, path, "docs", "--citations", nli=True)
        if qampari:
            _require(data, path, "question", "--citations (QAMPARI statements)")
    if args.claims_nli:
        _require(data, path, "claims", "--claims_nli")


def _score_path_problem(path: Path) -> str | None:
    if path.is_dir():
        return "is a directory"
    folder = path.parent
    if not folder.is_dir():
        return f"cannot be created: {folder} is not a directory"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot be created: {folder} is not writable"
    return None


def nli_backend(args: argparse.Namespace) -> NLIBackend:
    """The checked ``--nli`` backend (``--nli_cache``), refusing a model role.

    Raises:
        PreflightError: For an unusable spec or a role (no roles are bound outside an eval).

    """
    nli = checked_nli(args.nli, flag="--nli", cache_path=args.nli_cache)
    kind, arg = parse_nli_spec(args.nli)
    if kind == "model" and "/" not in arg:
        # Outside an Inspect eval no role can be bound: Inspect's own error names no flag.
        raise PreflightError(
            f"--nli={args.nli}: alce-eval binds no model roles; give the model itself "
            "(--nli model:<provider>/<model>)"
        )
    return nli


def score_file(args: argparse.Namespace) -> dict[str, Any]:
    """Compute every requested metric for ``args.f`` (eval.py's ``main`` without the I/O).

    Raises:
        ResultFileError: For a malformed file.
        NLIConfigError: For an unusable NLI backend.
        NLICacheError: For an ``--nli_cache`` that cannot hold the cache.
        NLIError: When an item's NLI decision fails.

    """
    data = load_result_file(args.f)
    score_path = Path(args.f + ".score")
    problem = _score_path_problem(score_path)
    if problem is not None:
        # Checked before scoring: a long NLI run must not end in an unwritable file.
        raise ResultFileError(f"--f {args.f}: the scores file {score_path} {problem}")
    if args.trust:
        from alce_tasks.trust_cli import score_trust

        return score_trust(
            data, args, nli=lambda: nli_backend(args), error=ResultFileError, gather=_gather_items
        )
    if args.dataset == "expertqa":
        raise ResultFileError("--dataset expertqa is scored with --trust only")
    qampari = args.dataset == "qampari" or (args.dataset is None and "qampari" in args.f)
    if qampari:
        # eval.py turns these off for QAMPARI.
        args.no_rouge, args.qa, args.mauve = True, False, False
    _validate(args, data, qampari, args.dataset == "asqa")
    data, cut = answered(data)
    if not data:
        raise ResultFileError(
            f"--f {args.f}: every output ended while thinking: no answer to score"
        )
    if cut:
        shown = ", ".join(str(i) for i in cut[:20]) + (", ..." if len(cut) > 20 else "")
        print(
            f"alce-eval: --f {args.f}: item{'s' if len(cut) > 1 else ''} {shown} not scored "
            f"({NO_ANSWER_THINKING}); left out of every metric",
            file=sys.stderr,
        )
    data, normalized = preprocess(data)

    result: dict[str, Any] = {"length": compute_len(normalized)}
    result["str_em"], result["str_hit"] = compute_str_em(normalized)
    if qampari:
        result.update(compute_qampari(normalized, args.cot))
    if not args.no_rouge:
        result["rougeLsum"] = compute_rouge(normalized)
    # eval.py computes QA and MAUVE on the preprocessed, citation-free items.
    if args.qa:
        result.update(_qa(normalized, args))
    if args.mauve:
        result.update(_mauve(normalized, args))
    if args.citations or args.claims_nli:
        nli = nli_backend(args)

        async def nli_metrics() -> dict[str, float]:
            out: dict[str, float] = {}
            if args.citations:
                out.update(
                    await compute_citations(
                        data, nli, qampari, args.at_most_citations, not args.no_alce_compat
                    )
                )
            if args.claims_nli:
                out["claims_nli"] = await compute_claims(normalized, nli)
                if note := claims_left_out(normalized):
                    print(f"alce-eval: {note}", file=sys.stderr)
            return out

        result.update(asyncio.run(nli_metrics()))
    if cut:
        result["no_answer_thinking"] = len(cut)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``alce-eval``; the exit code is 0 (ok) or 1 (bad input, NLI failure)."""
    args = build_parser().parse_args(argv)
    try:
        result = score_file(args)
    except (ResultFileError, PreflightError, NLIConfigError, NLICacheError, NLIError) as e:
        print(f"alce-eval: {e}", file=sys.stderr)
        return 1
    print(result)
    try:
        write_atomic(Path(args.f + ".score"), json.dumps(result, indent=4))
    except OSError as e:
        print(f"alce-eval: cannot write {args.f}.score ({e.strerror or e})", file=sys.stderr)
        return 1
    return 0


def cli() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    cli()
