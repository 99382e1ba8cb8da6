"""TRUST-SCORE's datasets: ALCE's three and ExpertQA, with documents annotated per gold answer.

One row each, read by the ALCE tasks (``-T trust=true``, ``alce_tasks/expertqa``), the
``trust_score`` scorer and ``alce-eval --trust``: trust-eval's evaluation type for it (``em``:
ASQA's exact match, ``em5``: QAMPARI's top-5 recall, ``cm``: claim match by NLI), its data file
in the authors' repository and its refusal-instructed prompt file.
"""

from dataclasses import dataclass
from typing import Literal

TrustDatasetName = Literal["asqa", "qampari", "eli5", "expertqa"]
"""The TRUST-SCORE datasets, the names of :data:`TRUST_DATASETS`."""

EvalType = Literal["em", "em5", "cm"]
"""How trust-eval scores an answer's correctness (``em``, ``em5``, ``cm``)."""


@dataclass(frozen=True)
class TrustDataset:
    """One TRUST-SCORE dataset.

    Attributes:
        name: Its name (ALCE's, or ``expertqa``).
        eval_type: trust-eval's correctness for it.
        data_file: Its evaluation file in the authors' data repository.
        prompt: Its refusal-instructed prompt file (``<name>.json`` of the authors').

    """

    name: TrustDatasetName
    eval_type: EvalType
    data_file: str
    prompt: str


def _row(name: TrustDatasetName, eval_type: EvalType) -> TrustDataset:
    return TrustDataset(
        name, eval_type, f"Trust-Score/{name}_eval_top100_calibrated.json", f"{name}_rejection"
    )


TRUST_DATASETS: dict[TrustDatasetName, TrustDataset] = {
    "asqa": _row("asqa", "em"),
    "qampari": _row("qampari", "em5"),
    "eli5": _row("eli5", "cm"),
    # trust-eval's config has no ExpertQA entry: its default evaluation type, cm.
    "expertqa": _row("expertqa", "cm"),
}
"""Every TRUST-SCORE dataset by name."""
