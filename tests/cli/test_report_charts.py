"""The report's charts: a positions panel per run, error bars named per panel, zero at zero."""

from collections import Counter

import pandas as pd
import pytest

from inspect_cite.app import report


@pytest.fixture
def figures(monkeypatch):
    """The figures the report draws, kept open instead of saved."""
    import matplotlib

    matplotlib.use("Agg")
    drawn = []
    monkeypatch.setattr(report, "_save", lambda fig, path: drawn.append(fig))
    return drawn


def runs(**metrics):
    """Two ASQA runs (a table as load_runs gives it) with the given metric columns."""
    rows = pd.DataFrame(
        {
            "task": ["asqa", "asqa"],
            "model": ["m/a", "m/b"],
            "strategy": ["vanilla", "vanilla"],
            "setting": ["-", "-"],
            "label": ["m/a, vanilla", "m/b, vanilla"],
            "samples": [3, 4],
            "log": ["a.eval", "b.eval"],
        }
    )
    return pd.concat([rows, pd.DataFrame(metrics)], axis=1)


def test_cited_positions_are_drawn_per_run(figures, tmp_path):
    cited = {"a.eval": Counter({1: 3, 2: 1}), "b.eval": Counter({4: 2})}
    assert report._positions_chart(runs(), cited, tmp_path / "p.png")
    [fig] = figures
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert titles == [
        "asqa 1: 100.0% to the first two\n4 citations, n = 3 samples",
        "asqa 2: 0.0% to the first two\n2 citations, n = 4 samples",
    ]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["asqa 1. m/a, vanilla (n = 3)", "asqa 2. m/b, vanilla (n = 4)"]


def test_a_run_without_citations_keeps_its_panel(figures, tmp_path):
    cited = {"a.eval": Counter({1: 2})}
    assert report._positions_chart(runs(), cited, tmp_path / "p.png")
    titles = [ax.get_title() for ax in figures[0].axes if ax.get_visible()]
    assert titles[1] == "asqa 2: no citations\nn = 4 samples"


def test_each_panel_names_its_error_bars_and_zero_is_at_the_bottom(figures, tmp_path):
    table = runs(
        citation_rec=[50.0, 40.0],
        citation_rec_stderr=[5.0, 4.0],
        **{
            "citation_rec (corrected)": [60.0, float("nan")],
            "citation_rec (corrected)_low": [45.0, float("nan")],
            "citation_rec (corrected)_high": [70.0, float("nan")],
        },
        str_em=[0.0, 0.0],
        str_em_stderr=[0.0, 0.0],
    )
    report._bar_chart(table, "asqa", tmp_path / "m.png")
    [fig] = figures
    axes = {ax.get_title().split("\n")[0]: ax for ax in fig.axes if ax.get_visible()}
    assert axes["citation_rec"].get_xlabel() == "run; bars: ± stderr"
    assert axes["citation_rec (corrected)"].get_xlabel() == "run; bars: 95% interval"
    assert "stderr" not in fig._suptitle.get_text()
    # An all-zero panel: 0 at the bottom, not -0.04..0.04 around it.
    assert axes["str_em"].get_ylim() == (0.0, 1.0)
    low, high = axes["citation_rec (corrected)"].get_ylim()
    assert low == 0.0 and high >= 70.0


def test_a_nan_run_reads_nan_and_a_zero_run_a_zero(figures, tmp_path):
    """Issue 52, item 14: a nan run and a 0 run looked the same (no bar for either)."""
    table = runs(str_em=[float("nan"), 0.0], str_em_stderr=[float("nan"), 0.0])
    report._bar_chart(table, "asqa", tmp_path / "m.png")
    [ax] = [ax for ax in figures[0].axes if ax.get_visible()]
    marks = [(t.get_text(), t.xy[0]) for t in ax.texts]
    assert marks == [("nan", 0), ("0", 1)]
    assert [p.get_visible() for p in ax.patches] == [False, True]


def test_a_metric_nan_in_every_run_keeps_its_panel_with_the_reason(figures, tmp_path):
    table = runs(correct=[1.0, 2.0], citation_f1=[float("nan")] * 2)
    report._bar_chart(table, "asqa", tmp_path / "m.png", {"citation_f1": "no citations"})
    axes = {ax.get_title().split("\n")[0]: ax for ax in figures[0].axes if ax.get_visible()}
    assert list(axes) == ["correct", "citation_f1"]
    assert [t.get_text() for t in axes["citation_f1"].texts] == ["nan in every run: no citations"]


def test_counts_are_not_drawn_as_higher_is_better():
    """TRUST-SCORE's keys come as ``trust_score (<key>)`` columns: each key's own direction."""
    from inspect_cite.app.log_metrics import HIGHER_IS_BETTER, NO_DIRECTION, metric_direction

    for column in (
        "trust_score (num_samples)",
        "trust_score (answered_num)",
        "trust_score (regular_length)",
    ):
        assert metric_direction(column) == NO_DIRECTION, column
    assert metric_direction("trust_score (trust_score)") == HIGHER_IS_BETTER
    assert metric_direction("trust_score (regular_str_em)") == HIGHER_IS_BETTER


def many_runs(n, tasks=("asqa", "qampari")):
    rows = [
        {
            "task": tasks[i % len(tasks)],
            "model": f"m/{i}",
            "strategy": "vanilla",
            "setting": "-",
            "label": f"m/{i}, vanilla",
            "samples": 20,
            "log": f"{i}.eval",
            "str_em": float(i),
            "str_em_stderr": 1.0,
        }
        for i in range(n)
    ]
    return pd.DataFrame(rows)


def test_many_runs_make_charts_of_bounded_size(figures, tmp_path):
    """Issue 52, item 6: 1,100 runs made a 1,800 x 69,402 px positions chart."""
    table = many_runs(400)
    cited = {f"{i}.eval": Counter({1 + i % 3: 2}) for i in range(400)}
    assert report._positions_chart(table, cited, tmp_path / "p.png")
    report._bar_chart(table[table["task"] == "asqa"], "asqa", tmp_path / "m.png")
    positions, bars = figures
    titles = [ax.get_title() for ax in positions.axes if ax.get_visible()]
    assert "by task, runs pooled" in positions._suptitle.get_text()
    assert [t.split(":")[0] for t in titles] == [
        "asqa (200 runs pooled)",
        "qampari (200 runs pooled)",
    ]
    assert "400 citations, n = 4000 samples" in titles[0]
    for fig in (positions, bars):
        width, height = fig.get_size_inches() * report._DPI
        assert width <= report._MAX_WIDTH_PX and height < 1000, (width, height)
        [legend] = fig.legends
        assert len(legend.get_texts()) == 1
    [ax] = [ax for ax in bars.axes if ax.get_visible()]
    assert len(ax.get_xticks()) <= report._MAX_TICKS
