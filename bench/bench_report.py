"""``inspect-cite report``'s wall time and peak memory on folders of 100, 400 and 1,000 logs.

The logs are real Inspect ``.eval`` logs: one run of a 20-sample task (mockllm answering with
``[n]`` citations, scored by a per-sample scorer of ALCE-like keys and by Inspect's own
``includes()``) is evaluated with Inspect, then written again under other models, strategies
and task arguments with ``inspect_ai.log.write_eval_log`` (new ids, scores varied per run), so
each log reads as a distinct run of one of five tasks. Each report runs as its own process
(``python -m inspect_cite.app.cli report DIR``, as the ``inspect-cite`` command), timed from
start to exit; its peak resident memory is the process's own (``wait4``'s ``ru_maxrss``).

Target (issue 52, item 6): 1,000 logs in under 60 s and under 1 GB.

``--baseline DIR`` runs the report of another checkout (an earlier commit, e.g.
``git archive <commit> | tar -x -C DIR``) on the same folders, in the same run.

Run from the repository root::

    PYTHONPATH=. python bench/bench_report.py [--logs 100,400,1000] [--samples 20] [--baseline DIR]
"""

import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
TASKS = ("asqa", "qampari", "eli5", "expertqa", "hagrid")
TARGET_SECONDS = 60.0
TARGET_BYTES = 1024**3


def template_log(samples: int, work: Path) -> Any:
    """One real run: ``samples`` questions, mockllm citing documents, two scorers."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, Target, includes, mean, scorer, stderr
    from inspect_ai.solver import TaskState

    @scorer(
        metrics={
            k: [mean(), stderr()] for k in ("str_em", "citation_rec", "citation_prec", "length")
        }
    )
    def alce_like() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            rng = random.Random(state.sample_id)
            cited = state.output.completion.count("[")
            return Score(
                value={
                    "str_em": 100.0 * rng.random(),
                    "citation_rec": 100.0 * rng.random() if cited else math.nan,
                    "citation_prec": 100.0 * rng.random() if cited else math.nan,
                    "length": float(len(state.output.completion.split())),
                },
                metadata={"reason": None if cited else "no citations"},
            )

        return score

    docs = [{"title": f"Doc {d}", "text": f"Passage {d} about the question."} for d in range(5)]
    dataset = [
        Sample(
            id=i,
            input=f"Question {i}: who wrote passage {i % 5}?",
            target=f"Passage {i % 5}",
            metadata={"docs": docs},
        )
        for i in range(samples)
    ]
    outputs = []
    for i in range(samples):
        output = ModelOutput.from_content(
            model="mockllm/model", content=f"Passage {i % 5} says so [{i % 5 + 1}][1]."
        )
        output.usage = ModelUsage(input_tokens=50, output_tokens=10, total_tokens=60)
        outputs.append(output)
    model = get_model("mockllm/model", custom_outputs=outputs)
    task = Task(dataset=dataset, scorer=[alce_like(), includes()], name="asqa")
    [log] = inspect_eval(task, model=model, log_dir=str(work / "template"), display="none")
    return log


def write_logs(template: Any, n: int, out: Path) -> None:
    """``n`` distinct runs of five tasks, written with Inspect's log API."""
    from inspect_ai.log import write_eval_log

    out.mkdir(parents=True)
    for i in range(n):
        log = template.model_copy(deep=True)
        rng = random.Random(i)
        log.eval.eval_id = log.eval.run_id = log.eval.task_id = uuid.uuid4().hex
        log.eval.task = TASKS[i % len(TASKS)]
        log.eval.model = f"mockllm/model-{i % 7}"
        args = {"ndoc": 1 + i // 35, "strategy": ("vanilla", "summary")[i % 2]}
        log.eval.task_args = log.eval.task_args_passed = args
        scale = 100.0
        for score in log.results.scores if log.results else []:
            scale = 1.0 if score.name == "includes" else 100.0
            for name, m in score.metrics.items():
                m.value = scale * rng.random() * (0.05 if name == "stderr" else 1.0)
        write_eval_log(log, str(out / f"run-{i:05d}.eval"))


class Measured(NamedTuple):
    """One report process: wall and CPU seconds, peak RSS in bytes, exit status."""

    seconds: float
    cpu: float
    rss: int
    code: int


def run_report(logs: Path, out: Path, source: Path, timeout: float) -> Measured:
    """The report on ``logs`` as its own process, the package imported from ``source``."""
    path = os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path)
    command = [sys.executable, "-m", "inspect_cite.app.cli", "report", str(logs), "--out", str(out)]
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=source, stdout=subprocess.DEVNULL)
    killer = threading.Timer(timeout, process.kill)
    killer.start()
    _, status, usage = os.wait4(process.pid, 0)
    killer.cancel()
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in kilobytes on Linux.
    cpu = usage.ru_utime + usage.ru_stime
    return Measured(seconds, cpu, usage.ru_maxrss * 1024, process.returncode)


def within_target(m: Measured) -> bool:
    """Whether a report met the 1,000-log target."""
    return m.seconds < TARGET_SECONDS and m.rss < TARGET_BYTES


def row(name: str, n: int, written: float, m: Measured, charts: int, target: bool) -> str:
    """A table row; ``target``: whether the 1,000-log target applies to it."""
    met = m.code == 0 and (not target or n < 1000 or within_target(m))
    status = ""
    if m.code != 0:
        status = " (killed at the time limit)" if m.code < 0 else f" (exit {m.code})"
    return (
        f"| {name} | {n:,} | {written:.0f} | {m.seconds:.1f}{status} | {m.cpu:.1f} | "
        f"{100 * m.seconds / n:.1f} | {m.rss / 2**20:.0f} | {charts} | "
        + ("yes" if met else "NO" if target else "-")
        + " |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logs", default="100,400,1000", help="comma-separated folder sizes")
    parser.add_argument("--samples", type=int, default=20, help="samples per log")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another checkout of the project (an earlier commit) whose report runs too",
    )
    parser.add_argument(
        "--timeout", type=float, default=900, help="seconds before a report is killed"
    )
    args = parser.parse_args()
    sizes = [int(n) for n in args.logs.split(",") if n]
    sources = [("this tree", ROOT)]
    if args.baseline:
        sources.append(("baseline", args.baseline.resolve()))
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        template = template_log(args.samples, work)
        print(f"{args.samples} samples a log; target: 1,000 logs in < 60 s and < 1 GB\n")
        print(
            "| report | logs | write (s) | wall (s) | CPU (s) | wall s per 100 logs | "
            "peak RSS (MB) | charts | met |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for n in sizes:
            start = time.perf_counter()
            write_logs(template, n, work / f"logs-{n}")
            written = time.perf_counter() - start
            for name, source in sources:
                out = work / f"report-{n}-{name.replace(' ', '_')}"
                m = run_report(work / f"logs-{n}", out, source, args.timeout)
                charts = len(list(out.glob("*.png"))) if m.code == 0 else 0
                this = source == ROOT
                failed |= this and (m.code != 0 or (n >= 1000 and not within_target(m)))
                print(row(name, n, written, m, charts, this), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
