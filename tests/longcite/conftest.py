"""Shared setup of the LongBench-Cite tests: own-words LongCite files, scripted models."""

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import EvalLog

from longcite_tasks.data import item_samples
from solvers.longcite_one_shot import longcite_one_shot
from tests.helpers.evals import eval_one
from tests.helpers.longcite_files import write_longcite_files
from tests.helpers.longcite_grader import ScriptedGrader, citation_key
from tests.helpers.scripted_models import scripted_model, scripted_output
from tests.longcite.fixtures import answers, items


@pytest.fixture
def longcite_files(tmp_path, monkeypatch) -> Path:
    """LongCite-format prompt and scorer files in the project's words, read instead of LongCite's."""
    folder = write_longcite_files(tmp_path / "longcite")
    monkeypatch.setenv("INSPECT_CITE_LONGCITE_DIR", str(folder))
    monkeypatch.setenv("INSPECT_CITE_CACHE_DIR", str(tmp_path / "cache"))
    return folder


@pytest.fixture(scope="session")
def word_tokenizer(tmp_path_factory) -> Path:
    """A tokenizer counting one token per whitespace-separated word (make_expected.py's)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel(vocab={"[UNK]": 0}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    folder = tmp_path_factory.mktemp("word-tokenizer")
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(folder)
    return folder


class RecordingGrader:
    """The scripted grader as an Inspect model, recording each call's settings per question."""

    def __init__(self) -> None:
        self.script = ScriptedGrader()
        self.calls: dict[str, list[list[Any]]] = defaultdict(list)
        self.model, _ = scripted_model(self.respond)

    def respond(self, input: list[Any], tools: Any, tool_choice: Any, config: Any) -> Any:
        prompt = input[-1].text
        key = citation_key(prompt)
        stop = (
            config.stop_seqs[0]
            if config.stop_seqs and len(config.stop_seqs) == 1
            else config.stop_seqs
        )
        self.calls[key[1] if key else "correctness"].append(
            [config.temperature, config.max_tokens, stop]
        )
        return scripted_output(self.script.reply(prompt))


def answering_model() -> Any:
    """The model under test: answers each fixture question with its fixed answer."""
    by_question = {item["query"]: answers()[item["idx"]] for item in items()}

    def respond(input: list[Any], *args: Any) -> Any:
        prompt = input[-1].text
        [answer] = [a for q, a in by_question.items() if q in prompt]
        return scripted_output(answer)

    model, _ = scripted_model(respond)
    return model


def run_fixture(scorers: Any, log_dir: Path, grader: RecordingGrader | None = None) -> EvalLog:
    """The fixture items answered with their fixed answers, scored by ``scorers``."""
    grader = grader or RecordingGrader()
    task = Task(
        dataset=MemoryDataset(item_samples(items())),
        solver=longcite_one_shot(),
        scorer=scorers,
    )
    return eval_one(
        task, answering_model(), model_roles={"grader": grader.model}, log_dir=str(log_dir)
    )
