"""An ``hf/`` grader LongCite's scorers would ask at temperature 0 is refused before the run
(issue 52, item 8): transformers cannot sample at 0, and Inspect's ``hf/`` provider samples
unless its model is loaded with ``do_sample=false``; every grading would fail after the model
under test had answered every sample."""

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from inspect_cite.checks.errors import PreflightError
from longcite_tasks import longbench_cite
from tests.longcite.fixtures import DATA

TASK_ARGS = {"dataset_path": str(DATA), "tokenizer": None}


def build(grader, tmp_path):
    return inspect_eval(
        longbench_cite,
        task_args=TASK_ARGS,
        model="mockllm/model",
        model_roles={"grader": grader},
        run_samples=False,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )


def test_a_sampling_hf_grader_is_refused_while_the_task_is_built(
    longcite_files, tiny_qwen3, tmp_path
):
    with pytest.raises(PreflightError) as refused:
        build(get_model(f"hf/{tiny_qwen3}", device="cpu"), tmp_path)
    message = str(refused.value)
    assert message.startswith(f"--model-role grader=hf/{tiny_qwen3}: ")
    assert "asks the 'grader' role at temperature 0" in message
    assert "the hf/ provider samples, and cannot sample at a temperature of 0" in message
    assert "model_args: {do_sample: false}" in message


def test_a_greedy_hf_grader_passes(longcite_files, tiny_qwen3, tmp_path):
    grader = get_model(f"hf/{tiny_qwen3}", device="cpu", do_sample=False)
    [log] = build(grader, tmp_path)
    assert log.error is None and log.eval.model_roles["grader"].args["do_sample"] is False
