"""``alce-eval --trust`` writes trust-eval 0.1.5's keys and values for a result file."""

import json
import math
import shutil

import pytest

from alce_tasks.eval_cli import main
from tests.trust.helpers import EXPECTED, FIXTURES, NLI, RUNS, THRESHOLDS, assert_same, expected


def run(tmp_path, name, *flags):
    path = tmp_path / name
    shutil.copy(FIXTURES / name, path)
    dataset = EXPECTED["files"][name]["dataset"]
    rc = main(["--f", str(path), "--trust", "--dataset", dataset, "--nli", NLI, *flags])
    return rc, path


@pytest.mark.parametrize("name, label", RUNS)
def test_score_file_equals_trust_eval(fresh_nli, tmp_path, name, label):
    rc, path = run(tmp_path, name, "--rejection_threshold", str(THRESHOLDS[label]))
    assert rc == 0
    scores = json.loads((tmp_path / f"{name}.score").read_text())
    assert list(scores) == list(EXPECTED["files"][name][label])
    assert_same(scores, expected(name, label))


def test_rejection_flag_is_settable(fresh_nli, tmp_path):
    rc, _ = run(tmp_path, "trust_asqa.json", "--rejection_flag", "Sorry but I couldnt find")
    assert rc == 0
    scores = json.loads((tmp_path / "trust_asqa.json.score").read_text())
    assert scores["answered_num"] != expected("trust_asqa.json")["answered_num"]


def test_corrected_writes_nan_with_reasons(fresh_nli, tmp_path):
    rc, _ = run(tmp_path, "trust_edge_eli5_all_refused.json", "--corrected")
    assert rc == 0
    scores = json.loads((tmp_path / "trust_edge_eli5_all_refused.json.score").read_text())
    assert math.isnan(scores["answered_claims_nli"])
    assert scores["nan_reasons"]["answered_claims_nli"] == (
        "no output was answered (every one is a refusal)"
    )
    assert expected("trust_edge_eli5_all_refused.json")["answered_claims_nli"] == 0.0


def test_corrected_mode_is_recorded_in_the_score_file(fresh_nli, tmp_path):
    # The same .score name either way: the mode its numbers were computed in is in the file.
    rc, _ = run(tmp_path, "trust_asqa.json", "--corrected")
    assert rc == 0
    assert json.loads((tmp_path / "trust_asqa.json.score").read_text())["corrected"] is True
    rc, _ = run(tmp_path, "trust_asqa.json")
    assert rc == 0
    assert "corrected" not in json.loads((tmp_path / "trust_asqa.json.score").read_text())


def test_trust_needs_dataset(fresh_nli, tmp_path, capsys):
    path = tmp_path / "r.json"
    shutil.copy(FIXTURES / "trust_asqa.json", path)
    assert main(["--f", str(path), "--trust", "--nli", NLI]) == 1
    assert "--trust needs --dataset (asqa, qampari, eli5, expertqa)" in capsys.readouterr().err


def test_item_without_answers_found_is_named(fresh_nli, tmp_path, capsys):
    data = json.loads((FIXTURES / "trust_qampari.json").read_text())
    del data["data"][3]["docs"][1]["answers_found"]
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    assert main(["--f", str(path), "--trust", "--dataset", "qampari", "--nli", NLI]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        f'alce-eval: --f {path}: item 3 "docs"[1]["answers_found"] must list 0 or 1 for each '
        "of the 6 gold answers (read by --trust)"
    )


def test_expertqa_needs_trust(tmp_path, capsys):
    path = tmp_path / "r.json"
    shutil.copy(FIXTURES / "trust_expertqa.json", path)
    assert main(["--f", str(path), "--dataset", "expertqa"]) == 1
    assert "--dataset expertqa is scored with --trust only" in capsys.readouterr().err


def test_threshold_out_of_range_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["--f", "x.json", "--trust", "--rejection_threshold", "101"])
    assert "is not a number from 0 to 100" in capsys.readouterr().err
