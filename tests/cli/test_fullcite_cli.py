"""The FullCite tasks and scorers through Inspect's CLI by registry name (installed copy).

Like ``test_cli_e2e.py``: skipped unless the installed inspect-cite matches this tree (CI
installs it and sets INSPECT_CITE_REQUIRE_INSTALLED=1).
"""

import pytest

from inspect_cite.app.log_metrics import log_metrics

# require_installed is an autouse fixture: importing it applies it here too.
from tests.cli.test_cli_e2e import INSPECT, read_log, require_installed, run  # noqa: F401
from tests.conftest import FIXTURES

pytestmark = pytest.mark.slow


def test_bioasq_by_registry_name_then_rescore(tiny_qwen3, tmp_path):
    log_dir = tmp_path / "logs"
    run(
        [
            INSPECT, "eval", "fullcite_tasks/bioasq",
            "--model", "hf/tiny", "-M", f"model_path={tiny_qwen3}", "-M", "device=cpu",
            "-M", "do_sample=false",
            "-T", f"dataset_path={FIXTURES / 'fullcite_bioasq.json'}",
            "-T", f"abstracts_path={FIXTURES / 'fullcite_bioasq_abstracts.json'}",
            "-T", "question_types=[yesno,factoid]", "-T", "strategy=constrained",
            "-T", "doc_order=shuffled", "-T", "similarity_model=null",
            "--max-tokens", "60", "--log-dir", str(log_dir), "--display", "plain",
        ],
        cwd=tmp_path,
        cache=tmp_path / "cache",
    )  # fmt: skip
    log = read_log(log_dir)
    assert log.status == "success" and log.eval.task == "fullcite_tasks/bioasq"
    assert {s.id for s in log.samples} == {"bq-yesno", "bq-factoid"}
    assert {"doc_f1", "snippet_f1", "first_two_share", "yesno_accuracy"} <= {
        s.name for s in log.results.scores
    }
    # Inspect's headline (the first score's first metric) is Snippet-F1's mean.
    assert log.results.scores[0].name == "snippet_f1"
    assert next(iter(log.results.scores[0].metrics)) == "mean"
    # Installed, this project's metrics carry the registry prefix; log_metrics reads both.
    scores = {s.name: s for s in log.results.scores}
    assert "scorers/weighted_mean" in scores["first_two_share"].metrics
    shares = log_metrics(log)["first_two_share"]
    assert {"mean", "weighted_mean", "weighted_mean_by_group_yesno"} <= set(shares)
    out = tmp_path / "rescored.eval"
    run(
        [
            INSPECT, "score", str(next(log_dir.glob("*.eval"))),
            "--scorer", "scorers/citation_bias", "-S", "max_positions=3",
            "--action", "overwrite", "--output-file", str(out), "--display", "plain",
        ],
        cwd=tmp_path,
        cache=tmp_path / "cache",
    )  # fmt: skip
    from inspect_ai.log import read_eval_log

    rescored = read_eval_log(str(out))
    assert "pos_3" in {s.name for s in rescored.results.scores}


def test_claim_support_rescores_a_fullcite_log_by_registry_name(tmp_path, cache_root):
    """`inspect score LOG --scorer scorers/claim_support -S nli=...` on a log of a FullCite
    run made without -T attribution."""
    from inspect_ai import eval
    from inspect_ai.log import read_eval_log

    from fullcite_tasks import asqa
    from tests.conftest import ASQA_ARGS, ROOT
    from tests.helpers.scripted_models import cite_first_document, scripted_model

    model, _ = scripted_model(cite_first_document)
    task = asqa(**ASQA_ARGS, similarity_model=None)
    [log] = eval(task, model=model, display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success" and "snippet_support" not in {s.name for s in log.results.scores}
    out = tmp_path / "rescored.eval"
    nli = f"python:{ROOT / 'tests' / 'helpers' / 'nli_fns.py'}:claim_overlap"
    run(
        [
            INSPECT, "score", log.location, "--scorer", "scorers/claim_support",
            "-S", f"nli={nli}", "--action", "append", "--output-file", str(out),
            "--display", "plain",
        ],
        cwd=tmp_path,
        cache=cache_root,
    )  # fmt: skip
    rescored = read_eval_log(str(out))
    names = {s.name for s in rescored.results.scores}
    assert {"snippet_support", "doc_support", "unsupported_claims", "doc_f1"} <= names
    for sample in rescored.samples:
        value = sample.scores["claim_support"].value
        assert set(value) == {"snippet_support", "doc_support", "unsupported_claims"}
