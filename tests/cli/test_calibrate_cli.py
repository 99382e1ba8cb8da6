"""``inspect-cite calibrate`` and ``inspect score -S calibration`` as a user runs them: the installed
console script and Inspect's CLI in subprocesses, outside the repository."""

import json

import pytest
from inspect_ai.log import read_eval_log

from alce_tasks import asqa
from inspect_cite.app.human_labels import NO_EVIDENCE
from tests.cli.test_cli_e2e import INSPECT, INSPECT_CITE, NLI, require_installed, run
from tests.conftest import FIXTURES
from tests.helpers.evals import eval_one
from tests.helpers.human_label_files import write_attributionbench
from tests.helpers.scripted_models import scripted_model

pytestmark = pytest.mark.slow
__all__ = ["require_installed"]  # the module fixture that skips a stale install


def test_installed_calibrate_writes_its_outputs(tmp_path, cache_root):
    data = write_attributionbench(tmp_path / "dev.jsonl")
    out = tmp_path / "out"
    args = [INSPECT_CITE, "calibrate", "--nli", NLI, "--data", "attributionbench"]
    proc = run([*args, "--data-path", str(data), "--out", str(out)], cwd=tmp_path, cache=cache_root)
    # Seven claims, one without references: left out, with the reason.
    assert "| attributionbench | all | 6 |" in proc.stdout
    assert f"1 {NO_EVIDENCE}" in proc.stdout
    result = json.loads((out / "calibration.json").read_text())
    [row] = [r for r in result["judges"][0]["datasets"] if r["subset"] == "all"]
    assert row["n"] == 6 and row["abstain"] == 0
    assert (out / "calibration.md").is_file() and (out / "calibration.png").is_file()
    lines = (out / "judgements.jsonl").read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines] == [0, 1, 2, 3, 4, 6]


def test_inspect_score_takes_a_calibration_by_registry_name(tmp_path, cache_root, own_prompts):
    outputs = ["The first document says so [1]. Nothing cited here."] * 2
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
    log = eval_one(task, scripted_model(outputs)[0], limit=2, log_dir=str(tmp_path / "logs"))
    row = {"data": "jsonl", "subset": "all", "tp": 40, "fp": 10, "tn": 40, "fn": 10}
    calibration = tmp_path / "calibration.json"
    calibration.write_text(json.dumps({"judges": [{"nli": NLI, "datasets": [row]}]}))
    args = [INSPECT, "score", log.location, "--scorer", "scorers/citation_nli"]
    args += ["-S", f"nli={NLI}", "-S", f"calibration={calibration}#jsonl"]
    run([*args, "--overwrite", "--action", "overwrite"], cwd=tmp_path, cache=cache_root)
    metrics = {s.name: s.metrics for s in read_eval_log(log.location).results.scores}
    names = {key.split("/")[-1] for key in metrics["citation_rec"]}
    assert {"mean", "stderr", "corrected_mean", "corrected_low", "corrected_high"} <= names


def test_two_files_of_one_dataset_are_calibrated_and_selected_by_name(
    tmp_path, cache_root, own_prompts
):
    """AttributionBench's in- and out-of-distribution files as two --data, then one selected."""
    from tests.helpers.human_label_files import attributionbench_row, write_jsonl

    rows = [attributionbench_row("w1 w2", ["w1 w2 w3"], 1, "LFQA", i) for i in range(30)]
    rows += [attributionbench_row("w1 w9", ["w1 w2 w3"], 0, "LFQA", 30 + i) for i in range(30)]
    ind = write_jsonl(tmp_path / "test_all_subset_balanced_sampled500.jsonl", rows)
    ood = write_jsonl(tmp_path / "test_ood_all_subset_balanced.jsonl", rows[:40] + rows[45:])
    out = tmp_path / "cal"
    args = [INSPECT_CITE, "calibrate", "--nli", NLI]
    for path in (ind, ood):
        args += ["--data", "attributionbench", "--data-path", str(path)]
    run([*args, "--out", str(out)], cwd=tmp_path, cache=cache_root)
    outputs = ["The first document says so [1]. Nothing cited here."] * 2
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
    log = eval_one(task, scripted_model(outputs)[0], limit=2, log_dir=str(tmp_path / "logs"))
    chosen = f"{out / 'calibration.json'}#attributionbench:test_ood_all_subset_balanced"
    args = [INSPECT, "score", log.location, "--scorer", "scorers/citation_nli"]
    args += ["-S", f"nli={NLI}", "-S", f"calibration={chosen}"]
    run([*args, "--overwrite", "--action", "overwrite"], cwd=tmp_path, cache=cache_root)
    rescored = read_eval_log(log.location)
    metrics = {s.name: s.metrics for s in rescored.results.scores}
    assert any(key.endswith("corrected_mean") for key in metrics["citation_rec"])
    info = rescored.samples[0].scores["citation_nli"].metadata["judge_calibration"]
    assert info["source"] == chosen + "/all"
    assert (info["tp"], info["tn"]) == (30, 25)
