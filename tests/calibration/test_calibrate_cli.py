"""``inspect-cite calibrate``: counts, abstentions, outputs, the disk cache, fail-early errors."""

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from inspect_cite.app.cli import main
from inspect_cite.app.human_labels import EVIDENCE_SEPARATOR, NO_EVIDENCE
from tests.helpers import nli_fns
from tests.helpers.human_label_files import (
    attributionbench_row,
    write_alce_human,
    write_expertqa,
    write_fullcite_human,
    write_jsonl,
    write_user_jsonl,
)

JUDGE = "python:tests.helpers.nli_fns:claim_overlap"
SOURCES = ("ExpertQA", "Stanford-GenSearch", "LFQA", "AttributedQA")


def synthetic_attributionbench(path: Path, n: int = 240, seed: int = 5) -> Path:
    """AttributionBench-format claims over a small vocabulary: overlaps of every degree."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(30)]
    rows = []
    for i in range(n):
        claim = " ".join(rng.sample(vocab, 5)) + "."
        refs = [" ".join(rng.sample(vocab, rng.randint(3, 12))) for _ in range(rng.randint(0, 3))]
        rows.append(attributionbench_row(claim, refs, rng.random() < 0.5, rng.choice(SOURCES), i))
    return write_jsonl(path, rows)


def independent_counts(path: Path) -> Counter:
    """Each source's and all rows' confusion cells, counted here with the judge's own function.

    A claim without references has no evidence: it is counted apart, under ``"no evidence"``.
    """
    counts: Counter = Counter()
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if not "".join(row["references"]).strip():
            counts["no evidence"] += 1
            continue
        verdict = nli_fns.claim_overlap(EVIDENCE_SEPARATOR.join(row["references"]), row["claim"])
        human = row["attribution_label"] == "attributable"
        cell = ("tp" if verdict else "fn") if human else ("fp" if verdict else "tn")
        counts[(row["src_dataset"], cell)] += 1
        counts[("all", cell)] += 1
    return counts


def calibrate(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "out"
    assert main(["calibrate", *args, "--out", str(out)]) == 0
    return json.loads((out / "calibration.json").read_text())


def test_confusion_counts_equal_an_independent_count(tmp_path, fresh_nli, capsys):
    path = synthetic_attributionbench(tmp_path / "dev.jsonl")
    result = calibrate(
        tmp_path, "--nli", JUDGE, "--data", "attributionbench", "--data-path", str(path)
    )
    expected = independent_counts(path)
    assert expected["no evidence"] > 0
    [data] = result["data"]
    assert data["skipped"] == {NO_EVIDENCE: expected["no evidence"]}
    [judge] = result["judges"]
    assert judge["nli"] == JUDGE
    rows = judge["datasets"]
    assert [r["subset"] for r in rows][0] == "all"
    assert {r["subset"] for r in rows} == {"all", *SOURCES}
    for row in rows:
        for cell in ("tp", "fp", "tn", "fn"):
            assert row[cell] == expected[(row["subset"], cell)], (row["subset"], cell)
        assert row["abstain"] == 0
        assert row["n"] == sum(row[c] for c in ("tp", "fp", "tn", "fn"))
        tp, fp, tn, fn = (row[c] for c in ("tp", "fp", "tn", "fn"))
        assert row["accuracy"] == pytest.approx(100 * (tp + tn) / row["n"], abs=1e-3)
        assert -1 <= row["kappa"] <= 1  # agreement beyond chance, not a rate
        assert row["balanced_accuracy_ci"][0] <= row["balanced_accuracy"]
        assert row["balanced_accuracy"] <= row["balanced_accuracy_ci"][1]
        assert row["pairs_per_s"] > 0
    shown = capsys.readouterr().out
    n = 240 - expected["no evidence"]
    assert f"| attributionbench | all | {n} |" in shown
    assert f"{expected['no evidence']} {NO_EVIDENCE}" in shown
    assert all((tmp_path / "out" / f).is_file() for f in ("calibration.md", "calibration.png"))


def test_nan_and_failed_answers_are_abstentions_not_verdicts(tmp_path, fresh_nli, monkeypatch):
    monkeypatch.setenv("INSPECT_CITE_NLI_RETRIES", "0")
    rows = [
        {"evidence": ["cats purr"], "claim": "cats purr", "label": True},
        {"evidence": ["cats purr"], "claim": "unknown cats", "label": True},
        {"evidence": ["dogs bark"], "claim": "dogs fail", "label": False},
        {"evidence": ["dogs bark"], "claim": "dogs meow", "label": False},
    ]
    path = write_jsonl(tmp_path / "own.jsonl", rows)
    args = ["--data", "jsonl", "--data-path", str(path)]
    nan_judge = "python:tests.helpers.nli_fns:nan_on_unknown"
    failing = "python:tests.helpers.nli_fns:failing_on_fail"
    result = calibrate(tmp_path, "--nli", nan_judge, "--nli", failing, *args)
    nan_row, fail_row = (j["datasets"][0] for j in result["judges"])
    assert (nan_row["n"], nan_row["abstain"], nan_row["tp"], nan_row["tn"]) == (4, 1, 1, 2)
    assert (fail_row["n"], fail_row["abstain"], fail_row["tp"], fail_row["fn"]) == (4, 1, 1, 1)
    reasons = result["judges"][1]["abstentions"]["jsonl"]
    assert any("cannot judge this" in why for why in reasons)
    nan_reasons = result["judges"][0]["abstentions"]["jsonl"]
    assert any("probability nan" in why for why in nan_reasons)


def test_a_rerun_with_the_disk_cache_makes_no_nli_calls(tmp_path, fresh_nli):
    from inspect_cite.nli import reset_nli

    path = synthetic_attributionbench(tmp_path / "dev.jsonl", n=60)
    cache = tmp_path / "nli.sqlite"
    judge = "python:tests.helpers.nli_fns:counting_claim_overlap"
    args = ["--nli", judge, "--data", "attributionbench", "--data-path", str(path)]
    args += ["--nli-cache", str(cache)]
    before = nli_fns.CALLS["count"]
    first = calibrate(tmp_path, *args)
    judged = first["data"][0]["pairs"]  # the claims with evidence
    assert nli_fns.CALLS["count"] - before == judged
    assert first["judges"][0]["datasets"][0]["nli_calls"] == judged
    reset_nli()  # a new process: only the disk cache remains
    again = calibrate(tmp_path, *args)
    assert nli_fns.CALLS["count"] - before == judged
    assert again["judges"][0]["datasets"][0]["nli_calls"] == 0
    counts = ("tp", "fp", "tn", "fn")
    assert [[r[c] for c in counts] for r in again["judges"][0]["datasets"]] == [
        [r[c] for c in counts] for r in first["judges"][0]["datasets"]
    ]


def test_every_format_in_one_run(tmp_path, fresh_nli):
    paths = {
        "expertqa": write_expertqa(tmp_path / "eqa.jsonl"),
        "alce-human": write_alce_human(tmp_path / "alce.json"),
        "fullcite-human": write_fullcite_human(tmp_path / "incite"),
        "jsonl": write_user_jsonl(tmp_path / "own.jsonl"),
    }
    args = []
    for name, path in paths.items():
        args += ["--data", name, "--data-path", str(path)]
    result = calibrate(tmp_path, "--nli", "python:tests.helpers.nli_fns:word_entail", *args)
    rows = {(r["data"], r["subset"]): r for r in result["judges"][0]["datasets"]}
    assert rows[("expertqa", "all")]["n"] == 2  # partial support is reported apart
    assert rows[("expertqa", "partial")]["n"] == 1
    assert rows[("jsonl", "dogs")]["n"] == 1
    assert rows[("fullcite-human", "bioasq")]["n"] == 2
    recall = rows[("alce-human", "asqa/asqa-system-a.json/recall")]
    # Human recall: item q1 has sentences (1, 0), q2 (0): (0.5 + 0) / 2. ALCE's automatic
    # recall (1, 0) and (1): (0.5 + 1) / 2.
    assert (recall["human_rate"], recall["alce_rate"]) == (25.0, 75.0)
    assert recall["judge_rate"] == 25.0  # word_entail: only "The river floods in spring."
    # Citations count when scored 1 or 2 in a sentence of recall 1 (analyze.py): human q1
    # (1, 0), q2 (0); automatic q1 (1, 0), q2 (1).
    citation = rows[("alce-human", "asqa/asqa-system-a.json/citation")]
    assert (citation["human_rate"], citation["alce_rate"]) == (25.0, 75.0)
    assert [d["data"] for d in result["data"]] == list(paths)
    markdown = (tmp_path / "out" / "calibration.md").read_text()
    assert "ALCE citation recall and precision per system" in markdown


@pytest.mark.parametrize(
    "args, message",
    [
        (["--nli", "nope:x"], "--nli=nope:x: unknown NLI spec"),
        (["--nli", "model:grader"], "calibrate binds no model roles"),
        (["--nli", JUDGE, "--data-path", "a", "--data-path", "b"], "--data-path was given 2 times"),
        (["--nli", JUDGE, "--data-path", "{tmp}/missing.jsonl"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_before_anything_is_judged(tmp_path, capsys, args, message):
    args = [a.format(tmp=tmp_path) for a in args]
    code = main(["calibrate", *args, "--data", "attributionbench", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert not (tmp_path / "o").exists()


def test_the_same_judge_given_twice_is_judged_once(tmp_path, fresh_nli):
    path = write_user_jsonl(tmp_path / "own.jsonl")
    other = "python:tests.helpers.nli_fns:word_entail"
    args = ["--data", "jsonl", "--data-path", str(path)]
    result = calibrate(tmp_path, "--nli", JUDGE, "--nli", other, "--nli", f" {JUDGE}", *args)
    assert [j["nli"] for j in result["judges"]] == [JUDGE, other]
    markdown = (tmp_path / "out" / "calibration.md").read_text()
    assert markdown.count(f"## {JUDGE}") == 1


@pytest.mark.parametrize(
    "cache, why",
    [
        ("{tmp}", "is a directory, not a SQLite file"),
        ("{tmp}/not-sqlite.txt", "is not a SQLite file"),
        ("/proc/nope/x.sqlite", "cannot be opened"),
    ],
)
def test_an_unusable_nli_cache_names_the_flag_before_anything_is_judged(
    tmp_path, capsys, fresh_nli, cache, why
):
    (tmp_path / "not-sqlite.txt").write_text("plain text")
    before = nli_fns.CALLS["count"]
    path = synthetic_attributionbench(tmp_path / "dev.jsonl", n=4)
    cache = cache.format(tmp=tmp_path)
    args = ["--nli", "python:tests.helpers.nli_fns:counting_claim_overlap"]
    args += ["--data", "attributionbench", "--data-path", str(path), "--nli-cache", cache]
    code = main(["calibrate", *args, "--out", str(tmp_path / "o")])
    [err] = capsys.readouterr().err.splitlines()
    assert code == 2
    assert err.startswith(f"inspect-cite calibrate: NLI cache {cache} {why}")
    assert err.endswith("Point --nli-cache at a SQLite file, created if missing, or leave it out.")
    assert "INSPECT_CITE_NLI_CACHE" not in err
    assert nli_fns.CALLS["count"] == before
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("out", ["/proc/x", "{tmp}/file.txt/o"])
def test_an_out_that_cannot_be_written_is_refused_before_anything_is_judged(
    tmp_path, capsys, fresh_nli, out
):
    (tmp_path / "file.txt").write_text("a file, not a folder")
    out = out.format(tmp=tmp_path)
    path = synthetic_attributionbench(tmp_path / "dev.jsonl", n=4)
    before = nli_fns.CALLS["count"]
    args = ["--nli", "python:tests.helpers.nli_fns:counting_claim_overlap"]
    args += ["--data", "attributionbench", "--data-path", str(path), "--out", out]
    assert main(["calibrate", *args]) == 2
    [err] = capsys.readouterr().err.splitlines()
    assert err.startswith(f"inspect-cite calibrate: --out {out}: ")
    assert nli_fns.CALLS["count"] == before


def test_a_dataset_without_labelled_pairs_is_refused_naming_the_file(tmp_path, capsys, fresh_nli):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    args = ["--nli", JUDGE, "--data", "jsonl", "--data-path", str(empty)]
    assert main(["calibrate", *args, "--out", str(tmp_path / "o")]) == 2
    [err] = capsys.readouterr().err.splitlines()
    assert err == f"inspect-cite calibrate: --data-path {empty}: no labelled pairs (--data jsonl)"
    assert not (tmp_path / "o").exists()


def test_an_interrupt_ends_calibrate_even_while_a_judge_hangs(tmp_path):
    """Ctrl-C while a python: judge never returns: the process ends, without a traceback."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import ROOT

    data = synthetic_attributionbench(tmp_path / "dev.jsonl", n=4)
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "inspect_cite.app.cli", "calibrate",
            "--nli", "python:tests.helpers.nli_fns:hang", "--data", "attributionbench",
            "--data-path", str(data), "--out", str(tmp_path / "out"),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "INSPECT_CITE_NLI_CACHE": str(tmp_path / "nli.sqlite"),
            "NLI_HANG_MARKER": str(tmp_path / "judging"),
        },
    )  # fmt: skip
    # Interrupt once the judge is in its endless call (imports take long on a busy machine).
    for _ in range(600):
        if (tmp_path / "judging").exists() or proc.poll() is not None:
            break
        time.sleep(0.5)
    assert proc.poll() is None, proc.communicate()
    assert (tmp_path / "judging").exists(), "the judge was never called"
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("calibrate did not end after Ctrl-C")
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err


def test_every_problem_is_named_in_one_message_before_anything_is_judged(tmp_path, capsys):
    # Issue 52, item 10: two datasets that cannot be had, a judge and a name that are refused,
    # and an --out that cannot be written: one message lists them all, not the first alone.
    (tmp_path / "file.txt").write_text("a file, not a folder")
    args = ["--nli", JUDGE, "--nli", "nope:x"]
    args += ["--data", "attributionbench", "--data-path", str(tmp_path / "ab.jsonl")]
    args += ["--data", "alce-human", "--data-path", str(tmp_path / "human.json")]
    args += ["--data", "nope", "--data-path", str(tmp_path / "x.jsonl")]
    assert main(["calibrate", *args, "--out", str(tmp_path / "file.txt" / "o")]) == 2
    err = capsys.readouterr().err
    head, *items = err.strip().split("\n")
    assert head == "inspect-cite calibrate: 5 problems stop this run:"
    numbered = [line for line in items if line[:1].isdigit()]
    assert [line.split(" ", 2)[1] for line in numbered] == [
        "--out",
        "--data",  # nope
        "--nli=nope:x:",
        "--data-path",  # attributionbench
        "--data-path",  # alce-human
    ]
    assert f"4. --data-path {tmp_path / 'ab.jsonl'} does not exist" in err
    assert f"5. --data-path {tmp_path / 'human.json'} does not exist" in err
    assert not (tmp_path / "o").exists()
