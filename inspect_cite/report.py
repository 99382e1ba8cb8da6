"""``inspect-cite report``: compare runs across tasks, models and strategies.

Reads a directory of Inspect logs (one ``inspect eval-set`` directory, or any folder of ``.eval``
files) through ``inspect_ai.analysis``, and writes:

- ``metrics.md`` and ``metrics.csv``: every metric (mean and stderr) by task, model, strategy and
  whatever other task argument differs between the runs;
- ``<task>_metrics.png``: each metric by model and strategy, with stderr bars (a rate corrected
  for its NLI judge's errors, ``<score> (corrected)``, with its interval);
- ``fullcite_doc_vs_snippet.png``: Doc-F1 against Snippet-F1 per run (FullCite tasks);
- ``citation_positions.png``: how often each context position is cited (primacy bias).

Logs that are not successful runs (failed, cancelled, unfinished) are listed as skipped.
Charts wrap their panels into a grid, so any number of metrics stays under 2,000 px wide.
"""

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from inspect_cite.citations.alce import marker_refs
from inspect_cite.http_client import redact_text
from inspect_cite.log_metrics import metric_name

_ID_COLUMNS = ["task", "model", "strategy", "setting"]
# The `corrected` metric's columns: "<score> (corrected)" and its "_low" / "_high" bounds.
_CORRECTED_METRIC = "corrected"
_CORRECTED = " (corrected)"
_BOUNDS = tuple(f"{_CORRECTED}{b}" for b in ("_low", "_high"))
# Task arguments that name files: never a "setting" that distinguishes runs.
_PATH_ARGS = re.compile(r"(_path|_file|_dir)$")


def _strategy(row: pd.Series) -> str:
    # A solver given with --solver replaces the task's own, so it names the strategy first;
    # its package prefix adds nothing.
    solver = row.get("solver")
    if isinstance(solver, str) and solver:
        return solver.split("/")[-1]
    strategy = row.get("task_arg_strategy")
    return strategy if isinstance(strategy, str) and strategy else "default"


def _benchmark(metadata: Any) -> str:
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return "-"
    return str(metadata.get("benchmark", "-")) if isinstance(metadata, dict) else "-"


class SkippedRun(NamedTuple):
    """A log in the folder that is not a finished run (error, cancelled, started)."""

    log: str
    task: str
    model: str
    status: str
    error: str

    def describe(self) -> str:
        """One line naming the log, its status and why."""
        why = f": {self.error}" if self.error else ""
        return f"{self.log} ({self.task}, {self.model}): {self.status}{why}"


class Report(NamedTuple):
    """What ``write_report`` read and wrote."""

    runs: pd.DataFrame
    skipped: list[SkippedRun]
    written: list[Path]


def _read_logs(log_dir: str | Path) -> pd.DataFrame:
    from inspect_ai.analysis import evals_df

    if "://" not in str(log_dir) and not Path(log_dir).is_dir():
        raise ValueError(f"log directory {log_dir} does not exist")
    df = evals_df(str(log_dir), quiet=True)
    if df.empty:
        raise ValueError(f"no Inspect logs found in {log_dir}")
    return df


def _skipped(df: pd.DataFrame) -> list[SkippedRun]:
    skipped = []
    for _, row in df[df["status"] != "success"].iterrows():
        error = row.get("error_message")
        first_line = str(error).strip().splitlines()[0] if isinstance(error, str) and error else ""
        skipped.append(
            SkippedRun(
                log=str(row["log"]),
                task=str(row["task_name"]).split("/")[-1],
                model=str(row["model"]),
                status=str(row["status"]),
                error=first_line[:200],
            )
        )
    return sorted(skipped)


def _metric_column(score: str, metric: str, metrics: list[str]) -> str | None:
    """The report column of one metric of a score (``None``: per-group detail, left out)."""
    if metric == "mean":
        return score
    if metric == "stderr":
        return f"{score}_stderr"
    if metric == "weighted_mean":
        # citation_bias's share over all citations of the run.
        return f"{score} (weighted)"
    if "_by_group_" in metric:
        return None
    if metric.startswith(_CORRECTED_METRIC):
        # A rate corrected for its judge's errors and its interval (scorers/judge_correction.py).
        bound = metric[len(_CORRECTED_METRIC) :].removeprefix("_mean")
        return f"{score}{_CORRECTED}{bound}"
    # A score with a single corpus-level metric (MAUVE, one seed) is named by the score alone.
    return score if len(metrics) == 1 else f"{score} ({metric})"


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _metric_values(logs: list[str]) -> pd.DataFrame:
    """One row per log, one column per metric, read from each log's header.

    Several scorers may report a score of the same name (``n_citations`` from Doc/Snippet-F1,
    citation_bias and the judge): the column holds the first scorer's value, and a scorer
    that disagrees with it gets a ``<name> (<scorer>)`` column of its own.
    """
    from inspect_ai.log import read_eval_log

    rows: list[dict[str, float]] = []
    for path in logs:
        row: dict[str, float] = {}
        results = read_eval_log(path, header_only=True).results
        for score in results.scores if results else []:
            names = [metric_name(k) for k in score.metrics]
            for name, m in zip(names, score.metrics.values(), strict=True):
                column = _metric_column(score.name, name, names)
                if column is None:
                    continue
                value = float(m.value)
                if column in row and not _same(row[column], value):
                    stem, stderr = column.removesuffix("_stderr"), column.endswith("_stderr")
                    column = f"{stem} ({score.scorer})" + ("_stderr" if stderr else "")
                row.setdefault(column, value)
        rows.append(row)
    return pd.DataFrame(rows, index=range(len(logs)))


def _runs(df: pd.DataFrame, log_dir: str | Path, skipped: list[SkippedRun]) -> pd.DataFrame:
    df = df[df["status"] == "success"].copy()
    if df.empty:
        names = "; ".join(s.describe() for s in skipped)
        raise ValueError(f"no successful runs in {log_dir} (skipped: {names})")
    df = df.reset_index(drop=True)
    # Task names alone are ambiguous (ALCE's and FullCite's asqa): when both benchmarks'
    # runs share a directory, the benchmark recorded in the task metadata prefixes the name.
    df["task"] = df["task_name"].astype(str).str.split("/").str[-1]
    benchmark = df["metadata"].map(_benchmark) if "metadata" in df.columns else None
    if benchmark is not None:
        for name, group in df.groupby("task"):
            if benchmark[group.index].nunique() > 1:
                df.loc[group.index, "task"] = benchmark[group.index] + "/" + str(name)
    df["strategy"] = df.apply(_strategy, axis=1)
    arg_cols = [
        c
        for c in df.columns
        if c.startswith("task_arg_") and c != "task_arg_strategy" and not _PATH_ARGS.search(c)
    ]

    def setting(row: pd.Series) -> str:
        same_task = df[df["task"] == row["task"]]
        varying = [c for c in arg_cols if same_task[c].astype(str).nunique() > 1]
        # Logs written before specs with credentials were refused may still hold them.
        shown = (f"{c[len('task_arg_') :]}={redact_text(str(row[c]))}" for c in varying)
        return ", ".join(shown) or "-"

    df["setting"] = df.apply(setting, axis=1)
    out = df[_ID_COLUMNS + ["log"]].copy()
    metrics = _metric_values([str(p) for p in df["log"]])
    out = pd.concat([out, metrics[sorted(metrics.columns)]], axis=1)
    return out.sort_values(_ID_COLUMNS).reset_index(drop=True)


def load_runs(log_dir: str | Path) -> pd.DataFrame:
    """One row per successful run with id columns and ``<metric>`` / ``<metric>_stderr`` columns."""
    df = _read_logs(log_dir)
    return _runs(df, log_dir, _skipped(df))


def metric_names(runs: pd.DataFrame) -> list[str]:
    """The metric columns of ``load_runs`` output (without their stderr companions)."""
    return [
        c
        for c in runs.columns
        if c not in (*_ID_COLUMNS, "log") and not c.endswith(("_stderr", *_BOUNDS))
    ]


def _interval(run: pd.Series, metric: str) -> tuple[float, float] | None:
    """The interval beside a corrected rate, or None."""
    low, high = run.get(f"{metric}_low"), run.get(f"{metric}_high")
    if metric.endswith(_CORRECTED) and pd.notna(low) and pd.notna(high):
        return float(low), float(high)
    return None


def _cell(run: pd.Series, metric: str) -> str:
    value, err = run[metric], run.get(f"{metric}_stderr")
    if pd.isna(value):
        return "-"
    if (bounds := _interval(run, metric)) is not None:
        return f"{value:.2f} [{bounds[0]:.2f}, {bounds[1]:.2f}]"
    return f"{value:.2f} ± {err:.2f}" if err is not None and pd.notna(err) else f"{value:.2f}"


def _task_metrics(group: pd.DataFrame) -> list[str]:
    return [m for m in metric_names(group) if group[m].notna().any()]


def markdown_table(runs: pd.DataFrame) -> str:
    """One markdown table per task: a row per run, ``mean ± stderr`` per metric."""
    parts = []
    for task, group in runs.groupby("task", sort=True):
        metrics = _task_metrics(group)
        header = "| model | strategy | setting | " + " | ".join(metrics) + " |"
        rule = "|" + "---|" * (3 + len(metrics))
        rows = [
            f"| {r['model']} | {r['strategy']} | {r['setting']} | "
            + " | ".join(_cell(r, m) for m in metrics)
            + " |"
            for _, r in group.iterrows()
        ]
        parts.append(f"### {task}\n\n{header}\n{rule}\n" + "\n".join(rows))
    return "\n\n".join(parts) + "\n"


def _run_label(run: pd.Series) -> str:
    setting = f", {run['setting']}" if run["setting"] != "-" else ""
    return f"{run['model']}, {run['strategy']}{setting}"


def terminal_table(runs: pd.DataFrame) -> str:
    """Per task, the runs numbered and a table with a row per metric and a column per run.

    Metrics are rows so that every name is printed in full, once, however many there are.
    """
    parts = []
    for task, group in runs.groupby("task", sort=True):
        legend = [f"{i}. {_run_label(r)}" for i, (_, r) in enumerate(group.iterrows(), 1)]
        header = "| metric | " + " | ".join(str(i) for i in range(1, len(group) + 1)) + " |"
        rule = "|---|" + "---|" * len(group)
        rows = [
            f"| {m} | " + " | ".join(_cell(r, m) for _, r in group.iterrows()) + " |"
            for m in _task_metrics(group)
        ]
        parts.append(
            f"### {task}\n\n" + "\n".join(legend) + f"\n\n{header}\n{rule}\n" + "\n".join(rows)
        )
    return "\n\n".join(parts) + "\n"


def skipped_table(skipped: list[SkippedRun]) -> str:
    """A markdown list of the runs left out, or ``""`` when there are none."""
    if not skipped:
        return ""
    lines = [f"- {s.describe()}" for s in skipped]
    return f"### skipped runs ({len(skipped)}, not successful)\n\n" + "\n".join(lines) + "\n"


def cited_positions(output: str, docs: list[dict[str, Any]]) -> list[int]:
    """1-based context positions cited by an ALCE answer's ``[n]`` markers (shown docs only)."""
    return [r + 1 for r in marker_refs(output) if r is not None and 0 <= r < len(docs)]


def sample_positions(sample: Any) -> list[int]:
    """1-based context positions a logged sample cites.

    FullCite samples: the positions ``citation_bias`` computed (its score metadata), invalid
    citations left out. ALCE samples (no ``citation_bias`` score): the ``[n]`` markers.
    """
    bias = (sample.scores or {}).get("citation_bias")
    positions = (bias.metadata or {}).get("positions") if bias is not None else None
    if isinstance(positions, list):
        return [p for p in positions if isinstance(p, int)]
    docs = (sample.metadata or {}).get("docs") or []
    return cited_positions(sample.output.completion if sample.output else "", docs)


def position_counts(runs: pd.DataFrame) -> dict[str, Counter[int]]:
    """Counts of cited positions per task, over every sample of every run."""
    from inspect_ai.log import read_eval_log

    counts: dict[str, Counter[int]] = {}
    for _, run in runs.iterrows():
        log = read_eval_log(str(run["log"]))
        counter = counts.setdefault(str(run["task"]), Counter())
        for sample in log.samples or []:
            counter.update(sample_positions(sample))
    return counts


# Charts are laid out on a grid of fixed-size panels: at most _MAX_COLUMNS panels a row keeps
# every PNG under _MAX_WIDTH_PX wide however many metrics or tasks there are.
_DPI = 100
_PANEL_INCHES = (3.6, 2.6)
_MAX_COLUMNS = 5
_MAX_WIDTH_PX = 2000
_LABEL_WIDTH = 70


def _figure(n_panels: int, legend_rows: int = 0) -> tuple[Any, list[Any]]:
    """A figure with ``n_panels`` axes on a grid (unused cells hidden), room for a legend below."""
    import matplotlib.pyplot as plt

    ncols = max(1, min(n_panels, _MAX_COLUMNS))
    nrows = max(1, -(-n_panels // ncols))
    width = max(ncols * _PANEL_INCHES[0], 5.0)
    height = nrows * _PANEL_INCHES[1] + 0.8 + 0.22 * legend_rows
    # Constrained layout fits titles, ticks and the legend inside the figure, and, unlike
    # tight_layout, does not give up with a warning when there are many axes.
    fig = plt.figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel().tolist()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _save(fig: Any, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig.savefig(path, dpi=_DPI)
    plt.close(fig)


def _wrap(label: str) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(label, _LABEL_WIDTH)) or label


def _error_bars(group: pd.DataFrame, metric: str, values: list[float]) -> Any:
    """Each run's stderr bar, or, for a corrected rate, its interval (asymmetric)."""
    if metric.endswith(_CORRECTED):
        bounds = [_interval(r, metric) for _, r in group.iterrows()]
        return [
            [0.0 if b is None else max(0.0, v - b[0]) for v, b in zip(values, bounds, strict=True)],
            [0.0 if b is None else max(0.0, b[1] - v) for v, b in zip(values, bounds, strict=True)],
        ]
    if f"{metric}_stderr" in group:
        return group[f"{metric}_stderr"].astype(float).fillna(0).tolist()
    return None


def _bar_chart(group: pd.DataFrame, task: str, path: Path) -> None:
    """Every metric of a task in its own panel, one coloured bar per run, runs named below."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    metrics = _task_metrics(group)
    labels = [_wrap(f"{i}. {_run_label(r)}") for i, (_, r) in enumerate(group.iterrows(), 1)]
    colors = [plt.get_cmap("tab20")(i % 20) for i in range(len(labels))]
    legend_cols = 2 if len(labels) > 3 else 1
    legend_rows = sum(label.count("\n") + 1 for label in labels) // legend_cols + 1
    fig, axes = _figure(len(metrics), legend_rows)
    x = list(range(len(labels)))
    for ax, m in zip(axes, metrics, strict=True):
        values = group[m].astype(float).tolist()
        err = _error_bars(group, m, values)
        # A nan value (not computable for that run) gets no bar rather than a bar at 0.
        ax.bar(x, [0.0 if pd.isna(v) else v for v in values], color=colors, yerr=err, capsize=3)
        for xi, v in zip(x, values, strict=True):
            if pd.isna(v):
                ax.patches[xi].set_visible(False)
        ax.set_title(m, fontsize=9)
        ax.set_xticks(x, [str(i + 1) for i in x], fontsize=7)
        ax.tick_params(axis="y", labelsize=7)
    handles = [Patch(color=c) for c in colors]
    fig.legend(handles, labels, loc="outside lower center", ncols=legend_cols, fontsize=8)
    fig.suptitle(f"{task}: metrics by run (mean ± stderr)", fontsize=11)
    _save(fig, path)


def _doc_vs_snippet(runs: pd.DataFrame, path: Path) -> bool:
    """Doc-F1 against Snippet-F1, a numbered point per run, the runs named below the axes."""
    import matplotlib.pyplot as plt

    doc = next((c for c in ("doc_f1", "Doc-F1") if c in runs), None)
    snip = next((c for c in ("snippet_f1", "Snippet-F1") if c in runs), None)
    if doc is None or snip is None:
        return False
    data = runs.dropna(subset=[doc, snip])
    if data.empty:
        return False
    labels = [
        _wrap(f"{i}. {r['task']}: {_run_label(r)}") for i, (_, r) in enumerate(data.iterrows(), 1)
    ]
    fig = plt.figure(figsize=(7, 6 + 0.2 * len(labels)), layout="constrained")
    ax = fig.subplots()
    points: dict[tuple[float, float], list[str]] = {}
    for i, (_, r) in enumerate(data.iterrows()):
        color = plt.get_cmap("tab20")(i % 20)
        ax.scatter(r[doc], r[snip], color=color, label=labels[i])
        points.setdefault((round(r[doc], 1), round(r[snip], 1)), []).append(str(i + 1))
    # Runs at the same point share one label instead of overprinting each other.
    for (x, y), numbers in points.items():
        text = ",".join(numbers)
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.plot([0, 100], [0, 100], linestyle=":", color="grey")
    ax.set_xlim(-5, 105)
    ax.set_ylim(-5, 105)
    ax.set_xlabel("Doc-F1")
    ax.set_ylabel("Snippet-F1")
    ax.set_title("FullCite: document vs evidence-span attribution")
    fig.legend(loc="outside lower center", fontsize=8)
    _save(fig, path)
    return True


def _positions_chart(counts: dict[str, Counter[int]], path: Path) -> bool:
    counts = {t: c for t, c in counts.items() if sum(c.values())}
    if not counts:
        return False
    fig, axes = _figure(len(counts))
    for ax, (task, counter) in zip(axes, sorted(counts.items()), strict=True):
        total = sum(counter.values())
        positions = range(1, max(counter) + 1)
        shares = [100 * counter[p] / total for p in positions]
        ax.bar(list(positions), shares)
        first_two = 100 * (counter[1] + counter[2]) / total
        ax.set_title(f"{task}: {first_two:.1f}% to the first two", fontsize=9)
        ax.set_xlabel("cited context position", fontsize=8)
        ax.set_ylabel("% of citations", fontsize=8)
    _save(fig, path)
    return True


def write_report(log_dir: str | Path, out_dir: str | Path) -> Report:
    """Write the tables and charts; return the runs, the logs skipped and the files written."""
    import matplotlib

    matplotlib.use("Agg")
    df = _read_logs(log_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    skipped = _skipped(df)
    runs = _runs(df, log_dir, skipped)
    written = [out / "metrics.md", out / "metrics.csv"]
    tables = markdown_table(runs)
    if skipped:
        tables += "\n" + skipped_table(skipped)
    (out / "metrics.md").write_text(tables)
    runs.drop(columns=["log"]).to_csv(out / "metrics.csv", index=False)
    for task, group in runs.groupby("task", sort=True):
        path = out / f"{str(task).replace('/', '_')}_metrics.png"
        _bar_chart(group, str(task), path)
        written.append(path)
    if _doc_vs_snippet(runs, out / "fullcite_doc_vs_snippet.png"):
        written.append(out / "fullcite_doc_vs_snippet.png")
    if _positions_chart(position_counts(runs), out / "citation_positions.png"):
        written.append(out / "citation_positions.png")
    return Report(runs=runs, skipped=skipped, written=written)
