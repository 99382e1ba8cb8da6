"""Run labels and section names in the report (issue 52, item 15) and the calibration chart."""

from types import SimpleNamespace

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes

from inspect_cite.app import report
from inspect_cite.app.report import load_runs
from tests.helpers.charts import checked_charts
from tests.helpers.scripted_models import scripted_model

T = report._TASK_ARG


def test_a_default_left_unresolved_reads_as_a_missing_option_does():
    """``context=null (default)`` beside ``do_sample=default``: one form, ``default``."""
    facets = [
        {(T, "context"): "null", (T, "ndoc"): "5", ("-M ", "do_sample"): "false"},
        {(T, "context"): "8k", (T, "ndoc"): "3"},
    ]
    settings = report._settings(
        facets, ["m", "m"], ["vanilla", "vanilla"], [{"context", "ndoc"}, set()]
    )
    assert settings == [
        "context=default, ndoc=5 (default), do_sample=false",
        "context=8k, ndoc=3, do_sample=default",
    ]


def test_a_value_another_argument_set_is_not_a_default():
    """HELMET's ndoc comes from -T context: ``ndoc=30 (by context)``, not ``(default)``."""
    spec = SimpleNamespace(task_args_passed={"context": "8k"}, metadata={"helmet": {"ndoc": 30}})
    by = report._set_by_other_argument(spec, {"ndoc", "seed"})
    assert by == {"ndoc": "context"}
    alce = SimpleNamespace(task_args_passed={}, metadata={})
    assert report._set_by_other_argument(alce, {"ndoc"}) == {}
    facets = [{(T, "context"): "8k", (T, "ndoc"): "30"}, {(T, "context"): "null", (T, "ndoc"): "5"}]
    settings = report._settings(
        facets, ["m", "m"], ["v", "v"], [{"ndoc"}, {"ndoc", "context"}], [by, {}]
    )
    assert settings == ["context=8k, ndoc=30 (by context)", "context=default, ndoc=5 (default)"]


def test_sections_are_named_alike_when_benchmarks_share_a_folder(tmp_path):
    """``alce/asqa`` beside ``alce/qampari`` (was: beside a bare ``qampari``)."""
    logs = tmp_path / "logs"
    data = [Sample(input="Q?", target="A")]
    for name, benchmark in (("asqa", "alce"), ("asqa", "fullcite"), ("qampari", "alce")):
        task = Task(dataset=data, scorer=includes(), name=name, metadata={"benchmark": benchmark})
        inspect_eval(task, model=scripted_model(["A"])[0], log_dir=str(logs), display="none")
    # A task of another project records no benchmark: its name stays as it is.
    task = Task(dataset=data, scorer=includes(), name="other")
    inspect_eval(task, model=scripted_model(["A"])[0], log_dir=str(logs), display="none")
    assert sorted(load_runs(logs)["task"]) == [
        "alce/asqa",
        "alce/qampari",
        "fullcite/asqa",
        "other",
    ]


def test_calibration_chart_keeps_its_title_and_whole_judge_labels(tmp_path, monkeypatch):
    from inspect_cite.app.calibrate import ALL_SUBSET, chart

    seen = checked_charts(monkeypatch)
    spec = "minicheck:/very/long/path/to/a/local/copy/of/MiniCheck-Flan-T5-Large/checkpoint-final"
    rows = [
        {
            "data": data,
            "subset": ALL_SUBSET,
            "balanced_accuracy": value,
            "balanced_accuracy_ci": ci,
        }
        for data, value, ci in (
            ("attributionbench", 71.0, (65.0, 77.0)),
            ("alce-human", None, (None, None)),
        )
    ]
    chart(SimpleNamespace(judges=[(spec, rows)]), tmp_path / "calibration.png")
    assert seen.outside == []
    texts = seen.texts["calibration.png"]
    # Wrapped, never cut: each label's text is all there (line breaks take its spaces).
    labels = ["".join(t.split()) for t in texts]
    assert f"attributionbench:{spec}" in labels and f"alce-human:{spec}" in labels
    assert "Judges against human labels (50 = chance)" in texts
    # A judge without a value reads nan, not a bar at 0.
    assert "nan" in texts
