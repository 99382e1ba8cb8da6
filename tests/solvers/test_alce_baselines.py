"""ALCE's baselines as solvers: prompts, documents, turn protocols, end-to-end runs."""

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import GenerateConfig, ModelUsage, get_model

from alce_tasks.data import record_to_sample
from inspect_cite.alce.data import load_items
from inspect_cite.alce.prompts import (
    ALCE_SYSTEM_MESSAGE,
    AlcePromptBuilder,
    PromptFile,
    alce_prompt_path,
    make_doc_prompt,
)
from scorers.alce_correctness import alce_correctness
from scorers.citation_nli import citation_nli
from solvers import (
    alce_closedbook,
    alce_inlinesearch,
    alce_interact,
    alce_postcite,
    alce_snippet,
    alce_summ,
)
from solvers.alce_interactive import (
    checked_doc_ids,
    force_cite,
    search_query,
    turn_action,
)
from solvers.alce_postcite import post_hoc_cite
from solvers.alce_rerank import alce_rerank
from tests.conftest import FIXTURES
from tests.helpers.evals import eval_one
from tests.helpers.scripted_models import Script
from tests.helpers.tiny_eval_models import minilm_path

USAGE = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)


def _items(dataset: str) -> list[dict]:
    return load_items(FIXTURES / f"alce_{dataset}.json", dataset)


def _pool_dataset(dataset: str, items: list[dict] | None = None) -> MemoryDataset:
    """Samples as a strategy-aware task would make them: all retrieved docs in metadata."""
    items = items if items is not None else _items(dataset)
    return MemoryDataset(
        [
            record_to_sample(item, i, dataset, "(vanilla prompt)", item["docs"])
            for i, item in enumerate(items)
        ]
    )


def _run(solver, dataset: str, script: Script, tmp_path, items=None):
    task = Task(
        dataset=_pool_dataset(dataset, items),
        solver=solver,
        scorer=[
            alce_correctness(dataset),
            citation_nli(nli="python:tests.helpers.nli_fns:word_entail", dataset=dataset),
        ],
    )
    log = eval_one(task, get_model("mockllm/model", custom_outputs=script), log_dir=str(tmp_path))
    # Every baseline's output is scored for citations against the documents it left in metadata.
    for sample in log.samples:
        assert {"citation_rec", "citation_prec"} <= set(sample.scores["citation_nli"].value)
    return log


def _builder(name: str, **kwargs) -> AlcePromptBuilder:
    return AlcePromptBuilder(PromptFile.load(alce_prompt_path(name)), **kwargs)


# ---------------------------------------------------------------- CLOSEDBOOK, SUMM, SNIPPET


def test_closedbook_prompt_and_no_docs(own_prompts, tmp_path):
    item = _items("eli5")[0]
    script = Script(["Because of salt [1]."])
    log = _run(alce_closedbook(), "eli5", script, tmp_path, [item])
    expected = _builder("eli5_closedbook", shot=2, ndoc=0, seed=42).build(item)
    [system, user] = script.inputs[0]
    assert system.text == ALCE_SYSTEM_MESSAGE
    assert user.text == expected and "Document [" not in expected
    assert expected.endswith(f"Question: {item['question']}\n\nAnswer:")
    sample = log.samples[0]
    assert sample.metadata["docs"] == []  # nothing shown, nothing citable (ALCE)
    assert sample.output.completion == "Because of salt [1]."
    assert "alce_correctness" in sample.scores


@pytest.mark.parametrize(
    ("solver", "key", "kept"),
    [(alce_summ, "summary", [0, 1, 3, 5]), (alce_snippet, "extraction", [0, 1, 3, 4, 5])],
)
def test_summ_snippet_prompt_and_renumbered_full_docs(own_prompts, tmp_path, solver, key, kept):
    item = _items("asqa")[0]
    script = Script(["Eccleston [1] and Tennant [3]."])
    log = _run(solver(), "asqa", script, tmp_path, [item])
    expected = _builder("asqa_sum_or_ext", shot=2, ndoc=10, seed=42, use_shorter=key).build(item)
    assert script.user_texts() == [expected]
    shown = [item["docs"][i] for i in kept]
    for i, doc in enumerate(shown):
        assert f"Document [{i + 1}](Title: {doc['title']}): {doc[key]}" in expected
    docs = log.samples[0].metadata["docs"]
    assert [d["id"] for d in docs] == [str(i + 1) for i in range(len(kept))]
    assert [d["text"] for d in docs] == [d["text"] for d in shown]  # NLI sees full passages
    assert [d["passage_id"] for d in docs] == [str(d["id"]) for d in shown]


def test_summ_respects_ndoc(own_prompts, tmp_path):
    item = _items("asqa")[0]
    log = _run(alce_summ(ndoc=2, shot=1), "asqa", Script(["x"]), tmp_path, [item])
    assert [d["text"] for d in log.samples[0].metadata["docs"]] == [
        d["text"] for d in item["docs"][:2]
    ]


# ---------------------------------------------------------------- POSTCITE


def _keyword_search(keywords: list[str]):
    def search(statement: str) -> int:
        return next(i for i, k in enumerate(keywords) if k in statement)

    return search


def test_post_hoc_cite_sentences():
    search = _keyword_search(["Alpha", "Beta", "Gamma"])
    out = "Alpha one. Beta two [2]. Gamma three [4"
    assert post_hoc_cite(out, "Q?", search, qampari=False) == (
        "[1] Alpha one. Beta two [2]. Gamma three [4"
    )
    assert post_hoc_cite("Alpha one. Gamma three.", "Q?", search, qampari=False) == (
        "[1] Alpha one. [3] Gamma three."
    )
    # --overwrite re-cites everything, dropping the old markers
    assert post_hoc_cite(out, "Q?", search, qampari=False, overwrite=True) == (
        "[1] Alpha one. [2] Beta two. [3] Gamma three"
    )
    assert post_hoc_cite("", "Q?", search, qampari=False) == ""


def test_post_hoc_cite_qampari_quirks():
    seen = []

    def search(statement: str) -> int:
        seen.append(statement)
        return 1

    out = "Marazan [1], Stephen Morris, Lonely Road."
    # entities are searched with the question in front; the new citation keeps a double space
    assert post_hoc_cite(out, "Which books?", search, qampari=True) == (
        "Marazan [1], [2]  Stephen Morris, [2]  Lonely Road"
    )
    assert seen == ["Which books? Stephen Morris", "Which books? Lonely Road"]
    # an empty QAMPARI output still yields one statement (as in ALCE)
    assert post_hoc_cite("", "Which books?", search, qampari=True) == "[2]"


def test_postcite_after_closedbook_searches_all_docs(own_prompts, tmp_path):
    item = _items("asqa")[0]
    docs = item["docs"]
    first = docs[3]["text"].split(". ")[0] + "."
    second = docs[1]["text"].split(". ")[0] + "."
    script = Script([f"{first} {second}"])
    solver = alce_postcite(retriever=minilm_path(), device="cpu")
    log = _run(solver, "asqa", script, tmp_path, [item])
    sample = log.samples[0]
    assert sample.output.completion == f"[4] {first} [2] {second}"
    # the closed-book prompt showed nothing; citations refer to the sample's documents
    assert [d["text"] for d in sample.metadata["docs"]] == [d["text"] for d in docs]
    assert "Document [" not in script.user_texts()[0]


def test_postcite_after_summ_searches_shown_docs(own_prompts, tmp_path):
    item = _items("asqa")[0]
    cited = item["docs"][5]["text"].split(". ")[0] + "."
    script = Script([f"Already cited [1]. {cited}"])
    solver = alce_postcite(base="summ", retriever=minilm_path(), device="cpu")
    log = _run(solver, "asqa", script, tmp_path, [item])
    sample = log.samples[0]
    # SUMM showed docs 1, 2, 4, 6 of the item: the 6th is now [4]
    assert sample.output.completion == f"Already cited [1]. [4] {cited}"
    assert len(sample.metadata["docs"]) == 4


# ---------------------------------------------------------------- turn protocol


def test_turn_actions():
    assert turn_action("End") == "end"
    assert turn_action("  end.") == "end"
    assert turn_action("Check: Document [1]") == "check"
    assert turn_action("search: Eiffel") == "check"
    assert turn_action("Output: It is [1].") == "output"
    assert turn_action("Sorry, no relevant information is given.") == "abstain"
    assert turn_action("Output: none of the documents say") == "abstain"
    assert turn_action("Sorry about that") == "other"
    assert turn_action("") == "other"
    assert checked_doc_ids("Check: Document [1][3][9][4][2]", 5) == [0, 2, 3]
    assert checked_doc_ids("Check: Document [0][2]", 5) == [1]
    assert search_query("Search: when search: built") == "when  built"
    assert force_cite("A [1]. B.", [0, 2], qampari=False) == "[1][3] A. [1][3] B.."
    assert force_cite("X [2], Y,", [1], qampari=True) == "[2] X, [2] Y, "


def test_checked_doc_ids_ignore_numbers_too_long_for_int():
    assert checked_doc_ids("Check: Document [" + "9" * 5000 + "][2]", 5) == [1]


def test_interact_turns(own_prompts, tmp_path):
    item = _items("asqa")[0]
    lines = [
        "Check: Document [1][3][4][2]",
        " Eccleston played the Ninth Doctor [1].",
        "Check: Document [9]",
        " Tennant followed [2].\nignored after the newline",
        "Output: He left in 2010 [3].",
        "End",
    ]
    script = Script(lines)
    log = _run(alce_interact(), "asqa", script, tmp_path, [item])
    builder = _builder("asqa_interact_doc_id", shot=2, ndoc=10, seed=42, use_shorter="summary")
    doc_list = builder.docs(item)  # docs 1, 2, 4, 6 of the item (summaries not irrelevant)
    dp = builder.prompt_file.doc_prompt
    p0 = builder.build(item).rstrip() + "\n"
    shown = "".join(make_doc_prompt(doc_list[i], i, dp) for i in (0, 2, 3))
    p1 = p0 + "Check: Document [1][3][4][2]\n"
    p2 = p1 + "Output:  Eccleston played the Ninth Doctor [1].\n"
    p3 = p2 + "Check: Document [9]\n"
    p4 = p3 + "Output:  Tennant followed [2].\n"
    p5 = p4 + "Output: He left in 2010 [3].\n"
    assert script.user_texts() == [p0, p1 + shown + "Output:", p2, p3 + "Output:", p4, p5]
    assert all(c.stop_seqs == ["\n", "\n\n"] for c in script.configs)
    assert all(msgs[0].text == ALCE_SYSTEM_MESSAGE for msgs in script.inputs)

    sample = log.samples[0]
    assert sample.output.completion == (
        " Eccleston played the Ninth Doctor [1]. Tennant followed [2]. He left in 2010 [3]."
    )
    assert sample.metadata["interactive"] == {
        "turns": 6,
        "shown_docs": [[1, 3, 4], []],
        "stop": "end",
    }
    assert [d["text"] for d in sample.metadata["docs"]] == [d["text"] for d in doc_list]
    # readable transcript: system + one user/assistant pair per turn
    roles = [m.role for m in sample.messages]
    assert roles == ["system"] + ["user", "assistant"] * 6
    assert sample.messages[3].text == shown + "Output:"
    assert sample.messages[4].text == "Output:  Eccleston played the Ninth Doctor [1]."
    assert sample.messages[5].text == "(continue)"
    assert sample.scores["alce_correctness"].value["length"] > 0


def test_interact_stops_at_max_turn_and_abstention(own_prompts, tmp_path):
    item = _items("asqa")[0]
    script = Script(["Check: Document [1]"] * 12)
    log = _run(alce_interact(), "asqa", script, tmp_path, [item])
    assert len(script.inputs) == 10
    assert log.samples[0].metadata["interactive"]["stop"] == "max_turn"
    # after each Check the next line is forced to be output, even "Check: ..."
    assert log.samples[0].output.completion.startswith(" Check: Document [1] Check")

    script = Script(["Output: Fine [1].", "Sorry, I found no relevant information."])
    log = _run(alce_interact(), "asqa", script, tmp_path, [item])
    assert len(script.inputs) == 2
    assert log.samples[0].output.completion == " Fine [1]."
    assert log.samples[0].metadata["interactive"]["stop"] == "abstain"

    script = Script(["Let me think."])
    log = _run(alce_interact(max_turn=3), "asqa", script, tmp_path, [item])
    assert len(script.inputs) == 1 and log.samples[0].output.completion == ""


def test_interact_qampari_force_cite_and_trailing_comma(own_prompts, tmp_path):
    item = _items("qampari")[0]
    script = Script(["Check: Document [2]", "Marazan [1], Stephen Morris,", "End"])
    log = _run(alce_interact(force_cite_show=True), "qampari", script, tmp_path, [item])
    assert log.samples[0].output.completion == " [2] Marazan, [2] Stephen Morris"
    script = Script(["Output: A [1], B [2],", "End"])
    log = _run(alce_interact(), "qampari", script, tmp_path, [item])
    assert log.samples[0].output.completion == " A [1], B [2]"
    assert "qampari_f1" in log.samples[0].scores["alce_correctness"].value


def test_inlinesearch_turns(own_prompts, tmp_path):
    item = _items("asqa")[1]
    target = item["docs"][4]
    query = " ".join(target["text"].split()[:25])
    script = Script([f"Search: {query}", "It was finished [9].", "End"])
    solver = alce_inlinesearch(retriever=minilm_path(), device="cpu")
    log = _run(solver, "asqa", script, tmp_path, [item])
    builder = _builder("asqa_interact_search", shot=2, ndoc=0, seed=42)
    p0 = builder.build(item).rstrip() + "\n"
    assert "Document [" not in builder.build(item).split("Question: ")[-1]
    shown = make_doc_prompt(target, 4, builder.prompt_file.doc_prompt)
    assert script.user_texts()[:2] == [p0, p0 + f"Search: {query}\n" + shown + "Output:"]
    sample = log.samples[0]
    # force_cite_show (the paper's setting): the shown document replaces the model's citation,
    # with run.py's extra "." after the sentences
    assert sample.output.completion == " [5] It was finished.."
    assert [d["text"] for d in sample.metadata["docs"]] == [d["text"] for d in item["docs"]]
    assert sample.metadata["interactive"]["shown_docs"] == [[5]]


# ---------------------------------------------------------------- end to end, tiny model


def test_baselines_run_end_to_end_with_tiny_model(own_prompts, tiny_qwen3, tmp_path):
    """Every baseline generates with a real (tiny, random) model and is scored."""
    runs = [
        ("asqa", alce_closedbook()),
        ("eli5", alce_summ()),
        ("qampari", alce_snippet()),
        ("qampari", alce_postcite(retriever=minilm_path(), device="cpu")),
        ("asqa", alce_interact()),
        ("eli5", alce_inlinesearch(retriever=minilm_path(), device="cpu")),
        ("asqa", alce_rerank(n=2, nli="python:tests.helpers.nli_fns:word_entail")),
    ]
    tasks = [
        Task(
            dataset=_pool_dataset(ds),
            solver=solver,
            scorer=[
                alce_correctness(ds),
                citation_nli(nli="python:tests.helpers.nli_fns:word_entail", dataset=ds),
            ],
            config=GenerateConfig(max_tokens=12, temperature=1.0),
            name=f"{ds}_{i}",
        )
        for i, (ds, solver) in enumerate(runs)
    ]
    model = get_model("hf/tiny", model_path=str(tiny_qwen3), device="cpu")
    logs = inspect_eval(tasks, model=model, display="none", log_dir=str(tmp_path), max_tasks=7)
    for log in logs:
        assert log.status == "success", (log.eval.task, log.error)
        for sample in log.samples:
            assert sample.output.completion is not None
            assert set(sample.scores["alce_correctness"].value)
            assert {"citation_rec", "citation_prec"} <= set(sample.scores["citation_nli"].value)
            ids = [d["id"] for d in sample.metadata["docs"]]
            assert ids == [str(i + 1) for i in range(len(ids))]


def test_sample_outputs_for_rerank(own_prompts, tmp_path):
    """The sampling helper a RERANK solver builds on: n candidates, conversation unchanged."""
    from inspect_ai.solver import solver

    from solvers.alce_prompting import sample_outputs, set_output

    seen: dict[str, object] = {}

    @solver
    def pick_longest():
        async def solve(state, generate):
            before = list(state.messages)
            outputs = await sample_outputs(state, generate, 3)
            seen["texts"] = [o.completion for o in outputs]
            seen["unchanged"] = state.messages == before
            return set_output(state, max(seen["texts"], key=len))

        return solve

    log = _run(
        pick_longest(),
        "asqa",
        Script(["a [1].", "a longer one [2].", "b."]),
        tmp_path,
        _items("asqa")[:1],
    )
    assert seen == {"texts": ["a [1].", "a longer one [2].", "b."], "unchanged": True}
    assert log.samples[0].output.completion == "a longer one [2]."
