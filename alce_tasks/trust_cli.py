"""``alce-eval --trust``: a result file scored as trust-eval 0.1.5's ``compute_metrics()``.

The file is trust-eval's (``{"data": [items]}``, each with ``question``, ``answers``,
``docs`` with ``answers_found`` and the model's ``output``), as its ``ResponseGenerator``
saves it. Outputs are scored as they are (trust-eval's evaluator cleans nothing); the
``.score`` file holds every key trust-eval returns for ``--dataset``
(:func:`inspect_cite.alce.trust.metrics.trust_keys`), and with ``--corrected`` ``"corrected":
true`` and a ``nan_reasons`` object naming why each nan value is undefined.
"""

import argparse
import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from inspect_cite.alce.trust.metrics import (
    EVAL_TYPES,
    TrustItem,
    TrustSettings,
    trust_item,
    trust_item_problem,
    trust_scores,
)
from inspect_cite.nli import NLIBackend

Gather = Callable[
    [Callable[[int, dict[str, Any]], Any], Sequence[Any]], Coroutine[Any, Any, list[Any]]
]


def score_trust(
    data: list[dict[str, Any]],
    args: argparse.Namespace,
    *,
    nli: Callable[[], NLIBackend],
    error: type[Exception],
    gather: Gather,
) -> dict[str, Any]:
    """Every trust-eval key for ``data`` (items of ``args.f``), per ``args``' flags.

    Args:
        data: The result file's items (each with a string ``output``).
        args: ``alce-eval``'s arguments.
        nli: Returns the checked ``--nli`` backend.
        error: The exception class for a bad result file (``alce-eval``'s).
        gather: Runs a coroutine per item concurrently (``alce-eval``'s, naming the item of a
            failed NLI call).

    Raises:
        Exception: ``error`` without ``--dataset``, or naming the item and field at fault.
        PreflightError: For an unusable ``--nli``.
        NLIError: When an item's NLI decision fails.

    """
    dataset = args.dataset
    if dataset is None:
        raise error(
            f"--f {args.f}: --trust needs --dataset ({', '.join(EVAL_TYPES)}): trust-eval "
            "scores each dataset differently"
        )
    eval_type = EVAL_TYPES[dataset]
    for i, item in enumerate(data):
        problem = trust_item_problem(item, eval_type)
        if problem is not None:
            raise error(f"--f {args.f}: item {i} {problem} (read by --trust)")
    settings = TrustSettings(
        rejection_flag=args.rejection_flag,
        rejection_threshold=args.rejection_threshold,
        at_most_citations=args.at_most_citations,
        corrected=args.corrected,
    )
    backend = nli()

    async def one(i: int, item: dict[str, Any]) -> TrustItem:
        return await trust_item(item, dataset, backend, settings)

    items: list[TrustItem] = asyncio.run(gather(one, data))
    result = trust_scores(items, dataset, corrected=args.corrected)
    out: dict[str, Any] = dict(result.values)
    if args.corrected:
        # The numbers then differ from trust-eval's: the file says so. The default mode's file
        # stays key for key trust-eval's (the parity check compares them).
        out["corrected"] = True
    if result.reasons:
        out["nan_reasons"] = result.reasons
    return out
