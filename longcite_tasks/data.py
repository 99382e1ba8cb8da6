"""LongBench-Cite's items as Inspect samples: the context cut into numbered sentence chunks.

LongBench-Cite's data (``LongBench-Cite.json`` in LongCite's repository) is a JSON list of
items ``{"idx", "dataset", "query", "context", "answer", "few_shot_scores"}``: ``answer`` is
the list of reference answers, ``few_shot_scores`` (LongBench-Chat) the rated example answers
its correctness grader is shown. Sample contract:

- ``id``: ``idx``; ``input``: the question; ``target``: the reference answers.
- ``metadata["docs"]``: the context's chunks as the model sees them, ``{"id": "<i>", "title":
  "", "text"}`` for chunk ``<Ci>`` (:func:`inspect_cite.longcite.chunks.chunk_docs`).
- ``metadata["dataset"]``, ``idx``, ``question``, ``answers``, ``few_shot_scores`` (when the
  item has them) and the item's other fields, except ``context`` (held by the chunks).
"""

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from inspect_cite.downloads.files import read_json
from inspect_cite.longcite.chunks import chunk_docs
from inspect_cite.longcite.files import LongciteDataError

_TEXT_FIELDS = ("dataset", "query", "context")


def _problem(item: Any) -> str | None:
    if not isinstance(item, dict):
        return f"must be an object, got {type(item).__name__}"
    for key in ("idx", *_TEXT_FIELDS, "answer"):
        if key not in item:
            return f'has no "{key}" field'
    if not isinstance(item["idx"], int | str) or isinstance(item["idx"], bool):
        return f'field "idx" must be an integer or a string, got {type(item["idx"]).__name__}'
    for key in _TEXT_FIELDS:
        if not isinstance(item[key], str):
            return f'field "{key}" must be a string, got {type(item[key]).__name__}'
    answer = item["answer"]
    if not isinstance(answer, str) and not (
        isinstance(answer, list) and all(isinstance(a, str) for a in answer)
    ):
        return 'field "answer" must be a string or a list of strings'
    shots = item.get("few_shot_scores")
    if shots is not None and not (
        isinstance(shots, list)
        and all(isinstance(s, dict) and "answer" in s and "score" in s for s in shots)
    ):
        return 'field "few_shot_scores" must be a list of {"answer", "score"} objects'
    return None


def read_items(path: Path) -> list[dict[str, Any]]:
    """The items of a LongBench-Cite data file, each checked.

    Raises:
        LongciteDataError: One line naming the file, the item and the field.

    """
    data = read_json(path, "LongBench-Cite data file", LongciteDataError)
    if not isinstance(data, list):
        raise LongciteDataError(
            f"{path}: expected a JSON list of LongBench-Cite items, got {type(data).__name__}"
        )
    for i, item in enumerate(data):
        problem = _problem(item)
        if problem is not None:
            raise LongciteDataError(f"{path}: item {i} {problem}")
    return data


def item_sample(item: dict[str, Any]) -> Sample:
    """One LongBench-Cite item as a sample (see the module docstring)."""
    answers = [item["answer"]] if isinstance(item["answer"], str) else list(item["answer"])
    metadata = {k: v for k, v in item.items() if k not in ("context", "query", "answer")}
    metadata.update(
        question=item["query"],
        answers=answers,
        docs=chunk_docs(item["context"]),
    )
    return Sample(id=item["idx"], input=item["query"], target=answers, metadata=metadata)


def item_samples(items: Iterable[dict[str, Any]]) -> list[Sample]:
    """The samples of the items, in order."""
    return [item_sample(item) for item in items]
