"""The lm-evaluation-harness route's refusals, task files and offline use (issue 40, item 12).

Refusals name the ``--metadata`` key (lm-eval has no ``-T``), come all at once and end the
``lm_eval`` command with the message alone; ``length`` and ``num_preds`` have no direction;
the prompt carries the demonstrations, so lm-eval adds none (``num_fewshot: 0``, even with
``--num_fewshot``) and its n-shot column shows them; ``INSPECT_CITE_ALCE_DATA_DIR`` and
``INSPECT_CITE_ALCE_PROMPT_DIR`` run the three tasks offline in one call. Patterns of tests/alce/test_lm_eval.py (a scripted LM).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from alce_tasks.lm_eval import CONFIG_DIR
from inspect_cite.alce.prompts import PROMPT_DIR_ENV
from inspect_cite.app.log_metrics import (
    HIGHER_IS_BETTER,
    LOWER_IS_BETTER,
    NO_DIRECTION,
    metric_direction,
)
from inspect_cite.checks.errors import PreflightError
from tests.alce.test_lm_eval import NLI, ScriptedLM
from tests.conftest import FIXTURES, ROOT

DATASETS = ("asqa", "qampari", "eli5")


class TaskFileLoader(yaml.SafeLoader):
    """Reads lm-eval task files; ``!function`` references stay text."""


TaskFileLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def task_file(dataset: str) -> dict:
    return yaml.load((CONFIG_DIR / f"alce_{dataset}.yaml").read_text(), Loader=TaskFileLoader)


@pytest.mark.parametrize("dataset", DATASETS)
def test_each_metric_direction_is_the_projects(dataset):
    expected = {HIGHER_IS_BETTER: True, LOWER_IS_BETTER: False, NO_DIRECTION: None}
    metrics = task_file(dataset)["metric_list"]
    assert {m["metric"]: m["higher_is_better"] for m in metrics} == {
        m["metric"]: expected[metric_direction(m["metric"])] for m in metrics
    }
    assert task_file(dataset)["num_fewshot"] == 0


class RecordingLM(ScriptedLM):
    """A ScriptedLM that keeps every prompt it was sent."""

    def __init__(self, by_question: dict[str, str]) -> None:
        super().__init__(by_question)
        self.prompts: list[str] = []

    def generate_until(self, requests, disable_tqdm: bool = False) -> list[str]:
        self.prompts += [req.args[0] for req in requests]
        return super().generate_until(requests, disable_tqdm)


def fixture_answers() -> dict[str, str]:
    return {
        item["question"]: "An answer [1]."
        for dataset in DATASETS
        for item in json.loads((FIXTURES / f"alce_{dataset}.json").read_text())
    }


def evaluate(tasks: list[str], metadata: dict, **kwargs):
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    lm = RecordingLM(fixture_answers())
    results = simple_evaluate(
        model=lm,
        tasks=tasks,
        task_manager=TaskManager(include_path=str(CONFIG_DIR), metadata={"nli": NLI, **metadata}),
        bootstrap_iters=0,
        **kwargs,
    )
    return lm, results


def test_num_fewshot_adds_no_examples_to_the_prompt(own_prompts):
    from alce_tasks.lm_eval.utils import load_eli5

    data = str(FIXTURES / "alce_eli5.json")
    lm, results = evaluate(["alce_eli5"], {"dataset_path": data}, num_fewshot=5)
    built = load_eli5(dataset_path=data, nli=NLI)["test"]["prompt"]
    assert sorted(lm.prompts) == sorted(built)
    # n-shot: the demonstrations in the prompt (shot=2), neither 0 nor --num_fewshot.
    assert results["n-shot"]["alce_eli5"] == 2


def test_the_three_tasks_run_offline_in_one_call_from_the_data_and_prompt_folders(
    own_prompts, cache_root, tmp_path, monkeypatch
):
    data_dir = tmp_path / "ALCE-data"
    data_dir.mkdir()
    for dataset, name in (
        ("asqa", "asqa_eval_gtr_top100.json"),
        ("qampari", "qampari_eval_gtr_top100.json"),
        ("eli5", "eli5_eval_bm25_top100.json"),
    ):
        (data_dir / name).write_bytes((FIXTURES / f"alce_{dataset}.json").read_bytes())
    monkeypatch.setenv("INSPECT_CITE_ALCE_DATA_DIR", str(data_dir))
    lm, results = evaluate([f"alce_{d}" for d in DATASETS], {})
    assert set(results["results"]) == {f"alce_{d}" for d in DATASETS}
    assert len(lm.prompts) == sum(
        len(json.loads((FIXTURES / f"alce_{d}.json").read_text())) for d in DATASETS
    )


@pytest.fixture
def offline(cache_root, monkeypatch):
    """An empty cache, no prompt or data folder, no network."""

    def unreachable(url, *args, **kwargs):
        raise ConnectionError(f"cannot connect to {url.split('/')[2]}")

    monkeypatch.delenv(PROMPT_DIR_ENV, raising=False)
    monkeypatch.delenv("INSPECT_CITE_ALCE_DATA_DIR", raising=False)
    monkeypatch.setattr("inspect_cite.downloads.hub_files.ensure_reachable", unreachable)
    return cache_root


def test_every_refusal_names_its_metadata_key_at_once(offline):
    from alce_tasks.lm_eval.utils import load_asqa

    with pytest.raises(PreflightError) as refused:
        load_asqa(nli="bogus:x")
    message = str(refused.value)
    assert message.startswith("3 problems stop this run:")
    assert "pass --metadata dataset_path=<path to asqa_eval_gtr_top100.json>" in message
    assert "pass --metadata prompt_file=PATH" in message
    assert "--metadata nli=bogus:x: unknown NLI spec" in message
    assert "-T " not in message


def test_a_bad_data_or_prompt_file_names_its_metadata_key(own_prompts, tmp_path):
    from alce_tasks.lm_eval.utils import load_qampari

    with pytest.raises(PreflightError) as refused:
        load_qampari(dataset_path=str(tmp_path / "nope.json"), nli=NLI)
    assert str(refused.value) == (
        f"dataset file {tmp_path / 'nope.json'} does not exist (--metadata dataset_path)"
    )
    bad = tmp_path / "prompt.json"
    bad.write_text("{}")
    with pytest.raises(PreflightError, match=r"\(--metadata prompt_file\)$"):
        load_qampari(
            dataset_path=str(FIXTURES / "alce_qampari.json"), prompt_file=str(bad), nli=NLI
        )


def test_lm_eval_prints_a_refusal_alone(own_prompts, tmp_path):
    env = {
        **os.environ,
        "INSPECT_CITE_CACHE_DIR": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(ROOT),
    }
    metadata = {"dataset_path": str(tmp_path / "nope.json"), "nli": NLI}
    proc = subprocess.run(
        [
            str(Path(sys.executable).with_name("lm_eval")), "run", "--model", "dummy",
            "--include_path", str(CONFIG_DIR), "--tasks", "alce_eli5",
            "--metadata", json.dumps(metadata),
        ],
        env=env, capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert f"dataset file {tmp_path / 'nope.json'} does not exist (--metadata dataset_path)" in (
        proc.stderr
    )
