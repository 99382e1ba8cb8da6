"""Screenshots of an ALCE and a FullCite sample in the real ``inspect view``, checked headless.

Run from a checkout (needs the project installed, Debian's ``chromium`` and the ``playwright``
Python package; no network)::

    python docs/viewer_screenshots.py [--out docs] [--chromium /usr/bin/chromium]

It writes two small logs (the ALCE ASQA and FullCite BioASQ fixtures answered by a scripted
model, scored by the default scorers with a deterministic word-overlap NLI), serves them with
``inspect view`` on localhost, opens each sample's Scoring tab in headless Chromium, checks that
the scorers' explanations are visible, and saves ``viewer_alce.png`` and ``viewer_fullcite.png``.
Exits non-zero when an explanation is not shown.
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
# Text each scorer's explanation shows: the check fails unless the viewer renders it.
ALCE_MARKERS = ("Citation recall", "supported by [1] together (NLI)")
FULLCITE_MARKERS = ("Gold spans:", "verbatim_rate")
_WORD = re.compile(r"[a-z0-9]+")


def word_entail(premise: str, hypothesis: str) -> bool:
    """Entailed iff every word of the hypothesis occurs in the premise (a stand-in NLI)."""
    return set(_WORD.findall(hypothesis.lower())) <= set(_WORD.findall(premise.lower()))


def _scripted(answer_for):
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    def generate(input, tools, tool_choice, config):
        out = ModelOutput.from_content("mockllm/model", answer_for(input[-1].text))
        out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
        return out

    return get_model("mockllm/model", custom_outputs=generate)


def alce_answer(prompt: str) -> str:
    if "Doctor Who" in prompt.rsplit("Question:", 1)[-1]:
        return (
            "The Ninth Doctor is portrayed by Christopher Eccleston [1]. "
            "David Tennant played the Tenth Doctor [2][4]."
        )
    return "The tower was constructed from 1887 to 1889 [1]."


def fullcite_answer(prompt: str) -> str:
    m = re.search(r"^Document 1 \(doc_id: (.+?)\): .*\n(.+)$", prompt, re.MULTILINE)
    if not m:
        return "I cannot tell."
    doc_id, text = m.group(1), m.group(2)
    return f"AXL is linked to poor prognosis {{doc_id: {doc_id}, snippet: {' '.join(text.split()[:8])}}}."


def write_logs(log_dir: Path) -> None:
    """Run the two tasks on their fixtures with scripted answers."""
    from inspect_ai import eval as inspect_eval

    from alce_tasks import asqa
    from fullcite_tasks import bioasq

    nli = f"python:{Path(__file__).resolve()}:word_entail"
    # ALCE's prompt file is downloaded, or read from INSPECT_CITE_ALCE_PROMPT_DIR when set
    # (offline machines, the tests).
    inspect_eval(
        asqa(dataset_path=str(FIXTURES / "alce_asqa.json"), nli=nli),
        model=_scripted(alce_answer), limit=1, log_dir=str(log_dir), display="none",
    )  # fmt: skip
    inspect_eval(
        bioasq(
            dataset_path=str(FIXTURES / "fullcite_bioasq.json"),
            abstracts_path=str(FIXTURES / "fullcite_bioasq_abstracts.json"),
            similarity_model=None,
        ),
        model=_scripted(fullcite_answer), limit=1, log_dir=str(log_dir), display="none",
    )  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def screenshot(log_dir: Path, out_dir: Path, chromium: str) -> list[str]:
    """Serve ``log_dir`` with ``inspect view`` and capture each log's first sample; return problems."""
    from inspect_ai.log import list_eval_logs, read_eval_log
    from playwright.sync_api import sync_playwright

    port = _free_port()
    inspect = str(Path(sys.executable).with_name("inspect"))
    server = subprocess.Popen(
        [inspect, "view", "start", "--log-dir", str(log_dir), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    problems = []
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                urllib.request.urlopen(base, timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            return [f"inspect view did not start on {base}"]
        with sync_playwright() as p:
            # Flags as this machine's probe used: no sandbox as root, nothing reaching the network.
            browser = p.chromium.launch(
                executable_path=chromium,
                args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                      "--disable-background-networking", "--disable-component-update",
                      "--disable-sync"],
            )  # fmt: skip
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            for info in list_eval_logs(str(log_dir)):
                log = read_eval_log(info, header_only=True)
                fullcite = "bioasq" in log.eval.task
                name, markers = (
                    ("fullcite", FULLCITE_MARKERS) if fullcite else ("alce", ALCE_MARKERS)
                )
                sample = read_eval_log(info).samples[0]
                url = f"{base}/#/logs/{Path(info.name).name}/samples/sample/{sample.id}/{sample.epoch}/scoring"
                page.goto(url)
                try:
                    page.get_by_text(markers[0]).first.wait_for(timeout=30_000)
                except Exception:
                    problems.append(f"{name}: {markers[0]!r} not visible at {url}")
                text = page.inner_text("body")
                problems += [f"{name}: {m!r} not shown" for m in markers if m not in text]
                page.screenshot(path=str(out_dir / f"viewer_{name}.png"), full_page=False)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return problems


def main(argv: list[str] | None = None) -> int:
    """Write the logs, take the screenshots, report problems (exit 1 if any)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs"), help="where the PNGs go")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        write_logs(Path(tmp))
        problems = screenshot(Path(tmp), out, args.chromium)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(
            f"explanations visible; wrote {out / 'viewer_alce.png'} and {out / 'viewer_fullcite.png'}"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
