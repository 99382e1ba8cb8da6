"""The ALCE tasks end to end in-process: fixtures, the tiny local model, the real hf/ provider."""

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from alce_tasks import asqa, eli5, qampari
from inspect_cite.alce.prompts import ALCE_PROMPT_COMMIT, PROMPT_SHA256, PromptFile
from inspect_cite.checks.errors import PreflightError
from inspect_cite.downloads.download import sha256_file
from tests.conftest import FIXTURES, load_fixture, official_prompts_dir, sample_prompt
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"


@pytest.fixture(scope="module")
def tiny_model(tiny_qwen3):
    return get_model("hf/tiny", model_path=str(tiny_qwen3), device="cpu", do_sample=False)


@pytest.mark.parametrize(
    ("task_fn", "name", "keys"),
    [
        (asqa, "asqa", {"length", "str_em", "str_hit", "rougeLsum", "citation_rec"}),
        (qampari, "qampari", {"length", "num_preds", "qampari_rec_top5", "citation_prec"}),
        (eli5, "eli5", {"length", "rougeLsum", "citation_rec", "claims_nli"}),
    ],
)
def test_task_runs_end_to_end(task_fn, name, keys, tiny_model, own_prompts, tmp_path):
    task = task_fn(dataset_path=str(FIXTURES / f"alce_{name}.json"), nli=NLI)
    [log] = inspect_eval(
        task, model=tiny_model, limit=2, max_tokens=20, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    metrics = {s.name: s.metrics for s in log.results.scores}
    assert keys <= set(metrics)
    assert {"mean", "stderr"} <= set(metrics["length"])
    sample = log.samples[0]
    docs = sample.metadata["docs"]
    assert [d["id"] for d in docs] == ["1", "2", "3", "4", "5"]
    assert {"id", "title", "text"} <= set(docs[0])
    assert sample.metadata["dataset"] == name
    # The prompt is ALCE's: system message, then demonstrations + documents + "Answer:".
    assert sample.messages[0].role == "system"
    assert sample.messages[1].text.endswith("Answer:")
    meta = log.eval.task_args | log.eval.metadata
    # The prompt file read is recorded by path and hash (not as ALCE's commit: it is ours).
    used = own_prompts / f"{name}_default.json"
    assert meta["prompt_file"] == {"path": str(used), "sha256": sha256_file(used)}
    assert meta["parameters"]["demo_ids"] == [1, 3]
    assert meta["data"]["sha256"]
    assert log.eval.task_version == 1


def test_official_prompt_file_is_recorded_by_commit(prompt_cache):
    task = eli5(dataset_path=str(FIXTURES / "alce_eli5.json"), prompt="light_inst", nli=NLI)
    assert task.metadata["prompt_file"] == {
        "commit": ALCE_PROMPT_COMMIT,
        "file": "prompts/eli5_light_inst.json",
        "sha256": PROMPT_SHA256["eli5_light_inst"],
    }
    official = PromptFile.load(official_prompts_dir() / "eli5_light_inst.json")
    assert sample_prompt(task.dataset[0]).startswith(official.instruction)


def test_closedbook_and_summary_variants(tiny_model, own_prompts, tmp_path):
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), prompt="closedbook", nli=NLI)
    assert "Document [" not in sample_prompt(task.dataset[0])
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), prompt="sum_or_ext", ndoc=3, nli=NLI)
    sample = task.dataset[0]
    # Summaries in the prompt, full passages kept for scoring, irrelevant ones skipped.
    assert "Christopher Eccleston played the Ninth Doctor in 2005." in sample_prompt(sample)
    assert sample.metadata["docs"][0]["text"].startswith("The Ninth Doctor is an incarnation")
    assert [d["title"] for d in sample.metadata["docs"]] == [
        "Ninth Doctor",
        "Tenth Doctor",
        "Russell T Davies",
    ]
    with pytest.raises(ValueError, match="use_shorter='summary' needs prompt=sum_or_ext"):
        asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), use_shorter="summary", nli=NLI)


def test_missing_dataset_file_is_a_clear_error(own_prompts, tmp_path):
    # Named with whatever else stops the run (here nli=true without a GPU), in one message.
    with pytest.raises(PreflightError, match=r"dataset file .*nope\.json does not exist"):
        qampari(dataset_path=str(tmp_path / "nope.json"))


@pytest.mark.parametrize(
    ("strategy", "docs_after", "solver_name"),
    [
        ("closedbook", 0, "alce_closedbook"),
        ("summ", 5, "alce_summ"),
        ("oracle", 5, "alce_vanilla"),
        ("rerank", 5, "alce_rerank"),
        ("constrained", 5, "constrained_citations"),
        ("posthoc", 5, "alce_postcite"),
    ],
)
def test_strategies_wire_their_solver(strategy, docs_after, solver_name, own_prompts, tmp_path):
    from tests.helpers.tiny_eval_models import minilm_path

    task = asqa(
        dataset_path=str(FIXTURES / "alce_asqa.json"),
        nli=NLI,
        strategy=strategy,
        retrieval_model=minilm_path(),
        ndoc=5 if strategy == "summ" else None,
    )
    answer = "Christopher Eccleston played the Ninth Doctor [1]. David Tennant followed [2]."
    [log] = inspect_eval(
        task, model=scripted_model([answer] * 8)[0], limit=1, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    assert solver_name in [step.solver for step in log.plan.steps]
    sample = log.samples[0]
    # The documents the answer's [n] refer to (SUMM skips the fixture's irrelevant summaries).
    if strategy == "summ":
        assert 0 < len(sample.metadata["docs"]) <= docs_after
    else:
        assert len(sample.metadata["docs"]) == docs_after
    assert log.eval.metadata["parameters"]["strategy"] == strategy
    assert "citation_rec" in {s.name for s in log.results.scores}
    if strategy == "oracle":
        assert log.eval.metadata["parameters"]["oracle"] is True


def test_strategy_table_covers_every_strategy_and_builds_each_prompt_once(own_prompts):
    from typing import get_args

    from alce_tasks.strategies import STRATEGIES, Strategy

    assert set(STRATEGIES) == set(get_args(Strategy))
    path = str(FIXTURES / "alce_asqa.json")
    question = load_fixture("alce_asqa.json")[0]["question"]
    # A strategy whose solver builds its own prompt gets the question, not a discarded prompt.
    for strategy in ("summ", "closedbook"):
        sample = asqa(dataset_path=path, nli=NLI, strategy=strategy).dataset[0]
        assert sample.input == question, strategy
    # VANILLA's prompt is the task's; the input is the question, as the viewer's list shows it.
    vanilla = asqa(dataset_path=path, nli=NLI, strategy="vanilla").dataset[0]
    assert vanilla.input == question and question in vanilla.metadata["alce_prompt"]
    assert vanilla.metadata["alce_prompt"] != question


def test_qa_and_mauve_are_dataset_checked(own_prompts):
    with pytest.raises(ValueError, match="qa=true needs ASQA"):
        from alce_tasks.task import alce_task

        alce_task(
            dataset="eli5",
            retriever="bm25",
            oracle=False,
            ndoc=None,
            shot=2,
            seed=42,
            prompt="default",
            use_shorter=None,
            dataset_path=str(FIXTURES / "alce_eli5.json"),
            prompt_file=None,
            nli=NLI,
            qa=True,
        )


def test_a_local_dataset_file_is_taken_whatever_the_retriever(own_prompts):
    # retriever and oracle pick among the pinned files; with -T dataset_path they only label it.
    path = str(FIXTURES / "alce_asqa.json")
    assert len(asqa(dataset_path=path, nli=NLI, retriever="bm25").dataset) > 0
    assert (
        len(
            qampari(
                dataset_path=str(FIXTURES / "alce_qampari.json"),
                nli=NLI,
                retriever="dpr",
                strategy="oracle",
            ).dataset
        )
        > 0
    )


def test_an_unknown_prompt_variant_names_the_flag_and_the_choices(own_prompts):
    with pytest.raises(
        ValueError,
        match=r"-T prompt=lightinst: unknown prompt variant; use one of default, light_inst",
    ):
        asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI, prompt="lightinst")


@pytest.mark.parametrize("option", ["ndoc", "shot"])
def test_a_negative_count_names_the_flag(option, own_prompts):
    with pytest.raises(ValueError, match=f"-T {option}=-1: must be 0 or more"):
        asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI, **{option: -1})


@pytest.mark.parametrize("seeds", [0, -3])
def test_a_bad_mauve_seeds_is_refused_before_any_model_or_data(seeds, own_prompts):
    # Checked with the other -T values, not when the scorer is built after the downloads.
    with pytest.raises(ValueError, match=f"-T mauve_seeds={seeds}: must be a whole number"):
        asqa(dataset_path="/no/such/file.json", nli="nope", mauve=True, mauve_seeds=seeds)
