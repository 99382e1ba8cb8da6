"""Running Inspect evals in-process for tests: no display, and a failed run fails the test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.solver import generate

from tests.helpers.scripted_models import scripted_model, scripted_output


def eval_one(task: Task, model: Any, **eval_args: Any) -> EvalLog:
    """Runs one task and returns its log, which must have succeeded."""
    [log] = inspect_eval(task, model=model, display="none", **eval_args)
    assert log.status == "success", log.error
    return log


def score_answers(
    samples: Sequence[Sample],
    answers: Mapping[str, str],
    scorers: Any,
    *,
    log_dir: str,
    **eval_args: Any,
) -> EvalLog:
    """Scores scripted answers: each sample's output is ``answers[<its input text>]``."""

    def respond(input: list[Any], *args: Any) -> Any:
        return scripted_output(answers[input[-1].text])

    model, _ = scripted_model(respond)
    task = Task(dataset=MemoryDataset(list(samples)), solver=generate(), scorer=scorers)
    return eval_one(task, model, log_dir=log_dir, **eval_args)
