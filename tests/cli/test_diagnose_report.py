"""``inspect-cite report`` on runs scored with ``diagnose=true``: the class and position charts."""

from inspect_ai.log import read_eval_log

from inspect_cite.app.cli import main
from inspect_cite.app.report import load_runs, misattributed_positions
from scorers import citation_nli, claim_support
from tests.helpers.charts import checked_charts
from tests.helpers.diagnose_cases import (
    ALCE_FOUR,
    FULLCITE_FOUR,
    NLI,
    alce_sample,
    fullcite_sample,
)
from tests.helpers.evals import score_answers

CHARTS = ("diagnose_classes.png", "diagnose_positions.png")


def write_runs(log_dir, diagnose: bool, fullcite: bool = True) -> None:
    score_answers(
        [alce_sample(ALCE_FOUR)],
        {ALCE_FOUR: ALCE_FOUR},
        [citation_nli(nli=NLI, diagnose=diagnose)],
        log_dir=str(log_dir),
    )
    if not fullcite:
        return
    score_answers(
        [fullcite_sample(FULLCITE_FOUR)],
        {FULLCITE_FOUR: FULLCITE_FOUR},
        [claim_support(nli=NLI, diagnose=diagnose)],
        log_dir=str(log_dir),
    )


def test_report_draws_the_classes_and_misattributed_positions(fresh_nli, tmp_path, capsys):
    log_dir = tmp_path / "logs"
    write_runs(log_dir, diagnose=True)
    runs = load_runs(log_dir)
    assert runs["misattributed"].tolist() == [25.0, 25.0]
    for path in sorted(log_dir.glob("*.eval")):
        [sample] = read_eval_log(str(path)).samples
        # The misattributed claim cites document 1; document 2 supports it.
        assert misattributed_positions(sample) == [(1, 2)]
    out = tmp_path / "report"
    assert main(["report", str(log_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for name in CHARTS:
        assert (out / name).stat().st_size > 0
        assert f"wrote {out / name}" in printed


def test_report_without_diagnosed_runs_draws_neither(fresh_nli, tmp_path, capsys):
    log_dir = tmp_path / "logs"
    write_runs(log_dir, diagnose=False)
    out = tmp_path / "report"
    assert main(["report", str(log_dir), "--out", str(out)]) == 0
    assert not any((out / name).exists() for name in CHARTS)


def test_one_diagnosed_run_keeps_its_chart_titles_inside_the_image(
    fresh_nli, tmp_path, monkeypatch
):
    # One run: one panel, the narrowest figure, under the longest title.
    log_dir = tmp_path / "logs"
    write_runs(log_dir, diagnose=True, fullcite=False)
    charts = checked_charts(monkeypatch)
    assert main(["report", str(log_dir), "--out", str(tmp_path / "report")]) == 0
    assert set(CHARTS) <= set(charts.texts)
    assert charts.outside == []
    title = "Misattributed claims: the document cited vs the one that supports the claim"
    assert any(" ".join(t.split()) == title for t in charts.texts["diagnose_positions.png"])
