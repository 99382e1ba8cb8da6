"""``inspect-cite check`` refuses a ``-T`` parameter the task does not take (issue 40, item 5).

``inspect eval`` only warns about such a parameter and runs with the default, so a typo
(``-T ndocs=3``) silently runs another experiment. ``check`` runs in-process here, on a task
file written by the test.
"""

import pytest

from inspect_cite.app import cli

TASK_FILE = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample


@task
def my_task(ndoc: int = 5, prompt_file: str | None = None):
    return Task(dataset=[Sample(input="q", target="a")])
"""


@pytest.fixture
def task_dir(tmp_path, monkeypatch):
    (tmp_path / "my_task.py").write_text(TASK_FILE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_unknown_parameter_is_refused_naming_the_close_match(task_dir, capsys):
    assert cli.main(["check", "my_task.py", "-T", "ndoc=3"]) == 0
    assert capsys.readouterr().out.strip() == "ok: my_task: 1 sample"
    assert cli.main(["check", "my_task.py", "-T", "ndocs=3"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == "-T ndocs=3: my_task takes no parameter 'ndocs'; did you mean -T ndoc?"


def test_a_parameter_with_no_close_match_lists_the_parameters(task_dir, capsys):
    assert cli.main(["check", "my_task.py", "-T", "bogus_param=1", "-T", "ndoc=2"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (
        "-T bogus_param=1: my_task takes no parameter 'bogus_param'; "
        "its parameters: ndoc, prompt_file"
    )


def test_every_unknown_parameter_is_named_in_one_line(task_dir, capsys):
    assert cli.main(["check", "my_task.py", "-T", "ndocs=3", "-T", "prompt-files=[a, b]"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "-T ndocs=3: " in line and "did you mean -T ndoc?" in line
    assert "-T prompt_files=[a, b]: " in line and "did you mean -T prompt_file?" in line


NEEDS_DATA = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from inspect_cite.checks.errors import PreflightError


@task
def needs_data(dataset_path: str | None = None):
    if dataset_path is None:
        raise PreflightError("needs_data needs -T dataset_path")
    return Task(dataset=[Sample(input="q", target="a")])
"""


def test_a_misspelt_parameter_is_named_before_the_refusal_it_causes(tmp_path, monkeypatch, capsys):
    (tmp_path / "needs_data.py").write_text(NEEDS_DATA)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "needs_data.py", "-T", "dataset_paht=d.json"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (
        "-T dataset_paht=d.json: needs_data takes no parameter 'dataset_paht'; "
        "did you mean -T dataset_path?"
    )
    assert cli.main(["check", "needs_data.py"]) == 1
    assert capsys.readouterr().err.strip() == "needs_data needs -T dataset_path"
