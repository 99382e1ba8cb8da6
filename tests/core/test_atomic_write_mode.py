"""Atomically written files get the permissions a plain write gives, not mkstemp's 0600."""

import os
import stat
import sys

import pytest

from inspect_cite.downloads.files import write_atomic

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _mode(path):
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_mode_open_gives(tmp_path, umask_022):
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    write_atomic(tmp_path / "atomic.txt", "x")
    assert _mode(tmp_path / "atomic.txt") == _mode(plain) == 0o644


def test_a_replaced_file_keeps_its_mode(tmp_path, umask_022):
    private = tmp_path / "private.json"
    private.write_text("{}")
    private.chmod(0o600)
    write_atomic(private, "{}\n")
    assert _mode(private) == 0o600


def test_calibrate_outputs_are_ordinary_files(tmp_path, umask_022, fresh_nli, capsys):
    """calibration.json and .md were 0600 beside a 0644 calibration.png."""
    from inspect_cite.app.cli import main
    from tests.helpers.human_label_files import write_attributionbench

    data = write_attributionbench(tmp_path / "dev.jsonl")
    nli = "python:tests.helpers.nli_fns:word_entail"
    out = tmp_path / "out"
    args = ["calibrate", "--nli", nli, "--data", "attributionbench", "--data-path", str(data)]
    assert main([*args, "--out", str(out)]) == 0
    modes = {name: _mode(out / name) for name in ("calibration.json", "calibration.md")}
    assert (
        modes == dict.fromkeys(modes, _mode(out / "calibration.png")) == dict.fromkeys(modes, 0o644)
    )
