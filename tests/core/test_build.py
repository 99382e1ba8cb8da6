"""An upgrade built in the same checkout installs only today's modules (setup.py)."""

import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def test_a_build_leaves_out_what_an_earlier_build_left(tmp_path):
    pytest.importorskip(
        "setuptools", reason="setup.py's build needs setuptools in this environment"
    )
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    checkout = tmp_path / "checkout"
    for name in tracked:
        if (ROOT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    # What a build before a module moved left behind (setup.cfg's build folder).
    stale = checkout / ".build" / "lib" / "inspect_cite" / "report.py"
    stale.parent.mkdir(parents=True)
    stale.write_text("OLD = True\n")
    proc = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py"],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not stale.exists()
    assert (checkout / ".build" / "lib" / "inspect_cite" / "app" / "report.py").is_file()
    assert (checkout / ".build" / "lib" / "alce_tasks" / "lm_eval" / "alce_asqa.yaml").is_file()
