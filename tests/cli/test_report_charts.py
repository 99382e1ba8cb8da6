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
