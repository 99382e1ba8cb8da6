"""``inspect-cite lm-eval-check``: the lm-eval tasks built with their options and no model.

Issue 40, item 12: ``lm_eval run`` loads its model before any task can refuse its options, so
a refusal came only after the model had loaded; this command builds the same tasks through
lm-eval's TaskManager first.
"""

import json

from inspect_cite.app import cli
from tests.alce.test_lm_eval import NLI
from tests.conftest import FIXTURES

ASQA = str(FIXTURES / "alce_asqa.json")


def test_lm_eval_check_builds_the_tasks_without_a_model(own_prompts, tiny_qwen3, capsys):
    args = ["lm-eval-check", "--tasks", "alce_asqa", "--metadata", f"dataset_path={ASQA}"]
    assert cli.main([*args, f"nli={NLI}", "--model_args", f"pretrained={tiny_qwen3}"]) == 0
    assert capsys.readouterr().out.strip() == "ok: alce_asqa: 3 samples, n-shot 2"
    metadata = json.dumps({"dataset_path": ASQA, "nli": NLI, "shot": 1})
    assert cli.main(["lm-eval-check", "--tasks", "alce_asqa", "--metadata", metadata]) == 0
    assert capsys.readouterr().out.strip() == "ok: alce_asqa: 3 samples, n-shot 1"


def test_lm_eval_check_prints_the_refusal_alone(own_prompts, tmp_path, capsys):
    missing = tmp_path / "nope.json"
    args = ["lm-eval-check", "--tasks", "alce_qampari", "--metadata", f"dataset_path={missing}"]
    assert cli.main([*args, f"nli={NLI}"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == f"dataset file {missing} does not exist (--metadata dataset_path)"
    assert cli.main(["lm-eval-check", "--tasks", "alce_asq"]) == 1
    assert (
        capsys.readouterr().err.strip().endswith("; its tasks: alce_asqa, alce_eli5, alce_qampari")
    )
    assert cli.main(["lm-eval-check", "--tasks", "alce_asqa", "--metadata", "{nli"]) == 1
    assert capsys.readouterr().err.startswith("--metadata {nli: not a JSON object")
