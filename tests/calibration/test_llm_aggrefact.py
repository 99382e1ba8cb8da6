"""``--data llm-aggrefact``: a user's copy of LLM-AggreFact, scored as its leaderboard scores.

The expected numbers are computed here as MiniCheck's ``benchmark_evaluation_demo.ipynb``
(github Liyan06/MiniCheck at b58b9fa69acbd1015ec970fa65dd752413a053d2) computes the leaderboard
figures: per dataset, in order of first appearance, ``sklearn.metrics.balanced_accuracy_score``
of the labels and the judge's 0/1 decisions (x100), then the plain mean of those as "Average".
The records are made up, with the fields of the hub's test split (``dataset``, ``doc``,
``claim``, ``label``, ``contamination_identifier``).
"""

import json
import random
from pathlib import Path

import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score

from inspect_cite.app.cli import main
from inspect_cite.app.human_labels import NO_EVIDENCE, HumanDataError, load_human_data
from tests.helpers import nli_fns

JUDGE = "python:tests.helpers.nli_fns:claim_overlap"
DATASETS = ("AggreFact-CNN", "ExpertQA", "Lfqa", "RAGTruth")


@pytest.fixture(autouse=True)
def _fresh(fresh_nli):
    pass


def aggrefact_records(n: int = 160, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(25)]
    records = []
    for i in range(n):
        claim = " ".join(rng.sample(vocab, 5)) + "."
        doc = " ".join(rng.sample(vocab, rng.randint(4, 15)))
        records.append(
            {
                "dataset": DATASETS[(i * 7 + i // 3) % len(DATASETS)],
                "doc": doc,
                "claim": claim,
                "label": int(rng.random() < 0.5),
                "contamination_identifier": f"{i:064x}",
            }
        )
    return records


def snapshot(root: Path, records: list[dict]) -> Path:
    """The hub snapshot's layout: data/test-00000-of-00001.parquet beside the dev split."""
    (root / "data").mkdir(parents=True)
    pd.DataFrame(records).to_parquet(root / "data" / "test-00000-of-00001.parquet")
    pd.DataFrame(records[:5]).to_parquet(root / "data" / "dev-00000-of-00001.parquet")
    return root


def leaderboard(records: list[dict]) -> tuple[dict[str, float], float]:
    """MiniCheck's demo: BAcc per dataset (first-appearance order), then their mean."""
    df = pd.DataFrame(records)
    df["preds"] = [int(nli_fns.claim_overlap(d, c)) for d, c in zip(df.doc, df.claim, strict=True)]
    per = {}
    for dataset in df.dataset.unique():
        sub = df[df.dataset == dataset]
        per[dataset] = balanced_accuracy_score(sub.label, sub.preds) * 100
    return per, sum(per.values()) / len(per)


def calibrate(tmp_path: Path, path: Path) -> dict:
    out = tmp_path / "out"
    args = ["calibrate", "--nli", JUDGE, "--data", "llm-aggrefact", "--data-path", str(path)]
    assert main([*args, "--out", str(out)]) == 0
    return json.loads((out / "calibration.json").read_text())


@pytest.mark.parametrize("form", ["snapshot", "parquet", "csv", "jsonl"])
def test_balanced_accuracy_per_dataset_and_their_mean_as_the_leaderboard(tmp_path, form, capsys):
    records = aggrefact_records()
    if form == "snapshot":
        path = snapshot(tmp_path / "llm-aggrefact", records)
    elif form == "parquet":
        path = tmp_path / "test.parquet"
        pd.DataFrame(records).to_parquet(path)
    elif form == "csv":
        path = tmp_path / "test.csv"
        pd.DataFrame(records).to_csv(path)  # with pandas' index column, as exports have
    else:
        path = tmp_path / "test.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = calibrate(tmp_path, path)
    per, mean = leaderboard(records)
    rows = {r["subset"]: r for r in result["judges"][0]["datasets"]}
    assert list(rows) == ["all", *per]
    for dataset, bacc in per.items():
        assert rows[dataset]["balanced_accuracy"] == pytest.approx(bacc, abs=1e-3)
    assert rows["all"]["mean_balanced_accuracy"] == pytest.approx(mean, abs=1e-3)
    assert result["data"][0]["pairs"] == len(records)  # the test split only, not dev
    shown = capsys.readouterr().out
    assert "as the LLM-AggreFact leaderboard computes them" in shown
    assert f"| {mean:.1f} |" in shown
    lines = (tmp_path / "out" / "judgements.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    assert (first["data"], first["subset"], first["index"]) == ("llm-aggrefact", DATASETS[0], 0)


def test_an_empty_document_is_left_out_with_the_reason(tmp_path):
    records = aggrefact_records(20)
    records[3]["doc"] = ""
    path = tmp_path / "test.csv"
    pd.DataFrame(records).to_csv(path, index=False)
    data = load_human_data("llm-aggrefact", str(path))
    assert len(data.pairs) == 19 and data.skipped == {NO_EVIDENCE: 1}
    assert [p.index for p in data.pairs][3] == 4


@pytest.mark.parametrize(
    "write, message",
    [
        (lambda p: None, "--data llm-aggrefact needs --data-path: LLM-AggreFact is a gated"),
        (lambda p: p.mkdir(), "no test split in it"),
        (lambda p: p.with_suffix(".txt").write_text("x"), "an LLM-AggreFact file is parquet"),
        (lambda p: pd.DataFrame([{"doc": "d", "claim": "c"}]).to_csv(p.with_suffix(".csv")), "no column 'dataset', 'label'"),
        (lambda p: p.with_suffix(".jsonl").write_text(json.dumps({"dataset": "X", "doc": "d", "claim": "c", "label": 2}) + "\n"), 'field "label" must be 0 or 1'),
        (lambda p: p.with_suffix(".parquet").write_bytes(b"not parquet"), "cannot be read"),
    ],
)  # fmt: skip
def test_a_copy_that_cannot_be_read_is_one_line_naming_it(tmp_path, write, message):
    base = tmp_path / "copy"
    write(base)
    given = next((str(p) for p in tmp_path.iterdir()), None)
    with pytest.raises(HumanDataError, match=message) as e:
        load_human_data("llm-aggrefact", given)
    assert "\n" not in str(e.value)
