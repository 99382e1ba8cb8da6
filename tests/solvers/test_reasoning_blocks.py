"""Where a thinking model's reasoning ends and its answer begins (issue 24, item 3).

One rule (``inspect_cite.text.think.split_think``) for every reader of an output: reasoning is only
where the output starts (an explicit ``<think>``, or one the chat template opened in the
prompt, so the output is ``reasoning</think>answer``); blocks nest; once the answer has
begun, a ``<think>`` or ``</think>`` quoted in it is its own text; reasoning that never closes
is no answer (nan). Checked through the ALCE and FullCite scorers on a TaskState,
``alce-eval``, the lm-eval hooks, a scripted run and ``hf/`` with a template that opens
``<think>`` in the prompt.
"""

import asyncio
import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import Score, Target

from alce_tasks import asqa
from alce_tasks.eval_cli import main as alce_eval
from fullcite_tasks import asqa as fullcite_asqa
from inspect_cite.citations.alce import remove_citations
from inspect_cite.generation.thinking import NO_ANSWER_THINKING
from inspect_cite.testing.tiny_qwen3 import build_tiny_qwen3
from scorers.alce_correctness import alce_correctness
from scorers.citation_nli import citation_nli
from scorers.doc_snippet_f1 import doc_snippet_f1
from scorers.fullcite_answer import fullcite_answer
from tests.conftest import FIXTURES, fixture_corpus, load_fixture
from tests.helpers.scripted_models import scripted_model
from tests.helpers.task_states import fullcite_metadata, state
from tests.helpers.tiny_models import QWEN3_CHAT_TEMPLATE

NLI = "python:tests.helpers.nli_fns:word_entail"
ASQA_PATH = str(FIXTURES / "alce_asqa.json")
ASQA_ITEM = load_fixture("alce_asqa.json")[0]
# ModelOutput.metadata key where hf/ outputs record whether the prompt opened <think>.
OPENED = "think_opened_by_prompt"

# ALCE: document [1] is about Eccleston, [2] about Tennant (the fixture's first item).
ALCE_ANSWER = "Christopher Eccleston portrayed the Ninth Doctor [1]."
ALCE_REASONING = "Document [2] says David Tennant portrayed the Tenth Doctor [2].\nSo not him."
ALCE_SHAPES = {
    "explicit": f"<think>\n{ALCE_REASONING}\n</think>\n\n{ALCE_ANSWER}",
    "template_opened": f"{ALCE_REASONING}\n</think>\n\n{ALCE_ANSWER}",
    "nested": f"<think>\nFirst <think>{ALCE_REASONING}</think>\nstill [2].\n</think>\n{ALCE_ANSWER}",
    "template_opened_nested": f"{ALCE_REASONING} <think>aside</think>\n</think>{ALCE_ANSWER}",
}
# Cut while thinking: every key nan with the reason, never the reasoning scored.
ALCE_CUT = {
    "nested_cut": f"<think>\nFirst <think>{ALCE_REASONING}</think>\n{ALCE_ANSWER}",
    "explicit_cut": f"<think>\n{ALCE_REASONING}",
}

# FullCite: doc a is about Eccleston, doc b about Tennant.
FULLCITE_META = fullcite_metadata()
FC_ANSWER = "Christopher Eccleston played him {doc_id: a, snippet: Christopher Eccleston}."
FC_REASONING = "I could cite {doc_id: b, snippet: David Tennant} too.\nNo, only Eccleston."
FC_SHAPES = {
    "explicit": f"<think>\n{FC_REASONING}\n</think>\n\n{FC_ANSWER}",
    "template_opened": f"{FC_REASONING}\n</think>\n\n{FC_ANSWER}",
    "nested": f"<think>\n<think>{FC_REASONING}</think> {FC_REASONING}\n</think>\n{FC_ANSWER}",
}


def alce_state(output: str, opened: bool | None = None) -> Any:
    meta = {k: v for k, v in ASQA_ITEM.items() if k != "docs"} | {
        "dataset": "asqa",
        "docs": [
            {"id": str(i + 1), "title": d["title"], "text": d["text"]}
            for i, d in enumerate(ASQA_ITEM["docs"])
        ],
    }
    s = state(output, meta)
    if opened is not None:
        s.output.metadata = {OPENED: opened}
    return s


def score(scorer: Any, s: Any) -> Score:
    result = asyncio.run(scorer(s, Target("")))
    assert result is not None
    return result


def assert_nan(result: Score) -> None:
    assert isinstance(result.value, dict)
    assert all(math.isnan(v) for v in result.value.values()), result.value
    assert (result.metadata or {}).get("reason") == NO_ANSWER_THINKING


# --- ALCE scorers: the first line of the answer, never of the reasoning ------------------------


@pytest.mark.parametrize("shape", ALCE_SHAPES)
def test_alce_scorers_read_the_answer_after_the_reasoning(shape):
    plain_correct = score(alce_correctness("asqa"), alce_state(ALCE_ANSWER))
    plain_cites = score(citation_nli(nli=NLI), alce_state(ALCE_ANSWER))
    thought = alce_state(ALCE_SHAPES[shape])
    correct = score(alce_correctness("asqa"), thought)
    cites = score(citation_nli(nli=NLI), thought)
    assert correct.answer == ALCE_ANSWER
    assert correct.value == plain_correct.value
    assert cites.value == plain_cites.value == {"citation_rec": 100.0, "citation_prec": 100.0}


@pytest.mark.parametrize("shape", ALCE_CUT)
def test_alce_scorers_give_nan_for_reasoning_that_never_closes(shape):
    thought = alce_state(ALCE_CUT[shape])
    assert_nan(score(alce_correctness("asqa"), thought))
    assert_nan(score(citation_nli(nli=NLI), thought))


def test_a_think_tag_quoted_in_a_finished_answer_is_answer_text():
    quoted = "Eccleston wrote <think> in the Ninth Doctor script [1]."
    for output in (quoted, f"<think>plan</think>\n{quoted}", f"plan</think>\n{quoted}"):
        correct = score(alce_correctness("asqa"), alce_state(output))
        assert correct.answer == quoted, output
        assert correct.value["length"] == len(remove_citations(quoted).split())  # type: ignore[index]
    closing = "The tag </think> closes it; Eccleston played the Ninth Doctor [1]."
    correct = score(alce_correctness("asqa"), alce_state(f"<think>plan</think>{closing}"))
    assert correct.answer == closing


def test_the_recorded_prompt_decides_what_the_output_alone_cannot():
    # The template opened <think> and generation stopped before </think>: no answer at all.
    assert_nan(score(alce_correctness("asqa"), alce_state(ALCE_REASONING, opened=True)))
    assert_nan(score(citation_nli(nli=NLI), alce_state(ALCE_REASONING, opened=True)))
    # The template did not open one: a quoted </think> is answer text, not a block's end.
    closing = "The tag </think> ends a block; Eccleston played the Ninth Doctor [1]."
    assert score(alce_correctness("asqa"), alce_state(closing, opened=False)).answer == closing
    assert score(alce_correctness("asqa"), alce_state(closing)).answer != closing  # inferred


# --- FullCite scorers: only the answer's citations count -----------------------------------------


@pytest.mark.parametrize("shape", FC_SHAPES)
def test_fullcite_scorers_count_only_the_answers_citations(shape):
    plain = score(doc_snippet_f1(), state(FC_ANSWER, FULLCITE_META))
    thought = score(doc_snippet_f1(), state(FC_SHAPES[shape], FULLCITE_META))
    assert isinstance(thought.value, dict)
    assert thought.value["n_citations"] == 1
    assert thought.value == plain.value
    answer = score(fullcite_answer("bioasq"), state(FC_SHAPES[shape], FULLCITE_META))
    assert "Tennant" not in (answer.explanation or "")


def test_fullcite_cut_reasoning_and_quoted_tags():
    cut = f"<think><think>{FC_REASONING}</think> {FC_ANSWER}"
    assert_nan(score(doc_snippet_f1(), state(cut, FULLCITE_META)))
    opened = state(FC_REASONING, FULLCITE_META)
    opened.output.metadata = {OPENED: True}
    assert_nan(score(doc_snippet_f1(), opened))
    quoted = "Eccleston wrote <think> {doc_id: a, snippet: Christopher Eccleston}."
    result = score(doc_snippet_f1(), state(quoted, FULLCITE_META))
    assert isinstance(result.value, dict) and result.value["n_citations"] == 1


# --- alce-eval and the lm-eval hooks use the same rule --------------------------------------------


def alce_items(outputs: list[str]) -> list[dict]:
    return [
        {k: v for k, v in ASQA_ITEM.items() if k != "sample_id"} | {"output": o} for o in outputs
    ]


def run_alce_eval(tmp_path: Path, name: str, outputs: list[str], capsys: Any) -> dict:
    path = tmp_path / name
    path.write_text(json.dumps({"args": {}, "data": alce_items(outputs)}))
    assert alce_eval(["--f", str(path), "--citations", "--nli", NLI]) == 0
    return json.loads(Path(f"{path}.score").read_text())


def test_alce_eval_scores_the_answer_and_leaves_out_an_output_cut_while_thinking(
    tmp_path, capsys, fresh_nli
):
    plain = run_alce_eval(tmp_path, "plain.json", [ALCE_ANSWER] * len(ALCE_SHAPES), capsys)
    outputs = [*ALCE_SHAPES.values(), ALCE_CUT["nested_cut"]]
    thought = run_alce_eval(tmp_path, "thought.json", outputs, capsys)
    assert thought.pop("no_answer_thinking") == 1
    assert thought == plain
    assert f"item {len(ALCE_SHAPES)} not scored ({NO_ANSWER_THINKING})" in capsys.readouterr().err
    assert "no_answer_thinking" not in plain  # eval.py's keys when every output answers


def test_alce_eval_refuses_a_file_without_any_answer(tmp_path, capsys):
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(alce_items([ALCE_CUT["explicit_cut"]])))
    assert alce_eval(["--f", str(path)]) == 1
    assert "every output ended while thinking" in capsys.readouterr().err


def test_lm_eval_hooks_score_the_answer(own_prompts):
    from alce_tasks.lm_eval.utils import load_asqa, process_asqa

    doc = load_asqa(dataset_path=ASQA_PATH, nli=NLI)["test"][0]
    plain = process_asqa(doc, [ALCE_ANSWER])
    assert process_asqa(doc, [ALCE_SHAPES["template_opened"]]) == plain
    assert process_asqa(doc, [ALCE_SHAPES["nested"]]) == plain
    cut = process_asqa(doc, [ALCE_CUT["nested_cut"]])
    assert set(cut) == set(plain) and all(math.isnan(v) for v in cut.values())


# --- through inspect eval -------------------------------------------------------------------------


def test_a_run_scores_template_opened_outputs_and_posthoc_keeps_reasoning_out(
    tmp_path, own_prompts
):
    model, _ = scripted_model([ALCE_SHAPES["template_opened"]])
    task = asqa(dataset_path=ASQA_PATH, nli=NLI)
    [log] = inspect_eval(task, model=model, limit=1, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    sample = log.samples[0]
    assert sample.scores["alce_correctness"].answer == ALCE_ANSWER
    assert sample.scores["citation_nli"].value == {"citation_rec": 100.0, "citation_prec": 100.0}

    model, _ = scripted_model([FC_SHAPES["template_opened"]])
    task = fullcite_asqa(
        dataset_path=ASQA_PATH,
        spans_path=str(FIXTURES / "fullcite_asqa_spans.jsonl"),
        similarity_model=None,
        strategy="posthoc",
    )
    [log] = inspect_eval(task, model=model, limit=1, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    sample = log.samples[0]
    records = sample.metadata["posthoc"]["citations"]
    assert [r["doc_id"] for r in records] == ["a"]  # the reasoning's citation is not aligned
    assert sample.output.metadata[OPENED] is False  # rewritten: all answer
    assert sample.scores["doc_snippet_f1"].value["n_citations"] == 1


# --- hf/: the prompt's own <think> is recorded on the output ---------------------------------------

# A template that always opens <think> in the generation prompt (DeepSeek-R1 distills, QwQ,
# Qwen3-*-Thinking-2507): the enable_thinking switch does not change it.
OPENING_TEMPLATE = (
    QWEN3_CHAT_TEMPLATE.split("{%- if add_generation_prompt %}")[0]
    + "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n<think>\\n' }}{%- endif %}"
)


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory) -> dict[str, Path]:
    corpus = fixture_corpus()
    return {
        name: build_tiny_qwen3(tmp_path_factory.mktemp(name), corpus, chat_template=template)
        for name, template in (("opening", OPENING_TEMPLATE), ("qwen3", QWEN3_CHAT_TEMPLATE))
    }


def hf_run(path: Path, tmp_path: Path) -> Any:
    model = get_model(
        "hf/tiny",
        model_path=str(path),
        device="cpu",
        config=GenerateConfig(seed=7),
        memoize=False,
    )
    task = asqa(dataset_path=ASQA_PATH, nli=NLI)
    [log] = inspect_eval(task, model=model, limit=1, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    return log.samples[0]


def test_hf_output_of_a_prompt_that_opened_think_is_reasoning_until_closed(
    tiny_models, tmp_path, own_prompts
):
    sample = hf_run(tiny_models["opening"], tmp_path)
    assert sample.output.metadata[OPENED] is True
    assert "</think>" not in sample.output.completion and sample.output.completion.strip()
    for name in ("alce_correctness", "citation_nli"):
        assert sample.scores[name].metadata["reason"] == NO_ANSWER_THINKING
        assert all(math.isnan(v) for v in sample.scores[name].value.values())

    sample = hf_run(tiny_models["qwen3"], tmp_path)  # thinking off: the block is closed
    assert sample.output.metadata[OPENED] is False
    assert sample.scores["alce_correctness"].metadata is None or (
        sample.scores["alce_correctness"].metadata.get("reason") != NO_ANSWER_THINKING
    )
