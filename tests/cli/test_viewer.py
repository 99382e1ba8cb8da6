"""The log viewer shows the scorers' explanations: `inspect view` in headless Chromium."""

import os
import shutil

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def test_viewer_shows_explanations(own_prompts, tmp_path):
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not shutil.which(chromium) or not shutil.which(
        "inspect", path=os.path.dirname(os.sys.executable)
    ):
        if os.environ.get("INSPECT_CITE_REQUIRE_INSTALLED") == "1":
            pytest.fail(
                f"{chromium} or the inspect command is missing (CI installs Debian's chromium)"
            )
        pytest.skip(f"{chromium} not installed")
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "viewer_screenshots", ROOT / "docs" / "viewer_screenshots.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--out", str(tmp_path), "--chromium", chromium]) == 0
    for name in ("viewer_alce.png", "viewer_fullcite.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
