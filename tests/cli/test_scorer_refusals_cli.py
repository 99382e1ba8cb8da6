"""``inspect score --scorer scorers/<name> -S ...`` prints the scorer's own refusal.

Inspect's scorer loader reads a ``ValueError`` raised while it builds a scorer given by registry
name as "couldn't be loaded" and raises its own error in its place; the project's exception hook
(``inspect_cite.checks.errors``) prints the refusal that error replaced. Run through the installed
``inspect`` in subprocesses, outside the repository, as a user runs it.
"""

import json
import os
import subprocess

import pytest

from alce_tasks import asqa
from tests.cli.test_cli_e2e import INSPECT, NLI, require_installed
from tests.conftest import FIXTURES
from tests.helpers.evals import eval_one
from tests.helpers.scripted_models import scripted_model

pytestmark = pytest.mark.slow
__all__ = ["require_installed"]  # the module fixture that skips a stale install

OTHER_JUDGE = "python:/elsewhere/judge.py:entails"


@pytest.fixture(scope="module")
def scored_log(tmp_path_factory, alce_prompt_dir):
    """An ASQA log to rescore, and a folder holding calibration files."""
    from inspect_cite.alce.prompts import PROMPT_DIR_ENV

    folder = tmp_path_factory.mktemp("refusals")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(PROMPT_DIR_ENV, str(alce_prompt_dir))
        mp.setenv("INSPECT_CITE_CACHE_DIR", str(folder / "cache"))
        task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
        outputs = ["The first document says so [1]. Nothing cited here."]
        log = eval_one(task, scripted_model(outputs)[0], limit=1, log_dir=str(folder / "logs"))
    row = {"data": "jsonl", "subset": "all", "tp": 40, "fp": 10, "tn": 40, "fn": 10}
    (folder / "other_judge.json").write_text(
        json.dumps({"judges": [{"nli": OTHER_JUDGE, "datasets": [row]}]})
    )
    (folder / "this_judge.json").write_text(
        json.dumps({"judges": [{"nli": NLI, "datasets": [row]}]})
    )
    (folder / "not_calibration.json").write_text(json.dumps({"rows": []}))
    return log.location, folder


CASES = [
    # (scorer, its -S arguments with {dir} for the folder, what the message must say)
    (
        "scorers/citation_nli",
        [f"nli={NLI}", "calibration={dir}/missing.json"],
        "calibration file {dir}/missing.json does not exist",
    ),
    (
        "scorers/citation_nli",
        [f"nli={NLI}", "calibration={dir}/not_calibration.json"],
        'not_calibration.json has no "judges" list',
    ),
    (
        "scorers/citation_nli",
        [f"nli={NLI}", "calibration={dir}/this_judge.json#jsonl/nosuch"],
        "no jsonl/nosuch for",
    ),
    (
        "scorers/citation_nli",
        [f"nli={NLI}", "calibration={dir}/other_judge.json"],
        f"it measures the judges {OTHER_JUDGE}, not {NLI}",
    ),
    ("scorers/citation_bias", ["max_positions=0"], "max_positions must be at least 1, got 0"),
    ("scorers/alce_correctness", ["dataset=asqb"], "dataset must be one of asqa, qampari, eli5"),
    ("scorers/citation_nli", ["nli=nosuchkind:x"], "nli"),
    # A scorer that takes no options (it raised Python's TypeError, a traceback).
    (
        "scorers/doc_snippet_f1",
        ["min_rouge=5"],
        "unexpected keyword argument 'min_rouge' for doc_snippet_f1; it takes no options",
    ),
]


@pytest.mark.parametrize(("scorer", "args", "message"), CASES)
def test_inspect_score_prints_the_scorers_refusal(scored_log, tmp_path, scorer, args, message):
    log, folder = scored_log
    command = [INSPECT, "score", log, "--scorer", scorer]
    for arg in args:
        command += ["-S", arg.format(dir=folder)]
    command += ["--action", "append", "--output-file", str(tmp_path / "out.eval")]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": ""}
    env["INSPECT_CITE_CACHE_DIR"] = str(folder / "cache")
    proc = subprocess.run(
        [*command, "--display", "plain"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert message.format(dir=folder) in proc.stderr, proc.stdout + proc.stderr
    # The refusal alone: neither Inspect's "couldn't be loaded" nor a traceback.
    assert "couldn't be loaded" not in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out.eval").exists()


def test_python_callers_still_get_a_value_error(tmp_path):
    """Building the scorer in Python raises the refusal itself, a ValueError as before."""
    from scorers.citation_nli import citation_nli

    with pytest.raises(ValueError, match="does not exist"):
        citation_nli(nli=NLI, calibration=str(tmp_path / "missing.json"))
