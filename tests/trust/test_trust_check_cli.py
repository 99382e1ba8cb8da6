"""``inspect-cite check`` refuses what a TRUST-SCORE run would not read, as the task does.

Runs the installed CLI (after an edit: ``pip install --no-deps .``).
"""

import pytest

from tests.cli.test_cli_e2e import require_installed  # noqa: F401
from tests.cli.test_preflight_cli import CHECK, run_cli

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["alce_tasks/asqa", "-T", "trust=true", "-T", "retriever=dpr"],
            "-T retriever=dpr: not read by a TRUST-SCORE run (-T trust=true reads the authors' "
            "Trust-Score documents); drop it",
        ),
        (
            ["alce_tasks/qampari", "-T", "trust=true", "-T", "diagnose=true"],
            "-T diagnose=true: not read by a TRUST-SCORE run (-T trust=true); drop it",
        ),
        (
            ["alce_tasks/asqa", "-T", "corrected=true"],
            "-T corrected=true: corrects trust-eval's defects, so it needs -T trust=true "
            "(a TRUST-SCORE run); drop it",
        ),
    ],
)
def test_check_refuses_in_one_line(args, line, tmp_path):
    proc = run_cli([CHECK, "check", *args], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip() == line


def test_check_names_every_ignored_option_at_once(tmp_path):
    args = ["alce_tasks/asqa", "-T", "trust=true", "-T", "retriever=dpr", "-T", "diagnose=true"]
    proc = run_cli([CHECK, "check", *args, "-T", "qa_model=x", "-T", "mauve_seeds=2"], tmp_path)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert lines[0] == "4 problems stop this run:", proc.stderr
    assert [line[:3] for line in lines[1:]] == ["1. ", "2. ", "3. ", "4. "], proc.stderr
    assert all("not read by a TRUST-SCORE run" in line for line in lines[1:]), proc.stderr
