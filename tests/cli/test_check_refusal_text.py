"""``inspect-cite check`` prints a refusal as written: no emoji for ``:x:``, no lost brackets.

A refusal's message is console markup (the project escapes its brackets); read with rich's
emoji codes on, ``-T nli=bogus:x: unknown NLI spec`` printed a cross mark for ``:x:``.
"""

from inspect_cite.app import cli

TASK_FILE = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from inspect_cite.checks.errors import PreflightError


@task
def refusing(nli: str = "true"):
    raise PreflightError(f"-T nli={nli}: unknown NLI spec {nli!r}; see [docs] and [1]")
"""


def test_a_refusal_is_printed_as_written(tmp_path, monkeypatch, capsys):
    (tmp_path / "refusing.py").write_text(TASK_FILE)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", "refusing.py", "-T", "nli=bogus:x"]) == 1
    assert capsys.readouterr().err.strip() == (
        "-T nli=bogus:x: unknown NLI spec 'bogus:x'; see [docs] and [1]"
    )
