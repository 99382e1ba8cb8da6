"""``inspect-cite check`` on a task that takes no parameters: it says so, no empty list.

README's "Your own data" task (``my_task()``) takes none: ``-T ndoc=3`` printed "its
parameters:" followed by nothing.
"""

import pytest

from inspect_cite.app import cli

TASK_FILE = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample


@task
def my_task():
    return Task(dataset=[Sample(input="q", target="a")])
"""


@pytest.fixture
def task_dir(tmp_path, monkeypatch):
    (tmp_path / "my_task.py").write_text(TASK_FILE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_task_without_parameters_says_it_takes_none(task_dir, capsys):
    assert cli.main(["check", "my_task.py", "-T", "ndoc=3"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == "-T ndoc=3: my_task takes no parameters"
