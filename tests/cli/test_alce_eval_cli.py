"""alce-eval against an independent transcription of eval.py's scoring loops."""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from alce_tasks.eval_cli import main
from bench.alce_synthetic import synthetic_items
from inspect_cite.citations.alce import remove_citations
from inspect_cite.text.sentences import sent_tokenize
from scorers.alce_correctness import CORRECTNESS_KEYS
from tests.conftest import ROOT
from tests.helpers.nli_fns import word_entail

NLI = "python:tests.helpers.nli_fns:word_entail"


def nli(premise: str, hypothesis: str) -> int:
    return 1 if word_entail(premise, hypothesis) else 0


def reference_autoais(data: list[dict], qampari: bool, at_most: int) -> tuple[float, float]:
    """compute_autoais as the ALCE spec describes it, one NLI call at a time."""

    def fmt(doc: dict) -> str:
        text = doc["sent"] if "sent" in doc else doc["text"]
        return f"Title: {doc['title']}\n{text}"

    recalls, precisions = [], []
    for item in data:
        output, docs = item["output"], item["docs"]
        if qampari:
            entities = output.rstrip().rstrip(".").rstrip(",").split(",")
            sents = [item["question"] + " " + e.strip() for e in entities]
        else:
            sents = sent_tokenize(output)
        if not sents:
            continue
        entailed = credit = total = 0
        for sent in sents:
            target = remove_citations(sent).strip()
            refs = [int(m[1:]) - 1 for m in re.findall(r"\[\d+", sent)]
            if not refs or any(r >= len(docs) for r in refs):
                joint = 0
            else:
                refs = refs[:at_most]
                total += len(refs)
                joint = nli("\n".join(fmt(docs[r]) for r in refs), target)
            entailed += joint
            if joint and len(refs) > 1:
                for r in refs:
                    if nli(fmt(docs[r]), target):
                        credit += 1
                        continue
                    rest = list(refs)
                    rest.remove(r)
                    if not nli("\n".join(fmt(docs[x]) for x in rest), target):
                        credit += 1
            else:
                credit += joint
        recalls.append(entailed / len(sents))
        precisions.append(credit / total if total > 0 else 0)
    return 100 * float(np.mean(recalls)), 100 * float(np.mean(precisions))


def reference_claims(data: list[dict]) -> float:
    scores = []
    for item in data:
        premise = remove_citations(item["output"])
        scores.append(sum(nli(premise, c) for c in item["claims"]) / len(item["claims"]))
    return 100 * float(np.mean(scores))


def preprocessed(items: list[dict]) -> list[dict]:
    out = []
    for item in items:
        item = dict(item)
        item["output"] = item["output"].strip().split("\n")[0].replace("<|im_end|>", "")
        out.append(item)
    return out


pytestmark = pytest.mark.usefixtures("fresh_nli")


def write_result(tmp_path: Path, name: str, items: list[dict], plain: bool = False) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(items if plain else {"args": {"seed": 42}, "data": items}))
    return path


@pytest.mark.parametrize("dataset", ["asqa", "qampari", "eli5"])
@pytest.mark.parametrize("at_most", [3, 2])
def test_matches_eval_py_transcription(tmp_path, dataset, at_most):
    items = synthetic_items(dataset, 40, seed=7)
    path = write_result(tmp_path, f"{dataset}-result.json", items)
    flags = ["--citations", "--at_most_citations", str(at_most), "--nli", NLI]
    if dataset == "eli5":
        flags.append("--claims_nli")
    assert main(["--f", str(path), *flags]) == 0
    result = json.loads(Path(f"{path}.score").read_text())

    data = preprocessed(items)
    rec, prec = reference_autoais(data, dataset == "qampari", at_most)
    assert result["citation_rec"] == pytest.approx(rec, abs=1e-9)
    assert result["citation_prec"] == pytest.approx(prec, abs=1e-9)
    if dataset == "eli5":
        normalized = [dict(i, output=remove_citations(i["output"])) for i in data]
        assert result["claims_nli"] == pytest.approx(reference_claims(normalized), abs=1e-9)
    # The synthetic outputs must exercise the interesting branches, not score 0 or 100.
    assert 5 < result["citation_rec"] < 95 and 5 < result["citation_prec"] < 95

    head = ["length", "str_em", "str_hit"]
    expected = head + [k for k in CORRECTNESS_KEYS[dataset] if k not in head]
    expected += ["citation_rec", "citation_prec"] + (["claims_nli"] if dataset == "eli5" else [])
    assert list(result) == expected
    lengths = [len(remove_citations(i["output"]).split()) for i in data]
    assert result["length"] == pytest.approx(np.mean(lengths))
    if dataset != "asqa":
        assert result["str_em"] == 0 and result["str_hit"] == 0  # no qa_pairs, as eval.py


def test_qampari_mode_from_dataset_flag_and_plain_list(tmp_path):
    items = synthetic_items("qampari", 12, seed=3)
    path = write_result(tmp_path, "run.json", items, plain=True)
    assert main(["--f", str(path), "--citations", "--nli", NLI, "--dataset", "qampari"]) == 0
    result = json.loads(Path(f"{path}.score").read_text())
    rec, prec = reference_autoais(preprocessed(items), True, 3)
    assert (result["citation_rec"], result["citation_prec"]) == pytest.approx((rec, prec))
    assert "rougeLsum" not in result


def test_qampari_cot(tmp_path):
    item = synthetic_items("qampari", 1)[0]
    gold = item["answers"][0][0]
    item["output"] = f"Let me think: {gold} [1], nothing else"
    path = write_result(tmp_path, "qampari.json", [item])
    assert main(["--f", str(path), "--cot"]) == 0
    result = json.loads(Path(f"{path}.score").read_text())
    assert result["num_preds"] == 2 and result["qampari_prec"] == 50


def test_mauve_and_qa_match_the_core_functions(tmp_path):
    from scorers.alce_qa import compute_alce_qa
    from scorers.mauve import compute_alce_mauve
    from tests.helpers.tiny_eval_models import build_tiny_gpt2, build_tiny_qa

    items = synthetic_items("asqa", 6, seed=5)
    corpus = [it["question"] + " " + it["output"] for it in items]
    gpt2 = build_tiny_gpt2(tmp_path / "gpt2", corpus)
    qa = build_tiny_qa(tmp_path / "qa", corpus)
    path = write_result(tmp_path, "asqa.json", items)
    args = ["--f", str(path), "--mauve", "--mauve_model", str(gpt2), "--qa", "--qa_model", str(qa)]
    assert main(args) == 0
    result = json.loads(Path(f"{path}.score").read_text())
    # The CLI hands eval.py's preprocessed items to the same functions the scorers use.
    assert result["mauve"] == pytest.approx(compute_alce_mauve(items, model=str(gpt2)))
    expected_qa = compute_alce_qa(items, qa_model=str(qa))
    for key in ("QA-EM", "QA-F1", "QA-Hit"):
        assert result[key] == pytest.approx(expected_qa[key])
    # eval.py switches both off for QAMPARI.
    qpath = write_result(tmp_path, "qampari.json", synthetic_items("qampari", 2))
    assert main(["--f", str(qpath), "--mauve"]) == 0
    assert "mauve" not in json.loads(Path(f"{qpath}.score").read_text())


def test_a_bad_nli_is_refused_naming_the_flag_before_any_item_is_judged(tmp_path, capsys):
    path = write_result(tmp_path, "asqa.json", synthetic_items("asqa", 2))
    for spec, shown in (
        ("bogus:x", "alce-eval: --nli=bogus:x: unknown NLI spec 'bogus:x'; use one of:"),
        ("classifier:/nonexistent", "alce-eval: --nli=classifier:/nonexistent: directory "),
        ("model:grader", "alce-eval: --nli=model:grader: alce-eval binds no model roles"),
    ):
        assert main(["--f", str(path), "--citations", "--nli", spec]) == 1
        err = capsys.readouterr().err
        assert err.startswith(shown) and "Traceback" not in err, err
    assert not Path(f"{path}.score").exists()


def test_missing_field_is_named(tmp_path, capsys):
    items = synthetic_items("asqa", 2)
    del items[1]["docs"]
    path = write_result(tmp_path, "asqa.json", items)
    assert main(["--f", str(path), "--citations", "--nli", NLI]) == 1
    assert 'item 1 needs a list field "docs"' in capsys.readouterr().err
    assert main(["--f", str(tmp_path / "missing.json")]) == 1


def test_items_without_claims_are_left_out_of_claims_nli_with_one_line(tmp_path, capsys):
    items = synthetic_items("eli5", 12, seed=5)
    path = write_result(tmp_path, "eli5-result.json", items)
    assert main(["--f", str(path), "--claims_nli", "--nli", NLI]) == 0
    assert "left out" not in capsys.readouterr().err
    # eval.py divides by len(claims): these two items have no value, the mean is over the rest.
    items[3]["claims"] = items[8]["claims"] = []
    path = write_result(tmp_path, "eli5-result.json", items)
    assert main(["--f", str(path), "--claims_nli", "--nli", NLI]) == 0
    result = json.loads(Path(f"{path}.score").read_text())
    normalized = [dict(i, output=remove_citations(i["output"])) for i in preprocessed(items)]
    want = reference_claims([i for i in normalized if i["claims"]])
    assert 0 < want < 100 and result["claims_nli"] == pytest.approx(want, abs=1e-9)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "claims_nli: 2 of 12 items left out" in err
    assert "(items 3, 8)" in err and "no reference claims" in err
    items[8]["claims"] = ["a claim"]
    path = write_result(tmp_path, "eli5-result.json", items)
    assert main(["--f", str(path), "--claims_nli", "--nli", NLI]) == 0
    assert "1 of 12 items left out of the mean (item 3)" in capsys.readouterr().err
    for item in items:
        item["claims"] = []
    path = write_result(tmp_path, "eli5-result.json", items)
    assert main(["--f", str(path), "--claims_nli", "--nli", NLI]) == 0
    assert math.isnan(json.loads(Path(f"{path}.score").read_text())["claims_nli"])
    assert "12 of 12 items left out" in capsys.readouterr().err


def test_console_script_module_runs(tmp_path):
    path = write_result(tmp_path, "eli5.json", synthetic_items("eli5", 3))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "alce_tasks.eval_cli", "--f", str(path), "--claims_nli"]
        + ["--nli", NLI],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "claims_nli" in json.loads(Path(f"{path}.score").read_text())


def test_nli_true_without_a_gpu_gives_its_advice_once(tmp_path):
    path = write_result(tmp_path, "asqa.json", synthetic_items("asqa", 2))
    env = dict(os.environ, PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES="")
    env.pop("INSPECT_CITE_NLI_ALLOW_CPU", None)
    proc = subprocess.run(
        [sys.executable, "-m", "alce_tasks.eval_cli", "--f", str(path), "--citations"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 1
    # The tasks' refusal, naming alce-eval's flag, before any item is judged.
    assert proc.stderr.count("Use a lighter NLI") == 1, proc.stderr
    assert proc.stderr.startswith("alce-eval: --nli=true: ALCE's T5-11B NLI needs a ~23 GB GPU")


# --- one validation with the Inspect tasks; each bad input is one line, before scoring -------


def test_qampari_flat_answers_are_rejected_as_the_task_rejects_them(tmp_path, capsys):
    from inspect_cite.alce.data import AlceDataError, load_items

    items = synthetic_items("qampari", 3)
    items[1]["answers"] = ["flat", "strings"]  # not a list of alias lists
    path = write_result(tmp_path, "qampari-run.json", items)
    assert main(["--f", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"--f {path}: item 1: " in err and '"answers"[0] must be a list of strings' in err
    assert not Path(f"{path}.score").exists()
    with pytest.raises(
        AlceDataError, match=r"qampari-run.json:1:answers\[0\]: must be a list of str"
    ):
        load_items(path, "qampari")


def _pop_short_answers(items: list[dict]) -> None:
    items[1]["qa_pairs"][0].pop("short_answers")


def _null_long_answer(items: list[dict]) -> None:
    items[1]["annotations"][0]["long_answer"] = None


def _one_annotation(items: list[dict]) -> None:
    items[1]["annotations"] = items[1]["annotations"][:1]


def _int_claims(items: list[dict]) -> None:
    items[1]["claims"] = [1, 2, 3]


def _question_qa_pairs(items: list[dict]) -> None:
    items[1]["qa_pairs"][0].pop("question")


@pytest.mark.parametrize(
    ("dataset", "mutate", "flags", "message"),
    [
        ("asqa", _pop_short_answers, [], 'item 1: "qa_pairs"[0] needs a list "short_answers"'),
        ("asqa", _null_long_answer, [], 'item 1: "annotations"[0] needs a string "long_answer"'),
        ("asqa", _one_annotation, [], 'item 1: "annotations" must hold two annotations, got 1'),
        (
            "eli5",
            _int_claims,
            ["--claims_nli", "--nli", NLI],
            'item 1: "claims" must be a list of strings',
        ),
        (
            "asqa",
            _question_qa_pairs,
            ["--qa", "--no_rouge"],
            'item 1: "qa_pairs"[0] field "question" must be a string',
        ),
    ],
)
def test_malformed_fields_are_one_line_naming_file_item_and_field(
    tmp_path, capsys, dataset, mutate, flags, message
):
    items = synthetic_items(dataset, 3)
    mutate(items)
    path = write_result(tmp_path, f"{dataset}.json", items)
    assert main(["--f", str(path), *flags]) == 1
    err = capsys.readouterr().err
    assert message in err and str(path) in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_unreadable_input_and_unwritable_scores_are_one_line(tmp_path, capsys):
    path = tmp_path / "asqa.json"
    path.write_bytes(b'[{"output": "caf\xe9"}]')  # Latin-1, not UTF-8
    assert main(["--f", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"--f {path} is not UTF-8 text" in err and err.count("\n") == 1

    assert main(["--f", str(tmp_path)]) == 1
    assert f"--f {tmp_path} is a directory" in capsys.readouterr().err

    # The scores file cannot be written: said before any metric is computed.
    path = write_result(tmp_path, "eli5.json", synthetic_items("eli5", 2))
    Path(f"{path}.score").mkdir()
    assert main(["--f", str(path), "--claims_nli", "--nli", NLI]) == 1
    err = capsys.readouterr().err
    assert f"{path}.score is a directory" in err and err.count("\n") == 1


@pytest.mark.parametrize("value", ["-1", "0"])
def test_at_most_citations_must_be_positive(tmp_path, capsys, value):
    path = write_result(tmp_path, "asqa.json", synthetic_items("asqa", 2))
    with pytest.raises(SystemExit) as e:
        main(["--f", str(path), "--citations", "--at_most_citations", value, "--nli", NLI])
    assert e.value.code == 2
    assert "at_most_citations must be a whole number of at least 1" in capsys.readouterr().err
    assert not Path(f"{path}.score").exists()


def test_citation_numbers_too_long_for_int_are_out_of_range(tmp_path):
    items = synthetic_items("asqa", 6, seed=2)
    huge = "[" + "9" * 5000 + "]"
    for item in items:
        item["output"] = f"{item['output']} Marker {huge} here."
    path = write_result(tmp_path, "asqa.json", items)
    flags = ["--citations", "--nli", NLI, "--no_rouge"]  # ROUGE's bootstrap is random
    assert main(["--f", str(path), *flags]) == 0
    result = json.loads(Path(f"{path}.score").read_text())
    # eval.py judges any citation past the last document as out of range: the same numbers as
    # a marker that int() can read.
    for item in items:
        item["output"] = item["output"].replace(huge, "[99]")
    path2 = write_result(tmp_path, "asqa2.json", items)
    assert main(["--f", str(path2), *flags]) == 0
    assert json.loads(Path(f"{path2}.score").read_text()) == result
