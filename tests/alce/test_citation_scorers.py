"""citation_nli and claim_coverage inside Inspect evals (in process, offline)."""

import asyncio
import json
import math
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import score as inspect_score
from inspect_ai.model import get_model

from alce_tasks import asqa, eli5, qampari
from inspect_cite.alce.autoais import citation_scores
from inspect_cite.citations.alce import alce_scoring_output
from inspect_cite.nli import get_nli
from scorers import citation_nli
from scorers.claim_coverage import NO_CLAIMS_REASON, claims_score
from tests.conftest import FIXTURES, load_fixture
from tests.helpers.evals import eval_one
from tests.helpers.nli_judge import judge_model
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"


@pytest.fixture(autouse=True)
def _fresh_backends(fresh_nli, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_LOG_DIR", str(tmp_path / "logs"))


def answers(dataset: str) -> list[str]:
    """One output per fixture item: supported, redundant and wrong citations, and empty."""
    items = load_fixture(f"alce_{dataset}.json")
    outs = []
    for item in items[:2]:
        d1, d2 = item["docs"][0]["text"], item["docs"][1]["text"]
        # QAMPARI hypotheses start with the question: longer entities let word overlap decide.
        n = 16 if dataset == "qampari" else 6
        a = " ".join(d1.replace(".", "").replace(",", "").split()[:n])
        b = " ".join(d2.replace(".", "").replace(",", "").split()[:n])
        sep = ", " if dataset == "qampari" else ". "
        outs.append(f"{a} [1][2]{sep}{a} and {b} [1][2]{sep}{b} [1]{sep}Unsupported claim here.")
    return outs + [""]


def run(task: Any, outputs: list[str], **kw: Any) -> Any:
    return eval_one(task, scripted_model(outputs)[0], max_connections=1, **kw)


def results(log: Any) -> dict[str, Any]:
    """The log's per-key results: {"citation_rec": EvalScore, ...}."""
    return {s.name: s for s in log.results.scores}


async def expected(sample: Any, qampari_mode: bool, nli: str) -> Any:
    out = alce_scoring_output(sample.output.completion)
    return await citation_scores(
        out,
        sample.metadata["docs"],
        sample.metadata["question"],
        get_nli(nli),
        qampari=qampari_mode,
    )


@pytest.mark.parametrize(
    "dataset, task_fn, nli",
    [("asqa", asqa, NLI), ("qampari", qampari, "python:tests.helpers.nli_fns:word_overlap")],
)
def test_citation_scores_per_sample(own_prompts, dataset, task_fn, nli):
    task = task_fn(dataset_path=str(FIXTURES / f"alce_{dataset}.json"), nli=nli)
    log = run(task, answers(dataset))
    for sample in log.samples:
        score = sample.scores["citation_nli"]
        assert set(score.value) == {"citation_rec", "citation_prec"}
        want = asyncio.run(expected(sample, dataset == "qampari", nli))
        if want.skipped:
            assert all(math.isnan(v) for v in score.value.values())
            assert score.metadata["reason"].startswith("no statements")
        else:
            assert score.value["citation_rec"] == pytest.approx(100 * want.recall)
            assert score.value["citation_prec"] == pytest.approx(100 * want.precision)
            assert "citations:" in score.explanation and "recall: **" in score.explanation
            title = sample.metadata["docs"][0]["title"]
            if "[1]" in sample.output.completion:
                assert f"[1] *{' '.join(title.split())}*" in score.explanation
    assert {s.scorer for s in log.results.scores} == {"alce_correctness", "citation_nli"}
    rec = [
        s.scores["citation_nli"].value["citation_rec"]
        for s in log.samples
        if not math.isnan(s.scores["citation_nli"].value["citation_rec"])
    ]
    cit = results(log)["citation_rec"]
    assert cit.metrics["mean"].value == pytest.approx(sum(rec) / len(rec))
    assert 0 < cit.metrics["mean"].value < 100
    assert "stderr" in cit.metrics and "citation_prec" in results(log)
    # QAMPARI never skips (an empty list is one uncited statement), ASQA skips the empty one.
    assert cit.unscored_samples == (0 if dataset == "qampari" else 1)


def test_eli5_scores_claims(own_prompts):
    items = load_fixture("alce_eli5.json")
    outs = answers("eli5")
    outs[0] = items[0]["claims"][0] + " [1]. " + outs[0]
    log = run(eli5(dataset_path=str(FIXTURES / "alce_eli5.json"), nli=NLI), outs)
    scorers = {s.scorer for s in log.results.scores}
    assert scorers == {"alce_correctness", "citation_nli", "claim_coverage"}
    assert "claims_nli" in results(log)
    for sample in log.samples:
        value = sample.scores["claim_coverage"].value["claims_nli"]
        out = alce_scoring_output(sample.output.completion)
        want = asyncio.run(claims_score(out, sample.metadata["claims"], get_nli(NLI)))
        assert value == pytest.approx(100 * want.score)
    assert any(s.scores["claim_coverage"].value["claims_nli"] > 0 for s in log.samples)


def test_eli5_sample_without_claims_is_nan_with_reason_and_left_out(own_prompts, tmp_path):
    # As alce-eval: eval.py defines no claims_nli for an item without claims (it divides by 0).
    items = load_fixture("alce_eli5.json")
    items[1]["claims"] = []
    path = tmp_path / "eli5.json"
    path.write_text(json.dumps(items))
    outs = answers("eli5")
    outs[0] = items[0]["claims"][0] + " [1]. " + outs[0]
    log = run(eli5(dataset_path=str(path), nli=NLI), outs)
    by_claims = {len(s.metadata["claims"]): s.scores["claim_coverage"] for s in log.samples}
    assert math.isnan(by_claims[0].value["claims_nli"])
    assert by_claims[0].metadata["reason"] == NO_CLAIMS_REASON
    assert by_claims[0].explanation.startswith("**Not scored:**")
    scored = [
        s.scores["claim_coverage"].value["claims_nli"] for s in log.samples if s.metadata["claims"]
    ]
    claims = results(log)["claims_nli"]
    assert claims.unscored_samples == 1 and claims.scored_samples == 2
    assert claims.metrics["mean"].value == pytest.approx(sum(scored) / 2) and sum(scored) > 0


def test_nli_failure_is_unscored_not_zero(own_prompts):
    task = asqa(
        dataset_path=str(FIXTURES / "alce_asqa.json"),
        nli="python:tests.helpers.nli_fns:failing_on_fail",
    )
    log = run(task, ["This will fail [1].", "Fine [1].", "Also fine."], limit=3)
    failed = [s for s in log.samples if "fail" in s.output.completion]
    assert len(failed) == 1
    score = failed[0].scores["citation_nli"]
    assert all(math.isnan(v) for v in score.value.values())
    assert "cannot judge this" in score.metadata["reason"]


def test_model_backend_through_a_role(own_prompts):
    path = str(FIXTURES / "alce_asqa.json")
    outs = answers("asqa")
    by_model = run(
        asqa(dataset_path=path, nli="model:grader"),
        outs,
        model_roles={"grader": judge_model()},
    )
    by_python = run(asqa(dataset_path=path, nli=NLI), outs)

    def values(log: Any) -> dict:
        return {s.id: s.scores["citation_nli"].value for s in log.samples}

    a, b = values(by_model), values(by_python)
    assert a.keys() == b.keys()
    for k in a:
        for key in ("citation_rec", "citation_prec"):
            assert (math.isnan(a[k][key]) and math.isnan(b[k][key])) or a[k][key] == b[k][key]


def test_rescoring_a_log(own_prompts):
    log = run(asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI), answers("asqa"))
    before = {s.id: dict(s.scores["citation_nli"].value) for s in log.samples}
    rescored = inspect_score(
        log, [citation_nli(nli=NLI, at_most_citations=1, alce_compat=False)], action="overwrite"
    )
    assert rescored.results is not None
    assert {"citation_rec", "citation_prec"} <= set(results(rescored))
    # The rescoring options took effect: each sample's value is what they give, computed here.
    for sample in rescored.samples:
        value = sample.scores["citation_nli"].value
        want = asyncio.run(
            citation_scores(
                alce_scoring_output(sample.output.completion),
                sample.metadata["docs"],
                sample.metadata["question"],
                get_nli(NLI),
                at_most_citations=1,
                alce_compat=False,
            )
        )
        for key, got in (("citation_rec", want.recall), ("citation_prec", want.precision)):
            if got is None:  # an unscored sample (no statement): nan in the log
                assert value[key] is None or math.isnan(value[key])
            else:
                assert value[key] == pytest.approx(100 * got)

    # and they matter here: keeping one citation per statement loses a joint citation.
    def known(v: dict) -> dict:
        return {k: x for k, x in v.items() if x is not None and not math.isnan(x)}

    assert any(
        known(s.scores["citation_nli"].value) != known(before[s.id]) for s in rescored.samples
    )


def test_tiny_qwen_with_tiny_t5_nli(own_prompts, tiny_qwen3, tiny_t5, tmp_path):
    model = get_model("hf/tiny", model_path=str(tiny_qwen3), device="cpu")
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=f"seq2seq:{tiny_t5}")
    (log,) = inspect_eval(
        task, model=model, limit=2, max_tokens=16, display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    assert {"citation_rec", "citation_prec"} <= set(results(log))
    for sample in log.samples:
        assert set(sample.scores["citation_nli"].value) == {"citation_rec", "citation_prec"}


@pytest.mark.slow
def test_inspect_cli_eval_and_score(own_prompts, tiny_qwen3, tiny_t5, tmp_path):
    """`inspect eval -T nli=seq2seq:<dir>` then `inspect score -S nli=...` (task/scorer files:
    registry names need the installed package)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from inspect_ai.log import read_eval_log

    from tests.conftest import ROOT

    INSPECT = str(Path(sys.executable).parent / "inspect")
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    logs = tmp_path / "cli-logs"
    common = ["--log-dir", str(logs), "--display", "plain"]
    subprocess.run(
        [INSPECT, "eval", "alce_tasks/asqa.py", "-T", f"dataset_path={FIXTURES}/alce_asqa.json"]
        + ["-T", f"nli=seq2seq:{tiny_t5}", "--model", "hf/tiny", "-M", f"model_path={tiny_qwen3}"]
        + ["-M", "device=cpu", "--limit", "2", "--max-tokens", "8", *common],
        check=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    (log_file,) = logs.glob("*.eval")
    assert {"citation_rec", "citation_prec"} <= set(results(read_eval_log(str(log_file))))
    subprocess.run(
        [INSPECT, "score", str(log_file), "--scorer", "scorers/citation_nli.py"]
        + ["-S", f"nli={NLI}", "-S", "at_most_citations=2", "-S", "alce_compat=false"]
        + ["--action", "overwrite", "--overwrite"],
        check=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    rescored = read_eval_log(str(log_file))
    assert {"citation_rec", "citation_prec"} <= set(results(rescored))
