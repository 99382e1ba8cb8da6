"""``inspect-cite check --model-role`` as ``inspect eval`` takes it (issue 52, item 8).

``inspect eval`` loads the model under test, then each role's model, and only then builds the
task: a role's model that cannot be had stopped a run with a traceback after the model under
test had loaded, while ``check`` (which took only the role's name) said ok. ``check`` now reads
each role's model as Inspect does, checks it without loading it, hands it to the task's own
role checks, and names every problem in one message. Through the installed CLI.
"""

from pathlib import Path

import pytest

from tests.cli.test_cli_e2e import INSPECT, require_installed  # noqa: F401
from tests.cli.test_preflight_cli import run_cli
from tests.conftest import FIXTURES
from tests.helpers.longcite_files import write_longcite_files
from tests.longcite.fixtures import DATA as LONGCITE_DATA
from tests.robustness.test_preflight import own_prompt_file

pytestmark = pytest.mark.slow

CHECK = str(Path(INSPECT).with_name("inspect-cite"))


def asqa_args(tmp_path: Path, dataset: Path = FIXTURES / "alce_asqa.json") -> list[str]:
    return ["-T", f"dataset_path={dataset}", "-T", f"prompt_file={own_prompt_file(tmp_path)}"]


def test_a_role_model_that_cannot_be_had_is_refused_with_every_other_problem(tmp_path):
    missing = tmp_path / "nope"
    args = [CHECK, "check", "alce_tasks/asqa", *asqa_args(tmp_path, tmp_path / "x.json")]
    args += ["-T", "nli=model:grader", "--model-role", f"grader=hf/{missing}"]
    proc = run_cli(args, tmp_path)
    assert proc.returncode == 1 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("2 problems stop this run:\n")
    assert f"1. --model-role grader=hf/{missing}: directory {missing} does not exist." in (
        proc.stderr
    )
    assert "Give a causal LM: --model-role grader=hf//abs/dir or a cached hub id." in proc.stderr
    assert f"2. dataset file {tmp_path / 'x.json'} does not exist" in proc.stderr


def test_roles_are_read_as_inspect_eval_reads_them(tmp_path):
    args = [CHECK, "check", "alce_tasks/asqa", *asqa_args(tmp_path), "-T", "nli=model:grader"]
    for role in ("grader=mockllm/model", "grader={model: mockllm/model, temperature: 0.5}"):
        proc = run_cli([*args, "--model-role", role], tmp_path)
        assert (proc.returncode, proc.stdout.strip()) == (0, "ok: alce_tasks/asqa: 3 samples")
    proc = run_cli([*args, "--model-role", "grader={temperature: 0.5}"], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "--model-role grader={temperature: 0.5}: expected ROLE=MODEL, ROLE=MODEL,MODEL or "
        "ROLE={model: MODEL, model_args: {...}}"
    )
    # An API model's client is made as Inspect makes it (its key), nothing is sent.
    proc = run_cli([*args, "--model-role", "grader=openai/gpt-4o"], tmp_path, OPENAI_API_KEY="")
    assert proc.returncode == 1 and "--model-role grader=openai/gpt-4o: " in proc.stderr
    assert "OPENAI_API_KEY" in proc.stderr
    # A role the task needs and no --model-role binds: as before.
    proc = run_cli(args, tmp_path)
    assert proc.returncode == 1 and "no model is bound to the role 'grader'" in proc.stderr


def test_an_hf_grader_longcite_asks_at_temperature_0_is_refused(tmp_path, tiny_qwen3):
    env = {"INSPECT_CITE_LONGCITE_DIR": str(write_longcite_files(tmp_path / "lc"))}
    args = [CHECK, "check", "longcite_tasks/longbench_cite", "-T", f"dataset_path={LONGCITE_DATA}"]
    args += ["-T", "tokenizer=null"]
    proc = run_cli([*args, "--model-role", f"grader=hf/{tiny_qwen3}"], tmp_path, **env)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == (
        f"--model-role grader=hf/{tiny_qwen3}: longcite_tasks/longbench_cite asks the 'grader' "
        "role at temperature 0, and the hf/ provider samples, and cannot sample at a temperature "
        "of 0.\nPass do_sample=false to decode greedily: --model-role "
        f"'grader={{model: hf/{tiny_qwen3}, model_args: {{do_sample: false}}}}'."
    )
    greedy = f"grader={{model: hf/{tiny_qwen3}, model_args: {{do_sample: false}}}}"
    proc = run_cli([*args, "--model-role", greedy], tmp_path, **env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: longcite_tasks/longbench_cite: ")
