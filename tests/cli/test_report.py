"""``inspect-cite report`` on a directory of two models x two strategies."""

import warnings
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalSample, read_eval_log
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import Score
from inspect_ai.solver import generate

from alce_tasks import asqa
from inspect_cite.cli import main
from inspect_cite.report import cited_positions, load_runs, sample_positions
from solvers.alce import alce_vanilla
from tests.conftest import FIXTURES
from tests.helpers.scripted_models import scripted_model


@pytest.fixture
def log_dir(tmp_path, own_prompts):
    answers = {
        "mockllm/model": [
            "Christopher Eccleston played the Ninth Doctor [1]. David Tennant followed [2].",
            "It was built from 1887 to 1889 [1].",
        ],
        "mockllm/other": ["Matt Smith [3].", "In 1889 [2][1]."],
    }
    for model, texts in answers.items():
        for solver in (alce_vanilla(), generate()):
            task = asqa(
                dataset_path=str(FIXTURES / "alce_asqa.json"),
                nli="python:tests.helpers.nli_fns:word_entail",
            )
            inspect_eval(
                task,
                model=scripted_model(texts, name=model)[0],
                solver=solver,
                limit=2,
                log_dir=str(tmp_path / "logs"),
                display="none",
            )
    return tmp_path / "logs"


def test_report_table_matches_log_metrics(log_dir, tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["report", str(log_dir), "--out", str(out)]) == 0
    runs = load_runs(log_dir)
    assert len(runs) == 4
    assert set(runs["model"]) == {"mockllm/model", "mockllm/other"}
    assert set(runs["strategy"]) == {"alce_vanilla", "generate"}
    for _, run in runs.iterrows():
        log = read_eval_log(str(run["log"]), header_only=True)
        for score in log.results.scores:
            assert run[score.name] == pytest.approx(score.metrics["mean"].value)
            assert run[f"{score.name}_stderr"] == pytest.approx(score.metrics["stderr"].value)
    table = (out / "metrics.md").read_text()
    assert "| mockllm/other | generate | - |" in table
    assert (out / "metrics.csv").read_text().startswith("task,model,strategy,setting,")
    for name in ("asqa_metrics.png", "citation_positions.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "### asqa" in printed and "wrote" in printed


def test_report_on_empty_dir_is_a_clear_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    assert "no Inspect logs found" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nope")]) == 2
    assert f"log directory {tmp_path / 'nope'} does not exist" in capsys.readouterr().err


def test_cited_positions_alce():
    docs = [{"id": str(i), "title": "t", "text": "x"} for i in range(1, 6)]
    assert cited_positions("A [1][2]. B [5]. C [9].", docs) == [1, 2, 5]


def test_fullcite_positions_come_from_citation_bias_not_a_reparse():
    # The output would parse to position 1; citation_bias's positions (None: invalid) count.
    docs = [{"id": "a", "title": "", "text": "x"}, {"id": "b", "title": "", "text": "y"}]
    sample = EvalSample(
        id=1,
        epoch=1,
        input="q",
        target="",
        output=ModelOutput.from_content("m", "X {doc_id: a, snippet: x} [1]."),
        metadata={"docs": docs},
        scores={"citation_bias": Score(value={}, metadata={"positions": [2, None, 2]})},
    )
    assert sample_positions(sample) == [2, 2]
    sample.scores = None
    assert sample_positions(sample) == [1]  # no citation_bias score: ALCE [n] markers


def test_cited_positions_ignore_numbers_too_long_for_int():
    docs = [{"id": str(i), "title": "t", "text": "x"} for i in range(1, 6)]
    huge = "9" * 5000
    assert cited_positions(f"A [{huge}][2]. B [0003]. C [{'0' * 5000}4].", docs) == [2, 3, 4]


def add_fullcite_run(log_dir):
    """A FullCite ASQA run (its ~30 metrics) in the same folder as the ALCE runs."""
    from fullcite_tasks import asqa as fullcite_asqa
    from tests.helpers.scripted_models import cite_first_document, scripted_model

    inspect_eval(
        fullcite_asqa(
            dataset_path=str(FIXTURES / "alce_asqa.json"),
            spans_path=str(FIXTURES / "fullcite_asqa_spans.jsonl"),
            similarity_model=None,
        ),
        model=scripted_model(cite_first_document)[0],
        limit=2,
        log_dir=str(log_dir),
        display="none",
    )


def add_failed_run(log_dir):
    """A run whose model fails: its log has status "error". Returns the log's path."""

    def unreachable(*args):
        raise RuntimeError("provider unreachable")

    [log] = inspect_eval(
        asqa(
            dataset_path=str(FIXTURES / "alce_asqa.json"),
            nli="python:tests.helpers.nli_fns:word_entail",
        ),
        model=get_model("mockllm/broken", custom_outputs=unreachable),
        limit=1,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "error"
    return Path(log.location)


def test_alce_and_fullcite_tasks_of_one_name_get_their_own_tables(log_dir, tmp_path):
    add_fullcite_run(log_dir)
    runs = load_runs(log_dir)
    assert set(runs["task"]) == {"alce/asqa", "fullcite/asqa"}
    assert len(runs[runs["task"] == "fullcite/asqa"]) == 1
    out = tmp_path / "report"
    assert main(["report", str(log_dir), "--out", str(out)]) == 0
    table = (out / "metrics.md").read_text()
    assert "### alce/asqa" in table and "### fullcite/asqa" in table
    # citation_bias's weighted shares are named plainly, not by their registry name.
    assert "pos_1 (weighted)" in table and "scorers/" not in table
    for name in ("alce_asqa_metrics.png", "fullcite_asqa_metrics.png"):
        assert (out / name).exists()


def test_report_stays_legible_and_names_failed_runs(log_dir, tmp_path, capsys, monkeypatch):
    from matplotlib.figure import Figure
    from PIL import Image

    add_fullcite_run(log_dir)
    failed = add_failed_run(log_dir)
    # Every chart is checked as it is saved: nothing drawn may stick out of the figure.
    outside = []
    savefig = Figure.savefig

    def checked_savefig(fig, path, *args, **kwargs):
        fig.canvas.draw()
        box, (width, height) = fig.get_tightbbox(), fig.get_size_inches()
        if box.x0 < -0.01 or box.y0 < -0.01 or box.x1 > width + 0.01 or box.y1 > height + 0.01:
            outside.append(Path(path).name)
        return savefig(fig, path, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", checked_savefig)
    out = tmp_path / "report"
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["report", str(log_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert [str(w.message) for w in caught] == []
    assert printed.err == ""
    # The failed run is listed as skipped, with its status, on screen and in metrics.md.
    skipped = [line for line in printed.out.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 1 and str(failed) in skipped[0] and ": error: " in skipped[0]
    assert str(failed) in (out / "metrics.md").read_text()
    pngs = sorted(out.glob("*.png"))
    assert {p.name for p in pngs} >= {"alce_asqa_metrics.png", "fullcite_asqa_metrics.png"}
    for png in pngs:
        with Image.open(png) as image:
            assert image.width <= 2000, (png.name, image.size)
    assert outside == []
    # The terminal table names every metric of the FullCite run in full, once.
    section = printed.out.split("### fullcite/asqa")[1].split("###")[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][1:]
    names = [row.split(" | ")[0].removeprefix("| ") for row in rows]
    assert len(names) == len(set(names)) > 25
    assert {
        "snippet_em_f1",
        "snippet_em_recall",
        "n_citations",
        "first_two_share (weighted)",
    } <= set(names)


def test_installed_metric_names_read_like_source_tree_names(log_dir, tmp_path):
    """An installed plugin's metrics carry the registry prefix (scorers/weighted_mean)."""
    from inspect_ai.log import EvalMetric, EvalScore, write_eval_log

    from inspect_cite.log_metrics import log_metrics, metric_name

    assert metric_name("scorers/weighted_mean_by_group_yesno") == "weighted_mean_by_group_yesno"
    assert metric_name("weighted_mean") == "weighted_mean" == metric_name("scorers/weighted_mean")
    add_fullcite_run(log_dir)
    runs = load_runs(log_dir)
    expected = runs[runs["task"] == "fullcite/asqa"].iloc[0]
    log = read_eval_log(str(expected["log"]))
    plain = log_metrics(log)
    assert plain["first_two_share"]["weighted_mean"] == 100
    # The same log as `pip install .` names its metrics: every metric of this project prefixed.
    for score in log.results.scores:
        score.metrics = {
            (k if k in ("mean", "stderr") else f"scorers/{k}"): m for k, m in score.metrics.items()
        }
    by_name = {s.name: s for s in log.results.scores}
    assert "scorers/weighted_mean" in by_name["first_two_share"].metrics
    # A corpus-level metric (MAUVE's, as its scorer records it with one seed) is a column too.
    mauve = EvalMetric(name="scorers/mauve_corpus", value=42.0)
    log.results.scores.append(
        EvalScore(name="mauve", scorer="mauve", metrics={"scorers/mauve_corpus": mauve})
    )
    installed_dir = tmp_path / "installed"
    installed_dir.mkdir()
    installed_log = installed_dir / Path(expected["log"]).name
    write_eval_log(log, str(installed_log))
    assert log_metrics(read_eval_log(str(installed_log))) == plain | {
        "mauve": {"mauve_corpus": 42.0}
    }
    installed = load_runs(installed_dir).iloc[0]
    assert installed["first_two_share (weighted)"] == expected["first_two_share (weighted)"] == 100
    assert installed["pos_1 (weighted)"] == expected["pos_1 (weighted)"]
    assert installed["mauve"] == 42.0
