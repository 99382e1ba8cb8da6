"""The baselines and MAUVE through the inspect CLI (--solver, inspect score)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from inspect_cite.app.log_metrics import log_metrics
from tests.conftest import FIXTURES, ROOT, fixture_corpus

INSPECT = str(Path(sys.executable).with_name("inspect"))


def _inspect(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [INSPECT, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


@pytest.mark.slow
def test_solver_flag_and_mauve_rescoring(own_prompts, tiny_qwen3, tmp_path):
    from tests.helpers.tiny_eval_models import build_tiny_gpt2

    gpt2 = build_tiny_gpt2(tmp_path / "tiny-gpt2", fixture_corpus())
    logs = tmp_path / "logs"
    _inspect(
        "eval",
        "alce_tasks/eli5.py@eli5",
        "-T",
        f"dataset_path={FIXTURES / 'alce_eli5.json'}",
        "-T",
        f"nli=python:{ROOT / 'tests' / 'helpers' / 'nli_fns.py'}:word_entail",
        "--solver",
        "solvers/alce_baselines.py@alce_closedbook",
        "-S",
        "shot=1",
        "--model",
        "hf/tiny",
        "-M",
        f"model_path={tiny_qwen3}",
        "-M",
        "device=cpu",
        "--max-tokens",
        "8",
        "--log-dir",
        str(logs),
        "--display",
        "plain",
    )
    [info] = list_eval_logs(str(logs))
    log = read_eval_log(info)
    assert log.status == "success"
    assert "alce_closedbook" in str(log.eval.solver)
    assert log.eval.solver_args == {"shot": 1}
    sample = log.samples[0]
    assert sample.metadata["docs"] == []
    assert "Document [" not in sample.messages[1].text.split("Question:")[-1]

    _inspect(
        "score",
        info.name,
        "--scorer",
        "scorers/mauve.py@mauve",
        "-S",
        f"mauve_model={gpt2}",
        "-S",
        "device=cpu",
        "-S",
        "mauve_seeds=2",
        "--action",
        "append",
        "--overwrite",
        "--display",
        "plain",
    )
    rescored = read_eval_log(info)
    metrics = set(log_metrics(rescored)["mauve"])
    assert {"mauve_corpus_mean", "mauve_corpus_std", "mauve_corpus_min"} <= metrics
    assert "mauve_features" in rescored.samples[0].scores["mauve"].metadata
