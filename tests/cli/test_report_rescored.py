"""A rescored log in the report: each judge's column is named by its judge and keeps its stderr."""

import csv

import pytest
from inspect_ai import score as inspect_score
from inspect_ai.log import write_eval_log

from alce_tasks import asqa
from inspect_cite.app.report import load_runs, markdown_table, write_csv
from scorers.citation_nli import citation_nli
from tests.conftest import FIXTURES
from tests.helpers.evals import eval_one
from tests.helpers.scripted_models import scripted_model

JUDGE = "python:tests.helpers.nli_fns:word_entail"
OTHER = "python:tests.helpers.nli_fns:word_overlap"
# Doc 1 holds every word of the first statement; the second statement shares only some words
# with its document: word_entail (all words) rejects it, word_overlap (half) accepts it. Two
# epochs of one answer: each judge's stderr is 0, as in the report that lost it.
ANSWERS = [
    "The Ninth Doctor is portrayed by Christopher Eccleston [1]. "
    "Tennant was the Tenth Doctor from 2005 [2]."
] * 2


@pytest.fixture
def rescored(own_prompts, fresh_nli, tmp_path):
    log_dir = tmp_path / "logs"
    task = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=JUDGE)
    log = eval_one(task, scripted_model(ANSWERS)[0], limit=1, epochs=2, log_dir=str(log_dir))
    # As `inspect score LOG --scorer scorers/citation_nli -S nli=... --action append`.
    log = inspect_score(log, [citation_nli(nli=OTHER)], action="append", display="none")
    write_eval_log(log)
    return log_dir, log


def test_a_rescore_with_another_judge_is_labelled_by_its_judge(rescored, tmp_path):
    log_dir, log = rescored
    by_scorer = {(s.name, s.scorer): s.metrics for s in log.results.scores}
    [(_, first), (_, second)] = [(k, v) for k, v in by_scorer.items() if k[0] == "citation_rec"]
    assert first["mean"].value != second["mean"].value  # the judges disagree
    [run] = load_runs(log_dir).to_dict("records")
    label = f"citation_rec (nli={OTHER})"
    assert run["citation_rec"] == pytest.approx(first["mean"].value)
    assert run[label] == pytest.approx(second["mean"].value)
    # Each column keeps its own stderr, even where the two stderrs are equal.
    assert run[f"{label}_stderr"] == pytest.approx(second["stderr"].value)
    assert run["citation_prec_stderr"] == pytest.approx(
        by_scorer[("citation_prec", "citation_nli")]["stderr"].value
    )
    assert f"citation_prec (nli={OTHER})_stderr" in run
    assert not any("citation_nli1" in column for column in run)
    table = markdown_table(load_runs(log_dir))
    assert label in table
    cells = table.splitlines()[-1].split(" | ")
    assert sum("±" in cell for cell in cells) == sum(1 for c in run if c.endswith("_stderr"))
    write_csv(load_runs(log_dir), tmp_path / "metrics.csv")
    with open(tmp_path / "metrics.csv", newline="") as f:
        header = next(csv.reader(f))
    assert f"{label}_stderr" in header


def test_the_same_count_from_several_scorers_is_one_column(rescored):
    log_dir, log = rescored
    # A rescore with the first judge agrees with it: nothing new to show.
    log = inspect_score(log, [citation_nli(nli=JUDGE)], action="append", display="none")
    write_eval_log(log)
    [run] = load_runs(log_dir).to_dict("records")
    assert [c for c in run if c.startswith("citation_rec") and "_stderr" not in c] == [
        "citation_rec",
        f"citation_rec (nli={OTHER})",
    ]
