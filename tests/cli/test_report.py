"""``inspect-cite report`` on a directory of two models x two strategies."""

import csv
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalSample, read_eval_log
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import Score
from inspect_ai.solver import generate

from alce_tasks import asqa
from inspect_cite.app.cli import main
from inspect_cite.app.log_metrics import HIGHER_IS_BETTER, LOWER_IS_BETTER, NO_DIRECTION
from inspect_cite.app.report import cited_positions, load_runs, sample_positions
from solvers.alce import alce_vanilla
from tests.conftest import FIXTURES, ROOT
from tests.helpers.charts import checked_charts
from tests.helpers.scripted_models import scripted_model, scripted_output

NLI = "python:tests.helpers.nli_fns:word_entail"


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


def test_report_into_a_reader_that_leaves_early_ends_quietly(log_dir, tmp_path):
    """``inspect-cite report DIR | head -1``: the files are written, and no traceback."""
    out = tmp_path / "report"
    proc = subprocess.Popen(
        [sys.executable, "-m", "inspect_cite.app.cli", "report", str(log_dir), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait() == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert (out / "metrics.md").is_file()


def test_doc_vs_snippet_chart_makes_room_for_long_run_labels(tmp_path):
    """Runs told apart by a long argument (a dataset path) wrap to several legend lines each."""
    import pandas as pd

    from inspect_cite.app.report import _doc_vs_snippet

    path = "/data/" + "/".join(["a_long_folder_name"] * 8) + "/bioasq.json"
    runs = pd.DataFrame(
        {
            "task": "fullcite/bioasq",
            "label": f"mockllm/model, prompt, dataset_path={path}{i}",
            "samples": 2,
            "doc_f1": 10.0 * (i % 10),
            "snippet_f1": 5.0 * (i % 10),
        }
        for i in range(16)
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _doc_vs_snippet(runs, tmp_path / "chart.png")
    assert [str(w.message) for w in caught] == []


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
    from PIL import Image

    add_fullcite_run(log_dir)
    failed = add_failed_run(log_dir)
    # Every chart is checked as it is saved: nothing drawn may stick out of the figure.
    charts = checked_charts(monkeypatch)
    outside, texts = charts.outside, charts.texts
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
    # Each metric's panel says which way is better (every metric of the project's scorers has
    # a direction), and the runs' names their sample counts.
    for chart in ("alce_asqa_metrics.png", "fullcite_asqa_metrics.png"):
        titles = [t for t in texts[chart] if "\n" in t and not t[0].isdigit()]
        assert len(titles) > 5
        assert {t.split("\n")[1] for t in titles} <= {
            HIGHER_IS_BETTER,
            LOWER_IS_BETTER,
            NO_DIRECTION,
        }, titles
        assert any(t.startswith("1. ") and t.endswith("(n = 2)") for t in texts[chart])
    assert "doc_f1\nhigher is better" in texts["fullcite_asqa_metrics.png"]
    assert "invalid_citations\nlower is better" in texts["fullcite_asqa_metrics.png"]
    assert "Doc-F1 (higher is better)" in texts["fullcite_doc_vs_snippet.png"]
    assert any("n = 2 samples" in t for t in texts["citation_positions.png"])
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

    from inspect_cite.app.log_metrics import log_metrics, metric_name

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


def asqa_run(log_dir, model_args=None, fail_with=None, eval_args=None, **task_args):
    """One ALCE ASQA run of a scripted ``mockllm/local`` given ``-M`` ``model_args``.

    ``fail_with``: the model raises this message instead (the log has status "error").
    """

    def answer(*args):
        if fail_with is not None:
            raise RuntimeError(fail_with)
        return scripted_output("Christopher Eccleston played the Ninth Doctor [1].")

    model = get_model("mockllm/local", custom_outputs=answer, memoize=False, **(model_args or {}))
    [log] = inspect_eval(
        asqa(
            dataset_path=str(FIXTURES / "alce_asqa.json"),
            nli="python:tests.helpers.nli_fns:word_entail",
            **task_args,
        ),
        model=model,
        limit=1,
        log_dir=str(log_dir),
        display="none",
        **(eval_args or {}),
    )
    return log


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_runs_that_differ_by_a_model_or_task_argument_get_distinct_labels(
    own_prompts, tmp_path, capsys, monkeypatch
):
    """Model A, model B (-M model_path), model A with -T ndoc=2 (default: 5), A again."""
    logs = tmp_path / "logs"
    runs = {
        "a": asqa_run(logs, {"model_path": "/models/a"}),
        "b": asqa_run(logs, {"model_path": "/models/b"}),
        "a_ndoc2": asqa_run(logs, {"model_path": "/models/a"}, ndoc=2),
        "a_again": asqa_run(logs, {"model_path": "/models/a"}),
    }
    out = tmp_path / "report"
    assert main(["report", str(logs), "--out", str(out)]) == 0
    rows = read_csv(out / "metrics.csv")
    assert len({(row["model"], row["strategy"], row["setting"]) for row in rows}) == 4
    rows = {row["log"]: row for row in rows}
    assert set(rows) == {log.location for log in runs.values()}
    label = {name: rows[log.location]["label"] for name, log in runs.items()}
    assert len(set(label.values())) == 4
    assert label["a"].startswith("mockllm/local, vanilla, ndoc=5 (default), model_path=/models/a")
    assert label["b"] == "mockllm/local, vanilla, ndoc=5 (default), model_path=/models/b"
    assert label["a_ndoc2"] == "mockllm/local, vanilla, ndoc=2, model_path=/models/a"
    # The rerun and its first run differ in nothing but their logs.
    for name in ("a", "a_again"):
        assert label[name].endswith(f", log={Path(runs[name].location).name}")
    assert rows[runs["b"].location]["setting"] == "ndoc=5 (default), model_path=/models/b"
    table = (out / "metrics.md").read_text()
    assert all(log.location in table for log in runs.values())
    assert "| mockllm/local | vanilla | ndoc=5 (default), model_path=/models/b | 1 |" in table
    printed = capsys.readouterr().out
    assert f"4. {label['b']} (n = 1): {runs['b'].location}" in printed
    # The same logs listed in another order: the same labels, in the same order.
    import inspect_ai.log

    listed = inspect_ai.log.list_eval_logs
    first = load_runs(logs)
    monkeypatch.setattr(inspect_ai.log, "list_eval_logs", lambda d: listed(d)[::-1])
    assert load_runs(logs)[["label", "log"]].equals(first[["label", "log"]])
    assert first["label"].tolist() == sorted(first["label"])


def test_generate_config_and_a_name_two_kinds_share_tell_runs_apart(own_prompts, tmp_path):
    logs = tmp_path / "logs"
    plain = asqa_run(logs, {"shot": 1})
    hot = asqa_run(logs, {"shot": 1}, eval_args={"temperature": 0.9})
    other_shot = asqa_run(logs, {"shot": 2}, shot=1)
    label = load_runs(logs).set_index("log")["label"]
    # ALCE's tasks generate at temperature 0.5 (the generate config as the run used it).
    assert label[plain.location] == (
        "mockllm/local, vanilla, -T shot=2 (default), -M shot=1, temperature=0.5"
    )
    assert label[hot.location] == (
        "mockllm/local, vanilla, -T shot=2 (default), -M shot=1, temperature=0.9"
    )
    assert label[other_shot.location] == (
        "mockllm/local, vanilla, -T shot=1, -M shot=2, temperature=0.5"
    )


def test_report_redacts_credentials_in_errors_and_arguments(own_prompts, tmp_path, capsys):
    logs = tmp_path / "logs"
    token = "Zq9TOKENdoNotShow77"
    failure = (
        f"POST http://user:{token}@llm-host:8000/v1 failed (api_key={token}, "
        f"Authorization: Bearer {token}.x, key sk-{token})"
    )
    failed = asqa_run(logs, fail_with=failure)
    # Two runs apart only by a secret: its value is hidden, their labels still differ.
    asqa_run(logs, {"access_token": f"{token}-1"})
    asqa_run(logs, {"access_token": f"{token}-2"})
    out = tmp_path / "report"
    assert main(["report", str(logs), "--out", str(out)]) == 0
    printed = capsys.readouterr()
    shown = printed.out + printed.err + "".join(p.read_text() for p in out.glob("metrics.*"))
    assert token not in shown
    assert "http://***@llm-host:8000/v1 failed (api_key=***, Authorization: Bearer ***" in shown
    skipped = [line for line in printed.out.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 1 and failed.location in skipped[0]
    labels = [row["label"] for row in read_csv(out / "metrics.csv")]
    assert len(set(labels)) == 2
    assert all(
        label.startswith("mockllm/local, vanilla, access_token=***, log=") for label in labels
    )


def test_csv_cells_are_not_formulas_and_unreadable_logs_are_skipped(log_dir, tmp_path, capsys):
    from inspect_ai.log import write_eval_log

    # A task named like a formula, and a metric below zero (a number, left as it is).
    log = read_eval_log(str(sorted(log_dir.glob("*.eval"))[0]))
    log.eval.task = "=cmd|'calc'!A0"
    log.results.scores[0].metrics["mean"].value = -0.5
    write_eval_log(log, str(log_dir / "2026-01-01T00-00-00+00-00_formula_abc.eval"))
    # A truncated log, a file that is no zip at all, and a JSON log that is not JSON.
    whole = sorted(log_dir.glob("*.eval"))[1].read_bytes()
    broken = {
        "2026-01-02T00-00-00+00-00_asqa_trunc.eval": whole[: len(whole) // 2],
        "2026-01-03T00-00-00+00-00_asqa_zip.eval": b"PK\x03\x04 not a zip",
        "2026-01-04T00-00-00+00-00_asqa_json.json": b"{not json",
    }
    for name, data in broken.items():
        (log_dir / name).write_bytes(data)
    out = tmp_path / "report"
    assert main(["report", str(log_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    skipped = [line for line in printed.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 3
    table = (out / "metrics.md").read_text()
    for name in broken:
        [line] = [line for line in skipped if name in line]
        assert line.startswith(f"skipped {log_dir / name}: unreadable: ")
        assert str(log_dir / name) in table
    with open(out / "metrics.csv", newline="") as f:
        cells = [cell for row in csv.reader(f) for cell in row]
    for cell in cells:
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")) or float(cell) < 0, cell
    assert "'=cmd|'calc'!A0" in cells and "-0.5" in cells
    assert len(read_csv(out / "metrics.csv")) == 5
    # The task's chart is named with letters, digits, '.', '_' and '-' only.
    names = sorted(p.name for p in out.glob("*.png"))
    assert "cmd_calc_A0_metrics.png" in names, names
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", n) for n in names), names


def test_every_score_of_the_project_has_a_direction():
    """The report's one table of directions covers every key a scorer declares.

    The keys are read from each public scorer's declared metrics (Inspect's registry; no public
    accessor, so its private ``registry_info``), so a key added to a scorer without a direction
    fails here (issue 35, item 13: source_support's and native_counts' keys had none).
    """
    from inspect_ai._util.registry import registry_info

    import scorers
    from inspect_cite.app.log_metrics import UNKNOWN_DIRECTION, metric_direction

    keys: set[str] = set()
    for name in scorers.__all__:
        declared = registry_info(getattr(scorers, name)).metadata.get("metrics")
        if isinstance(declared, dict):
            assert "*" not in declared, f"{name} declares no keys ('*')"
            # A glob stands for numbered keys: pos_* is pos_1 .. pos_<ndoc>.
            keys |= {key.replace("*", "1") for key in declared}
    assert {"citation_rec", "cited_source_seen", "unmapped_citations", "pos_1"} <= keys
    assert {k for k in keys if metric_direction(k) == UNKNOWN_DIRECTION} == set()
    assert metric_direction("pos_7 (weighted)") == metric_direction("n_citations (citation_bias)")
    assert metric_direction("accuracy") == UNKNOWN_DIRECTION


def test_runs_that_set_no_credential_are_not_labelled_as_if_they_had(own_prompts, tmp_path):
    """Only the run given a token and a base_url with user:password@ shows them redacted."""
    logs = tmp_path / "logs"
    secret = "ghp_" + "Zq9TOKENdoNotShow77" * 2
    given = asqa_run(logs, {"token": secret, "base_url": "http://user:pw@llm-host:8000/v1"})
    plain = asqa_run(logs)
    label = load_runs(logs).set_index("log")["label"]
    assert label[given.location] == (
        "mockllm/local, vanilla, token=***, base_url=http://***@llm-host:8000/v1"
    )
    assert label[plain.location] == "mockllm/local, vanilla, token=default, base_url=default"


def test_a_run_with_no_scored_sample_counts_none_and_says_why(tmp_path, own_prompts, capsys):
    # Issue 35, item 18: such a run was reported with samples = 4, and with the calibration-
    # corrected columns of a judge that was never calibrated (Inspect lists the declared
    # metric as nan where every sample is nan).
    from inspect_ai import Task

    from scorers.citation_nli import citation_nli

    logs = tmp_path / "logs"
    data = asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=NLI).dataset
    for nli in (NLI, "python:tests.helpers.nli_fns:returns_text"):
        task = Task(dataset=data, solver=alce_vanilla(), scorer=citation_nli(nli=nli))
        model = scripted_model(["Paris [1]."] * 2)[0]
        inspect_eval(task, model=model, limit=2, log_dir=str(logs), display="none")
    out = tmp_path / "report"
    assert main(["report", str(logs), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    runs = load_runs(logs)
    assert all("(corrected)" not in c for c in runs.columns), list(runs.columns)
    table = (out / "metrics.md").read_text()
    assert "corrected" not in table
    [line] = [x for x in printed.splitlines() if x.startswith("no scored sample in ")]
    assert "no sample was scored: NLI failed: " in line and "returns_text" not in line.split(":")[0]
    assert "### runs without a scored sample (1)" in table
    samples = sorted(
        int(row.split("|")[4]) for row in table.splitlines() if row.startswith("| mockllm")
    )
    assert samples == [0, 2]
