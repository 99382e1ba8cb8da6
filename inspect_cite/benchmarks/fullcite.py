"""FullCite's datasets: one row each, read by the tasks, the scorers and the span annotator.

A row says how a dataset is loaded (its loader in ``fullcite_tasks/data/``, named here so the
core imports no task package), where its gold evidence spans come from, the downstream-QA keys
``fullcite_answer`` reports for it, and the task options only it takes. A new FullCite dataset
is a row here (and its name in :data:`FullciteSource`); see docs/development.md, "Adding a
benchmark".
"""

from dataclasses import dataclass
from typing import Literal

FullciteSource = Literal["bioasq", "asqa", "expertqa"]
"""The FullCite datasets, the names of :data:`FULLCITE_SOURCES`."""


@dataclass(frozen=True)
class FullciteDataset:
    """One FullCite dataset.

    Attributes:
        name: Its name (the task's, ``metadata["source"]``).
        loader: ``module:function`` that loads it as records (``fullcite_tasks/data/``).
        gold: Where its gold evidence spans come from: ``own`` (the data holds them, located
            in the documents) or ``spans file`` (``-T spans_path``, else the annotator role).
        answer_keys: ``fullcite_answer``'s keys for it (downstream QA).
        options: The task options only some datasets take, that this one does.

    """

    name: FullciteSource
    loader: str
    gold: Literal["own", "spans file"]
    answer_keys: tuple[str, ...]
    options: tuple[str, ...] = ()


FULLCITE_SOURCES: dict[FullciteSource, FullciteDataset] = {
    "bioasq": FullciteDataset(
        name="bioasq",
        loader="fullcite_tasks.data.bioasq:bioasq_source",
        gold="own",
        answer_keys=(
            "yesno_accuracy",
            "factoid_strict",
            "factoid_lenient",
            "factoid_mrr",
            "list_precision",
            "list_recall",
            "list_f1",
            "summary_rouge2",
            "summary_rouge_su4",
        ),
        options=("abstracts_path", "question_types"),
    ),
    "asqa": FullciteDataset(
        name="asqa",
        loader="fullcite_tasks.data.asqa:asqa_source",
        gold="spans file",
        answer_keys=("str_em", "str_hit"),
        options=("spans_path",),
    ),
    "expertqa": FullciteDataset(
        name="expertqa",
        loader="fullcite_tasks.data.expertqa:expertqa_source",
        gold="spans file",
        answer_keys=("rougeL",),
        options=("system", "spans_path"),
    ),
}
"""Every FullCite dataset by name."""

ALL_ANSWER_KEYS = tuple(dict.fromkeys(k for d in FULLCITE_SOURCES.values() for k in d.answer_keys))
"""Every dataset's ``fullcite_answer`` keys, once."""

DATASET_OPTIONS = tuple(dict.fromkeys(o for d in FULLCITE_SOURCES.values() for o in d.options))
"""The task options only some datasets take."""


def other_options(source: FullciteSource) -> tuple[str, ...]:
    """The options other datasets take and ``source``'s task does not offer."""
    own = FULLCITE_SOURCES[source].options
    return tuple(sorted(o for o in DATASET_OPTIONS if o not in own))
