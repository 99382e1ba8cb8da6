"""``inspect-cite calibrate``: records and names, as the corrections and the error analysis read them.

Abstentions and ``--limit`` in ALCE's per-system rates, a stratified limit, two files of one
dataset, ``judgements.jsonl`` and the most confident mistakes, sources that cannot measure
specificity, and the FullCite ratings' folder.
"""

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from inspect_cite.app.cli import main
from inspect_cite.app.human_labels import NO_EVIDENCE, HumanDataError, load_human_data
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.statistics.calibration import read_calibration
from tests.helpers import nli_fns
from tests.helpers.human_label_files import (
    alce_item,
    alce_sentence,
    attributionbench_row,
    expertqa_claim,
    write_alce_human,
    write_fullcite_human,
    write_jsonl,
)

WORDS = "python:tests.helpers.nli_fns:word_entail"
FAILS_ON_FAIL = "python:tests.helpers.nli_fns:failing_on_fail"
OVERLAP = "python:tests.helpers.nli_fns:word_overlap"


@pytest.fixture(autouse=True)
def _fresh(fresh_nli, monkeypatch):
    monkeypatch.setenv("INSPECT_CITE_NLI_RETRIES", "0")


def calibrate(tmp_path: Path, *args: str, out: str = "out") -> dict:
    assert main(["calibrate", *args, "--out", str(tmp_path / out)]) == 0
    return json.loads((tmp_path / out / "calibration.json").read_text())


def rows_of(result: dict, judge: int = 0) -> dict:
    return {(r["data"], r["subset"]): r for r in result["judges"][judge]["datasets"]}


def judgements(tmp_path: Path, out: str = "out") -> list[dict]:
    lines = (tmp_path / out / "judgements.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


# ALCE's human evaluation: abstentions and whole items ----------------------------------------


def abstaining_alce(path: Path) -> Path:
    """One system, three items: q1 judged, q2 whose only sentence the judge fails on, q3."""
    river = ("River", "The river floods in spring.", 2)
    lake = ("Lake", "The lake is deep and cold.", 1)
    content = {
        "asqa": {
            "sys.json": {
                "q1": alce_item(
                    "q1", [alce_sentence("The river floods [1].", [river], 1)], [1], [[2]]
                ),
                # failing_on_fail raises on a claim with the word "fail": an abstention.
                "q2": alce_item(
                    "q2", [alce_sentence("Rivers fail to flood [1].", [river], 0)], [0], [[0]]
                ),
                "q3": alce_item(
                    "q3", [alce_sentence("The lake is warm [1].", [lake], 0)], [1], [[1]]
                ),
            }
        }
    }
    path.write_text(json.dumps(content))
    return path


def test_an_item_the_judge_abstained_on_is_left_out_of_its_rate_not_scored_0(tmp_path):
    path = abstaining_alce(tmp_path / "alce.json")
    result = calibrate(
        tmp_path, "--nli", FAILS_ON_FAIL, "--data", "alce-human", "--data-path", str(path)
    )
    rows = rows_of(result)
    recall = rows[("alce-human", "asqa/sys.json/recall")]
    citation = rows[("alce-human", "asqa/sys.json/citation")]
    # The judge: q1 recall 1 (the river floods), q3 recall 0 (warm is not in the text); q2 is
    # unknown, so the mean is over q1 and q3: (1 + 0) / 2, not (1 + 0 + 0) / 3.
    assert recall["judge_rate"] == 50.0
    assert (recall["judge_items"], recall["judge_items_abstained"]) == (2, 1)
    assert citation["judge_rate"] == 50.0
    assert (citation["judge_items"], citation["judge_items_abstained"]) == (2, 1)
    # The people and ALCE's own scores count every item.
    assert recall["human_rate"] == pytest.approx(100 / 3, abs=1e-3)
    assert recall["abstain"] == 1


def test_limit_keeps_whole_items_of_alces_human_evaluation(tmp_path):
    """q1 yields 3 pairs (a recall pair and two citations), q2 and e1 two each."""
    path = write_alce_human(tmp_path / "alce.json")
    args = ["--nli", WORDS, "--data", "alce-human", "--data-path", str(path)]
    whole = rows_of(calibrate(tmp_path, *args, "--limit", "100", out="all"))
    for limit, kept in (("2", 3), ("4", 3), ("5", 5)):
        result = calibrate(tmp_path, *args, "--limit", limit, out=f"limit{limit}")
        assert result["data"][0]["pairs"] == kept
        recall = rows_of(result)[("alce-human", "asqa/asqa-system-a.json/recall")]
        if kept == 3:
            # q1 alone, both its sentences: human recall (1 + 0) / 2, ALCE's (1 + 0) / 2.
            assert (recall["human_rate"], recall["alce_rate"]) == (50.0, 50.0)
            assert recall["judge_rate"] == 50.0
        else:
            full = whole[("alce-human", "asqa/asqa-system-a.json/recall")]
            assert {k: recall[k] for k in ("human_rate", "alce_rate", "judge_rate")} == {
                k: full[k] for k in ("human_rate", "alce_rate", "judge_rate")
            }
    lines = judgements(tmp_path, "limit2")
    assert {(line["index"], line["pair"]) for line in lines} == {(0, 0), (0, 1), (0, 2)}


def sorted_attributionbench(path: Path, per_source: int = 60) -> Path:
    """AttributionBench rows grouped by source, as the released files are: ExpertQA first."""
    rng = random.Random(1)
    rows = []
    for source in ("ExpertQA", "Stanford-GenSearch", "LFQA", "AttributedQA"):
        for _ in range(per_source):
            claim = " ".join(rng.sample([f"w{i}" for i in range(20)], 4))
            refs = [" ".join(rng.sample([f"w{i}" for i in range(20)], 10))]
            rows.append(attributionbench_row(claim, refs, rng.random() < 0.5, source, len(rows)))
    return write_jsonl(path, rows)


def test_a_stratified_seeded_limit_draws_from_every_subset(tmp_path):
    path = sorted_attributionbench(tmp_path / "ab.jsonl")
    args = ["--nli", WORDS, "--data", "attributionbench", "--data-path", str(path)]
    first = calibrate(tmp_path, *args, "--limit", "40", out="first")
    assert {r["subset"] for r in first["judges"][0]["datasets"]} == {"all", "ExpertQA"}
    drawn = calibrate(tmp_path, *args, "--limit", "40", "--limit-by", "subset", out="s0")
    counts = {r["subset"]: r["n"] for r in drawn["judges"][0]["datasets"]}
    assert counts == {
        "all": 40,
        "ExpertQA": 10,
        "Stanford-GenSearch": 10,
        "LFQA": 10,
        "AttributedQA": 10,
    }
    assert (drawn["limit"], drawn["limit_by"], drawn["seed"]) == (40, "subset", 0)
    calibrate(tmp_path, *args, "--limit", "40", "--limit-by", "subset", out="again")
    other = calibrate(
        tmp_path, *args, "--limit", "40", "--limit-by", "subset", "--seed", "7", out="s7"
    )

    def chosen(out: str) -> list[int]:
        return [line["index"] for line in judgements(tmp_path, out)]

    assert chosen("s0") == chosen("again") == sorted(chosen("s0"))  # file order
    assert chosen("s7") != chosen("s0")
    assert other["seed"] == 7


def test_limit_by_needs_a_limit(tmp_path, capsys):
    code = main(
        ["calibrate", "--nli", WORDS, "--data", "attributionbench", "--limit-by", "subset",
         "--out", str(tmp_path / "o")]
    )  # fmt: skip
    assert code == 2
    assert "--limit-by subset needs --limit N" in capsys.readouterr().err


# Two files of one dataset ----------------------------------------------------------------------


def test_two_files_of_one_dataset_get_names_that_select_each(tmp_path):
    """AttributionBench's in-distribution and out-of-distribution test files, end to end."""
    ind = sorted_attributionbench(tmp_path / "test_all_subset_balanced_sampled500.jsonl", 10)
    rows = [attributionbench_row("w1 w2", ["w1 w2 w3"], 1, "HAGRID", i) for i in range(6)]
    rows += [attributionbench_row("w1 w9", ["w1 w2 w3"], 0, "HAGRID", 6 + i) for i in range(5)]
    rows += [attributionbench_row("w1 w2", [], 1, "HAGRID", 11)]  # no references
    ood = write_jsonl(tmp_path / "test_ood_all_subset_balanced.jsonl", rows)
    args = ["--nli", WORDS]
    for path in (ind, ood):
        args += ["--data", "attributionbench", "--data-path", str(path)]
    result = calibrate(tmp_path, *args)
    names = [
        "attributionbench:test_all_subset_balanced_sampled500",
        "attributionbench:test_ood_all_subset_balanced",
    ]
    assert [d["data"] for d in result["data"]] == names
    assert result["data"][1]["skipped"] == {NO_EVIDENCE: 1}
    ood_all = rows_of(result)[(names[1], "all")]
    assert (ood_all["tp"], ood_all["fp"], ood_all["tn"], ood_all["fn"]) == (6, 0, 5, 0)
    cal = tmp_path / "out" / "calibration.json"
    chosen = read_calibration(f"{cal}#{names[1]}", nli=WORDS)
    assert (chosen.confusion.tp, chosen.confusion.tn) == (6, 5)
    hagrid = read_calibration(f"{cal}#{names[1]}/HAGRID", nli=WORDS)
    assert hagrid.confusion == chosen.confusion
    with pytest.raises(ArgumentError, match="name the dataset"):
        read_calibration(str(cal), nli=WORDS)
    lines = judgements(tmp_path)
    assert {line["data"] for line in lines} == set(names)


def test_a_label_names_a_dataset_and_one_name_twice_is_refused(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = sorted_attributionbench(tmp_path / "a" / "dev.jsonl", 5)
    b = sorted_attributionbench(tmp_path / "b" / "dev.jsonl", 5)
    labelled = ["--data", "attributionbench:id", "--data-path", str(a)]
    labelled += ["--data", "attributionbench:ood", "--data-path", str(b)]
    result = calibrate(tmp_path, "--nli", WORDS, *labelled)
    assert [d["data"] for d in result["data"]] == ["attributionbench:id", "attributionbench:ood"]
    assert read_calibration(
        f"{tmp_path / 'out' / 'calibration.json'}#attributionbench:ood", nli=WORDS
    ).source.endswith("#attributionbench:ood/all")
    # Two files of one stem: their rows would share a name.
    same = ["--data", "attributionbench", "--data-path", str(a)]
    same += ["--data", "attributionbench", "--data-path", str(b)]
    assert main(["calibrate", "--nli", WORDS, *same, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert (
        "--data attributionbench is given 2 times" in err and "--data attributionbench:LABEL" in err
    )
    assert (
        main(
            [
                "calibrate",
                "--nli",
                WORDS,
                "--data",
                "attributionbench:a/b",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "a label is letters" in capsys.readouterr().err


# judgements.jsonl and the most confident mistakes ----------------------------------------------


def test_judgements_jsonl_has_a_line_per_judged_pair_with_its_record_index(tmp_path):
    rows = [
        {"evidence": ["cats purr loudly"], "claim": "cats purr", "label": True},
        {"evidence": [], "claim": "no evidence at all", "label": True},
        {"evidence": ["dogs bark"], "claim": "dogs fail", "label": False, "subset": "dogs"},
        {"evidence": ["dogs bark"], "claim": "dogs bark loudly tonight", "label": True},
        {"evidence": ["fish swim"], "claim": "fish swim", "label": False},
    ]
    path = tmp_path / "own.jsonl"
    # A blank line is not a record: indexes count records.
    path.write_text(
        "\n".join(json.dumps(r) for r in rows[:2])
        + "\n\n"
        + "\n".join(json.dumps(r) for r in rows[2:])
        + "\n"
    )
    calibrate(
        tmp_path,
        "--nli",
        OVERLAP,
        "--nli",
        FAILS_ON_FAIL,
        "--data",
        "jsonl",
        "--data-path",
        str(path),
    )
    lines = judgements(tmp_path)
    assert len(lines) == 2 * 4  # two judges, four pairs with evidence
    first = [line for line in lines if line["judge"] == OVERLAP]
    assert [line["index"] for line in first] == [0, 2, 3, 4]
    expected = [
        nli_fns.word_overlap(rows[i]["evidence"][0], rows[i]["claim"]) for i in (0, 2, 3, 4)
    ]
    assert [line["probability"] for line in first] == pytest.approx(expected)
    assert [line["decision"] for line in first] == [p >= 0.5 for p in expected]
    assert [line["label"] for line in first] == [True, False, True, False]
    assert all(line["data"] == "jsonl" and line["pair"] == 0 for line in lines)
    assert first[1]["subset"] == "dogs" and first[0]["subset"] == "all"
    assert first[0]["claim"] == "cats purr" and first[0]["evidence"] == "cats purr loudly"
    failed = [line for line in lines if line["judge"] == FAILS_ON_FAIL and line["index"] == 2]
    assert failed[0]["decision"] is None and failed[0]["probability"] is None
    assert "cannot judge this" in failed[0]["reason"]
    keys = {"judge", "data", "subset", "index", "label", "probability", "decision"}
    assert all(keys <= set(line) for line in lines)


def test_calibration_md_lists_each_judges_most_confident_mistakes(tmp_path):
    rows = [
        # word_overlap says 1.0 to a claim people call unsupported: its surest mistake.
        {"evidence": ["otters eat fish"], "claim": "otters eat fish", "label": False},
        {"evidence": ["otters eat fish"], "claim": "otters eat crabs", "label": False},  # 0.67
        {"evidence": ["cats purr"], "claim": "cats purr", "label": True},
        {"evidence": ["cats purr"], "claim": "dogs bark", "label": True},  # 0.0, wrong
    ]
    path = write_jsonl(tmp_path / "own.jsonl", rows)
    calibrate(
        tmp_path, "--nli", OVERLAP, "--nli", WORDS, "--data", "jsonl", "--data-path", str(path)
    )
    text = (tmp_path / "out" / "calibration.md").read_text()
    # word_entail answers yes or no: its mistakes come in file order, and it says so.
    assert "It gives no probabilities: the first 2 of its 2 mistakes" in text
    section = text.split("### Most confident mistakes")[1].split("##")[0]
    assert "3 most confident of its 3 mistakes" in section
    order = [section.index(c) for c in ("`otters eat fish`", "`dogs bark`", "`otters eat crabs`")]
    assert order == sorted(order)
    assert "probability 1.000" in section and "people *not supported*" in section


# What a source can measure ---------------------------------------------------------------------


def expertqa_without_negatives(path: Path) -> Path:
    """As the released ExpertQA files: every Missing claim has no evidence passage."""
    claims = [
        expertqa_claim(
            "Otters have fur [1].", ["[1] https://e.org/a\n\nOtters have fur."], "Complete"
        ),
        expertqa_claim("Otters are fish [2].", [], "Missing"),
        expertqa_claim("Otters nap [3].", ["[3] https://e.org/nap"], "Missing"),
        expertqa_claim("Tea is old [1].", ["[1] https://e.org/t\n\nTea is old."], "Partial"),
    ]
    row = {"question": "Otters?", "answers": {"gpt4": {"answer_string": "x", "claims": claims}}}
    return write_jsonl(path, [row])


def test_expertqa_without_a_not_supported_pair_says_so(tmp_path, capsys):
    path = expertqa_without_negatives(tmp_path / "eqa.jsonl")
    result = calibrate(tmp_path, "--nli", WORDS, "--data", "expertqa", "--data-path", str(path))
    shown = capsys.readouterr().out
    row = rows_of(result)[("expertqa", "all")]
    assert row["specificity"] is None and "specificity" in row["undefined"]
    note = "expertqa: no human 'not supported' pair in all (2 Missing claims have no evidence"
    assert note in shown
    assert any(note in n for n in result["notes"])
    assert note in (tmp_path / "out" / "calibration.md").read_text()
    assert result["data"][0]["skipped"] == {NO_EVIDENCE: 2}
    # The partial subset keeps the 'not supported' pairs the file does hold.
    assert (
        rows_of(result)[("expertqa", "partial")]["tn"]
        + rows_of(result)[("expertqa", "partial")]["fp"]
        == 1
    )
    with pytest.raises(ArgumentError, match="no human-unsupported pairs"):
        read_calibration(f"{tmp_path / 'out' / 'calibration.json'}#expertqa", nli=WORDS)


def test_pairs_without_evidence_are_left_out_alike_in_every_source(tmp_path):
    own = write_jsonl(tmp_path / "own.jsonl", [
        {"evidence": ["a b"], "claim": "a", "label": True},
        {"evidence": ["", " "], "claim": "a", "label": True},
    ])  # fmt: skip
    data = load_human_data("jsonl", str(own))
    assert len(data.pairs) == 1 and data.skipped == Counter({NO_EVIDENCE: 1})


# FullCite's ratings ----------------------------------------------------------------------------


def incite_clone(root: Path) -> Path:
    """anaryegen/incite-manual-eval's layout: public/ and responses/ side by side."""
    folder = write_fullcite_human(root / "tmp")
    (root / "public").mkdir()
    (root / "responses").mkdir()
    (folder / "human_evaluation_data.json").rename(root / "public" / "human_evaluation_data.json")
    (folder / "responses.json").rename(root / "responses" / "anaryegen.json")
    folder.rmdir()
    return root


@pytest.mark.parametrize("given", ["clone", "data file"])
def test_fullcite_human_takes_a_clone_or_its_data_file(tmp_path, given):
    root = incite_clone(tmp_path / "incite-manual-eval")
    path = root if given == "clone" else root / "public" / "human_evaluation_data.json"
    data = load_human_data("fullcite-human", str(path))
    assert [(p.claim, p.label) for p in data.pairs] == [
        ("Otters eat fish", True),
        ("They also eat crabs", False),
    ]


def test_fullcite_human_without_ratings_names_the_folder_it_needs(tmp_path):
    folder = write_fullcite_human(tmp_path / "incite")
    (folder / "responses.json").unlink()
    with pytest.raises(HumanDataError, match="no ratings file") as e:
        load_human_data("fullcite-human", str(folder / "human_evaluation_data.json"))
    assert "clone anaryegen/incite-manual-eval" in str(e.value)


def test_fullcite_human_offline_says_to_pass_the_folder(cache_root, monkeypatch):
    from inspect_cite.downloads import hub_files

    monkeypatch.setattr(hub_files, "GITHUB_RAW_URL", "http://127.0.0.1:9/{repo}/{commit}/{path}")
    with pytest.raises(HumanDataError) as e:
        load_human_data("fullcite-human")
    message = str(e.value)
    assert message.startswith("--data fullcite-human: ")
    assert "pass --data-path with the clone or that folder" in message
    assert "Download human_evaluation_data.json yourself" not in message
