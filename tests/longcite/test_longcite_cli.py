"""longcite_tasks/longbench_cite by its registry name through Inspect's CLI, on the installed plugin.

Skipped, as the other CLI tests, when the installed copy is missing or stale (and failed under
INSPECT_CITE_REQUIRE_INSTALLED=1). The model under test and the grader are a tiny random Qwen3;
LongCite's files are own-words stand-ins (INSPECT_CITE_LONGCITE_DIR), the tokenizer is off.
Inspect's ``hf`` provider samples unless ``do_sample=false``, and rejects the temperature 0 that
LongCite's graders ask for: bound plainly, every grader call raises.
"""

import json
import math
import os
import subprocess

import pytest

from tests.cli.test_cli_e2e import INSPECT, installed_problem, read_log, run
from tests.helpers.longcite_files import write_longcite_files
from tests.longcite.fixtures import DATA

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def require_installed():
    problem = installed_problem()
    if problem:
        if os.environ.get("INSPECT_CITE_REQUIRE_INSTALLED") == "1":
            pytest.fail(problem)
        pytest.skip(problem)


def eval_args(tiny_qwen3, grader: str, log_dir) -> list[str]:
    model = ["hf/tiny", "-M", f"model_path={tiny_qwen3}", "-M", "device=cpu"]
    return [
        INSPECT, "eval", "longcite_tasks/longbench_cite", "--model", *model,
        "--model-role", f"grader={grader}", "-T", f"dataset_path={DATA}",
        "-T", "tokenizer=null", "-T", "datasets=hotpotqa", "--max-tokens", "10",
        "--log-dir", str(log_dir), "--display", "plain",
    ]  # fmt: skip


def test_longbench_cite_by_registry_name(tiny_qwen3, cache_root, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CITE_LONGCITE_DIR", str(write_longcite_files(tmp_path / "lc")))
    log_dir = tmp_path / "logs"
    # Greedy decoding, which takes LongCite's temperature 0.
    grader = {"model": f"hf/{tiny_qwen3}", "model_args": {"device": "cpu", "do_sample": False}}
    # Correctness off: greedy replies of 1,024 tokens, 5 tries a reference, take minutes on a CPU.
    args = [*eval_args(tiny_qwen3, json.dumps(grader), log_dir), "-T", "correctness=false"]
    run(args, cwd=tmp_path, cache=cache_root)
    log = read_log(log_dir)
    assert log.status == "success"
    assert log.eval.task == "longcite_tasks/longbench_cite"
    assert len(log.samples) == 2
    names = {s.name for s in log.results.scores}
    assert {"citation_recall", "citation_f1", "citation_length"} <= names
    # Inspect's headline (the first score's first metric) is LongCite's averaged citation F1.
    assert log.results.scores[0].name == "citation_f1"
    assert next(iter(log.results.scores[0].metrics)).endswith("longbench_cite")
    # A random grader's replies are unreadable (the sample's reason), or the length is off.
    score = log.samples[0].scores["longcite_citation"]
    assert math.isnan(score.value["citation_length"])
    why = score.metadata.get("reason") or score.metadata["reasons"]["citation_length"]
    assert "unreadable" in why or "tokenizer=null" in why


def test_a_grader_that_raises_is_no_score(tiny_qwen3, cache_root, tmp_path, monkeypatch):
    """The finding: every grader call failed, and correctness read 50.000 +- 0.000."""
    monkeypatch.setenv("INSPECT_CITE_LONGCITE_DIR", str(write_longcite_files(tmp_path / "lc")))
    log_dir = tmp_path / "logs"
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "INSPECT_CITE_CACHE_DIR": str(cache_root),
        "PYTHONPATH": "",
    }
    args = [*eval_args(tiny_qwen3, f"hf/{tiny_qwen3}", log_dir), "--limit", "1"]
    proc = subprocess.run(
        args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    logs = sorted(log_dir.glob("*.eval"))
    if not logs:  # refused before the run: a grader that cannot answer, named
        assert proc.returncode != 0 and "grader" in proc.stdout + proc.stderr
        return
    log = read_log(log_dir)
    assert log.status == "error", log.results
    assert "temperature" in log.error.message
    assert not log.results or not any(s.name == "correctness" for s in log.results.scores)
