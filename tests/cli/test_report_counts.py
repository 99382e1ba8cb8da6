"""The report's counts and rows on logs of any Inspect task (issue 52, items 2 and 6)."""

import math

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Scorer, Target, includes, match, mean, scorer
from inspect_ai.solver import TaskState

from inspect_cite.app.cli import main
from inspect_cite.app.report import load_runs, write_report
from tests.helpers.scripted_models import scripted_model


def test_a_run_graded_c_or_i_counts_its_samples(tmp_path, capsys):
    """Inspect's match()/includes() score "C"/"I": every such sample was scored."""
    logs = tmp_path / "logs"
    data = [Sample(input="Capital of France?", target="Paris"), Sample(input="2+2?", target="4")]
    for grader in (match(), includes()):
        task = Task(dataset=data, scorer=grader)
        model = scripted_model(["Paris", "five"])[0]
        inspect_eval(task, model=model, log_dir=str(logs), display="none")
    out = tmp_path / "report"
    report = write_report(logs, out)
    assert report.unscored == []
    assert sorted(report.runs["samples"]) == [2, 2]
    accuracy = report.runs[["match (accuracy)", "includes (accuracy)"]].max(axis=1)
    assert list(accuracy) == [0.5, 0.5]
    assert main(["report", str(logs), "--out", str(out)]) == 0
    assert "no sample was scored" not in capsys.readouterr().out
    # Without the samples read, the header's count.
    assert sorted(load_runs(logs)["samples"]) == [2, 2]


def test_a_metric_nan_in_every_run_keeps_its_row_and_says_why(tmp_path, capsys):
    """Issue 52, item 2: LongBench-Cite's citation keys, nan in every run, had no row."""
    logs = tmp_path / "logs"
    data = [Sample(input="Q1?", target="A"), Sample(input="Q2?", target="B")]
    for _ in range(2):
        task = Task(dataset=data, scorer=keyed())
        inspect_eval(task, model=scripted_model(["A", "A"])[0], log_dir=str(logs), display="none")
    out = tmp_path / "report"
    assert main(["report", str(logs), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    table = (out / "metrics.md").read_text()
    why = "citation_f1: nan in every run: no citations (4 samples)"
    assert why in table and why in printed
    assert "| citation_f1 | nan | nan |" in printed
    header = next(line for line in table.splitlines() if line.startswith("| model"))
    assert " citation_f1 " in header.split("|")[5:]


def test_metrics_keep_the_scorers_order(tmp_path):
    """TRUST-SCORE's headline leads its keys: columns follow the scorer, not the alphabet."""
    from inspect_cite.app.report import metric_names

    logs = tmp_path / "logs"
    task = Task(dataset=[Sample(input="Q?", target="A")], scorer=keyed())
    inspect_eval(task, model=scripted_model(["A"])[0], log_dir=str(logs), display="none")
    assert metric_names(load_runs(logs)) == ["correct", "citation_f1"]


@scorer(metrics={"correct": [mean()], "citation_f1": [mean()]})
def keyed() -> Scorer:
    """Scores ``correct`` and, as a run without citations does, a nan ``citation_f1``."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(
            value={"correct": 1.0, "citation_f1": math.nan},
            metadata={"reasons": {"citation_f1": "no citations"}},
        )

    return score
