"""A run's label shows a task argument it left at default as the task resolved it."""

from alce_tasks import asqa
from inspect_cite.app.report import load_runs
from tests.conftest import FIXTURES
from tests.helpers.evals import eval_one
from tests.helpers.scripted_models import scripted_model

NLI = "python:tests.helpers.nli_fns:word_entail"


def test_a_default_reads_as_its_resolved_value(own_prompts, fresh_nli, tmp_path):
    logs = tmp_path / "logs"
    for ndoc in (None, 3):
        args = {} if ndoc is None else {"ndoc": ndoc}
        task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI, **args)
        eval_one(task, scripted_model(["An answer [1]."])[0], limit=1, log_dir=str(logs))
    runs = load_runs(logs)
    # ALCE declares ndoc=None (the strategy's number); the task resolves it to 5.
    assert sorted(runs["setting"]) == ["ndoc=3", "ndoc=5 (default)"]
    assert "null" not in " ".join(runs["label"])
