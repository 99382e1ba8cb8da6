"""alce-eval against an independent transcription of eval.py's scoring loops."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from inspect_cite.alce_eval import main
from inspect_cite.alce_metrics import CORRECTNESS_KEYS
from inspect_cite.nli import reset_nli
from inspect_cite.text import remove_citations, sent_tokenize
from tests.alce_synthetic import synthetic_items
from tests.conftest import ROOT
from tests.nli_fns import word_entail

NLI = "python:tests.nli_fns:word_entail"


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


@pytest.fixture(autouse=True)
def _fresh_backends():
    reset_nli()
    yield
    reset_nli()


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
    from inspect_cite.alce_qa import compute_alce_qa
    from inspect_cite.mauve_score import compute_alce_mauve
    from tests.tiny_eval_models import build_tiny_gpt2, build_tiny_qa

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


def test_missing_field_is_named(tmp_path, capsys):
    items = synthetic_items("asqa", 2)
    del items[1]["docs"]
    path = write_result(tmp_path, "asqa.json", items)
    assert main(["--f", str(path), "--citations", "--nli", NLI]) == 1
    assert 'item 1 needs a list field "docs"' in capsys.readouterr().err
    assert main(["--f", str(tmp_path / "missing.json")]) == 1


def test_console_script_module_runs(tmp_path):
    path = write_result(tmp_path, "eli5.json", synthetic_items("eli5", 3))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-m", "inspect_cite.alce_eval", "--f", str(path), "--claims_nli"]
        + ["--nli", NLI],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "claims_nli" in json.loads(Path(f"{path}.score").read_text())
