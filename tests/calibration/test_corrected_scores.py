"""``-S calibration=FILE``: the NLI scorers' rates corrected for their judge, in the log and report."""

import asyncio
import json
import math

import pytest
from inspect_ai import score as inspect_score
from inspect_ai.dataset import Sample
from inspect_ai.log import write_eval_log

from alce_tasks import asqa, eli5
from inspect_cite.app.cli import main
from inspect_cite.app.log_metrics import log_metrics
from inspect_cite.app.report import load_runs
from inspect_cite.checks.errors import ArgumentError
from inspect_cite.statistics.calibration import Confusion, corrected_rate, read_calibration
from scorers import citation_nli, claim_coverage, claim_support
from tests.alce.test_citation_scorers import expected
from tests.conftest import FIXTURES
from tests.helpers.evals import eval_one, score_answers
from tests.helpers.human_label_files import write_jsonl
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"
# A judge that misses many supported claims and accepts some unsupported ones.
CONFUSION = Confusion(tp=60, fp=15, tn=85, fn=40)


@pytest.fixture(autouse=True)
def _fresh(fresh_nli, own_prompts, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))


def calibration_file(tmp_path, nli=NLI, confusion=CONFUSION):
    c = confusion
    row = {"data": "jsonl", "subset": "all", "tp": c.tp, "fp": c.fp, "tn": c.tn, "fn": c.fn}
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"judges": [{"nli": nli, "datasets": [row]}]}))
    return path


def asqa_log(tmp_path):
    docs = json.loads((FIXTURES / "alce_asqa.json").read_text())
    outputs = []
    for item in docs[:3]:
        first = " ".join(item["docs"][0]["text"].replace(".", "").split()[:6])
        outputs.append(f"{first} [1]. {first} [2]. An uncited sentence here. {first} [1][2].")
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
    return eval_one(task, scripted_model(outputs)[0], limit=3, max_connections=1)


def test_citation_nli_logs_each_rate_corrected_beside_the_raw_one(tmp_path):
    log = asqa_log(tmp_path)
    cal = calibration_file(tmp_path)
    rescored = inspect_score(log, [citation_nli(nli=NLI, calibration=str(cal))], action="overwrite")
    metrics = log_metrics(rescored)
    # The judged share of each sample, computed here from the statements.
    for key in ("citation_rec", "citation_prec"):
        values, judged = [], []
        for sample in rescored.samples:
            value = sample.scores["citation_nli"].value[key]
            result = asyncio.run(expected(sample, False, NLI))
            checked = [s for s in result.statements if s.status == "checked"]
            if key == "citation_rec":
                judged.append(len(checked) / len(result.statements))
            else:
                judged.append(sum(len(s.used) for s in checked) / result.total_citations)
            values.append(value / 100)
        want = corrected_rate(values, judged, CONFUSION)
        got = metrics[key]
        assert got["mean"] == pytest.approx(100 * sum(values) / len(values))
        assert got["corrected_mean"] == pytest.approx(100 * want.rate)
        assert got["corrected_low"] == pytest.approx(100 * want.low)
        assert got["corrected_high"] == pytest.approx(100 * want.high)
        assert got["corrected_low"] <= got["corrected_mean"] <= got["corrected_high"]
        # An uncited statement carries no judge error (and no citation to count).
        assert max(judged) < 1 if key == "citation_rec" else min(judged) == 1
    source = rescored.samples[0].scores["citation_nli"].metadata["judge_calibration"]["source"]
    assert source == f"{cal}#jsonl/all"


def test_a_perfect_judge_corrects_nothing_even_where_an_answer_cites_nothing(tmp_path):
    """An answer without citations has precision 0, settled without the judge: it stays in."""
    docs = json.loads((FIXTURES / "alce_asqa.json").read_text())
    first = " ".join(docs[0]["docs"][0]["text"].replace(".", "").split()[:6])
    outputs = [f"{first} [1].", "An answer that cites nothing.", f"{first} [2]."]
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
    log = eval_one(task, scripted_model(outputs)[0], limit=3, max_connections=1)
    perfect = calibration_file(tmp_path, confusion=Confusion(tp=50, fp=0, tn=50, fn=0))
    rescored = inspect_score(
        log, [citation_nli(nli=NLI, calibration=str(perfect))], action="overwrite"
    )
    metrics = log_metrics(rescored)
    precisions = [s.scores["citation_nli"].value["citation_prec"] for s in rescored.samples]
    assert 0 in precisions
    for key in ("citation_rec", "citation_prec"):
        assert metrics[key]["corrected_mean"] == pytest.approx(metrics[key]["mean"])


def test_without_a_calibration_there_is_no_corrected_metric(tmp_path):
    metrics = log_metrics(asqa_log(tmp_path))
    assert set(metrics["citation_rec"]) == {"mean", "stderr"}


def test_claim_coverage_and_claim_support_correct_their_rates(tmp_path):
    cal = str(calibration_file(tmp_path))
    items = json.loads((FIXTURES / "alce_eli5.json").read_text())
    claims = items[0]["claims"]
    task = eli5(dataset_path=str(FIXTURES / "alce_eli5.json"), nli=NLI)
    log = eval_one(task, scripted_model([" ".join(claims[:1])])[0], limit=1)
    rescored = inspect_score(log, [claim_coverage(nli=NLI, calibration=cal)], action="overwrite")
    coverage = log_metrics(rescored)["claims_nli"]
    value = rescored.samples[0].scores["claim_coverage"].value["claims_nli"] / 100
    assert coverage["corrected_mean"] == pytest.approx(
        100 * corrected_rate([value], [1.0], CONFUSION).rate
    )

    docs = [{"id": "a", "title": "A", "text": "Otters eat fish. Otters swim in rivers."}]
    answers = {
        "one": "Otters eat fish {doc_id: a, snippet: Otters eat fish}. Cats purr loudly.",
        "two": "Otters swim in rivers {doc_id: a, snippet: Otters swim in rivers}.",
    }
    samples = [Sample(input=k, id=k, metadata={"docs": docs, "gold_spans": []}) for k in answers]
    log = score_answers(
        samples, answers, [claim_support(nli=NLI, calibration=cal)], log_dir=str(tmp_path / "l")
    )
    support = log_metrics(log)
    # "one": 2 claims, 1 judged (the uncited one is unsupported without the judge); "two": 1/1.
    unsupported = [50.0, 0.0]
    assert [
        s.scores["claim_support"].value["unsupported_claims"] for s in log.samples
    ] == unsupported
    want = corrected_rate([0.5, 0.0], [0.5, 1.0], CONFUSION, negative=True)
    assert support["unsupported_claims"]["corrected_mean"] == pytest.approx(100 * want.rate)
    assert support["unsupported_claims"]["corrected_low"] == pytest.approx(100 * want.low)
    assert {"corrected_mean", "corrected_low", "corrected_high"} <= set(support["doc_support"])


@pytest.mark.parametrize(
    "value, nli, message",
    [
        ("{cal}", "python:tests.helpers.nli_fns:claim_overlap", "holds only for the judge"),
        ("{cal}#attributionbench", NLI, "no attributionbench/all"),
        ("{tmp}/none.json", NLI, "does not exist"),
    ],
)
def test_a_calibration_that_does_not_fit_is_refused_when_the_scorer_is_built(
    tmp_path, value, nli, message
):
    value = value.format(cal=calibration_file(tmp_path), tmp=tmp_path)
    for factory in (citation_nli, claim_coverage, claim_support):
        with pytest.raises(ArgumentError, match=message) as e:
            factory(nli=nli, calibration=value)
        assert "-S calibration" in str(e.value)


def test_a_judge_measured_twice_with_different_counts_is_refused(tmp_path):
    path = calibration_file(tmp_path)
    content = json.loads(path.read_text())
    [judge] = content["judges"]
    other = {**judge, "datasets": [{**judge["datasets"][0], "tp": CONFUSION.tp + 1}]}
    # The same counts twice (a file from a calibrate run given the same --nli twice) agree.
    path.write_text(json.dumps({"judges": [judge, judge]}))
    assert read_calibration(str(path), nli=NLI).confusion == CONFUSION
    path.write_text(json.dumps({"judges": [judge, other]}))
    for factory in (citation_nli, claim_coverage, claim_support):
        with pytest.raises(ArgumentError) as e:
            factory(nli=NLI, calibration=str(path))
        message = str(e.value)
        assert message.startswith(f"-S calibration={path}: {path} holds 2 entries")
        assert f"for the judge {NLI} on jsonl/all with different counts" in message
        assert "\n" not in message


def test_report_shows_the_raw_and_the_corrected_rate(tmp_path, capsys):
    log = asqa_log(tmp_path)
    # The calibration comes from inspect-cite calibrate itself, on the same judge: pairs it
    # mostly gets right (all claim words in the evidence, or a word that is not), a few wrong.
    cases = [("a b c", "a b", True)] * 18 + [("a b c", "a d", True)] * 2
    cases += [("x y", "x q", False)] * 17 + [("p q", "p", False)] * 3
    rows = [{"evidence": [e], "claim": c, "label": label} for e, c, label in cases]
    own = write_jsonl(tmp_path / "own.jsonl", rows)
    out = tmp_path / "cal"
    args = ["--nli", NLI, "--data", "jsonl", "--data-path", str(own), "--out", str(out)]
    assert main(["calibrate", *args]) == 0
    rescored = inspect_score(
        log, [citation_nli(nli=NLI, calibration=str(out / "calibration.json"))], action="overwrite"
    )
    logs = tmp_path / "rescored"
    logs.mkdir()
    write_eval_log(rescored, str(logs / "run.eval"))
    assert main(["report", str(logs), "--out", str(tmp_path / "report")]) == 0
    [run] = [r for _, r in load_runs(logs).iterrows()]
    raw, fixed = run["citation_rec"], run["citation_rec (corrected)"]
    assert not math.isnan(fixed)
    table = (tmp_path / "report" / "metrics.md").read_text()
    low, high = run["citation_rec (corrected)_low"], run["citation_rec (corrected)_high"]
    assert f"{fixed:.2f} [{low:.2f}, {high:.2f}]" in table
    assert f"{raw:.2f} ±" in table
    assert "citation_rec (corrected)_low" not in table.split("\n")[2]


# A judge that calls 90 of 100 supported pairs and 20 of 100 unsupported ones supported.
EPOCH_JUDGE = Confusion(tp=90, fp=20, tn=80, fn=10)


def epoch_answers():
    """Two answers of one question: recall 50 with half judged (one sentence uncited), and
    recall 0 with all judged (two cited sentences the document does not support)."""
    docs = json.loads((FIXTURES / "alce_asqa.json").read_text())
    first = " ".join(docs[0]["docs"][0]["text"].replace(".", "").split()[:6])
    return [f"{first} [1]. An uncited sentence here.", "Zebras fly [1]. Moons sing [1]."]


def test_each_epoch_corrects_with_its_own_judged_share(tmp_path):
    """--epochs 2: epoch A has recall 50 with half its statements judged, epoch B 0 with all.

    The corrected recall is the one of the epochs' mean rate (25) and mean judged share (0.75),
    whichever epoch Inspect reduces first; the first epoch's share alone gives another number.
    """
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
    log = eval_one(task, scripted_model(epoch_answers())[0], limit=1, epochs=2)
    cal = calibration_file(tmp_path, confusion=EPOCH_JUDGE)
    rescored = inspect_score(log, [citation_nli(nli=NLI, calibration=str(cal))], action="overwrite")
    metrics = log_metrics(rescored)["citation_rec"]
    assert metrics["mean"] == pytest.approx(25.0)
    want = corrected_rate([0.25], [0.75], EPOCH_JUDGE)
    assert metrics["corrected_mean"] == pytest.approx(100 * want.rate)
    assert metrics["corrected_mean"] == pytest.approx(100 * (0.25 - 0.2 * 0.75) / 0.7)
    for first_only in (0.5, 1.0):
        wrong = corrected_rate([0.25], [first_only], EPOCH_JUDGE).rate
        assert metrics["corrected_mean"] != pytest.approx(100 * wrong)
    info = rescored.reductions[0].samples[0].metadata["judge_calibration"]
    assert info["epochs"] == 2 and info["judged"]["citation_rec"] == pytest.approx(0.75)


def test_a_repeated_epoch_changes_no_corrected_rate(tmp_path):
    answer = epoch_answers()[0]
    cal = str(calibration_file(tmp_path, confusion=EPOCH_JUDGE))
    metrics = []
    for epochs in (1, 3):
        task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
        log = eval_one(task, scripted_model([answer] * epochs)[0], limit=1, epochs=epochs)
        rescored = inspect_score(log, [citation_nli(nli=NLI, calibration=cal)], action="overwrite")
        metrics.append(log_metrics(rescored)["citation_rec"])
    for key in ("mean", "corrected_mean", "corrected_low", "corrected_high"):
        assert metrics[0][key] == pytest.approx(metrics[1][key])


def test_epochs_reduced_without_their_judged_shares_give_nan_not_a_wrong_rate(tmp_path, caplog):
    """A task of one's own with Inspect's mean reducer keeps the first epoch's metadata only."""
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset
    from inspect_ai.solver import generate

    cal = str(calibration_file(tmp_path, confusion=EPOCH_JUDGE))
    docs = json.loads((FIXTURES / "alce_asqa.json").read_text())[0]["docs"]
    sample = Sample(input="q", id="q", metadata={"docs": docs, "dataset": "asqa"})
    task = Task(
        dataset=MemoryDataset([sample]),
        solver=generate(),
        scorer=citation_nli(nli=NLI, calibration=cal),
        epochs=2,
    )
    log = eval_one(task, scripted_model(epoch_answers())[0])
    metrics = log_metrics(log)["citation_rec"]
    assert metrics["mean"] == pytest.approx(25.0)
    assert math.isnan(metrics["corrected_mean"]) and math.isnan(metrics["corrected_low"])
    assert "judged shares are from another epoch" in caplog.text


@pytest.mark.parametrize(
    "confusion, why",
    [
        # At chance: sensitivity 51, specificity 50.
        (Confusion(tp=51, fp=50, tn=50, fn=49), "cannot tell the judge from chance"),
        # docs/nli.md's claim_overlap, which says "supported" to at most ~63% of any claims:
        # three samples at 90 might still be a chance high, so a wide interval, not nan.
        (Confusion(tp=380, fp=185, tn=414, fn=219), None),
    ],
)
def test_a_raw_90_is_never_corrected_to_a_collapsed_100(tmp_path, caplog, confusion, why):
    docs = json.loads((FIXTURES / "alce_asqa.json").read_text())
    outputs = []
    for item in docs[:3]:
        # Nine supported cited statements and one unsupported: recall 90.
        first = " ".join(item["docs"][0]["text"].replace(".", "").split()[:6])
        outputs.append(" ".join([f"{first} [1]."] * 9 + ["Zebras fly [1]."]))
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI)
    log = eval_one(task, scripted_model(outputs)[0], limit=3, max_connections=1)
    cal = str(calibration_file(tmp_path, confusion=confusion))
    rescored = inspect_score(log, [citation_nli(nli=NLI, calibration=cal)], action="overwrite")
    metrics = log_metrics(rescored)["citation_rec"]
    assert metrics["mean"] == pytest.approx(90.0)
    corrected = [metrics[k] for k in ("corrected_mean", "corrected_low", "corrected_high")]
    if why is None:
        low, high = corrected[1:]
        assert low < 90 < high
    else:
        assert all(math.isnan(v) for v in corrected)
        assert why in caplog.text
