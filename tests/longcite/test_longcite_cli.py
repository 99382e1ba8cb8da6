"""longcite_tasks/longbench_cite by its registry name through Inspect's CLI, on the installed plugin.

Skipped, as the other CLI tests, when the installed copy is missing or stale (and failed under
INSPECT_CITE_REQUIRE_INSTALLED=1). The model under test is a tiny random Qwen3, the grader
Inspect's mockllm (an hf/ grader must decode greedily, and a random one then writes its 1,024
tokens on every try: tests/longcite/test_grader_sampling.py checks that one); LongCite's files
are own-words stand-ins (INSPECT_CITE_LONGCITE_DIR), the tokenizer is off.
"""

import math
import os

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


def test_longbench_cite_by_registry_name(tiny_qwen3, cache_root, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CITE_LONGCITE_DIR", str(write_longcite_files(tmp_path / "lc")))
    log_dir = tmp_path / "logs"
    model = ["hf/tiny", "-M", f"model_path={tiny_qwen3}", "-M", "device=cpu"]
    run(
        [
            INSPECT, "eval", "longcite_tasks/longbench_cite", "--model", *model,
            "--model-role", "grader=mockllm/model", "-T", f"dataset_path={DATA}",
            "-T", "tokenizer=null", "-T", "datasets=hotpotqa", "--max-tokens", "10",
            "--log-dir", str(log_dir), "--display", "plain",
        ],
        cwd=tmp_path,
        cache=cache_root,
    )  # fmt: skip
    log = read_log(log_dir)
    assert log.status == "success"
    assert log.eval.task == "longcite_tasks/longbench_cite"
    assert len(log.samples) == 2
    names = {s.name for s in log.results.scores}
    assert {"citation_recall", "citation_f1", "citation_length", "correctness"} <= names
    # Inspect's headline (the first score's first metric) is LongCite's averaged citation F1.
    assert log.results.scores[0].name == "citation_f1"
    assert next(iter(log.results.scores[0].metrics)).endswith("longbench_cite")
    # The stand-in grader's replies are unreadable (the sample's reason), or the length is off.
    score = log.samples[0].scores["longcite_citation"]
    assert math.isnan(score.value["citation_length"])
    why = score.metadata.get("reason") or score.metadata["reasons"]["citation_length"]
    assert "unreadable" in why or "tokenizer=null" in why
