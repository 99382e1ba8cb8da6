"""``inspect view`` on localhost and a headless Chromium page on it, for the viewer tests."""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Flags as docs/viewer_screenshots.py uses: no sandbox as root, nothing reaching the network.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
# Every explanation rendered: the viewer shows a placeholder (the raw text with <br>) until its
# markdown is rendered, which always gives block elements.
_RENDERED = """() => {
    const divs = [...document.querySelectorAll('.markdown-content')];
    return divs.length > 0 && divs.every(d => d.querySelector('p, ul, ol, table, pre, h1, h2, h3'));
}"""


def require_viewer() -> None:
    """Skip (fail under INSPECT_CITE_REQUIRE_INSTALLED=1) without Chromium or ``inspect``."""
    if shutil.which(CHROMIUM) and shutil.which("inspect", path=os.path.dirname(sys.executable)):
        return
    if os.environ.get("INSPECT_CITE_REQUIRE_INSTALLED") == "1":
        pytest.fail(f"{CHROMIUM} or the inspect command is missing (CI installs Debian's chromium)")
    pytest.skip(f"{CHROMIUM} not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_viewer(log_dir: Path) -> tuple[subprocess.Popen, str]:
    """``inspect view`` on a free port, answering: the process and its base URL.

    The port is free when chosen but may be taken before the viewer binds it (by another
    worker): a viewer that exits (it could not bind) is started again on another port, and the
    URL counts as ours only while our process runs.
    """
    inspect = str(Path(sys.executable).with_name("inspect"))
    for _ in range(5):
        port = _free_port()
        server = subprocess.Popen(
            [inspect, "view", "start", "--log-dir", str(log_dir), "--host", "127.0.0.1",
             "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        for _ in range(240):
            if server.poll() is not None:
                break
            try:
                urllib.request.urlopen(base, timeout=1)
            except OSError:
                time.sleep(0.5)
                continue
            if server.poll() is None:
                return server, base
            break
        if server.poll() is None:
            server.terminate()
            server.wait(timeout=30)
            raise AssertionError(f"inspect view did not start on {base}")
    raise AssertionError("inspect view exited at once on five free ports")


@contextlib.contextmanager
def viewer_page(log_dir: Path) -> Iterator[tuple[str, Any]]:
    """``inspect view`` serving ``log_dir``, and a Chromium page: yields (base URL, page)."""
    from playwright.sync_api import sync_playwright

    server, base = _start_viewer(log_dir)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                yield base, browser.new_page(viewport={"width": 1400, "height": 1100})
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


def open_scoring_tab(page: Any, base: str, log_location: str, sample: Any) -> str:
    """Open a sample's Scoring tab and wait until every explanation is rendered; its text."""
    name = Path(log_location).name
    url = f"{base}/#/logs/{name}/samples/sample/{sample.id}/{sample.epoch}/scoring"
    page.goto(url)
    page.wait_for_function(_RENDERED, timeout=60_000)
    # The tab renders explanations one by one: wait until their count settles.
    count = -1
    for _ in range(20):
        time.sleep(0.5)
        now = page.locator(".markdown-content").count()
        if now == count:
            break
        count = now
    page.wait_for_function(_RENDERED, timeout=60_000)
    return str(page.inner_text("body"))
