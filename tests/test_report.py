"""``inspect-cite report`` on a directory of two models x two strategies."""

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

from alce_tasks import asqa
from inspect_cite.cli import main
from inspect_cite.report import cited_positions, load_runs
from solvers.alce import alce_vanilla
from tests.conftest import FIXTURES


def scripted(name: str, texts: list[str]):
    outputs = []
    for text in texts:
        out = ModelOutput.from_content(name, text)
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        outputs.append(out)
    return get_model(name, custom_outputs=outputs)


@pytest.fixture
def log_dir(tmp_path, prompt_cache):
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
                nli="python:tests.nli_fns:word_entail",
            )
            inspect_eval(
                task,
                model=scripted(model, texts),
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


def test_cited_positions_alce():
    docs = [{"id": str(i), "title": "t", "text": "x"} for i in range(1, 6)]
    assert cited_positions("A [1][2]. B [5]. C [9].", docs) == [1, 2, 5]


def test_cited_positions_ignore_numbers_too_long_for_int():
    docs = [{"id": str(i), "title": "t", "text": "x"} for i in range(1, 6)]
    huge = "9" * 5000
    assert cited_positions(f"A [{huge}][2]. B [0003]. C [{'0' * 5000}4].", docs) == [2, 3, 4]


def test_alce_and_fullcite_tasks_of_one_name_get_their_own_tables(log_dir, tmp_path):
    from fullcite_tasks import asqa as fullcite_asqa
    from tests.scripted_models import scripted_model
    from tests.test_fullcite_tasks import cite_first_document

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
