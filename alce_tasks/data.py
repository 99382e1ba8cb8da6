"""ALCE items as Inspect samples (the data itself: :mod:`inspect_cite.alce.data`)."""

from typing import Any

from inspect_cite.alce.prompts import TASK_PROMPT_KEY, AlceDatasetName

# Document fields carried into metadata["docs"] besides id/title/text.
_DOC_EXTRAS = ("summary", "extraction", "score", "url", "sent")


def record_to_sample(
    item: dict[str, Any],
    index: int,
    dataset: AlceDatasetName,
    prompt: str,
    docs: list[dict[str, Any]],
    *,
    question_input: bool = False,
) -> Any:
    """Turn a validated ALCE item into an Inspect ``Sample``.

    ``metadata["docs"]`` holds the documents shown (full passages, prompt order) with ids
    ``"1".."n"`` as in the prompt; ALCE's own passage id, when present, is kept as ``passage_id``.
    Every other field of the item except the 100 retrieved ``docs`` is kept as metadata.

    Args:
        item: The item.
        index: Its position in the file (its id when it has none).
        dataset: Its ALCE dataset.
        prompt: The prompt the task built for it, or its question when the solver builds one.
        docs: The documents the prompt shows.
        question_input: The sample input is the item's question and a prompt the task built
            goes to ``metadata["alce_prompt"]`` (:data:`TASK_PROMPT_KEY`), which the solver
            sends unchanged: Inspect's sample list then shows each question, not the
            instruction every prompt begins with. Otherwise the prompt is the input.

    """
    from inspect_ai.dataset import Sample

    shown = []
    for i, doc in enumerate(docs):
        entry: dict[str, Any] = {"id": str(i + 1), "title": doc["title"], "text": doc["text"]}
        entry.update({k: doc[k] for k in _DOC_EXTRAS if k in doc})
        if "id" in doc:
            entry["passage_id"] = str(doc["id"])
        shown.append(entry)
    metadata = {k: v for k, v in item.items() if k not in ("docs", "output", "prompt")}
    metadata["dataset"] = dataset
    metadata["docs"] = shown
    sample_id = item.get("sample_id", item.get("id", index))
    if dataset == "qampari":
        target: str | list[str] = [group[0] for group in item["answers"] if group]
    else:
        target = item.get("answer", "")
    if question_input and prompt != item["question"]:
        metadata[TASK_PROMPT_KEY] = prompt
        prompt = item["question"]
    return Sample(id=str(sample_id), input=prompt, target=target, metadata=metadata)
